package postgres_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/jwt"
	"github.com/catalogspec/catalogspec/reference/postgres"
)

// fixture is a Service over the test database with a clock the test moves.
type fixture struct {
	svc *reference.Service
	now time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{now: time.Now()}
	f.svc = reference.NewService(testDB, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), Now: func() time.Time { return f.now }})
	if _, err := f.svc.Bootstrap(context.Background(), "root-password-for-tests"); err != nil {
		t.Fatal(err)
	}
	return f
}

var root = reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})

func as(u reference.URN) context.Context {
	return reference.NewContextWithActor(context.Background(), reference.Actor{URN: u})
}

// user makes a user through ingestion, as the suite does.
func (f *fixture) user(t *testing.T) reference.URN {
	t.Helper()
	u := reference.UserURN("u-" + uuid.NewString()[:8])
	f.ingest(t, u, "corpUserInfo", `{"active":true,"displayName":"Test"}`)
	return u
}

func (f *fixture) ingest(t *testing.T, u reference.URN, aspectName, value string) {
	t.Helper()
	p := reference.Proposal{EntityType: u.EntityType, EntityURN: u.String(), ChangeType: "UPSERT", AspectName: aspectName}
	p.Aspect = &reference.GenericAspect{Value: value, ContentType: "application/json"}
	if _, err := f.svc.IngestProposal(root, p); err != nil {
		t.Fatalf("ingest %s of %s: %v", aspectName, u, err)
	}
}

func (f *fixture) grant(t *testing.T, u reference.URN, privileges ...string) reference.URN {
	t.Helper()
	urn, err := f.svc.CreatePolicy(root, reference.Policy{
		Type: reference.PolicyPlatform, State: reference.PolicyActive, Name: "p-" + uuid.NewString(),
		Privileges: privileges, Actors: reference.ActorFilter{Users: []string{u.String()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return urn
}

func (f *fixture) token(t *testing.T, u reference.URN, duration string) (string, reference.AccessTokenInfo) {
	t.Helper()
	raw, info, err := f.svc.CreateAccessToken(root, reference.CreateAccessTokenInput{ActorURN: u.String(), Duration: duration, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return raw, info
}

func TestAuthenticateFollowsTheRecord(t *testing.T) {
	f := newFixture(t)
	ann := f.user(t)
	raw, info := f.token(t, ann, reference.DurationOneHour)
	actor, err := f.svc.Authenticate(context.Background(), raw)
	if err != nil || actor.URN != ann {
		t.Fatalf("fresh token: actor %v, err %v", actor.URN, err)
	}
	if info.OwnerURN != reference.RootUser.String() || info.ActorURN != ann.String() {
		t.Errorf("token owner/actor = %s/%s", info.OwnerURN, info.ActorURN)
	}

	f.now = f.now.Add(2 * time.Hour)
	if _, err := f.svc.Authenticate(context.Background(), raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("expired token: err = %v, want UNAUTHENTICATED", err)
	}
	f.now = time.Now()

	f.ingest(t, ann, "corpUserStatus", `{"status":"SUSPENDED"}`)
	if _, err := f.svc.Authenticate(context.Background(), raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("suspended user: err = %v, want UNAUTHENTICATED", err)
	}
	f.ingest(t, ann, "corpUserStatus", `{"status":"ACTIVE"}`)
	if _, err := f.svc.Authenticate(context.Background(), raw); err != nil {
		t.Errorf("reactivated user: %v", err)
	}

	if err := f.svc.RevokeAccessToken(root, info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(context.Background(), raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("revoked token: err = %v, want UNAUTHENTICATED", err)
	}
}

func TestPrivilegesAreReadOnEveryCall(t *testing.T) {
	f := newFixture(t)
	ann := f.user(t)
	createTag := func() error {
		_, err := f.svc.CreateTag(as(ann), reference.CreateTagInput{ID: uuid.NewString(), Name: "n"})
		return err
	}
	if err := createTag(); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Fatalf("before grant: %v, want UNAUTHORIZED", err)
	}
	policy := f.grant(t, ann, reference.PrivCreateTags)
	if err := createTag(); err != nil {
		t.Fatalf("after grant: %v", err)
	}
	if _, err := f.svc.UpdatePolicy(root, policy.String(), reference.Policy{
		Type: reference.PolicyPlatform, State: reference.PolicyInactive, Name: "off",
		Privileges: []string{reference.PrivCreateTags}, Actors: reference.ActorFilter{Users: []string{ann.String()}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := createTag(); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Fatalf("after INACTIVE: %v, want UNAUTHORIZED", err)
	}
}

func TestTokensForOthersNeedManage(t *testing.T) {
	f := newFixture(t)
	ann, bob := f.user(t), f.user(t)
	in := reference.CreateAccessTokenInput{ActorURN: bob.String(), Duration: reference.DurationOneDay, Name: "x"}
	if _, _, err := f.svc.CreateAccessToken(as(ann), in); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Fatalf("ann for bob: %v, want UNAUTHORIZED", err)
	}
	in.ActorURN = ann.String()
	if _, _, err := f.svc.CreateAccessToken(as(ann), in); err != nil {
		t.Fatalf("ann for herself (boot policy grants GENERATE): %v", err)
	}
	f.grant(t, ann, reference.PrivManageAccessTokens)
	in.ActorURN = bob.String()
	raw, info, err := f.svc.CreateAccessToken(as(ann), in)
	if err != nil {
		t.Fatalf("manager ann for bob: %v", err)
	}
	if info.ActorURN != bob.String() || info.OwnerURN != ann.String() {
		t.Errorf("actor/owner = %s/%s", info.ActorURN, info.OwnerURN)
	}
	if actor, err := f.svc.Authenticate(context.Background(), raw); err != nil || actor.URN != bob {
		t.Errorf("token acts as %v (%v), want bob", actor.URN, err)
	}
	in.ActorURN = "urn:li:corpuser:nobody-" + uuid.NewString()
	if _, _, err := f.svc.CreateAccessToken(as(ann), in); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("token for a missing user: %v, want BAD_REQUEST", err)
	}
}

// TestNoExpiryCanBeRefused: with RefuseNoExpiry (ACCESS_TOKEN_ALLOW_NO_EXPIRY
// false) a NO_EXPIRY token is refused as a bad request, after the caller's
// privileges, and none is made; other durations and the operator's own
// minting are not affected.
func TestNoExpiryCanBeRefused(t *testing.T) {
	f := newFixture(t)
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	svc := reference.NewService(testDB, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), RefuseNoExpiry: true})
	if svc.AllowsNoExpiry() || !f.svc.AllowsNoExpiry() {
		t.Errorf("AllowsNoExpiry: %t with RefuseNoExpiry, %t without", svc.AllowsNoExpiry(), f.svc.AllowsNoExpiry())
	}
	ann, bob := f.user(t), f.user(t)
	own := func(u reference.URN) int {
		list, _, err := svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {u.String()}}})
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	never := reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: reference.DurationNoExpiry, Name: "never"}
	if _, _, err := svc.CreateAccessToken(as(ann), never); reference.ErrorCodeOf(err) != reference.EBADREQUEST || !strings.Contains(err.Error(), "ACCESS_TOKEN_ALLOW_NO_EXPIRY") {
		t.Errorf("NO_EXPIRY refused: %v, want BAD_REQUEST naming ACCESS_TOKEN_ALLOW_NO_EXPIRY", err)
	}
	if n := own(ann); n != 0 {
		t.Errorf("a refused NO_EXPIRY made %d tokens", n)
	}
	forBob := never
	forBob.ActorURN = bob.String()
	if _, _, err := svc.CreateAccessToken(as(ann), forBob); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("NO_EXPIRY for someone else without MANAGE_ACCESS_TOKENS: %v, want UNAUTHORIZED first", err)
	}
	if _, _, err := f.svc.CreateAccessToken(as(ann), never); err != nil {
		t.Errorf("NO_EXPIRY without RefuseNoExpiry: %v", err)
	}
	hour := never
	hour.Duration = reference.DurationOneHour
	if _, _, err := svc.CreateAccessToken(as(ann), hour); err != nil {
		t.Errorf("ONE_HOUR with RefuseNoExpiry: %v", err)
	}
	if _, info, err := svc.MintAccessToken(context.Background(), forBob); err != nil || info.ExpiresAt != nil {
		t.Errorf("the operator's NO_EXPIRY token: expiresAt %v, %v", info.ExpiresAt, err)
	}
}

func TestListAccessTokensNeverHoldsRawToken(t *testing.T) {
	f := newFixture(t)
	ann := f.user(t)
	raw, _, err := f.svc.CreateAccessToken(as(ann), reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: reference.DurationOneDay, Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.ListAccessTokens(as(ann), reference.ListAccessTokensInput{}); reference.ErrorCodeOf(err) != reference.EUNAUTHORIZED {
		t.Errorf("unfiltered list by non-manager: %v, want UNAUTHORIZED", err)
	}
	list, total, err := f.svc.ListAccessTokens(as(ann), reference.ListAccessTokensInput{Filters: map[string][]string{"ownerUrn": {ann.String()}}})
	if err != nil || total != 1 || len(list) != 1 {
		t.Fatalf("own list: %v, total %d, err %v", list, total, err)
	}
	b, _ := json.Marshal(list)
	aspects, _ := testDB.Aspects(context.Background(), list[0].URN())
	for _, a := range aspects {
		b = append(b, a.Value...)
	}
	if strings.Contains(string(b), raw) || strings.Contains(string(b), strings.Split(raw, ".")[2]) {
		t.Error("the raw token is stored or listed")
	}
}

func TestBootstrapRunsOnce(t *testing.T) {
	f := newFixture(t)
	generated, err := f.svc.Bootstrap(context.Background(), "")
	if err != nil || generated != "" {
		t.Fatalf("second Bootstrap generated %q (err %v): the root password exists already", generated, err)
	}
	cred, err := testDB.Aspect(context.Background(), reference.RootUser, reference.AspectCorpUserCredentials)
	if err != nil || strings.Contains(string(cred.Value), "root-password-for-tests") {
		t.Fatalf("root credentials %s (err %v): want a hash only", cred.Value, err)
	}
	if snap, err := f.svc.Entity(root, reference.RootUser.String()); err != nil || strings.Contains(snapshotText(snap), "hashedPassword") {
		t.Errorf("root entity shows credentials (err %v)", err)
	}
}

func snapshotText(s *reference.Snapshot) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	for _, a := range s.Aspects {
		b.WriteString(a.Class)
		b.Write(a.Value)
	}
	return b.String()
}

func TestIngestionCannotForgePoliciesOrTokens(t *testing.T) {
	f := newFixture(t)
	for _, urn := range []string{"urn:li:dataHubPolicy:forged", "urn:li:dataHubAccessToken:forged"} {
		p := reference.Proposal{EntityURN: urn, ChangeType: "UPSERT", AspectName: "dataHubPolicyInfo"}
		p.Aspect = &reference.GenericAspect{Value: `{"state":"ACTIVE"}`}
		if _, err := f.svc.IngestProposal(root, p); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
			t.Errorf("ingest into %s: %v, want BAD_REQUEST", urn, err)
		}
	}
	u := f.user(t)
	p := reference.Proposal{EntityURN: u.String(), ChangeType: "UPSERT", AspectName: reference.AspectCorpUserCredentials}
	p.Aspect = &reference.GenericAspect{Value: `{"hashedPassword":"x"}`}
	if _, err := f.svc.IngestProposal(root, p); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Errorf("ingest credentials: %v, want BAD_REQUEST", err)
	}
}

// TestUserIsThereWhileItsKeyIs: ingestion writes a user's key aspect with
// its first aspect, and once the key is gone the user's token acts for no
// one, though its other aspects are left.
func TestUserIsThereWhileItsKeyIs(t *testing.T) {
	f := newFixture(t)
	ann := f.user(t)
	if _, err := testDB.Aspect(context.Background(), ann, reference.AspectCorpUserKey); err != nil {
		t.Fatalf("ingesting corpUserInfo wrote no corpUserKey: %v", err)
	}
	raw, _ := f.token(t, ann, reference.DurationOneHour)
	if _, err := f.svc.Authenticate(context.Background(), raw); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	if err := postgres.Exec(context.Background(), testDB, `DELETE FROM aspects WHERE urn = $1 AND aspect = 'corpUserKey'`, ann.String()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(context.Background(), raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("a user without a key aspect: err = %v, want UNAUTHENTICATED", err)
	}
}
