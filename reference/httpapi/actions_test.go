package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// TestEntityActionsAndPatchRefusals: the entities resource's actions and
// the OpenAPI PATCH refuse what they cannot serve with a status and a
// message (405 naming what is served), and a request without a token with
// 401, each changing nothing.
func TestEntityActionsAndPatchRefusals(t *testing.T) {
	tr := start(t, true)
	root := reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})
	tag, err := tr.svc.CreateTag(root, reference.CreateTagInput{ID: "actions-" + uuid.NewString()[:8], Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	urn := tag.String()
	item := `[{"urn": "` + urn + `", "ownership": {"value": {"patch": [{"op": "add", "path": "/owners/urn:li:corpuser:ann/DATAOWNER", "value": {"owner": "urn:li:corpuser:ann", "type": "DATAOWNER"}}]}}}]`
	for _, c := range []struct {
		name, method, path, token, contentType, body string
		status                                       int
		allow                                        string
	}{
		{"GET of the actions", "GET", "/entities", tr.rootToken, "", "", 405, "POST"},
		{"an action not served", "POST", "/entities?action=nope", tr.rootToken, "application/json", `{"urn": "` + urn + `"}`, 400, ""},
		{"a deletion not declared JSON", "POST", "/entities?action=delete", tr.rootToken, "text/plain", `{"urn": "` + urn + `"}`, 415, ""},
		{"a deletion that is no JSON", "POST", "/entities?action=delete", tr.rootToken, "application/json", `{"urn": `, 400, ""},
		{"a deletion of two JSON values", "POST", "/entities?action=delete", tr.rootToken, "application/json", `{"urn": "` + urn + `"} {}`, 400, ""},
		{"a deletion naming no URN", "POST", "/entities?action=delete", tr.rootToken, "application/json", `{}`, 400, ""},
		{"references of a URN that is no string", "POST", "/entities?action=deleteReferences", tr.rootToken, "application/json", `{"urn": 5}`, 400, ""},
		{"references naming no URN", "POST", "/entities?action=deleteReferences", tr.rootToken, "application/json", `{"dryRun": true}`, 400, ""},
		{"a deletion without a token", "POST", "/entities?action=delete", "", "application/json", `{"urn": "` + urn + `"}`, 401, ""},
		{"references without a token", "POST", "/entities?action=deleteReferences", "", "application/json", `{"urn": "` + urn + `"}`, 401, ""},
		{"PUT of the OpenAPI entities", "PUT", "/openapi/v3/entity/tag", tr.rootToken, "application/json", "[]", 405, "PATCH, POST"},
		{"a patch not declared JSON", "PATCH", "/openapi/v3/entity/tag?async=false", tr.rootToken, "text/plain", item, 415, ""},
		{"a patch without its patch", "PATCH", "/openapi/v3/entity/tag?async=false", tr.rootToken, "application/json", strings.Replace(item, `"patch"`, `"operations"`, 1), 400, ""},
		{"a patch of another type's entity", "PATCH", "/openapi/v3/entity/dataset?async=false", tr.rootToken, "application/json", item, 400, ""},
		{"a patch without a token", "PATCH", "/openapi/v3/entity/tag?async=false", "", "application/json", item, 401, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, c.method, tr.gms.URL+c.path, c.token, c.contentType, c.body)
			var problem struct{ Message string }
			if r.status != c.status || json.Unmarshal([]byte(r.body), &problem) != nil || problem.Message == "" {
				t.Errorf("%s %s: %d %.300s; want %d with a message", c.method, c.path, r.status, r.body, c.status)
			}
			if got := r.header.Get("Allow"); got != c.allow {
				t.Errorf("Allow: %q, want %q", got, c.allow)
			}
			if got, err := tr.svc.Tag(root, urn); err != nil || got == nil {
				t.Errorf("the tag after the refusal: %v, %v; want it there", got, err)
			}
			if _, err := tr.svc.ReadAspect(root, urn, "ownership", 0); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
				t.Errorf("a refused patch wrote the tag's owners: %v", err)
			}
		})
	}
	// Served: a patch answers the patch with async=false, nothing with
	// async=true (DataHub's default here); a deletion its rows.
	if r := do(t, "PATCH", tr.gms.URL+"/openapi/v3/entity/tag?async=false", tr.rootToken, "application/json-patch+json", item); r.status != 200 || !strings.Contains(r.body, `"patch"`) {
		t.Errorf("a patch: %d %.300s", r.status, r.body)
	}
	if r := do(t, "PATCH", tr.gms.URL+"/openapi/v3/entity/tag", tr.rootToken, "application/json", item); r.status != 202 || r.body != "" {
		t.Errorf("a patch with async unset: %d %.300s; want 202 and no body", r.status, r.body)
	}
	r := do(t, "POST", tr.gms.URL+"/entities?action=delete", tr.rootToken, "application/json", `{"urn": "`+urn+`"}`)
	var deleted struct {
		Value struct {
			URN  string `json:"urn"`
			Rows int    `json:"rows"`
		} `json:"value"`
	}
	if r.status != 200 || json.Unmarshal([]byte(r.body), &deleted) != nil || deleted.Value.URN != urn || deleted.Value.Rows != 3 {
		t.Errorf("deleting the tag (key, properties, owners): %d %.300s", r.status, r.body)
	}
	if got, err := tr.svc.Tag(root, urn); err != nil || got != nil {
		t.Errorf("the tag after its deletion: %v, %v", got, err)
	}
}
