package graph

import (
	"context"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"

	"github.com/catalogspec/catalogspec/reference"
)

// plans are the documents gqlgen answered, by operation name and text:
// each one's plan, or nil when it has none. Bounded as the other caches of
// documents are (cache.go): at most cachedDocuments documents of at most
// maxCachedDocument bytes; past that, one is forgotten for each one
// learnt.
type plans struct {
	mu sync.RWMutex
	m  map[planKey]*plan
}

type planKey struct{ operationName, query string }

func newPlans() *plans { return &plans{m: map[planKey]*plan{}} }

func (c *plans) get(operationName, query string) *plan {
	c.mu.RLock()
	p := c.m[planKey{operationName, query}]
	c.mu.RUnlock()
	return p
}

func (c *plans) known(operationName, query string) bool {
	c.mu.RLock()
	_, ok := c.m[planKey{operationName, query}]
	c.mu.RUnlock()
	return ok
}

func (c *plans) add(operationName, query string, p *plan) {
	if len(query) > maxCachedDocument {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= cachedDocuments {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[planKey{operationName, query}] = p
}

// planRecorder gives each document gqlgen answered without an error its
// plan (nil when it has none), once.
type planRecorder struct{ plans *plans }

var (
	_ graphql.HandlerExtension    = planRecorder{}
	_ graphql.ResponseInterceptor = planRecorder{}
)

func (planRecorder) ExtensionName() string                   { return "Plans" }
func (planRecorder) Validate(graphql.ExecutableSchema) error { return nil }

func (e planRecorder) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || len(resp.Errors) > 0 || resp.Data == nil || !graphql.HasOperationContext(ctx) {
		return resp
	}
	op := graphql.GetOperationContext(ctx)
	if op.Operation == nil || e.plans.known(op.OperationName, op.RawQuery) {
		return resp
	}
	e.plans.add(op.OperationName, op.RawQuery, compilePlan(op.Operation))
	return resp
}

// planBuffers hold answers while plans write them.
var planBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// serveByPlan answers r by p, as gqlgen would, and says whether it did:
// when it did not, nothing was written.
func (h *Handler) serveByPlan(w http.ResponseWriter, r *http.Request, p *plan) (served bool) {
	ctx := r.Context()
	buf := planBuffers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= 64<<10 {
			planBuffers.Put(buf)
		}
	}()
	var sizesOf [8]int
	b, sizes, ok := h.runPlan(ctx, p, append((*buf)[:0], `{"data":`...), sizesOf[:0])
	*buf = b[:0]
	if !ok {
		return false
	}
	// The budgets of the answer, as budget.go counts them for gqlgen:
	// each root field's value against the response's bytes, what it read
	// against the read budget, and what it holds against the bytes in
	// flight.
	memory := reference.MemoryFromContext(ctx)
	total := 0
	for _, n := range sizes {
		total += n
	}
	if total > h.maxBytes || memory.ReadRefusal() != nil {
		return false
	}
	for _, n := range sizes {
		if n > len(limitWriter{}.first) {
			if memory.Hold(int64(n)) != nil {
				return false
			}
		}
	}
	b = append(b, '}')
	*buf = b[:0]
	w.Header().Add("Content-Type", responseContentType(r))
	_, _ = w.Write(b)
	return true
}

// runPlan runs p, a panic in a resolver being the plan's "cannot answer"
// (gqlgen then runs the request, and presents the panic its own way).
func (h *Handler) runPlan(ctx context.Context, p *plan, b []byte, sizes []int) (_ []byte, _ []int, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
		}
	}()
	return p.execute(ctx, h.resolver, b, sizes)
}

// responseContentType is the media type gqlgen's POST transport answers
// with for r's Accept header (transport/headers.go,
// determineResponseContentType, with neither of its options set).
func responseContentType(r *http.Request) string {
	const json, graphqlJSON = "application/json", "application/graphql-response+json"
	accept := r.Header.Get("Accept")
	if accept == "" {
		return json
	}
	for part := range strings.SplitSeq(accept, ",") {
		mediaType, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case "*/*", "application/*", json:
			return json
		case graphqlJSON:
			return graphqlJSON
		}
	}
	return graphqlJSON
}
