package postgres_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

func aspect(urn reference.URN, name, value string) reference.Aspect {
	return reference.Aspect{URN: urn, Name: name, Value: json.RawMessage(value), CreatedAt: time.Now(), CreatedBy: "urn:li:corpuser:test"}
}

func TestMigrateIsIdempotent(t *testing.T) {
	if err := testDB.Migrate(context.Background()); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
}

func TestCreateEntityConflictWritesNothing(t *testing.T) {
	ctx := context.Background()
	urn := reference.URN{EntityType: "tag", ID: uuid.NewString()}
	if err := testDB.CreateEntity(ctx, []reference.Aspect{aspect(urn, "tagKey", `{"name":"a"}`), aspect(urn, "tagProperties", `{"name":"first"}`)}); err != nil {
		t.Fatal(err)
	}
	err := testDB.CreateEntity(ctx, []reference.Aspect{aspect(urn, "tagKey", `{"name":"a"}`), aspect(urn, "tagProperties", `{"name":"second"}`)})
	if reference.ErrorCodeOf(err) != reference.ECONFLICT {
		t.Fatalf("second CreateEntity error = %v, want CONFLICT", err)
	}
	got, err := testDB.Aspect(ctx, urn, "tagProperties")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Value) != `{"name": "first"}` {
		t.Errorf("tagProperties = %s, want the first write", got.Value)
	}
}

func TestAspectLifecycle(t *testing.T) {
	ctx := context.Background()
	urn := reference.URN{EntityType: "dataset", ID: "(urn:li:dataPlatform:hive," + uuid.NewString() + ",PROD)"}
	if _, err := testDB.Aspect(ctx, urn, "datasetProperties"); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Fatalf("missing aspect error = %v, want NOT_FOUND", err)
	}
	if err := testDB.ReplaceAspect(ctx, aspect(urn, "datasetProperties", `{"description":"x"}`)); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Fatalf("ReplaceAspect of nothing = %v, want NOT_FOUND", err)
	}
	if err := testDB.UpsertAspect(ctx, aspect(urn, "datasetProperties", `{"description":"one"}`)); err != nil {
		t.Fatal(err)
	}
	if err := testDB.UpsertAspect(ctx, aspect(urn, "datasetProperties", `{"description":"two"}`)); err != nil {
		t.Fatal(err)
	}
	all, err := testDB.Aspects(ctx, urn)
	if err != nil || len(all) != 1 || string(all[0].Value) != `{"description": "two"}` {
		t.Fatalf("Aspects = %v, %v; want the one upserted aspect", all, err)
	}
	found, err := testDB.DeleteEntity(ctx, urn)
	if err != nil || !found {
		t.Fatalf("DeleteEntity = %v, %v", found, err)
	}
	if found, _ := testDB.DeleteEntity(ctx, urn); found {
		t.Error("second DeleteEntity found something")
	}
}

func TestListAspectsFiltersAndPages(t *testing.T) {
	ctx := context.Background()
	owner := "urn:li:corpuser:" + uuid.NewString()
	for i := range 3 {
		urn := reference.URN{EntityType: "dataHubAccessToken", ID: uuid.NewString()}
		a := aspect(urn, "dataHubAccessTokenInfo", `{"ownerUrn":"`+owner+`","name":"t`+string(rune('0'+i))+`"}`)
		a.CreatedAt = time.Now().Add(time.Duration(i) * time.Second)
		if err := testDB.CreateEntity(ctx, []reference.Aspect{a}); err != nil {
			t.Fatal(err)
		}
	}
	f := reference.Filter{EntityType: "dataHubAccessToken", Aspect: "dataHubAccessTokenInfo", Where: map[string][]string{"ownerUrn": {owner}}, Count: 2}
	got, total, err := testDB.ListAspects(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || len(got) != 2 {
		t.Fatalf("got %d of total %d, want 2 of 3", len(got), total)
	}
	var first struct{ Name string }
	_ = json.Unmarshal(got[0].Value, &first)
	if first.Name != "t2" {
		t.Errorf("first listed = %s, want the newest (t2)", first.Name)
	}
	f.Start = 10
	if got, total, err := testDB.ListAspects(ctx, f); err != nil || len(got) != 0 || total != 3 {
		t.Errorf("a page past the end: %d aspects of total %d (err %v), want none of total 3", len(got), total, err)
	}
	f.Start = 0
	f.Where = map[string][]string{"ownerUrn": {owner}, "name') OR true --": {"x"}}
	if got, _, err := testDB.ListAspects(ctx, f); err != nil || len(got) != 0 {
		t.Errorf("a hostile field name matched %d rows (err %v): field names must be bound, not spliced", len(got), err)
	}
}

func TestSecretIsGeneratedOnceAcrossRacers(t *testing.T) {
	ctx := context.Background()
	name := "test-" + uuid.NewString()
	var wg sync.WaitGroup
	values := make([][]byte, 8)
	for i := range values {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := testDB.Secret(ctx, name, nil)
			if err != nil {
				t.Error(err)
			}
			values[i] = v
		}()
	}
	wg.Wait()
	for i, v := range values {
		if len(v) != 32 || string(v) != string(values[0]) {
			t.Fatalf("racer %d got %x, racer 0 got %x: replicas would disagree", i, v, values[0])
		}
	}
}

// TestWriteAspectsIsWholeOrNothing: a batch whose last aspect the database
// refuses leaves no trace, neither its other aspects nor the keys it would
// have made; a batch that goes through keeps a key that was there and
// replaces what it upserts.
func TestWriteAspectsIsWholeOrNothing(t *testing.T) {
	ctx := context.Background()
	a := reference.URN{EntityType: "dataset", ID: "(urn:li:dataPlatform:hive," + uuid.NewString() + ",PROD)"}
	b := reference.URN{EntityType: "dataset", ID: "(urn:li:dataPlatform:hive," + uuid.NewString() + ",PROD)"}
	bad := aspect(b, "datasetProperties", `{"description":"x\u0000"}`) // jsonb cannot keep U+0000
	err := testDB.WriteAspects(ctx,
		[]reference.Aspect{aspect(a, "datasetProperties", `{"description":"a"}`), bad},
		[]reference.Aspect{aspect(a, "datasetKey", `{"name":"a"}`), aspect(b, "datasetKey", `{"name":"b"}`)}, nil)
	if reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Fatalf("a batch holding U+0000: %v, want BAD_REQUEST", err)
	}
	for _, urn := range []reference.URN{a, b} {
		if got, err := testDB.Aspects(ctx, urn); err != nil || len(got) != 0 {
			t.Fatalf("%s after the refused batch: %v %v, want nothing", urn, got, err)
		}
	}
	if err := testDB.UpsertAspect(ctx, aspect(a, "datasetKey", `{"name":"first"}`)); err != nil {
		t.Fatal(err)
	}
	err = testDB.WriteAspects(ctx,
		[]reference.Aspect{aspect(a, "datasetProperties", `{"description":"a"}`), aspect(b, "datasetProperties", `{"description":"b"}`)},
		[]reference.Aspect{aspect(a, "datasetKey", `{"name":"second"}`), aspect(b, "datasetKey", `{"name":"b"}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for urn, want := range map[reference.URN]map[string]string{
		a: {"datasetKey": `{"name": "first"}`, "datasetProperties": `{"description": "a"}`},
		b: {"datasetKey": `{"name": "b"}`, "datasetProperties": `{"description": "b"}`},
	} {
		got, err := testDB.Aspects(ctx, urn)
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s: %v %v, want %v", urn, got, err, want)
		}
		for _, g := range got {
			if want[g.Name] != string(g.Value) {
				t.Errorf("%s %s = %s, want %s", urn, g.Name, g.Value, want[g.Name])
			}
		}
	}
}
