package sdkclient

import (
	"net/http"
	"testing"
)

// TestDumpsIsPythonsJSONDumps: what Python's json.dumps prints for the same
// values (CPython's json module with its defaults: ", " and ": ",
// ensure_ascii, \u escapes in lower-case hex, surrogate pairs, DEL
// escaped, no HTML escaping).
func TestDumpsIsPythonsJSONDumps(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{Obj{{"a", 1}, {"b", []any{true, nil, "x"}}}, `{"a": 1, "b": [true, null, "x"]}`},
		{Obj{}, `{}`},
		{[]any{}, `[]`},
		{"é€😀", `"\u00e9\u20ac\ud83d\ude00"`},
		{"<a href='x'>&</a>", `"<a href='x'>&</a>"`},
		{"\"\\\b\f\n\r\t\x00\x1f\x7f/", `"\"\\\b\f\n\r\t\u0000\u001f\u007f/"`},
		{int64(1711540000000), `1711540000000`},
		{[]Obj{{{"urn", "u"}}, {}}, `[{"urn": "u"}, {}]`},
	} {
		if got := string(Dumps(tc.in)); got != tc.want {
			t.Errorf("Dumps(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// mcp is a proposal as the tests below send it, observed at a fixed time.
var mcp = MCP{
	EntityURN:    "urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)",
	AspectName:   "datasetProperties",
	Aspect:       Obj{{"customProperties", Obj{}}, {"description", "Orders"}, {"tags", []any{}}},
	LastObserved: 1711540000000,
}

// TestRequestsAreTheSDKs: the paths, query strings and bodies, byte for
// byte as the SDK's code builds them (written out here from reading it).
func TestRequestsAreTheSDKs(t *testing.T) {
	sm := `"systemMetadata": {"lastObserved": 1711540000000, "runId": "no-run-id-provided", "lastRunId": "no-run-id-provided", "properties": {"clientId": "acryl-datahub", "clientVersion": "` + ClientVersion + `"}}`
	proposal := `{"entityType": "dataset", "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)", "changeType": "UPSERT", "aspectName": "datasetProperties", "aspect": {"value": "{\"customProperties\": {}, \"description\": \"Orders\", \"tags\": []}", "contentType": "application/json"}, ` + sm + `}`
	item := `{"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)", "datasetProperties": {"value": {"customProperties": {}, "description": "Orders", "tags": []}, "systemMetadata": {"lastObserved": 1711540000000, "runId": "no-run-id-provided", "lastRunId": "no-run-id-provided", "pipelineName": null, "registryName": null, "registryVersion": null, "properties": {"clientId": "acryl-datahub", "clientVersion": "` + ClientVersion + `"}, "version": null, "schemaVersion": null, "aspectCreated": null, "aspectModified": null}, "headers": {}}}`
	other := mcp
	other.EntityURN = "urn:li:tag:t"
	other.AspectName = "tagProperties"
	other.Aspect = Obj{{"name", "t"}}
	for name, tc := range map[string][2]string{
		"get_aspect":                 {AspectPath("urn:li:dataset:(urn:li:dataPlatform:hive,a/b c,PROD)", "datasetKey", 0), "/aspects/urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Ca%2Fb%20c%2CPROD%29?aspect=datasetKey&version=0"},
		"get_entity_raw":             {EntityV2Path("urn:li:tag:t", nil), "/entitiesV2/urn%3Ali%3Atag%3At"},
		"batch_get_ids":              {EntitiesV2Path([]string{"urn:li:tag:a", "urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)"}), "/entitiesV2?ids=List(urn%3Ali%3Atag%3Aa,urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Cb%2CPROD%29)"},
		"get_entity_raw with a list": {EntityV2Path("urn:li:tag:t", []string{"tagKey", "ownership"}), "/entitiesV2/urn%3Ali%3Atag%3At?aspects=List(tagKey,ownership)"},
		"execute_graphql":            {string(GraphQLBody("{ me }", Obj{{"a", 1}}, "Q")), `{"query": "{ me }", "variables": {"a": 1}, "operationName": "Q"}`},
		"execute_graphql bare":       {string(GraphQLBody("{ me }", nil, "")), `{"query": "{ me }"}`},
		"emit_mcp":                   {string(IngestProposalBody(mcp, false)), `{"proposal": ` + proposal + `, "async": "false"}`},
		"emit_mcps":                  {string(IngestProposalBatchBody([]MCP{mcp, mcp}, true)), `{"proposals": [` + proposal + `, ` + proposal + `], "async": "true"}`},
		"emit_mcp on OpenAPI":        {string(OpenAPIWrite(mcp, false).Body), `[` + item + `]`},
		"emit_mcps on OpenAPI":       {string(OpenAPIWrites([]MCP{mcp, other, mcp}, false)[0].Body), `[` + item + `,` + item + `]`},
		"get_entities":               {string(EntitiesBody([]string{"u1", "u2"}, []string{"a"})), `[{"urn": "u1", "a": {}}, {"urn": "u2", "a": {}}]`},
	} {
		if tc[0] != tc[1] {
			t.Errorf("%s:\n got %s\nwant %s", name, tc[0], tc[1])
		}
	}
	writes := OpenAPIWrites([]MCP{mcp, other, mcp}, true)
	if len(writes) != 2 || writes[0].Path != "/openapi/v3/entity/dataset?async=true" || writes[1].Path != "/openapi/v3/entity/tag?async=true" {
		t.Errorf("emit_mcps on OpenAPI groups by entity type in order of appearance: %+v", writes)
	}
	del := mcp
	del.ChangeType = "DELETE"
	if r := OpenAPIWrite(del, false); r.Method != http.MethodDelete || r.Path != "/openapi/v3/entity/dataset/urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)" || string(r.Body) != "[]" {
		t.Errorf("a DELETE on OpenAPI: %s %s %s", r.Method, r.Path, r.Body)
	}
	many := make([]MCP, 201)
	for i := range many {
		many[i] = mcp
	}
	if n := len(OpenAPIWrites(many, false)); n != 2 {
		t.Errorf("201 proposals on OpenAPI make %d requests, want 2 (200 at most each)", n)
	}
	h := Headers("tok")
	for k, v := range map[string]string{"X-RestLi-Protocol-Version": "2.0.0", "X-DataHub-Client-Mode": "SDK", "Content-Type": "application/json", "Authorization": "Bearer tok", "User-Agent": UserAgent} {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	if Headers("").Get("Authorization") != "" {
		t.Errorf("no token, yet an Authorization header")
	}
}
