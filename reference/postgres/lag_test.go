package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/jwt"
)

// The lagging mode (catalogd's CATALOGD_SEARCH_LAG and
// CATALOGD_POLICY_REFRESH, for conformance testing only): search-backed
// listings lag behind writes, and policy changes wait for a refresh, on
// every instance sharing the database, whatever the cache does.

// lagging is an instance of the lagging mode: a Service over a SearchLag
// over store, both on a clock the test moves.
type lagging struct {
	svc    *reference.Service
	lagged *reference.SearchLag // under svc, for listing directly
	now    time.Time
}

const testLag = 4 * time.Second

func newLagging(t *testing.T, store reference.Store, refresh time.Duration) *lagging {
	t.Helper()
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	l := &lagging{now: time.Now()}
	clock := func() time.Time { return l.now }
	lagged := reference.NewSearchLag(store, testLag, clock)
	l.svc = reference.NewService(lagged, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), Now: clock, PolicyRefresh: refresh})
	if _, err := l.svc.Bootstrap(context.Background(), "root-password-for-tests"); err != nil {
		t.Fatal(err)
	}
	lagged.BuiltAt(l.now)
	l.now = l.now.Add(time.Millisecond) // what is made from now on waits for the lag
	l.lagged = lagged
	return l
}

func (l *lagging) user(t *testing.T) reference.URN {
	t.Helper()
	u := reference.UserURN("lag-" + uuid.NewString()[:8])
	p := reference.Proposal{EntityType: u.EntityType, EntityURN: u.String(), ChangeType: "UPSERT", AspectName: reference.AspectCorpUserInfo}
	p.Aspect = &reference.GenericAspect{Value: `{"active":true}`, ContentType: "application/json"}
	if _, err := l.svc.IngestProposal(root, p); err != nil {
		t.Fatal(err)
	}
	return u
}

// tokensOf lists the tokens that act for u, as root.
func tokensOf(svc *reference.Service, u reference.URN) ([]string, int, error) {
	list, total, err := svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {u.String()}}})
	var ids []string
	for _, t := range list {
		ids = append(ids, t.ID)
	}
	return ids, total, err
}

func TestSearchLagListsATokenOnlyOnceTheLagHasPassed(t *testing.T) {
	a := newLagging(t, testDB, 0)
	ann := a.user(t)
	_, info, err := a.svc.CreateAccessToken(root, reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: reference.DurationOneHour, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if ids, total, err := tokensOf(a.svc, ann); err != nil || len(ids) != 0 || total != 0 {
		t.Fatalf("at once: %v (total %d, err %v), want the token not listed yet", ids, total, err)
	}
	a.now = a.now.Add(testLag - time.Millisecond)
	if ids, _, _ := tokensOf(a.svc, ann); len(ids) != 0 {
		t.Fatalf("a millisecond before the lag has passed: %v, want none", ids)
	}
	a.now = a.now.Add(time.Millisecond)
	if ids, total, err := tokensOf(a.svc, ann); err != nil || !slices.Equal(ids, []string{info.ID}) || total != 1 {
		t.Fatalf("once the lag has passed: %v (total %d, err %v), want [%s]", ids, total, err, info.ID)
	}

	// Revoked: the token stops working at once, and the index goes on
	// listing it for the lag; DataHub's resolver then answers an error.
	if err := a.svc.RevokeAccessToken(root, info.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tokensOf(a.svc, ann); err == nil || !strings.Contains(err.Error(), "non null") || !strings.Contains(err.Error(), info.ID) {
		t.Fatalf("listing within the lag after the revocation: err %v, want the non-null error naming %s", err, info.ID)
	}
	// Another instance on the same database, with its own (warm) index,
	// lists it as gone too.
	b := newLagging(t, testDB, 0)
	b.now = a.now
	if _, _, err := tokensOf(b.svc, ann); err == nil {
		t.Fatal("another instance: the revoked token is not listed as gone")
	}
	a.now = a.now.Add(testLag + time.Millisecond)
	if ids, total, err := tokensOf(a.svc, ann); err != nil || len(ids) != 0 || total != 0 {
		t.Fatalf("once the lag has passed since the revocation: %v (total %d, err %v), want none", ids, total, err)
	}
	if as, err := testDB.Aspects(context.Background(), reference.URN{EntityType: "catalogdSearchTombstone", ID: "urn:li:dataHubAccessToken:" + info.ID}); err != nil || len(as) != 0 {
		t.Errorf("the tombstone past the lag: %d aspects (err %v), want it removed", len(as), err)
	}
}

func TestSearchLagPagesAndCountsWhatTheIndexHolds(t *testing.T) {
	a := newLagging(t, testDB, 0)
	ann := a.user(t)
	var made []string
	for i := range 3 {
		_, info, err := a.svc.CreateAccessToken(root, reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: reference.DurationOneHour, Name: "t"})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, info.ID)
		a.now = a.now.Add(time.Duration(i+1) * time.Millisecond) // newest first, as the store orders them
	}
	a.now = a.now.Add(testLag)
	page := func(start, count int) ([]string, int) {
		list, total, err := a.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Start: start, Count: count, Filters: map[string][]string{"actorUrn": {ann.String()}}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, t := range list {
			ids = append(ids, t.ID)
		}
		return ids, total
	}
	if ids, total := page(1, 1); !slices.Equal(ids, []string{made[1]}) || total != 3 {
		t.Errorf("page 2 of 1: %v of %d, want [%s] of 3", ids, total, made[1])
	}
	if ids, total := page(3, 5); len(ids) != 0 || total != 3 {
		t.Errorf("past the end: %v of %d, want none of 3", ids, total)
	}
}

func TestSearchLagLeavesGonePoliciesOutOfTheirListing(t *testing.T) {
	a := newLagging(t, testDB, 0)
	name := "lagged-" + uuid.NewString()
	urn, err := a.svc.CreatePolicy(root, reference.Policy{Type: reference.PolicyPlatform, State: reference.PolicyActive, Name: name,
		Privileges: []string{reference.PrivCreateTags}, Actors: reference.ActorFilter{Users: []string{"urn:li:corpuser:nobody"}}})
	if err != nil {
		t.Fatal(err)
	}
	listed := func() []string {
		ps, _, err := a.svc.ListPolicies(root, 0, 100, name)
		if err != nil {
			t.Fatal(err)
		}
		var urns []string
		for _, p := range ps {
			urns = append(urns, p.URN.String())
		}
		return urns
	}
	if got := listed(); len(got) != 0 {
		t.Fatalf("at once: %v, want none", got)
	}
	a.now = a.now.Add(testLag)
	if got := listed(); !slices.Equal(got, []string{urn.String()}) {
		t.Fatalf("after the lag: %v, want [%s]", got, urn)
	}
	// An update shows at once: what a listed policy shows is read from
	// the store.
	if _, err := a.svc.UpdatePolicy(root, urn.String(), reference.Policy{Type: reference.PolicyPlatform, State: reference.PolicyInactive, Name: name,
		Privileges: []string{reference.PrivCreateTags}, Actors: reference.ActorFilter{Users: []string{"urn:li:corpuser:nobody"}}}); err != nil {
		t.Fatal(err)
	}
	ps, _, err := a.svc.ListPolicies(root, 0, 100, name)
	if err != nil || len(ps) != 1 || ps[0].State != reference.PolicyInactive {
		t.Fatalf("after an update: %+v (err %v), want it listed INACTIVE", ps, err)
	}
	if _, err := a.svc.DeletePolicy(root, urn.String()); err != nil {
		t.Fatal(err)
	}
	if got := listed(); len(got) != 0 {
		t.Errorf("deleted: %v, want it left out (DataHub's policy listing skips what it cannot load)", got)
	}
}

func TestSearchLagListsWhatWasMadeBeforeTheIndexWasBuilt(t *testing.T) {
	a := newLagging(t, testDB, 0)
	ps, _, err := a.svc.ListPolicies(root, 0, 1000, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ps, func(p reference.Policy) bool { return p.URN.ID == "7" }) {
		t.Errorf("the boot policies, made before the index was built, are not listed at once: %d policies", len(ps))
	}
}

// holds says whether u may create tags, as svc judges it now.
func holds(t *testing.T, svc *reference.Service, u reference.URN) bool {
	t.Helper()
	_, privs, err := svc.Me(as(u))
	if err != nil {
		t.Fatal(err)
	}
	return privs[reference.PrivCreateTags]
}

func TestPolicyChangesWaitForTheRefreshOnEveryInstance(t *testing.T) {
	_, _, cacheA, cacheB := replicas(t)
	const period = time.Second
	a, b := newLagging(t, cacheA, period), newLagging(t, cacheB, period)
	ann := a.user(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.svc.RefreshPolicies(ctx)
	go b.svc.RefreshPolicies(ctx)
	if holds(t, a.svc, ann) || holds(t, b.svc, ann) {
		t.Fatal("Ann holds CREATE_TAGS before any grant")
	}
	policy, err := a.svc.CreatePolicy(root, reference.Policy{Type: reference.PolicyPlatform, State: reference.PolicyActive, Name: "grant",
		Privileges: []string{reference.PrivCreateTags}, Actors: reference.ActorFilter{Users: []string{ann.String()}}})
	if err != nil {
		t.Fatal(err)
	}
	// Neither the instance that made it (whose cache applied its own
	// write) nor the other (whose cache was notified) applies it before a
	// refresh after the search lag.
	if holds(t, a.svc, ann) || holds(t, b.svc, ann) {
		t.Fatal("a new policy took effect before a refresh")
	}
	a.now, b.now = a.now.Add(testLag), b.now.Add(testLag) // the index has it now
	within := func(want bool, what string) {
		t.Helper()
		deadline := time.Now().Add(10 * period)
		for holds(t, a.svc, ann) != want || holds(t, b.svc, ann) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not on both instances within ten refresh periods", what)
			}
			time.Sleep(period / 20)
		}
	}
	// A refresh has just run: the next is a period away.
	within(true, "the grant")
	if _, err := a.svc.UpdatePolicy(root, policy.String(), reference.Policy{Type: reference.PolicyPlatform, State: reference.PolicyInactive, Name: "grant",
		Privileges: []string{reference.PrivCreateTags}, Actors: reference.ActorFilter{Users: []string{ann.String()}}}); err != nil {
		t.Fatal(err)
	}
	if !holds(t, a.svc, ann) || !holds(t, b.svc, ann) {
		t.Fatal("a policy set INACTIVE took effect before a refresh")
	}
	within(false, "INACTIVE")
}

// TestSearchLagFiltersWhatItStillListsOfTheGone: within the lag an entity
// deleted is still counted by the listings it matched, and only by those:
// the filter applies to what it held (one of its fields containing the
// text asked for, or equal to a value), never to an aspect of another name.
func TestSearchLagFiltersWhatItStillListsOfTheGone(t *testing.T) {
	ctx := context.Background()
	l := newLagging(t, testDB, 0)
	tag := uuid.NewString()[:8]
	urns := l.policies(t, "gone-match-"+tag, "gone-other-"+tag)
	l.now = l.now.Add(testLag) // both indexed
	l.deletePolicies(t, urns...)
	for _, c := range []struct {
		what string
		f    reference.Filter
		want []string
	}{
		{"whose name contains a text", reference.Filter{Contains: map[string]string{"displayName": "MATCH-" + tag}}, urns[:1]},
		{"whose name is a value", reference.Filter{Where: map[string][]string{"displayName": {"gone-match-" + tag}}}, urns[:1]},
		{"whose state is a value", reference.Filter{Where: map[string][]string{"state": {"ACTIVE"}}}, urns},
	} {
		f := c.f
		f.EntityType, f.Aspect, f.Search, f.KeepGone = reference.EntityPolicy, reference.AspectPolicyInfo, true, true
		page, total, err := l.lagged.ListAspects(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var gone []string
		for _, a := range page {
			if a.Value == nil && slices.Contains(urns, a.URN.String()) {
				gone = append(gone, a.URN.String())
			}
		}
		want := slices.Sorted(slices.Values(c.want))
		slices.Sort(gone)
		if !slices.Equal(gone, want) {
			t.Errorf("the policies %s, within the lag after both were deleted: %v listed as gone (total %d), want %v", c.what, gone, total, want)
		}
	}
}

// TestSearchLagForgetsTheGoneOnlyOnceTheLagHasPassed: a policy deleted
// longer ago than the lag is no longer listed, and its passing does not
// hide one deleted since, still within it.
func TestSearchLagForgetsTheGoneOnlyOnceTheLagHasPassed(t *testing.T) {
	ctx := context.Background()
	l := newLagging(t, testDB, 0)
	tag := uuid.NewString()[:8]
	urns := l.policies(t, "forgotten-"+tag, "recent-"+tag)
	l.now = l.now.Add(testLag) // both indexed
	l.deletePolicies(t, urns[0])
	l.now = l.now.Add(testLag + time.Millisecond) // the first is forgotten
	l.deletePolicies(t, urns[1])
	page, _, err := l.lagged.ListAspects(ctx, reference.Filter{EntityType: reference.EntityPolicy, Aspect: reference.AspectPolicyInfo,
		Search: true, KeepGone: true, Contains: map[string]string{"displayName": tag}})
	if err != nil {
		t.Fatal(err)
	}
	var gone []string
	for _, a := range page {
		if a.Value == nil {
			gone = append(gone, a.URN.String())
		}
	}
	if !slices.Equal(gone, urns[1:]) {
		t.Errorf("listed as gone: %v, want only the policy deleted within the lag, %s", gone, urns[1])
	}
}

// policies makes an active policy of each name and returns their URNs.
func (l *lagging) policies(t *testing.T, names ...string) []string {
	t.Helper()
	var urns []string
	for _, name := range names {
		urn, err := l.svc.CreatePolicy(root, reference.Policy{Type: reference.PolicyPlatform, State: reference.PolicyActive, Name: name,
			Privileges: []string{reference.PrivCreateTags}, Actors: reference.ActorFilter{Users: []string{"urn:li:corpuser:nobody"}}})
		if err != nil {
			t.Fatal(err)
		}
		urns = append(urns, urn.String())
	}
	return urns
}

func (l *lagging) deletePolicies(t *testing.T, urns ...string) {
	t.Helper()
	for _, u := range urns {
		if _, err := l.svc.DeletePolicy(root, u); err != nil {
			t.Fatal(err)
		}
	}
}
