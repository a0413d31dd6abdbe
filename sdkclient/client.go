// Package sdkclient sends what DataHub's Python SDK (acryl-datahub) sends,
// and reads each answer the way the SDK reads it, so that a Go test can
// tell whether DataHub's own software would work against a server. The SDK
// cannot be installed here; its requests and its parsing are read from
// its source (metadata-ingestion/src/datahub in datahub-project/datahub,
// commit 7e93355): DataHubRestEmitter in emitter/rest_emitter.py, the
// OpenAPI requests in emitter/request_helper.py, DataHubGraph in
// ingestion/graph/client.py and ingestion/graph/openapi.py, and the server
// configuration in utilities/server_config_util.py. Each method names the
// SDK function it stands for; each check it makes is one the SDK makes
// (a missing key it would index, a type it would call .get on, a status it
// would raise for), so an answer in a shape the SDK would not accept is an
// error here too.
package sdkclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Client is a DataHubGraph (which is a DataHubRestEmitter) in SDK client
// mode, talking to Server.
type Client struct {
	// Server is the metadata service's base URL, or the frontend's with
	// /api/gms; a trailing slash is dropped (fixup_gms_url).
	Server string
	Token  string
	HTTP   *http.Client
	// OpenAPI says whether the emitters write through OpenAPI v3; nil until
	// FetchServerConfig decides it as _post_fetch_server_config does. As in
	// the SDK, an emitter that never fetched the configuration writes
	// through Rest.li.
	OpenAPI *bool
	// Version is the server's DataHub version as RestServiceConfig parses
	// it (major, minor, patch, build), set by FetchServerConfig.
	Version [4]int
	// trace, when set, is told of each request (Ingest lists a run's).
	trace func(line string)
}

// Error is what the SDK would raise: the exception's class, the SDK
// function, and why.
type Error struct {
	Kind   string // ConfigurationError, OperationalError, GraphError, HTTPError, ValueError, KeyError, AttributeError, JSONDecodeError, TypeError
	Func   string // the SDK function that raises it
	Status int    // the HTTP status, when one came
	Reason string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s raises %s: %s", e.Func, e.Kind, e.Reason)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	return s
}

// response is one answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (c *Client) server() string { return strings.TrimRight(c.Server, "/") }

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// send sends one request with the session's headers (and extra on top).
func (c *Client) send(ctx context.Context, method, path string, body []byte, extra http.Header) (*response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.server()+path, r)
	if err != nil {
		return nil, err
	}
	if c.trace != nil {
		c.trace(describe(method, path, body))
	}
	req.Header = Headers(c.Token)
	for k, v := range extra {
		req.Header[k] = v
	}
	res, err := c.httpClient().Do(req)
	if err != nil {
		return nil, &Error{Kind: "OperationalError", Func: "requests", Reason: err.Error()}
	}
	defer res.Body.Close()
	var rd io.Reader = res.Body
	if strings.EqualFold(res.Header.Get("Content-Encoding"), "gzip") {
		// requests decodes what it asked for with Accept-Encoding.
		gz, err := gzip.NewReader(res.Body)
		if err != nil {
			return nil, &Error{Kind: "OperationalError", Func: "requests", Reason: "a gzip body that does not decode: " + err.Error()}
		}
		rd = gz
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, &Error{Kind: "OperationalError", Func: "requests", Reason: err.Error()}
	}
	return &response{status: res.StatusCode, header: res.Header, body: b}, nil
}

// raiseForStatus is requests' Response.raise_for_status: 4xx and 5xx.
func raiseForStatus(fn string, r *response) error {
	if r.status >= 400 && r.status < 600 {
		return &Error{Kind: "HTTPError", Func: fn, Status: r.status, Reason: excerpt(r.body)}
	}
	return nil
}

// decodeJSON is response.json(): JSONDecodeError when the body is not JSON.
func decodeJSON(fn string, r *response) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, &Error{Kind: "JSONDecodeError", Func: fn, Status: r.status, Reason: "the body is not JSON: " + excerpt(r.body)}
	}
	if dec.More() {
		return nil, &Error{Kind: "JSONDecodeError", Func: fn, Status: r.status, Reason: "extra data after the JSON value"}
	}
	return v, nil
}

// object is a JSON value the SDK calls .get on: anything but an object
// raises AttributeError (a list, a string) or TypeError.
func object(fn, what string, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Kind: "AttributeError", Func: fn, Reason: fmt.Sprintf("%s is %s, not an object", what, kindOf(v))}
	}
	return m, nil
}

// getOr is Python's d.get(key, default) followed by `or default` where the
// SDK writes it so: a missing key gives an empty object.
func getObject(fn, what string, m map[string]any, key string) (map[string]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return map[string]any{}, nil
	}
	return object(fn, what+"."+key, v)
}

// truthy is Python's truth value of a decoded JSON value.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number:
		f, err := t.Float64()
		return err != nil || f != 0
	case map[string]any:
		return len(t) > 0
	case []any:
		return len(t) > 0
	}
	return true
}

// fromObj is aspect_type.from_obj(obj) for the record: obj must be an
// object holding every field the record cannot do without.
func fromObj(fn string, t AspectType, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Kind: "TypeError", Func: fn, Reason: fmt.Sprintf("%s.from_obj was given %s, not an object", t.FullName, kindOf(v))}
	}
	for _, f := range t.Required {
		if m[f] == nil {
			return nil, &Error{Kind: "ValueError", Func: fn, Reason: fmt.Sprintf("%s.from_obj: the required field %q is missing", t.FullName, f)}
		}
	}
	return m, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// versionShape is RestServiceConfig._parse_version's pattern, matched at
// the start of the version (re.match) after an optional "v".
var versionShape = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?`)

// openAPIRequirement is _REQUIRED_VERSION_OPENAPI_TRACING
// (server_config_util.py): from these versions the SDK writes through
// OpenAPI (ServiceFeature.OPEN_API_SDK).
var openAPIRequirement = map[string][4]int{"cloud": {0, 3, 11, 0}, "core": {1, 0, 1, 0}}

// FetchServerConfig is fetch_server_config and _post_fetch_server_config
// (emitter/rest_emitter.py) with RestServiceConfig
// (utilities/server_config_util.py): GET /config must answer exactly 200
// with a JSON object whose noCode is the string "true"; the DataHub
// version, when there is one, must parse; a core server of 1.0.1 or later
// (cloud: 0.3.11) makes an SDK-mode client write through OpenAPI.
func (c *Client) FetchServerConfig(ctx context.Context) (map[string]any, error) {
	const fn = "DataHubRestEmitter.fetch_server_config"
	r, err := c.send(ctx, http.MethodGet, ConfigPath(), nil, nil)
	if err != nil {
		return nil, err
	}
	if r.status != http.StatusOK {
		return nil, &Error{Kind: "ConfigurationError", Func: fn, Status: r.status, Reason: "GET /config did not answer 200"}
	}
	v, err := decodeJSON(fn, r)
	if err != nil {
		return nil, err
	}
	cfg, err := object(fn, "the configuration", v)
	if err != nil {
		return nil, err
	}
	if s, _ := cfg["noCode"].(string); s != "true" {
		return nil, &Error{Kind: "ConfigurationError", Func: fn, Status: r.status, Reason: fmt.Sprintf(`noCode is %v, not the string "true": the SDK takes the server for the frontend`, cfg["noCode"])}
	}
	version, err := parseVersion(cfg)
	if err != nil {
		return nil, err
	}
	c.Version = version
	env := "core"
	if dh, _ := cfg["datahub"].(map[string]any); dh != nil {
		if e, _ := dh["serverEnv"].(string); e != "" && e != "core" {
			env = "cloud"
		}
	}
	if c.OpenAPI == nil {
		use := atLeast(version, openAPIRequirement[env])
		c.OpenAPI = &use
	}
	return cfg, nil
}

// parseVersion is RestServiceConfig.service_version and _parse_version.
func parseVersion(cfg map[string]any) ([4]int, error) {
	const fn = "RestServiceConfig._parse_version"
	versions, err := getObject(fn, "versions", cfg, "versions")
	if err != nil {
		return [4]int{}, err
	}
	datahub, err := getObject(fn, "versions", versions, "acryldata/datahub")
	if err != nil {
		return [4]int{}, err
	}
	raw, present := datahub["version"]
	if !present || !truthy(raw) {
		return [4]int{}, nil // (0, 0, 0, 0): Rest.li
	}
	s, ok := raw.(string)
	if !ok {
		return [4]int{}, &Error{Kind: "AttributeError", Func: fn, Reason: fmt.Sprintf("the version is %s, not a string", kindOf(raw))}
	}
	m := versionShape.FindStringSubmatch(strings.TrimPrefix(s, "v"))
	if m == nil {
		return [4]int{}, &Error{Kind: "ValueError", Func: fn, Reason: fmt.Sprintf("Invalid version format: %q", s)}
	}
	var out [4]int
	for i := 0; i < 4; i++ {
		if m[i+1] != "" {
			out[i], _ = strconv.Atoi(m[i+1])
		}
	}
	return out, nil
}

func atLeast(v, min [4]int) bool {
	for i := range v {
		if v[i] != min[i] {
			return v[i] > min[i]
		}
	}
	return true
}

// GetAspect is DataHubGraph.get_aspect (ingestion/graph/client.py): 404
// means absent (nil, false); any other 4xx or 5xx raises; the answer must
// be an object whose "aspect" holds the aspect under its record's full
// name, which from_obj must take.
func (c *Client) GetAspect(ctx context.Context, urn string, t AspectType, version int) (map[string]any, bool, error) {
	const fn = "DataHubGraph.get_aspect"
	if t.Timeseries {
		return nil, false, &Error{Kind: "TypeError", Func: fn, Reason: "Cannot get a timeseries aspect using \"get_aspect\""}
	}
	r, err := c.send(ctx, http.MethodGet, AspectPath(urn, t.Name, version), nil, nil)
	if err != nil {
		return nil, false, err
	}
	if r.status == http.StatusNotFound {
		return nil, false, nil
	}
	if err := raiseForStatus(fn, r); err != nil {
		return nil, false, err
	}
	v, err := decodeJSON(fn, r)
	if err != nil {
		return nil, false, err
	}
	body, err := object(fn, "the answer", v)
	if err != nil {
		return nil, false, err
	}
	aspect, err := getObject(fn, "the answer", body, "aspect")
	if err != nil {
		return nil, false, err
	}
	value, ok := aspect[t.FullName]
	if !ok || value == nil {
		return nil, false, &Error{Kind: "GraphError", Func: fn, Status: r.status, Reason: fmt.Sprintf("Failed to find %s in response %s", t.FullName, excerpt(r.body))}
	}
	m, err := fromObj(fn, t, value)
	if err != nil {
		return nil, false, err
	}
	return m, true, nil
}

// Exists is DataHubGraph.exists: get_aspect of the entity type's key
// aspect is not None.
func (c *Client) Exists(ctx context.Context, urn string) (bool, error) {
	parts := strings.SplitN(urn, ":", 4)
	if len(parts) != 4 || parts[0] != "urn" || parts[1] != "li" {
		return false, &Error{Kind: "InvalidUrnError", Func: "DataHubGraph.exists", Reason: "not a URN: " + urn}
	}
	key, ok := KeyAspects[parts[2]]
	if !ok {
		return false, &Error{Kind: "Exception", Func: "DataHubGraph.exists", Reason: "Failed to find key class for entity type " + parts[2]}
	}
	_, found, err := c.GetAspect(ctx, urn, key, 0)
	return found, err
}

// GetEntityRaw is DataHubGraph.get_entity_raw: any 4xx or 5xx raises; the
// body is JSON, an object for every caller (they call .get on it).
func (c *Client) GetEntityRaw(ctx context.Context, urn string, aspects []string) (map[string]any, error) {
	const fn = "DataHubGraph.get_entity_raw"
	if aspects != nil && len(aspects) == 0 {
		return nil, &Error{Kind: "AssertionError", Func: fn, Reason: "if provided, aspects must be a non-empty list"}
	}
	r, err := c.send(ctx, http.MethodGet, EntityV2Path(urn, aspects), nil, nil)
	if err != nil {
		return nil, err
	}
	if err := raiseForStatus(fn, r); err != nil {
		return nil, err
	}
	v, err := decodeJSON(fn, r)
	if err != nil {
		return nil, err
	}
	return object(fn, "the answer", v)
}

// BatchGetIDs is batch_get_ids (cli/migrate.py, what `datahub migrate`
// reads entities with): only a 200 yields anything (another status yields
// nothing, silently); the body must hold "results", an object whose
// values are the entities.
func (c *Client) BatchGetIDs(ctx context.Context, urns []string) ([]map[string]any, error) {
	const fn = "migrate.batch_get_ids"
	r, err := c.send(ctx, http.MethodGet, EntitiesV2Path(urns), nil, nil)
	if err != nil {
		return nil, err
	}
	if r.status != http.StatusOK {
		return nil, nil
	}
	v, err := decodeJSON(fn, r)
	if err != nil {
		return nil, err
	}
	body, err := object(fn, "the answer", v)
	if err != nil {
		return nil, err
	}
	results, ok := body["results"]
	if !ok {
		return nil, &Error{Kind: "KeyError", Func: fn, Status: r.status, Reason: `the answer has no "results"`}
	}
	m, err := object(fn, "results", results)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, e := range m {
		entity, err := object(fn, "a result", e)
		if err != nil {
			return nil, err
		}
		out = append(out, entity)
	}
	return out, nil
}

// GetAspectsForEntity is DataHubGraph.get_aspects_for_entity: for each
// type, answer.aspects[name] when truthy must hold a "value" that from_obj
// takes; otherwise the aspect is None (a nil map here).
func (c *Client) GetAspectsForEntity(ctx context.Context, urn string, types []AspectType) (map[string]map[string]any, error) {
	const fn = "DataHubGraph.get_aspects_for_entity"
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.Name
	}
	raw, err := c.GetEntityRaw(ctx, urn, names)
	if err != nil {
		return nil, err
	}
	aspects, err := getObject(fn, "the answer", raw, "aspects")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]any{}
	for _, t := range types {
		aj := aspects[t.Name]
		if !truthy(aj) {
			out[t.Name] = nil
			continue
		}
		env, err := object(fn, "aspects."+t.Name, aj)
		if err != nil {
			return nil, err
		}
		value, ok := env["value"]
		if !ok {
			return nil, &Error{Kind: "KeyError", Func: fn, Reason: fmt.Sprintf("aspects.%s has no \"value\"", t.Name)}
		}
		m, err := fromObj(fn, t, value)
		if err != nil {
			return nil, err
		}
		out[t.Name] = m
	}
	return out, nil
}

// GetEntitySemityped is DataHubGraph.get_entity_semityped through
// get_entity_as_mcps (what DataHubClient.entities.get uses): every aspect
// of the answer whose name the SDK knows must hold a "value" from_obj
// takes, and a systemMetadata, when truthy, must be an object; aspects of
// unknown names are skipped.
func (c *Client) GetEntitySemityped(ctx context.Context, urn string, aspects []string) (map[string]map[string]any, error) {
	const fn = "DataHubGraph.get_entity_as_mcps"
	raw, err := c.GetEntityRaw(ctx, urn, aspects)
	if err != nil {
		return nil, err
	}
	all, err := getObject(fn, "the answer", raw, "aspects")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]any{}
	for name, aj := range all {
		t, known := aspectNameMap[name]
		if !known {
			continue // "Ignoring unknown aspect type"
		}
		env, err := object(fn, "aspects."+name, aj)
		if err != nil {
			return nil, err
		}
		value, ok := env["value"]
		if !ok {
			return nil, &Error{Kind: "KeyError", Func: fn, Reason: fmt.Sprintf("aspects.%s has no \"value\"", name)}
		}
		m, err := fromObj(fn, t, value)
		if err != nil {
			return nil, err
		}
		if sm := env["systemMetadata"]; truthy(sm) {
			if _, err := object(fn, "aspects."+name+".systemMetadata", sm); err != nil {
				return nil, err
			}
		}
		out[name] = m
	}
	return out, nil
}

// ExecuteGraphQL is DataHubGraph.execute_graphql through _post_generic
// (_send_restli_request): a 4xx or 5xx raises OperationalError; a
// non-empty "errors" raises GraphError; "data" is returned, and its
// absence raises KeyError.
func (c *Client) ExecuteGraphQL(ctx context.Context, query string, variables Obj, operationName string) (any, error) {
	const fn = "DataHubGraph.execute_graphql"
	r, err := c.send(ctx, http.MethodPost, GraphQLPath(), GraphQLBody(query, variables, operationName), nil)
	if err != nil {
		return nil, err
	}
	if r.status >= 400 && r.status < 600 {
		return nil, &Error{Kind: "OperationalError", Func: fn, Status: r.status, Reason: "Unable to get metadata from DataHub: " + excerpt(r.body)}
	}
	v, err := decodeJSON(fn, r)
	if err != nil {
		return nil, err
	}
	result, err := object(fn, "the answer", v)
	if err != nil {
		return nil, err
	}
	if truthy(result["errors"]) {
		return nil, &Error{Kind: "GraphError", Func: fn, Status: r.status, Reason: fmt.Sprintf("Error executing graphql query: %s", excerpt(r.body))}
	}
	data, ok := result["data"]
	if !ok {
		return nil, &Error{Kind: "KeyError", Func: fn, Status: r.status, Reason: `the answer has no "data"`}
	}
	return data, nil
}

// emitGeneric is DataHubRestEmitter._emit_generic: a status of 400 or more
// raises OperationalError with the JSON body's message (or without one
// when the body is not JSON); anything below is success, the body unread.
func (c *Client) emitGeneric(ctx context.Context, fn, method, path string, body []byte) error {
	r, err := c.send(ctx, method, path, body, nil)
	if err != nil {
		return err
	}
	if r.status < 400 {
		return nil
	}
	reason := "Unable to emit metadata to DataHub GMS"
	var info map[string]any
	if json.Unmarshal(r.body, &info) == nil {
		reason += fmt.Sprintf(": %v", info["message"])
	}
	return &Error{Kind: "OperationalError", Func: fn, Status: r.status, Reason: reason}
}

// EmitMCP is DataHubRestEmitter.emit_mcp: through OpenAPI v3 when the
// configuration chose it, else Rest.li's ingestProposal (a DELETE of a
// key aspect goes to /entities?action=delete; of any other aspect it is
// refused by the SDK itself).
func (c *Client) EmitMCP(ctx context.Context, m MCP, async bool) error {
	const fn = "DataHubRestEmitter.emit_mcp"
	if c.OpenAPI != nil && *c.OpenAPI {
		req := OpenAPIWrite(m, async)
		return c.emitGeneric(ctx, fn, req.Method, req.Path, req.Body)
	}
	if m.changeType() == "DELETE" {
		if _, isKey := keyAspectNames[m.AspectName]; !isKey {
			return &Error{Kind: "OperationalError", Func: fn, Reason: "Delete not supported for non key aspect: " + m.AspectName}
		}
		return c.emitGeneric(ctx, fn, http.MethodPost, "/entities?action=delete", Dumps(Obj{{"urn", m.EntityURN}}))
	}
	return c.emitGeneric(ctx, fn, http.MethodPost, IngestProposalPath(), IngestProposalBody(m, async))
}

// keyAspectNames is KEY_ASPECT_NAMES for the key aspects this client knows.
var keyAspectNames = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range KeyAspects {
		m[t.Name] = true
	}
	return m
}()

// EmitMCPs is DataHubRestEmitter.emit_mcps: through OpenAPI v3 when the
// configuration chose it (_emit_openapi_mcps: one request per entity type,
// 200 items at most), else Rest.li's ingestProposalBatch
// (_emit_restli_mcps: 200 proposals at most per request).
func (c *Client) EmitMCPs(ctx context.Context, ms []MCP, async bool) error {
	const fn = "DataHubRestEmitter.emit_mcps"
	if c.OpenAPI != nil && *c.OpenAPI {
		for _, req := range OpenAPIWrites(ms, async) {
			if err := c.emitGeneric(ctx, fn, req.Method, req.Path, req.Body); err != nil {
				return err
			}
		}
		return nil
	}
	for start := 0; start < len(ms); start += batchMaxLength {
		end := min(start+batchMaxLength, len(ms))
		if err := c.emitGeneric(ctx, fn, http.MethodPost, IngestProposalBatchPath(), IngestProposalBatchBody(ms[start:end], async)); err != nil {
			return err
		}
	}
	return nil
}

// GetEntities is OpenApiAPI.get_entities (ingestion/graph/openapi.py):
// any 4xx or 5xx raises; the answer is a list of entities, each an object
// with its urn (one without is skipped) and, by aspect name, an object
// whose value from_obj must take (a null value is skipped). It returns,
// by URN, each entity's aspects by name.
func (c *Client) GetEntities(ctx context.Context, entityName string, urns, aspects []string) (map[string]map[string]map[string]any, error) {
	const fn = "OpenApiAPI.get_entities"
	r, err := c.send(ctx, http.MethodPost, EntitiesPath(entityName, false), EntitiesBody(urns, aspects), EntitiesHeaders())
	if err != nil {
		return nil, err
	}
	if err := raiseForStatus(fn, r); err != nil {
		return nil, err
	}
	v, err := decodeJSON(fn, r)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, &Error{Kind: "AttributeError", Func: fn, Status: r.status, Reason: fmt.Sprintf("the answer is %s, not a list of entities", kindOf(v))}
	}
	out := map[string]map[string]map[string]any{}
	for i, e := range list {
		entity, err := object(fn, fmt.Sprintf("entity %d", i), e)
		if err != nil {
			return nil, err
		}
		urn, _ := entity["urn"].(string)
		if entity["urn"] == nil {
			continue // "Missing URN in response"
		}
		got := map[string]map[string]any{}
		for name, ao := range entity {
			if name == "urn" {
				continue
			}
			t, known := aspectNameMap[name]
			if !known {
				continue
			}
			aspect, err := object(fn, urn+"."+name, ao)
			if err != nil {
				return nil, err
			}
			value := aspect["value"]
			if value == nil {
				continue
			}
			m, err := fromObj(fn, t, value)
			if err != nil {
				return nil, err
			}
			got[name] = m
		}
		if len(got) > 0 {
			out[urn] = got
		}
	}
	return out, nil
}
