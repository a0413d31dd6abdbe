package postgres_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/internal/syncbuf"
	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// replicas are two caches on one fresh database, as two catalogd would be,
// each ready (listening, with a confirmed view).
func replicas(t *testing.T) (db *postgres.DB, dbURL string, a, b *postgres.Cache) {
	t.Helper()
	db, dbURL = pgtest.Fresh(t)
	open := func() *postgres.Cache {
		own, err := postgres.Open(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		c := postgres.NewCache(own, dbURL, slog.New(slog.NewTextHandler(testWriter{t}, nil)))
		t.Cleanup(func() { c.Close(); own.Close() })
		select {
		case <-c.Ready():
		case <-time.After(10 * time.Second):
			t.Fatal("the cache did not get ready within 10s")
		}
		return c
	}
	return db, dbURL, open(), open()
}

func info(urn reference.URN, display string) reference.Aspect {
	return reference.Aspect{URN: urn, Name: reference.AspectCorpUserInfo, Value: json.RawMessage(`{"active":true,"displayName":"` + display + `"}`), CreatedAt: time.Now(), CreatedBy: reference.RootUser.String()}
}

// displayName reads a user's display name through store.
func displayName(t *testing.T, store reference.Store, urn reference.URN) string {
	t.Helper()
	a, err := store.Aspect(context.Background(), urn, reference.AspectCorpUserInfo)
	if reference.ErrorCodeOf(err) == reference.ENOTFOUND {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		DisplayName string `json:"displayName"`
	}
	if err := json.Unmarshal(a.Value, &v); err != nil {
		t.Fatal(err)
	}
	return v.DisplayName
}

// within polls until store shows want for urn, failing after limit.
func within(t *testing.T, limit time.Duration, store reference.Store, urn reference.URN, want, what string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		got := displayName(t, store, urn)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after %s the cache still shows %q, want %q", what, limit, got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCacheSeesItsOwnWritesAtOnce: a replica's own change shows on the very
// next read there, with no wait.
func TestCacheSeesItsOwnWritesAtOnce(t *testing.T) {
	_, _, a, _ := replicas(t)
	u := reference.UserURN("own")
	for _, name := range []string{"first", "second", "third"} {
		if err := a.UpsertAspect(context.Background(), info(u, name)); err != nil {
			t.Fatal(err)
		}
		if got := displayName(t, a, u); got != name {
			t.Fatalf("right after writing %q the cache shows %q", name, got)
		}
	}
	if _, err := a.DeleteEntity(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if got := displayName(t, a, u); got != "" {
		t.Fatalf("right after the delete the cache shows %q", got)
	}
}

// TestCacheFollowsOtherReplicas: what one replica changes, another that has
// it cached shows once the notification arrives; so do changes made around
// catalogd altogether (plain SQL), and listings (policies) follow too.
func TestCacheFollowsOtherReplicas(t *testing.T) {
	db, _, a, b := replicas(t)
	u := reference.UserURN("shared")
	if err := a.UpsertAspect(context.Background(), info(u, "before")); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, b, u, "before", "a user made through another replica")
	if err := a.UpsertAspect(context.Background(), info(u, "after")); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, b, u, "after", "a user changed through another replica")
	if err := postgres.Exec(context.Background(), db, `UPDATE aspects SET value = '{"active":true,"displayName":"by hand"}' WHERE urn = $1 AND aspect = 'corpUserInfo'`, u.String()); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, b, u, "by hand", "a user changed by plain SQL")
	within(t, 5*time.Second, a, u, "by hand", "a user changed by plain SQL, on the replica that wrote it before")

	policies := reference.Filter{EntityType: reference.EntityPolicy, Aspect: reference.AspectPolicyInfo}
	before, _, err := b.ListAspects(context.Background(), policies)
	if err != nil {
		t.Fatal(err)
	}
	p := reference.Aspect{URN: reference.URN{EntityType: reference.EntityPolicy, ID: "p1"}, Name: reference.AspectPolicyInfo, Value: json.RawMessage(`{"state":"ACTIVE"}`), CreatedAt: time.Now(), CreatedBy: "x"}
	if err := a.UpsertAspect(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		after, _, err := b.ListAspects(context.Background(), policies)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) == len(before)+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a policy made through another replica: the listing still has %d, want %d", len(after), len(before)+1)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, trusted := b.Version(reference.EntityPolicy); !trusted {
		t.Error("a replica with a live listener does not trust its cache")
	}
}

// TestCacheNoticesAMissedChange: a change whose notification never came (the
// trigger was off while the counter moved on) is noticed by the next
// heartbeat, which starts the cache over.
func TestCacheNoticesAMissedChange(t *testing.T) {
	db, _, _, b := replicas(t)
	u := reference.UserURN("missed")
	if err := b.UpsertAspect(context.Background(), info(u, "cached")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the write's own notification is in
	if got := displayName(t, b, u); got != "cached" {
		t.Fatalf("the cache shows %q", got)
	}
	// A change neither notified nor counted: invisible by design, which
	// shows the entry is cached.
	err := postgres.Exec(context.Background(), db, `
		BEGIN;
		ALTER TABLE aspects DISABLE TRIGGER aspects_written;
		UPDATE aspects SET value = '{"active":true,"displayName":"silent"}' WHERE urn = '`+u.String()+`' AND aspect = 'corpUserInfo';
		ALTER TABLE aspects ENABLE TRIGGER aspects_written;
		COMMIT;`)
	if err != nil {
		t.Fatal(err)
	}
	if got := displayName(t, b, u); got != "cached" {
		t.Fatalf("the entry was not cached (it reads %q): the test cannot tell a start-over", got)
	}
	// Now the counter moves on with no notification: a missed change.
	if err := postgres.Exec(context.Background(), db, `UPDATE changes SET seq = seq + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, b, u, "silent", "a change that was counted but not notified")
}

// TestCacheAppliesItsOwnWriteWithoutANotification: the writing replica
// forgets what it wrote before the write returns, not when the
// notification comes (here none comes: the trigger is off).
func TestCacheAppliesItsOwnWriteWithoutANotification(t *testing.T) {
	db, _, a, _ := replicas(t)
	u := reference.UserURN("own-silent")
	if err := a.UpsertAspect(context.Background(), info(u, "first")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if got := displayName(t, a, u); got != "first" {
		t.Fatalf("the cache shows %q", got)
	}
	if err := postgres.Exec(context.Background(), db, `ALTER TABLE aspects DISABLE TRIGGER aspects_written`); err != nil {
		t.Fatal(err)
	}
	defer postgres.Exec(context.Background(), db, `ALTER TABLE aspects ENABLE TRIGGER aspects_written`) //nolint:errcheck
	if err := a.UpsertAspect(context.Background(), info(u, "second")); err != nil {
		t.Fatal(err)
	}
	if got := displayName(t, a, u); got != "second" {
		t.Errorf("right after its own write, with no notification, the cache shows %q", got)
	}
}

// TestCacheListingsAreKeptApartByField: two listings that differ only in
// the field they filter on are two listings.
func TestCacheListingsAreKeptApartByField(t *testing.T) {
	_, _, a, _ := replicas(t)
	tok := func(id, owner, actor string) reference.Aspect {
		return reference.Aspect{URN: reference.URN{EntityType: reference.EntityAccessToken, ID: id}, Name: reference.AspectAccessTokenInfo,
			Value: json.RawMessage(`{"name":"t","ownerUrn":"` + owner + `","actorUrn":"` + actor + `","createdAt":0}`), CreatedAt: time.Now(), CreatedBy: "x"}
	}
	for _, t0 := range []reference.Aspect{tok("t1", "urn:li:corpuser:m", "urn:li:corpuser:ann"), tok("t2", "urn:li:corpuser:ann", "urn:li:corpuser:ann")} {
		if err := a.CreateEntity(context.Background(), []reference.Aspect{t0}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	count := func(field string) int {
		as, _, err := a.ListAspects(context.Background(), reference.Filter{EntityType: reference.EntityAccessToken, Aspect: reference.AspectAccessTokenInfo,
			Where: map[string][]string{field: {"urn:li:corpuser:ann"}}})
		if err != nil {
			t.Fatal(err)
		}
		return len(as)
	}
	for range 2 { // the second time from memory
		if got := count("actorUrn"); got != 2 {
			t.Errorf("tokens acting for ann: %d, want 2", got)
		}
		if got := count("ownerUrn"); got != 1 {
			t.Errorf("tokens owned by ann: %d, want 1", got)
		}
	}
}

// TestCacheReadsThroughWhileNotListening: when its listening connection is
// cut, a replica stops trusting what it holds at once and reads from the
// database, and starts listening again by itself.
func TestCacheReadsThroughWhileNotListening(t *testing.T) {
	db, _, a, b := replicas(t)
	u := reference.UserURN("cut")
	if err := a.UpsertAspect(context.Background(), info(u, "before")); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, b, u, "before", "a user made through another replica")
	// Cut every listener and, in the same transaction, change the user with
	// the trigger off: no notification can tell b.
	err := postgres.Exec(context.Background(), db, `
		BEGIN;
		ALTER TABLE aspects DISABLE TRIGGER aspects_written;
		UPDATE aspects SET value = '{"active":true,"displayName":"while cut"}' WHERE urn = '`+u.String()+`' AND aspect = 'corpUserInfo';
		ALTER TABLE aspects ENABLE TRIGGER aspects_written;
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '`+postgres.ListenerName+`';
		COMMIT;`)
	if err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, b, u, "while cut", "a change made while the listener was cut")
	untilTrusted(t, b, true)
	// Listening again, it still shows what it read while cut, not what it
	// held before.
	if got := displayName(t, b, u); got != "while cut" {
		t.Fatalf("after listening again the cache shows %q, want %q", got, "while cut")
	}
	if err := a.UpsertAspect(context.Background(), info(u, "listening again")); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, b, u, "listening again", "a change made after the listener came back")
}

// TestCachePassesOtherEntitiesThrough: tags and datasets are read from the
// database every time (they are not what every request reads).
func TestCachePassesOtherEntitiesThrough(t *testing.T) {
	db, _, a, _ := replicas(t)
	tag := reference.URN{EntityType: reference.EntityTag, ID: "t"}
	props := reference.Aspect{URN: tag, Name: reference.AspectTagProperties, Value: json.RawMessage(`{"name":"one"}`), CreatedAt: time.Now(), CreatedBy: "x"}
	if err := a.UpsertAspect(context.Background(), props); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Aspect(context.Background(), tag, reference.AspectTagProperties); err != nil {
		t.Fatal(err)
	}
	if err := postgres.Exec(context.Background(), db, `UPDATE aspects SET value = '{"name":"two"}' WHERE urn = $1`, tag.String()); err != nil {
		t.Fatal(err)
	}
	got, err := a.Aspect(context.Background(), tag, reference.AspectTagProperties)
	if err != nil || !strings.Contains(string(got.Value), "two") {
		t.Errorf("a tag changed by hand reads %s, %v", got.Value, err)
	}
}

// TestCacheKeepsWhatNoChangeTouched: notified changes to one user leave what
// is cached of another in place, through many numbered notifications and
// heartbeats. (A change made with the trigger off and the counter left
// alone is invisible by design: here it shows that the cache did not start
// over, which would have read it.)
func TestCacheKeepsWhatNoChangeTouched(t *testing.T) {
	db, _, a, b := replicas(t)
	x, y := reference.UserURN("x"), reference.UserURN("y")
	for _, u := range []reference.URN{x, y} {
		if err := a.UpsertAspect(context.Background(), info(u, "first")); err != nil {
			t.Fatal(err)
		}
		within(t, 5*time.Second, b, u, "first", "a user made through another replica")
		within(t, 5*time.Second, a, u, "first", "a user made here")
	}
	// Once the notifications of those writes are in, a read is kept.
	time.Sleep(100 * time.Millisecond)
	for _, c := range []*postgres.Cache{a, b} {
		displayName(t, c, y)
	}
	err := postgres.Exec(context.Background(), db, `
		BEGIN;
		ALTER TABLE aspects DISABLE TRIGGER aspects_written;
		UPDATE aspects SET value = '{"active":true,"displayName":"unnotified"}' WHERE urn = '`+y.String()+`' AND aspect = 'corpUserInfo';
		ALTER TABLE aspects ENABLE TRIGGER aspects_written;
		COMMIT;`)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for i := range 15 {
		last = "change " + string(rune('a'+i))
		if err := a.UpsertAspect(context.Background(), info(x, last)); err != nil {
			t.Fatal(err)
		}
	}
	within(t, 5*time.Second, b, x, last, "the last of 15 changes through another replica")
	time.Sleep(postgres.TrustFor + 400*time.Millisecond) // heartbeats, and past a lapsed trust
	if got := displayName(t, b, y); got != "first" {
		t.Errorf("the other user reads %q: the cache started over (or stopped trusting itself) with no change missed", got)
	}
	if _, trusted := b.Version(reference.EntityCorpUser); !trusted {
		t.Error("an idle replica with a live listener stopped trusting its cache")
	}
	if got := displayName(t, a, y); got != "first" {
		t.Errorf("the writing replica reads %q for the other user", got)
	}
}

// testWriter sends a cache's log to the test's.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestCacheDoesNotKeepAReadThatRacedAChange: a read from the database that
// an invalidation of the same entity (or of its listing) overtook is
// answered but not kept, so the next read sees the change.
func TestCacheDoesNotKeepAReadThatRacedAChange(t *testing.T) {
	db, _, a, _ := replicas(t)
	u := reference.UserURN("raced")
	if err := a.UpsertAspect(context.Background(), info(u, "old")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the write's own notification is in
	silently := func(display string) {
		err := postgres.Exec(context.Background(), db, `
			BEGIN;
			ALTER TABLE aspects DISABLE TRIGGER aspects_written;
			UPDATE aspects SET value = '{"active":true,"displayName":"`+display+`"}' WHERE urn = '`+u.String()+`' AND aspect = 'corpUserInfo';
			ALTER TABLE aspects ENABLE TRIGGER aspects_written;
			COMMIT;`)
		if err != nil {
			t.Fatal(err)
		}
	}
	// The change lands, and its notification is applied, after the read
	// and before the cache decides to keep what it read.
	raced := false
	postgres.OnRead(a, func() {
		if !raced {
			raced = true
			silently("new")
			postgres.Invalidate(a, u)
		}
	})
	if got := displayName(t, a, u); got != "old" {
		t.Fatalf("the racing read answered %q, want what it read: %q", got, "old")
	}
	postgres.OnRead(a, nil)
	if got := displayName(t, a, u); got != "new" {
		t.Errorf("after a read that raced a change the cache answers %q, want %q", got, "new")
	}

	// The same for a listing of policies.
	policies := reference.Filter{EntityType: reference.EntityPolicy, Aspect: reference.AspectPolicyInfo}
	p := reference.URN{EntityType: reference.EntityPolicy, ID: "raced"}
	raced = false
	postgres.OnRead(a, func() {
		if !raced {
			raced = true
			if err := db.UpsertAspect(context.Background(), reference.Aspect{URN: p, Name: reference.AspectPolicyInfo, Value: json.RawMessage(`{"state":"ACTIVE"}`), CreatedAt: time.Now(), CreatedBy: "x"}); err != nil {
				t.Fatal(err)
			}
			postgres.Invalidate(a, p)
		}
	})
	before, _, err := a.ListAspects(context.Background(), policies)
	if err != nil {
		t.Fatal(err)
	}
	postgres.OnRead(a, nil)
	after, _, err := a.ListAspects(context.Background(), policies)
	if err != nil || len(after) != len(before)+1 {
		t.Errorf("after a listing that raced a change the cache lists %d (%v), want %d", len(after), err, len(before)+1)
	}
}

// silently runs sql on db with the change trigger off: no notification, no
// count, so no cache hears of it.
func silently(t *testing.T, db *postgres.DB, sql string) {
	t.Helper()
	err := postgres.Exec(context.Background(), db, `
		BEGIN;
		ALTER TABLE aspects DISABLE TRIGGER aspects_written;
		`+sql+`;
		ALTER TABLE aspects ENABLE TRIGGER aspects_written;
		COMMIT;`)
	if err != nil {
		t.Fatal(err)
	}
}

// policyAspect is a policy's info aspect, named name.
func policyAspect(id, name string) reference.Aspect {
	return reference.Aspect{URN: reference.URN{EntityType: reference.EntityPolicy, ID: id}, Name: reference.AspectPolicyInfo,
		Value: json.RawMessage(`{"displayName":"` + name + `","state":"ACTIVE"}`), CreatedAt: time.Now(), CreatedBy: "x"}
}

// policyCount lists the policies through store.
func policyCount(t *testing.T, store reference.Store) int {
	t.Helper()
	as, _, err := store.ListAspects(context.Background(), reference.Filter{EntityType: reference.EntityPolicy, Aspect: reference.AspectPolicyInfo})
	if err != nil {
		t.Fatal(err)
	}
	return len(as)
}

// TestCacheAppliesEachOfItsOwnWritesWithoutANotification: every kind of
// write (make, replace, delete) is seen by the writing replica's next read
// of the entity and of its listings, with no notification to tell it.
func TestCacheAppliesEachOfItsOwnWritesWithoutANotification(t *testing.T) {
	db, _, a, _ := replicas(t)
	ctx := context.Background()
	u := reference.UserURN("own-writes")
	if err := a.UpsertAspect(ctx, info(u, "first")); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateEntity(ctx, []reference.Aspect{policyAspect("own-1", "one")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)               // the writes' own notifications are in
	if got := displayName(t, a, u); got != "first" { // now cached
		t.Fatalf("the cache shows %q", got)
	}
	if got := policyCount(t, a); got != 1 { // now cached
		t.Fatalf("the cache lists %d policies, want 1", got)
	}
	if err := postgres.Exec(ctx, db, `ALTER TABLE aspects DISABLE TRIGGER aspects_written`); err != nil {
		t.Fatal(err)
	}
	defer postgres.Exec(ctx, db, `ALTER TABLE aspects ENABLE TRIGGER aspects_written`) //nolint:errcheck

	if err := a.WriteAspects(ctx, []reference.Aspect{info(u, "batched")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := displayName(t, a, u); got != "batched" {
		t.Errorf("right after a batch wrote the aspect the cache shows %q", got)
	}
	replaced := info(u, "replaced")
	if err := a.ReplaceAspect(ctx, replaced); err != nil {
		t.Fatal(err)
	}
	if got := displayName(t, a, u); got != "replaced" {
		t.Errorf("right after replacing the aspect the cache shows %q", got)
	}
	if err := a.CreateEntity(ctx, []reference.Aspect{policyAspect("own-2", "two")}); err != nil {
		t.Fatal(err)
	}
	if got := policyCount(t, a); got != 2 {
		t.Errorf("right after making a policy the cache lists %d, want 2", got)
	}
	if err := a.ReplaceAspect(ctx, policyAspect("own-2", "two, replaced")); err != nil {
		t.Fatal(err)
	}
	if as, _, err := a.ListAspects(ctx, reference.Filter{EntityType: reference.EntityPolicy, Aspect: reference.AspectPolicyInfo}); err != nil || len(as) != 2 || !strings.Contains(string(as[0].Value)+string(as[1].Value), "two, replaced") {
		t.Errorf("right after replacing a policy the cache lists %d (%v): want the replaced one among 2", len(as), err)
	}
	if _, err := a.DeleteEntity(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got := displayName(t, a, u); got != "" {
		t.Errorf("right after deleting the user the cache shows %q", got)
	}
	if _, err := a.DeleteEntity(ctx, reference.URN{EntityType: reference.EntityPolicy, ID: "own-1"}); err != nil {
		t.Fatal(err)
	}
	if got := policyCount(t, a); got != 1 {
		t.Errorf("right after deleting a policy the cache lists %d, want 1", got)
	}
}

// TestCacheListingsAreKeptApartByAspect: two listings of one entity type
// that differ only in the aspect listed are two listings.
func TestCacheListingsAreKeptApartByAspect(t *testing.T) {
	_, _, a, _ := replicas(t)
	ctx := context.Background()
	u := reference.UserURN("two-aspects")
	key := reference.Aspect{URN: u, Name: reference.AspectCorpUserKey, Value: json.RawMessage(`{"username":"two-aspects"}`), CreatedAt: time.Now(), CreatedBy: "x"}
	if err := a.CreateEntity(ctx, []reference.Aspect{key, info(u, "shown")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	for range 2 { // the second time from memory
		for _, name := range []string{reference.AspectCorpUserKey, reference.AspectCorpUserInfo} {
			as, _, err := a.ListAspects(ctx, reference.Filter{EntityType: reference.EntityCorpUser, Aspect: name})
			if err != nil {
				t.Fatal(err)
			}
			if len(as) != 1 || as[0].Name != name {
				t.Errorf("listing %s: %d aspects (%v), want the user's %s", name, len(as), as, name)
			}
		}
	}
}

// TestCacheStartsListingsOverAfterACut: a listing held before the listener
// was cut is not served once it listens again (a change may have come and
// gone unheard meanwhile).
func TestCacheStartsListingsOverAfterACut(t *testing.T) {
	db, _, _, b := replicas(t)
	if err := b.CreateEntity(context.Background(), []reference.Aspect{policyAspect("cut-1", "one")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if got := policyCount(t, b); got != 1 { // now cached
		t.Fatalf("the cache lists %d policies, want 1", got)
	}
	silently(t, db, `INSERT INTO aspects (urn, entity_type, aspect, value, created_at, created_by)
		VALUES ('urn:li:dataHubPolicy:cut-2', 'dataHubPolicy', 'dataHubPolicyInfo', '{"displayName":"two","state":"ACTIVE"}', now(), 'x');
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '`+postgres.ListenerName+`'`)
	deadline := time.Now().Add(10 * time.Second)
	for policyCount(t, b) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("10s after its listener was cut the cache still lists %d policies, want 2", policyCount(t, b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	untilTrusted(t, b, true)
	if got := policyCount(t, b); got != 2 {
		t.Errorf("listening again, the cache lists %d policies, want 2", got)
	}
}

// TestCacheStopsTrustingWhenItsListenerDrops: the moment its listening
// connection drops the cache reads from the database, not only once its
// last confirmation has lapsed (here the clock stands still, so it never
// would), and while it cannot listen again it goes on doing so.
func TestCacheStopsTrustingWhenItsListenerDrops(t *testing.T) {
	db, _, _, b := replicas(t)
	u := reference.UserURN("dropped")
	if err := b.UpsertAspect(context.Background(), info(u, "before")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if got := displayName(t, b, u); got != "before" { // now cached
		t.Fatalf("the cache shows %q", got)
	}
	frozen := time.Now()
	postgres.SetNow(b, func() time.Time { return frozen })
	postgres.SetURL(b, "postgres://catalog@127.0.0.1:1/catalog?connect_timeout=1")
	silently(t, db, `UPDATE aspects SET value = '{"active":true,"displayName":"while down"}' WHERE urn = '`+u.String()+`' AND aspect = 'corpUserInfo';
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '`+postgres.ListenerName+`'`)
	within(t, 5*time.Second, b, u, "while down", "a change made as the listener dropped, the clock standing still")
	if _, trusted := b.Version(reference.EntityCorpUser); trusted {
		t.Error("a cache that cannot listen trusts itself")
	}
}

// TestCacheSaysWhyItCannotListen: when it cannot listen (a URL that does
// not parse, a server that does not answer, a role that may not read the
// change counter), the cache's warning carries the cause, and its reads go
// to the database.
func TestCacheSaysWhyItCannotListen(t *testing.T) {
	db, dbURL := pgtest.Fresh(t)
	_, asRole := role(t, dbURL)
	for _, tc := range []struct{ name, url, cause string }{
		{"a URL that does not parse", "postgres://[::1", "cannot parse"},
		{"a server that does not answer", "postgres://catalog@127.0.0.1:1/catalog?connect_timeout=1", "127.0.0.1"},
		{"no right to read the change counter", asRole, "permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log syncbuf.Buffer
			c := postgres.NewCache(db, tc.url, slog.New(slog.NewTextHandler(&log, nil)))
			defer c.Close()
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(log.String(), "change notifications interrupted") {
				if time.Now().After(deadline) {
					t.Fatalf("no warning within 10s; the log: %s", log.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			line, _, _ := strings.Cut(log.String()[strings.Index(log.String(), "change notifications interrupted"):], "\n")
			if !strings.Contains(line, tc.cause) || strings.Contains(line, "error=<nil>") {
				t.Errorf("the warning does not say why (want %q in it): %s", tc.cause, line)
			}
			if _, trusted := c.Version(reference.EntityPolicy); trusted {
				t.Error("a cache that cannot listen trusts itself")
			}
		})
	}
}

// logged is a cache over db listening at url whose log the test reads.
func logged(t *testing.T, db *postgres.DB, url string) (*postgres.Cache, *syncbuf.Buffer) {
	t.Helper()
	log := &syncbuf.Buffer{}
	c := postgres.NewCache(db, url, slog.New(slog.NewTextHandler(log, nil)))
	t.Cleanup(c.Close)
	return c, log
}

// warning waits for the cache's warning that it stopped listening and
// returns its line.
func warning(t *testing.T, log *syncbuf.Buffer) string {
	t.Helper()
	const msg = "change notifications interrupted"
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), msg) {
		if time.Now().After(deadline) {
			t.Fatalf("no warning within 10s; the log: %s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := log.String()
	line, _, _ := strings.Cut(s[strings.Index(s, msg):], "\n")
	return line
}

// TestCacheSaysWhyItStoppedListening: when a listening cache loses its
// connection, or may no longer read the change counter, its warning says
// why.
func TestCacheSaysWhyItStoppedListening(t *testing.T) {
	t.Run("the connection ended", func(t *testing.T) {
		db, dbURL := pgtest.Fresh(t)
		c, log := logged(t, db, dbURL)
		<-c.Ready()
		if err := postgres.Exec(context.Background(), db, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '`+postgres.ListenerName+`'`); err != nil {
			t.Fatal(err)
		}

		if line := warning(t, log); strings.Contains(line, "error=<nil>") || !strings.Contains(line, "error=") {
			t.Errorf("the warning does not say why: %s", line)
		}
	})
	t.Run("no more right to read the change counter", func(t *testing.T) {
		db, dbURL := pgtest.Fresh(t)
		name, asRole := role(t, dbURL)
		pgtest.Admin(t, "GRANT SELECT ON changes TO "+name, dbURL)
		c, log := logged(t, db, asRole)
		<-c.Ready()
		pgtest.Admin(t, "REVOKE SELECT ON changes FROM "+name, dbURL)
		if line := warning(t, log); !strings.Contains(line, "permission denied") {
			t.Errorf("the warning does not say why (want %q in it): %s", "permission denied", line)
		}
	})
}

// TestCacheDoesNotKeepAReadFromBeforeItListened: a read made from the
// database while the cache was not listening, and finished once it listens
// again, is answered but not kept: a change committed between that read
// and the start of listening was notified to no one, and the cache would
// hold the old value for good.
func TestCacheDoesNotKeepAReadFromBeforeItListened(t *testing.T) {
	db, dbURL, _, b := replicas(t)
	u := reference.UserURN("straddle")
	if err := db.UpsertAspect(context.Background(), info(u, "old")); err != nil {
		t.Fatal(err)
	}
	postgres.SetURL(b, "postgres://catalog@127.0.0.1:1/catalog?connect_timeout=1")
	if err := postgres.Exec(context.Background(), db, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '`+postgres.ListenerName+`'`); err != nil {
		t.Fatal(err)
	}
	untilTrusted(t, b, false)
	straddled := false
	postgres.OnRead(b, func() {
		if straddled {
			return
		}
		straddled = true
		// Read, not yet kept: the user changes (its notification reaches
		// no listener of b), then b listens again.
		if err := db.UpsertAspect(context.Background(), info(u, "new")); err != nil {
			t.Fatal(err)
		}
		postgres.SetURL(b, dbURL)
		untilTrusted(t, b, true)
	})
	if got := displayName(t, b, u); got != "old" {
		t.Fatalf("the straddling read answered %q, want what it read: %q", got, "old")
	}
	postgres.OnRead(b, nil)
	if got := displayName(t, b, u); got != "new" {
		t.Errorf("after a read that straddled the start of listening the cache answers %q, want %q", got, "new")
	}
}

// TestCacheStartsOverOnAnUnreadableNotification: a notification on the
// changes channel that does not read as "<number> <urn>" may stand for any
// change: the cache forgets everything, not just the URN it may name.
func TestCacheStartsOverOnAnUnreadableNotification(t *testing.T) {
	for _, payload := range []string{"not-a-number urn:li:corpuser:x", "7 not-a-urn"} {
		t.Run(payload, func(t *testing.T) {
			db, dbURL := pgtest.Fresh(t)
			c, _ := logged(t, db, dbURL)
			<-c.Ready()
			y := reference.UserURN("y")
			if err := c.UpsertAspect(context.Background(), info(y, "cached")); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // the write's own notification is in
			if got := displayName(t, c, y); got != "cached" {
				t.Fatalf("the cache shows %q", got)
			}
			silently(t, db, `UPDATE aspects SET value = '{"active":true,"displayName":"changed"}' WHERE urn = '`+y.String()+`' AND aspect = 'corpUserInfo'`)
			if got := displayName(t, c, y); got != "cached" {
				t.Fatalf("the entry was not cached (it reads %q): the test cannot tell a start-over", got)
			}
			if err := postgres.Exec(context.Background(), db, `SELECT pg_notify('catalogd_changes', $1)`, payload); err != nil {
				t.Fatal(err)
			}
			within(t, 5*time.Second, c, y, "changed", "after an unreadable notification")
		})
	}
}

// TestCacheRecoversFromAMissedChange: a change counted but never notified
// starts the cache over in place, says so, and the cache trusts itself
// again at once (it does not go on reading everything from the database,
// nor drop its connection).
func TestCacheRecoversFromAMissedChange(t *testing.T) {
	db, dbURL := pgtest.Fresh(t)
	c, log := logged(t, db, dbURL)
	<-c.Ready()
	if err := postgres.Exec(context.Background(), db, `UPDATE changes SET seq = seq + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "a change was not notified") {
		if time.Now().After(deadline) {
			t.Fatalf("no word of the missed change within 5s; the log: %s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(2 * postgres.TrustFor) // past any trust from before the miss
	if _, trusted := c.Version(reference.EntityCorpUser); !trusted {
		t.Error("after starting over, the cache does not trust itself again")
	}
	if strings.Contains(log.String(), "change notifications interrupted") {
		t.Errorf("a missed change cost the cache its connection: %s", log.String())
	}
}

// TestCacheStartsOverOnAGapInTheNotifications: a notification numbered past
// the next one means changes came whose notifications did not: the cache
// forgets everything (the heartbeat after will find nothing missing).
func TestCacheStartsOverOnAGapInTheNotifications(t *testing.T) {
	db, dbURL := pgtest.Fresh(t)
	c, _ := logged(t, db, dbURL)
	<-c.Ready()
	x, y := reference.UserURN("x"), reference.UserURN("y")
	if err := c.UpsertAspect(context.Background(), info(y, "cached")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the write's own notification is in
	if got := displayName(t, c, y); got != "cached" {
		t.Fatalf("the cache shows %q", got)
	}
	// y changes, counted but not notified, and at once x changes as usual:
	// x's notification is the first the cache hears, one number too far.
	silently(t, db, `UPDATE aspects SET value = '{"active":true,"displayName":"changed"}' WHERE urn = '`+y.String()+`' AND aspect = 'corpUserInfo';
		UPDATE changes SET seq = seq + 1 WHERE id = 1`)
	if err := db.UpsertAspect(context.Background(), info(x, "x")); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, c, y, "changed", "after a gap in the notifications")
}

// untilTrusted waits up to 10s for c to trust itself (want) or not.
func untilTrusted(t *testing.T, c *postgres.Cache, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, trusted := c.Version(reference.EntityCorpUser); trusted == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cache's trust did not become %t within 10s", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
