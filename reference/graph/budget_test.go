package graph

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// TestCostCountsPages: a field inside a page counts once for every item
// the page may return, and the page once more per item it fetches,
// whether the count is a literal, a variable or the default, and through
// fragments. A query within the budget is let through (with no service
// behind the handler its resolvers fail, which is how it shows it ran);
// one past it is refused before anything runs, naming the limit.
func TestCostCountsPages(t *testing.T) {
	h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(io.Discard, nil)), Limits{Cost: 11004})
	ask := func(query string, vars map[string]any) string {
		t.Helper()
		body := fmt.Sprintf(`{"query":%q,"variables":%s}`, query, jsonOf(vars))
		r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r = r.WithContext(reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Body.String()
	}
	const all = "urn type id name description actorUrn ownerUrn createdAt expiresAt"
	page := func(count string, fields string) string {
		return fmt.Sprintf("listAccessTokens(input: {count: %s}) { start count total tokens { %s } }", count, fields)
	}
	cases := []struct {
		name, query string
		vars        map[string]any
		refused     bool
	}{
		// 1 + 1,000 fetched + start, count, total + tokens 1,000 + 9 × 1,000 = 11,004
		{"a page of 1,000 with every field (11,004)", "{ " + page("1000", all) + " }", nil, false},
		{"the same page with one more field (11,005)", "{ " + page("1000", all) + " me { corpUser { urn } } }", nil, true},
		{"the count in a variable", "query Q($n: Int) { " + page("$n", all) + " x: __typename }", map[string]any{"n": 1000}, true},
		{"the count in an input variable", "query Q($in: ListAccessTokenInput!) { listAccessTokens(input: $in) { start count total tokens { " + all + " } } x: __typename }", map[string]any{"in": map[string]any{"count": 1000}}, true},
		{"the page's list through a fragment", "{ listAccessTokens(input: {count: 1000}) { ...P } x: __typename }\nfragment P on ListAccessTokenResult { start count total tokens { " + all + " } }", nil, true},
		{"the items through an inline fragment", "{ listAccessTokens(input: {count: 1000}) { start count total tokens { ... on AccessTokenMetadata { " + all + " } } } x: __typename }", nil, true},
		// A page fetches its items whatever it selects: 11 × (1 + 1,000 + 1) = 11,022.
		{"eleven pages of 1,000 selecting only the total", "{" + aliases(11, "listAccessTokens(input: {count: 1000}) { total }") + " }", nil, true},
		{"ten pages of 1,000 selecting only the total", "{" + aliases(10, "listAccessTokens(input: {count: 1000}) { total }") + " }", nil, false},
		// Without a count a page holds 20: 1 + 20 + 3 + 20 + 180 = 224 each.
		{"49 default pages", "{" + aliases(49, "listAccessTokens(input: {}) { start count total tokens { "+all+" } }") + " }", nil, false},
		{"50 default pages", "{" + aliases(50, "listAccessTokens(input: {}) { start count total tokens { "+all+" } }") + " }", nil, true},
		// A count past the largest page costs what 1,000 does: the service
		// refuses it with its own message.
		{"a count of 5,000", "{ " + page("5000", all) + " }", nil, false},
		{"a policy page of 1,000 with every field", "{ listPolicies(input: {count: 1000}) { start count total policies { urn type name state description privileges actors { users groups resourceOwners allUsers allGroups } resources { type resources allResources } } } }", nil, true},
	}
	for _, c := range cases {
		body := ask(c.query, c.vars)
		refused := strings.Contains(body, "limit: cost")
		if refused != c.refused {
			t.Errorf("%s: refused %v, want %v: %.300s", c.name, refused, c.refused, body)
		}
		if refused && (strings.Contains(body, "SERVER_ERROR") || !strings.Contains(body, "BAD_REQUEST")) {
			t.Errorf("%s: the refusal is not a bad request alone: %.300s", c.name, body)
		}
	}
	// The default admits a page of 1,000 policies with every field (18,004).
	d := NewHandler(nil, "test", slog.New(slog.NewTextHandler(io.Discard, nil)), Limits{})
	h = d
	if body := ask(cases[len(cases)-1].query, nil); strings.Contains(body, "limit: cost") {
		t.Errorf("the default budget refuses a page of 1,000 policies: %.300s", body)
	}
}

func aliases(n int, field string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	return b.String()
}

func jsonOf(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
