package sdkclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The client must refuse what the SDK would refuse: a server answering each
// call in a shape the SDK does not accept makes the call fail here, with
// the exception the SDK raises. (Against the reference, reference_test.go
// checks that every call succeeds.)

// fake answers every request with status and body.
func fake(t *testing.T, status int, body string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return &Client{Server: srv.URL + "/", Token: "t"}
}

func kind(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if err == nil {
		return ""
	}
	return "other: " + err.Error()
}

func TestFetchServerConfigAsTheSDK(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		status  int
		body    string
		kind    string
		openAPI bool
		version [4]int
	}{
		{200, `{"noCode": "true", "versions": {"acryldata/datahub": {"version": "v1.5.0"}}}`, "", true, [4]int{1, 5, 0, 0}},
		{200, `{"noCode": "true", "versions": {"acryldata/datahub": {"version": "1.0.1rc3"}}}`, "", true, [4]int{1, 0, 1, 0}},
		{200, `{"noCode": "true", "versions": {"acryldata/datahub": {"version": "v1.0.0.9"}}}`, "", false, [4]int{1, 0, 0, 9}},
		{200, `{"noCode": "true", "versions": {"acryldata/datahub": {"version": "v0.3.12"}}, "datahub": {"serverEnv": "cloud"}}`, "", true, [4]int{0, 3, 12, 0}},
		{200, `{"noCode": "true"}`, "", false, [4]int{}},
		{200, `{"noCode": "true", "versions": {"acryldata/datahub": {"version": "dev"}}}`, "ValueError", false, [4]int{}},
		{200, `{"noCode": "true", "versions": {"acryldata/datahub": {"version": 1}}}`, "AttributeError", false, [4]int{}},
		{200, `{"noCode": "true", "versions": []}`, "AttributeError", false, [4]int{}},
		{200, `{"noCode": true}`, "ConfigurationError", false, [4]int{}},
		{200, `["noCode", "true"]`, "AttributeError", false, [4]int{}},
		{200, `<html>`, "JSONDecodeError", false, [4]int{}},
		{204, ``, "ConfigurationError", false, [4]int{}},
		{401, `{}`, "ConfigurationError", false, [4]int{}},
	} {
		c := fake(t, tc.status, tc.body)
		_, err := c.FetchServerConfig(ctx)
		if kind(err) != tc.kind {
			t.Errorf("%d %s: %v, want %q", tc.status, tc.body, err, tc.kind)
			continue
		}
		if err == nil && (*c.OpenAPI != tc.openAPI || c.Version != tc.version) {
			t.Errorf("%s: OpenAPI %v, version %v; want %v, %v", tc.body, *c.OpenAPI, c.Version, tc.openAPI, tc.version)
		}
	}
}

func TestReadsAsTheSDK(t *testing.T) {
	ctx := context.Background()
	urn := "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)"
	for _, tc := range []struct {
		name   string
		status int
		body   string
		call   func(*Client) error
		kind   string
	}{
		{"get_aspect found", 200, `{"aspect": {"com.linkedin.dataset.DatasetProperties": {"description": "d"}}, "version": 0}`,
			func(c *Client) error { _, ok, err := c.GetAspect(ctx, urn, DatasetProperties, 0); return okOr(ok, err) }, ""},
		{"get_aspect absent", 404, `{}`,
			func(c *Client) error {
				_, ok, err := c.GetAspect(ctx, urn, DatasetProperties, 0)
				return notOr(ok, err)
			}, ""},
		{"get_aspect under the aspect's name", 200, `{"aspect": {"datasetProperties": {"description": "d"}}}`,
			func(c *Client) error { _, _, err := c.GetAspect(ctx, urn, DatasetProperties, 0); return err }, "GraphError"},
		{"get_aspect without the envelope", 200, `{"com.linkedin.dataset.DatasetProperties": {"description": "d"}}`,
			func(c *Client) error { _, _, err := c.GetAspect(ctx, urn, DatasetProperties, 0); return err }, "GraphError"},
		{"get_aspect of a key without its fields", 200, `{"aspect": {"com.linkedin.metadata.key.DatasetKey": {"name": "x"}}}`,
			func(c *Client) error { _, _, err := c.GetAspect(ctx, urn, DatasetKey, 0); return err }, "ValueError"},
		{"get_aspect of a value that is text", 200, `{"aspect": {"com.linkedin.dataset.DatasetProperties": "{}"}}`,
			func(c *Client) error { _, _, err := c.GetAspect(ctx, urn, DatasetProperties, 0); return err }, "TypeError"},
		{"get_aspect 200 with an empty body", 200, ``,
			func(c *Client) error { _, _, err := c.GetAspect(ctx, urn, DatasetProperties, 0); return err }, "JSONDecodeError"},
		{"get_aspect refused", 403, `{"message": "no"}`,
			func(c *Client) error { _, _, err := c.GetAspect(ctx, urn, DatasetProperties, 0); return err }, "HTTPError"},
		{"exists of an entity without a key class", 200, `{}`,
			func(c *Client) error { _, err := c.Exists(ctx, "urn:li:chart:(x,y)"); return err }, "Exception"},
		{"get_entity_raw of a list", 200, `[]`,
			func(c *Client) error { _, err := c.GetEntityRaw(ctx, urn, nil); return err }, "AttributeError"},
		{"get_entity_raw 404", 404, `{}`,
			func(c *Client) error { _, err := c.GetEntityRaw(ctx, urn, nil); return err }, "HTTPError"},
		{"get_aspects_for_entity without value", 200, `{"aspects": {"datasetProperties": {"description": "d"}}}`,
			func(c *Client) error {
				_, err := c.GetAspectsForEntity(ctx, urn, []AspectType{DatasetProperties})
				return err
			}, "KeyError"},
		{"get_aspects_for_entity with aspects a list", 200, `{"aspects": []}`,
			func(c *Client) error {
				_, err := c.GetAspectsForEntity(ctx, urn, []AspectType{DatasetProperties})
				return err
			}, "AttributeError"},
		{"get_aspects_for_entity, the aspect absent", 200, `{"aspects": {}}`,
			func(c *Client) error {
				got, err := c.GetAspectsForEntity(ctx, urn, []AspectType{DatasetProperties})
				if err == nil && got["datasetProperties"] != nil {
					return errors.New("an absent aspect was found")
				}
				return err
			}, ""},
		{"get_entity_semityped with a key lacking its fields", 200, `{"aspects": {"datasetKey": {"value": {}}}}`,
			func(c *Client) error { _, err := c.GetEntitySemityped(ctx, urn, nil); return err }, "ValueError"},
		{"get_entity_semityped skips an aspect it does not know", 200, `{"aspects": {"somethingNew": "anything"}}`,
			func(c *Client) error { _, err := c.GetEntitySemityped(ctx, urn, nil); return err }, ""},
		{"execute_graphql with errors", 200, `{"data": null, "errors": [{"message": "x"}]}`,
			func(c *Client) error { _, err := c.ExecuteGraphQL(ctx, "{ me }", nil, ""); return err }, "GraphError"},
		{"execute_graphql without data", 200, `{}`,
			func(c *Client) error { _, err := c.ExecuteGraphQL(ctx, "{ me }", nil, ""); return err }, "KeyError"},
		{"execute_graphql refused", 401, ``,
			func(c *Client) error { _, err := c.ExecuteGraphQL(ctx, "{ me }", nil, ""); return err }, "OperationalError"},
		{"get_entities of an object", 200, `{"entities": []}`,
			func(c *Client) error { _, err := c.GetEntities(ctx, "dataset", []string{urn}, nil); return err }, "AttributeError"},
		{"get_entities with a value that is text", 200, `[{"urn": "u", "datasetProperties": {"value": "x"}}]`,
			func(c *Client) error { _, err := c.GetEntities(ctx, "dataset", []string{urn}, nil); return err }, "TypeError"},
		{"get_entities with an aspect that is text", 200, `[{"urn": "u", "datasetProperties": "x"}]`,
			func(c *Client) error { _, err := c.GetEntities(ctx, "dataset", []string{urn}, nil); return err }, "AttributeError"},
	} {
		if err := tc.call(fake(t, tc.status, tc.body)); kind(err) != tc.kind {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.kind)
		}
	}
}

func okOr(ok bool, err error) error {
	if err == nil && !ok {
		return errors.New("not found")
	}
	return err
}

func notOr(ok bool, err error) error {
	if err == nil && ok {
		return errors.New("found")
	}
	return err
}

// TestEmitsAsTheSDK: any status below 400 is success, the body unread; 400
// and above raise OperationalError with the JSON body's message.
func TestEmitsAsTheSDK(t *testing.T) {
	ctx := context.Background()
	yes, no := true, false
	for _, openAPI := range []*bool{&yes, &no} {
		for status, want := range map[int]string{200: "", 202: "", 204: "", 400: "OperationalError", 403: "OperationalError", 422: "OperationalError"} {
			c := fake(t, status, `{"message": "why"}`)
			c.OpenAPI = openAPI
			err := c.EmitMCP(ctx, mcp, false)
			if kind(err) != want || (want != "" && !strings.Contains(err.Error(), "why")) {
				t.Errorf("emit_mcp (OpenAPI %v) answered %d: %v, want %q with the message", *openAPI, status, err, want)
			}
			if err := c.EmitMCPs(ctx, []MCP{mcp, mcp}, false); kind(err) != want {
				t.Errorf("emit_mcps (OpenAPI %v) answered %d: %v, want %q", *openAPI, status, err, want)
			}
		}
	}
}
