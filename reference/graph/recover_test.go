package graph

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// TestResolverPanicIsAServerError: a resolver that panics (here, over no
// service at all) answers one SERVER_ERROR with the fixed message, and
// neither the panic's text nor a stack trace reaches the client.
func TestResolverPanicIsAServerError(t *testing.T) {
	var logs strings.Builder
	h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(&logs, nil)), Limits{})
	r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(`{"query":"{ me { corpUser { urn } } }"}`))
	r.Header.Set("Content-Type", "application/json")
	r = r.WithContext(reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body := w.Body.String()
	if !strings.Contains(body, `"SERVER_ERROR"`) || !strings.Contains(body, reference.InternalMessage) {
		t.Errorf("a resolver's panic answered %d %s; want a SERVER_ERROR with %q", w.Code, body, reference.InternalMessage)
	}
	for _, leak := range []string{"nil pointer", "goroutine", ".go:"} {
		if strings.Contains(body, leak) {
			t.Errorf("the answer shows %q: %s", leak, body)
		}
	}
	if !strings.Contains(logs.String(), "panic in resolver") {
		t.Errorf("the panic was not logged: %s", logs.String())
	}
}
