package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerIngestionRunsSteps registers the steps of
// features/ingestion_runs.feature.
func registerIngestionRunsSteps(s stepRegistrar) {
	s.Step(`^`+who+` runs datahub ingest of a file of (records|datasets) through the (metadata service|frontend)$`, runsIngest)
	s.Step(`^every request of the run is acknowledged$`, runSucceeded)
	s.Step(`^every record of the run reads back$`, runRecordsReadBack)
	s.Step(`^the run's report reads back, saying the run succeeded$`, runReportReadsBack)
	s.Step(`^the run's batch is refused as unauthorized$`, runRefused)
	s.Step(`^no record of the run was stored$`, runStoredNothing)
	s.Step(`^`+who+` has run a stateful ingestion of two datasets$`, hasRunStatefully)
	s.Step(`^`+who+` runs the same stateful ingestion again with the first dataset alone$`, runsStatefullyAgain)
	s.Step(`^the second run read the first run's checkpoint$`, secondReadFirstCheckpoint)
	s.Step(`^the dataset the second run left out is marked removed$`, leftOutMarkedRemoved)
	s.Step(`^the latest checkpoint of the pipeline is the second run's$`, latestCheckpointIsSecond)
	s.Step(`^`+who+` emits a new dataset whole through the (metadata service|frontend)$`, emitsDatasetWhole)
	s.Step(`^the emit is acknowledged$`, writeAcknowledged)
	s.Step(`^each aspect of the emitted dataset reads back, with its key$`, emittedReadsBack)
	s.Step(`^the write's trace comes to show every aspect it made as written$`, traceShowsWritten)
	s.Step(`^the administrator has written two new datasets for asynchronous ingestion through OpenAPI$`, adminWroteAsync)
	s.Step(`^`+who+` asks after the write's trace$`, asksAfterTrace)
	s.Step(`^the answer shows nothing of the write$`, answerShowsNothingOfWrite)
	s.Step(`^someone without a token (emits a dataset whole|asks after a write's trace) through the (metadata service|frontend)$`, anonymousRunRequest)
}

// ingestion_runs.feature: `datahub ingest` run as DataHub's CLI runs it
// (sdkclient.Ingest, from ingestion/run/pipeline.py and the datahub-rest
// sink), emit_mce, and the trace an ASYNC_WAIT emit waits on.

// runState is what a scenario of ingestion_runs.feature knows.
type runState struct {
	run, firstRun *sdkclient.Run
	recipe        sdkclient.Recipe
	records       []sdkclient.MCP
	trace         sdkclient.TraceData // the last write's trace
}

// recordingTransport records each exchange of the SDK's own client in the
// scenario, as the suite's other requests are (masked, shown on failure).
type recordingTransport struct{ w *world }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// What the request may make is in the run's journal before it goes
	// (trace.go), as for the suite's other requests.
	var body []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(rc)
			_ = rc.Close()
		}
	}
	if err := t.w.traceRequest(request{method: req.Method, url: req.URL.String(), body: body}); err != nil {
		return nil, err
	}
	recorder{t.w}.Request(req)
	start := time.Now()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if resp != nil {
		recorder{t.w}.Response(resp, time.Since(start))
	}
	return resp, err
}

// sdkClient is DataHub's SDK as c, through the tier.
func (w *world) sdkClient(c caller, tier string) *sdkclient.Client {
	return &sdkclient.Client{Server: base(c, tier), Token: c.token, HTTP: &http.Client{Timeout: 30 * time.Second, Transport: recordingTransport{w}}}
}

// runClasses are the records of the aspects the runs write, for reading
// them back as get_aspect does.
var runClasses = map[string]string{
	"containerProperties": "com.linkedin.container.ContainerProperties",
	"datasetProperties":   "com.linkedin.dataset.DatasetProperties",
	"container":           "com.linkedin.container.Container",
	"status":              "com.linkedin.common.Status",
}

// runRecords are what the scenario's file holds: a container and two
// datasets in it, each with its properties and a profile (only datasets:
// the datasets without the container).
func (w *world) runRecords(datasetsOnly bool) []sdkclient.MCP {
	container := "urn:li:container:" + w.unique("container")
	var out []sdkclient.MCP
	if !datasetsOnly {
		out = append(out, sdkclient.MCP{EntityURN: container, AspectName: "containerProperties", Aspect: sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "name", Value: w.unique("database")}}})
	}
	for i := range 2 {
		d := w.newDataset()
		out = append(out, sdkclient.MCP{EntityURN: d.urn, AspectName: "datasetProperties", Aspect: propertiesAspect(d.description)})
		if !datasetsOnly {
			out = append(out,
				sdkclient.MCP{EntityURN: d.urn, AspectName: "container", Aspect: sdkclient.Obj{{Key: "container", Value: container}}},
				sdkclient.MCP{EntityURN: d.urn, AspectName: "datasetProfile", Aspect: sdkclient.Obj{{Key: "timestampMillis", Value: time.Now().UnixMilli()}, {Key: "rowCount", Value: int64(10 * (i + 1))}}},
			)
		}
	}
	return out
}

// ingest runs `datahub ingest` of records as c through the tier.
func (w *world) ingestRun(c caller, tier string, recipe sdkclient.Recipe, records []sdkclient.MCP) (*sdkclient.Run, error) {
	run, err := sdkclient.Ingest(context.Background(), w.sdkClient(c, tier), recipe, records)
	if err != nil {
		return nil, w.fail("datahub ingest as %s through the %s could not run: %v", c.name, tier, err)
	}
	return run, nil
}

func runsIngest(ctx context.Context, name, what, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.records = w.runRecords(what == "datasets")
	// The pipeline's name holds the scenario's: the run's report (its
	// ingestion source and execution request) says it, and the suite
	// removes the report by it (trace.go).
	w.recipe = sdkclient.Recipe{Source: "file", PipelineName: w.unique("pipeline")}
	w.run, err = w.ingestRun(c, tier, w.recipe, w.records)
	return err
}

func (w *world) theRun() (*sdkclient.Run, error) {
	if w.run == nil {
		return nil, w.fail("no run was made")
	}
	return w.run, nil
}

func runSucceeded(ctx context.Context) error {
	w := theWorld(ctx)
	run, err := w.theRun()
	if err != nil {
		return err
	}
	if run.ExitCode() != 0 || len(run.Warnings) > 0 {
		return w.fail("datahub ingest exited %d: %s", run.ExitCode(), errorsOf(append(run.Failures, run.Warnings...)))
	}
	return nil
}

func errorsOf(errs []error) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "; ")
}

// recordStored checks, once, that m reads back as written: a versioned
// aspect through the aspect path, a timeseries one among the entity's
// values.
func (w *world) recordStored(m sdkclient.MCP) error {
	if m.AspectName == "datasetProfile" {
		values, err := w.seriesValues(w.readSeries(w.reader(), "metadata service", m.EntityURN, m.AspectName, nil, 10))
		if err != nil {
			return err
		}
		for _, v := range values {
			if fmt.Sprint(v["timestampMillis"]) == fmt.Sprint(m.Aspect.Get("timestampMillis")) && fmt.Sprint(v["rowCount"]) == fmt.Sprint(m.Aspect.Get("rowCount")) {
				return nil
			}
		}
		return w.fail("%s's profiles %v do not hold the one the run wrote", m.EntityURN, values)
	}
	class, ok := runClasses[m.AspectName]
	if !ok {
		return w.fail("the scenario knows no record of %s (a defect of the step)", m.AspectName)
	}
	v, a, err := w.readAspectValue(m.EntityURN, m.AspectName, class)
	if err != nil {
		return err
	}
	var want map[string]any
	if err := json.Unmarshal(sdkclient.Dumps(m.Aspect), &want); err != nil {
		return w.failed(err)
	}
	for k, x := range want {
		if fmt.Sprint(v[k]) != fmt.Sprint(x) {
			return w.fail("%s: %s.%s is %v, expected %v as the run wrote it", a.what, class, k, v[k], x)
		}
	}
	return nil
}

// runRecordsReadBack: the sink sends its batches for asynchronous
// ingestion, so each record reads back within the propagation window.
func runRecordsReadBack(ctx context.Context) error {
	w := theWorld(ctx)
	for _, m := range w.records {
		if err := w.eventually("the run's "+m.AspectName+" of "+m.EntityURN+" reading back", func() (bool, error) {
			err := w.recordStored(m)
			return err == nil, err
		}); err != nil {
			return err
		}
	}
	return nil
}

func runReportReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	run, err := w.theRun()
	if err != nil {
		return err
	}
	checks := []struct {
		urn, aspect, class, field string
		want                      string
	}{
		{run.SourceURN, "dataHubIngestionSourceInfo", "com.linkedin.ingestion.DataHubIngestionSourceInfo", "type", w.recipe.Source},
		{run.RequestURN, "dataHubExecutionRequestInput", "com.linkedin.execution.ExecutionRequestInput", "task", "CLI Ingestion"},
		{run.RequestURN, "dataHubExecutionRequestResult", "com.linkedin.execution.ExecutionRequestResult", "status", "SUCCESS"},
	}
	for _, c := range checks {
		if err := w.eventually("the run's "+c.aspect+" reading back", func() (bool, error) {
			v, a, err := w.readAspectValue(c.urn, c.aspect, c.class)
			if err != nil {
				return false, err
			}
			if got := fmt.Sprint(v[c.field]); got != c.want {
				return false, w.fail("%s: %s is %q, expected %q", a.what, c.field, got, c.want)
			}
			return true, nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func runRefused(ctx context.Context) error {
	w := theWorld(ctx)
	run, err := w.theRun()
	if err != nil {
		return err
	}
	if run.ExitCode() != 1 || len(run.Failures) == 0 {
		return w.fail("datahub ingest exited %d, expected 1: its batch was taken", run.ExitCode())
	}
	for _, f := range run.Failures {
		var e *sdkclient.Error
		if !errors.As(f, &e) || (e.Status != http.StatusForbidden && e.Status != http.StatusUnauthorized) {
			return w.fail("the run failed with %v, expected a refusal as unauthorized (401 or 403)", f)
		}
	}
	return nil
}

func runStoredNothing(ctx context.Context) error {
	w := theWorld(ctx)
	run, err := w.theRun()
	if err != nil {
		return err
	}
	for _, m := range w.records {
		if err := w.entityNotMade(m.EntityURN, "datasetKey"); err != nil {
			return err
		}
	}
	// The run's source is every run's of the same source and pipeline
	// (its URN is a hash of them): the run's own entity is its request.
	return w.entityNotMade(run.RequestURN, "dataHubExecutionRequestKey")
}

// checkpointRunID reads the latest checkpoint of the pipeline as the
// administrator, as get_latest_checkpoint does: its runId, "" for none.
func (w *world) checkpointRunID() (string, error) {
	job := sdkclient.CheckpointJobURN(w.recipe.PipelineName, "hive_stale_entity_removal")
	filter := sdkclient.LatestFilter(sdkclient.Obj{{Key: "pipelineName", Value: w.recipe.PipelineName}})
	values, err := w.seriesValues(w.readSeries(w.reader(), "metadata service", job, "datahubIngestionCheckpoint", filter, 1))
	if err != nil || len(values) == 0 {
		return "", err
	}
	return fmt.Sprint(values[0]["runId"]), nil
}

func hasRunStatefully(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.recipe = sdkclient.Recipe{Source: "file", Platform: "hive", PipelineName: w.unique("pipeline"), Stateful: true}
	w.records = w.runRecords(true)
	run, err := w.ingestRun(c, "metadata service", w.recipe, w.records)
	if err != nil {
		return err
	}
	w.firstRun = run
	if run.ExitCode() != 0 {
		return w.fail("the first stateful run exited %d: %s", run.ExitCode(), errorsOf(run.Failures))
	}
	// The next run is later: by then the checkpoint shows.
	return w.eventually("the first run's checkpoint showing", func() (bool, error) {
		id, err := w.checkpointRunID()
		return err == nil && id == run.ID, errors.Join(err, w.fail("the latest checkpoint is of run %q, not the first run's %s", id, run.ID))
	})
}

func runsStatefullyAgain(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	if w.firstRun == nil {
		return w.fail("no first run was made")
	}
	w.run, err = w.ingestRun(c, "metadata service", w.recipe, w.records[:1])
	if err != nil {
		return err
	}
	if w.run.ExitCode() != 0 {
		return w.fail("the second stateful run exited %d: %s", w.run.ExitCode(), errorsOf(w.run.Failures))
	}
	return nil
}

func secondReadFirstCheckpoint(ctx context.Context) error {
	w := theWorld(ctx)
	run, err := w.theRun()
	if err != nil {
		return err
	}
	var want []string
	for _, m := range w.records {
		want = append(want, m.EntityURN)
	}
	got := slices.Sorted(slices.Values(run.PreviousState))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return w.fail("the second run read the state %v, expected the first run's %v", run.PreviousState, want)
	}
	return nil
}

func leftOutMarkedRemoved(ctx context.Context) error {
	w := theWorld(ctx)
	left := w.records[1].EntityURN
	return w.eventually(left+" being marked removed", func() (bool, error) {
		v, a, err := w.readAspectValue(left, "status", "com.linkedin.common.Status")
		if err != nil {
			return false, err
		}
		return v["removed"] == true, w.fail("%s: removed is %v, expected true", a.what, v["removed"])
	})
}

func latestCheckpointIsSecond(ctx context.Context) error {
	w := theWorld(ctx)
	run, err := w.theRun()
	if err != nil {
		return err
	}
	return w.eventually("the second run's checkpoint showing", func() (bool, error) {
		id, err := w.checkpointRunID()
		return err == nil && id == run.ID, errors.Join(err, w.fail("the latest checkpoint is of run %q, not the second run's %s", id, run.ID))
	})
}

// emittedMCE is the MCE of d the scenario emits: its properties and status.
func emittedMCE(d *datasetRecord) sdkclient.MCE {
	return sdkclient.MCE{Snapshot: "DatasetSnapshot", URN: d.urn, Aspects: []sdkclient.MCEAspect{
		{Class: "com.linkedin.dataset.DatasetProperties", Value: propertiesAspect(d.description)},
		{Class: "com.linkedin.common.Status", Value: sdkclient.Obj{{Key: "removed", Value: false}}},
	}}
}

// emit sends d whole as c through the tier, as emit_mce does.
func (w *world) emit(c caller, tier string, d *datasetRecord) *answer {
	a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.EmitMCEPath(), sdkclient.MCEBody(emittedMCE(d)))
	a.what = fmt.Sprintf("%s emitting %s whole through the %s", c.name, d.urn, tier)
	a.subject = d.urn
	a.noEffect = func() error { return w.entityNotMade(d.urn, "datasetKey") }
	return a
}

func emitsDatasetWhole(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.dataset = w.newDataset()
	w.last = w.emit(c, tier, w.dataset)
	return w.checkpoint()
}

func emittedReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	for _, m := range []sdkclient.MCP{
		{EntityURN: d.urn, AspectName: "datasetProperties", Aspect: propertiesAspect(d.description)},
		{EntityURN: d.urn, AspectName: "status", Aspect: sdkclient.Obj{{Key: "removed", Value: false}}},
	} {
		if err := w.recordStored(m); err != nil {
			return err
		}
	}
	a := w.readAspect(w.reader(), tierGMS, d.urn, "datasetKey")
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d: the emitted dataset has no key", a.what, a.status)
	}
	return nil
}

// traceOf reads the trace a write was answered with as the SDK does
// (extract_trace_data): the traceparent's trace id, and each entity of the
// JSON list answered with the aspects it holds.
func (w *world) traceOf(a *answer) (sdkclient.TraceData, error) {
	header := a.header.Get("traceparent")
	parts := strings.Split(header, "-")
	if a.status < 200 || a.status > 299 || len(parts) < 2 || parts[1] == "" {
		return sdkclient.TraceData{}, w.fail("%s answered status %d with traceparent %q: DataHub's SDK finds no trace to wait on (\"API tracing is not active\")", a.what, a.status, header)
	}
	var list []map[string]json.RawMessage
	if err := a.jsonBody(&list); err != nil {
		return sdkclient.TraceData{}, w.fail("%s: %v (the SDK reads the trace's aspects from a JSON list of the entities written)", a.what, err)
	}
	d := sdkclient.TraceData{TraceID: parts[1], Aspects: map[string][]string{}}
	for _, item := range list {
		var urn string
		_ = json.Unmarshal(item["urn"], &urn)
		if urn == "" {
			continue
		}
		for k, v := range item {
			if k != "urn" && string(v) != "null" {
				d.Aspects[urn] = append(d.Aspects[urn], k)
			}
		}
		slices.Sort(d.Aspects[urn])
		d.URNs = append(d.URNs, urn)
	}
	return d, nil
}

// askTrace asks after the trace as c, as _await_status does.
func (w *world) askTrace(c caller, tier string, d sdkclient.TraceData) *answer {
	a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.TracePath(d.TraceID), sdkclient.TraceBody(d))
	a.what = fmt.Sprintf("%s asking after the trace %s through the %s", c.name, d.TraceID, tier)
	a.noEffect = nothingToCheck
	return a
}

// traceShowsWritten waits, as the SDK does, until nothing the write made is
// PENDING, then requires every aspect to have been written.
func traceShowsWritten(ctx context.Context) error {
	w := theWorld(ctx)
	write, err := w.lastAnswer()
	if err != nil {
		return err
	}
	d, err := w.traceOf(write)
	if err != nil {
		return err
	}
	var asked int
	for _, names := range d.Aspects {
		asked += len(names)
	}
	if asked < len(w.batch) {
		return w.fail("%s lists %d aspects written, expected the %d it was sent", write.what, asked, len(w.batch))
	}
	c, err := w.as(w.person(write.caller))
	if err != nil {
		return err
	}
	return w.eventually("the write's trace showing every aspect written", func() (bool, error) {
		a := w.askTrace(c, "metadata service", d)
		if a.status != http.StatusOK {
			return false, w.fail("%s answered status %d, expected 200", a.what, a.status)
		}
		var statuses map[string]map[string]struct {
			Success        *bool `json:"success"`
			PrimaryStorage struct {
				WriteStatus string `json:"writeStatus"`
			} `json:"primaryStorage"`
			SearchStorage struct {
				WriteStatus string `json:"writeStatus"`
			} `json:"searchStorage"`
		}
		if err := a.jsonBody(&statuses); err != nil {
			return false, w.fail("%s: %v (the SDK reads {urn: {aspect: status}})", a.what, err)
		}
		for _, urn := range d.URNs {
			for _, name := range d.Aspects[urn] {
				st, ok := statuses[urn][name]
				if !ok {
					return false, w.fail("%s says nothing of %s's %s: the SDK waits on it until it times out", a.what, urn, name)
				}
				if st.Success == nil || st.PrimaryStorage.WriteStatus == "" || st.SearchStorage.WriteStatus == "" {
					return false, w.fail("%s: the status of %s's %s lacks success or a storage's writeStatus (the SDK raises KeyError)", a.what, urn, name)
				}
				if !*st.Success {
					return false, w.fail("%s says %s's %s failed (%s, %s)", a.what, urn, name, st.PrimaryStorage.WriteStatus, st.SearchStorage.WriteStatus)
				}
				if st.PrimaryStorage.WriteStatus == "PENDING" || st.SearchStorage.WriteStatus == "PENDING" {
					return false, w.fail("%s: %s's %s is still pending", a.what, urn, name)
				}
			}
		}
		return true, nil
	})
}

func adminWroteAsync(ctx context.Context) error {
	w := theWorld(ctx)
	c := w.admin()
	first, second := w.newDataset(), w.newDataset()
	w.dataset = first
	w.batch = w.twoDatasetsBatch(first, second)
	w.batchAsync = true
	a := w.writeOpenAPI(c, "metadata service")
	if err := w.acknowledged(a); err != nil {
		return err
	}
	d, err := w.traceOf(a)
	if err != nil {
		return err
	}
	w.trace = d
	return nil
}

func asksAfterTrace(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	if w.trace.TraceID == "" {
		return w.fail("no write was traced")
	}
	w.last = w.askTrace(c, "metadata service", w.trace)
	return w.checkpoint()
}

func answerShowsNothingOfWrite(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	for _, s := range []string{"writeStatus", "ACTIVE_STATE", `"success"`} {
		if strings.Contains(string(a.body), s) {
			return w.fail("%s was refused, but its answer shows %q", a.what, s)
		}
	}
	return nil
}

func anonymousRunRequest(ctx context.Context, does, tier string) error {
	w := theWorld(ctx)
	c := w.anonymous()
	var a *answer
	switch does {
	case "emits a dataset whole":
		a = w.emit(c, tier, w.newDataset())
	default:
		d := w.newDataset()
		a = w.askTrace(c, tier, sdkclient.TraceData{TraceID: sdkTraceID(), URNs: []string{d.urn}, Aspects: map[string][]string{d.urn: {"datasetProperties"}}})
	}
	a.what = fmt.Sprintf("someone without a token who %s through the %s", does, tier)
	w.last = a
	return w.checkpoint()
}

// sdkTraceID is a trace id of DataHub's form: the time in microseconds,
// then random digits.
func sdkTraceID() string {
	return fmt.Sprintf("%016x%s", time.Now().UnixMicro(), randomHex(16))
}

func randomHex(n int) string {
	const digits = "0123456789abcdef"
	id := randomID(n)
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[int(id[i])%16]
	}
	return string(b)
}
