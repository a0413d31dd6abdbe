package sdkclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTimeseriesAndMCERequestsAreTheSDKs: the bodies of
// get_timeseries_values, get_latest_timeseries_value's filter, the CLI's
// latest value, emit_mce and the trace, byte for byte as the SDK writes them.
func TestTimeseriesAndMCERequestsAreTheSDKs(t *testing.T) {
	job := "urn:li:dataJob:(urn:li:dataFlow:(datahub,p,prod),j)"
	sm := `{"lastObserved": 1711540000000, "runId": "no-run-id-provided", "lastRunId": "no-run-id-provided", "pipelineName": null, "registryName": null, "registryVersion": null, "properties": {"clientId": "acryl-datahub", "clientVersion": "` + ClientVersion + `"}, "version": null, "schemaVersion": null, "aspectCreated": null, "aspectModified": null}`
	for name, tc := range map[string][2]string{
		"get_latest_timeseries_value": {string(TimeseriesValuesBody(job, "datahubIngestionCheckpoint", LatestFilter(Obj{{"pipelineName", "p"}}), 1)),
			`{"urn": "urn:li:dataJob:(urn:li:dataFlow:(datahub,p,prod),j)", "entity": "dataJob", "aspect": "datahubIngestionCheckpoint", "limit": 1, "filter": {"or": [{"and": [{"field": "pipelineName", "values": ["p"], "condition": "EQUAL"}]}]}}`},
		"get_latest_timeseries_aspect_values": {string(LatestTimeseriesBody("urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", "datasetProfile")),
			`{"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", "entity": "dataset", "aspect": "datasetProfile", "latestValue": true}`},
		"emit_mce": {string(MCEBody(MCE{Snapshot: "DatasetSnapshot", URN: "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", LastObserved: 1711540000000,
			Aspects: []MCEAspect{{Class: "com.linkedin.common.Status", Value: Obj{{"removed", false}}}}})),
			`{"entity": {"value": {"com.linkedin.metadata.snapshot.DatasetSnapshot": {"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", "aspects": [{"com.linkedin.common.Status": {"removed": false}}]}}}, "systemMetadata": ` + sm + `}`},
		"_await_status": {string(TraceBody(TraceData{URNs: []string{"b", "a"}, Aspects: map[string][]string{"a": {"x"}, "b": {"y", "z"}}})), `{"b": ["y", "z"], "a": ["x"]}`},
		"trace path":    {TracePath("0123"), "/openapi/v1/trace/write/0123?onlyIncludeErrors=false&detailed=true"},
		"run report's source": {"urn:li:dataHubIngestionSource:cli-" + DataHubGUID(map[string]string{"type": "file", "pipeline_name": "p"}),
			// hashlib.md5(b'{"pipeline_name":"p","type":"file"}').hexdigest()
			"urn:li:dataHubIngestionSource:cli-" + "c8900f17ccccbff0f22f35cd828e0a4f"},
	} {
		if tc[0] != tc[1] {
			t.Errorf("%s:\n got %s\nwant %s", name, tc[0], tc[1])
		}
	}
}

// TestTimeseriesReadsAsTheSDK: what get_timeseries_values,
// get_latest_timeseries_value and `datahub get` refuse.
func TestTimeseriesReadsAsTheSDK(t *testing.T) {
	ctx := context.Background()
	urn := "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)"
	value := func(v string) string { return `{"aspect": {"value": ` + v + `, "contentType": "application/json"}}` }
	for _, tc := range []struct {
		name   string
		status int
		body   string
		call   func(*Client) error
		kind   string
	}{
		{"a value", 200, `{"value": {"values": [` + value(`"{\"timestampMillis\": 1}"`) + `]}}`,
			func(c *Client) error { _, err := c.GetTimeseriesValues(ctx, urn, DatasetProfile, nil, 1); return err }, ""},
		{"no values", 200, `{"value": {}}`,
			func(c *Client) error {
				_, ok, err := c.GetLatestTimeseriesValue(ctx, urn, DatasetProfile, nil)
				return notOr(ok, err)
			}, ""},
		{"a value without its text", 200, `{"value": {"values": [{"aspect": {}}]}}`,
			func(c *Client) error { _, err := c.GetTimeseriesValues(ctx, urn, DatasetProfile, nil, 1); return err }, "GraphError"},
		{"a value given as an object", 200, `{"value": {"values": [` + value(`{"timestampMillis": 1}`) + `]}}`,
			func(c *Client) error { _, err := c.GetTimeseriesValues(ctx, urn, DatasetProfile, nil, 1); return err }, "GraphError"},
		{"a value without its time", 200, `{"value": {"values": [` + value(`"{}"`) + `]}}`,
			func(c *Client) error { _, err := c.GetTimeseriesValues(ctx, urn, DatasetProfile, nil, 1); return err }, "ValueError"},
		{"two values for a limit of one", 200, `{"value": {"values": [` + value(`"{\"timestampMillis\": 1}"`) + `, ` + value(`"{\"timestampMillis\": 2}"`) + `]}}`,
			func(c *Client) error {
				_, _, err := c.GetLatestTimeseriesValue(ctx, urn, DatasetProfile, nil)
				return err
			}, "AssertionError"},
		{"refused", 403, `{"message": "no"}`,
			func(c *Client) error { _, err := c.GetTimeseriesValues(ctx, urn, DatasetProfile, nil, 1); return err }, "OperationalError"},
		{"datahub get of an entity without aspects", 200, `{"aspect": {"com.linkedin.metadata.key.DatasetKey": {"platform": "p", "name": "n", "origin": "PROD"}}, "aspects": {}}`,
			func(c *Client) error { _, err := c.CLIGet(ctx, urn, nil); return err }, ""},
		{"datahub get of an answer without aspects", 200, `{"aspect": {"com.linkedin.metadata.key.DatasetKey": {"platform": "p", "name": "n", "origin": "PROD"}}}`,
			func(c *Client) error { _, err := c.CLIGet(ctx, urn, []string{"datasetProperties"}); return err }, "KeyError"},
		{"emit_mce refused", 403, `{"message": "no"}`,
			func(c *Client) error { return c.EmitMCE(ctx, MCE{Snapshot: "DatasetSnapshot", URN: urn}) }, "OperationalError"},
	} {
		c := fake(t, tc.status, tc.body)
		if err := tc.call(c); kind(err) != tc.kind {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.kind)
		}
	}
}

// TestAsyncWaitAsTheSDK: an ASYNC_WAIT emit waits while an aspect is
// PENDING and returns once none is; it fails without a traceparent, on a
// failed write, and on a status without its storages.
func TestAsyncWaitAsTheSDK(t *testing.T) {
	ctx := context.Background()
	urn := "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)"
	ms := []MCP{{EntityURN: urn, AspectName: "status", Aspect: Obj{{"removed", false}}}}
	serve := func(header string, traces ...string) (*Client, *atomic.Int32) {
		var asked atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if strings.HasPrefix(r.URL.Path, "/openapi/v3/entity/") {
				if header != "" {
					w.Header().Set("traceparent", header)
				}
				w.WriteHeader(202)
				_, _ = w.Write([]byte(`[{"urn": "` + urn + `", "status": {"value": {"removed": false}}}]`))
				return
			}
			n := int(asked.Add(1))
			_, _ = w.Write([]byte(traces[min(n, len(traces))-1]))
		}))
		t.Cleanup(srv.Close)
		yes := true
		return &Client{Server: srv.URL, OpenAPI: &yes, Version: [4]int{1, 5, 0, 0}}, &asked
	}
	status := func(success bool, primary, search string) string {
		return `{"` + urn + `": {"status": {"success": ` + map[bool]string{true: "true", false: "false"}[success] + `, "primaryStorage": {"writeStatus": "` + primary + `"}, "searchStorage": {"writeStatus": "` + search + `"}}}}`
	}
	parent := "00-0006123456789abc0123456789abcdef-0123456789abcdef-01"
	c, asked := serve(parent, status(true, "PENDING", "PENDING"), status(true, "ACTIVE_STATE", "ACTIVE_STATE"))
	traces, err := c.EmitMCPsAsyncWait(ctx, ms, time.Minute)
	if err != nil || len(traces) != 1 || traces[0].TraceID != "0006123456789abc0123456789abcdef" || asked.Load() != 2 {
		t.Errorf("waited: %v, %v after %d asks", traces, err, asked.Load())
	}
	for name, tc := range map[string]struct {
		header, answer, kind string
	}{
		"no traceparent":            {"", status(true, "ACTIVE_STATE", "ACTIVE_STATE"), "APITracingWarning"},
		"a failed write":            {parent, status(false, "ERROR", "ERROR"), "TraceValidationError"},
		"a status without storages": {parent, `{"` + urn + `": {"status": {"success": true}}}`, "KeyError"},
		"an aspect not asked after": {parent, `{"urn:li:tag:x": {"status": {"success": true}}}`, "KeyError"},
	} {
		c, _ := serve(tc.header, tc.answer)
		if _, err := c.EmitMCPsAsyncWait(ctx, ms, time.Minute); kind(err) != tc.kind {
			t.Errorf("%s: %v, want %s", name, err, tc.kind)
		}
	}
	c, _ = serve(parent, status(true, "PENDING", "ACTIVE_STATE"))
	if _, err := c.EmitMCPsAsyncWait(ctx, ms, 1500*time.Millisecond); kind(err) != "TraceTimeoutError" {
		t.Errorf("a write that stays pending: %v, want TraceTimeoutError", err)
	}
}
