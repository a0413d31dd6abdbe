package httpapi_test

import (
	"context"
	"encoding/json"
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
