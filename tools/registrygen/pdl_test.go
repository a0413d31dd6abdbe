package main

import (
	"slices"
	"testing"
)

// TestParseHeaderAndFields: a PDL file's namespace, imports, annotations
// (JSON with a missing comma, a backquoted path), declaration and fields,
// comments dropped, "//" inside a string kept.
func TestParseHeaderAndFields(t *testing.T) {
	src := `namespace com.example.key

import com.linkedin.common.Urn
import com.linkedin.common.FabricType

/**
 * A key. // not a comment end
 */
@Aspect = {
  "name": "exampleKey"
  "type": "timeseries",
}
@validate.` + "`com.example.V`" + ` = { "entityType": "x", "url": "https://example.com/a" }
record ExampleKey includes Base {
  /** the platform */
  @Relationship = {
    "name": "On",
    "entityTypes": [ "dataPlatform" ]
  }
  platform: Urn
  // a line comment
  name: string,
  tags: optional array[string] = []
  origin: FabricType = "PROD"
  inline: record Inner { a: int }
}
`
	f, err := parseHeader("x.pdl", src)
	if err != nil {
		t.Fatal(err)
	}
	if f.fullName() != "com.example.key.ExampleKey" || f.kind != "record" {
		t.Fatalf("declaration %s %s", f.kind, f.fullName())
	}
	a := f.annotations["Aspect"].(map[string]any)
	if a["name"] != "exampleKey" || a["type"] != "timeseries" {
		t.Errorf("@Aspect = %v", a)
	}
	if v := f.annotations["validate.com.example.V"].(map[string]any); v["url"] != "https://example.com/a" {
		t.Errorf("@validate = %v", v)
	}
	if f.resolve("FabricType") != "com.linkedin.common.FabricType" || f.resolve("Other") != "com.example.key.Other" {
		t.Errorf("resolve: %s %s", f.resolve("FabricType"), f.resolve("Other"))
	}
	fields, err := f.fields()
	if err != nil {
		t.Fatal(err)
	}
	var names, types []string
	for _, fd := range fields {
		names, types = append(names, fd.name), append(types, fd.typ)
	}
	if !slices.Equal(names, []string{"platform", "name", "tags", "origin", "inline"}) || !slices.Equal(types, []string{"Urn", "string", "", "FabricType", ""}) {
		t.Errorf("fields %q of types %q", names, types)
	}
	if rel := fields[0].annotations["Relationship"].(map[string]any); rel["entityTypes"].([]any)[0] != "dataPlatform" {
		t.Errorf("@Relationship = %v", rel)
	}
	if !fields[2].optional || fields[1].optional {
		t.Error("optional is wrong")
	}
}

// TestEnumAndTyperef: an enum's symbols, with their docs and annotations
// skipped; a typeref's type.
func TestEnumAndTyperef(t *testing.T) {
	e, err := parseHeader("e.pdl", "namespace a\nenum Fabric {\n /** dev */ DEV\n @deprecated = \"x\"\n PROD\n}")
	if err != nil {
		t.Fatal(err)
	}
	if syms, err := e.symbols(); err != nil || !slices.Equal(syms, []string{"DEV", "PROD"}) {
		t.Errorf("symbols %q, %v", syms, err)
	}
	r, err := parseHeader("r.pdl", "namespace a\n@java.class = \"a.Urn\"\ntyperef Urn = string")
	if err != nil {
		t.Fatal(err)
	}
	if of, err := r.typerefOf(); err != nil || of != "string" || r.annotations["java.class"] != "a.Urn" {
		t.Errorf("typeref of %q, %v, %v", of, err, r.annotations)
	}
}
