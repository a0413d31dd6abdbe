package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph/model"
)

// fakeRoot answers me and appConfig with what a case says, through
// the real ResolverRoot for everything else: the plan and gqlgen call the
// same resolvers.
type fakeRoot struct {
	*Resolver
	me      func() (*model.AuthenticatedUser, error)
	version *string
}

func (f *fakeRoot) Query() QueryResolver { return &fakeQuery{queryResolver{f.Resolver}, f} }

type fakeQuery struct {
	queryResolver
	f *fakeRoot
}

func (q *fakeQuery) Me(context.Context) (*model.AuthenticatedUser, error) { return q.f.me() }

func (q *fakeQuery) AppConfig(context.Context) (*model.AppConfig, error) {
	return &model.AppConfig{AppVersion: q.f.version, AuthConfig: &model.AuthConfig{TokenAuthEnabled: true}}, nil
}

// TestPlanAnswersAsGqlgen: for every document a plan serves, every value
// the resolvers return (hostile strings, nulls, enum values, errors,
// panics), every Accept header and the response budget, the answer served
// by the plan is gqlgen's, byte for byte, with the same status and
// Content-Type; and the plan did serve the requests it could.
func TestPlanAnswersAsGqlgen(t *testing.T) {
	hostile := "<script>&\"\\\u2028\u2029\x00\x1f\t\r\n\x7f\xff é'/"
	user := func(urn, name string, status *model.CorpUserStatus, typ model.EntityType) *model.AuthenticatedUser {
		return &model.AuthenticatedUser{
			CorpUser: &model.CorpUser{Urn: urn, Type: typ, Username: name, Status: status,
				Info: &model.CorpUserInfo{Active: true, DisplayName: &name}},
			PlatformPrivileges: &model.PlatformPrivileges{ManageTokens: true, CreateTags: true},
		}
	}
	suspended, odd, empty := model.CorpUserStatusSuspended, model.CorpUserStatus("NOT A NAME"), model.CorpUserStatus("")
	version, hostileVersion := "1.0", hostile
	type value struct {
		name    string
		me      func() (*model.AuthenticatedUser, error)
		version *string
		planned bool // the plan answers (rather than handing over to gqlgen)
		// only: when not empty, the plan hands over only the documents
		// that select one of these.
		only []string
	}
	values := []value{
		{"plain", func() (*model.AuthenticatedUser, error) {
			return user("urn:li:corpuser:datahub", "datahub", &suspended, model.EntityTypeCorpUser), nil
		}, &version, true, nil},
		{"hostile strings", func() (*model.AuthenticatedUser, error) {
			return user("urn:li:corpuser:"+hostile, hostile, nil, model.EntityTypeCorpUser), nil
		}, &hostileVersion, true, nil},
		{"null version and status", func() (*model.AuthenticatedUser, error) {
			u := user("u", "n", nil, model.EntityTypeCorpUser)
			u.CorpUser.Info = nil
			return u, nil
		}, nil, true, nil},
		{"an enum value that is not a name", func() (*model.AuthenticatedUser, error) {
			return user("u", "n", &odd, model.EntityTypeCorpUser), nil
		}, &version, false, []string{" status "}},
		{"an empty enum value", func() (*model.AuthenticatedUser, error) {
			return user("u", "n", &empty, model.EntityType("")), nil
		}, &version, false, []string{" status ", " type "}},
		{"me null", func() (*model.AuthenticatedUser, error) { return nil, nil }, &version, true, nil},
		{"a null where the schema says non-null", func() (*model.AuthenticatedUser, error) {
			u := user("u", "n", nil, model.EntityTypeCorpUser)
			u.CorpUser = nil
			return u, nil
		}, &version, false, nil},
		{"an error of the domain", func() (*model.AuthenticatedUser, error) {
			return nil, reference.Errorf(reference.ENOTFOUND, "user <x> does not exist")
		}, &version, false, nil},
		{"the store unavailable", func() (*model.AuthenticatedUser, error) { return nil, reference.ErrUnavailable }, &version, false, nil},
		{"an unknown error", func() (*model.AuthenticatedUser, error) { return nil, errors.New("secret detail") }, &version, false, nil},
		{"a panic", func() (*model.AuthenticatedUser, error) { panic("boom") }, &version, false, nil},
	}
	// What the handler is first asked with, to learn the plan: small
	// enough for the smallest budget.
	one := "1"
	learn := func() (*model.AuthenticatedUser, error) {
		return user("u", "n", &suspended, model.EntityTypeCorpUser), nil
	}
	type doc struct {
		query, operationName string
		me                   bool // asks me (values that only differ in me matter)
	}
	docs := []doc{
		{`{ me { corpUser { urn username } } }`, "", true},
		{`query Me { me { corpUser { urn type username status info { active displayName email } } platformPrivileges { manageTokens createTags manageIdentities } } appConfig { appVersion authConfig { tokenAuthEnabled } } }`, "", true},
		{`{ a: me { b: corpUser { c: urn __typename } __typename } __typename v: appConfig { appVersion } }`, "", true},
		{`query A { appConfig { appVersion } } query B { me { corpUser { urn } } appConfig { appVersion } }`, "B", true},
		{`query A { appConfig { appVersion } } query B { me { corpUser { urn } } }`, "A", false},
		{"{ appConfig { appVersion __typename } }", "", false},
	}
	accepts := []string{"", "application/graphql-response+json", "*/*", "text/html", "application/json;q=0.5, application/graphql-response+json"}
	limits := []Limits{{}, {ResponseBytes: 40}}

	served := 0
	for _, v := range values {
		for _, l := range limits {
			root := &fakeRoot{Resolver: &Resolver{}, me: v.me, version: v.version}
			logger := slog.New(slog.DiscardHandler)
			withPlans, gqlgenOnly := newHandler(root, logger, l), newHandler(root, logger, l)
			gqlgenOnly.noPlans = true
			var throughGqlgen atomic.Int64
			withPlans.srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
				throughGqlgen.Add(1)
				return next(ctx)
			})
			for _, d := range docs {
				if !d.me && v.name != "plain" {
					continue
				}
				for _, accept := range accepts {
					for _, upgrade := range []string{"", "websocket"} {
						name := fmt.Sprintf("%s/%d/%s/%q/%s", v.name, l.ResponseBytes, d.query, accept, upgrade)
						ask := func(h *Handler) *httptest.ResponseRecorder {
							body, _ := json.Marshal(map[string]any{"query": d.query, "operationName": d.operationName})
							r := httptest.NewRequest(http.MethodPost, "/api/graphql", strings.NewReader(string(body)))
							r.Header.Set("Content-Type", "application/json")
							if accept != "" {
								r.Header.Set("Accept", accept)
							}
							if upgrade != "" {
								r.Header.Set("Upgrade", upgrade)
							}
							w := httptest.NewRecorder()
							h.ServeDocument(w, r, body, d.query, d.operationName, true)
							return w
						}
						// gqlgen answers a plain value, and the plan is
						// learnt; then the resolvers return the case's.
						root.me, root.version = learn, &one
						ask(withPlans)
						learnt := withPlans.plans.get(d.operationName, d.query) != nil
						root.me, root.version = v.me, v.version
						before := throughGqlgen.Load()
						got, want := ask(withPlans), ask(gqlgenOnly)
						byPlan := throughGqlgen.Load() == before
						if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") || got.Body.String() != want.Body.String() ||
							got.Header().Get("Retry-After") != want.Header().Get("Retry-After") {
							t.Errorf("%s:\nplan   %d %s %s\ngqlgen %d %s %s", name, got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
						}
						// What the plan must answer: what it handles, within
						// the budget. (gqlgen refuses an upgrade before an
						// operation starts: the comparison above tells.)
						planned := v.planned
						if len(v.only) > 0 {
							planned = true
							for _, f := range v.only {
								planned = planned && !strings.Contains(d.query, f)
							}
						}
						wantPlan := learnt && planned && want.Code == http.StatusOK && !strings.Contains(want.Body.String(), `"errors"`)
						if upgrade == "" && byPlan != wantPlan {
							t.Errorf("%s: answered by the plan %v, want %v (%s)", name, byPlan, wantPlan, want.Body)
						}
						if byPlan && upgrade == "" {
							served++
						}
					}
				}
			}
		}
	}
	if served < 50 {
		t.Errorf("the plan answered %d requests; the comparison compared gqlgen with itself", served)
	}
}

// A request the transport did not find plain (variables, or a key gqlgen
// would read as the query though spelled otherwise) is answered by gqlgen,
// never by the plan of the document it names: gqlgen may run another.
func TestPlanServesOnlyPlainRequests(t *testing.T) {
	version := "1.0"
	root := &fakeRoot{Resolver: &Resolver{}, me: func() (*model.AuthenticatedUser, error) {
		return &model.AuthenticatedUser{CorpUser: &model.CorpUser{Urn: "urn:li:corpuser:ann", Type: model.EntityTypeCorpUser, Username: "ann"}}, nil
	}, version: &version}
	h := newHandler(root, slog.New(slog.DiscardHandler), Limits{})
	var throughGqlgen atomic.Int64
	h.srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		throughGqlgen.Add(1)
		return next(ctx)
	})
	const query = `{ me { corpUser { urn } } }`
	ask := func(body string, noVariables bool) string {
		r := httptest.NewRequest(http.MethodPost, "/api/graphql", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeDocument(w, r, []byte(body), query, "", noVariables)
		return w.Body.String()
	}
	plain := `{"query":"` + query + `"}`
	ask(plain, true) // gqlgen answers, and the plan is learnt
	if h.plans.get("", query) == nil {
		t.Fatal("no plan was learnt for a plain document gqlgen answered")
	}
	before := throughGqlgen.Load()
	ask(plain, true)
	if throughGqlgen.Load() != before {
		t.Fatal("the plan did not answer the plain request it was learnt from")
	}
	before = throughGqlgen.Load()
	got := ask(`{"query":"`+query+`","Query":"{ appConfig { appVersion } }"}`, false)
	if throughGqlgen.Load() == before {
		t.Errorf("a request that is not plain was answered by the plan: %s", got)
	}
}
