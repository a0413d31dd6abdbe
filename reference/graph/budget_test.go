package graph

import (
	"context"
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

// graphQLAnswer is a response as a client reads it.
type graphQLAnswer struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// askWith sends a document to a handler of limits l with no service
// behind it (a resolver that runs fails, and is logged as failing), and
// returns the answer, its raw body and the log.
func askWith(t *testing.T, l Limits, query, operation string, vars map[string]any) (graphQLAnswer, string, string) {
	t.Helper()
	var logs strings.Builder
	h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(&logs, nil)), l)
	body, _ := json.Marshal(map[string]any{"query": query, "operationName": operation, "variables": vars})
	r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r = r.WithContext(reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var a graphQLAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatalf("the answer is not JSON: %.300s", w.Body.String())
	}
	return a, w.Body.String(), logs.String()
}

// refusedFor says whether a is the refusal of one limit alone: one
// BAD_REQUEST naming it, no data.
func refusedFor(a graphQLAnswer, limit string) bool {
	return a.Data == nil && len(a.Errors) == 1 && strings.Contains(a.Errors[0].Message, "limit: "+limit) &&
		a.Errors[0].Extensions["type"] == "BAD_REQUEST" && a.Errors[0].Extensions["code"] == float64(400)
}

// TestCostAtItsLimit: a document's cost is counted exactly, however its
// pages are asked for: the count as a literal, in a variable given or left
// to its default, in an input object given as a variable, left out, out of
// range; the pages under several aliases of one field, under different
// root fields, through fragments and inline fragments, their items'
// lists; one operation of several. Each document is answered under a
// budget of exactly its cost and refused under one less, before anything
// runs (no resolver is called: none is logged as failing).
//
// A page of n tokens selecting { total tokens { urn name } } costs
// 1 (the field) + n (the items it fetches) + 1 (total) + n (tokens) + 2n
// (urn and name of each): 2 + 4n.
func TestCostAtItsLimit(t *testing.T) {
	tokens := func(count string) string {
		return "listAccessTokens(input: {count: " + count + "}) { total tokens { urn name } }"
	}
	const (
		// 1 + 5 + 1 (total) + 5 × (policies, urn, privileges, actors, users) = 32
		policies = "listPolicies(input: {count: 5}) { total policies { urn privileges actors { users } } }"
		// 1 + 2 + 2 × (users, urn, username) = 9
		users = "listUsers(input: {count: 2}) { users { urn username } }"
		// 1 + 4 + 1 (total) + 4 × (searchResults, entity, urn, matchedFields, name) = 26
		scroll = `scrollAcrossEntities(input: {query: "*", count: 4}) { total searchResults { entity { urn } matchedFields { name } } }`
		// 3: no page
		me = "me { corpUser { urn } }"
	)
	cases := []struct {
		name, query, operation string
		vars                   map[string]any
		cost                   int
	}{
		{"a count of 7", "{ " + tokens("7") + " }", "", nil, 30},
		{"a count of 7 in a variable", "query Q($n: Int) { " + tokens("$n") + " }", "", map[string]any{"n": 7}, 30},
		{"a count of 7 as a variable's default", "query Q($n: Int = 7) { " + tokens("$n") + " }", "", nil, 30},
		{"a count of 7 in a variable whose default is 3", "query Q($n: Int = 3) { " + tokens("$n") + " }", "", map[string]any{"n": 7}, 30},
		{"a variable left out: 20", "query Q($n: Int) { " + tokens("$n") + " }", "", nil, 82},
		{"a variable given as null: 20", "query Q($n: Int) { " + tokens("$n") + " }", "", map[string]any{"n": nil}, 82},
		{"a count of 7 in an input variable", "query Q($in: ListAccessTokenInput!) { listAccessTokens(input: $in) { total tokens { urn name } } }", "", map[string]any{"in": map[string]any{"count": 7}}, 30},
		{"a count of 7 in an input variable's default", "query Q($in: ListAccessTokenInput! = {count: 7}) { listAccessTokens(input: $in) { total tokens { urn name } } }", "", nil, 30},
		{"an input variable given over its default", "query Q($in: ListAccessTokenInput! = {count: 7}) { listAccessTokens(input: $in) { total tokens { urn name } } }", "", map[string]any{"in": map[string]any{"count": 3}}, 14},
		{"no count: 20", "{ listAccessTokens(input: {}) { total tokens { urn name } } }", "", nil, 82},
		{"a count of 0: 20", "{ " + tokens("0") + " }", "", nil, 82},
		{"a count of 1,001: 1,000", "{ " + tokens("1001") + " }", "", nil, 4002},
		{"a count of 5,000 in a variable: 1,000", "query Q($n: Int) { " + tokens("$n") + " }", "", map[string]any{"n": 5000}, 4002},
		// A negative count is refused by the service: no page is fetched,
		// each field counts once.
		{"a count of -1", "{ " + tokens("-1") + " }", "", nil, 5},
		{"a count of -1 in a variable", "query Q($n: Int) { " + tokens("$n") + " }", "", map[string]any{"n": -1}, 5},
		// An input with no count is no page: each field counts once.
		{"an input without a count", "{ getInviteToken(input: {}) { inviteToken } }", "", nil, 2},
		{"three aliases of pages of 3, 7 and 1", "{ a: " + tokens("3") + " b: " + tokens("7") + " c: " + tokens("1") + " }", "", nil, 14 + 30 + 6},
		{"the same, two counts from variables (one a default)", "query Q($a: Int, $b: Int = 7) { a: " + tokens("$a") + " b: " + tokens("$b") + " c: " + tokens("1") + " }", "", map[string]any{"a": 3}, 14 + 30 + 6},
		{"different root fields", "{ " + tokens("3") + " " + policies + " " + users + " " + scroll + " " + me + " }", "", nil, 14 + 32 + 9 + 26 + 3},
		{"pages in a fragment on Query", "{ ...Pages c: " + tokens("1") + " }\nfragment Pages on Query { a: " + tokens("3") + " b: " + tokens("7") + " }", "", nil, 14 + 30 + 6},
		{"a page in an inline fragment on Query", "{ ... on Query { a: " + tokens("3") + " } b: " + tokens("7") + " }", "", nil, 44},
		{"one fragment of items in two pages", "{ a: listAccessTokens(input: {count: 3}) { total tokens { ...T } } b: listAccessTokens(input: {count: 7}) { total tokens { ...T } } }\nfragment T on AccessTokenMetadata { urn name }", "", nil, 44},
		{"a page's list through a fragment", "{ listAccessTokens(input: {count: 7}) { ...R } }\nfragment R on ListAccessTokenResult { total tokens { ...T } }\nfragment T on AccessTokenMetadata { urn name }", "", nil, 30},
		{"a page's list through an inline fragment", "{ listAccessTokens(input: {count: 7}) { ... on ListAccessTokenResult { total tokens { urn name } } } }", "", nil, 30},
		{"the operation run, not the other", "query A { " + tokens("3") + " }\nquery B { a: " + tokens("7") + " b: " + tokens("7") + " }", "A", nil, 14},
		{"the other operation run", "query A { " + tokens("3") + " }\nquery B { a: " + tokens("7") + " b: " + tokens("7") + " }", "B", nil, 60},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, body, logs := askWith(t, Limits{Cost: c.cost}, c.query, c.operation, c.vars)
			if refusedFor(a, "cost") || !strings.Contains(logs, "panic in resolver") {
				t.Errorf("at a budget of its cost, %d: refused, or nothing ran: %.300s", c.cost, body)
			}
			a, body, logs = askWith(t, Limits{Cost: c.cost - 1}, c.query, c.operation, c.vars)
			if !refusedFor(a, "cost") || strings.Contains(logs, "panic in resolver") {
				t.Errorf("at a budget of %d, one less than its cost: want one BAD_REQUEST naming the cost, no data, nothing run: %.300s", c.cost-1, body)
			}
		})
	}
}

// TestResponseBytesAtItsLimit: a query's answer is counted against the
// byte budget whole, every root field of it, however they are asked for:
// several aliases of one field, different fields, through fragments, a
// type named by a variable. Each document is answered whole under a
// budget of exactly the bytes of its root fields' values and refused
// under one less, with one error naming the limit and no data; once the
// budget is spent, the root fields after it are not run. The root fields
// here are questions about the schema, which need no service.
func TestResponseBytesAtItsLimit(t *testing.T) {
	const (
		tokenType = `__type(name: "AccessTokenMetadata") { name fields { name } }`
		queryType = `__type(name: "Query") { name }`
		schema    = `__schema { queryType { name } mutationType { name } }`
	)
	cases := []struct {
		name, query string
		vars        map[string]any
	}{
		{"one root field", "{ a: " + tokenType + " }", nil},
		{"three aliases of one field", "{ a: " + tokenType + " b: " + queryType + " c: " + tokenType + " }", nil},
		{"different root fields", "{ a: " + tokenType + " s: " + schema + " }", nil},
		{"root fields through a fragment", "{ ...F s: " + schema + " }\nfragment F on Query { a: " + tokenType + " ... on Query { b: " + queryType + " } }", nil},
		{"a type named by a variable", `query Q($t: String!) { a: __type(name: $t) { name fields { name } } b: ` + queryType + " }", map[string]any{"t": "Policy"}},
		{"a type named by a variable's default", `query Q($t: String! = "ListPoliciesResult") { a: __type(name: $t) { name fields { name } } b: ` + queryType + " }", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			whole, body, _ := askWith(t, Limits{}, c.query, "", c.vars)
			if len(whole.Errors) != 0 || len(whole.Data) == 0 {
				t.Fatalf("under the default budget: %.300s", body)
			}
			size := 0
			for _, v := range whole.Data {
				size += len(v)
			}
			a, body, _ := askWith(t, Limits{ResponseBytes: size}, c.query, "", c.vars)
			if len(a.Errors) != 0 || len(a.Data) != len(whole.Data) {
				t.Errorf("at a budget of its %d bytes: %.300s; want it whole", size, body)
			}
			for k, v := range whole.Data {
				if string(a.Data[k]) != string(v) {
					t.Errorf("at a budget of its %d bytes, %s is %.100s; want %.100s", size, k, a.Data[k], v)
				}
			}
			a, body, _ = askWith(t, Limits{ResponseBytes: size - 1}, c.query, "", c.vars)
			if !refusedFor(a, "responseBytes") {
				t.Errorf("at a budget of %d, one byte less than its answer: %.300s; want one BAD_REQUEST naming responseBytes and no data", size-1, body)
			}
		})
	}

	// The root fields after the budget is spent are not run: here the
	// resolver of me, which fails with no service behind it.
	first, _, _ := askWith(t, Limits{}, "{ a: "+tokenType+" }", "", nil)
	size := len(first.Data["a"])
	a, body, logs := askWith(t, Limits{ResponseBytes: size - 1}, "{ a: "+tokenType+" m: me { corpUser { urn } } }", "", nil)
	if !refusedFor(a, "responseBytes") || strings.Contains(logs, "panic in resolver") {
		t.Errorf("a root field past a spent budget: %.300s; want the refusal alone, me not run (%d bytes logged)", body, len(logs))
	}
	_, body, logs = askWith(t, Limits{ResponseBytes: size + len("null")}, "{ a: "+tokenType+" m: me { corpUser { urn } } }", "", nil)
	if !strings.Contains(logs, "panic in resolver") {
		t.Errorf("within the budget, me was not run: %.300s", body)
	}
	// A mutation is never held to it: what it did is answered.
	if a, body, _ := askWith(t, Limits{ResponseBytes: 1}, `mutation { a: revokeAccessToken(tokenId: "x") }`, "", nil); refusedFor(a, "responseBytes") {
		t.Errorf("a mutation under a budget of 1 byte: %.300s; want it run", body)
	}
}

// TestNoRootFieldRunsPastTheReadBudget: once a request has read past its
// read budget, its answer is the refusal naming it, and the root fields
// not yet run are not run (here me, whose resolver fails with no service
// behind it).
func TestNoRootFieldRunsPastTheReadBudget(t *testing.T) {
	for _, over := range []bool{false, true} {
		var logs strings.Builder
		h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(&logs, nil)), Limits{})
		m := reference.NewMemoryPool(0).Open(100)
		defer m.Close()
		if over {
			if err := reference.ChargeRead(reference.Metered(reference.NewContextWithMemory(context.Background(), m)), 101); err == nil {
				t.Fatal("a read of 101 bytes within a budget of 100")
			}
		}
		r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(`{"query":"{ m: me { corpUser { urn } } }"}`))
		r.Header.Set("Content-Type", "application/json")
		r = r.WithContext(reference.NewContextWithMemory(reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser}), m))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var a graphQLAnswer
		_ = json.Unmarshal(w.Body.Bytes(), &a)
		ran := strings.Contains(logs.String(), "panic in resolver")
		if over && (!refusedFor(a, "readBytes") || ran) {
			t.Errorf("past the read budget: %.300s, me run: %v; want the refusal alone, nothing run", w.Body.String(), ran)
		}
		if !over && (refusedFor(a, "readBytes") || !ran) {
			t.Errorf("within the read budget: %.300s, me run: %v; want me run", w.Body.String(), ran)
		}
	}
}

// TestLimitWriter: what is written is kept whole, in few blocks, until the
// limit, whichever way it is written; a write past the limit, a string's
// too, marks the writer over and drops what it held, and nothing after it
// is kept.
func TestLimitWriter(t *testing.T) {
	w := newLimitWriter(1 << 20)
	var want strings.Builder
	for i := range 1000 {
		s := string(rune('a' + i%26))
		if i%2 == 0 {
			_, _ = w.WriteString(s)
		} else {
			_, _ = w.Write([]byte(s))
		}
		want.WriteString(s)
	}
	if len(w.blocks) > 2 {
		t.Fatalf("1,000 bytes written in %d blocks; want 2 (of 512 and 1,024 bytes)", len(w.blocks))
	}
	// The second block exactly full, then a string.
	_, _ = w.Write([]byte(strings.Repeat("z", 1536-1000)))
	want.WriteString(strings.Repeat("z", 1536-1000))
	_, _ = w.WriteString("end")
	want.WriteString("end")
	var got strings.Builder
	rendered{w}.MarshalGQL(&got)
	if got.String() != want.String() || w.n != want.Len() || w.over {
		t.Errorf("kept %d bytes (counted %d, over %v), want the %d written", got.Len(), w.n, w.over, want.Len())
	}

	for _, write := range []func(*limitWriter, string){
		func(w *limitWriter, s string) { _, _ = w.WriteString(s) },
		func(w *limitWriter, s string) { _, _ = w.Write([]byte(s)) },
	} {
		w := newLimitWriter(5)
		write(w, "abc")
		write(w, "de")
		if w.over || w.n != 5 {
			t.Errorf("5 bytes under a limit of 5: over %v, counted %d", w.over, w.n)
		}
		write(w, "f")
		write(w, "")
		if !w.over || w.blocks != nil {
			t.Errorf("a sixth byte under a limit of 5: over %v, %d blocks held; want over, nothing held", w.over, len(w.blocks))
		}
	}
}

// TestAnswerHeldAgainstBytesInFlight: a root field's answer, past the
// request's first MiB, is held against the bound on bytes in flight; one
// the bound cannot hold is not answered, and the request is answered 503
// with Retry-After and the error, as the other API paths answer.
func TestAnswerHeldAgainstBytesInFlight(t *testing.T) {
	pool := reference.NewMemoryPool(1) // a byte: no request holds more than its first MiB
	m := pool.Open(1 << 30)
	defer m.Close()
	if err := m.Hold(reference.FreeBytes); err != nil {
		t.Fatalf("holding the first MiB: %v", err)
	}
	h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(io.Discard, nil)), Limits{})
	body, _ := json.Marshal(map[string]any{"query": "{ __schema { types { name } } }"})
	r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	ctx := reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser})
	r = r.WithContext(reference.NewContextWithMemory(ctx, m))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var a graphQLAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatalf("the answer is not JSON: %.300s", w.Body.String())
	}
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || len(a.Errors) == 0 || strings.Contains(w.Body.String(), `"types"`) {
		t.Errorf("an answer the bound cannot hold: status %d, Retry-After %q: %.300s; want 503, Retry-After, an error and no types", w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
}
