package reference

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// failOnce is one sign-in attempt through th that fails with a wrong
// password; it must be admitted.
func failOnce(t *testing.T, th *signInThrottle, user, client string, at time.Time) {
	t.Helper()
	settle, err := th.admit(user, client, at)
	if err != nil {
		t.Fatalf("%s from %s: refused: %v", user, client, err)
	}
	settle(wrongCredentials)
}

// TestThrottleUnderAttackRefusesOnlyTheFailingClients: past the user's
// limit, from any clients, the clients that failed for the user are
// refused with TOO_MANY_REQUESTS and how long to wait; a client that has
// not failed for the user is still judged (the right password from it
// signs the user in), and the failing clients may still sign in as others.
func TestThrottleUnderAttackRefusesOnlyTheFailingClients(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 3, MaxFailuresPerClient: 100, Window: time.Minute})
	t0 := time.Unix(1_000_000, 0)
	failOnce(t, th, "ann", "10.0.0.1", t0)
	failOnce(t, th, "ann", "10.0.0.2", t0.Add(10*time.Second))
	failOnce(t, th, "ann", "10.0.0.3", t0.Add(20*time.Second))
	_, err := th.admit("ann", "10.0.0.1", t0.Add(30*time.Second))
	if ErrorCodeOf(err) != ETOOMANYREQUESTS || HTTPStatus(ErrorCodeOf(err)) != 429 || RetryAfterOf(err) != "30" {
		t.Fatalf("Ann from a client that failed for her, 30 s after its failure: %v, Retry-After %q; want 429 and 30", err, RetryAfterOf(err))
	}
	settle, err := th.admit("ann", "10.0.0.4", t0.Add(30*time.Second))
	if err != nil {
		t.Fatalf("Ann from a client that has not failed: %v; want judged", err)
	}
	settle(signedIn)
	if _, err := th.admit("bob", "10.0.0.1", t0.Add(30*time.Second)); err != nil {
		t.Fatalf("Bob from a client that failed for Ann: %v", err)
	}
	// Still under attack (three failures within the minute): a new
	// client's wrong guess is its last while the attack lasts.
	failOnce(t, th, "ann", "10.0.0.5", t0.Add(40*time.Second))
	if _, err := th.admit("ann", "10.0.0.5", t0.Add(41*time.Second)); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Fatalf("a new client's second guess while Ann is under attack: %v; want refused", err)
	}
	// Once her failures age out, the clients that failed are judged again.
	if _, err := th.admit("ann", "10.0.0.1", t0.Add(2*time.Minute)); err != nil {
		t.Fatalf("Ann from a client that failed, after the window: %v", err)
	}
	// One client alone: its guesses put the user under attack, and then
	// it is refused and another client is not.
	for i := range 3 {
		failOnce(t, th, "carl", "10.0.1.1", t0.Add(time.Duration(i)*time.Second))
	}
	if _, err := th.admit("carl", "10.0.1.1", t0.Add(3*time.Second)); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Fatalf("the guessing client's fourth attempt: %v; want refused", err)
	}
	if _, err := th.admit("carl", "10.0.1.2", t0.Add(3*time.Second)); err != nil {
		t.Fatalf("Carl from his own client: %v; want judged", err)
	}
}

// TestThrottleByClient: past the client's limit, its attempts are refused
// whichever user they name; another client's are not.
func TestThrottleByClient(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 100, MaxFailuresPerClient: 5, Window: time.Minute})
	now := time.Unix(1_000_000, 0)
	for i := 0; i < 5; i++ {
		failOnce(t, th, fmt.Sprintf("user-%d", i), "203.0.113.7", now)
	}
	if _, err := th.admit("someone-else", "203.0.113.7", now); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Fatalf("the client's sixth attempt, at a user it never tried: %v; want refused", err)
	}
	if _, err := th.admit("someone-else", "203.0.113.8", now); err != nil {
		t.Fatalf("another client: %v", err)
	}
	// An unknown client (no address) is never throttled as a client.
	for i := 0; i < 10; i++ {
		failOnce(t, th, fmt.Sprintf("u-%d", i), "", now)
	}
}

// TestThrottleKeysIPv6ByPrefix: an IPv6 client is its /64, so the 2^64
// addresses of one network are one client; the next /64 is another. An
// IPv4 address mapped into IPv6 is the IPv4 address.
func TestThrottleKeysIPv6ByPrefix(t *testing.T) {
	for addr, want := range map[string]string{
		"2001:db8::1":                "2001:db8::/64",
		"2001:db8::ffff:ffff:ffff:1": "2001:db8::/64",
		"2001:db8:0:1::1":            "2001:db8:0:1::/64",
		"fe80::1%eth0":               "fe80::/64",
		"::ffff:192.0.2.1":           "192.0.2.1",
		"192.0.2.1":                  "192.0.2.1",
		"":                           "",
	} {
		if got := throttleKey(addr); got != want {
			t.Errorf("throttleKey(%q) = %q, want %q", addr, got, want)
		}
	}
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 1000, MaxFailuresPerClient: 5, Window: time.Minute})
	now := time.Unix(1_000_000, 0)
	for i := range 5 {
		failOnce(t, th, fmt.Sprintf("u-%d", i), fmt.Sprintf("2001:db8::%x", i+1), now)
	}
	if _, err := th.admit("u-9", "2001:db8::abcd:1", now); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Fatalf("another address of the same /64: %v; want refused", err)
	}
	if _, err := th.admit("u-9", "2001:db8:0:1::1", now); err != nil {
		t.Fatalf("the next /64: %v", err)
	}
}

// TestThrottleCannotBeFilled: tables filled with new names and clients
// (far past their bound) stay within it, and forget the filler before the
// offenders: a client refused before is still refused, a user under attack
// still refuses the clients that failed for them.
func TestThrottleCannotBeFilled(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 3, MaxFailuresPerClient: 5, Window: time.Hour, MaxTracked: 100})
	now := time.Unix(1_000_000, 0)
	for i := range 5 {
		failOnce(t, th, fmt.Sprintf("x-%d", i), "198.51.100.66", now)
	}
	for i := range 3 {
		failOnce(t, th, "ann", fmt.Sprintf("198.51.100.%d", i+1), now)
	}
	for i := range 10_000 {
		at := now.Add(time.Duration(i) * time.Millisecond)
		failOnce(t, th, fmt.Sprintf("filler-%d", i), fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255), at)
	}
	later := now.Add(20 * time.Second)
	for name, l := range map[string]*failureLog{"users": th.users, "clients": th.clients, "pairs": th.pairs} {
		if len(l.entries) > 100 || l.order.Len() != len(l.entries) {
			t.Errorf("the %s table holds %d keys (list %d), want at most 100", name, len(l.entries), l.order.Len())
		}
	}
	if _, err := th.admit("someone", "198.51.100.66", later); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Errorf("the client refused before the filler: %v; want still refused", err)
	}
	if _, err := th.admit("ann", "198.51.100.1", later); ErrorCodeOf(err) != ETOOMANYREQUESTS {
		t.Errorf("a client that failed for Ann, under attack before the filler: %v; want still refused", err)
	}
	if _, err := th.admit("ann", "198.51.100.200", later); err != nil {
		t.Errorf("Ann from a client that has not failed: %v", err)
	}
}

// TestThrottleCountsAttemptsInFlight: attempts sent together count as
// failures from the moment they are admitted, so that they cannot all be
// judged before the first of them fails; an attempt the store could not
// judge gives its place back.
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
	if n := th.clients.count("10.0.0.1", now); n != 3 {
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
		failOnce(t, th, "ann", "10.0.0.1", now.Add(time.Duration(i)*time.Second))
	}
	_, err := th.admit("ann", "10.0.0.1", now.Add(2*time.Second))
	if ErrorCodeOf(err) != ETOOMANYREQUESTS || RetryAfterOf(err) != fmt.Sprint(int((DefaultFailureWindow-2*time.Second).Seconds())) {
		t.Fatalf("a third attempt within the default window (%s): %v, Retry-After %q", DefaultFailureWindow, err, RetryAfterOf(err))
	}
	th.forget("ann")
	if _, err := th.admit("ann", "10.0.0.1", now.Add(3*time.Second)); err != nil {
		t.Fatalf("after her failures were forgotten: %v", err)
	}
	if n := th.clients.count("10.0.0.1", now.Add(3*time.Second)); n != 3 {
		t.Errorf("the client has %d failures counted after Ann's were forgotten, want 3", n)
	}
}

// TestThrottleKeepsItsConfiguredBounds: a configured bound is kept as
// given, down to one; zero or less takes the default.
func TestThrottleKeepsItsConfiguredBounds(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 1, MaxFailuresPerClient: 1, Window: time.Nanosecond, MaxTracked: 1})
	if th.users.cap != 1 || th.clients.cap != 1 || th.users.max != 1 || th.clients.max != 1 || th.users.window != time.Nanosecond {
		t.Errorf("bounds of one: users %+v, clients %+v", *th.users, *th.clients)
	}
	th = newSignInThrottle(ThrottleConfig{})
	if th.users.cap != DefaultMaxTracked || th.users.max != DefaultMaxFailuresPerUser || th.clients.max != DefaultMaxFailuresPerClient || th.users.window != DefaultFailureWindow {
		t.Errorf("no bounds given: users %+v, clients %+v", *th.users, *th.clients)
	}
}

// A key whose failures have all aged out is forgotten when next read, so
// that keys no one fails for any more do not fill the log.
func TestFailureLogForgetsAKeyWhoseFailuresAgedOut(t *testing.T) {
	l := newFailureLog(3, 3, time.Minute, 10)
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	l.add("ann", t0)
	l.add("bob", t0.Add(50*time.Second))
	if got := l.recent("ann", t0.Add(70*time.Second)); got != nil {
		t.Fatalf("ann's failure a minute and more ago: %v, want none", got)
	}
	if _, kept := l.entries["ann"]; kept || len(l.entries) != 1 || l.order.Len() != 1 {
		t.Errorf("after ann's failure aged out the log holds %d keys (ann kept: %t), want bob's alone", len(l.entries), kept)
	}
	if got := l.recent("bob", t0.Add(70*time.Second)); len(got) != 1 {
		t.Errorf("bob's failure 20 s ago: %v, want it", got)
	}
}

// A key keeps its latest failures, as many as the log keeps and no more,
// however many it makes.
func TestFailureLogKeepsAKeysLatestFailures(t *testing.T) {
	l := newFailureLog(3, 3, time.Hour, 10)
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for i := range 7 {
		l.add("ann", t0.Add(time.Duration(i)*time.Second))
		if got, want := len(l.recent("ann", t0.Add(time.Minute))), min(i+1, 3); got != want {
			t.Fatalf("after %d failures ann has %d kept, want %d", i+1, got, want)
		}
	}
	got := l.recent("ann", t0.Add(time.Minute))
	for i, at := range got {
		if want := t0.Add(time.Duration(4+i) * time.Second); !at.Equal(want) {
			t.Errorf("kept failure %d is at %s, want %s (the latest three, oldest first)", i, at.Format(time.TimeOnly), want.Format(time.TimeOnly))
		}
	}
}

// Taking back a failure takes back the one recorded at that time, the
// oldest included, and a key left with none is forgotten.
func TestFailureLogRemoveTakesBackTheFailureNamed(t *testing.T) {
	l := newFailureLog(3, 3, time.Hour, 10)
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	l.add("ann", t0)
	l.add("ann", t0.Add(time.Second))
	l.remove("ann", t0)
	if got := l.recent("ann", t0.Add(time.Minute)); len(got) != 1 || !got[0].Equal(t0.Add(time.Second)) {
		t.Fatalf("after taking back her first failure ann has %v, want the second alone", got)
	}
	l.remove("ann", t0.Add(time.Second))
	if _, kept := l.entries["ann"]; kept || l.order.Len() != 0 {
		t.Errorf("after taking back her last failure ann is still kept (%t, list %d)", kept, l.order.Len())
	}
}

// A full log makes room in its order: first a key whose failures have aged
// out, even when its key is refused through another (a pair whose user is
// under attack); else the least recently failing that is refused nothing;
// else the least recently failing of all. It never grows past its bound.
func TestFailureLogEvictsInItsOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	keys := func(l *failureLog) []string {
		var ks []string
		for e := l.order.Front(); e != nil; e = e.Next() {
			ks = append(ks, e.Value.(*failures).key)
		}
		return ks
	}
	t.Run("aged out first", func(t *testing.T) {
		l := newFailureLog(3, 3, time.Minute, 2)
		l.refusing = func(key string, _ time.Time) bool { return key == "ann" }
		l.add("ann", t0)
		l.add("bob", t0.Add(90*time.Second))
		l.add("carol", t0.Add(100*time.Second))
		if got := keys(l); !slices.Equal(got, []string{"carol", "bob"}) || len(l.entries) != 2 {
			t.Errorf("after carol the log holds %v (%d keys), want [carol bob]: ann's failure aged out", got, len(l.entries))
		}
	})
	t.Run("aged out, refused by none", func(t *testing.T) {
		l := newFailureLog(3, 3, time.Minute, 2)
		l.add("ann", t0)
		l.add("bob", t0.Add(time.Second))
		l.add("carol", t0.Add(2*time.Minute))
		if len(l.entries) > 2 || l.order.Len() != len(l.entries) {
			t.Errorf("the log holds %v (%d keys), want at most 2", keys(l), len(l.entries))
		}
	})
	t.Run("by the latest failure, not the first", func(t *testing.T) {
		l := newFailureLog(3, 3, time.Minute, 2)
		l.add("ann", t0)
		l.add("bob", t0.Add(10*time.Second))
		l.add("ann", t0.Add(50*time.Second))
		l.add("carol", t0.Add(75*time.Second))
		if got := keys(l); !slices.Equal(got, []string{"carol", "ann"}) {
			t.Errorf("after carol the log holds %v, want [carol ann]: ann failed again after bob", got)
		}
		if n := l.count("ann", t0.Add(75*time.Second)); n != 1 {
			t.Errorf("ann has %d failures within the window, want 1", n)
		}
	})
	t.Run("every key refused", func(t *testing.T) {
		l := newFailureLog(1, 1, time.Minute, 2)
		l.add("ann", t0)
		l.add("bob", t0.Add(time.Second))
		l.add("carol", t0.Add(2*time.Second))
		if got := keys(l); !slices.Equal(got, []string{"carol", "bob"}) || len(l.entries) != 2 {
			t.Errorf("after carol the log holds %v (%d keys), want [carol bob]: all refused, the least recent goes", got, len(l.entries))
		}
	})
}

// Sign-ins run at once: admitting and settling from many goroutines keeps
// the counts whole (every attempt settled as signed in gives its place
// back) and the tables consistent.
func TestThrottleIsSafeForConcurrentUse(t *testing.T) {
	th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 1_000_000, MaxFailuresPerClient: 1_000_000, Window: time.Hour, MaxTracked: 50})
	now := time.Unix(1_000_000, 0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				settle, err := th.admit(fmt.Sprintf("u-%d", i%40), fmt.Sprintf("10.0.%d.%d", g, i%40), now.Add(time.Duration(i)*time.Millisecond))
				if err != nil {
					t.Errorf("attempt %d of goroutine %d: %v", i, g, err)
					return
				}
				settle(signedIn)
			}
		})
	}
	wg.Wait()
	for name, l := range map[string]*failureLog{"users": th.users, "clients": th.clients, "pairs": th.pairs} {
		if len(l.entries) != 0 || l.order.Len() != 0 {
			t.Errorf("the %s table holds %d keys (list %d) after every attempt signed in, want none", name, len(l.entries), l.order.Len())
		}
	}
}

// try is an attempt from client that ended as o.
type try struct {
	client string
	o      outcome
}

func (t try) String() string {
	return t.client + " " + map[outcome]string{wrongCredentials: "wrong password", signedIn: "signed in", notJudged: "not judged"}[t.o]
}

// How an attempt ends decides what stays counted: a sign-in gives its place
// back to the user and the client and clears the client's failures for the
// user (it knows the password); an attempt the store could not judge gives
// every place back; only a wrong password stays.
func TestThrottleSettlesEachOutcome(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	attempt := func(t *testing.T, th *signInThrottle, user, client string, o outcome) {
		t.Helper()
		settle, err := th.admit(user, client, now)
		if err != nil {
			t.Fatalf("%s from %s: refused: %v", user, client, err)
		}
		settle(o)
	}
	cases := []struct {
		name string
		// attempts for ann before client A tries again, with the user's
		// limit at 2.
		before []try
	}{
		{"a sign-in is no failure of the user", []try{{"10.0.0.1", wrongCredentials}, {"10.0.0.2", signedIn}}},
		{"a sign-in clears the client's failures for the user", []try{{"10.0.0.1", wrongCredentials}, {"10.0.0.1", signedIn}, {"10.0.0.2", wrongCredentials}, {"10.0.0.3", wrongCredentials}}},
		{"an attempt not judged is no failure of the user", []try{{"10.0.0.1", wrongCredentials}, {"10.0.0.2", notJudged}, {"10.0.0.3", notJudged}}},
		{"an attempt not judged is no failure of the client for the user", []try{{"10.0.0.1", notJudged}, {"10.0.0.2", wrongCredentials}, {"10.0.0.3", wrongCredentials}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 2, MaxFailuresPerClient: 100, Window: time.Hour})
			for _, b := range c.before {
				attempt(t, th, "ann", b.client, b.o)
			}
			if _, err := th.admit("ann", "10.0.0.1", now); err != nil {
				t.Errorf("client A for ann after %v: %v; want admitted", c.before, err)
			}
		})
	}
	t.Run("a sign-in is no failure of the client", func(t *testing.T) {
		th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 100, MaxFailuresPerClient: 2, Window: time.Hour})
		for i := range 3 {
			attempt(t, th, fmt.Sprintf("u-%d", i), "10.0.0.1", signedIn)
		}
		if n := th.clients.count("10.0.0.1", now); n != 0 {
			t.Errorf("the client has %d failures counted after three sign-ins, want 0", n)
		}
	})
	t.Run("a wrong password stays counted", func(t *testing.T) {
		th := newSignInThrottle(ThrottleConfig{MaxFailuresPerUser: 2, MaxFailuresPerClient: 100, Window: time.Hour})
		attempt(t, th, "ann", "10.0.0.1", wrongCredentials)
		attempt(t, th, "ann", "10.0.0.2", wrongCredentials)
		if _, err := th.admit("ann", "10.0.0.1", now); ErrorCodeOf(err) != ETOOMANYREQUESTS {
			t.Errorf("client A for ann after two wrong passwords for her: %v; want refused", err)
		}
	})
}

// A refusal for too many attempts always says when to try again, in whole
// seconds rounded up and never less than one: "0" would invite the client
// straight back.
func TestRetryAfterOfATooManyRequestsRefusal(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&Error{Code: ETOOMANYREQUESTS, RetryAfter: 30 * time.Second}, "30"},
		{&Error{Code: ETOOMANYREQUESTS, RetryAfter: 1500 * time.Millisecond}, "2"},
		{fmt.Errorf("sign-in: %w", &Error{Code: ETOOMANYREQUESTS, RetryAfter: 2 * time.Second}), "2"},
		{&Error{Code: ETOOMANYREQUESTS}, "1"},
		{&Error{Code: EUNAUTHENTICATED, RetryAfter: 30 * time.Second}, ""},
	} {
		if got := RetryAfterOf(c.err); got != c.want {
			t.Errorf("RetryAfterOf(%#v) = %q, want %q", c.err, got, c.want)
		}
	}
}
