package reference

import (
	"errors"
	"math"
	"strconv"
	"sync"
	"time"
)

// Failed sign-ins are throttled per user and per client (SPEC.md, Browser
// pages). Each failure costs the service a bcrypt comparison, and each is
// a guess: past MaxFailuresPerUser failures for one user within Window, or
// MaxFailuresPerClient from one client, the next attempt is refused with
// ETOOMANYREQUESTS before any password is compared, until the oldest of
// those failures is Window old. The counts are kept in memory, by each
// replica for itself.

// ThrottleConfig is how failed sign-ins are throttled.
type ThrottleConfig struct {
	// MaxFailuresPerUser: failures for one username within Window before
	// its sign-ins are refused (0 means DefaultMaxFailuresPerUser).
	MaxFailuresPerUser int
	// MaxFailuresPerClient: failures from one client address within
	// Window before its sign-ins are refused (0 means
	// DefaultMaxFailuresPerClient).
	MaxFailuresPerClient int
	// Window is how long a failure counts (0 means DefaultFailureWindow).
	Window time.Duration
}

// The defaults: ten wrong passwords for one user in five minutes (about
// three thousand guesses a day at most), a hundred from one client (a run
// of the suite makes a few dozen).
const (
	DefaultMaxFailuresPerUser   = 10
	DefaultMaxFailuresPerClient = 100
	DefaultFailureWindow        = 5 * time.Minute
)

// ETOOMANYREQUESTS is an attempt refused until a time has passed; HTTP's
// 429 with Retry-After.
const ETOOMANYREQUESTS ErrorCode = "TOO_MANY_REQUESTS"

// maxThrottled bounds the users and the clients remembered: past it, the
// ones whose failures have all aged out are forgotten, and while none has,
// new ones are not remembered (the per-client count still holds for the
// clients already seen).
const maxThrottled = 100_000

// failureLog is the failures of each key (a user, a client) within the
// window, oldest first. The signInThrottle's lock guards it.
type failureLog struct {
	max     int
	window  time.Duration
	entries map[string][]time.Time
}

func newFailureLog(max int, window time.Duration) *failureLog {
	return &failureLog{max: max, window: window, entries: map[string][]time.Time{}}
}

// wait is how long key must wait before its next attempt is judged: 0
// when it need not.
func (l *failureLog) wait(key string, now time.Time) time.Duration {
	if key == "" {
		return 0
	}
	recent := l.recent(key, now)
	if len(recent) < l.max {
		return 0
	}
	return recent[len(recent)-l.max].Add(l.window).Sub(now)
}

// recent drops key's failures older than the window and returns the rest.
func (l *failureLog) recent(key string, now time.Time) []time.Time {
	fs := l.entries[key]
	i := 0
	for i < len(fs) && !fs[i].Add(l.window).After(now) {
		i++
	}
	if i == len(fs) {
		delete(l.entries, key)
		return nil
	}
	fs = fs[i:]
	l.entries[key] = fs
	return fs
}

// add records a failure of key at now.
func (l *failureLog) add(key string, now time.Time) {
	if key == "" {
		return
	}
	fs := l.recent(key, now)
	if fs == nil && len(l.entries) >= maxThrottled {
		for k := range l.entries {
			l.recent(k, now)
		}
		if len(l.entries) >= maxThrottled {
			return
		}
	}
	if len(fs) >= l.max {
		fs = fs[len(fs)-l.max+1:] // only the last max count
	}
	l.entries[key] = append(fs, now)
}

// remove takes back one failure of key recorded at at.
func (l *failureLog) remove(key string, at time.Time) {
	fs := l.entries[key]
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Equal(at) {
			fs = append(fs[:i:i], fs[i+1:]...)
			break
		}
	}
	if len(fs) == 0 {
		delete(l.entries, key)
		return
	}
	l.entries[key] = fs
}

// signInThrottle holds the failures of sign-ins by user and by client.
type signInThrottle struct {
	mu             sync.Mutex
	users, clients *failureLog
}

func newSignInThrottle(c ThrottleConfig) *signInThrottle {
	if c.MaxFailuresPerUser <= 0 {
		c.MaxFailuresPerUser = DefaultMaxFailuresPerUser
	}
	if c.MaxFailuresPerClient <= 0 {
		c.MaxFailuresPerClient = DefaultMaxFailuresPerClient
	}
	if c.Window <= 0 {
		c.Window = DefaultFailureWindow
	}
	return &signInThrottle{users: newFailureLog(c.MaxFailuresPerUser, c.Window), clients: newFailureLog(c.MaxFailuresPerClient, c.Window)}
}

// outcome is how an attempt admit let through ended.
type outcome int

const (
	wrongCredentials outcome = iota // a failure: it stays counted
	signedIn                        // the user's failures are forgotten
	notJudged                       // the store failed: the attempt does not count
)

// admit judges an attempt of user from client before its password is
// compared: a refusal while either must wait, else the attempt counts as
// a failure at once, so that attempts sent together cannot all pass
// before the first of them fails; settle says how it ended.
func (t *signInThrottle) admit(user, client string, now time.Time) (settle func(outcome), refusal error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if wait := max(t.users.wait(user, now), t.clients.wait(client, now)); wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		return nil, &Error{Code: ETOOMANYREQUESTS, RetryAfter: time.Duration(secs) * time.Second,
			Message: "Too many failed sign-ins for this user or from this address: try again in " + strconv.Itoa(secs) + " seconds."}
	}
	t.users.add(user, now)
	t.clients.add(client, now)
	return func(o outcome) {
		t.mu.Lock()
		defer t.mu.Unlock()
		switch o {
		case signedIn:
			delete(t.users.entries, user)
			t.clients.remove(client, now)
		case notJudged:
			t.users.remove(user, now)
			t.clients.remove(client, now)
		}
	}, nil
}

// forget drops the failures of user (a reset token proved who it is).
func (t *signInThrottle) forget(user string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.users.entries, user)
}

// RetryAfterOf is how long the client of err should wait before trying
// again, in whole seconds, as Retry-After says it; "" when err says nothing
// of it.
func RetryAfterOf(err error) string {
	switch ErrorCodeOf(err) {
	case EUNAVAILABLE:
		return RetryAfterSeconds
	case ETOOMANYREQUESTS:
		var e *Error
		if errors.As(err, &e) && e.RetryAfter > 0 {
			return strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds())))
		}
		return "1"
	}
	return ""
}
