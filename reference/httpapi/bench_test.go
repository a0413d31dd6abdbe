package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph"
	"github.com/catalogspec/catalogspec/reference/httpapi"
	"github.com/catalogspec/catalogspec/reference/jwt"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// BenchmarkMe is `me` with a personal access token through the metadata
// service's whole handler (authentication, limits, GraphQL, the access
// log), over the cache as catalogd serves it, without the network: what a
// request costs the server. make bench measures it over the network.
func BenchmarkMe(b *testing.B) {
	db, dbURL := pgtest.Fresh(b)
	cache := postgres.NewCache(db, dbURL, slog.New(slog.DiscardHandler))
	b.Cleanup(cache.Close)
	<-cache.Ready()
	codec, err := jwt.New([]byte(strings.Repeat("s", 32)), "")
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(discard{}, nil))
	svc := reference.NewService(cache, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), Logger: logger})
	if _, err := svc.Bootstrap(context.Background(), "pw"); err != nil {
		b.Fatal(err)
	}
	token, _, err := svc.MintAccessToken(context.Background(), reference.CreateAccessTokenInput{ActorURN: reference.RootUser.String(), Name: "bench", Duration: reference.DurationOneHour})
	if err != nil {
		b.Fatal(err)
	}
	h := httpapi.NewServer(svc, graph.NewHandler(svc, "bench", logger, graph.Limits{}), db.Ping, "bench", logger).GMS()
	body := `{"query":"{ me { corpUser { urn username } } }"}`
	serve := func() *httptest.ResponseRecorder {
		// The service answers to its address (httptest's default Host,
		// example.com, is another site's name).
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/api/graphql", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if w := serve(); w.Code == 200 && strings.Contains(w.Body.String(), `"username":"datahub"`) {
			break
		} else if time.Now().After(deadline) {
			b.Fatalf("me: %d %s", w.Code, w.Body)
		}
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

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
