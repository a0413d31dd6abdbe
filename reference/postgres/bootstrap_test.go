package postgres_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// firstStart is a service over a database no catalogd has started on yet.
func firstStart(t *testing.T, store reference.Store) *reference.Service {
	t.Helper()
	f := &fixture{now: time.Now()}
	return f.over(t, store)
}

// rootHash is the root user's stored password hash.
func rootHash(t *testing.T, db *postgres.DB) []byte {
	t.Helper()
	a, err := db.Aspect(context.Background(), reference.RootUser, reference.AspectCorpUserCredentials)
	if err != nil {
		t.Fatalf("root's credentials: %v", err)
	}
	var cred struct {
		HashedPassword string `json:"hashedPassword"`
	}
	if err := json.Unmarshal(a.Value, &cred); err != nil || cred.HashedPassword == "" {
		t.Fatalf("root's credentials %s: %v", a.Value, err)
	}
	return []byte(cred.HashedPassword)
}

// TestFirstStartMakesRootAndTheBootPolicies: the state the contract promises
// from the first start, and the password given is the one stored (hashed).
func TestFirstStartMakesRootAndTheBootPolicies(t *testing.T) {
	db, _ := pgtest.Fresh(t)
	svc := firstStart(t, db)
	generated, err := svc.Bootstrap(context.Background(), "the-given-password")
	if err != nil || generated != "" {
		t.Fatalf("Bootstrap with a password = %q, %v; want nothing generated", generated, err)
	}
	for _, name := range []string{reference.AspectCorpUserKey, reference.AspectCorpUserInfo} {
		if _, err := db.Aspect(context.Background(), reference.RootUser, name); err != nil {
			t.Errorf("root's %s: %v", name, err)
		}
	}
	for _, p := range reference.BootPolicies() {
		if _, err := db.Aspect(context.Background(), p.URN, reference.AspectPolicyInfo); err != nil {
			t.Errorf("boot policy %s: %v", p.URN, err)
		}
	}
	rootUser, err := svc.CorpUser(reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser}), reference.RootUser.String())
	if err != nil || rootUser == nil || !rootUser.Active || rootUser.DisplayName != "DataHub" || rootUser.FullName != "DataHub Root User" || rootUser.Suspended {
		t.Errorf("the root user after the first start: %+v, %v; want active, named DataHub (DataHub Root User)", rootUser, err)
	}
	if err := bcrypt.CompareHashAndPassword(rootHash(t, db), []byte("the-given-password")); err != nil {
		t.Errorf("the stored hash is not of the password given: %v", err)
	}
	if _, privileges, err := svc.Me(root); err != nil || !privileges[reference.PrivManagePolicies] {
		t.Errorf("root after the first start: privileges %v, %v", privileges, err)
	}
}

// TestFirstStartWithoutPasswordGeneratesOne: shown once, stored hashed, kept
// across restarts, replaced only when an operator gives another.
func TestFirstStartWithoutPasswordGeneratesOne(t *testing.T) {
	db, _ := pgtest.Fresh(t)
	svc := firstStart(t, db)
	generated, err := svc.Bootstrap(context.Background(), "")
	if err != nil || len(generated) < 16 {
		t.Fatalf("Bootstrap without a password = %q, %v; want a generated password", generated, err)
	}
	hash := rootHash(t, db)
	if err := bcrypt.CompareHashAndPassword(hash, []byte(generated)); err != nil {
		t.Fatalf("the stored hash is not of the generated password: %v", err)
	}
	again, err := firstStart(t, db).Bootstrap(context.Background(), "")
	if err != nil || again != "" {
		t.Fatalf("a restart without a password = %q, %v; want nothing generated", again, err)
	}
	if string(rootHash(t, db)) != string(hash) {
		t.Fatalf("a restart without a password changed root's password")
	}
	if _, err := firstStart(t, db).Bootstrap(context.Background(), "the-operators-choice"); err != nil {
		t.Fatal(err)
	}
	if err := bcrypt.CompareHashAndPassword(rootHash(t, db), []byte("the-operators-choice")); err != nil {
		t.Errorf("a restart with a password did not set it: %v", err)
	}
}

// TestRestartKeepsWhatOperatorsChanged: the boot state is written once per
// database; a boot policy an operator deleted stays deleted, and root's
// profile as they edited it stands.
func TestRestartKeepsWhatOperatorsChanged(t *testing.T) {
	db, _ := pgtest.Fresh(t)
	if _, err := firstStart(t, db).Bootstrap(context.Background(), "pw"); err != nil {
		t.Fatal(err)
	}
	deleted := reference.BootPolicies()[1].URN
	if found, err := db.DeleteEntity(context.Background(), deleted); err != nil || !found {
		t.Fatalf("deleting boot policy %s: %v, %v", deleted, found, err)
	}
	edited := reference.Aspect{URN: reference.RootUser, Name: reference.AspectCorpUserInfo, Value: json.RawMessage(`{"active":true,"displayName":"Operator's root"}`)}
	if err := db.UpsertAspect(context.Background(), edited); err != nil {
		t.Fatal(err)
	}
	if _, err := firstStart(t, db).Bootstrap(context.Background(), "pw"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Aspect(context.Background(), deleted, reference.AspectPolicyInfo); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("boot policy %s after a restart: %v; want it to stay deleted", deleted, err)
	}
	info, err := db.Aspect(context.Background(), reference.RootUser, reference.AspectCorpUserInfo)
	if err != nil || !strings.Contains(string(info.Value), "Operator's root") {
		t.Errorf("root's corpUserInfo after a restart: %s, %v; want the operator's %s", info.Value, err, edited.Value)
	}
}

// TestFirstStartReportsStoreFailures: whichever store call of the first
// start fails, Bootstrap says so (catalogd then stops with the cause)
// rather than serving a database without its root user or boot policies.
func TestFirstStartReportsStoreFailures(t *testing.T) {
	db, _ := pgtest.Fresh(t)
	healthy := &faultyStore{Store: db}
	if _, err := firstStart(t, healthy).Bootstrap(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= len(healthy.calls); n++ {
		db, _ := pgtest.Fresh(t)
		store := &faultyStore{Store: db, failAt: n}
		if _, err := firstStart(t, store).Bootstrap(context.Background(), ""); err == nil {
			t.Errorf("store call %d of %d (%s) failing: Bootstrap reported no error", n, len(healthy.calls), healthy.calls[n-1])
		}
	}
}

// TestRootPasswordLongerThanBcryptTakes: bcrypt keeps 72 bytes; a longer
// password is refused at start-up, not cut short where no one can see.
func TestRootPasswordLongerThanBcryptTakes(t *testing.T) {
	db, _ := pgtest.Fresh(t)
	if _, err := firstStart(t, db).Bootstrap(context.Background(), strings.Repeat("p", 73)); err == nil {
		t.Fatal("a 73-byte root password was taken")
	}
	if _, err := db.Aspect(context.Background(), reference.RootUser, reference.AspectCorpUserCredentials); reference.ErrorCodeOf(err) != reference.ENOTFOUND {
		t.Errorf("root's credentials after the refusal: %v, want none", err)
	}
}

// TestStartSettlesTheRootPoliciesAnEarlierVersionStored: an earlier catalogd
// stored the root user's two starting policies as editable, where
// DataHub's are not. A start puts that right for the ones nobody has
// written since, and leaves a policy an administrator rewrote as it is.
func TestStartSettlesTheRootPoliciesAnEarlierVersionStored(t *testing.T) {
	ctx := context.Background()
	db, _ := pgtest.Fresh(t)
	if _, err := firstStart(t, db).Bootstrap(ctx, "pw"); err != nil {
		t.Fatal(err)
	}
	boot := reference.BootPolicies()
	untouched, rewritten := boot[0], boot[1]
	if untouched.Editable || rewritten.Editable {
		t.Fatalf("the root user's starting policies are editable: %+v, %+v", untouched, rewritten)
	}
	// As an earlier version stored them: written by the system user, editable.
	store := func(p reference.Policy, by string) {
		t.Helper()
		p.Editable = true
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.UpsertAspect(ctx, reference.Aspect{URN: p.URN, Name: reference.AspectPolicyInfo, Value: b, CreatedAt: time.Now(), CreatedBy: by}); err != nil {
			t.Fatal(err)
		}
	}
	store(untouched, reference.SystemUser.String())
	rewritten.Name = "Root, as the administrator wrote it"
	store(rewritten, "urn:li:corpuser:admin")

	for range 2 { // a second start finds nothing left to do
		if _, err := firstStart(t, db).Bootstrap(ctx, "pw"); err != nil {
			t.Fatal(err)
		}
		if got := storedPolicy(t, db, untouched.URN); got.Editable || got.Name != untouched.Name {
			t.Errorf("%s after a start: %+v; want it as BootPolicies has it, not editable", untouched.URN, got)
		}
		if got := storedPolicy(t, db, rewritten.URN); !got.Editable || got.Name != rewritten.Name {
			t.Errorf("%s after a start: %+v; want the administrator's policy as written", rewritten.URN, got)
		}
	}
}

// storedPolicy is the policy info stored for urn.
func storedPolicy(t *testing.T, db *postgres.DB, urn reference.URN) reference.Policy {
	t.Helper()
	a, err := db.Aspect(context.Background(), urn, reference.AspectPolicyInfo)
	if err != nil {
		t.Fatalf("policy %s: %v", urn, err)
	}
	var p reference.Policy
	if err := json.Unmarshal(a.Value, &p); err != nil {
		t.Fatalf("policy %s: %s: %v", urn, a.Value, err)
	}
	return p
}

// legacyRootPolicies stores the root user's starting policies as an earlier
// catalogd did: written by the system user, editable.
func legacyRootPolicies(t *testing.T, db *postgres.DB) {
	t.Helper()
	for _, p := range reference.BootPolicies()[:2] {
		p.Editable = true
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.UpsertAspect(context.Background(), reference.Aspect{URN: p.URN, Name: reference.AspectPolicyInfo, Value: b, CreatedAt: time.Now(), CreatedBy: reference.SystemUser.String()}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStartSettlesBothRootPolicies: both of the root user's policies stored
// editable by an earlier catalogd are settled by one start, and whichever
// store call of the settling fails, the start reports it.
func TestStartSettlesBothRootPolicies(t *testing.T) {
	ctx := context.Background()
	db, _ := pgtest.Fresh(t)
	if _, err := firstStart(t, db).Bootstrap(ctx, "pw"); err != nil {
		t.Fatal(err)
	}
	legacyRootPolicies(t, db)
	healthy := &faultyStore{Store: db}
	if _, err := firstStart(t, healthy).Bootstrap(ctx, "pw"); err != nil {
		t.Fatal(err)
	}
	for _, p := range reference.BootPolicies()[:2] {
		if got := storedPolicy(t, db, p.URN); got.Editable {
			t.Errorf("%s after a start: still editable", p.URN)
		}
	}
	for n := 1; n <= len(healthy.calls); n++ {
		legacyRootPolicies(t, db)
		store := &faultyStore{Store: db, failAt: n}
		if _, err := firstStart(t, store).Bootstrap(ctx, "pw"); err == nil {
			t.Errorf("store call %d of %d (%s) failing: Bootstrap reported no error", n, len(healthy.calls), healthy.calls[n-1])
		}
	}
}

// TestStartGivesTheRootUserPrivilegesAddedSince: an earlier catalogd stored
// the root user's platform policy without the privileges added since (the
// ones over users); a start adds them to the policy nobody has rewritten,
// and leaves one an administrator rewrote as it is.
func TestStartGivesTheRootUserPrivilegesAddedSince(t *testing.T) {
	ctx := context.Background()
	db, _ := pgtest.Fresh(t)
	if _, err := firstStart(t, db).Bootstrap(ctx, "pw"); err != nil {
		t.Fatal(err)
	}
	older := reference.BootPolicies()[0]
	older.Privileges = []string{reference.PrivGenerateAccessTokens, reference.PrivManageAccessTokens, reference.PrivManagePolicies}
	write := func(p reference.Policy, by string) {
		t.Helper()
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.UpsertAspect(ctx, reference.Aspect{URN: p.URN, Name: reference.AspectPolicyInfo, Value: b, CreatedAt: time.Now(), CreatedBy: by}); err != nil {
			t.Fatal(err)
		}
	}
	write(older, reference.SystemUser.String())
	for range 2 { // a second start finds nothing left to do
		if _, err := firstStart(t, db).Bootstrap(ctx, "pw"); err != nil {
			t.Fatal(err)
		}
		got := storedPolicy(t, db, older.URN)
		for _, p := range reference.PlatformPrivileges {
			if !slices.Contains(got.Privileges, p) {
				t.Errorf("after a start the root user's policy lacks %s: %v", p, got.Privileges)
			}
		}
		if len(got.Privileges) != len(reference.PlatformPrivileges) || got.Editable {
			t.Errorf("after a start the root user's policy is %+v; want each platform privilege once, not editable", got)
		}
	}
	write(older, "urn:li:corpuser:admin")
	if _, err := firstStart(t, db).Bootstrap(ctx, "pw"); err != nil {
		t.Fatal(err)
	}
	if got := storedPolicy(t, db, older.URN); !slices.Equal(got.Privileges, older.Privileges) {
		t.Errorf("a start changed the privileges of a policy the administrator wrote: %v", got.Privileges)
	}
}
