package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// proposalJSON is one Rest.li proposal of aspect for urn.
func proposalJSON(entityType, urn, aspect, value string) string {
	b, _ := json.Marshal(map[string]any{
		"entityType": entityType, "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
		"aspect": map[string]string{"value": value, "contentType": "application/json"},
	})
	return string(b)
}

// TestTimeseriesWrittenAndRead: values of a timeseries aspect, written in a
// batch, come back through getTimeseriesAspectValues latest first, bounded
// by the limit and the filter; the same time written again replaces its
// value; latestValue gives the latest alone.
func TestTimeseriesWrittenAndRead(t *testing.T) {
	tr := start(t, true)
	job := fmt.Sprintf("urn:li:dataJob:(urn:li:dataFlow:(datahub,p-%s,prod),job)", uuid.NewString()[:8])
	point := func(pipeline string, ts int, state string) string {
		return proposalJSON("dataJob", job, "datahubIngestionCheckpoint",
			fmt.Sprintf(`{"timestampMillis":%d,"pipelineName":%q,"platformInstanceId":"","config":"","state":{"formatVersion":"1.0","serde":"utf-8","payload":%q},"runId":"r"}`, ts, pipeline, state))
	}
	batch := `{"proposals":[` + strings.Join([]string{point("a", 1000, "a1"), point("b", 3000, "b3"), point("a", 2000, "a2"), point("a", 1000, "a1-again")}, ",") + `],"async":"true"}`
	if r := do(t, "POST", tr.gms.URL+"/aspects?action=ingestProposalBatch", tr.rootToken, "application/json", batch); r.status != 200 {
		t.Fatalf("batch: %d %s", r.status, r.body)
	}
	read := func(body string) []string {
		t.Helper()
		r := do(t, "POST", tr.gms.URL+"/aspects?action=getTimeseriesAspectValues", tr.rootToken, "application/json", body)
		if r.status != 200 {
			t.Fatalf("read %s: %d %s", body, r.status, r.body)
		}
		var res struct {
			Value struct {
				Values []struct {
					Aspect struct{ Value, ContentType string } `json:"aspect"`
				} `json:"values"`
			} `json:"value"`
		}
		if err := json.Unmarshal([]byte(r.body), &res); err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, v := range res.Value.Values {
			var c struct {
				State struct{ Payload string } `json:"state"`
			}
			if err := json.Unmarshal([]byte(v.Aspect.Value), &c); err != nil || v.Aspect.ContentType != "application/json" {
				t.Fatalf("value %q: %v", v.Aspect.Value, err)
			}
			states = append(states, c.State.Payload)
		}
		return states
	}
	q := func(extra string) string {
		return fmt.Sprintf(`{"urn":%q,"entity":"dataJob","aspect":"datahubIngestionCheckpoint"%s}`, job, extra)
	}
	if got := strings.Join(read(q("")), " "); got != "b3 a2 a1-again" {
		t.Errorf("every value: %s, want b3 a2 a1-again", got)
	}
	filter := `,"filter":{"or":[{"and":[{"field":"pipelineName","values":["a"],"condition":"EQUAL"}]}]},"limit":1`
	if got := strings.Join(read(q(filter)), " "); got != "a2" {
		t.Errorf("the latest of pipeline a: %s, want a2", got)
	}
	if got := strings.Join(read(q(`,"latestValue":true`)), " "); got != "b3" {
		t.Errorf("latestValue: %s, want b3", got)
	}
	if got := strings.Join(read(q(`,"startTimeMillis":1500,"endTimeMillis":2500`)), " "); got != "a2" {
		t.Errorf("between 1500 and 2500: %s, want a2", got)
	}
	if got := strings.Join(read(q(`,"filter":{"criteria":[{"field":"timestampMillis","value":"2000","condition":"GREATER_THAN_OR_EQUAL_TO"}]},"sort":{"field":"timestampMillis","order":"ASCENDING"}`)), " "); got != "a2 b3" {
		t.Errorf("from 2000, oldest first: %s, want a2 b3", got)
	}
	if got := strings.Join(read(q(`,"filter":{"or":[{"and":[{"field":"pipelineName","values":["A"],"condition":"START_WITH","negated":true}]}]}`)), " "); got != "b3" {
		t.Errorf("the values of a pipeline not starting with a: %s, want b3", got)
	}
	// A timeseries aspect is no versioned aspect: the aspect path has none.
	if r := do(t, "GET", tr.gms.URL+"/aspects/"+strings.ReplaceAll(job, ",", "%2C")+"?aspect=datahubIngestionCheckpoint&version=0", tr.rootToken, "", ""); r.status != 404 {
		t.Errorf("the aspect path for a timeseries aspect: %d %s", r.status, r.body)
	}
	// The data job has its key, derived from the URN.
	if r := do(t, "GET", tr.gms.URL+"/aspects/"+strings.ReplaceAll(job, ",", "%2C")+"?aspect=dataJobKey&version=0", tr.rootToken, "", ""); r.status != 200 || !strings.Contains(r.body, `"jobId":"job"`) {
		t.Errorf("the data job's key: %d %s", r.status, r.body)
	}
	for body, want := range map[string]int{
		q(`,"filter":{"or":[{"and":[{"field":"x","values":["1"],"condition":"NEAR"}]}]}`):         400,
		q(`,"filter":{"or":[{"and":[{"field":"x","values":["a"],"condition":"GREATER_THAN"}]}]}`): 400,
		q(`,"sort":{"field":"runId","order":"ASCENDING"}`):                                        400,
		fmt.Sprintf(`{"urn":%q,"entity":"dataJob","aspect":"dataJobInfo"}`, job):                  400,
		fmt.Sprintf(`{"urn":%q,"entity":"dataset","aspect":"datasetProfile"}`, job):               400,
		fmt.Sprintf(`{"urn":%q,"entity":"dataJob"}`, job):                                         400,
		`{"urn":"nonsense","entity":"dataJob","aspect":"datahubIngestionCheckpoint"}`:             400,
	} {
		if r := do(t, "POST", tr.gms.URL+"/aspects?action=getTimeseriesAspectValues", tr.rootToken, "application/json", body); r.status != want {
			t.Errorf("%s: %d %s, want %d", body, r.status, r.body, want)
		}
	}
	// Without a value's time it is refused, and nothing of its batch kept.
	other := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,t-%s,PROD)", uuid.NewString()[:8])
	bad := `{"proposals":[` + proposalJSON("dataset", other, "datasetProperties", `{"description":"kept?"}`) + "," + proposalJSON("dataset", other, "datasetProfile", `{"rowCount":1}`) + `]}`
	if r := do(t, "POST", tr.gms.URL+"/aspects?action=ingestProposalBatch", tr.rootToken, "application/json", bad); r.status != 422 {
		t.Errorf("a profile without timestampMillis: %d %s, want 422", r.status, r.body)
	}
	if r := do(t, "GET", tr.gms.URL+"/aspects/"+strings.ReplaceAll(other, ",", "%2C")+"?aspect=datasetProperties&version=0", tr.rootToken, "", ""); r.status != 404 {
		t.Errorf("after the refused batch: %d %s", r.status, r.body)
	}
}

var traceparent = regexp.MustCompile(`^00-([0-9a-f]{32})-[0-9a-f]{16}-01$`)

// TestTracedWrite: a write through OpenAPI is answered with a traceparent,
// and the trace says each aspect it wrote is active, until another write
// replaces it; an aspect it did not write is an error.
func TestTracedWrite(t *testing.T) {
	tr := start(t, true)
	urn := fmt.Sprintf("urn:li:container:%s", uuid.NewString())
	write := func(description string) string {
		t.Helper()
		body := fmt.Sprintf(`[{"urn":%q,"containerProperties":{"value":{"name":"c","description":%q}}}]`, urn, description)
		r := do(t, "POST", tr.gms.URL+"/openapi/v3/entity/container?async=true", tr.rootToken, "application/json", body)
		if r.status != 202 {
			t.Fatalf("write: %d %s", r.status, r.body)
		}
		m := traceparent.FindStringSubmatch(r.header.Get("traceparent"))
		if m == nil {
			t.Fatalf("traceparent %q", r.header.Get("traceparent"))
		}
		return m[1]
	}
	first := write("one")
	trace := func(id string) map[string]map[string]map[string]any {
		t.Helper()
		body := fmt.Sprintf(`{%q: ["containerProperties", "containerKey", "status"]}`, urn)
		r := do(t, "POST", tr.gms.URL+"/openapi/v1/trace/write/"+id+"?onlyIncludeErrors=false&detailed=true", tr.rootToken, "application/json", body)
		if r.status != 200 {
			t.Fatalf("trace: %d %s", r.status, r.body)
		}
		var res map[string]map[string]map[string]any
		if err := json.Unmarshal([]byte(r.body), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	status := func(res map[string]map[string]map[string]any, aspect string) string {
		s := res[urn][aspect]
		primary, _ := s["primaryStorage"].(map[string]any)
		return fmt.Sprint(s["success"], " ", primary["writeStatus"])
	}
	res := trace(first)
	if got := status(res, "containerProperties"); got != "true ACTIVE_STATE" {
		t.Errorf("containerProperties after the write: %s", got)
	}
	if got := status(res, "containerKey"); got != "true ACTIVE_STATE" {
		t.Errorf("the key written with it: %s", got)
	}
	if got := status(res, "status"); got != "false ERROR" {
		t.Errorf("an aspect the write did not make: %s", got)
	}
	write("two")
	if got := status(trace(first), "containerProperties"); got != "true HISTORIC_STATE" {
		t.Errorf("containerProperties after a second write: %s", got)
	}
	// Only the errors, by default.
	r := do(t, "POST", tr.gms.URL+"/openapi/v1/trace/write/"+first, tr.rootToken, "application/json", fmt.Sprintf(`{%q: ["containerProperties", "status"]}`, urn))
	if r.status != 200 || strings.Contains(r.body, "containerProperties") || !strings.Contains(r.body, `"status"`) {
		t.Errorf("onlyIncludeErrors by default: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", tr.gms.URL+"/openapi/v1/trace/write/nonsense", tr.rootToken, "application/json", `{}`); r.status != 400 {
		t.Errorf("a trace id that is not one: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", tr.gms.URL+"/openapi/v1/trace/write/"+first, "", "application/json", `{}`); r.status != 401 {
		t.Errorf("without a token: %d", r.status)
	}
}

// TestEmitMCE: an entity emitted whole, as emit_mce sends it, is written
// with its key; a snapshot that is not its entity type's, or an aspect
// that is not the entity's, is refused and writes nothing.
func TestEmitMCE(t *testing.T) {
	tr := start(t, true)
	urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,mce-%s,PROD)", uuid.NewString()[:8])
	mce := func(snapshot, class string) string {
		return fmt.Sprintf(`{"entity": {"value": {%q: {"urn": %q, "aspects": [{%q: {"description": "emitted", "customProperties": {}, "tags": []}}]}}}, "systemMetadata": {"lastObserved": 1, "runId": "no-run-id-provided"}}`, snapshot, urn, class)
	}
	get := func() response {
		return do(t, "GET", tr.gms.URL+"/aspects/"+strings.ReplaceAll(urn, ",", "%2C")+"?aspect=datasetProperties&version=0", tr.rootToken, "", "")
	}
	for name, body := range map[string]string{
		"another type's snapshot": mce("com.linkedin.metadata.snapshot.ChartSnapshot", "com.linkedin.dataset.DatasetProperties"),
		"another type's aspect":   mce("com.linkedin.metadata.snapshot.DatasetSnapshot", "com.linkedin.chart.ChartInfo"),
		"no snapshot":             `{"entity": {"value": {}}}`,
	} {
		if r := do(t, "POST", tr.gms.URL+"/entities?action=ingest", tr.rootToken, "application/json", body); r.status != 400 {
			t.Errorf("%s: %d %s, want 400", name, r.status, r.body)
		}
		if r := get(); r.status != 404 {
			t.Errorf("after %s: %d %s", name, r.status, r.body)
		}
	}
	r := do(t, "POST", tr.frontend.URL+"/api/gms/entities?action=ingest", tr.rootToken, "application/json", mce("com.linkedin.metadata.snapshot.DatasetSnapshot", "com.linkedin.dataset.DatasetProperties"))
	if r.status != http.StatusOK || !traceparent.MatchString(r.header.Get("traceparent")) {
		t.Fatalf("emit_mce through the frontend: %d %q %s", r.status, r.header.Get("traceparent"), r.body)
	}
	if r := get(); r.status != 200 || !strings.Contains(r.body, "emitted") {
		t.Errorf("the emitted properties: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", tr.gms.URL+"/entities?action=ingest", "", "application/json", `{}`); r.status != 401 {
		t.Errorf("without a token: %d", r.status)
	}
	if r := do(t, "POST", tr.gms.URL+"/entities?action=delete", tr.rootToken, "application/json", `{}`); r.status != 400 {
		t.Errorf("an action not served: %d %s", r.status, r.body)
	}
}
