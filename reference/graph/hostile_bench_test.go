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

// hostileDocuments are the documents whose validation grew faster than
// their size before the fragment limits (cycles, spreads, fragments):
// validation compares the fragments that meet in one selection set
// pairwise, through every fragment each spreads, and the document check
// listed each fragment's names by walking everything it spread. Measured
// on 2 cores (issue 22) before the limits: the ring of 1,000 took 2.8 s,
// the chain of 800 from 1.9 to 7.3 s, a chain of 1,360 (71 KB) 15.6 s, the
// fan-out over 900 fragments 0.6 s, a fragment spreading itself 7,490
// times 0.2 s. Now the first four are refused in milliseconds, and the
// largest within the limits are served in tens of them.
func hostileDocuments() map[string]string {
	docs := map[string]string{}
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString("query Q { ...F0 }\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "fragment F%d on Query { a%d: __typename", i, i)
			if i < n-1 {
				fmt.Fprintf(&b, " ...F%d", i+1)
			}
			b.WriteString(" }\n")
		}
		return b.String()
	}
	fanOut := func(pool int) string {
		var b strings.Builder
		b.WriteString("query Q {")
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, " ...A%d", i)
		}
		b.WriteString(" }\n")
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, "fragment A%d on Query {", i)
			for j := 0; j < 10; j++ {
				fmt.Fprintf(&b, " ...B%d", (i*9+j*97)%pool)
			}
			b.WriteString(" }\n")
		}
		for i := 0; i < pool; i++ {
			fmt.Fprintf(&b, "fragment B%d on Query { b%d: __typename }\n", i, i)
		}
		return b.String()
	}
	var ring strings.Builder
	ring.WriteString("query Q {")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&ring, " ...F%d", i)
	}
	ring.WriteString(" }\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&ring, "fragment F%d on Query { ...F%d }\n", i, (i+1)%1000)
	}
	docs["refused/a ring of 1,000 fragments, each spread at the top"] = ring.String()
	docs["refused/a fragment spreading itself 7,490 times"] = "query Q { me { corpUser { urn } } ...F }\nfragment F on Query {" + strings.Repeat(" ...F", 7490) + " }"
	docs["refused/a chain of 800 fragments"] = chain(800)
	docs["refused/100 spreads of 10 each over 900 fragments"] = fanOut(900)
	docs["served/a chain of 250 fragments"] = chain(250)
	docs["served/100 spreads of 10 each over 148 fragments"] = fanOut(148)
	return docs
}

// BenchmarkHostileDocuments: what the most expensive fragment structures
// cost to refuse, or to serve within the limits (go test -run '^$' -bench
// HostileDocuments ./reference/graph).
func BenchmarkHostileDocuments(b *testing.B) {
	h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(io.Discard, nil)), Limits{})
	for name, doc := range hostileDocuments() {
		body := fmt.Sprintf(`{"query":%q}`, doc)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r = r.WithContext(reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser}))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				refused := strings.Contains(w.Body.String(), `"BAD_REQUEST"`)
				if refused != strings.HasPrefix(name, "refused/") {
					b.Fatalf("refused %v: %.300s", refused, w.Body.String())
				}
			}
		})
	}
}
