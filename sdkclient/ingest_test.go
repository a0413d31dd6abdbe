package sdkclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// What `datahub ingest`, stateful ingestion, `datahub get`, emit_mce and an
// ASYNC_WAIT emit send, against the reference (reference_test.go starts
// it), each answer read as the SDK reads it.

// fileRecords are what a file source might hold: a container, two
// datasets in it with their properties and a profile each, and a data job.
func fileRecords(tag string) (container string, datasets []string, records []sdkclient.MCP) {
	container = "urn:li:container:" + sdkclient.DataHubGUID(map[string]string{"platform": "hive", "database": tag})
	records = append(records,
		sdkclient.MCP{EntityURN: container, AspectName: "containerProperties", Aspect: sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "name", Value: tag}}},
		sdkclient.MCP{EntityURN: container, AspectName: "status", Aspect: sdkclient.Obj{{Key: "removed", Value: false}}},
	)
	for i, name := range []string{"orders", "customers"} {
		d := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,%s.%s,PROD)", tag, name)
		datasets = append(datasets, d)
		records = append(records,
			sdkclient.MCP{EntityURN: d, AspectName: "datasetProperties", Aspect: properties(name + " of " + tag)},
			sdkclient.MCP{EntityURN: d, AspectName: "container", Aspect: sdkclient.Obj{{Key: "container", Value: container}}},
			sdkclient.MCP{EntityURN: d, AspectName: "datasetProfile", Aspect: sdkclient.Obj{{Key: "timestampMillis", Value: int64(1711540000000 + i)}, {Key: "rowCount", Value: int64(10 * (i + 1))}}},
		)
	}
	job := fmt.Sprintf("urn:li:dataJob:(urn:li:dataFlow:(airflow,%s,prod),load)", tag)
	records = append(records, sdkclient.MCP{EntityURN: job, AspectName: "dataJobInfo", Aspect: sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "name", Value: "load"}, {Key: "type", Value: "COMMAND"}}})
	return container, datasets, records
}

// TestDatahubIngestOfAFile: a whole `datahub ingest` of a file source
// through the datahub-rest sink, on either tier, batch by batch as the
// sink sends them with the run report in the first and the last: it ends
// as success, and every aspect reads back as the SDK reads it.
func TestDatahubIngestOfAFile(t *testing.T) {
	ref := start(t)
	ctx := context.Background()
	for _, tier := range []struct{ name, server string }{{"metadata service", ref.gms}, {"frontend", ref.frontend + "/api/gms"}} {
		t.Run(tier.name, func(t *testing.T) {
			tag := "ingest" + uuid.NewString()[:8]
			container, datasets, records := fileRecords(tag)
			run, err := sdkclient.Ingest(ctx, &sdkclient.Client{Server: tier.server, Token: ref.root}, sdkclient.Recipe{Source: "file", MaxPerBatch: 4}, records)
			if err != nil {
				t.Fatal(err)
			}
			if run.ExitCode() != 0 || len(run.Warnings) > 0 {
				t.Fatalf("datahub ingest exits %d: %v %v", run.ExitCode(), run.Failures, run.Warnings)
			}
			// 1 + 9 + 1 records in batches of 4: 3 batches.
			want := []string{"GET /config", "GET /config", "POST /aspects?action=ingestProposal",
				"POST /aspects?action=ingestProposalBatch (4 proposals)", "POST /aspects?action=ingestProposalBatch (4 proposals)", "POST /aspects?action=ingestProposalBatch (3 proposals)"}
			if strings.Join(run.Requests, "\n") != strings.Join(want, "\n") {
				t.Errorf("the run sent\n%s\nwant\n%s", strings.Join(run.Requests, "\n"), strings.Join(want, "\n"))
			}
			c := &sdkclient.Client{Server: tier.server, Token: ref.root}
			for _, check := range []struct {
				urn   string
				t     sdkclient.AspectType
				field string
				want  any
			}{
				{container, sdkclient.ContainerProperties, "name", tag},
				{datasets[0], sdkclient.DatasetProperties, "description", "orders of " + tag},
				{datasets[1], sdkclient.DatasetProperties, "description", "customers of " + tag},
				{run.SourceURN, sdkclient.IngestionSourceInfo, "name", "[CLI] file"},
				{run.RequestURN, sdkclient.ExecutionRequestResult, "status", "SUCCESS"},
				{run.RequestURN, sdkclient.ExecutionRequestInput, "task", "CLI Ingestion"},
			} {
				got, ok, err := c.GetAspect(ctx, check.urn, check.t, 0)
				if err != nil || !ok || got[check.field] != check.want {
					t.Errorf("get_aspect(%s, %s) = %v, %v, %v; want %s %v", check.urn, check.t.Name, got, ok, err, check.field, check.want)
				}
			}
			for _, u := range []string{container, datasets[0], run.SourceURN, run.RequestURN} {
				if ok, err := c.Exists(ctx, u); err != nil || !ok {
					t.Errorf("exists(%s) = %v, %v", u, ok, err)
				}
			}
			raw, err := c.GetEntityRaw(ctx, datasets[1], []string{"container"})
			if err != nil || !strings.Contains(fmt.Sprint(raw["aspects"]), container) {
				t.Errorf("get_entity_raw of %s's container: %v, %v", datasets[1], raw, err)
			}
			got, err := c.CLIGet(ctx, datasets[1], []string{"datasetProfile"})
			if p, _ := got["datasetProfile"].(map[string]any); err != nil || fmt.Sprint(p["rowCount"]) != "20" {
				t.Errorf("datahub get -a datasetProfile of %s: %v, %v", datasets[1], got, err)
			}
		})
	}

	// Someone allowed to write datasets but not the run report's entities:
	// every batch holds some of the report, so each is refused whole, the
	// run exits 1 and nothing of it is stored.
	user := "urn:li:corpuser:ingest-" + uuid.NewString()[:8]
	c := &sdkclient.Client{Server: ref.gms, Token: ref.root}
	if err := c.EmitMCP(ctx, sdkclient.MCP{EntityURN: user, AspectName: "corpUserInfo", Aspect: sdkclient.Obj{{Key: "active", Value: true}}}, false); err != nil {
		t.Fatal(err)
	}
	grant(t, c, user, "EDIT_ENTITY", "dataset")
	tag := "refused" + uuid.NewString()[:8]
	_, datasets, records := fileRecords(tag)
	run, err := sdkclient.Ingest(ctx, &sdkclient.Client{Server: ref.gms, Token: ref.mint(t, user)}, sdkclient.Recipe{Source: "file", MaxPerBatch: 100}, records[2:5])
	if err != nil {
		t.Fatal(err)
	}
	if run.ExitCode() != 1 || len(run.Failures) != 1 || !strings.Contains(run.Failures[0].Error(), "403") {
		t.Errorf("a run whose batch holds the report someone may not write: exit %d, %v", run.ExitCode(), run.Failures)
	}
	if _, ok, err := c.GetAspect(ctx, datasets[0], sdkclient.DatasetProperties, 0); ok || err != nil {
		t.Errorf("after the refused run, %s's properties: %v, %v", datasets[0], ok, err)
	}
}

// grant gives user the privilege on entities of entityType, through
// GraphQL as the root user (execute_graphql).
func grant(t *testing.T, c *sdkclient.Client, user, privilege, entityType string) {
	t.Helper()
	const doc = `mutation createPolicy($input: PolicyUpdateInput!) { createPolicy(input: $input) }`
	input := sdkclient.Obj{{Key: "type", Value: "METADATA"}, {Key: "name", Value: "sdkclient " + uuid.NewString()}, {Key: "state", Value: "ACTIVE"},
		{Key: "privileges", Value: []any{privilege}},
		{Key: "actors", Value: sdkclient.Obj{{Key: "users", Value: []any{user}}, {Key: "allUsers", Value: false}, {Key: "allGroups", Value: false}, {Key: "resourceOwners", Value: false}}},
		{Key: "resources", Value: sdkclient.Obj{{Key: "type", Value: entityType}, {Key: "allResources", Value: false}}}}
	if _, err := c.ExecuteGraphQL(context.Background(), doc, sdkclient.Obj{{Key: "input", Value: input}}, "createPolicy"); err != nil {
		t.Fatal(err)
	}
}

// TestStatefulIngestionTwice: a stateful run reads no checkpoint the first
// time and commits one; the second reads it, marks removed the entity the
// first ingested and it did not, and commits its own, which the
// checkpoint read finds next.
func TestStatefulIngestionTwice(t *testing.T) {
	ref := start(t)
	ctx := context.Background()
	c := &sdkclient.Client{Server: ref.gms, Token: ref.root}
	pipeline := "sdkclient-" + uuid.NewString()[:8]
	recipe := sdkclient.Recipe{Source: "file", Platform: "hive", PipelineName: pipeline, Stateful: true}
	_, datasets, records := fileRecords(pipeline)
	first, err := sdkclient.Ingest(ctx, c, recipe, records)
	if err != nil || first.ExitCode() != 0 {
		t.Fatalf("the first run: %v %v", err, first.Failures)
	}
	if first.PreviousState != nil {
		t.Errorf("the first run found a checkpoint: %v", first.PreviousState)
	}
	if first.Requests[3] != "POST /aspects?action=getTimeseriesAspectValues" {
		t.Errorf("the first run did not read a checkpoint first: %v", first.Requests)
	}
	// The second run ingests the first dataset alone (and the container).
	var again []sdkclient.MCP
	for _, m := range records {
		if m.EntityURN != datasets[1] && !strings.HasPrefix(m.EntityURN, "urn:li:dataJob:") {
			again = append(again, m)
		}
	}
	second, err := sdkclient.Ingest(ctx, c, recipe, again)
	if err != nil || second.ExitCode() != 0 {
		t.Fatalf("the second run: %v %v", err, second.Failures)
	}
	if len(second.PreviousState) != 4 || !contains(second.PreviousState, datasets[1]) {
		t.Errorf("the second run read the state %v, want the first's four entities", second.PreviousState)
	}
	if len(second.SoftDeleted) != 2 || !contains(second.SoftDeleted, datasets[1]) {
		t.Errorf("the second run removed %v, want %s and the job", second.SoftDeleted, datasets[1])
	}
	if s, ok, err := c.GetAspect(ctx, datasets[1], sdkclient.Status, 0); err != nil || !ok || s["removed"] != true {
		t.Errorf("%s after the second run: %v, %v, %v; want removed", datasets[1], s, ok, err)
	}
	job := sdkclient.CheckpointJobURN(pipeline, "hive_stale_entity_removal")
	latest, ok, err := c.GetLatestTimeseriesValue(ctx, job, sdkclient.DatahubIngestionCheckpoint, sdkclient.Obj{{Key: "pipelineName", Value: pipeline}})
	if err != nil || !ok || latest["runId"] != second.ID {
		t.Errorf("the latest checkpoint: %v, %v, %v; want the second run's (%s)", latest, ok, err, second.ID)
	}
	all, err := c.GetTimeseriesValues(ctx, job, sdkclient.DatahubIngestionCheckpoint, sdkclient.LatestFilter(sdkclient.Obj{{Key: "pipelineName", Value: pipeline}}), 10)
	if err != nil || len(all) != 2 || all[0]["runId"] != second.ID || all[1]["runId"] != first.ID {
		t.Errorf("every checkpoint of %s: %v, %v; want the second's, then the first's", pipeline, all, err)
	}
	// Another pipeline's checkpoints are not this one's.
	if v, ok, err := c.GetLatestTimeseriesValue(ctx, job, sdkclient.DatahubIngestionCheckpoint, sdkclient.Obj{{Key: "pipelineName", Value: pipeline + "-other"}}); err != nil || ok {
		t.Errorf("the checkpoint of a pipeline that never ran: %v, %v, %v", v, ok, err)
	}
	// The job the checkpoints are kept on is soft-deleted, as the SDK
	// keeps it out of search.
	if s, ok, err := c.GetAspect(ctx, job, sdkclient.Status, 0); err != nil || !ok || s["removed"] != true {
		t.Errorf("the checkpoint's job: %v, %v, %v; want removed", s, ok, err)
	}
	// Without a token, the checkpoint is not read.
	anonymous := &sdkclient.Client{Server: ref.gms}
	if _, _, err := anonymous.GetLatestTimeseriesValue(ctx, job, sdkclient.DatahubIngestionCheckpoint, sdkclient.Obj{{Key: "pipelineName", Value: pipeline}}); kind(err) != "OperationalError" || !strings.Contains(err.Error(), "401") {
		t.Errorf("reading a checkpoint without a token: %v", err)
	}
}

// TestEmitMCEAndAsyncWait: emit_mce writes a dataset whole on either tier;
// an emit with ASYNC_WAIT through OpenAPI is answered with a trace the SDK
// waits on until nothing is pending, and then reads back.
func TestEmitMCEAndAsyncWait(t *testing.T) {
	ref := start(t)
	ctx := context.Background()
	for _, tier := range []struct{ name, server string }{{"metadata service", ref.gms}, {"frontend", ref.frontend + "/api/gms"}} {
		t.Run(tier.name, func(t *testing.T) {
			c := &sdkclient.Client{Server: tier.server, Token: ref.root}
			if _, err := c.FetchServerConfig(ctx); err != nil {
				t.Fatal(err)
			}
			urn := datasetURN()
			err := c.EmitMCE(ctx, sdkclient.MCE{Snapshot: "DatasetSnapshot", URN: urn, Aspects: []sdkclient.MCEAspect{
				{Class: "com.linkedin.dataset.DatasetProperties", Value: properties("emitted whole")},
				{Class: "com.linkedin.common.Status", Value: sdkclient.Obj{{Key: "removed", Value: false}}},
			}})
			if err != nil {
				t.Fatalf("emit_mce: %v", err)
			}
			if p, ok, err := c.GetAspect(ctx, urn, sdkclient.DatasetProperties, 0); err != nil || !ok || p["description"] != "emitted whole" {
				t.Errorf("after emit_mce: %v, %v, %v", p, ok, err)
			}
			if ok, err := c.Exists(ctx, urn); err != nil || !ok {
				t.Errorf("exists after emit_mce: %v, %v", ok, err)
			}

			other := datasetURN()
			traces, err := c.EmitMCPsAsyncWait(ctx, []sdkclient.MCP{
				{EntityURN: other, AspectName: "datasetProperties", Aspect: properties("awaited")},
				{EntityURN: other, AspectName: "datasetProfile", Aspect: sdkclient.Obj{{Key: "timestampMillis", Value: time.Now().UnixMilli()}, {Key: "rowCount", Value: int64(7)}}},
			}, 30*time.Second)
			if err != nil || len(traces) != 1 || len(traces[0].Aspects[other]) != 2 {
				t.Fatalf("emit_mcps with ASYNC_WAIT: %v, %v", traces, err)
			}
			if p, ok, err := c.GetAspect(ctx, other, sdkclient.DatasetProperties, 0); err != nil || !ok || p["description"] != "awaited" {
				t.Errorf("after the awaited emit: %v, %v, %v", p, ok, err)
			}
			got, err := c.CLIGet(ctx, other, []string{"datasetProfile", "datasetProperties"})
			if p, _ := got["datasetProfile"].(map[string]any); err != nil || fmt.Sprint(p["rowCount"]) != "7" || got["datasetProperties"] == nil {
				t.Errorf("datahub get -a datasetProfile -a datasetProperties: %v, %v", got, err)
			}
			b, _ := json.Marshal(got)
			if strings.Contains(string(b), "datasetKey") {
				t.Errorf("datahub get shows an aspect not asked for: %s", b)
			}
		})
	}
	// emit_mce without a token: the SDK raises with the server's reason.
	anonymous := &sdkclient.Client{Server: ref.gms}
	if err := anonymous.EmitMCE(ctx, sdkclient.MCE{Snapshot: "DatasetSnapshot", URN: datasetURN()}); kind(err) != "OperationalError" || !strings.Contains(err.Error(), "401") {
		t.Errorf("emit_mce without a token: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
