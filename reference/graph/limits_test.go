package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// introspectionQuery is the query GraphiQL and DataHub's own clients send to
// learn the schema: the deepest document any of them sends.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

// TestLimitsAdmitRealDocuments: every document of the contract (the
// suite's fixtures) and the introspection query pass the default limits.
func TestLimitsAdmitRealDocuments(t *testing.T) {
	docs := map[string]string{"introspection": introspectionQuery}
	files, err := filepath.Glob("../../fixtures/graphql/*.graphql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures found: %v", err)
	}
	fragment, err := os.ReadFile("../../fixtures/graphql/token_metadata.fragment.graphql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		if strings.Contains(doc, "...") && !strings.Contains(doc, "fragment ") {
			doc += "\n" + string(fragment)
		}
		docs[filepath.Base(f)] = doc
	}
	for name, doc := range docs {
		if strings.HasPrefix(strings.TrimSpace(doc), "fragment") {
			continue
		}
		if err := CheckDocument(doc, "", nil, Limits{}); err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
	}
}

// TestLimitsRefuse: each limit refuses the smallest document past it and
// admits the largest within it, quickly, whatever the fragments stand for.
func TestLimitsRefuse(t *testing.T) {
	l := Limits{Tokens: 1000, Fields: 50, Depth: 5, SameName: 3, Spreads: 3}
	fields := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, " f%d", i)
		}
		return b.String() + " }"
	}
	nested := func(depth int) string {
		return strings.Repeat("{ a ", depth) + strings.Repeat("}", depth)
	}
	same := func(n int) string { return "{" + strings.Repeat(" x: a", n) + " }" }
	sameThroughFragments := "{ x: a ...F ...G }\nfragment F on Query { x: b }\nfragment G on Query { x: c ...F }"
	bomb := "query { ...F5 }\nfragment F0 on Query { a }\n"
	for i := 1; i <= 5; i++ {
		bomb += fmt.Sprintf("fragment F%d on Query { ...F%d ...F%d ...F%d }\n", i, i-1, i-1, i-1)
	}
	cases := []struct {
		name, doc string
		refused   string // "" for admitted
	}{
		{"50 fields", fields(50), ""},
		{"51 fields", fields(51), "limit: fields"},
		{"depth 5", nested(5), ""},
		{"depth 6", nested(6), "limit: depth"},
		{"a name 3 times", same(3), ""},
		{"a name 4 times", same(4), "limit: sameName"},
		{"a name 4 times through fragments", sameThroughFragments, "limit: sameName"},
		{"3^5 fields through fragments", bomb, "limit: fields"},
		{"NUL in a literal", `{ a(s: "x\u0000") }`, "U+0000"},
		{"NUL in an object literal", `{ a(s: {k: ["x\u0000"]}) }`, "U+0000"},
		{"a fragment cycle", "{ ...A }\nfragment A on Query { ...B }\nfragment B on Query { ...A }", "cycles"},
		{"a fragment spreading itself in a sub-selection", "{ ...A }\nfragment A on Query { a { ...A } }", "cycles"},
		{"an unused fragment cycle", "{ a }\nfragment A on Query { ...A }", "cycles"},
		{"a fragment spread twice, not a cycle", "{ ...A ...B }\nfragment A on Query { a ...B }\nfragment B on Query { b }", ""},
		{"4 spreads in a set", "{ ...A ... on Query { ...A ...A } ...A }\nfragment A on Query { a }", "limit: spreads"},
		{"3 spreads in a set", "{ ...A ... on Query { ...A } ...A }\nfragment A on Query { a }", ""},
	}
	// Questions about the schema are bounded at 20 levels whatever the
	// depth limit, as graphql-java's good-faith introspection check bounds
	// them in DataHub; __type or __schema may come through fragments, and
	// the whole operation is bounded, not only the introspection fields.
	ofTypes := func(depth int) string { // under __type: depth-2 ofType, then name
		return strings.Repeat("ofType { ", depth-2) + "name" + strings.Repeat(" }", depth-2)
	}
	for _, c := range []struct {
		name, doc, operation string
		refused              string
	}{
		{"__type 20 deep", `{ __type(name: "String") { ` + ofTypes(20) + ` } }`, "", ""},
		{"__type 21 deep", `{ __type(name: "String") { ` + ofTypes(21) + ` } }`, "", "limit: introspection depth"},
		{"__schema 21 deep", `{ __schema { queryType { ` + ofTypes(20) + ` } } }`, "", "limit: introspection depth"},
		{"__type 21 deep through fragments", "{ ...F }\nfragment F on Query { ... on Query { __type(name: \"String\") { " + ofTypes(21) + " } } }", "", "limit: introspection depth"},
		{"21 deep beside __type", `{ __type(name: "String") { name } ` + nested(21)[1:], "", "limit: introspection depth"},
		{"21 deep beside __typename", `{ __typename ` + nested(21)[1:], "", ""},
		{"another operation asks __type 21 deep", "query A { __type(name: \"String\") { name } " + nested(21)[1:] + "\nquery B { a }", "B", ""},
		{"21 deep, the operation run asks __type", "query A { __type(name: \"String\") { name } " + nested(21)[1:] + "\nquery B { a }", "A", "limit: introspection depth"},
	} {
		err := CheckDocument(c.doc, c.operation, nil, Limits{Depth: 50})
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refused != "" && err == nil:
			t.Errorf("%s: admitted, want refused (%s)", c.name, c.refused)
		case c.refused != "" && !strings.Contains(err.Message, c.refused):
			t.Errorf("%s: refused with %q, want it to say %q", c.name, err.Message, c.refused)
		}
	}
	for _, c := range cases {
		began := time.Now()
		err := CheckDocument(c.doc, "", nil, l)
		took := time.Since(began)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refused != "" && err == nil:
			t.Errorf("%s: admitted, want refused (%s)", c.name, c.refused)
		case c.refused != "" && !strings.Contains(err.Message, c.refused):
			t.Errorf("%s: refused with %q, want it to say %q", c.name, err.Message, c.refused)
		}
		if took > time.Second {
			t.Errorf("%s: took %s", c.name, took)
		}
	}
	tokens := Limits{Tokens: 1000, Fields: 5000, SameName: 5000}
	if err := CheckDocument("{"+strings.Repeat(" a", 998)+" }", "", nil, tokens); err != nil {
		t.Errorf("1,000 tokens: %v", err)
	}
	if err := CheckDocument("{"+strings.Repeat(" a", 999)+" }", "", nil, tokens); err == nil || !strings.Contains(err.Message, "limit: tokens") {
		t.Errorf("1,001 tokens: %v", err)
	}
	if err := CheckDocument("{ a }", "Missing", nil, l); err == nil || !strings.Contains(err.Message, `"Missing"`) {
		t.Errorf("an unknown operation name: %v", err)
	}
	if err := CheckDocument("query Q($v: String) { a(s: $v) }", "", map[string]any{"v": []any{map[string]any{"k": "x\x00"}}}, l); err == nil {
		t.Error("NUL deep in a variable: admitted")
	}
}

// FuzzCheckDocument: the check never panics or runs long, and a refusal is
// a short BAD_REQUEST.
func FuzzCheckDocument(f *testing.F) {
	for _, s := range []string{
		"{ me { corpUser { urn } } }", introspectionQuery, "query { ...F }\nfragment F on Query { ...F }",
		"{ a(s: \"\\u0000\") }", "{ x: a x: b }", "{", "", "query Q($v: String = \"x\") { a }",
	} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, doc, op string) {
		began := time.Now()
		err := CheckDocument(doc, op, nil, Limits{})
		if took := time.Since(began); took > 2*time.Second {
			t.Fatalf("took %s on %q", took, doc)
		}
		if err != nil {
			if err.Extensions["type"] != "BAD_REQUEST" {
				t.Fatalf("refusal without BAD_REQUEST: %v", err)
			}
			if n := len([]rune(err.Message)); n > 250 {
				t.Fatalf("the message is %d characters", n)
			}
		}
	})
}
