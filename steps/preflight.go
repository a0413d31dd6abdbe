package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
)

// preflight checks the target before any scenario runs, so that a wrong URL
// or token ends the run in seconds with one message that says what to fix,
// rather than as a hundred failing scenarios: each tier answers, each URL is
// the tier it claims to be, and the admin token is valid and holds the
// privileges the scenarios need to set up their people.
func preflight(ctx context.Context, t *runner.Target, d *Definitions) error {
	docs := d.docs
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := t.HTTPClient(10 * time.Second)
	p := preflighter{ctx: ctx, c: c, token: t.AdminToken, tokenVar: runner.EnvAdmin}

	if err := p.healthy(runner.EnvGMS, t.GMS); err != nil {
		return err
	}
	if err := p.healthy(runner.EnvFrontend, t.Frontend); err != nil {
		return err
	}
	for name, u := range map[string]string{runner.EnvNoAuth: t.NoAuthGMS, runner.EnvNoAuthFrontend: t.NoAuthFrontend, runner.EnvLater: t.LaterGMS, runner.EnvLaterFrontend: t.LaterFrontend, runner.EnvReplica: t.ReplicaGMS, runner.EnvHTTPSFrontend: t.HTTPSFrontend} {
		if u != "" {
			if err := p.healthy(name, u); err != nil {
				return err
			}
		}
	}

	if t.ReadOnly {
		return preflightReadOnly(p, t, docs)
	}

	// The admin token, at the metadata service.
	me, err := p.me(runner.EnvGMS, t.GMS+"/api/graphql", docs.me)
	if err != nil {
		return err
	}
	var missing []string
	if !me.PlatformPrivileges.ManageTokens {
		missing = append(missing, "MANAGE_ACCESS_TOKENS")
	}
	if !me.PlatformPrivileges.ManagePolicies {
		missing = append(missing, "MANAGE_POLICIES")
	}
	// The run's lock and journal are tags, and it deletes the tags it
	// made: DataHub's createTag and deleteTag allow MANAGE_TAGS.
	if !me.All["manageTags"] {
		missing = append(missing, "MANAGE_TAGS")
	}
	// The run removes the users it made (removeUser), which DataHub allows
	// only to holders of MANAGE_USERS_AND_GROUPS: without it every run would
	// leave its people behind.
	if !me.All["manageIdentities"] {
		missing = append(missing, "MANAGE_USERS_AND_GROUPS")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s belongs to %s, who lacks %s: the suite needs an administrator's token (in DataHub, the datahub user's)",
			runner.EnvAdmin, me.CorpUser.Urn, joinAnd(missing))
	}

	// Each URL is the tier it claims to be: the metadata service answers
	// /entities itself, the frontend proxies it under /api/gms.
	urn := me.CorpUser.Urn
	if err := p.entityJSON(runner.EnvGMS, t.GMS, urn,
		"is it the frontend's URL? The metadata service (GMS) answers /entities; the frontend proxies it at /api/gms/entities"); err != nil {
		return err
	}
	hint := "is it the metadata service's URL? Give the frontend's base URL, which proxies /api/gms/*"
	if h := apiSuffixHint(t.Frontend); h != "" {
		hint = h
	}
	if err := p.entityJSON(runner.EnvFrontend, t.Frontend+"/api/gms", urn, hint); err != nil {
		return err
	}
	if _, err := p.me(runner.EnvFrontend, t.Frontend+"/api/graphql", docs.me); err != nil {
		return err
	}
	// The browser pages are a capability of the frontend: the reference
	// must serve them (its @ui scenarios run and fail if it does not);
	// another target's are looked for.
	t.Pages = t.Reference || p.servesPages(t.Frontend)
	// Ada, of the read-only scenarios: the operator's user, else the
	// administrator.
	user := me
	if t.UserToken != t.AdminToken {
		if user, err = p.as(t.UserToken, runner.EnvToken).me(runner.EnvGMS, t.GMS+"/api/graphql", docs.me); err != nil {
			return err
		}
	}
	t.User, t.UserPrivileges = user.CorpUser.Urn, user.privileges()
	// The policies as they are before any scenario writes one: the
	// starting policies' editable flags are judged on this listing
	// (policy-08), since switching every user's policies off and on again
	// rewrites them through the API.
	d.startingPolicies, d.startingPoliciesErr = p.policies(t.GMS+"/api/graphql", docs.listPoliciesEditable)
	return nil
}

// policies lists every policy with its editable flag, as the administrator,
// page by page.
func (p preflighter) policies(endpoint, listPoliciesEditable string) (map[string]editableView, error) {
	const pageSize = 100
	out := map[string]editableView{}
	for start := 0; start < 100*pageSize; {
		body, _ := json.Marshal(graphQLRequest{Query: listPoliciesEditable, Variables: map[string]any{"input": map[string]any{"start": start, "count": pageSize}}})
		resp, b, err := p.do(http.MethodPost, endpoint, body, true)
		if err != nil {
			return nil, fmt.Errorf("listing the policies before the run: POST %s: %v", endpoint, plainError(err))
		}
		var a struct {
			Data struct {
				ListPolicies *struct {
					Total    int            `json:"total"`
					Policies []editableView `json:"policies"`
				} `json:"listPolicies"`
			} `json:"data"`
			Errors []graphQLError `json:"errors"`
		}
		if err := json.Unmarshal(b, &a); err != nil || resp.StatusCode != http.StatusOK || a.Data.ListPolicies == nil {
			return nil, fmt.Errorf("listing the policies before the run: POST %s answered %d: %s", endpoint, resp.StatusCode, truncate(string(b)))
		}
		page := a.Data.ListPolicies
		for _, pol := range page.Policies {
			out[pol.URN] = pol
		}
		start += len(page.Policies)
		if len(page.Policies) == 0 || start >= page.Total {
			return out, nil
		}
	}
	return nil, fmt.Errorf("listing the policies before the run: listPolicies did not come to an end after 100 pages")
}

// servesPages says whether the frontend serves the sign-in page the @ui
// scenarios drive.
func (p preflighter) servesPages(frontend string) bool {
	req, err := http.NewRequestWithContext(p.ctx, http.MethodGet, frontend+"/login", nil)
	if err != nil {
		return false
	}
	resp, err := p.c.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`data-testid="login-form"`))
}

type preflighter struct {
	ctx   context.Context
	c     *http.Client
	token string
	// tokenVar is the variable the token came from, for messages.
	tokenVar string
}

// as is p sending token, which came from the variable named.
func (p preflighter) as(token, variable string) preflighter {
	p.token, p.tokenVar = token, variable
	return p
}

// preflightReadOnly checks the target of a read-only audit with at most
// the operator's token and nothing that writes: each tier answers and is
// the tier it claims to be, and the token, when there is one, is valid at
// both; it notes whom the token stands for and what `me` says they may do.
func preflightReadOnly(p preflighter, t *runner.Target, docs documents) error {
	p = p.as(t.UserToken, runner.EnvToken)
	// Each URL is the tier it claims to be: the metadata service serves
	// /entities itself, the frontend under /api/gms. Without a token
	// either refuses (or, with authentication off, answers); neither
	// should say there is no such path.
	for _, tier := range []struct{ name, url, hint string }{
		{runner.EnvGMS, t.GMS + "/entities/" + percentEncode(runner.RootUser), "is it the frontend's URL? The metadata service (GMS) serves /entities; the frontend proxies it at /api/gms/entities"},
		{runner.EnvFrontend, t.Frontend + "/api/gms/entities/" + percentEncode(runner.RootUser), "is it the metadata service's URL? Give the frontend's base URL, which proxies /api/gms/*"},
	} {
		resp, _, err := p.do(http.MethodGet, tier.url, nil, false)
		if err != nil {
			return fmt.Errorf("%s: GET %s: %v", tier.name, tier.url, plainError(err))
		}
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			hint := tier.hint
			if h := apiSuffixHint(strings.TrimSuffix(strings.TrimSuffix(tier.url, "/entities/"+percentEncode(runner.RootUser)), "/api/gms")); h != "" {
				hint = h
			}
			return fmt.Errorf("%s: GET %s answered %d without a token, where a 401 was expected: %s", tier.name, tier.url, resp.StatusCode, hint)
		}
	}
	t.Pages = p.servesPages(t.Frontend)
	if t.UserToken == "" {
		return nil
	}
	me, err := p.me(runner.EnvGMS, t.GMS+"/api/graphql", docs.me)
	if err != nil {
		return err
	}
	if _, err := p.me(runner.EnvFrontend, t.Frontend+"/api/graphql", docs.me); err != nil {
		return err
	}
	t.User, t.UserPrivileges = me.CorpUser.Urn, me.privileges()
	return nil
}

func (p preflighter) do(method, url string, body []byte, auth bool) (*http.Response, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(p.ctx, method, url, rd)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	if auth {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := p.c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp, b, err
}

// healthy checks that base answers GET /health: not 404, not 5xx.
func (p preflighter) healthy(name, base string) error {
	resp, _, err := p.do(http.MethodGet, base+"/health", nil, false)
	if err != nil {
		var hint string
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Timeout") {
			hint = " (no answer in time)"
		}
		return fmt.Errorf("%s=%s does not answer%s: %v; is the service running there?", name, base, hint, plainError(err))
	}
	// A refusal (401, 403) is an answer: whether /health must be open is
	// a scenario's to judge, not the preflight's.
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode >= 500 {
		hint := "is it the service's base URL?"
		if h := apiSuffixHint(base); h != "" {
			hint = h
		}
		return fmt.Errorf("%s=%s: GET /health answered %d, expected an answer from the service; %s", name, base, resp.StatusCode, hint)
	}
	return nil
}

// meAnswer is what the me query says of the token's user.
type meAnswer struct {
	CorpUser struct {
		Urn string `json:"urn"`
	} `json:"corpUser"`
	PlatformPrivileges struct {
		ManageTokens   bool `json:"manageTokens"`
		ManagePolicies bool `json:"managePolicies"`
	} `json:"platformPrivileges"`
	// All is every platform privilege me reports, by its field.
	All map[string]bool `json:"-"`
}

// privileges are what me says the user may do, in the words the features
// use ("manage policies"), in a stable order.
func (m meAnswer) privileges() []string {
	var out []string
	for ability, field := range abilityFields {
		if m.All[field] {
			out = append(out, ability)
		}
	}
	slices.Sort(out)
	return out
}

// me asks who the admin token stands for at endpoint.
func (p preflighter) me(name, endpoint, doc string) (meAnswer, error) {
	var me meAnswer
	body, _ := json.Marshal(graphQLRequest{Query: doc})
	resp, b, err := p.do(http.MethodPost, endpoint, body, true)
	if err != nil {
		return me, fmt.Errorf("%s: POST %s: %v", name, endpoint, plainError(err))
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		who := "an administrator"
		if p.tokenVar != runner.EnvAdmin {
			who = "a user"
		}
		return me, fmt.Errorf("%s is refused (%d at %s): it is expired, revoked, malformed or from another deployment; mint a new personal access token for %s",
			p.tokenVar, resp.StatusCode, endpoint, who)
	default:
		return me, fmt.Errorf("%s: POST %s answered %d, expected 200 with a GraphQL answer; is %s the base URL, without /api?", name, endpoint, resp.StatusCode, name)
	}
	var a struct {
		Data struct {
			Me *meAnswer `json:"me"`
		} `json:"data"`
		Errors []graphQLError `json:"errors"`
	}
	var all struct {
		Data struct {
			Me *struct {
				PlatformPrivileges map[string]bool `json:"platformPrivileges"`
			} `json:"me"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return me, fmt.Errorf("%s: POST %s answered 200 but not GraphQL JSON (%s); is %s the base URL?", name, endpoint, contentType(resp), name)
	}
	if json.Unmarshal(b, &all) == nil && all.Data.Me != nil && a.Data.Me != nil {
		a.Data.Me.All = all.Data.Me.PlatformPrivileges
	}
	if a.Data.Me == nil || a.Data.Me.CorpUser.Urn == "" {
		msg := "no me"
		if len(a.Errors) > 0 {
			msg = a.Errors[0].Message
		}
		return me, fmt.Errorf("%s: the me query at %s gave no user (%s): is %s a personal access token?", name, endpoint, msg, p.tokenVar)
	}
	return *a.Data.Me, nil
}

// entityJSON checks that base answers the admin's read of urn, with the
// URN percent-encoded or else as written, 200 with JSON. Which forms a
// target must accept is for the scenarios to judge.
func (p preflighter) entityJSON(name, base, urn, hint string) error {
	err := p.json(name, base+"/entities/"+percentEncode(urn), hint)
	if err != nil && p.json(name, base+"/entities/"+urn, hint) == nil {
		return nil
	}
	return err
}

// json checks that url answers the admin 200 with JSON.
func (p preflighter) json(name, url, hint string) error {
	resp, _, err := p.do(http.MethodGet, url, nil, true)
	if err != nil {
		return fmt.Errorf("%s: GET %s: %v", name, url, plainError(err))
	}
	if resp.StatusCode != http.StatusOK || contentType(resp) != "application/json" {
		return fmt.Errorf("%s: GET %s answered %d %s, expected 200 with JSON: %s", name, url, resp.StatusCode, contentType(resp), hint)
	}
	return nil
}

func contentType(resp *http.Response) string {
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return "(no content type)"
	}
	return mt
}

// plainError drops the method and URL that net/http repeats in its errors.
func plainError(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && strings.Contains(err.Error(), "\": ") {
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

// apiSuffixHint says what to do with a base URL that ends in /api, "" for
// any other.
func apiSuffixHint(base string) string {
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/api") {
		return "drop the /api at its end: give the base URL; the suite adds /api/graphql and the other paths"
	}
	return ""
}

// joinAnd lists names as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
