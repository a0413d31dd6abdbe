package main

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
)

// A schema build (mutant schemata) holds many mutants in one binary: each
// site (an expression or a call statement that some mutants change) is
// rewritten to pick, at run time, the original or one of its mutants, by
// the number in the variable mutantVar, which CATALOGSPEC_MUTANT sets:
//
//	a == b   →  (func() bool { switch mutantSchemaActive { case 12: return (a != b) }; return (a == b) }())
//	f(x)     →  if mutantSchemaActive != 40 { f(x) }
//
// With no mutant chosen every site takes the original. One build then
// serves every mutant it holds: running one costs no compilation and no
// link, where building each on its own costs seconds. A mutant that no site
// can hold (an integer constant, a privilege name: their types are not
// known without type-checking) is built on its own, as before.

// mutantEnv names the mutant a schema build runs; mutantVar holds it.
const (
	mutantEnv = "CATALOGSPEC_MUTANT"
	mutantVar = "mutantSchemaActive"
)

// schemaHelper is the file added to each package with sites: it reads the
// mutant's number once, at initialisation.
func schemaHelper(pkg string) []byte {
	return []byte(fmt.Sprintf(`package %s

import (
	"os"
	"strconv"
)

// %s is the mutant this process runs (%s); 0 runs none.
var %s, _ = strconv.Atoi(os.Getenv(%q))
`, pkg, mutantVar, mutantEnv, mutantVar, mutantEnv))
}

// siteGroup is the mutants that share one site.
type siteGroup struct {
	site
	ms []*Mutant
}

// span is where one site's rewritten text lies in the schema source.
type span struct {
	start, end int
	g          *siteGroup
}

// schemaSource rewrites src with every site of ms, nested ones inside the
// original text of those around them. It returns the new source and where
// each site's text went, for matching a compiler's complaint to its site.
func schemaSource(src []byte, ms []*Mutant) ([]byte, []span) {
	bySite := map[[2]int]*siteGroup{}
	var groups []*siteGroup
	for _, m := range ms {
		if m.Site.Kind == siteNone {
			continue
		}
		k := [2]int{m.Site.Start, m.Site.End}
		g := bySite[k]
		if g == nil {
			g = &siteGroup{site: m.Site}
			bySite[k] = g
			groups = append(groups, g)
		}
		g.ms = append(g.ms, m)
	}
	// Outer sites before the ones they hold: by start, then longest first.
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].Start != groups[j].Start {
			return groups[i].Start < groups[j].Start
		}
		return groups[i].End > groups[j].End
	})
	w := &schemaWriter{src: src}
	w.emit(0, len(src), groups)
	return w.out.Bytes(), w.spans
}

type schemaWriter struct {
	src   []byte
	out   bytes.Buffer
	spans []span
}

// emit writes src[lo:hi] with the sites of groups (all within it, sorted)
// rewritten.
func (w *schemaWriter) emit(lo, hi int, groups []*siteGroup) {
	pos := lo
	for i := 0; i < len(groups); {
		g := groups[i]
		j := i + 1
		for j < len(groups) && groups[j].Start < g.End {
			j++
		}
		w.out.Write(w.src[pos:g.Start])
		w.site(g, groups[i+1:j])
		pos, i = g.End, j
	}
	w.out.Write(w.src[pos:hi])
}

// site writes one site's switch; inner are the sites inside it, rewritten
// in its original branch (only one mutant runs at a time, so a mutant's
// own branch holds the plain text around its change).
func (w *schemaWriter) site(g *siteGroup, inner []*siteGroup) {
	start := w.out.Len()
	mutated := func(m *Mutant) string {
		return string(w.src[g.Start:m.Start]) + m.Repl + string(w.src[m.End:g.End])
	}
	ids := make([]string, len(g.ms))
	for i, m := range g.ms {
		ids[i] = strconv.Itoa(m.ID)
	}
	switch g.Kind {
	case siteStmt:
		w.out.WriteString("if ")
		for i, id := range ids {
			if i > 0 {
				w.out.WriteString(" && ")
			}
			fmt.Fprintf(&w.out, "%s != %s", mutantVar, id)
		}
		w.out.WriteString(" { ")
		w.emit(g.Start, g.End, inner)
		w.out.WriteString(" }")
	default:
		typ := "bool"
		if g.Kind == siteError {
			typ = "error"
		}
		fmt.Fprintf(&w.out, "(func() %s { switch %s {", typ, mutantVar)
		for i, m := range g.ms {
			fmt.Fprintf(&w.out, " case %s: return (%s);", ids[i], mutated(m))
		}
		w.out.WriteString(" }; return (")
		w.emit(g.Start, g.End, inner)
		w.out.WriteString(") }())")
	}
	w.spans = append(w.spans, span{start: start, end: w.out.Len(), g: g})
}

// innermost is the site whose text holds offset off, the innermost when
// sites nest; nil when none does.
func innermost(spans []span, off int) *siteGroup {
	var best *span
	for i := range spans {
		s := &spans[i]
		if off >= s.start && off < s.end && (best == nil || s.end-s.start < best.end-best.start) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	return best.g
}

// packageName is the name in src's package clause.
func packageName(src []byte) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	return f.Name.Name, nil
}

// offsetOf is the byte offset of line:col (both from 1) in src; -1 when
// src has no such line.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off + col - 1
}
