package steps

import (
	"os"
	"path/filepath"
	"testing"

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
	if _, err := loadDocuments("../fixtures/graphql"); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob("../fixtures/graphql/*.graphql")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, errs := gqlparser.LoadQuery(schema, string(b)); len(errs) > 0 {
			t.Errorf("%s: %v", p, errs)
		}
	}
}
