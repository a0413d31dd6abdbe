package sdkclient

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
)

// `datahub ingest -c recipe.yml` with the datahub-rest sink, as
// metadata-ingestion/src/datahub/ingestion/run/pipeline.py runs it: the
// sink's emitter (client mode INGESTION, so Rest.li whatever the server's
// version), the pipeline's graph made from it, the run report of
// DatahubIngestionRunSummaryProvider (ingestion/reporting/
// datahub_ingestion_run_summary_provider.py, on by default: report_to
// "datahub"), and, when the recipe names a pipeline and turns stateful
// ingestion on, the checkpoint of the source's stale entity removal
// (ingestion/source/state/: DatahubIngestionCheckpointingProvider,
// StaleEntityRemovalHandler). The sink runs in its default mode,
// ASYNC_BATCH (DatahubRestSink, ingestion/sink/datahub_rest.py): each
// record is queued, and the queue is sent max_per_batch records at a time
// with "async": "true"; a batch refused is a failure of its records, the
// run goes on, and `datahub ingest` exits 1.

// Recipe is what a recipe says, for the run.
type Recipe struct {
	// Source is the source's type ("file" for a file of records).
	Source string
	// Platform is the source's platform, which names its stale entity
	// removal job (StaleEntityRemovalHandler.compute_job_id).
	Platform string
	// PipelineName is the recipe's pipeline_name ("" for none).
	PipelineName string
	// Stateful is source.config.stateful_ingestion.enabled (with
	// remove_stale_metadata, its default): it needs a PipelineName.
	Stateful bool
	// MaxPerBatch is the sink's max_per_batch (0: its default, 100).
	MaxPerBatch int
}

// Run is what one `datahub ingest` did.
type Run struct {
	ID string
	// Requests lists every request, in order, e.g. "POST
	// /aspects?action=ingestProposalBatch (3 proposals)".
	Requests []string
	// Failures are the sink's and the source's: any makes the exit code 1.
	Failures []error
	// Warnings are what the run logs and goes on from (a reporter that
	// could not record the start).
	Warnings []error
	// PreviousState is the checkpoint read at the start (stateful): the
	// URNs the last run ingested; nil when there was none.
	PreviousState []string
	// SoftDeleted are the entities of PreviousState this run did not
	// ingest, marked removed (Status.removed).
	SoftDeleted []string
	// Checkpoint is the checkpoint committed at the end (stateful).
	Checkpoint Obj
	// SourceURN and RequestURN are the run report's entities.
	SourceURN, RequestURN string
}

// ExitCode is `datahub ingest`'s: 1 when anything failed.
func (r *Run) ExitCode() int {
	if len(r.Failures) > 0 {
		return 1
	}
	return 0
}

// sinkMaxPerBatch is DatahubRestSinkConfig.max_per_batch's default.
const sinkMaxPerBatch = 100

// NewRunID is pipeline_config._generate_run_id: the source type, the time
// and six random lower-case letters or digits.
func NewRunID(source string, now time.Time) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 6)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return source + "-" + now.Format("2006_01_02-15_04_05") + "-" + string(b)
}

// DataHubGUID is mce_builder.datahub_guid: the MD5 of the object as
// json.dumps(sort_keys=True, separators=(",", ":")) writes it.
func DataHubGUID(obj map[string]string) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		dumpString(&b, k)
		b.WriteByte(':')
		dumpString(&b, obj[k])
	}
	b.WriteByte('}')
	sum := md5.Sum([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// CheckpointJobURN is the data job a pipeline's checkpoints are kept on
// (IngestionCheckpointingProviderBase.get_data_job_urn, make_data_job_urn
// with the flow's cluster "prod"): urn:li:dataJob:(urn:li:dataFlow:
// (datahub,<pipeline>,prod),<job>).
func CheckpointJobURN(pipeline, job string) string {
	return fmt.Sprintf("urn:li:dataJob:(urn:li:dataFlow:(datahub,%s,prod),%s)", pipeline, job)
}

// staleJob is StaleEntityRemovalHandler.compute_job_id's default.
func staleJob(platform string) string {
	if platform == "" {
		return "stale_entity_removal"
	}
	return platform + "_stale_entity_removal"
}

// statefulIgnored are STATEFUL_INGESTION_IGNORED_ENTITY_TYPES.
var statefulIgnored = map[string]bool{"dataProcessInstance": true, "query": true}

// Ingest runs records through `datahub ingest` against c's server (its
// token the sink's), as the pipeline does (see the top of this file).
func Ingest(ctx context.Context, c *Client, rec Recipe, records []MCP) (*Run, error) {
	if rec.Stateful && rec.PipelineName == "" {
		return nil, &Error{Kind: "ConfigurationError", Func: "datahub ingest", Reason: "stateful ingestion requires a pipeline_name"}
	}
	maxPerBatch := rec.MaxPerBatch
	if maxPerBatch <= 0 {
		maxPerBatch = sinkMaxPerBatch
	}
	now := time.Now()
	run := &Run{ID: NewRunID(rec.Source, now)}
	restli := false
	sink := &Client{Server: c.Server, Token: c.Token, HTTP: c.HTTP, OpenAPI: &restli}
	sink.trace = func(line string) { run.Requests = append(run.Requests, line) }

	// The sink's emitter connects (DatahubRestSink.__post_init__), then the
	// pipeline's graph, made from it, tests the connection.
	if _, err := sink.FetchServerConfig(ctx); err != nil {
		return nil, err
	}
	if _, err := sink.FetchServerConfig(ctx); err != nil {
		return nil, err
	}

	// The run report's entities (DatahubIngestionRunSummaryProvider).
	key := map[string]string{"type": rec.Source}
	if rec.PipelineName != "" {
		key["pipeline_name"] = rec.PipelineName
	}
	name := "[CLI] " + rec.Source
	if rec.PipelineName != "" {
		name += " [" + rec.PipelineName + "]"
	}
	run.SourceURN = "urn:li:dataHubIngestionSource:cli-" + DataHubGUID(key)
	run.RequestURN = "urn:li:dataHubExecutionRequest:" + run.ID
	recipe := Dumps(Obj{{"source", Obj{{"type", rec.Source}}}, {"pipeline_name", rec.PipelineName}})
	var queue []MCP
	queue = append(queue, MCP{EntityURN: run.SourceURN, AspectName: IngestionSourceInfo.Name, Aspect: Obj{
		{"name", name}, {"type", rec.Source}, {"platform", "urn:li:dataPlatform:unknown"},
		{"config", Obj{{"recipe", string(recipe)}, {"version", ClientVersion}, {"executorId", "__datahub_cli_"}}},
	}})
	// on_start: the execution request, emitted at once through the graph;
	// a failure is logged and the run goes on.
	start := now.UnixMilli()
	input := MCP{EntityURN: run.RequestURN, AspectName: ExecutionRequestInput.Name, Aspect: Obj{
		{"task", "CLI Ingestion"}, {"args", Obj{{"recipe", string(recipe)}, {"version", ClientVersion}}},
		{"executorId", "__datahub_cli_"},
		{"source", Obj{{"type", "CLI_INGESTION_SOURCE"}, {"ingestionSource", run.SourceURN}}},
		{"requestedAt", start},
	}}
	if err := sink.EmitMCP(ctx, input, false); err != nil {
		run.Warnings = append(run.Warnings, err)
	}

	// The source: its checkpoint read when it starts.
	var job string
	if rec.Stateful {
		job = CheckpointJobURN(rec.PipelineName, staleJob(rec.Platform))
		last, found, err := sink.GetLatestTimeseriesValue(ctx, job, DatahubIngestionCheckpoint, Obj{{"pipelineName", rec.PipelineName}})
		if err != nil {
			run.Failures = append(run.Failures, err)
			return run, nil // the source cannot start: nothing more is sent
		}
		if found {
			state, err := checkpointState(last)
			if err != nil {
				run.Failures = append(run.Failures, err)
				return run, nil
			}
			run.PreviousState = state
		}
	}
	// Its records, stamped (AutoSystemMetadata), and the state they make.
	var current []string
	seen := map[string]bool{}
	for _, m := range records {
		m.RunID, m.PipelineName = run.ID, rec.PipelineName
		if m.LastObserved == 0 {
			m.LastObserved = time.Now().UnixMilli()
		}
		queue = append(queue, m)
		if t := m.entityType(); !statefulIgnored[t] && !seen[m.EntityURN] {
			seen[m.EntityURN] = true
			current = append(current, m.EntityURN)
		}
	}
	// auto_stale_entity_removal: the entities of the last state this run
	// did not see are marked removed, unless that is more than the fail
	// safe threshold (75%) of them.
	if rec.Stateful && run.PreviousState != nil {
		var stale []string
		for _, u := range run.PreviousState {
			if !seen[u] {
				stale = append(stale, u)
			}
		}
		if len(run.PreviousState) > 0 && 100*len(stale) <= 75*len(run.PreviousState) {
			for _, u := range stale {
				queue = append(queue, MCP{EntityURN: u, AspectName: Status.Name, Aspect: Obj{{"removed", true}}, RunID: run.ID, PipelineName: rec.PipelineName, LastObserved: time.Now().UnixMilli()})
				run.SoftDeleted = append(run.SoftDeleted, u)
			}
		}
	}
	// process_commits: the checkpoint, on the data job soft-deleted first
	// (so that it stays out of search), through the graph at once.
	if rec.Stateful && len(run.Failures) == 0 {
		payload, _ := json.Marshal(map[string][]string{"urns": append([]string{}, current...)})
		run.Checkpoint = Obj{
			{"timestampMillis", time.Now().UnixMilli()},
			{"pipelineName", rec.PipelineName}, {"platformInstanceId", ""}, {"config", ""},
			{"state", Obj{{"formatVersion", "1.0"}, {"serde", "utf-8"}, {"payload", string(payload)}}},
			{"runId", run.ID},
		}
		soft := MCP{EntityURN: job, AspectName: Status.Name, Aspect: Obj{{"removed", true}}, RunID: "__datahub-graph-client"}
		if err := sink.EmitMCP(ctx, soft, false); err != nil {
			run.Failures = append(run.Failures, err)
		} else if err := sink.EmitMCP(ctx, MCP{EntityURN: job, AspectName: DatahubIngestionCheckpoint.Name, Aspect: run.Checkpoint}, false); err != nil {
			run.Failures = append(run.Failures, err)
		}
	}
	// The sink closes: the report's result joins the queue (on_completion),
	// which is sent, max_per_batch at a time.
	status := "SUCCESS"
	if len(run.Failures) > 0 {
		status = "FAILURE"
	}
	report := string(Dumps(Obj{{"source", Obj{{"type", rec.Source}}}, {"records", len(records)}}))
	queue = append(queue, MCP{EntityURN: run.RequestURN, AspectName: ExecutionRequestResult.Name, Aspect: Obj{
		{"status", status}, {"report", "~~~~ Ingestion Report ~~~~\n" + report + "\n\n~~~~ Ingestion Logs ~~~~\n"},
		{"structuredReport", Obj{{"type", "CLI_INGEST"}, {"serializedValue", report}, {"contentType", "application/json"}}},
		{"startTimeMs", start}, {"durationMs", time.Now().UnixMilli() - start},
	}})
	for i := 0; i < len(queue); i += maxPerBatch {
		batch := queue[i:min(i+maxPerBatch, len(queue))]
		if err := sink.EmitMCPs(ctx, batch, true); err != nil {
			run.Failures = append(run.Failures, err)
		}
	}
	return run, nil
}

// checkpointState is Checkpoint.create_from_checkpoint_aspect for a
// GenericCheckpointState: the payload, by its serde, holds {"urns": [...]}.
func checkpointState(aspect map[string]any) ([]string, error) {
	const fn = "Checkpoint.create_from_checkpoint_aspect"
	state, ok := aspect["state"].(map[string]any)
	if !ok {
		return nil, &Error{Kind: "AttributeError", Func: fn, Reason: "the checkpoint has no state"}
	}
	if serde, _ := state["serde"].(string); serde != "utf-8" {
		return nil, &Error{Kind: "ValueError", Func: fn, Reason: fmt.Sprintf("Unknown serde: %v (this client writes utf-8)", state["serde"])}
	}
	payload, _ := state["payload"].(string)
	var s struct {
		URNs []string `json:"urns"`
	}
	if payload != "" {
		if err := json.Unmarshal([]byte(payload), &s); err != nil {
			return nil, &Error{Kind: "JSONDecodeError", Func: fn, Reason: "the checkpoint's payload is not JSON"}
		}
	}
	if s.URNs == nil {
		s.URNs = []string{}
	}
	return s.URNs, nil
}

// describe is one line of Run.Requests.
func describe(method, path string, body []byte) string {
	line := method + " " + path
	var batch struct {
		Proposals []json.RawMessage `json:"proposals"`
	}
	if strings.HasSuffix(path, "ingestProposalBatch") && json.Unmarshal(body, &batch) == nil {
		line += fmt.Sprintf(" (%d proposals)", len(batch.Proposals))
	}
	return line
}
