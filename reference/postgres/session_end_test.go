package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/jwt"
)

// TestResetEndsSessions: a new password set with a reset token ends every
// session of the user, on every replica (the sessions are in PostgreSQL),
// and no other user's; the user's personal access tokens keep working.
func TestResetEndsSessions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, bob := f.nativeUser(t, "first"), f.nativeUser(t, "bob's")
	var annSessions []string
	for i := 0; i < 2; i++ {
		annSessions = append(annSessions, f.session(t, ann, "first"))
	}
	bobSession := f.session(t, bob, "bob's")
	pat, _ := f.token(t, ann, reference.DurationOneHour)
	reset, err := f.svc.CreateNativeUserResetToken(root, ann.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.ResetNativeUserCredentials(ctx, ann.ID, "second", reset); err != nil {
		t.Fatal(err)
	}
	for i, raw := range annSessions {
		if _, err := f.svc.Authenticate(ctx, raw); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
			t.Errorf("Ann's session %d after the reset: %v; want it refused", i+1, err)
		}
	}
	if a, err := f.svc.Authenticate(ctx, bobSession); err != nil || a.URN != bob {
		t.Errorf("Bob's session after Ann's reset: %v, %v; want Bob", a, err)
	}
	if a, err := f.svc.Authenticate(ctx, pat); err != nil || a.URN != ann {
		t.Errorf("Ann's personal access token after the reset: %v, %v; want it to work", a, err)
	}
	if _, _, err := f.svc.SignIn(ctx, ann.ID, "first"); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("the old password after the reset: %v", err)
	}
	raw := f.session(t, ann, "second")
	if a, err := f.svc.Authenticate(ctx, raw); err != nil || a.URN != ann {
		t.Errorf("a session with the new password: %v, %v", a, err)
	}
}

// TestSessionsOneUserMayHold: past MaxSessionsPerUser (two, and one, the
// least that may be set), signing in ends the oldest session of that
// user, and only of that user.
func TestSessionsOneUserMayHold(t *testing.T) {
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []int{2, 1} {
		t.Run(fmt.Sprintf("%d may be held", keep), func(t *testing.T) {
			// A minute ago: each sign-in a second later than the last, none
			// in the future of the token codec's own clock.
			f := &fixture{now: time.Now().Add(-time.Minute)}
			f.svc = reference.NewService(testDB, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), Now: func() time.Time { return f.now }, MaxSessionsPerUser: keep})
			if _, err := f.svc.Bootstrap(context.Background(), "root-password-for-tests"); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			ann, bob := f.nativeUser(t, "pw"), f.nativeUser(t, "pw")
			bobs := f.session(t, bob, "pw")
			var sessions []string
			for range keep + 1 {
				f.now = f.now.Add(time.Second) // each newer than the last
				sessions = append(sessions, f.session(t, ann, "pw"))
			}
			for i, raw := range sessions {
				_, err := f.svc.Authenticate(ctx, raw)
				if ended := reference.ErrorCodeOf(err) == reference.EUNAUTHENTICATED; ended != (i == 0) {
					t.Errorf("Ann's session %d of %d (%d may be held): %v", i+1, keep+1, keep, err)
				}
			}
			if _, err := f.svc.Authenticate(ctx, bobs); err != nil {
				t.Errorf("Bob's session after Ann's last: %v", err)
			}
		})
	}
}
