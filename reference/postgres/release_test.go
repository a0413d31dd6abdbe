package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// What every read and write gives back when it is done: the cache's lock
// and the database's connections. A path that keeps either makes every
// later request wait forever, which a client sees only as a request that
// never ends (and under load, a slow answer looks the same); these tests
// see it in the state itself, at once.

// TestCacheGivesItsLockBack: while it starts, after each kind of read
// (from the database, then from memory) and write, and after its listener
// was cut and came back, the cache's lock is free.
func TestCacheGivesItsLockBack(t *testing.T) {
	db, url := pgtest.Fresh(t)
	ctx := context.Background()
	own, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	a := postgres.NewCache(own, url, slog.New(slog.NewTextHandler(testWriter{t}, nil)))
	t.Cleanup(func() {
		a.Close()
		if postgres.Acquired(own) == 0 { // else Close would wait forever (TestReadsGiveTheirConnectionsBack)
			own.Close()
		}
	})
	held := func(when string) {
		t.Helper()
		// LockFree gives a held lock back, so that what waits for it (and
		// Close) goes on.
		t.Fatalf("%s the cache's lock stayed held: every later read of users, tokens and policies would wait for it forever", when)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if !postgres.LockFree(a, 300) {
			held("while it started listening")
		}
		select {
		case <-a.Ready():
		case <-time.After(10 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the cache did not get ready within 10s")
			}
			continue
		}
		break
	}
	// step runs op in a goroutine of its own: a path that leaves the lock
	// held and then waits for it (in op, or in the listener op waits for)
	// blocks there until LockFree has seen it held and given it back.
	step := func(what string, op func() error) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- op() }()
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if !postgres.LockFree(a, 500) {
					held("after " + what)
				}
				return
			case <-time.After(time.Millisecond):
			}
			if !postgres.LockFree(a, 500) {
				<-done
				held("while " + what)
			}
		}
	}
	u := reference.UserURN("lock")
	tok := reference.Aspect{URN: reference.URN{EntityType: reference.EntityAccessToken, ID: "lock"}, Name: reference.AspectAccessTokenInfo,
		Value: json.RawMessage(`{"name":"t","ownerUrn":"urn:li:corpuser:lock","actorUrn":"urn:li:corpuser:lock","createdAt":0}`), CreatedAt: time.Now(), CreatedBy: "x"}
	tag := reference.URN{EntityType: reference.EntityTag, ID: "lock"}
	tokens := reference.Filter{EntityType: reference.EntityAccessToken, Aspect: reference.AspectAccessTokenInfo, Where: map[string][]string{"ownerUrn": {u.String()}}}
	shows := func(want string) func() error {
		return func() error {
			a, err := a.Aspect(ctx, u, reference.AspectCorpUserInfo)
			if err != nil {
				return err
			}
			var v struct {
				DisplayName string `json:"displayName"`
			}
			if err := json.Unmarshal(a.Value, &v); err != nil || v.DisplayName != want {
				return fmt.Errorf("the user reads %s, want the display name %q", a.Value, want)
			}
			return nil
		}
	}

	step("making a user", func() error { return a.CreateEntity(ctx, []reference.Aspect{info(u, "one")}) })
	step("making a token", func() error { return a.CreateEntity(ctx, []reference.Aspect{tok}) })
	step("writing a tag", func() error {
		return a.UpsertAspect(ctx, reference.Aspect{URN: tag, Name: reference.AspectTagProperties, Value: json.RawMessage(`{"name":"lock"}`), CreatedAt: time.Now(), CreatedBy: "x"})
	})
	time.Sleep(100 * time.Millisecond) // the writes' notifications
	for _, from := range []string{"the database", "memory"} {
		step("reading a user from "+from, shows("one"))
		step("listing tokens from "+from, func() error {
			as, total, err := a.ListAspects(ctx, tokens)
			if err == nil && (len(as) != 1 || total != 1) {
				err = fmt.Errorf("%d of %d, want the one", len(as), total)
			}
			return err
		})
		step("reading a tag (never kept)", func() error { _, err := a.Aspect(ctx, tag, reference.AspectTagProperties); return err })
	}
	step("replacing an aspect", func() error { return a.ReplaceAspect(ctx, info(u, "two")) })
	step("deleting an entity", func() error {
		found, err := a.DeleteEntity(ctx, tok.URN)
		if err == nil && !found {
			err = fmt.Errorf("the token was not found")
		}
		return err
	})

	// Cut the listener: the cache stops trusting what it holds, listens
	// again and trusts again.
	if err := postgres.Exec(ctx, db, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '`+postgres.ListenerName+`'`); err != nil {
		t.Fatal(err)
	}
	distrusted := false
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var trusted bool
		step("the listener was cut", func() error { _, trusted = a.Version(reference.EntityCorpUser); return nil })
		distrusted = distrusted || !trusted
		if distrusted && trusted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("within 10s of its listener's cut the cache did not stop trusting and trust again (stopped: %t)", distrusted)
		}
	}
	step("reading once listening again", shows("two"))
}

// TestReadsGiveTheirConnectionsBack: a read of an entity's aspects answers
// them and gives its connection back to the pool. (A connection kept makes
// the pool run dry after a few reads, and Close wait forever: the test
// closes the pool only when none is kept.)
func TestReadsGiveTheirConnectionsBack(t *testing.T) {
	_, url := pgtest.Fresh(t)
	ctx := context.Background()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	u := reference.UserURN("conn")
	if err := db.CreateEntity(ctx, []reference.Aspect{info(u, "one")}); err != nil {
		t.Fatal(err)
	}
	as, err := db.Aspects(ctx, u)
	if n := postgres.Acquired(db); n != 0 {
		t.Fatalf("after a read of a user's aspects %d connection(s) are still taken", n)
	}
	db.Close()
	if err != nil || len(as) != 1 || as[0].Name != reference.AspectCorpUserInfo {
		t.Errorf("the user's aspects: %d, %v; want its corpUserInfo", len(as), err)
	}
}
