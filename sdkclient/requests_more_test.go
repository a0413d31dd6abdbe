package sdkclient

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDeletionPatchAndSearchRequestsAreTheSDKs: the bodies of
// hard_delete_entity, delete_references_to_urn, a patch builder's
// proposals on both paths, get_urns_by_filter's variables and
// datahub-gc's listing, byte for byte as the SDK's code builds them
// (each written out from reading it, and checked with CPython's json.dumps
// on the dicts it builds).
func TestDeletionPatchAndSearchRequestsAreTheSDKs(t *testing.T) {
	sm := `"systemMetadata": {"lastObserved": 1711540000000, "runId": "no-run-id-provided", "lastRunId": "no-run-id-provided", "properties": {"clientId": "acryl-datahub", "clientVersion": "` + ClientVersion + `"}}`
	fullSM := `"systemMetadata": {"lastObserved": 1711540000000, "runId": "no-run-id-provided", "lastRunId": "no-run-id-provided", "pipelineName": null, "registryName": null, "registryVersion": null, "properties": {"clientId": "acryl-datahub", "clientVersion": "` + ClientVersion + `"}, "version": null, "schemaVersion": null, "aspectCreated": null, "aspectModified": null}`
	urn := "urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)"
	patch := NewDatasetPatchBuilder(urn).AddTag("urn:li:tag:a/b").RemoveTag("urn:li:tag:c").Build()
	if len(patch) != 1 {
		t.Fatalf("a builder of one aspect built %d proposals", len(patch))
	}
	patch[0].LastObserved = 1711540000000
	ops := `[{"op": "add", "path": "/tags/urn:li:tag:a~1b", "value": {"tag": "urn:li:tag:a/b"}}, {"op": "remove", "path": "/tags/urn:li:tag:c", "value": {}}]`
	quoted := `"[{\"op\": \"add\", \"path\": \"/tags/urn:li:tag:a~1b\", \"value\": {\"tag\": \"urn:li:tag:a/b\"}}, {\"op\": \"remove\", \"path\": \"/tags/urn:li:tag:c\", \"value\": {}}]"`
	openapi := OpenAPIWrite(patch[0], false)
	for name, tc := range map[string][2]string{
		"hard_delete_entity":       {string(DeleteEntityBody("urn:li:tag:t")), `{"urn": "urn:li:tag:t"}`},
		"delete_references_to_urn": {string(DeleteReferencesBody("urn:li:tag:t", false)), `{"urn": "urn:li:tag:t", "dryRun": false}`},
		"a patch over Rest.li": {string(IngestProposalBatchBody(patch, false)),
			`{"proposals": [{"entityType": "dataset", "entityUrn": "` + urn + `", "changeType": "PATCH", "aspectName": "globalTags", "aspect": {"value": ` + quoted + `, "contentType": "application/json-patch+json"}, ` + sm + `}], "async": "false"}`},
		"a patch over OpenAPI": {string(openapi.Body), `[{"urn": "` + urn + `", "globalTags": {"value": {"patch": ` + ops + `}, ` + fullSM + `, "headers": {}}}]`},
		"its path":             {openapi.Method + " " + openapi.Path, http.MethodPatch + " /openapi/v3/entity/dataset?async=false"},
		"get_urns_by_filter": {string(Dumps(ScrollVariables(Filter{EntityTypes: []string{"dataset"}, Platforms: []string{"hive"}, BatchSize: 3000, SkipCache: true}))),
			`{"types": ["DATASET"], "query": "*", "orFilters": [{"and": [{"field": "platform.keyword", "condition": "EQUAL", "values": ["urn:li:dataPlatform:hive"]}, {"field": "removed", "condition": "EQUAL", "values": ["true"], "negated": true}]}], "batchSize": 3000, "skipCache": true, "includeSoftDeleted": false}`},
		"get_urns_by_filter, env and every status": {string(Dumps(ScrollVariables(Filter{Env: "DEV", Status: StatusAll}))),
			`{"types": null, "query": "*", "orFilters": [{"and": [{"field": "origin", "values": ["DEV"], "condition": "EQUAL"}]}, {"and": [{"field": "customProperties", "values": ["env=DEV"]}]}, {"and": [{"field": "customProperties", "values": ["instance=DEV"]}]}, {"and": [{"field": "env", "values": ["DEV"]}]}], "batchSize": 5000, "skipCache": false, "includeSoftDeleted": true}`},
		"datahub-gc": {string(GraphQLBody(ExpiredTokensQuery, ExpiredTokensVariables(time.UnixMilli(1711540000000)), "")),
			`{"query": "query listAccessTokens($input: ListAccessTokenInput!) {\n  listAccessTokens(input: $input) {\n    start\n    count\n    total\n    tokens {\n      urn\n      type\n      id\n      name\n      description\n      actorUrn\n      ownerUrn\n      createdAt\n      expiresAt\n      __typename\n    }\n    __typename\n  }\n}\n", "variables": {"input": {"start": 0, "count": 10, "filters": [{"field": "expiresAt", "values": ["1711540000000"], "condition": "LESS_THAN"}]}}}`},
	} {
		if tc[0] != tc[1] {
			t.Errorf("%s:\n got %s\nwant %s", name, tc[0], tc[1])
		}
	}
	if !strings.HasPrefix(ScrollURNsQuery, "\nquery scrollUrnsWithFilters(\n    $types: [EntityType!],") {
		t.Errorf("get_urns_by_filter's document is not the SDK's: %q", ScrollURNsQuery[:60])
	}
	for in, want := range map[string]string{"dataset": "DATASET", "corpuser": "CORP_USER", "dataHubPolicy": "POLICY", "glossaryTerm": "GLOSSARY_TERM", "mlModel": "MLMODEL", "TAG": "TAG", "dataHubExecutionRequest": "EXECUTION_REQUEST"} {
		if got := flexibleEntityType(in); got != want {
			t.Errorf("flexible_entity_type_to_graphql(%q) = %q, want %q", in, got, want)
		}
	}
}
