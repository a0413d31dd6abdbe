package httpapi_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// TestSDKPathRefusals: each request the OpenAPI and Rest.li paths cannot
// serve is refused with its status and a message saying why (405 with the
// methods that are served in Allow), and changes nothing.
func TestSDKPathRefusals(t *testing.T) {
	tr := start(t, true)
	root := reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})
	tag, err := tr.svc.CreateTag(root, reference.CreateTagInput{ID: "refusals-" + uuid.NewString()[:8], Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	enc := url.PathEscape(tag.String())
	entity := tr.gms.URL + "/openapi/v3/entity/tag/" + enc
	for _, c := range []struct {
		name, method, path, contentType, body string
		status                                int
		allow                                 string
	}{
		{"deleting one aspect through OpenAPI", "DELETE", entity + "/tagProperties", "", "", 400, ""},
		{"PUT of an OpenAPI entity", "PUT", entity, "application/json", "{}", 405, "GET, DELETE"},
		{"PUT of an aspect", "PUT", tr.gms.URL + "/aspects/" + enc, "application/json", "{}", 405, "GET"},
		{"DELETE of the aspects action path", "DELETE", tr.gms.URL + "/aspects/", "", "", 405, "GET, POST"},
		{"POST of an aspect", "POST", tr.gms.URL + "/aspects/" + enc + "?action=ingestProposal", "application/json", "{}", 405, "GET"},
		{"an aspect of a version in another base", "GET", tr.gms.URL + "/aspects/" + enc + "?aspect=tagProperties&version=a", "", "", 400, ""},
		{"a batchGet whose body is no JSON list", "POST", entity[:strings.LastIndex(entity, "/")] + "/batchGet", "application/json", "{}", 400, ""},
		{"an OpenAPI read of a URN that is one word", "GET", tr.gms.URL + "/openapi/v3/entity/tag/notAUrn", "", "", 400, ""},
		{"an OpenAPI delete of a URN that is one word", "DELETE", tr.gms.URL + "/openapi/v3/entity/tag/notAUrn", "", "", 400, ""},
		{"an aspect of a version that is no number", "GET", tr.gms.URL + "/aspects/" + enc + "?aspect=tagProperties&version=latest", "", "", 400, ""},
		{"an entity with alwaysIncludeKeyAspect neither true nor false", "GET", tr.gms.URL + "/entitiesV2/" + enc + "?alwaysIncludeKeyAspect=maybe", "", "", 400, ""},
		{"an entity with an unclosed list of aspects", "GET", tr.gms.URL + "/entitiesV2/" + enc + "?aspects=List(tagProperties", "", "", 400, ""},
		{"an entity with a list of aspects naming one that is no name", "GET", tr.gms.URL + "/entitiesV2/" + enc + "?aspects=List(tagProperties,1bad)", "", "", 400, ""},
		{"a batch naming no entity", "GET", tr.gms.URL + "/entitiesV2", "", "", 400, ""},
		{"a batch with an unclosed list of entities", "GET", tr.gms.URL + "/entitiesV2?ids=List(" + enc, "", "", 400, ""},
		{"a batch with an unclosed list of aspects", "GET", tr.gms.URL + "/entitiesV2?ids=List(" + enc + ")&aspects=List(tagProperties", "", "", 400, ""},
		{"a proposal batch that is no JSON", "POST", tr.gms.URL + "/aspects?action=ingestProposalBatch", "application/json", "[", 400, ""},
		{"a proposal batch with no proposals", "POST", tr.gms.URL + "/aspects?action=ingestProposalBatch", "application/json", "{}", 400, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, c.method, c.path, tr.rootToken, c.contentType, c.body)
			var problem struct{ Message string }
			if r.status != c.status || json.Unmarshal([]byte(r.body), &problem) != nil || problem.Message == "" {
				t.Errorf("%s %s: %d %.300s; want %d with a message", c.method, c.path, r.status, r.body, c.status)
			}
			if strings.Contains(c.path, "notAUrn") && !strings.Contains(problem.Message, "notAUrn") {
				t.Errorf("the refusal of %s says %q; want it to name the URN", c.path, problem.Message)
			}
			if got := r.header.Get("Allow"); got != c.allow {
				t.Errorf("Allow: %q, want %q", got, c.allow)
			}
			if got, err := tr.svc.Tag(root, tag.String()); err != nil || got == nil {
				t.Errorf("the tag after the refusal: %v, %v; want it there", got, err)
			}
		})
	}
	t.Run("an aspect reads back as version 0, the latest", func(t *testing.T) {
		for _, query := range []string{"?aspect=tagProperties&version=0", "?aspect=tagProperties"} {
			r := do(t, "GET", tr.gms.URL+"/aspects/"+enc+query, tr.rootToken, "", "")
			var got struct {
				Aspect  map[string]json.RawMessage
				Version *int
			}
			if r.status != 200 || json.Unmarshal([]byte(r.body), &got) != nil || got.Version == nil || *got.Version != 0 ||
				!strings.Contains(string(got.Aspect["com.linkedin.tag.TagProperties"]), `"name"`) {
				t.Errorf("GET the tag's properties (%s): %d %.300s; want them under com.linkedin.tag.TagProperties, version 0", query, r.status, r.body)
			}
		}
	})
}

// TestOpenAPIEntityNamesItsAspects: GET of an OpenAPI entity shows the
// aspects named in ?aspects= (repeated or comma-separated, as Spring binds
// them), and every aspect when none is named.
func TestOpenAPIEntityNamesItsAspects(t *testing.T) {
	tr := start(t, true)
	root := reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})
	tag, err := tr.svc.CreateTag(root, reference.CreateTagInput{ID: "aspects-" + uuid.NewString()[:8], Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	entity := tr.gms.URL + "/openapi/v3/entity/tag/" + url.PathEscape(tag.String())
	for query, want := range map[string]string{
		"":                                      "tagKey tagProperties urn",
		"?aspects=tagProperties":                "tagProperties urn",
		"?aspects=tagProperties,%20,":           "tagProperties urn",
		"?aspectNames=tagKey":                   "tagKey urn",
		"?aspects=tagKey&aspects=tagProperties": "tagKey tagProperties urn",
	} {
		r := do(t, "GET", entity+query, tr.rootToken, "", "")
		var got map[string]json.RawMessage
		if r.status != 200 || json.Unmarshal([]byte(r.body), &got) != nil {
			t.Errorf("GET %s: %d %.300s", query, r.status, r.body)
			continue
		}
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if strings.Join(keys, " ") != want {
			t.Errorf("GET %s shows %v, want %s", query, keys, want)
		}
	}
}

// TestEntityV2Envelopes: /entitiesV2 shows each aspect as DataHub's
// EnvelopedAspect, version 0 (the latest): one written with when and by
// whom, and the key of an entity no one wrote, derived from its URN, as
// made by the system actor at time 0.
func TestEntityV2Envelopes(t *testing.T) {
	tr := start(t, true)
	root := reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})
	tag, err := tr.svc.CreateTag(root, reference.CreateTagInput{ID: "envelopes-" + uuid.NewString()[:8], Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	type envelope struct {
		Name    string
		Version *int
		Created struct {
			Time  *int64
			Actor string
		}
	}
	read := func(urn string) map[string]envelope {
		t.Helper()
		r := do(t, "GET", tr.gms.URL+"/entitiesV2/"+url.PathEscape(urn), tr.rootToken, "", "")
		var got struct{ Aspects map[string]envelope }
		if r.status != 200 || json.Unmarshal([]byte(r.body), &got) != nil {
			t.Fatalf("GET /entitiesV2/%s: %d %.300s", urn, r.status, r.body)
		}
		return got.Aspects
	}
	props := read(tag.String())["tagProperties"]
	if props.Name != "tagProperties" || props.Version == nil || *props.Version != 0 || props.Created.Time == nil || *props.Created.Time <= 0 || props.Created.Actor != reference.RootUser.String() {
		t.Errorf("the tag's properties: %+v; want version 0, created at a time by %s", props, reference.RootUser)
	}
	never := "urn:li:tag:never-" + uuid.NewString()[:8]
	key := read(never)["tagKey"]
	if key.Name != "tagKey" || key.Version == nil || *key.Version != 0 || key.Created.Time == nil || *key.Created.Time != 0 || key.Created.Actor != reference.SystemUser.String() {
		t.Errorf("the derived key of a tag no one wrote: %+v; want version 0, created at 0 by %s", key, reference.SystemUser)
	}
	// A batch shows each entity as the single read does, its key
	// included (alwaysIncludeKeyAspect defaults to true in DataHub).
	r := do(t, "GET", tr.gms.URL+"/entitiesV2?ids=List("+url.PathEscape(tag.String())+","+url.PathEscape(never)+")", tr.rootToken, "", "")
	var batch struct {
		Results map[string]struct{ Aspects map[string]envelope }
	}
	if r.status != 200 || json.Unmarshal([]byte(r.body), &batch) != nil {
		t.Fatalf("GET /entitiesV2?ids=...: %d %.300s", r.status, r.body)
	}
	for _, urn := range []string{tag.String(), never} {
		if k, ok := batch.Results[urn].Aspects["tagKey"]; !ok || k.Name != "tagKey" {
			t.Errorf("the batch's %s: %+v; want its key among its aspects", urn, batch.Results[urn])
		}
	}
}

// TestProposalBatchAnswersSuccess: a proposal batch written answers 200
// with {"value": "success"}, as DataHub's ingestProposalBatch does, and
// what it wrote reads back.
func TestProposalBatchAnswersSuccess(t *testing.T) {
	tr := start(t, true)
	urn := "urn:li:tag:batch-" + uuid.NewString()[:8]
	body := `{"proposals": [{"entityType": "tag", "entityUrn": "` + urn + `", "changeType": "UPSERT", "aspectName": "tagProperties", "aspect": {"value": "{\"name\": \"batched\"}", "contentType": "application/json"}}]}`
	r := do(t, "POST", tr.gms.URL+"/aspects?action=ingestProposalBatch", tr.rootToken, "application/json", body)
	var got map[string]any
	if r.status != 200 || json.Unmarshal([]byte(r.body), &got) != nil || got["value"] != "success" {
		t.Errorf("a proposal batch: %d %.300s; want 200 with {\"value\": \"success\"}", r.status, r.body)
	}
	root := reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})
	if tag, err := tr.svc.Tag(root, urn); err != nil || tag == nil || tag.Name != "batched" {
		t.Errorf("the tag the batch wrote: %+v, %v; want it named batched", tag, err)
	}
}
