package sdkclient

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// What the SDK sends, built as metadata-ingestion/src/datahub builds it
// (DataHub commit 7e93355). Each builder names the SDK function and file it
// follows. The requests are the same byte for byte as the SDK's (paths,
// query strings, bodies); the headers are the same set with the same
// values (their order on the wire is Go's, which HTTP leaves free).

// ClientVersion is the acryl-datahub release this client stands for: the
// one published with the DataHub server the reference follows.
const ClientVersion = "1.5.0"

// UserAgent is the SDK's User-Agent in SDK mode
// (RequestsSessionConfig._get_user_agent_string, emitter/rest_emitter.py):
// "DataHub-Client/1.0 (<mode>; <component>/<caller>; <version>)" followed
// by requests' own.
const UserAgent = "DataHub-Client/1.0 (sdk; datahub/catalogspec; " + ClientVersion + ") python-requests/2.32.5"

// Headers are the headers of the SDK's session
// (DataHubRestEmitter.__init__ and RequestsSessionConfig.build_session,
// emitter/rest_emitter.py): requests' defaults, the client mode and
// version, the Rest.li protocol version and Content-Type (sent with every
// request, GETs included), and the bearer token when there is one.
func Headers(token string) http.Header {
	h := http.Header{}
	h.Set("User-Agent", UserAgent)
	h.Set("Accept-Encoding", "gzip, deflate")
	h.Set("Accept", "*/*")
	h.Set("Connection", "keep-alive")
	h.Set("X-DataHub-Client-Mode", "SDK")
	h.Set("X-DataHub-Py-Cli-Version", ClientVersion)
	h.Set("X-RestLi-Protocol-Version", "2.0.0")
	h.Set("Content-Type", "application/json")
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return h
}

// URLEncode is Urn.url_encode (utilities/urns/_urn_base.py):
// urllib.parse.quote(urn, safe=""), which keeps only letters, digits and
// "_.-~".
func URLEncode(urn string) string {
	var b strings.Builder
	for i := 0; i < len(urn); i++ {
		c := urn[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// ConfigPath is fetch_server_config's GET (emitter/rest_emitter.py).
func ConfigPath() string { return "/config" }

// AspectPath is get_aspect's GET (ingestion/graph/client.py):
// /aspects/{url-encoded urn}?aspect={name}&version={version}.
func AspectPath(urn, aspect string, version int) string {
	return fmt.Sprintf("/aspects/%s?aspect=%s&version=%d", URLEncode(urn), aspect, version)
}

// EntityV2Path is get_entity_raw's GET (ingestion/graph/client.py):
// /entitiesV2/{url-encoded urn}, with ?aspects=List(a,b) (parentheses and
// commas not encoded) when aspects are named.
func EntityV2Path(urn string, aspects []string) string {
	p := "/entitiesV2/" + URLEncode(urn)
	if aspects != nil {
		p += "?aspects=List(" + strings.Join(aspects, ",") + ")"
	}
	return p
}

// EntitiesV2Path is batch_get_ids's GET (cli/migrate.py, `datahub
// migrate`): /entitiesV2?ids=List(<url-encoded urn>,...).
func EntitiesV2Path(urns []string) string {
	encoded := make([]string, len(urns))
	for i, u := range urns {
		encoded[i] = URLEncode(u)
	}
	return "/entitiesV2?ids=List(" + strings.Join(encoded, ",") + ")"
}

// GraphQLPath and GraphQLBody are execute_graphql's POST
// (ingestion/graph/client.py): query, then variables and operationName
// when given, sent by requests' json= (json.dumps).
func GraphQLPath() string { return "/api/graphql" }

func GraphQLBody(query string, variables Obj, operationName string) []byte {
	body := Obj{{"query", query}}
	if len(variables) > 0 {
		body = append(body, Member{"variables", variables})
	}
	if operationName != "" {
		body = append(body, Member{"operationName", operationName})
	}
	return Dumps(body)
}

// MCP is a MetadataChangeProposalWrapper of one aspect, as the SDK's
// callers make them: the aspect's value as its to_obj gives it (fields in
// schema order, nulls left out by pre_json_transform).
type MCP struct {
	EntityType string // guessed from the URN when empty, as __post_init__ does
	EntityURN  string
	ChangeType string // UPSERT when empty
	AspectName string
	Aspect     Obj
	// LastObserved is systemMetadata.lastObserved in epoch milliseconds;
	// ensure_has_system_metadata sets the time of sending when it is 0.
	LastObserved int64
	// RunID and PipelineName are what `datahub ingest` stamps on its
	// source's records (AutoSystemMetadata, ingestion/api/source_helpers.py):
	// the run's id and the recipe's pipeline_name. Empty: the defaults,
	// "no-run-id-provided" and none.
	RunID, PipelineName string
	// Patch, for changeType PATCH, is the JSON Patch a patch builder made
	// (patch.go); Aspect is then unused.
	Patch []any
}

// aspectValue is the proposal's aspect as JSON text, and its content type.
func (m MCP) aspectValue() Obj {
	if m.changeType() == "PATCH" {
		return Obj{{"value", string(Dumps(m.Patch))}, {"contentType", JSONPatchContentType}}
	}
	return Obj{{"value", string(Dumps(m.Aspect))}, {"contentType", "application/json"}}
}

func (m MCP) entityType() string {
	if m.EntityType != "" {
		return m.EntityType
	}
	// guess_entity_type: the third part of urn:li:<type>:<id>.
	parts := strings.SplitN(m.EntityURN, ":", 4)
	if len(parts) == 4 {
		return parts[2]
	}
	return ""
}

func (m MCP) changeType() string {
	if m.ChangeType == "" {
		return "UPSERT"
	}
	return m.ChangeType
}

func (m MCP) lastObserved() int64 {
	if m.LastObserved == 0 {
		return time.Now().UnixMilli()
	}
	return m.LastObserved
}

// systemMetadataProperties is what ensure_has_system_metadata
// (cli/cli_utils.py) adds to every proposal.
func systemMetadataProperties() Obj {
	return Obj{{"clientId", "acryl-datahub"}, {"clientVersion", ClientVersion}}
}

func (m MCP) runID() string {
	if m.RunID == "" {
		return "no-run-id-provided"
	}
	return m.RunID
}

// systemMetadata is SystemMetadataClass.to_obj() after
// ensure_has_system_metadata: every field in schema order, nulls included
// (how the OpenAPI emitter and emit_mce send it); pre_json_transform
// (what Rest.li proposals go through) leaves the nulls out.
func systemMetadata(lastObserved int64, runID, pipelineName string, nulls bool) Obj {
	var pipeline any
	if pipelineName != "" {
		pipeline = pipelineName
	}
	full := Obj{
		{"lastObserved", lastObserved},
		{"runId", runID},
		{"lastRunId", "no-run-id-provided"},
		{"pipelineName", pipeline},
		{"registryName", nil},
		{"registryVersion", nil},
		{"properties", systemMetadataProperties()},
		{"version", nil},
		{"schemaVersion", nil},
		{"aspectCreated", nil},
		{"aspectModified", nil},
	}
	if nulls {
		return full
	}
	var out Obj
	for _, f := range full {
		if f.Value != nil {
			out = append(out, f)
		}
	}
	return out
}

// restliObj is pre_json_transform(mcp.to_obj()) (emitter/mcp.py,
// emitter/serialization_helper.py): the MetadataChangeProposal's fields in
// schema order, the aspect as JSON text, nulls left out.
func (m MCP) restliObj() Obj {
	return Obj{
		{"entityType", m.entityType()},
		{"entityUrn", m.EntityURN},
		{"changeType", m.changeType()},
		{"aspectName", m.AspectName},
		{"aspect", m.aspectValue()},
		{"systemMetadata", systemMetadata(m.lastObserved(), m.runID(), m.PipelineName, false)},
	}
}

// asyncFlag is the SDK's "async" field: "true" for the ASYNC emit modes.
func asyncFlag(async bool) string {
	if async {
		return "true"
	}
	return "false"
}

// IngestProposalPath and IngestProposalBody are emit_mcp's Rest.li POST
// (emitter/rest_emitter.py): {"proposal": ..., "async": "false"}.
func IngestProposalPath() string { return "/aspects?action=ingestProposal" }

func IngestProposalBody(m MCP, async bool) []byte {
	return Dumps(Obj{{"proposal", m.restliObj()}, {"async", asyncFlag(async)}})
}

// IngestProposalBatchPath and IngestProposalBatchBody are emit_mcps's
// Rest.li POST (_emit_restli_mcps, emitter/rest_emitter.py):
// {"proposals": [...], "async": "false"}.
func IngestProposalBatchPath() string { return "/aspects?action=ingestProposalBatch" }

func IngestProposalBatchBody(ms []MCP, async bool) []byte {
	proposals := make([]Obj, len(ms))
	for i, m := range ms {
		proposals[i] = m.restliObj()
	}
	return Dumps(Obj{{"proposals", proposals}, {"async", asyncFlag(async)}})
}

// OpenAPIRequest is one request of the OpenAPI emitter
// (OpenApiRequest.from_mcp, emitter/request_helper.py).
type OpenAPIRequest struct {
	Method string
	Path   string
	Body   []byte
}

// openAPIItem is the one item of OpenApiRequest.from_mcp's payload:
// {"urn": ..., <aspectName>: {"value", "systemMetadata", "headers"}}, the
// system metadata as SystemMetadataClass.to_obj() gives it (every field,
// nulls included: it is not passed through pre_json_transform).
func (m MCP) openAPIItem() Obj {
	var value any = m.Aspect
	if m.changeType() == "PATCH" {
		// from_mcp undoes the double serialisation: {"patch": [...]}.
		value = Obj{{"patch", m.Patch}}
	}
	return Obj{
		{"urn", m.EntityURN},
		{m.AspectName, Obj{
			{"value", value},
			{"systemMetadata", systemMetadata(m.lastObserved(), m.runID(), m.PipelineName, true)},
			{"headers", Obj{}},
		}},
	}
}

// OpenAPIWrite is emit_mcp's request on the OpenAPI path
// (OpenApiRequest.from_mcp, emitter/request_helper.py): POST
// /openapi/v3/entity/{entityType}?async=false with a list of one item; a
// DELETE proposal becomes DELETE /openapi/v3/entity/{entityType}/{urn},
// the URN not encoded, with the body "[]" (_emit_generic sends the empty
// payload it is given, serialised).
func OpenAPIWrite(m MCP, async bool) OpenAPIRequest {
	if m.changeType() == "DELETE" {
		return OpenAPIRequest{Method: http.MethodDelete, Path: "/openapi/v3/entity/" + m.entityType() + "/" + m.EntityURN, Body: []byte("[]")}
	}
	return OpenAPIRequest{
		Method: patchMethod(m),
		Path:   "/openapi/v3/entity/" + m.entityType() + "?async=" + asyncFlag(async),
		Body:   Dumps([]Obj{m.openAPIItem()}),
	}
}

// OpenAPIWrites are emit_mcps's requests on the OpenAPI path
// (_emit_openapi_mcps, emitter/rest_emitter.py): the proposals grouped by
// method and URL in the order each group first appears, each group one
// request whose body is the items joined by "," inside "[" "]" (_Chunk.join:
// no space between items). Groups are split at 200 items, as
// BATCH_INGEST_MAX_PAYLOAD_LENGTH's default says (the byte limit of 15 MiB
// is not reached by anything this client sends).
func OpenAPIWrites(ms []MCP, async bool) []OpenAPIRequest {
	type group struct {
		method, path string
		chunks       [][]string
	}
	var order []string
	groups := map[string]*group{}
	for _, m := range ms {
		r := OpenAPIWrite(m, async)
		if r.Method == http.MethodDelete {
			// from_mcp gives a DELETE an empty payload; _emit_openapi_mcps
			// serialises request.payload[0], which does not exist.
			continue
		}
		key := r.Method + " " + r.Path
		g, ok := groups[key]
		if !ok {
			g = &group{method: r.Method, path: r.Path, chunks: [][]string{nil}}
			groups[key] = g
			order = append(order, key)
		}
		item := string(Dumps(m.openAPIItem()))
		if len(g.chunks[len(g.chunks)-1]) >= batchMaxLength {
			g.chunks = append(g.chunks, nil)
		}
		g.chunks[len(g.chunks)-1] = append(g.chunks[len(g.chunks)-1], item)
	}
	var out []OpenAPIRequest
	for _, key := range order {
		g := groups[key]
		for _, c := range g.chunks {
			out = append(out, OpenAPIRequest{Method: g.method, Path: g.path, Body: []byte("[" + strings.Join(c, ",") + "]")})
		}
	}
	return out
}

// batchMaxLength is BATCH_INGEST_MAX_PAYLOAD_LENGTH's default
// (configuration/env_vars.py).
const batchMaxLength = 200

// EntitiesPath and EntitiesBody are get_entities's POST
// (OpenApiAPI.get_entities, ingestion/graph/openapi.py):
// /openapi/v3/entity/{entity}/batchGet with [{"urn": u, <aspect>: {}}...],
// sent with Accept and Content-Type application/json.
func EntitiesPath(entityName string, withSystemMetadata bool) string {
	p := "/openapi/v3/entity/" + entityName + "/batchGet"
	if withSystemMetadata {
		p += "?systemMetadata=true"
	}
	return p
}

func EntitiesBody(urns, aspects []string) []byte {
	items := make([]Obj, len(urns))
	for i, u := range urns {
		o := Obj{{"urn", u}}
		for _, a := range aspects {
			o = append(o, Member{a, Obj{}})
		}
		items[i] = o
	}
	return Dumps(items)
}

// EntitiesHeaders are _JSON_HEADERS (ingestion/graph/openapi.py), sent on
// top of the session's.
func EntitiesHeaders() http.Header {
	return http.Header{"Accept": {"application/json"}, "Content-Type": {"application/json"}}
}

// TimeseriesPath is the Rest.li action that reads timeseries aspects
// (get_timeseries_values, ingestion/graph/client.py;
// get_latest_timeseries_aspect_values, cli/cli_utils.py).
func TimeseriesPath() string { return "/aspects?action=getTimeseriesAspectValues" }

// TimeseriesValuesBody is get_timeseries_values's body, sent by requests'
// json=: urn, entity (guessed from the URN), aspect, limit, filter.
func TimeseriesValuesBody(urn, aspect string, filter Obj, limit int) []byte {
	return Dumps(Obj{{"urn", urn}, {"entity", guessEntityType(urn)}, {"aspect", aspect}, {"limit", limit}, {"filter", filter}})
}

// LatestFilter is get_latest_timeseries_value's filter of its
// filter_criteria_map (in the map's order): {"or": [{"and": [{"field": k,
// "values": [v], "condition": "EQUAL"}, ...]}]}.
func LatestFilter(criteria Obj) Obj {
	and := make([]any, len(criteria))
	for i, c := range criteria {
		and[i] = Obj{{"field", c.Key}, {"values", []any{c.Value}}, {"condition", "EQUAL"}}
	}
	return Obj{{"or", []any{Obj{{"and", and}}}}}
}

// LatestTimeseriesBody is get_latest_timeseries_aspect_values's body
// (cli/cli_utils.py, what `datahub get -a <timeseries aspect>` sends), as
// json.dumps writes it: urn, entity, aspect, latestValue.
func LatestTimeseriesBody(urn, aspect string) []byte {
	return Dumps(Obj{{"urn", urn}, {"entity", guessEntityType(urn)}, {"aspect", aspect}, {"latestValue", true}})
}

// MCE is a MetadataChangeEvent: an entity's snapshot, its aspects each
// keyed by its record's full name.
type MCE struct {
	Snapshot     string // the snapshot record's name, e.g. DatasetSnapshot
	URN          string
	Aspects      []MCEAspect
	LastObserved int64 // 0: the time of sending
}

// MCEAspect is one aspect of an MCE: its record's full name and value.
type MCEAspect struct {
	Class string // e.g. com.linkedin.dataset.DatasetProperties
	Value Obj
}

// EmitMCEPath and MCEBody are emit_mce's POST (emitter/rest_emitter.py):
// {"entity": {"value": {"com.linkedin.metadata.snapshot.<Snapshot>":
// pre_json_transform(snapshot.to_obj())}}, "systemMetadata":
// systemMetadata.to_obj()}.
func EmitMCEPath() string { return "/entities?action=ingest" }

func MCEBody(m MCE) []byte {
	aspects := make([]any, len(m.Aspects))
	for i, a := range m.Aspects {
		aspects[i] = Obj{{a.Class, a.Value}}
	}
	last := m.LastObserved
	if last == 0 {
		last = time.Now().UnixMilli()
	}
	return Dumps(Obj{
		{"entity", Obj{{"value", Obj{{"com.linkedin.metadata.snapshot." + m.Snapshot, Obj{{"urn", m.URN}, {"aspects", aspects}}}}}}},
		{"systemMetadata", systemMetadata(last, "no-run-id-provided", "", true)},
	})
}

// TraceData is what the SDK keeps of a traced write (emitter/
// response_helper.py): the trace id and, by URN in the order the answer
// listed them, the aspects written.
type TraceData struct {
	TraceID string
	URNs    []string
	Aspects map[string][]string
}

// TracePath and TraceBody are _await_status's POST (emitter/
// rest_emitter.py): /openapi/v1/trace/write/{trace id}?onlyIncludeErrors=
// false&detailed=true with the aspects still awaited, by URN.
func TracePath(traceID string) string {
	return "/openapi/v1/trace/write/" + traceID + "?onlyIncludeErrors=false&detailed=true"
}

func TraceBody(d TraceData) []byte {
	body := Obj{}
	for _, u := range d.URNs {
		if as, ok := d.Aspects[u]; ok {
			names := make([]any, len(as))
			for i, a := range as {
				names[i] = a
			}
			body = append(body, Member{u, names})
		}
	}
	return Dumps(body)
}
