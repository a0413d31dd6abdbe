package graph

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// TestComplexityLimitIsDataHubs: a query costing more than DataHub's
// default complexity limit (2,000, one for each field selected) is refused
// before anything runs; one costing exactly 2,000 is not, nor with 1,000
// type names besides. The documents are well within the size limits,
// which are checked first.
func TestComplexityLimitIsDataHubs(t *testing.T) {
	alias := func(b *strings.Builder, i int, fields string) {
		fmt.Fprintf(b, " a%d: me { corpUser { %s } }", i, fields)
	}
	var over, at strings.Builder
	for i := 0; i < 667; i++ { // 667 × 3 = 2,001
		alias(&over, i, "urn")
	}
	for i := 0; i < 664; i++ { // 664 × 3 + 2 × 4 = 2,000
		alias(&at, i, "urn")
	}
	alias(&at, 664, "urn username")
	alias(&at, 665, "urn username")

	ask := func(doc string) string {
		h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(io.Discard, nil)), Limits{})
		r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(fmt.Sprintf(`{"query":%q}`, "{"+doc+" }")))
		r.Header.Set("Content-Type", "application/json")
		r = r.WithContext(reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Body.String()
	}
	if body := ask(over.String()); !strings.Contains(body, "complexity 2001") || !strings.Contains(body, "limit of 2000") || strings.Contains(body, "SERVER_ERROR") {
		t.Errorf("a query of complexity 2,001: %.300s; want it refused for its complexity, nothing run", body)
	}
	// With no service behind it, a query that runs fails in its resolvers:
	// that is how this one shows it was let through.
	if body := ask(at.String()); strings.Contains(body, "complexity") || !strings.Contains(body, "SERVER_ERROR") {
		t.Errorf("a query of complexity 2,000: %.300s; want it run", body)
	}
	// DataHub counts nothing for __typename (graphql-java's complexity
	// calculation skips it), wherever it is asked.
	var names strings.Builder
	for i := range 500 {
		fmt.Fprintf(&names, " t%d: __typename", i)
	}
	typed := strings.Replace(at.String(), "urn }", "urn"+names.String()+" }", 1) + names.String()
	if body := ask(typed); strings.Contains(body, "complexity") || !strings.Contains(body, "SERVER_ERROR") {
		t.Errorf("a query of complexity 2,000 with 1,000 type names besides: %.300s; want it run", body)
	}
}
