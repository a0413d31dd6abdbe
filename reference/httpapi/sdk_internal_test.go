package httpapi

import (
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestRestliList: Rest.li 2.0's List(a,b), its items percent-encoded, and
// the repeated or comma-separated form of plain clients.
func TestRestliList(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		err  string
	}{
		{nil, nil, ""},
		{[]string{"List(datasetProperties,ownership)"}, []string{"datasetProperties", "ownership"}, ""},
		{[]string{"List(dataset%50roperties)"}, []string{"datasetProperties"}, ""},
		{[]string{"a", "b,c"}, []string{"a", "b", "c"}, ""},
		{[]string{"List()"}, []string{}, ""},
		{[]string{"List(a,b"}, nil, "closing parenthesis"},
		{[]string{"List(a%zz)"}, nil, "percent-encoded"},
	} {
		got, err := restliList(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("restliList(%q) error = %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("restliList(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestRawQueryKeepsEncodedCommas: the URNs of ids=List(...) are told apart
// before decoding, a comma inside one being %2C.
func TestRawQueryKeepsEncodedCommas(t *testing.T) {
	r := httptest.NewRequest("GET", "/entitiesV2?ids=List(urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Ca%2CPROD%29,urn%3Ali%3Atag%3At)&aspects=List(tagKey)", nil)
	ids, err := restliList(rawQuery(r, "ids"))
	want := []string{"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", "urn:li:tag:t"}
	if err != nil || !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %q, %v; want %q", ids, err, want)
	}
	if got := rawQuery(r, "aspects"); !reflect.DeepEqual(got, []string{"List(tagKey)"}) {
		t.Errorf("aspects = %q", got)
	}
}

// TestEntityPath: the URN, raw or percent-encoded, and an aspect after it.
func TestEntityPath(t *testing.T) {
	for path, want := range map[string][2]string{
		"/openapi/v3/entity/dataset/urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)":                              {"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", ""},
		"/openapi/v3/entity/dataset/urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Ca%2CPROD%29":          {"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", ""},
		"/openapi/v3/entity/dataset/urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)/datasetProperties":            {"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", "datasetProperties"},
		"/openapi/v3/entity/dataset/urn:li:dataset:(urn:li:dataPlatform:s3,bucket/key,PROD)":                       {"urn:li:dataset:(urn:li:dataPlatform:s3,bucket/key,PROD)", ""},
		"/openapi/v3/entity/dataset/urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3As3%2Cb%2Fk%2CPROD%29/status": {"urn:li:dataset:(urn:li:dataPlatform:s3,b/k,PROD)", "status"},
	} {
		r := httptest.NewRequest("GET", path, nil)
		urn, aspect, err := entityPath(r)
		if err != nil || urn != want[0] || aspect != want[1] {
			t.Errorf("entityPath(%s) = %q, %q, %v; want %q, %q", path, urn, aspect, err, want[0], want[1])
		}
	}
}

// TestDecodeOpenAPIItems: a list of objects, each with its urn, each aspect
// of a write {"value": {...}}; each fault named, the body never quoted.
func TestDecodeOpenAPIItems(t *testing.T) {
	items, err := decodeOpenAPIItems([]byte(`[{"urn": "u", "b": {"value": {"x": 1}, "headers": {}}, "a": {"value": {}}}]`), true)
	if err != nil || len(items) != 1 || items[0].urn != "u" || len(items[0].aspects) != 2 || items[0].aspects[0].name != "b" || string(items[0].aspects[0].value) != `{"x": 1}` {
		t.Fatalf("decodeOpenAPIItems = %+v, %v", items, err)
	}
	for body, want := range map[string]string{
		`{"urn": "u"}`:                           "not a JSON list",
		`[{"urn": "u"`:                           "not a JSON list",
		`["secret-text"]`:                        "entity 1 is not a JSON object",
		`[{"urn": "u"}, {"a": {"value": {}}}]`:   `entity 2 has no "urn"`,
		`[{"urn": 7}]`:                           `"urn" must be a string`,
		`[{"urn": "u", "a": {"value": "text"}}]`: "its value a JSON object",
		`[{"urn": "u", "a": {}}]`:                "its value a JSON object",
	} {
		_, err := decodeOpenAPIItems([]byte(body), true)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("decodeOpenAPIItems(%s) error = %v, want one saying %q", body, err, want)
		}
	}
	if _, err := decodeOpenAPIItems([]byte(`[{"urn": "u", "a": {}}]`), false); err != nil {
		t.Errorf("a batchGet naming an aspect with {}: %v", err)
	}
}

// TestBodyLimit: DataHub's 16,000,000 bytes for what ingests, on either
// tier; a MiB for everything else, a batchGet's list of names and the
// actions that read or delete included.
func TestBodyLimit(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         int64
	}{
		{"POST", "/aspects?action=ingestProposal", ingestBody},
		{"POST", "/aspects/?action=ingestProposalBatch", ingestBody},
		{"POST", "/api/gms/aspects?action=ingestProposalBatch", ingestBody},
		{"POST", "/aspects?action=getTimeseriesAspectValues", maxBody},
		{"POST", "/openapi/v3/entity/dataset", ingestBody},
		{"POST", "/api/gms/openapi/v3/entity/dataset", ingestBody},
		{"POST", "/openapi/v3/entity/dataset/batchGet", maxBody},
		{"POST", "/api/gms/openapi/v3/entity/tag/batchGet", maxBody},
		{"POST", "/entities?action=ingest", ingestBody},
		{"POST", "/api/gms/entities?action=ingest", ingestBody},
		{"POST", "/entities?action=delete", maxBody},
		{"POST", "/openapi/v1/trace/write/x", maxBody},
		{"POST", "/entities/x", maxBody},
		{"POST", "/api/graphql", maxBody},
		{"POST", "/api/gms/api/graphql", maxBody},
		{"GET", "/aspects/x", maxBody},
		{"PUT", "/openapi/v3/entity/dataset", maxBody},
	} {
		if got := bodyLimit(httptest.NewRequest(tc.method, tc.path, nil)); got != tc.want {
			t.Errorf("bodyLimit(%s %s) = %d, want %d", tc.method, tc.path, got, tc.want)
		}
	}
}
