package postgres_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// The service's Rest.li and OpenAPI reads and batch writes, over the test
// database: what the scenarios of restli.feature and openapi.feature cannot
// reach from outside (the order of the checks, a later proposal of the same
// aspect, the keys a batch makes).

func dataset() reference.URN {
	return reference.URN{EntityType: reference.EntityDataset, ID: "(urn:li:dataPlatform:hive," + uuid.NewString()[:8] + ",PROD)"}
}

func proposal(urn reference.URN, aspect, value string) reference.Proposal {
	return reference.Proposal{EntityType: urn.EntityType, EntityURN: urn.String(), ChangeType: "UPSERT", AspectName: aspect,
		Aspect: &reference.GenericAspect{Value: value, ContentType: "application/json"}}
}

// TestIngestProposalsWritesWholeOrNothing: a batch is checked whole (every
// proposal, then every entity against the caller's privileges) before
// anything is written; written, each entity gets its key and a later
// proposal of the same aspect wins.
func TestIngestProposalsWritesWholeOrNothing(t *testing.T) {
	f := newFixture(t)
	u := f.user(t)
	a, b := dataset(), dataset()
	f.grantOn(t, u, a, reference.PrivEditEntity)

	err := f.svc.IngestProposals(as(u), []reference.Proposal{proposal(a, "datasetProperties", `{"description":"a"}`), proposal(b, "datasetProperties", `{"description":"b"}`)})
	if reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED || !strings.Contains(reference.ErrorMessageOf(err), b.String()) {
		t.Fatalf("a batch holding a dataset the caller may not write: %v, want UNAUTHORIZED naming %s", err, b)
	}
	err = f.svc.IngestProposals(as(u), []reference.Proposal{proposal(a, "datasetProperties", `{"description":"a"}`), proposal(a, "datasetProperties", `{"description":7}`)})
	if reference.ErrorCodeOf(err) != reference.EUNPROCESSABLE || !strings.HasPrefix(reference.ErrorMessageOf(err), "proposal 2 of 2: ") {
		t.Fatalf("a batch whose second proposal does not match its schema: %v, want UNPROCESSABLE_ENTITY about proposal 2 of 2", err)
	}
	for _, urn := range []reference.URN{a, b} {
		if got, err := testDB.Aspects(root, urn); err != nil || len(got) != 0 {
			t.Fatalf("%s after refused batches: %v %v, want nothing", urn, got, err)
		}
	}

	err = f.svc.IngestProposals(as(u), []reference.Proposal{
		proposal(a, "datasetProperties", `{"description":"first"}`),
		proposal(a, "status", `{"removed":false}`),
		proposal(a, "datasetProperties", `{"description":"second"}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := testDB.Aspects(root, a)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, g := range got {
		values[g.Name] = string(g.Value)
		if g.CreatedBy != u.String() {
			t.Errorf("%s was written by %s, want %s", g.Name, g.CreatedBy, u)
		}
	}
	want := map[string]string{
		"datasetKey":        `{"name": "` + strings.TrimSuffix(strings.SplitN(a.ID, ",", 2)[1], ",PROD)") + `", "origin": "PROD", "platform": "urn:li:dataPlatform:hive"}`,
		"datasetProperties": `{"description": "second"}`,
		"status":            `{"removed": false}`,
	}
	if len(values) != len(want) {
		t.Fatalf("%s holds %v, want %v", a, values, want)
	}
	for k, v := range want {
		if values[k] != v {
			t.Errorf("%s %s = %s, want %s", a, k, values[k], v)
		}
	}
}

// TestEntityReads: what each read shows of a dataset and of one never
// written, and that a refusal comes before existence.
func TestEntityReads(t *testing.T) {
	f := newFixture(t)
	a, never := dataset(), dataset()
	if err := f.svc.IngestProposals(root, []reference.Proposal{
		proposal(a, "datasetProperties", `{"description":"a"}`),
		proposal(a, "datasetProfile", `{"timestampMillis":1}`),
	}); err != nil {
		t.Fatal(err)
	}
	names := func(as []reference.EntityAspect) string {
		var n []string
		for _, x := range as {
			n = append(n, x.Name+"="+x.Class)
		}
		return strings.Join(n, " ")
	}

	v2, err := f.svc.EntityV2(root, a.String(), nil, true)
	if err != nil || names(v2.Aspects) != "datasetKey=com.linkedin.metadata.key.DatasetKey datasetProperties=com.linkedin.dataset.DatasetProperties" {
		t.Errorf("EntityV2 of a dataset: %v %v (the timeseries profile is never shown)", v2, err)
	}
	v2, err = f.svc.EntityV2(root, never.String(), []string{"datasetProperties"}, true)
	if err != nil || names(v2.Aspects) != "datasetKey=com.linkedin.metadata.key.DatasetKey" || !v2.Aspects[0].CreatedAt.IsZero() {
		t.Errorf("EntityV2 of a dataset never written: %v %v, want its derived key alone", v2, err)
	}
	if v2, err = f.svc.EntityV2(root, never.String(), nil, false); err != nil || len(v2.Aspects) != 0 {
		t.Errorf("EntityV2 of a dataset never written, without the key: %v %v, want no aspect", v2, err)
	}
	if _, err := f.svc.EntityV3(root, "dataset", never.String(), nil); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("EntityV3 of a dataset never written: %v, want NOT_FOUND", err)
	}
	if _, err := f.svc.EntityV3(root, "tag", a.String(), nil); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("EntityV3 of a dataset on the tag path: %v, want BAD_REQUEST", err)
	}
	if _, err := f.svc.ReadAspect(root, a.String(), "datasetProfile", 0); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("ReadAspect of a timeseries aspect: %v, want NOT_FOUND", err)
	}
	if _, err := f.svc.ReadAspect(root, a.String(), "datasetProperties", 1); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("ReadAspect of version 1: %v, want NOT_FOUND (only the latest is kept)", err)
	}
	got, err := f.svc.EntitiesV3(root, "dataset", []reference.EntityRequest{{URN: never.String()}, {URN: a.String(), Aspects: []string{"datasetProperties"}}})
	if err != nil || len(got) != 1 || got[0].URN != a || names(got[0].Aspects) != "datasetProperties=com.linkedin.dataset.DatasetProperties" {
		t.Errorf("EntitiesV3: %v %v, want the written dataset alone with its properties", got, err)
	}

}

// TestIngestProposalOfTheKeyAloneWritesIt: a proposal of an entity's key
// aspect alone (what `datahub put` of a key, or an SDK emit of one, sends)
// makes the entity, as any other single aspect does.
func TestIngestProposalOfTheKeyAloneWritesIt(t *testing.T) {
	f := newFixture(t)
	u := f.user(t)
	a := dataset()
	f.grantOn(t, u, a, reference.PrivEditEntity)
	name := strings.TrimSuffix(strings.SplitN(a.ID, ",", 2)[1], ",PROD)")
	key := `{"platform":"urn:li:dataPlatform:hive","name":"` + name + `","origin":"PROD"}`
	if err := f.svc.IngestProposals(as(u), []reference.Proposal{proposal(a, "datasetKey", key)}); err != nil {
		t.Fatal(err)
	}
	got, err := testDB.Aspects(root, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "datasetKey" {
		t.Fatalf("%s after its key alone was written holds %v, want its key", a, got)
	}
}

// TestEntityCallsRefuseBadInputThemselves: the reads and the deletion
// refuse what the HTTP tier refuses before them (a URN that does not parse, a name that is no
// aspect's, a negative version, an entity type no one knows), so that any
// other caller of the service meets the same refusals.
func TestEntityCallsRefuseBadInputThemselves(t *testing.T) {
	f := newFixture(t)
	d := dataset().String()
	for name, c := range map[string]struct {
		read func() error
		code reference.ErrorCode
	}{
		"an aspect of no URN": {func() error { _, err := f.svc.ReadAspect(root, "nota:urn", "datasetProperties", 0); return err }, reference.EBADREQUEST},
		"no aspect named":     {func() error { _, err := f.svc.ReadAspect(root, d, "", 0); return err }, reference.EBADREQUEST},
		"an aspect not named as one": {func() error {
			_, err := f.svc.ReadAspect(root, d, "dataset-properties", 0)
			return err
		}, reference.EBADREQUEST},
		"a version below 0":       {func() error { _, err := f.svc.ReadAspect(root, d, "datasetProperties", -1); return err }, reference.EBADREQUEST},
		"an entity of no URN":     {func() error { _, err := f.svc.EntityV2(root, "nota:urn", nil, true); return err }, reference.EBADREQUEST},
		"an entity's bad aspects": {func() error { _, err := f.svc.EntityV2(root, d, []string{"x y"}, true); return err }, reference.EBADREQUEST},
		"an entity of no known type": {func() error {
			_, err := f.svc.EntityV2(root, "urn:li:nosuchtype:x", nil, true)
			return err
		}, reference.ENOTFOUND},
		"a batch with no URN":   {func() error { _, err := f.svc.EntitiesV2(root, []string{d, "nota:urn"}, nil, true); return err }, reference.EBADREQUEST},
		"a batch's bad aspects": {func() error { _, err := f.svc.EntitiesV2(root, []string{d}, []string{"1st"}, true); return err }, reference.EBADREQUEST},
		"a deletion naming another type": {func() error {
			return f.svc.DeleteEntity(root, reference.EntityCorpUser, d)
		}, reference.EBADREQUEST},
		"a v3 entity's bad aspects": {func() error {
			_, err := f.svc.EntityV3(root, reference.EntityDataset, d, []string{"x y"})
			return err
		}, reference.EBADREQUEST},
		"a v3 batch with no URN": {func() error {
			_, err := f.svc.EntitiesV3(root, reference.EntityDataset, []reference.EntityRequest{{URN: "nota:urn"}})
			return err
		}, reference.EBADREQUEST},
		"a v3 batch of another type": {func() error {
			_, err := f.svc.EntitiesV3(root, reference.EntityCorpUser, []reference.EntityRequest{{URN: d}})
			return err
		}, reference.EBADREQUEST},
		"a v3 batch's bad aspects": {func() error {
			_, err := f.svc.EntitiesV3(root, reference.EntityDataset, []reference.EntityRequest{{URN: d, Aspects: []string{"x y"}}})
			return err
		}, reference.EBADREQUEST},
	} {
		if err := c.read(); reference.ErrorCodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}

// TestIngestSnapshotOfAUserNeedsManageUsersOverThePlatform: a snapshot
// creates its entity, and creating a user takes MANAGE_USERS_AND_GROUPS
// over the platform (DataHub's API_ENTITY_PRIVILEGE_MAP); the neighbouring
// UPDATE_USERS_AND_GROUPS, which updates one, does not create one.
func TestIngestSnapshotOfAUserNeedsManageUsersOverThePlatform(t *testing.T) {
	f := newFixture(t)
	const class = "com.linkedin.metadata.snapshot.CorpUserSnapshot"
	info := []reference.SnapshotAspect{{Class: "com.linkedin.identity.CorpUserInfo", Value: []byte(`{"active":true,"displayName":"Snapshot"}`)}}
	manager, updater := f.user(t), f.user(t)
	f.grant(t, manager, reference.PrivManageUsersAndGroups)
	f.grant(t, updater, reference.PrivUpdateUsersAndGroups)
	made := reference.UserURN("s-" + uuid.NewString()[:8])
	if err := f.svc.IngestSnapshot(as(manager), class, made.String(), info); err != nil {
		t.Fatalf("a holder of MANAGE_USERS_AND_GROUPS over the platform making a user by snapshot: %v", err)
	}
	if u, err := f.svc.CorpUser(root, made.String()); err != nil || u == nil {
		t.Errorf("the user made by snapshot: %v, %v", u, err)
	}
	refused := reference.UserURN("s-" + uuid.NewString()[:8])
	if err := f.svc.IngestSnapshot(as(updater), class, refused.String(), info); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("a holder of UPDATE_USERS_AND_GROUPS making a user by snapshot: %v, want UNAUTHORIZED", err)
	}
	if u, err := f.svc.CorpUser(root, refused.String()); u != nil || err != nil {
		t.Errorf("the refused snapshot made %v (%v)", u, err)
	}
}
