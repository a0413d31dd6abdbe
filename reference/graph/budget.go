package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/catalogspec/catalogspec/reference"
)

// Response budgets. The document limits (limits.go) and DataHub's
// complexity limit count each field once, whatever it returns; a page of
// stored records is where an answer grows: listAccessTokens(count: 1000)
// under a few hundred aliases once built a quarter of a gigabyte. Two
// budgets bound what one request can make the service build:
//
//   - cost, before anything runs: each field counts once for every time it
//     can occur in the answer, so a field inside a page counts once per item
//     the page may return (its input's count), and the page once more per
//     item it fetches. DataHub's own complexity calculator counts a paged
//     field's count the same way for its lineage searches.
//   - bytes, as the answer is built: the root fields of a query run one at
//     a time, each written out as it completes; past the budget nothing more
//     is run or kept, and the answer is one error naming the limit.
//   - bytes read, as the fields fetch (issue 29): what the resolvers read
//     from the store on the caller's behalf counts against the request's
//     read budget (reference's memory.go), whatever the answer shows of it:
//     24 pages of 1,000 tokens asking only their total read 333 MB for a
//     576-byte answer. Past the budget the read stops, and the answer is
//     one error naming the limit (readBytes). The answer's bytes are held
//     as the request's too, against the process-wide bound.
//
// Mutations are not held to the byte budget (an effect that happened is
// never answered with "too large"): they select no page of stored records,
// and their size is bounded by the complexity limit and what one record
// may hold.

// DefaultMaxCost and DefaultMaxResponseBytes are the budgets unless the
// Limits say otherwise. A page of 1,000 tokens with every field costs
// 11,004 and a page of 1,000 policies with every field 18,004; the answers
// of the contract's operations are a few hundred kilobytes at most.
const (
	DefaultMaxCost          = 25_000
	DefaultMaxResponseBytes = 8 << 20
)

// maxPage is the largest count a paged field serves; a larger one is
// refused by the service itself, with its own message.
const maxPage = 1000

// defaultPage is a paged field's count when the input gives none.
const defaultPage = 20

type budgetExtension struct {
	maxCost  int
	maxBytes int
	schema   *ast.Schema
}

var (
	_ graphql.HandlerExtension        = (*budgetExtension)(nil)
	_ graphql.OperationContextMutator = (*budgetExtension)(nil)
	_ graphql.RootFieldInterceptor    = (*budgetExtension)(nil)
	_ graphql.ResponseInterceptor     = (*budgetExtension)(nil)
)

func (*budgetExtension) ExtensionName() string { return "ResponseBudget" }

func (e *budgetExtension) Validate(s graphql.ExecutableSchema) error {
	e.schema = s.Schema()
	return nil
}

// MutateOperationContext refuses an operation whose cost is past the
// budget, before anything runs.
func (e *budgetExtension) MutateOperationContext(_ context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	if rc.Operation == nil {
		return nil
	}
	c := coster{schema: e.schema, vars: rc.Variables, limit: e.maxCost}
	if cost := c.set(rc.Operation.SelectionSet, 1, 0); cost > e.maxCost {
		return refusal(fmt.Sprintf("the answer could hold more than %d values: each field inside a page counts once for every item the page's count asks for (limit: cost); ask for smaller pages, or fewer of them", e.maxCost))
	}
	return nil
}

// coster computes an operation's cost; past limit the exact figure does
// not matter, so it stops growing there.
type coster struct {
	schema *ast.Schema
	vars   map[string]any
	limit  int
}

func (c *coster) cap(n int) int { return min(n, c.limit+1) }

// set is the cost of a selection set whose fields each occur times times;
// page, when the set is a paged field's, is how many items each of its
// list fields may hold. Fragments are expanded where they are spread: the
// document limits have bounded what that expansion stands for, and cycles
// were refused.
func (c *coster) set(set ast.SelectionSet, times, page int) int {
	total := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			each := times
			if page > 0 && isList(s) {
				each = c.cap(times * page)
			}
			total = c.cap(total + c.field(s, each))
		case *ast.InlineFragment:
			total = c.cap(total + c.set(s.SelectionSet, times, page))
		case *ast.FragmentSpread:
			if s.Definition != nil {
				total = c.cap(total + c.set(s.Definition.SelectionSet, times, page))
			}
		}
		if total > c.limit {
			return total
		}
	}
	return total
}

// field is the cost of a field that occurs times times: itself, the items
// it fetches when it is a page, and its selections.
func (c *coster) field(f *ast.Field, times int) int {
	cost := times
	page := c.pageSize(f)
	if page > 0 {
		cost = c.cap(cost + times*page)
	}
	return c.cap(cost + c.set(f.SelectionSet, times, page))
}

// isList says whether f's type is a list.
func isList(f *ast.Field) bool {
	return f.Definition != nil && f.Definition.Type != nil && f.Definition.Type.Elem != nil
}

// pageSize is the count a paged field asks for (its input object's count,
// defaultPage when none, at most maxPage), or 0 when f is not paged.
func (c *coster) pageSize(f *ast.Field) int {
	if f.Definition == nil || c.schema == nil {
		return 0
	}
	arg := f.Definition.Arguments.ForName("input")
	if arg == nil || arg.Type == nil {
		return 0
	}
	def := c.schema.Types[arg.Type.Name()]
	if def == nil || def.Fields.ForName("count") == nil {
		return 0
	}
	input, _ := f.ArgumentMap(c.vars)["input"].(map[string]any)
	n := defaultPage
	switch v := input["count"].(type) {
	case int:
		n = v
	case int32:
		n = int(v)
	case int64:
		n = int(min(v, maxPage))
	case float64:
		n = int(min(v, maxPage))
	case json.Number:
		if i, err := v.Int64(); err == nil {
			n = int(min(i, maxPage))
		}
	}
	switch {
	case n == 0:
		n = defaultPage
	case n < 0:
		n = 0 // refused by the service before it fetches anything
	}
	return min(n, maxPage)
}

// budget is one query's spending of the byte budget.
type budget struct {
	mu     sync.Mutex
	left   int
	over   bool
	memory *reference.Memory // the request's account, nil when none
}

type budgetKey struct{}

// InterceptResponse gives a query its byte budget, and answers one error
// naming the limit in place of an answer that went past it.
func (e *budgetExtension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if op := graphql.GetOperationContext(ctx); op == nil || op.Operation == nil || op.Operation.Operation != ast.Query {
		return next(ctx)
	}
	b := &budget{left: e.maxBytes, memory: reference.MemoryFromContext(ctx)}
	resp := next(context.WithValue(ctx, budgetKey{}, b))
	b.mu.Lock()
	over := b.over
	b.mu.Unlock()
	if over {
		return &graphql.Response{Errors: gqlerror.List{refusal(fmt.Sprintf("the answer would be larger than %d bytes (limit: responseBytes); ask for smaller pages, or fewer fields", e.maxBytes))}}
	}
	if err := b.memory.ReadRefusal(); err != nil {
		return &graphql.Response{Errors: gqlerror.List{refusal(reference.ErrorMessageOf(err))}}
	}
	return resp
}

// InterceptRootField runs a query's root fields one at a time, writing
// each out as it completes, so that what a field fetched is let go before
// the next runs and the answer is never built past the budget.
func (e *budgetExtension) InterceptRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	b, ok := ctx.Value(budgetKey{}).(*budget)
	if !ok {
		return next(ctx)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over || b.memory.ReadRefusal() != nil {
		return graphql.Null
	}
	m := next(ctx)
	w := newLimitWriter(b.left)
	m.MarshalGQL(w)
	if w.over {
		b.over = true
		return graphql.Null
	}
	b.left -= w.n
	if w.n > len(w.first) {
		// What the answer holds is the request's, against the bound on
		// what the requests in flight hold.
		if err := b.memory.Hold(int64(w.n)); err != nil {
			graphql.AddError(ctx, err)
			return graphql.Null
		}
	}
	return rendered{w}
}

// limitWriter keeps what is written until left is spent, then nothing. It
// keeps it in blocks of a fixed size, so that growing never copies what it
// holds (a doubling buffer allocates twice an answer's size as it goes);
// the first block and the list of blocks are part of it, so that a small
// answer costs one allocation.
type limitWriter struct {
	blocks [][]byte
	n      int
	left   int
	over   bool
	first  [512]byte
	list   [4][]byte
}

const blockSize = 64 << 10

func newLimitWriter(left int) *limitWriter {
	w := &limitWriter{left: left}
	w.blocks = append(w.list[:0], w.first[:0])
	return w
}

func (w *limitWriter) Write(p []byte) (int, error) {
	n := len(p)
	if w.over {
		return n, nil
	}
	if n > w.left-w.n {
		w.over, w.blocks = true, nil
		return n, nil
	}
	w.n += n
	for len(p) > 0 {
		k := len(w.blocks)
		if last := w.blocks[k-1]; len(last) == cap(last) {
			// Blocks double up to blockSize: a small answer stays small.
			w.blocks = append(w.blocks, make([]byte, 0, min(blockSize, 2*cap(last))))
			k++
		}
		last := w.blocks[k-1]
		take := min(cap(last)-len(last), len(p))
		w.blocks[k-1] = append(last, p[:take]...)
		p = p[take:]
	}
	return n, nil
}

// WriteString is Write without the copy io.WriteString would make (gqlgen
// writes every string value with it).
func (w *limitWriter) WriteString(s string) (int, error) {
	n := len(s)
	if w.over {
		return n, nil
	}
	if n > w.left-w.n {
		w.over, w.blocks = true, nil
		return n, nil
	}
	w.n += n
	for len(s) > 0 {
		k := len(w.blocks)
		if last := w.blocks[k-1]; len(last) == cap(last) {
			w.blocks = append(w.blocks, make([]byte, 0, min(blockSize, 2*cap(last))))
			k++
		}
		last := w.blocks[k-1]
		take := min(cap(last)-len(last), len(s))
		w.blocks[k-1] = append(last, s[:take]...)
		s = s[take:]
	}
	return n, nil
}

// rendered is a root field already written out.
type rendered struct{ w *limitWriter }

func (r rendered) MarshalGQL(w io.Writer) {
	for _, b := range r.w.blocks {
		_, _ = w.Write(b)
	}
}
