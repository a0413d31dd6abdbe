package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

// TestWriteAspectsInStatementsIsWholeOrNothing: a write larger than one
// statement carries (its values are sent a MiB at a time, issue 29) is
// still written whole, or not at all when its last statement fails.
func TestWriteAspectsInStatementsIsWholeOrNothing(t *testing.T) {
	ctx := context.Background()
	prefix := fmt.Sprintf("chunks-%d-", time.Now().UnixNano())
	aspects := func(n int, last string) []reference.Aspect {
		var out []reference.Aspect
		for i := 0; i < n; i++ {
			v, _ := json.Marshal(map[string]string{"description": strings.Repeat("c", 100_000)})
			if i == n-1 && last != "" {
				v = json.RawMessage(last)
			}
			urn, _ := reference.ParseURN(fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,%s%d,PROD)", prefix, i))
			out = append(out, reference.Aspect{URN: urn, Name: "datasetProperties", Value: v, CreatedAt: time.Now(), CreatedBy: "urn:li:corpuser:datahub"})
		}
		return out
	}
	count := func() int {
		_, total, err := testDB.ListAspects(ctx, reference.Filter{EntityType: "dataset", Aspect: "datasetProperties", Contains: map[string]string{"description": "ccc"}})
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	before := count()
	// 30 values of 100 KB: three statements; the last value PostgreSQL
	// cannot keep (U+0000 in jsonb).
	if err := testDB.WriteAspects(ctx, aspects(30, `{"description": "ccc\u0000"}`), nil, nil); err == nil {
		t.Fatal("a write whose last value cannot be kept succeeded")
	}
	if got := count(); got != before {
		t.Fatalf("a failed write of three statements left %d aspects written", got-before)
	}
	if err := testDB.WriteAspects(ctx, aspects(30, ""), nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != before+30 {
		t.Fatalf("a write of three statements wrote %d of 30 aspects", got-before)
	}
}
