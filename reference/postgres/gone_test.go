package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// TestWriteAspectsWhenNoTransactionBegins: a batch whose transaction
// cannot begin (the request is gone before it reaches the database) is
// UNAVAILABLE, a 503, and writes nothing: never a success, nor a panic on
// the transaction it did not get.
func TestWriteAspectsWhenNoTransactionBegins(t *testing.T) {
	a := reference.URN{EntityType: "dataset", ID: "(urn:li:dataPlatform:hive," + uuid.NewString() + ",PROD)"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := testDB.WriteAspects(ctx, []reference.Aspect{aspect(a, "datasetProperties", `{"description":"a"}`)}, []reference.Aspect{aspect(a, "datasetKey", `{"name":"a"}`)}, nil)
	if reference.ErrorCodeOf(err) != reference.EUNAVAILABLE {
		t.Errorf("WriteAspects with the request gone: %v, want %s", err, reference.EUNAVAILABLE)
	}
	if got, err := testDB.Aspects(context.Background(), a); err != nil || len(got) != 0 {
		t.Errorf("%s after the batch that did not begin: %v %v, want nothing", a, got, err)
	}
}
