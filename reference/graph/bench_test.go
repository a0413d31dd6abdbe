package graph

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogspec/catalogspec/reference"
)

// The GraphQL handler's own cost, without authentication, HTTP or a
// store: `me` as the system actor (whose answer reads nothing), through
// gqlgen alone (BenchmarkGqlgenAlone: the document parsed and validated
// once, as gqlgen's own cache does, and nothing else) and through
// NewHandler (BenchmarkHandlerMe: the document limits, the complexity
// limit, the budgets, the error presenter). make bench measures the same
// pair over the network (tools/bench, "gqlgen alone").

const benchMe = `{"query":"{ me { corpUser { urn username } } }"}`

func benchGraphQL(b *testing.B, h http.Handler, body string) {
	ctx := reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.SystemUser, System: true})
	serve := func() *httptest.ResponseRecorder {
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/graphql", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := serve(); w.Code != 200 || !strings.Contains(w.Body.String(), `"username":"__datahub_system"`) {
		b.Fatalf("me: %d %s", w.Code, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if w := serve(); w.Code != 200 {
				b.Errorf("me: %d %s", w.Code, w.Body)
				return
			}
		}
	})
}

func BenchmarkGqlgenAlone(b *testing.B) {
	svc := reference.NewService(nil, reference.Config{})
	srv := handler.New(NewExecutableSchema(Config{Resolvers: &Resolver{Service: svc}}))
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	benchGraphQL(b, srv, benchMe)
}

func BenchmarkHandlerMe(b *testing.B) {
	svc := reference.NewService(nil, reference.Config{})
	benchGraphQL(b, NewHandler(svc, "bench", slog.New(slog.DiscardHandler), Limits{}), benchMe)
}

// BenchmarkBare is the floor under both: a handler that decodes the JSON
// body as a GraphQL server must and answers a fixed document of the same
// shape, as tools/bench's bare handler does over the network.
func BenchmarkBare(b *testing.B) {
	answer := []byte(`{"data":{"me":{"corpUser":{"urn":"urn:li:corpuser:__datahub_system","username":"__datahub_system"}}}}`)
	benchGraphQL(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || req.Query == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}), benchMe)
}
