package reference

import (
	"fmt"
	"testing"
	"time"
)

// TestThrottleByUser: past the user's limit within the window, that user's
// attempts are refused with TOO_MANY_REQUESTS and how long to wait, from
// any client, until the oldest counted failure has aged out; another user
// is not. A success forgets the user's failures.
func TestThrottleByUser(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 3, MaxFailuresPerClient: 100, Window: time.Minute})
	t0 := time.Unix(1_000_000, 0)
	fail := func(user, client string, at time.Time) {
		t.Helper()
		settle, err := th.admit(user, client, at)
		if err != nil {
			t.Fatalf("%s from %s at +%s: refused: %v", user, client, at.Sub(t0), err)
		}
		settle(wrongCredentials)
	}
	fail("ann", "10.0.0.1", t0)
	fail("ann", "10.0.0.2", t0.Add(10*time.Second))
	fail("ann", "10.0.0.3", t0.Add(20*time.Second))
	_, err := th.admit("ann", "10.0.0.4", t0.Add(30*time.Second))
	if ErrorCodeOf(err) != ETOOMANYREQUESTS || HTTPStatus(ErrorCodeOf(err)) != 429 || RetryAfterOf(err) != "30" {
		t.Fatalf("Ann's fourth attempt, 30 s after the first: %v, Retry-After %q; want 429 and 30", err, RetryAfterOf(err))
	}
	if _, err := th.admit("bob", "10.0.0.4", t0.Add(30*time.Second)); err != nil {
		t.Fatalf("Bob, meanwhile: %v", err)
	}
	// At one minute the first failure no longer counts: one more attempt.
	fail("ann", "10.0.0.1", t0.Add(time.Minute))
	if _, err := th.admit("ann", "10.0.0.1", t0.Add(time.Minute+time.Second)); RetryAfterOf(err) != "9" {
		t.Fatalf("after one more failure: %v, Retry-After %q; want 9 s (until the second failure is a minute old)", err, RetryAfterOf(err))
	}
	// A success forgets them all.
	settle, err := th.admit("carl", "10.0.0.5", t0)
	if err != nil {
		t.Fatal(err)
	}
	settle(wrongCredentials)
	settle, err = th.admit("carl", "10.0.0.5", t0)
	if err != nil {
		t.Fatal(err)
	}
	settle(signedIn)
	if n := len(th.users.entries["carl"]); n != 0 {
		t.Errorf("after a success Carl has %d failures counted, want 0", n)
	}
}

// TestThrottleByClient: past the client's limit, its attempts are refused
// whichever user they name; another client's are not.
func TestThrottleByClient(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 100, MaxFailuresPerClient: 5, Window: time.Minute})
	now := time.Unix(1_000_000, 0)
	for i := 0; i < 5; i++ {
		settle, err := th.admit(fmt.Sprintf("user-%d", i), "203.0.113.7", now)
		if err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
		settle(wrongCredentials)
	}
	if _, err := th.admit("someone-else", "203.0.113.7", now); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Fatalf("the client's sixth attempt, at a user it never tried: %v; want refused", err)
	}
	if _, err := th.admit("someone-else", "203.0.113.8", now); err != nil {
		t.Fatalf("another client: %v", err)
	}
	// An unknown client (no address) is never throttled as a client.
	for i := 0; i < 10; i++ {
		settle, err := th.admit(fmt.Sprintf("u-%d", i), "", now)
		if err != nil {
			t.Fatalf("no address, attempt %d: %v", i+1, err)
		}
		settle(wrongCredentials)
	}
}

// TestThrottleCountsAttemptsInFlight: attempts sent together count as
// failures from the moment they are admitted, so that they cannot all be
// judged before the first of them fails; an attempt the store could not
// judge, or that succeeded, gives its place back.
func TestThrottleCountsAttemptsInFlight(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 3, MaxFailuresPerClient: 100, Window: time.Minute})
	now := time.Unix(1_000_000, 0)
	var settles []func(outcome)
	for i := 0; i < 3; i++ {
		settle, err := th.admit("ann", "10.0.0.1", now)
		if err != nil {
			t.Fatalf("attempt %d in flight: %v", i+1, err)
		}
		settles = append(settles, settle)
	}
	if _, err := th.admit("ann", "10.0.0.1", now); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Fatalf("a fourth while three are in flight: %v; want refused", err)
	}
	settles[0](notJudged)
	if _, err := th.admit("ann", "10.0.0.1", now); err != nil {
		t.Fatalf("after one in flight was not judged: %v; want admitted", err)
	}
	if n := len(th.clients.entries["10.0.0.1"]); n != 3 {
		t.Errorf("the client has %d attempts counted, want 3", n)
	}
}

// TestThrottleDefaultsAndForgetting: a configuration that leaves the
// window unset (zero) gets the default window, not one in which no failure
// ever counts; and a user whose failures are forgotten (a reset token
// proved who it is) may try again at once, while the client's stay.
func TestThrottleDefaultsAndForgetting(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 2, MaxFailuresPerClient: 100})
	now := time.Unix(1_000_000, 0)
	for i := range 2 {
		settle, err := th.admit("ann", "10.0.0.1", now.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatalf("failure %d: refused: %v", i+1, err)
		}
		settle(wrongCredentials)
	}
	_, err := th.admit("ann", "10.0.0.1", now.Add(2*time.Second))
	if ErrorCodeOf(err) != ETOOMANYREQUESTS || RetryAfterOf(err) != fmt.Sprint(int((DefaultFailureWindow-2*time.Second).Seconds())) {
		t.Fatalf("a third attempt within the default window (%s): %v, Retry-After %q", DefaultFailureWindow, err, RetryAfterOf(err))
	}
	th.forget("ann")
	if _, err := th.admit("ann", "10.0.0.1", now.Add(3*time.Second)); err != nil {
		t.Fatalf("after her failures were forgotten: %v", err)
	}
	if n := len(th.clients.entries["10.0.0.1"]); n != 3 {
		t.Errorf("the client has %d failures counted after Ann's were forgotten, want 3", n)
	}
}
