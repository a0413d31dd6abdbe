package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// Filters that leave out and search (reference.Filter's Not and Contains),
// and the token listings that use them (DataHub's negated filters).

func TestTokenListsLeaveOutWhatTheyAreToldTo(t *testing.T) {
	f := newFixture(t)
	ann := f.user(t)
	f.grant(t, ann, reference.PrivGenerateAccessTokens)
	mine := func(name string) {
		t.Helper()
		if _, _, err := f.svc.CreateAccessToken(as(ann), reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: "ONE_HOUR", Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	mine("Test Session Token")
	mine("my token")
	f.token(t, ann, "ONE_HOUR") // the root user's, for Ann
	own := map[string][]string{"ownerUrn": {ann.String()}}
	list, total, err := f.svc.ListAccessTokens(as(ann), reference.ListAccessTokensInput{Filters: own, Exclude: map[string][]string{"name": {"Test Session Token"}}})
	if err != nil || total != 1 || len(list) != 1 || list[0].Name != "my token" {
		t.Errorf("Ann's tokens but those named Test Session Token: %v of %d, %v; want \"my token\" alone", list, total, err)
	}
	// Leaving one's own tokens out lists everyone else's: not for Ann.
	for name, in := range map[string]reference.ListAccessTokensInput{
		"not Ann's":                    {Exclude: own},
		"not Ann's, by a bad field":    {Filters: own, Exclude: map[string][]string{"secret": {"x"}}},
		"Ann's and not Ann's, unowned": {Exclude: map[string][]string{"ownerUrn": {ann.String()}, "name": {"x"}}},
	} {
		want := reference.EUNAUTHORIZED
		if name == "not Ann's, by a bad field" {
			want = reference.EBADREQUEST
		}
		if _, _, err := f.svc.ListAccessTokens(as(ann), in); reference.ErrorCodeOf(err) != want {
			t.Errorf("%s: %v, want %s", name, err, want)
		}
	}
	// A manager's listing leaves out by any field; a token without the
	// field is kept.
	list, total, err = f.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {ann.String()}}, Exclude: map[string][]string{"ownerUrn": {ann.String()}, "description": {"x"}}})
	if reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("excluding by description: %v, want BAD_REQUEST", err)
	}
	list, total, err = f.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {ann.String()}}, Exclude: map[string][]string{"ownerUrn": {ann.String()}}})
	if err != nil || total != 1 || len(list) != 1 || list[0].OwnerURN != reference.RootUser.String() {
		t.Errorf("Ann's tokens not owned by her: %v of %d, %v; want the root user's one", list, total, err)
	}
}

func TestListAspectsLeavesOutAndSearches(t *testing.T) {
	ctx := context.Background()
	tag := uuid.NewString()[:8]
	for i, v := range []string{`{"kind":"a","name":"Alpha-` + tag + `"}`, `{"kind":"b","name":"beta-` + tag + `"}`, `{"name":"gamma-` + tag + `"}`} {
		a := aspect(reference.URN{EntityType: "dataset", ID: uuid.NewString()}, "datasetProperties", v)
		a.CreatedAt = time.Now().Add(time.Duration(i) * time.Second)
		if err := testDB.CreateEntity(ctx, []reference.Aspect{a}); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]struct {
		f    reference.Filter
		want int
	}{
		"containing the tag, in capitals":  {reference.Filter{Contains: map[string]string{"name": strings.ToUpper(tag)}}, 3},
		"not of kind a (kindless kept)":    {reference.Filter{Contains: map[string]string{"name": tag}, Not: map[string][]string{"kind": {"a"}}}, 2},
		"of neither kind":                  {reference.Filter{Contains: map[string]string{"name": tag}, Not: map[string][]string{"kind": {"a", "b"}}}, 1},
		"of kind a and not of kind a":      {reference.Filter{Contains: map[string]string{"name": tag}, Where: map[string][]string{"kind": {"a"}}, Not: map[string][]string{"kind": {"a"}}}, 0},
		"containing a percent sign":        {reference.Filter{Contains: map[string]string{"name": "%" + tag}}, 0},
		"a hostile field name in Not":      {reference.Filter{Contains: map[string]string{"name": tag}, Not: map[string][]string{"kind') OR true --": {"x"}}}, 3},
		"a hostile field name in Contains": {reference.Filter{Contains: map[string]string{"name') OR true --": tag}}, 0},
	} {
		c.f.EntityType, c.f.Aspect = "dataset", "datasetProperties"
		got, total, err := testDB.ListAspects(ctx, c.f)
		if err != nil || len(got) != c.want || total != c.want {
			t.Errorf("%s: %d of %d (err %v), want %d", name, len(got), total, err, c.want)
		}
	}
}
