package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// Operator names a kind of mutation.
type Operator string

// The operators. Each changes one token or one small span of the source;
// everything else stays byte-identical.
const (
	OpCompare    Operator = "compare"     // == ↔ !=, < ↔ <=, > ↔ >=
	OpLogical    Operator = "logical"     // && ↔ ||
	OpNegate     Operator = "negate"      // if c → if !(c)
	OpRemoveNot  Operator = "remove-not"  // !x → x
	OpReturnNil  Operator = "return-nil"  // return …, err → return …, nil
	OpPrivilege  Operator = "privilege"   // PrivCreateTags → PrivManageTags
	OpInt        Operator = "int"         // n → n+1, 0 ↔ 1
	OpDeleteCall Operator = "delete-call" // f(x) → (nothing)
	OpBool       Operator = "bool"        // true ↔ false
)

// Mutant is one change to one file.
type Mutant struct {
	ID   int    // 1-based, in file order then source order, over every target file
	File string // slash path relative to the module root
	Line int
	Col  int
	Func string // enclosing function, e.g. (*Service).CreateTag; "var x" at package level
	Op   Operator
	Desc string // one line, e.g. "`==` → `!=`"
	N    int    // occurrence of (File, Func, Desc), from 1
	Src  string // the source line, trimmed, for reports

	Start, End int    // byte range of the original replaced
	Repl       string // what replaces it

	// Site is the smallest expression or statement around the change that
	// a schema build can switch at run time (see schema.go); its Kind is
	// siteNone when it cannot, and the mutant is then built on its own.
	Site site
}

// site is a byte range of the source and what it holds.
type site struct {
	Start, End int
	Kind       siteKind
}

type siteKind int

const (
	siteNone  siteKind = iota
	siteBool           // an expression of type bool
	siteError          // the error a return statement gives back
	siteStmt           // a call statement
)

// Key identifies a mutant across runs without its line number: file,
// enclosing function, description and occurrence index.
func (m *Mutant) Key() string {
	return fmt.Sprintf("%s %s: %s #%d", m.File, m.Func, m.Desc, m.N)
}

// Pos is file:line:col.
func (m *Mutant) Pos() string { return fmt.Sprintf("%s:%d:%d", m.File, m.Line, m.Col) }

// Name is the mutant's id as printed, e.g. m007.
func (m *Mutant) Name() string { return fmt.Sprintf("m%03d", m.ID) }

// Apply returns src with the mutation made.
func (m *Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)-(m.End-m.Start)+len(m.Repl))
	out = append(out, src[:m.Start]...)
	out = append(out, m.Repl...)
	return append(out, src[m.End:]...)
}

// compareSwap and logicalSwap are the binary operator replacements.
var compareSwap = map[token.Token]token.Token{
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
}

var logicalSwap = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}

// privilegeSwaps lists, for each privilege constant, the ones a mistaken
// check would most likely name instead: the neighbours of the same policy
// type.
var privilegeSwaps = map[string][]string{
	"PrivCreateTags":           {"PrivManageTags"},
	"PrivManageTags":           {"PrivCreateTags"},
	"PrivManageAccessTokens":   {"PrivGenerateAccessTokens", "PrivManagePolicies"},
	"PrivGenerateAccessTokens": {"PrivManageAccessTokens"},
	"PrivManagePolicies":       {"PrivManageAccessTokens"},
	"PrivEditEntity":           {"PrivViewEntityPage", "PrivDeleteEntity"},
	"PrivViewEntityPage":       {"PrivEditEntity"},
	"PrivGetEntity":            {"PrivEditEntity"},
	"PrivDeleteEntity":         {"PrivEditEntity"},
}

// logMethods are the methods of a logger (log/slog, log) whose calls are
// never mutated nor deleted.
var logMethods = map[string]bool{
	"Debug": true, "Info": true, "Warn": true, "Error": true,
	"DebugContext": true, "InfoContext": true, "WarnContext": true, "ErrorContext": true,
	"Log": true, "LogAttrs": true,
	"Print": true, "Printf": true, "Println": true,
	"Fatal": true, "Fatalf": true, "Fatalln": true,
}

// Generate returns the mutants of one file, numbered from 1 in source
// order (the caller renumbers across files). file is the name used in
// positions and keys.
func Generate(file string, src []byte) ([]*Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := &generator{fset: fset, file: file, src: src, tf: fset.File(f.Pos())}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body != nil {
				g.fn = funcName(d)
				g.walk(d.Body, []*ast.FuncType{d.Type})
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue // const decls, types and imports stay as they are
			}
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				names := make([]string, len(vs.Names))
				for i, n := range vs.Names {
					names[i] = n.Name
				}
				g.fn = "var " + strings.Join(names, ",")
				for _, v := range vs.Values {
					g.walk(v, nil)
				}
			}
		}
	}
	sort.SliceStable(g.out, func(i, j int) bool { return g.out[i].Start < g.out[j].Start })
	seen := map[string]int{}
	for i, m := range g.out {
		m.ID = i + 1
		k := m.Func + "\x00" + m.Desc
		seen[k]++
		m.N = seen[k]
	}
	return g.out, nil
}

type generator struct {
	fset *token.FileSet
	tf   *token.File
	file string
	src  []byte
	fn   string
	out  []*Mutant
	// quiet are byte ranges whose literals are not mutated: the values
	// returned beside a non-nil error, which callers ignore.
	quiet [][2]int
}

// walk visits n with the stack of enclosing function types (for returns).
func (g *generator) walk(n ast.Node, funcs []*ast.FuncType) {
	var stack []ast.Node
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		if !g.visit(n, parent, &funcs) {
			return false
		}
		stack = append(stack, n)
		return true
	})
}

// visit records the mutants at n and says whether to descend into it.
func (g *generator) visit(n, parent ast.Node, funcs *[]*ast.FuncType) bool {
	switch n := n.(type) {
	case *ast.FuncLit:
		// Its body's returns belong to it; walk it apart and stop here.
		inner := append(append([]*ast.FuncType(nil), *funcs...), n.Type)
		g.walk(n.Body, inner)
		return false
	case *ast.GenDecl:
		return n.Tok != token.CONST
	case *ast.ArrayType:
		return false // [32]byte: a length is part of a type
	case *ast.CallExpr:
		if isLogCall(n) || isErrorText(n) {
			return false
		}
	case *ast.BinaryExpr:
		defer g.site(len(g.out), n, siteBool)
		if to, ok := compareSwap[n.Op]; ok {
			g.add(n.OpPos, OpCompare, g.offset(n.OpPos), g.offset(n.OpPos)+len(n.Op.String()), to.String(),
				fmt.Sprintf("`%s` → `%s`", n.Op, to))
		}
		if to, ok := logicalSwap[n.Op]; ok {
			g.add(n.OpPos, OpLogical, g.offset(n.OpPos), g.offset(n.OpPos)+len(n.Op.String()), to.String(),
				fmt.Sprintf("`%s` → `%s`", n.Op, to))
		}
	case *ast.UnaryExpr:
		if n.Op == token.NOT {
			defer g.site(len(g.out), n, siteBool)
			g.add(n.OpPos, OpRemoveNot, g.offset(n.OpPos), g.offset(n.OpPos)+1, "",
				fmt.Sprintf("`%s` → `%s`", g.short(n), g.short(n.X)))
		}
	case *ast.IfStmt:
		g.negate(n.Cond)
	case *ast.ForStmt:
		if n.Cond != nil {
			g.negate(n.Cond)
		}
	case *ast.SwitchStmt:
		if n.Tag == nil {
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					g.negate(e)
				}
			}
		}
	case *ast.ReturnStmt:
		g.returnNil(n, *funcs)
	case *ast.ExprStmt:
		if call, ok := n.X.(*ast.CallExpr); ok && !isLogCall(call) && !isErrorText(call) {
			if t := exprText(call.Fun); t != "panic" && t != "os.Exit" {
				// Left out, panic and os.Exit would leave a function
				// without its terminating statement.
				defer g.site(len(g.out), n, siteStmt)
			}
			g.add(n.Pos(), OpDeleteCall, g.offset(n.Pos()), g.offset(n.End()), "",
				fmt.Sprintf("delete `%s`", g.callSummary(call)))
		}
	case *ast.BasicLit:
		if n.Kind == token.INT {
			g.intLit(n)
		}
	case *ast.Ident:
		switch n.Name {
		case "true", "false":
			defer g.site(len(g.out), n, siteBool)
			to := map[string]string{"true": "false", "false": "true"}[n.Name]
			g.add(n.Pos(), OpBool, g.offset(n.Pos()), g.offset(n.End()), to, fmt.Sprintf("`%s` → `%s`", n.Name, to))
		default:
			g.privilege(n, n, parent)
		}
	case *ast.SelectorExpr:
		// reference.PrivX outside package reference: swap the selector.
		if x, ok := n.X.(*ast.Ident); ok && x.Name == "reference" {
			g.privilege(n.Sel, n, parent)
		}
		return true
	}
	return true
}

// negate wraps a condition in !( ). A comparison or a !x is left to the
// operators that already flip it.
func (g *generator) negate(cond ast.Expr) {
	if b, ok := cond.(*ast.BinaryExpr); ok {
		if _, cmp := compareSwap[b.Op]; cmp {
			return
		}
	}
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		return
	}
	start, end := g.offset(cond.Pos()), g.offset(cond.End())
	defer g.site(len(g.out), cond, siteBool)
	g.add(cond.Pos(), OpNegate, start, end, "!("+string(g.src[start:end])+")",
		fmt.Sprintf("negate `%s`", g.short(cond)))
}

// returnNil replaces the error a return statement gives back with nil,
// when the function's last result is an error and the value is not nil.
func (g *generator) returnNil(r *ast.ReturnStmt, funcs []*ast.FuncType) {
	if len(funcs) == 0 || len(r.Results) == 0 {
		return
	}
	ft := funcs[len(funcs)-1]
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return
	}
	count := 0
	for _, f := range ft.Results.List {
		count += max(1, len(f.Names))
	}
	last := ft.Results.List[len(ft.Results.List)-1]
	if id, ok := last.Type.(*ast.Ident); !ok || id.Name != "error" || count != len(r.Results) {
		return
	}
	e := r.Results[len(r.Results)-1]
	if id, ok := e.(*ast.Ident); ok && id.Name == "nil" {
		return
	}
	defer g.site(len(g.out), e, siteError)
	g.add(e.Pos(), OpReturnNil, g.offset(e.Pos()), g.offset(e.End()), "nil",
		fmt.Sprintf("return `%s` → `nil`", g.short(e)))
	for _, other := range r.Results[:len(r.Results)-1] {
		g.quiet = append(g.quiet, [2]int{g.offset(other.Pos()), g.offset(other.End())})
	}
}

// privilege swaps a Priv* identifier used as a call argument, an index or
// an element of a composite literal.
func (g *generator) privilege(id *ast.Ident, expr ast.Expr, parent ast.Node) {
	swaps, ok := privilegeSwaps[id.Name]
	if !ok || strings.HasPrefix(g.fn, "var ") {
		return // package-level lists such as PlatformPrivileges stay
	}
	used := false
	switch p := parent.(type) {
	case *ast.CallExpr:
		for _, a := range p.Args {
			used = used || a == expr
		}
	case *ast.IndexExpr:
		used = p.Index == expr
	case *ast.CompositeLit:
		for _, e := range p.Elts {
			used = used || e == expr
		}
	}
	if !used {
		return
	}
	for _, to := range swaps {
		g.add(id.Pos(), OpPrivilege, g.offset(id.Pos()), g.offset(id.End()), to,
			fmt.Sprintf("`%s` → `%s`", id.Name, to))
	}
}

// intLit changes an integer literal: 0 → 1, 1 → 0, n → n+1.
func (g *generator) intLit(n *ast.BasicLit) {
	v, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v == ^uint64(0) {
		return
	}
	to := v + 1
	if v == 1 {
		to = 0
	}
	repl := strconv.FormatUint(to, 10)
	g.add(n.Pos(), OpInt, g.offset(n.Pos()), g.offset(n.End()), repl, fmt.Sprintf("`%s` → `%s`", n.Value, repl))
}

func (g *generator) add(pos token.Pos, op Operator, start, end int, repl, desc string) {
	if op == OpInt || op == OpBool {
		for _, q := range g.quiet {
			if start >= q[0] && end <= q[1] {
				return
			}
		}
	}
	p := g.fset.Position(pos)
	g.out = append(g.out, &Mutant{
		File: g.file, Line: p.Line, Col: p.Column, Func: g.fn, Op: op,
		Desc: sanitize(desc), Src: g.line(p.Line), Start: start, End: end, Repl: repl,
	})
}

func (g *generator) offset(p token.Pos) int { return g.tf.Offset(p) }

// site records n as the site of the mutants added since index from. An
// expression that calls recover() is no site: wrapped in a function
// literal, the call would no longer stop a panic.
func (g *generator) site(from int, n ast.Node, kind siteKind) {
	start, end := g.offset(n.Pos()), g.offset(n.End())
	if kind != siteStmt && bytes.Contains(g.src[start:end], []byte("recover(")) {
		return
	}
	for _, m := range g.out[from:] {
		m.Site = site{Start: start, End: end, Kind: kind}
	}
}

// line returns source line n, trimmed.
func (g *generator) line(n int) string {
	start := g.tf.Offset(g.tf.LineStart(n))
	end := bytes.IndexByte(g.src[start:], '\n')
	if end < 0 {
		end = len(g.src) - start
	}
	return strings.TrimSpace(string(g.src[start : start+end]))
}

// short is the source of e on one line, calls shortened to f(…) and the
// whole cut to a readable length.
func (g *generator) short(e ast.Expr) string {
	var b strings.Builder
	last := g.offset(e.Pos())
	ast.Inspect(e, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		b.Write(g.src[last:g.offset(c.Lparen)])
		b.WriteString("(…)")
		last = g.offset(c.Rparen) + 1
		return false
	})
	b.Write(g.src[last:g.offset(e.End())])
	s := strings.Join(strings.Fields(b.String()), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// callSummary shows a call with its first argument when that is a literal,
// e.g. w.Header().Set("Allow", …).
func (g *generator) callSummary(c *ast.CallExpr) string {
	fun := g.short(c.Fun)
	switch {
	case len(c.Args) == 0:
		return fun + "()"
	case len(c.Args) == 1:
		if lit, ok := c.Args[0].(*ast.BasicLit); ok && len(lit.Value) <= 40 {
			return fun + "(" + lit.Value + ")"
		}
		return fun + "(…)"
	default:
		if lit, ok := c.Args[0].(*ast.BasicLit); ok && len(lit.Value) <= 40 {
			return fun + "(" + lit.Value + ", …)"
		}
		return fun + "(…)"
	}
}

// sanitize keeps a description on one line and free of the separator of
// the equivalents file.
func sanitize(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "=>", "= >")
}

// isLogCall reports whether c is a call of a logging method: x.Info(…),
// s.logger.ErrorContext(…), slog.Warn(…), log.Printf(…). e.Error() with no
// arguments is the error interface, not a log call.
func isLogCall(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || !logMethods[sel.Sel.Name] || len(c.Args) == 0 {
		return false
	}
	recv := strings.ToLower(exprText(sel.X))
	return strings.Contains(recv, "log")
}

// isErrorText reports whether c only builds an error's text: fmt.Errorf,
// errors.New, or the reference's Errorf.
func isErrorText(c *ast.CallExpr) bool {
	switch t := exprText(c.Fun); t {
	case "fmt.Errorf", "errors.New", "Errorf", "reference.Errorf":
		return true
	}
	return false
}

// exprText renders identifiers and selectors (x.y.z); other expressions
// become "?".
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		return exprText(e.Fun) + "()"
	}
	return "?"
}

// funcName names a function declaration: f, T.m or (*T).m.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	switch t := t.(type) {
	case *ast.StarExpr:
		x := t.X
		if ix, ok := x.(*ast.IndexExpr); ok {
			x = ix.X
		}
		return "(*" + exprText(x) + ")." + d.Name.Name
	default:
		return exprText(t) + "." + d.Name.Name
	}
}
