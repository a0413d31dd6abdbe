package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/catalogspec/catalogspec/reference"
)

// Limits bound the size of a GraphQL document before the expensive passes
// (validation, complexity, execution) see it. Every count is taken after
// fragment expansion, with each fragment's count computed once, so a
// document of a few hundred bytes whose fragments spread each other cannot
// stand for billions of fields. Zero fields take the defaults.
type Limits struct {
	// Tokens bounds the lexical tokens of the document.
	Tokens int
	// Fields bounds the fields the document selects once fragments are
	// expanded.
	Fields int
	// Depth bounds how deeply selections nest.
	Depth int
	// SameName bounds how often one response name occurs in one selection
	// set (validation compares those pairwise).
	SameName int
	// Spreads bounds the fragment spreads of one selection set, through
	// its inline fragments (validation compares them pairwise).
	Spreads int
	// Fragments bounds the fragments a document defines (validation
	// compares the fragments that meet in one selection set pairwise,
	// through every fragment they spread).
	Fragments int
	// Errors bounds how many errors one response reports.
	Errors int
	// Cost bounds the values an answer could hold, each field inside a
	// page counted once per item the page may return (budget.go).
	Cost int
	// ResponseBytes bounds the bytes of a query's answer (budget.go).
	ResponseBytes int
	// NoIntrospection turns the schema's introspection (__schema, __type)
	// off, for operators who would rather not publish it.
	NoIntrospection bool
}

// DefaultLimits are far above any operation of the contract and of
// DataHub's own clients (the introspection query, the deepest of them, nests
// 13 levels and selects under 200 fields), no lower than DataHub's own (a
// depth of 50, GRAPHQL_QUERY_DEPTH_LIMIT), and far below what costs a
// noticeable amount of time or memory to refuse.
var DefaultLimits = Limits{Tokens: 15000, Fields: 5000, Depth: 50, SameName: 100, Spreads: 100, Fragments: 250, Errors: 50, Cost: DefaultMaxCost, ResponseBytes: DefaultMaxResponseBytes}

// IntrospectionDepth bounds the nesting of an operation that asks about
// the schema (__schema or __type at its top level): 20, as the good-faith
// introspection check of graphql-java (GoodFaithIntrospection, on by
// default since version 22; DataHub runs 22.3) bounds it in DataHub. The
// introspection query nests 13 levels; a document that nests the schema's
// types deeper costs the server far more than it costs the sender.
const IntrospectionDepth = 20

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Tokens > 0 {
		d.Tokens = l.Tokens
	}
	if l.Fields > 0 {
		d.Fields = l.Fields
	}
	if l.Depth > 0 {
		d.Depth = l.Depth
	}
	if l.SameName > 0 {
		d.SameName = l.SameName
	}
	if l.Spreads > 0 {
		d.Spreads = l.Spreads
	}
	if l.Fragments > 0 {
		d.Fragments = l.Fragments
	}
	if l.Errors > 0 {
		d.Errors = l.Errors
	}
	if l.Cost > 0 {
		d.Cost = l.Cost
	}
	if l.ResponseBytes > 0 {
		d.ResponseBytes = l.ResponseBytes
	}
	d.NoIntrospection = l.NoIntrospection
	return d
}

// limitsExtension applies Limits in gqlgen: the document is checked before
// gqlgen parses and validates it, and a response's errors are capped. A
// document found within the limits is remembered by its text (and
// operation name), so that a client repeating it pays only for the check
// of its variables.
type limitsExtension struct {
	limits   Limits
	accepted graphql.Cache[struct{}]
}

var (
	_ graphql.HandlerExtension          = limitsExtension{}
	_ graphql.OperationParameterMutator = limitsExtension{}
	_ graphql.ResponseInterceptor       = limitsExtension{}
)

func (limitsExtension) ExtensionName() string                   { return "DocumentLimits" }
func (limitsExtension) Validate(graphql.ExecutableSchema) error { return nil }
func (e limitsExtension) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	key := p.OperationName + "\x00" + p.Query
	if _, ok := e.accepted.Get(ctx, key); ok {
		if reference.HoldsNUL(p.Variables) {
			return nulRefusal()
		}
		return nil
	}
	if err := CheckDocument(p.Query, p.OperationName, p.Variables, e.limits); err != nil {
		return err
	}
	e.accepted.Add(ctx, key, struct{}{})
	return nil
}

func (e limitsExtension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp != nil && len(resp.Errors) > e.limits.Errors {
		more := len(resp.Errors) - e.limits.Errors
		resp.Errors = append(resp.Errors[:e.limits.Errors:e.limits.Errors], refusal(fmt.Sprintf("%d more errors are not shown (at most %d are reported)", more, e.limits.Errors)))
	}
	return resp
}

func refusal(msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": 400, "type": "BAD_REQUEST"}}
}

// CheckDocument refuses a document that exceeds l, names an operation it
// does not hold, has fragments that spread themselves, or carries U+0000 in
// a string (in the document or in its variables). Its messages name the
// limit and quote at most a short prefix of the client's input.
func CheckDocument(query, operationName string, variables map[string]any, l Limits) *gqlerror.Error {
	l = l.withDefaults()
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, l.Tokens)
	if err != nil {
		if ge, ok := err.(*gqlerror.Error); ok {
			if strings.HasPrefix(ge.Message, "exceeded token limit") {
				ge.Message = fmt.Sprintf("the document has more than %d tokens (limit: tokens)", l.Tokens)
			}
			// The parser quotes the token it did not expect, whole.
			if r := []rune(ge.Message); len(r) > 160 {
				ge.Message = string(r[:160]) + "…"
			}
			ge.Extensions = map[string]any{"code": 400, "type": "BAD_REQUEST"}
			return ge
		}
		return refusal("the document could not be parsed")
	}
	if operationName != "" && doc.Operations.ForName(operationName) == nil {
		return refusal("the document has no operation named " + reference.Excerpt(operationName))
	}
	if len(doc.Fragments) > l.Fragments {
		return refusal(fmt.Sprintf("the document defines more than %d fragments (limit: fragments)", l.Fragments))
	}
	defs := make(map[string]*ast.FragmentDefinition, len(doc.Fragments))
	for _, f := range doc.Fragments {
		if _, dup := defs[f.Name]; !dup {
			defs[f.Name] = f
		}
	}
	// Validation refuses a fragment cycle too, but only after passes whose
	// cost grows with the cycle's length times the spreads that reach it
	// (a ring of 1,000 fragments took seconds): refused here first, in
	// one pass over the spreads.
	if err := refuseCycles(doc, defs); err != nil {
		return err
	}
	c := counter{defs: defs, limits: l, fragments: map[string]*cost{}, names: map[string][]string{}}
	for _, op := range doc.Operations {
		// collect refuses a set past the fields or depth limit as it goes.
		total, err := c.selectionSet(op.SelectionSet)
		if err != nil {
			return err
		}
		runs := operationName == "" || op.Name == operationName
		if runs && total.depth > IntrospectionDepth && asksIntrospection(op.SelectionSet, defs, map[string]bool{}) {
			return refusal(fmt.Sprintf("a question about the schema (__schema or __type) may nest selections at most %d levels deep (limit: introspection depth)", IntrospectionDepth))
		}
		for _, v := range op.VariableDefinitions {
			if hasNUL(v.DefaultValue) {
				return nulRefusal()
			}
		}
	}
	for _, f := range doc.Fragments {
		if _, err := c.fragment(f.Name); err != nil {
			return err
		}
	}
	if c.nul || reference.HoldsNUL(variables) {
		return nulRefusal()
	}
	return nil
}

func nulRefusal() *gqlerror.Error {
	return refusal("string values may not contain U+0000 (NUL)")
}

// cost is what a selection set stands for once expanded.
type cost struct{ fields, depth int }

type counter struct {
	defs      map[string]*ast.FragmentDefinition // the fragments by name
	limits    Limits
	fragments map[string]*cost
	names     map[string][]string
	nul       bool
}

// topNamesOf is topNames of a fragment, computed once.
func (c *counter) topNamesOf(f *ast.FragmentDefinition) []string {
	if n, ok := c.names[f.Name]; ok {
		return n
	}
	var n []string
	topNames(f.SelectionSet, c.defs, map[string]bool{f.Name: true}, &n)
	c.names[f.Name] = n
	return n
}

// cap keeps counts from overflowing: past the limit the exact figure does
// not matter.
func (c *counter) cap(n int) int { return min(n, c.limits.Fields+1) }

func (c *counter) selectionSet(set ast.SelectionSet) (cost, *gqlerror.Error) {
	var total cost
	names := map[string]int{}
	spreads := 0
	if err := c.collect(set, names, &spreads, &total); err != nil {
		return cost{}, err
	}
	return total, nil
}

// collect adds set's fields to total and counts its response names and its
// fragment spreads, descending into fragments (whose fields merge into this
// selection set) but not into sub-selections (which are sets of their own).
func (c *counter) collect(set ast.SelectionSet, names map[string]int, spreads *int, total *cost) *gqlerror.Error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			name := s.Alias
			if name == "" {
				name = s.Name
			}
			names[name]++
			if names[name] > c.limits.SameName {
				return c.sameNameRefusal(name)
			}
			for _, a := range s.Arguments {
				c.nul = c.nul || hasNUL(a.Value)
			}
			sub, err := c.selectionSet(s.SelectionSet)
			if err != nil {
				return err
			}
			total.fields = c.cap(total.fields + 1 + sub.fields)
			total.depth = max(total.depth, 1+sub.depth)
		case *ast.InlineFragment:
			if err := c.collect(s.SelectionSet, names, spreads, total); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			// Validation compares the spreads of one set pairwise, each
			// pair through every fragment they spread in turn.
			if *spreads++; *spreads > c.limits.Spreads {
				return refusal(fmt.Sprintf("one selection set spreads fragments more than %d times (limit: spreads)", c.limits.Spreads))
			}
			fc, err := c.fragment(s.Name)
			if err != nil {
				return err
			}
			// The fragment's own response names merge here too; counting
			// them once per spread keeps the check linear: a fragment
			// spread n times adds its names n times.
			if f := c.defs[s.Name]; f != nil {
				for _, n := range c.topNamesOf(f) {
					names[n]++
					if names[n] > c.limits.SameName {
						return c.sameNameRefusal(n)
					}
				}
			}
			total.fields = c.cap(total.fields + fc.fields)
			total.depth = max(total.depth, fc.depth)
		}
		if total.fields > c.limits.Fields {
			return refusal(fmt.Sprintf("the document selects more than %d fields once its fragments are expanded (limit: fields)", c.limits.Fields))
		}
		if total.depth > c.limits.Depth {
			return refusal(fmt.Sprintf("the document nests selections deeper than %d levels (limit: depth)", c.limits.Depth))
		}
	}
	return nil
}

func (c *counter) sameNameRefusal(name string) *gqlerror.Error {
	return refusal(fmt.Sprintf("the response name %s occurs more than %d times in one selection set (limit: sameName)", reference.Excerpt(name), c.limits.SameName))
}

// fragment returns the expanded cost of a named fragment, computed once.
// An unknown fragment costs nothing here: validation reports it. (A cycle
// was refused before counting began.)
func (c *counter) fragment(name string) (cost, *gqlerror.Error) {
	if fc, ok := c.fragments[name]; ok {
		return *fc, nil
	}
	f := c.defs[name]
	if f == nil {
		return cost{}, nil
	}
	fc := &cost{}
	c.fragments[name] = fc
	sub, err := c.selectionSet(f.SelectionSet)
	if err != nil {
		return cost{}, err
	}
	*fc = sub
	return sub, nil
}

// asksIntrospection says whether a selection set selects __schema or __type
// itself, or through inline fragments and spreads (each fragment once).
func asksIntrospection(set ast.SelectionSet, defs map[string]*ast.FragmentDefinition, seen map[string]bool) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Name == "__schema" || s.Name == "__type" {
				return true
			}
		case *ast.InlineFragment:
			if asksIntrospection(s.SelectionSet, defs, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			if f := defs[s.Name]; f != nil && asksIntrospection(f.SelectionSet, defs, seen) {
				return true
			}
		}
	}
	return false
}

// topNames appends to out the response names a selection set contributes
// to its parent, through inline fragments and spreads (each fragment once).
func topNames(set ast.SelectionSet, defs map[string]*ast.FragmentDefinition, seen map[string]bool, out *[]string) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Alias != "" {
				*out = append(*out, s.Alias)
			} else {
				*out = append(*out, s.Name)
			}
		case *ast.InlineFragment:
			topNames(s.SelectionSet, defs, seen, out)
		case *ast.FragmentSpread:
			if seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			if f := defs[s.Name]; f != nil {
				topNames(f.SelectionSet, defs, seen, out)
			}
		}
	}
}

// refuseCycles refuses a fragment that spreads itself, directly or through
// others, anywhere in its selections (GraphQL spec 5.5.2.2). Each fragment
// and each spread is visited once.
func refuseCycles(doc *ast.QueryDocument, defs map[string]*ast.FragmentDefinition) *gqlerror.Error {
	const (
		unvisited = iota
		inProgress
		done
	)
	state := make(map[string]int, len(defs))
	var visit func(name string) *gqlerror.Error
	var walk func(set ast.SelectionSet) *gqlerror.Error
	walk = func(set ast.SelectionSet) *gqlerror.Error {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if err := walk(s.SelectionSet); err != nil {
					return err
				}
			case *ast.InlineFragment:
				if err := walk(s.SelectionSet); err != nil {
					return err
				}
			case *ast.FragmentSpread:
				if err := visit(s.Name); err != nil {
					return err
				}
			}
		}
		return nil
	}
	visit = func(name string) *gqlerror.Error {
		f := defs[name]
		if f == nil {
			return nil // an unknown fragment: validation reports it
		}
		switch state[name] {
		case inProgress:
			return refusal(fmt.Sprintf("the fragment %s spreads itself, directly or through other fragments; fragments may not form cycles", reference.Excerpt(name)))
		case done:
			return nil
		}
		state[name] = inProgress
		if err := walk(f.SelectionSet); err != nil {
			return err
		}
		state[name] = done
		return nil
	}
	for _, f := range doc.Fragments {
		if err := visit(f.Name); err != nil {
			return err
		}
	}
	return nil
}

func hasNUL(v *ast.Value) bool {
	if v == nil {
		return false
	}
	if (v.Kind == ast.StringValue || v.Kind == ast.BlockValue || v.Kind == ast.EnumValue) && strings.ContainsRune(v.Raw, 0) {
		return true
	}
	for _, ch := range v.Children {
		if strings.ContainsRune(ch.Name, 0) || hasNUL(ch.Value) {
			return true
		}
	}
	return false
}
