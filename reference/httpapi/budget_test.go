package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph"
	"github.com/catalogspec/catalogspec/reference/httpapi"
)

// TestResponseBytesBudget: a query's answer stops at the byte budget, its
// root fields counted together, and is then one error naming the limit
// with no data; an answer within it is whole. A mutation is never refused
// for its answer's size: what it did is answered.
func TestResponseBytesBudget(t *testing.T) {
	const budget = 100_000
	tr := start(t, true)
	logger := slog.New(slog.NewTextHandler(tr.logs, nil))
	api := httpapi.NewServer(tr.svc, graph.NewHandler(tr.svc, "test", logger, graph.Limits{ResponseBytes: budget}), testDB.Ping, "test", logger)
	gms := httptest.NewServer(api.GMS())
	t.Cleanup(gms.Close)

	// Twelve tokens whose descriptions JSON writes six bytes a character:
	// about 12.3 KB each in an answer.
	name := "budget-" + uuid.NewString()
	description := strings.Repeat("\x01", 2048)
	for i := 0; i < 12; i++ {
		if _, _, err := tr.svc.MintAccessToken(context.Background(), reference.CreateAccessTokenInput{
			ActorURN: reference.RootUser.String(), Name: name, Description: description, Duration: reference.DurationOneHour,
		}); err != nil {
			t.Fatal(err)
		}
	}
	page := func(count int) string {
		return `listAccessTokens(input: {count: ` + strconv.Itoa(count) + `, filters: [{field: "name", values: ["` + name + `"]}]}) { tokens { description } }`
	}
	type answer struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	ask := func(query string) (int, answer, int) {
		t.Helper()
		r := do(t, "POST", gms.URL+"/api/graphql", tr.rootToken, "application/json", gql(query, nil))
		var a answer
		if err := json.Unmarshal([]byte(r.body), &a); err != nil {
			t.Fatalf("not JSON: %.300s", r.body)
		}
		return r.status, a, len(r.body)
	}
	refused := func(what string, status int, a answer, size int) {
		t.Helper()
		if status != 200 || a.Data != nil || len(a.Errors) != 1 || !strings.Contains(a.Errors[0].Message, "limit: responseBytes") || a.Errors[0].Extensions["type"] != "BAD_REQUEST" {
			t.Errorf("%s: HTTP %d, %d errors, data %v: want one BAD_REQUEST naming responseBytes and no data", what, status, len(a.Errors), a.Data != nil)
		}
		if size > 1000 {
			t.Errorf("%s: the refusal is %d bytes", what, size)
		}
	}
	status, a, size := ask("{ " + page(12) + " }")
	refused("one page of 12 (about 148 KB)", status, a, size)

	status, a, size = ask("{ a: " + page(4) + " b: " + page(4) + " }")
	if status != 200 || len(a.Errors) != 0 || len(a.Data) != 2 || size < 98_000/2 {
		t.Errorf("two pages of 4 (about 98 KB): HTTP %d, %d errors, %d fields, %d bytes; want both answered whole", status, len(a.Errors), len(a.Data), size)
	}
	var got struct {
		Tokens []struct{ Description string }
	}
	_ = json.Unmarshal(a.Data["a"], &got)
	if len(got.Tokens) != 4 || got.Tokens[0].Description != description {
		t.Errorf("two pages of 4: the first holds %d tokens; want 4 with their descriptions whole", len(got.Tokens))
	}
	status, a, size = ask("{ a: " + page(4) + " b: " + page(4) + " c: " + page(1) + " }")
	refused("three pages of 4, 4 and 1 (about 111 KB)", status, a, size)

	// A mutation whose answer is larger than the budget is answered.
	m := `mutation {`
	for i := 0; i < 9; i++ {
		m += ` m` + strconv.Itoa(i) + `: createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_HOUR, name: "` + name + `-m", description: "` + strings.Repeat(`\u0001`, 2048) + `"}) { metadata { description } }`
	}
	status, a, _ = ask(m + " }")
	if status != 200 || len(a.Errors) != 0 || len(a.Data) != 9 {
		t.Errorf("nine token creations (about 110 KB answered): HTTP %d, %d errors, %d answers; want all nine answered", status, len(a.Errors), len(a.Data))
	}
}

// TestBudgetsCountEveryRootField: the answer's bytes and the bytes read
// from the store are counted over the whole request, every root field of
// it, whether a page's count is a literal, a variable, a variable's
// default or in an input variable. Each budget is met exactly: the query
// is answered whole under a budget of exactly what it takes (the bytes of
// its root fields' values; the bytes of the token records its four pages
// read, reckoned from the store) and refused under one less, with one
// error naming the limit and no data.
func TestBudgetsCountEveryRootField(t *testing.T) {
	tr := start(t, true)
	logger := slog.New(slog.NewTextHandler(tr.logs, nil))
	serve := func(l graph.Limits, readBytes int64) string {
		api := httpapi.NewServer(tr.svc, graph.NewHandler(tr.svc, "test", logger, l), testDB.Ping, "test", logger)
		api.SetMemoryLimits(0, readBytes)
		gms := httptest.NewServer(api.GMS())
		t.Cleanup(gms.Close)
		return gms.URL
	}
	name := "budgets-" + uuid.NewString()
	for i := 0; i < 8; i++ {
		if _, _, err := tr.svc.MintAccessToken(context.Background(), reference.CreateAccessTokenInput{
			ActorURN: reference.RootUser.String(), Name: name, Description: strings.Repeat("\x01", 512), Duration: reference.DurationOneHour,
		}); err != nil {
			t.Fatal(err)
		}
	}
	filters := `filters: [{field: "name", values: ["` + name + `"]}]`
	const query = `query P($a: Int, $b: Int = 3, $in: ListAccessTokenInput!) {
		x: listAccessTokens(input: {count: 2, FILTERS}) { tokens { description } }
		y: listAccessTokens(input: {count: $a, FILTERS}) { tokens { description } }
		z: listAccessTokens(input: {count: $b, FILTERS}) { tokens { description } }
		w: listAccessTokens(input: $in) { total tokens { description } }
		m: me { corpUser { urn } }
	}`
	body := gql(strings.ReplaceAll(query, "FILTERS", filters), map[string]any{
		"a":  1,
		"in": map[string]any{"count": 2, "filters": []any{map[string]any{"field": "name", "values": []string{name}}}},
	})
	pages := map[string]int{"x": 2, "y": 1, "z": 3, "w": 2}
	type answer struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	ask := func(url string) (answer, string) {
		t.Helper()
		r := do(t, "POST", url+"/api/graphql", tr.rootToken, "application/json", body)
		var a answer
		if r.status != 200 || json.Unmarshal([]byte(r.body), &a) != nil {
			t.Fatalf("HTTP %d: %.300s", r.status, r.body)
		}
		return a, r.body
	}
	whole := func(what string, a answer, raw string) {
		t.Helper()
		if len(a.Errors) != 0 || len(a.Data) != 5 {
			t.Fatalf("%s: %.300s; want every root field answered", what, raw)
		}
		for field, n := range pages {
			var p struct {
				Tokens []struct{ Description string }
			}
			if err := json.Unmarshal(a.Data[field], &p); err != nil || len(p.Tokens) != n {
				t.Errorf("%s: %s holds %d tokens (%v); want %d", what, field, len(p.Tokens), err, n)
			}
		}
	}
	refused := func(what string, a answer, raw, limit string) {
		t.Helper()
		if a.Data != nil || len(a.Errors) != 1 || !strings.Contains(a.Errors[0].Message, "limit: "+limit) || a.Errors[0].Extensions["type"] != "BAD_REQUEST" {
			t.Errorf("%s: %.300s; want one BAD_REQUEST naming %s and no data", what, raw, limit)
		}
	}

	a, raw := ask(serve(graph.Limits{}, 0))
	whole("under the default budgets", a, raw)
	size := 0
	for _, v := range a.Data {
		size += len(v)
	}
	a, raw = ask(serve(graph.Limits{ResponseBytes: size}, 0))
	whole(fmt.Sprintf("under a byte budget of its %d bytes", size), a, raw)
	a, raw = ask(serve(graph.Limits{ResponseBytes: size - 1}, 0))
	refused(fmt.Sprintf("under a byte budget of %d, one less", size-1), a, raw, "responseBytes")

	// The bytes read: pages of users, whose root fields may be null, so
	// that a refusal that let the other root fields be answered would
	// show. Each page reads its users' keys, newest first.
	prefix := "budgets-" + uuid.NewString()[:8]
	for i := 0; i < 5; i++ {
		info, _ := json.Marshal(map[string]any{"active": true, "fullName": strings.Repeat("n", 100)})
		proposal, _ := json.Marshal(map[string]any{"proposal": map[string]any{
			"entityType": "corpuser", "entityUrn": fmt.Sprintf("urn:li:corpuser:%s-%d", prefix, i), "changeType": "UPSERT",
			"aspectName": "corpUserInfo", "aspect": map[string]any{"value": string(info), "contentType": "application/json"},
		}})
		if r := do(t, "POST", tr.gms.URL+"/aspects?action=ingestProposal", tr.rootToken, "application/json", string(proposal)); r.status != 200 {
			t.Fatalf("making a user: HTTP %d %.300s", r.status, r.body)
		}
	}
	body = gql(`query U($n: Int, $in: ListUsersInput = {count: 1, query: "`+prefix+`"}) {
		u: listUsers(input: {count: 2, query: "`+prefix+`"}) { users { urn } }
		v: listUsers(input: {count: $n, query: "`+prefix+`"}) { users { urn } }
		w: listUsers(input: $in) { users { urn } }
		m: me { corpUser { urn } }
	}`, map[string]any{"n": 3})
	pages = map[string]int{"u": 2, "v": 3, "w": 1}
	read := int64(0)
	for _, n := range pages {
		keys, _, err := testDB.ListAspects(context.Background(), reference.Filter{
			EntityType: reference.EntityCorpUser, Aspect: reference.AspectCorpUserKey,
			Contains: map[string]string{"username": prefix}, Count: n,
		})
		if err != nil || len(keys) != n {
			t.Fatalf("reading %d keys: %d, %v", n, len(keys), err)
		}
		for _, k := range keys {
			read += int64(reference.AspectBytes(k))
		}
	}
	users := func(what string, a answer, raw string) {
		t.Helper()
		if len(a.Errors) != 0 || len(a.Data) != 4 {
			t.Fatalf("%s: %.300s; want every root field answered", what, raw)
		}
		for field, n := range pages {
			var p struct{ Users []struct{ URN string } }
			if err := json.Unmarshal(a.Data[field], &p); err != nil || len(p.Users) != n {
				t.Errorf("%s: %s holds %d users (%v); want %d", what, field, len(p.Users), err, n)
			}
		}
	}
	a, raw = ask(serve(graph.Limits{}, read))
	users(fmt.Sprintf("under a read budget of the %d bytes its pages read", read), a, raw)
	a, raw = ask(serve(graph.Limits{}, read-1))
	refused(fmt.Sprintf("under a read budget of %d, one less", read-1), a, raw, "readBytes")
}
