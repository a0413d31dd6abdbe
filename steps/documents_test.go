package steps

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/catalogspec/catalogspec"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestDocumentsMatchSchema checks every GraphQL document the steps send
// against the schema the reference serves (DataHub's names), so that a typo
// in a fixture shows here rather than as a failing scenario.
func TestDocumentsMatchSchema(t *testing.T) {
	const schemaPath = "../reference/graph/schema.graphql"
	src, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Skipf("no schema to check against: %v", err)
	}
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: schemaPath, Input: string(src)})
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	docs, err := loadDocuments(catalogspec.GraphQLDocuments())
	if err != nil {
		t.Fatal(err)
	}
	// Check each document as it is sent: with the fragments it spreads.
	v := reflect.ValueOf(docs)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		doc := v.Field(i).String()
		if doc == "" {
			t.Errorf("document %s was not loaded", name)
			continue
		}
		if _, errs := gqlparser.LoadQuery(schema, doc); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
	}
	// And every file in the directory is one the steps load.
	paths, _ := filepath.Glob("../fixtures/graphql/*.graphql")
	if want := v.NumField(); len(paths) < want {
		t.Errorf("%d GraphQL files for %d documents", len(paths), want)
	}
}
