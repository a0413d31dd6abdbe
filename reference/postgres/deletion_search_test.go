package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
)

// Hard deletion, references, patches, search and token conditions on the
// real store.

func patchProposal(urn reference.URN, aspect, ops string) reference.Proposal {
	return reference.Proposal{EntityType: urn.EntityType, EntityURN: urn.String(), ChangeType: "PATCH", AspectName: aspect,
		Aspect: &reference.GenericAspect{Value: ops, ContentType: "application/json-patch+json"}}
}

func addTag(tag string) string {
	return fmt.Sprintf(`[{"op":"add","path":"/tags/%s","value":{"tag":"%s"}}]`, tag, tag)
}

func tagsOf(t *testing.T, svc *reference.Service, urn reference.URN) []string {
	t.Helper()
	a, err := svc.ReadAspect(root, urn.String(), "globalTags", 0)
	if reference.ErrorCodeOf(err) == reference.ENOTFOUND {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Tags []struct{ Tag string } `json:"tags"`
	}
	if err := json.Unmarshal(a.Value, &g); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range g.Tags {
		out = append(out, x.Tag)
	}
	return out
}

// TestPatchesSentAtOnceAllLand: patches of one aspect, stored or not yet,
// sent at once from many connections, each land; none is lost to another's
// read-modify-write.
func TestPatchesSentAtOnceAllLand(t *testing.T) {
	f := newFixture(t)
	for _, stored := range []bool{false, true} {
		d := dataset()
		var want []string
		if stored {
			want = append(want, "urn:li:tag:first")
			if err := f.svc.IngestProposals(root, []reference.Proposal{proposal(d, "globalTags", `{"tags":[{"tag":"urn:li:tag:first"}]}`)}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, 16)
		for i := range errs {
			tag := fmt.Sprintf("urn:li:tag:t%02d", i)
			want = append(want, tag)
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = f.svc.IngestProposals(root, []reference.Proposal{patchProposal(d, "globalTags", addTag(tag))})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("a patch sent at once: %v", err)
			}
		}
		got := tagsOf(t, f.svc, d)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("stored before: %v: %d tags %v, want %d", stored, len(got), got, len(want))
		}
		if ok, err := f.svc.EntityV2(root, d.String(), []string{"datasetKey"}, false); err != nil || len(ok.Aspects) != 1 {
			t.Errorf("a dataset made by a patch has no key: %v, %v", ok, err)
		}
	}
}

// TestPatchIsAllOrNothingAndNeedsEditEntity: a batch whose second patch
// cannot apply writes none of it; without EDIT_ENTITY nothing is written.
func TestPatchIsAllOrNothingAndNeedsEditEntity(t *testing.T) {
	f := newFixture(t)
	d := dataset()
	err := f.svc.IngestProposals(root, []reference.Proposal{
		patchProposal(d, "globalTags", addTag("urn:li:tag:a")),
		patchProposal(d, "status", `[{"op":"replace","path":"/removed","value":true}]`), // no status: no default
	})
	if reference.ErrorCodeOf(err) != reference.EBADREQUEST || !strings.Contains(err.Error(), "proposal 2 of 2") {
		t.Fatalf("a batch with a patch that cannot apply: %v", err)
	}
	if tags := tagsOf(t, f.svc, d); tags != nil {
		t.Errorf("the first patch of a refused batch was written: %v", tags)
	}
	u := f.user(t)
	if err := f.svc.IngestProposals(as(u), []reference.Proposal{patchProposal(d, "globalTags", addTag("urn:li:tag:a"))}); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("a patch without EDIT_ENTITY: %v", err)
	}
	if err := f.svc.IngestProposals(root, []reference.Proposal{patchProposal(d, "datasetProfile", `[{"op":"add","path":"/rowCount","value":1}]`)}); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("a patch of a timeseries aspect: %v", err)
	}
	// A patch whose result does not match the aspect's schema is refused
	// as an upsert of it would be.
	if err := f.svc.IngestProposals(root, []reference.Proposal{patchProposal(d, "datasetProperties", `[{"op":"add","path":"/description","value":["not","text"]}]`)}); reference.ErrorCodeOf(err) != reference.EUNPROCESSABLE {
		t.Errorf("a patch leaving a description that is not text: %v", err)
	}
}

// TestHardDelete: rows counted, what the actions refuse, and DELETE_ENTITY.
func TestHardDelete(t *testing.T) {
	f := newFixture(t)
	d := dataset()
	f.ingest(t, d, "datasetProperties", `{"description":"d"}`)
	f.ingest(t, d, "datasetProfile", `{"timestampMillis":5}`)
	u := f.user(t)
	if _, err := f.svc.HardDelete(as(u), d.String(), nil, nil, nil); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("without DELETE_ENTITY: %v", err)
	}
	series := "datasetProfile"
	later := int64(6)
	if res, err := f.svc.HardDelete(root, d.String(), &series, &later, nil); err != nil || res.TimeseriesRows != 0 {
		t.Errorf("a series after its only value: %+v, %v", res, err)
	}
	if res, err := f.svc.HardDelete(root, d.String(), &series, nil, nil); err != nil || res.TimeseriesRows != 1 || res.Rows != 0 {
		t.Errorf("the series: %+v, %v", res, err)
	}
	props := "datasetProperties"
	if _, err := f.svc.HardDelete(root, d.String(), &props, nil, nil); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("an aspect that is not a series: %v", err)
	}
	res, err := f.svc.HardDelete(root, d.String(), nil, nil, nil)
	if err != nil || res.Rows != 2 || res.URN != d.String() {
		t.Errorf("the dataset (properties and key): %+v, %v", res, err)
	}
	if res, err := f.svc.HardDelete(root, d.String(), nil, nil, nil); err != nil || res.Rows != 0 {
		t.Errorf("again: %+v, %v", res, err)
	}
	for _, urn := range []string{reference.RootUser.String(), "urn:li:dataHubPolicy:0", "urn:li:dataHubAccessToken:x", "not-a-urn"} {
		if _, err := f.svc.HardDelete(root, urn, nil, nil, nil); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
			t.Errorf("deleting %s: %v, want BAD_REQUEST", urn, err)
		}
	}
	if as, err := testDB.Aspects(root, reference.URN{EntityType: reference.EntityPolicy, ID: "0"}); err != nil || len(as) == 0 {
		t.Errorf("the root's policy after a refused deletion: %v, %v", as, err)
	}
	// A user deleted for good is gone, and their token with them.
	raw, _ := f.token(t, u, reference.DurationOneHour)
	if _, err := f.svc.HardDelete(root, u.String(), nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(root, raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("the token of a user deleted for good: %v", err)
	}
}

// TestDeleteReferences: each relationship the reference knows loses the
// entity, a record in a list going with it, a required field taking its
// aspect, an optional one going alone; a dry run changes nothing.
func TestDeleteReferences(t *testing.T) {
	f := newFixture(t)
	tag := "urn:li:tag:" + uuid.NewString()[:8]
	user := "urn:li:corpuser:" + uuid.NewString()[:8]
	container := "urn:li:container:" + uuid.NewString()[:8]
	a, b := dataset(), dataset()
	f.ingest(t, a, "globalTags", `{"tags":[{"tag":"`+tag+`"},{"tag":"urn:li:tag:keep"}]}`)
	f.ingest(t, a, "editableSchemaMetadata", `{"editableSchemaFieldInfo":[{"fieldPath":"id","globalTags":{"tags":[{"tag":"`+tag+`"}]}}]}`)
	f.ingest(t, b, "globalTags", `{"tags":[{"tag":"`+tag+`"}]}`)
	f.ingest(t, b, "ownership", `{"owners":[{"owner":"`+user+`","type":"DATAOWNER"},{"owner":"urn:li:corpuser:keep","type":"DATAOWNER","typeUrn":"`+user+`"}]}`)
	f.ingest(t, b, "container", `{"container":"`+container+`"}`)

	res, err := f.svc.DeleteReferences(root, tag, true)
	if err != nil || res.Total != 3 || len(res.RelatedAspects) != 3 { // two TaggedWith, one EditableSchemaFieldTaggedWith
		t.Fatalf("a dry run for the tag: %+v, %v", res, err)
	}
	if got := tagsOf(t, f.svc, b); !slices.Equal(got, []string{tag}) {
		t.Errorf("a dry run changed %s's tags: %v", b, got)
	}
	if _, err := f.svc.DeleteReferences(root, tag, false); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(t, f.svc, a); !slices.Equal(got, []string{"urn:li:tag:keep"}) {
		t.Errorf("%s's tags: %v", a, got)
	}
	if got := tagsOf(t, f.svc, b); len(got) != 0 {
		t.Errorf("%s's tags: %v", b, got)
	}
	schema, err := f.svc.ReadAspect(root, a.String(), "editableSchemaMetadata", 0)
	if err != nil || strings.Contains(string(schema.Value), tag) || !strings.Contains(string(schema.Value), `"fieldPath": "id"`) && !strings.Contains(string(schema.Value), `"fieldPath":"id"`) {
		t.Errorf("the field's tags: %s, %v", schema.Value, err)
	}
	if _, err := f.svc.DeleteReferences(root, user, false); err != nil {
		t.Fatal(err)
	}
	owners, err := f.svc.ReadAspect(root, b.String(), "ownership", 0)
	if err != nil || strings.Contains(string(owners.Value), user) || !strings.Contains(string(owners.Value), "urn:li:corpuser:keep") {
		t.Errorf("the owners without the user (owner and typeUrn): %s, %v", owners.Value, err)
	}
	if _, err := f.svc.DeleteReferences(root, container, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ReadAspect(root, b.String(), "container", 0); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("the container aspect, whose required field was the reference: %v, want it gone", err)
	}
	u := f.user(t)
	if _, err := f.svc.DeleteReferences(as(u), tag, true); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("without DELETE_ENTITY: %v", err)
	}
}

// TestSearchInSQLMatchesSearchInGo: the store's SQL and the Go evaluator
// (used for what a lagging index still holds) agree on every condition.
func TestSearchInSQLMatchesSearchInGo(t *testing.T) {
	f := newFixture(t)
	platform := "p" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	mk := func(name, origin string) reference.URN {
		return reference.URN{EntityType: "dataset", ID: fmt.Sprintf("(urn:li:dataPlatform:%s,%s,%s)", platform, name, origin)}
	}
	ds := []reference.URN{mk("alpha", "PROD"), mk("beta", "DEV"), mk("gamma", "PROD"), mk("delta", "PROD")}
	f.ingest(t, ds[0], "datasetProperties", `{"name":"Orders Alpha","description":"daily orders","customProperties":{"team":"sales"}}`)
	f.ingest(t, ds[1], "datasetProperties", `{"name":"Beta","customProperties":{"env":"DEV"}}`)
	f.ingest(t, ds[1], "globalTags", `{"tags":[{"tag":"urn:li:tag:pii"}]}`)
	f.ingest(t, ds[2], "status", `{"removed":true}`)
	f.ingest(t, ds[3], "ownership", `{"owners":[{"owner":"urn:li:corpuser:ann","type":"DATAOWNER"}]}`)
	onPlatform := reference.Criterion{Field: "platform", Values: []string{"urn:li:dataPlatform:" + platform}}
	c := func(field, cond string, negated bool, values ...string) reference.Criterion {
		return reference.Criterion{Field: field, Condition: cond, Values: values, Negated: negated}
	}
	cases := map[string]reference.SearchQuery{
		"platform":              {Or: [][]reference.Criterion{{onPlatform}}},
		"origin DEV":            {Or: [][]reference.Criterion{{onPlatform, c("origin", "EQUAL", false, "DEV")}}},
		"not removed":           {Or: [][]reference.Criterion{{onPlatform, c("removed", "EQUAL", true, "true")}}},
		"removed":               {Or: [][]reference.Criterion{{onPlatform, c("removed", "EQUAL", false, "true")}}},
		"custom property":       {Or: [][]reference.Criterion{{onPlatform, c("customProperties", "EQUAL", false, "team=sales")}}},
		"tags exist":            {Or: [][]reference.Criterion{{onPlatform, c("tags", "EXISTS", false)}}},
		"no tags":               {Or: [][]reference.Criterion{{onPlatform, c("tags", "EXISTS", true)}}},
		"owner":                 {Or: [][]reference.Criterion{{onPlatform, c("owners", "IEQUAL", false, "URN:LI:CORPUSER:ANN")}}},
		"name contains":         {Or: [][]reference.Criterion{{onPlatform, c("name", "CONTAIN", false, "ORDERS")}}},
		"name starts":           {Or: [][]reference.Criterion{{onPlatform, c("name", "START_WITH", false, "be")}}},
		"urn ends":              {Or: [][]reference.Criterion{{onPlatform, c("urn", "END_WITH", false, "delta,PROD)")}}},
		"unknown field":         {Or: [][]reference.Criterion{{onPlatform, c("nosuchfield", "EQUAL", false, "x")}}},
		"unknown field negated": {Or: [][]reference.Criterion{{onPlatform, c("nosuchfield", "EQUAL", true, "x")}}},
		"or":                    {Or: [][]reference.Criterion{{onPlatform, c("origin", "EQUAL", false, "DEV")}, {onPlatform, c("owners", "EQUAL", false, "urn:li:corpuser:ann")}}},
		"words":                 {Or: [][]reference.Criterion{{onPlatform}}, Terms: []string{"daily", "ALPHA"}},
		"a word in the urn":     {Or: [][]reference.Criterion{{onPlatform}}, Terms: []string{"gamma"}},
	}
	aspects := map[reference.URN]map[string]json.RawMessage{}
	for _, d := range ds {
		stored, err := testDB.Aspects(root, d)
		if err != nil {
			t.Fatal(err)
		}
		aspects[d] = map[string]json.RawMessage{}
		for _, a := range stored {
			aspects[d][a.Name] = a.Value
		}
	}
	for name, q := range cases {
		t.Run(name, func(t *testing.T) {
			q.Types, q.Keys = []string{"dataset"}, map[string]string{"dataset": "datasetKey"}
			page, err := testDB.SearchEntities(root, q)
			if err != nil {
				t.Fatal(err)
			}
			var sql, inGo []string
			for _, h := range page.Hits {
				sql = append(sql, h.URN.String())
			}
			for _, d := range ds {
				if reference.MatchesSearch(reference.SearchDocument(d, "datasetKey", aspects[d]), q) {
					inGo = append(inGo, d.String())
				}
			}
			slices.Sort(inGo)
			if !slices.Equal(sql, inGo) || page.Total != len(sql) {
				t.Errorf("SQL found %v (total %d), Go %v", sql, page.Total, inGo)
			}
			if len(sql) == 0 && !strings.Contains(name, "unknown field") && name != "tags exist" {
				t.Errorf("the case finds nothing: it shows nothing")
			}
		})
	}
}

// TestSearchPagesAndPrivileges: pages by scroll id, each entity once; a
// caller who may read one dataset finds that one alone.
func TestSearchPagesAndPrivileges(t *testing.T) {
	f := newFixture(t)
	platform := "p" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	var want []string
	for i := range 5 {
		d := reference.URN{EntityType: "dataset", ID: fmt.Sprintf("(urn:li:dataPlatform:%s,t%d,PROD)", platform, i)}
		f.ingest(t, d, "datasetProperties", `{"description":"d"}`)
		want = append(want, d.String())
	}
	by := [][]reference.Criterion{{{Field: "platform.keyword", Condition: "EQUAL", Values: []string{"urn:li:dataPlatform:" + platform}}}}
	var got []string
	scroll, pages := "", 0
	for {
		two := 2
		res, err := f.svc.Search(root, reference.SearchInput{Types: []string{"dataset"}, Query: "*", Or: by, ScrollID: scroll, Count: &two})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if res.Total != 5 || len(res.URNs) > 2 {
			t.Fatalf("page %d: %+v", pages, res)
		}
		for _, u := range res.URNs {
			got = append(got, u.String())
		}
		if scroll = res.NextScrollID; scroll == "" {
			break
		}
	}
	if !slices.Equal(got, want) || pages != 3 {
		t.Errorf("pages found %v in %d pages, want %v in 3", got, pages, want)
	}
	if _, err := f.svc.Search(root, reference.SearchInput{ScrollID: "nonsense"}); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("a scroll id never given: %v", err)
	}
	// Over a store that hides the starting policy letting every user read,
	// a user with VIEW_ENTITY_PAGE on one dataset finds it alone.
	u := f.user(t)
	one, _ := reference.ParseURN(want[3])
	f.grantOn(t, u, one, reference.PrivViewEntityPage)
	svc := f.over(t, withoutReadForAll{testDB})
	res, err := svc.Search(as(u), reference.SearchInput{Types: []string{"dataset"}, Or: by})
	if err != nil || res.Total != 1 || len(res.URNs) != 1 || res.URNs[0] != one {
		t.Errorf("a search by someone who may read one dataset: %+v, %v", res, err)
	}
	if res, err := f.svc.Search(as(u), reference.SearchInput{Types: []string{"dataset"}, Or: by}); err != nil || res.Total != 5 {
		t.Errorf("a search by someone whom the starting policy lets read: %+v, %v", res, err)
	}
}

// withoutReadForAll is a store whose policy listings leave out the
// starting policy that lets every user read entities.
type withoutReadForAll struct{ reference.Store }

func (s withoutReadForAll) ListAspects(ctx context.Context, f reference.Filter) ([]reference.Aspect, int, error) {
	as, n, err := s.Store.ListAspects(ctx, f)
	if f.EntityType != reference.EntityPolicy {
		return as, n, err
	}
	return slices.DeleteFunc(as, func(a reference.Aspect) bool { return a.URN.ID == "view-entity-page-all" }), n, err
}

// TestTokenListsByCondition: datahub-gc's expiresAt LESS_THAN and the other
// conditions, through the service and the store.
func TestTokenListsByCondition(t *testing.T) {
	f := newFixture(t)
	u := f.user(t)
	_, hour := f.token(t, u, reference.DurationOneHour)
	_, month := f.token(t, u, reference.DurationOneMonth)
	bound := fmt.Sprint(f.now.Add(2 * time.Hour).UnixMilli())
	list := func(cs ...reference.Criterion) []string {
		t.Helper()
		got, _, err := f.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {u.String()}}, Criteria: cs})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		slices.Sort(ids)
		return ids
	}
	for name, c := range map[string]struct {
		criteria []reference.Criterion
		want     []string
	}{
		"expiring":              {[]reference.Criterion{{Field: "expiresAt", Condition: "LESS_THAN", Values: []string{bound}}}, []string{hour.ID}},
		"not expiring":          {[]reference.Criterion{{Field: "expiresAt", Condition: "LESS_THAN", Values: []string{bound}, Negated: true}}, []string{month.ID}},
		"made since":            {[]reference.Criterion{{Field: "createdAt", Condition: "GREATER_THAN_OR_EQUAL_TO", Values: []string{fmt.Sprint(f.now.UnixMilli())}}}, sorted(hour.ID, month.ID)},
		"expiring, as a number": {[]reference.Criterion{{Field: "expiresAt", Condition: "EQUAL", Values: []string{fmt.Sprint(*hour.ExpiresAt) + ".0"}}}, []string{hour.ID}},
		"name":                  {[]reference.Criterion{{Field: "name", Condition: "CONTAIN", Values: []string{"T"}}}, sorted(hour.ID, month.ID)},
		"name, no":              {[]reference.Criterion{{Field: "name", Condition: "START_WITH", Values: []string{"x"}}}, nil},
	} {
		if got := list(c.criteria...); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
	for _, bad := range []reference.Criterion{
		{Field: "expiresAt", Condition: "LESS_THAN", Values: []string{"soon"}},
		{Field: "expiresAt", Condition: "LESS_THAN"},
		{Field: "nosuchfield", Condition: "EXISTS"},
		{Field: "name", Condition: "IS_NULL", Values: []string{"x"}},
	} {
		if _, _, err := f.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Criteria: []reference.Criterion{bad}}); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
			t.Errorf("%+v: %v, want BAD_REQUEST", bad, err)
		}
	}
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// TestSearchAndReferencesLag: in the lagging mode a dataset is found by
// search the lag after it is written, and for the lag after its deletion;
// a reference is found the lag after the aspect holding it was written.
func TestSearchAndReferencesLag(t *testing.T) {
	l := newLagging(t, testDB, 0)
	platform := "p" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	d := reference.URN{EntityType: "dataset", ID: "(urn:li:dataPlatform:" + platform + ",t,PROD)"}
	tag := "urn:li:tag:" + uuid.NewString()[:8]
	if err := l.svc.IngestProposals(root, []reference.Proposal{proposal(d, "globalTags", `{"tags":[{"tag":"`+tag+`"}]}`)}); err != nil {
		t.Fatal(err)
	}
	by := [][]reference.Criterion{{{Field: "platform", Values: []string{"urn:li:dataPlatform:" + platform}}}}
	found := func() int {
		t.Helper()
		res, err := l.svc.Search(root, reference.SearchInput{Types: []string{"dataset"}, Or: by})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.URNs)
	}
	refs := func() int {
		t.Helper()
		res, err := l.svc.DeleteReferences(root, tag, true)
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if n, r := found(), refs(); n != 0 || r != 0 {
		t.Errorf("at once: found %d, %d references; want none yet", n, r)
	}
	l.now = l.now.Add(testLag)
	if n, r := found(), refs(); n != 1 || r != 1 {
		t.Errorf("after the lag: found %d, %d references; want 1 and 1", n, r)
	}
	if _, err := l.svc.HardDelete(root, d.String(), nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := found(); n != 1 {
		t.Errorf("just deleted: found %d, want 1 (the index still has it)", n)
	}
	l.now = l.now.Add(testLag + time.Millisecond)
	if n := found(); n != 0 {
		t.Errorf("the lag after its deletion: found %d, want 0", n)
	}
}

// TestPatchOfAUsersStatusIsJudgedAsItsUpsert: suspending a user by a
// patch needs MANAGE_USERS_AND_GROUPS besides EDIT_ENTITY, as an upsert of
// the status does; the root's status takes no patch at all.
func TestPatchOfAUsersStatusIsJudgedAsItsUpsert(t *testing.T) {
	f := newFixture(t)
	u, victim := f.user(t), f.user(t)
	f.ingest(t, victim, reference.AspectCorpUserStatus, `{"status":"ACTIVE"}`)
	f.grantOn(t, u, victim, reference.PrivEditEntity)
	suspend := patchProposal(victim, reference.AspectCorpUserStatus, `[{"op":"replace","path":"/status","value":"SUSPENDED"}]`)
	if err := f.svc.IngestProposals(as(u), []reference.Proposal{suspend}); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("a patch of a status with EDIT_ENTITY alone: %v, want UNAUTHORIZED", err)
	}
	if a, err := f.svc.ReadAspect(root, victim.String(), reference.AspectCorpUserStatus, 0); err != nil || !strings.Contains(string(a.Value), "ACTIVE") {
		t.Errorf("the status after a refused patch: %v, %v", a, err)
	}
	rootStatus := patchProposal(reference.RootUser, reference.AspectCorpUserStatus, `[{"op":"add","path":"/status","value":"SUSPENDED"}]`)
	if _, err := f.svc.IngestProposal(root, rootStatus); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("a patch of the root's status: %v, want BAD_REQUEST", err)
	}
	if err := f.svc.IngestProposals(root, []reference.Proposal{suspend}); err != nil {
		t.Errorf("the root suspending by a patch: %v", err)
	}
}

// OpenAPI v3's DELETE /openapi/v3/entity/{type}/{urn} deletes any entity
// of the registry, as DataHub's GenericEntitiesController.deleteEntity does
// (EntityService.deleteUrn), its timeseries values with it; the policies,
// the tokens and the users have their own operations.
func TestDeleteEntityAnyType(t *testing.T) {
	f := newFixture(t)
	c := reference.URN{EntityType: "container", ID: "catalogspec-container-" + uuid.NewString()}
	f.ingest(t, c, "containerProperties", `{"name":"c","customProperties":{}}`)
	job := reference.URN{EntityType: "dataJob", ID: "(urn:li:dataFlow:(datahub," + uuid.NewString() + ",prod),load)"}
	f.ingest(t, job, "datahubIngestionCheckpoint", `{"timestampMillis":5,"pipelineName":"p","platformInstanceId":"","config":"","state":{"formatVersion":"1.0","serde":"base85"},"runId":"r"}`)
	u := f.user(t)
	if err := f.svc.DeleteEntity(as(u), "container", c.String()); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("without DELETE_ENTITY: %v", err)
	}
	for _, urn := range []reference.URN{c, job} {
		if err := f.svc.DeleteEntity(root, urn.EntityType, urn.String()); err != nil {
			t.Errorf("deleting %s: %v", urn, err)
		}
		if as, err := testDB.Aspects(root, urn); err != nil || len(as) != 0 {
			t.Errorf("%s after its deletion: %v, %v", urn, as, err)
		}
		if n, err := testDB.CountTimeseries(root, urn); err != nil || n != 0 {
			t.Errorf("%s's timeseries after its deletion: %d, %v", urn, n, err)
		}
	}
	for _, urn := range []string{"urn:li:dataHubPolicy:0", "urn:li:dataHubAccessToken:x", u.String(), reference.RootUser.String()} {
		if err := f.svc.DeleteEntity(root, entityOf(urn), urn); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
			t.Errorf("deleting %s through the entity path: %v, want BAD_REQUEST", urn, err)
		}
	}
}

func entityOf(urn string) string {
	u, _ := reference.ParseURN(urn)
	return u.EntityType
}
