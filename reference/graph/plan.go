package graph

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogspec/catalogspec/reference/graph/model"
)

// Plans: the fast path for a document whose plan is cached (issue 31).
//
// Clients send the same few documents, over and over: DataHub's web app
// asks `me` and `appConfig` on every page. Through gqlgen each request of
// such a document pays for its transport (the body decoded by reflection,
// the answer encoded into a buffer and then again by encoding/json), for
// its operation's context and each extension's hooks, and for a field
// context, a closure and a marshaler per field: some 190 allocations for
// `{ me { corpUser { urn username } } }` before any of catalogd's own
// work. A plan is what is left of that work once the document is known:
// the root resolvers to call and, for each field below them, where its
// value is in the Go value the resolver returned and the bytes of its key.
//
// A document gets a plan only after gqlgen has accepted it, with every
// check catalogd adds (the document limits, the complexity limit, the cost
// budget), and answered it without an error: those checks depend on the
// document and its variables alone, and a plan serves only requests
// without variables, so a request the plan serves is one those checks
// accept. What depends on the answer is checked again on each one: the
// response budget, the read budget, the bytes in flight. Anything a plan
// does not handle the way gqlgen does is left to gqlgen: a resolver's
// error or panic (the request is then run again through gqlgen, which is
// safe because only resolvers without effects are planned), a null where
// the schema says non-null, an enum value that is not a name. A document
// with variables, arguments, directives, fragments, lists, or a field
// gqlgen resolves with a resolver of its own gets no plan.
//
// The answer is written as gqlgen's transport writes it: gqlgen's string
// escaping (writeQuotedString), then encoding/json's compaction of the
// data with HTML escaping (json.Marshal of a json.RawMessage), field by
// field in the document's order. plan_test.go compares the two byte for
// byte.

// rootField is a root field a plan may call: a query field without
// arguments whose resolver has no effect (so that running it again, when
// the plan cannot answer, changes nothing) and does not read gqlgen's
// contexts, which a plan does not make.
type rootField struct {
	typ     reflect.Type // what resolve returns: a pointer to a model struct
	resolve func(ctx context.Context, r ResolverRoot) (any, error)
}

var rootFields = map[string]rootField{
	"me": {reflect.TypeFor[*model.AuthenticatedUser](), func(ctx context.Context, r ResolverRoot) (any, error) {
		return r.Query().Me(ctx)
	}},
	"appConfig": {reflect.TypeFor[*model.AppConfig](), func(ctx context.Context, r ResolverRoot) (any, error) {
		return r.Query().AppConfig(ctx)
	}},
}

// resolvedFields are the fields gqlgen resolves with a resolver of their
// own (ResolverRoot's methods, by type): none of them is planned.
var resolvedFields = func() map[string]bool {
	out := map[string]bool{}
	root := reflect.TypeFor[ResolverRoot]()
	for i := range root.NumMethod() {
		m := root.Method(i)
		r := m.Type.Out(0)
		for j := range r.NumMethod() {
			out[m.Name+"."+strings.ToLower(r.Method(j).Name)] = true
		}
	}
	return out
}()

type fieldKind uint8

const (
	kindTypename fieldKind = iota
	kindString
	kindBool
	kindInt
	kindEnum
	kindObject
)

// plan is a compiled query: its root fields, in order.
type plan struct {
	roots []planField
}

// planField is one field of a plan.
type planField struct {
	key      string // `"name":`
	kind     fieldKind
	index    int  // the Go struct's field
	ptr      bool // the Go field is a pointer
	nonNull  bool
	typename string       // kindTypename: the enclosing object's name
	root     *rootField   // root fields
	fields   []planField  // kindObject: its selections
	goType   reflect.Type // kindObject: the struct
}

// compilePlan returns op's plan, or nil when it has none.
func compilePlan(op *ast.OperationDefinition) *plan {
	if op == nil || op.Operation != ast.Query || len(op.VariableDefinitions) > 0 || len(op.Directives) > 0 {
		return nil
	}
	var roots []planField
	seen := map[string]bool{}
	for _, sel := range op.SelectionSet {
		f, ok := sel.(*ast.Field)
		if !ok || !plainSelection(f, seen) {
			return nil
		}
		key := `"` + responseName(f) + `":`
		if f.Name == "__typename" {
			roots = append(roots, planField{key: key, kind: kindTypename, typename: "Query"})
			continue
		}
		rf, ok := rootFields[f.Name]
		if !ok || f.Definition == nil || f.Definition.Type == nil || f.Definition.Type.Elem != nil {
			return nil
		}
		sub, ok := compileObject(f, rf.typ.Elem())
		if !ok {
			return nil
		}
		sub.key, sub.root = key, &rf
		roots = append(roots, sub)
	}
	if len(roots) == 0 {
		return nil
	}
	return &plan{roots: roots}
}

// plainSelection says whether f is a field a plan handles: no arguments,
// no directives, and a response name not used before in its set (gqlgen
// merges such fields; a plan does not).
func plainSelection(f *ast.Field, seen map[string]bool) bool {
	name := responseName(f)
	if len(f.Arguments) > 0 || len(f.Directives) > 0 || seen[name] || !isName(name) {
		return false
	}
	seen[name] = true
	return true
}

func responseName(f *ast.Field) string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Name
}

// compileObject compiles an object field whose Go value is a t (a struct).
func compileObject(f *ast.Field, t reflect.Type) (planField, bool) {
	def := f.Definition
	if t.Kind() != reflect.Struct || def == nil || len(f.SelectionSet) == 0 {
		return planField{}, false
	}
	object := def.Type.Name()
	out := planField{kind: kindObject, nonNull: def.Type.NonNull, goType: t}
	seen := map[string]bool{}
	for _, sel := range f.SelectionSet {
		sf, ok := sel.(*ast.Field)
		if !ok || !plainSelection(sf, seen) {
			return planField{}, false
		}
		key := `"` + responseName(sf) + `":`
		if sf.Name == "__typename" {
			out.fields = append(out.fields, planField{key: key, kind: kindTypename, typename: object})
			continue
		}
		sdef := sf.Definition
		if sdef == nil || sdef.Type == nil || sdef.Type.Elem != nil || resolvedFields[object+"."+strings.ToLower(sf.Name)] {
			return planField{}, false
		}
		gf, ok := goField(t, sf.Name)
		if !ok {
			return planField{}, false
		}
		pf := planField{key: key, index: gf.Index[0], nonNull: sdef.Type.NonNull}
		ft := gf.Type
		if ft.Kind() == reflect.Pointer {
			pf.ptr, ft = true, ft.Elem()
		}
		switch {
		case len(sf.SelectionSet) > 0:
			sub, ok := compileObject(sf, ft)
			if !ok {
				return planField{}, false
			}
			sub.key, sub.index, sub.ptr, sub.nonNull = key, pf.index, pf.ptr, pf.nonNull
			pf = sub
		default:
			kind, ok := scalarKind(sdef.Type.Name(), ft)
			if !ok {
				return planField{}, false
			}
			pf.kind = kind
		}
		out.fields = append(out.fields, pf)
	}
	return out, true
}

// goField is the exported field of struct t that gqlgen binds the GraphQL
// field name to: the one whose name is name's, whatever the case, when t
// has no method of that name (gqlgen would call the method), and only one
// field is so named. plan_test.go checks each such binding against
// gqlgen's generated code.
func goField(t reflect.Type, name string) (reflect.StructField, bool) {
	if _, ok := reflect.PointerTo(t).MethodByName(strings.ToUpper(name[:1]) + name[1:]); ok {
		return reflect.StructField{}, false
	}
	var found []reflect.StructField
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.IsExported() && len(sf.Index) == 1 && strings.EqualFold(sf.Name, name) {
			found = append(found, sf)
		}
	}
	if len(found) != 1 {
		return reflect.StructField{}, false
	}
	return found[0], true
}

// scalarKind is how a plan writes a value of the GraphQL type named
// typeName held in a Go t, when it writes it as gqlgen does.
func scalarKind(typeName string, t reflect.Type) (fieldKind, bool) {
	switch typeName {
	case "String", "ID":
		return kindString, t.Kind() == reflect.String && t.PkgPath() == ""
	case "Boolean":
		return kindBool, t.Kind() == reflect.Bool && t.PkgPath() == ""
	case "Int", "Long":
		switch t {
		case reflect.TypeFor[int](), reflect.TypeFor[int64](), reflect.TypeFor[int32]():
			return kindInt, true
		}
		return 0, false
	}
	// An enum of the model: a string type whose MarshalGQL writes its
	// value quoted (strconv.Quote, which writes a name as this does).
	if t.Kind() == reflect.String && t.PkgPath() == reflect.TypeFor[model.EntityType]().PkgPath() {
		if _, ok := reflect.PointerTo(t).MethodByName("MarshalGQL"); ok {
			return kindEnum, true
		}
	}
	return 0, false
}

// isName says whether s is a GraphQL name: what a key and an enum value
// are, which JSON writes as they are.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// execute writes the answer's data to b: {"name":value,...}. ok is false
// when gqlgen must answer instead; sizes holds the bytes of each root
// field's value.
func (p *plan) execute(ctx context.Context, r ResolverRoot, b []byte, sizes []int) (_ []byte, _ []int, ok bool) {
	b = append(b, '{')
	for i := range p.roots {
		f := &p.roots[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f.key...)
		start := len(b)
		if f.kind == kindTypename {
			b = appendString(b, f.typename)
		} else {
			v, err := f.root.resolve(ctx, r)
			if err != nil {
				return b, sizes, false
			}
			rv := reflect.ValueOf(v)
			if rv.IsNil() {
				if f.nonNull {
					return b, sizes, false
				}
				b = append(b, "null"...)
			} else if b, ok = f.writeObject(b, rv.Elem()); !ok {
				return b, sizes, false
			}
		}
		sizes = append(sizes, len(b)-start)
	}
	return append(b, '}'), sizes, true
}

// writeObject writes the struct v as f selects it.
func (f *planField) writeObject(b []byte, v reflect.Value) ([]byte, bool) {
	b = append(b, '{')
	for i := range f.fields {
		sf := &f.fields[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, sf.key...)
		if sf.kind == kindTypename {
			b = appendString(b, sf.typename)
			continue
		}
		fv := v.Field(sf.index)
		if sf.ptr {
			if fv.IsNil() {
				if sf.nonNull {
					return b, false
				}
				b = append(b, "null"...)
				continue
			}
			fv = fv.Elem()
		}
		var ok bool
		switch sf.kind {
		case kindString:
			b = appendString(b, fv.String())
		case kindBool:
			b = strconv.AppendBool(b, fv.Bool())
		case kindInt:
			b = strconv.AppendInt(b, fv.Int(), 10)
		case kindEnum:
			s := fv.String()
			if !isName(s) {
				return b, false
			}
			b = append(append(append(b, '"'), s...), '"')
		case kindObject:
			if b, ok = sf.writeObject(b, fv); !ok {
				return b, false
			}
		}
	}
	return append(b, '}'), true
}

// appendString writes s as gqlgen's writeQuotedString does (\t, \r, \n,
// \\, \" and \u00XX for the other control characters), with what
// encoding/json's compaction of the answer then escapes (<, >, & and
// U+2028, U+2029). Bytes that are not UTF-8 pass as they are, in both.
func appendString(b []byte, s string) []byte {
	const upper, lower = "0123456789ABCDEF", "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			if c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', lower[s[i+2]&0xF])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		if c >= 0x20 && c != '\\' && c != '"' && c != '<' && c != '>' && c != '&' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		case '\n':
			b = append(b, '\\', 'n')
		case '\\':
			b = append(b, '\\', '\\')
		case '"':
			b = append(b, '\\', '"')
		case '<', '>', '&':
			b = append(b, '\\', 'u', '0', '0', lower[c>>4], lower[c&0xF])
		default:
			b = append(b, '\\', 'u', '0', '0', upper[c>>4], upper[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
