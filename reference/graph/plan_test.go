package graph

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// FuzzPlanStrings: a plan writes a string exactly as gqlgen's transport
// does (gqlgen's escaping, then encoding/json's compaction of the data
// with HTML escaping), whatever its bytes.
func FuzzPlanStrings(f *testing.F) {
	for _, s := range []string{"", "datahub", `a"b\c`, "<script>&</script>", "\u2028\u2029", "\x00\x01\x1f\x7f", "\t\r\n", "\xff\xfe", "é\u2028x", "\xe2\x80", "\xe2\x80\xa8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var data bytes.Buffer
		graphql.MarshalString(s).MarshalGQL(&data)
		want, err := json.Marshal(&graphql.Response{Data: data.Bytes()})
		if err != nil {
			t.Skip("gqlgen's transport would panic on it too")
		}
		got := append(appendString([]byte(`{"data":`), s), '}')
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: plan %q, gqlgen %q", s, got, want)
		}
	})
}

// TestPlanBindings: each field a plan reads from a Go struct is the field
// gqlgen's generated code reads (`return obj.Field, nil` in its resolver),
// for every object a planned root field reaches; a field gqlgen resolves
// any other way (a resolver, a method) is never planned.
func TestPlanBindings(t *testing.T) {
	src, err := os.ReadFile("generated.go")
	if err != nil {
		t.Fatal(err)
	}
	schema := NewExecutableSchema(Config{}).Schema()
	checked := 0
	var walk func(object string, goType reflect.Type, seen map[string]bool)
	walk = func(object string, goType reflect.Type, seen map[string]bool) {
		if seen[object] {
			return
		}
		seen[object] = true
		def := schema.Types[object]
		for _, fd := range def.Fields {
			if strings.HasPrefix(fd.Name, "__") {
				continue
			}
			fn := regexp.MustCompile(`(?s)func \(ec \*executionContext\) _` + object + `_` + fd.Name + `\(.*?\n}\n`).Find(src)
			if fn == nil {
				t.Errorf("%s.%s: no resolver in generated.go", object, fd.Name)
				continue
			}
			reads := regexp.MustCompile(`return obj\.(\w+), nil`).FindSubmatch(fn)
			gf, ok := goField(goType, fd.Name)
			planned := ok && !resolvedFields[object+"."+strings.ToLower(fd.Name)]
			switch {
			case planned && (reads == nil || string(reads[1]) != gf.Name):
				t.Errorf("%s.%s: a plan reads %s, gqlgen's code %s", object, fd.Name, gf.Name, reads)
			case !planned && reads != nil:
				t.Logf("%s.%s: read from %s by gqlgen, not planned", object, fd.Name, reads[1])
			}
			if planned {
				checked++
				ft := gf.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct && schema.Types[fd.Type.Name()].Kind == ast.Object {
					walk(fd.Type.Name(), ft, seen)
				}
			}
		}
	}
	for name, rf := range rootFields {
		walk(schema.Query.Fields.ForName(name).Type.Name(), rf.typ.Elem(), map[string]bool{})
	}
	if checked < 20 {
		t.Errorf("checked %d fields; the walk missed the objects `me` reaches", checked)
	}
}

// TestCompilePlan: which documents get a plan.
func TestCompilePlan(t *testing.T) {
	schema := NewExecutableSchema(Config{}).Schema()
	for doc, want := range map[string]bool{
		`{ me { corpUser { urn username } } }`: true,
		`query Me { me { corpUser { urn } platformPrivileges { manageTokens } } appConfig { appVersion } }`: true,
		`{ a: me { b: corpUser { c: urn __typename } } __typename }`:                                        true,
		`{ me { corpUser { properties { displayName manager { urn } } } } }`:                                false, // a resolver of its own
		`query($u: String!) { corpUser(urn: $u) { urn } }`:                                                  false,
		`{ me { corpUser { urn @include(if: true) } } }`:                                                    false,
		`{ me { ... on AuthenticatedUser { corpUser { urn } } } }`:                                          false,
		`{ me { corpUser { urn urn } } }`:                                                                   false,
		`mutation { createTag(input: {id: "x", name: "x"}) }`:                                               false,
		`{ listAccessTokens(input: {}) { total } }`:                                                         false,
	} {
		parsed, err := gqlparser.LoadQuery(schema, doc)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if got := compilePlan(parsed.Operations[0]) != nil; got != want {
			t.Errorf("%s: planned %v, want %v", doc, got, want)
		}
	}
}
