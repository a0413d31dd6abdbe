package reference

import (
	"container/list"
	"errors"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Failed sign-ins are throttled so that guessing is slow and no one can be
// locked out by someone else's guesses (SPEC.md, Browser pages; the design
// and why in docs/catalogd.md, "Sign-in throttling"). Each failure costs
// the service a bcrypt comparison and is a guess. Clients are keyed by
// address: an IPv4 address, or an IPv6 address's /64 (one subscriber's
// network, whose 2^64 addresses are one client).
//
//   - A client past MaxFailuresPerClient failures within Window is refused,
//     whatever user it names.
//   - A user past MaxFailuresPerUser failures within Window, from any
//     clients, is under attack: from then on an attempt for that user is
//     refused from every client that has itself failed for that user within
//     the window, and still judged from a client that has not. The right
//     password from a client that has not been failing signs the user in,
//     however many guesses others make; a guesser gets one guess per
//     client and window once the user is under attack.
//
// A refusal (ETOOMANYREQUESTS, 429 with Retry-After) compares no password.
// The counts are kept in memory, by each replica for itself, in tables of
// at most MaxTracked keys each: past it, a key whose failures have aged out
// goes first, then the least recently failing key that is refused nothing
// yet, and only then the least recently failing of all, so that filling
// the tables with new names evicts the filler, not the offenders being
// refused.

// ThrottleConfig is how failed sign-ins are throttled.
type ThrottleConfig struct {
	// MaxFailuresPerUser: failures for one username within Window, from
	// any clients, past which the clients that failed for it are refused
	// (0 means DefaultMaxFailuresPerUser).
	MaxFailuresPerUser int
	// MaxFailuresPerClient: failures from one client within Window before
	// its sign-ins are refused (0 means DefaultMaxFailuresPerClient).
	MaxFailuresPerClient int
	// Window is how long a failure counts (0 means DefaultFailureWindow).
	Window time.Duration
	// MaxTracked bounds the keys each table remembers (0 means
	// DefaultMaxTracked).
	MaxTracked int
}

// The defaults: ten wrong passwords for one user in five minutes before the
// clients that made them are refused, a hundred from one client (a run of
// the suite makes a few dozen), a hundred thousand keys a table (some 30 MB
// at most in all).
const (
	DefaultMaxFailuresPerUser   = 10
	DefaultMaxFailuresPerClient = 100
	DefaultFailureWindow        = 5 * time.Minute
	DefaultMaxTracked           = 100_000
)

// ETOOMANYREQUESTS is an attempt refused until a time has passed; HTTP's
// 429 with Retry-After.
const ETOOMANYREQUESTS ErrorCode = "TOO_MANY_REQUESTS"

// evictScan bounds how far from the least recent end eviction looks for a
// key that is refused nothing.
const evictScan = 64

// failureLog is the failures of each key within the window, oldest first,
// its keys in a list from the most to the least recently failing. The
// signInThrottle's lock guards it.
type failureLog struct {
	max     int // the failures past which the key is refused
	keep    int // the failures kept per key
	window  time.Duration
	cap     int
	entries map[string]*list.Element
	order   *list.List // of *failures, most recent first
	// refusing says whether key is refused something now, so that
	// eviction keeps it; nil: while it is at its limit.
	refusing func(key string, now time.Time) bool
}

type failures struct {
	key   string
	times []time.Time
}

func newFailureLog(max, keep int, window time.Duration, capacity int) *failureLog {
	return &failureLog{max: max, keep: keep, window: window, cap: capacity, entries: map[string]*list.Element{}, order: list.New()}
}

// recent drops key's failures older than the window and returns the rest.
func (l *failureLog) recent(key string, now time.Time) []time.Time {
	e, ok := l.entries[key]
	if !ok {
		return nil
	}
	f := e.Value.(*failures)
	i := 0
	for i < len(f.times) && !f.times[i].Add(l.window).After(now) {
		i++
	}
	if i == len(f.times) {
		l.drop(e)
		return nil
	}
	f.times = f.times[i:]
	return f.times
}

func (l *failureLog) drop(e *list.Element) {
	delete(l.entries, e.Value.(*failures).key)
	l.order.Remove(e)
}

// wait is how long key must wait before it is under its limit again: 0
// when it is under it now.
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

// add records a failure of key at now.
func (l *failureLog) add(key string, now time.Time) {
	if key == "" {
		return
	}
	if e, ok := l.entries[key]; ok {
		f := e.Value.(*failures)
		if len(f.times) >= l.keep {
			f.times = f.times[len(f.times)-l.keep+1:]
		}
		f.times = append(f.times, now)
		l.order.MoveToFront(e)
		return
	}
	if len(l.entries) >= l.cap {
		l.evict(now)
	}
	l.entries[key] = l.order.PushFront(&failures{key: key, times: []time.Time{now}})
}

// evict makes room for one key: one whose failures have aged out, else the
// least recent that is under its limit (within evictScan of the end), else
// the least recent.
func (l *failureLog) evict(now time.Time) {
	last := l.order.Back()
	if last == nil {
		return
	}
	newest := last.Value.(*failures).times
	if len(newest) == 0 || !newest[len(newest)-1].Add(l.window).After(now) {
		l.drop(last) // its latest failure, and so all, aged out
		return
	}
	e := last
	for range evictScan {
		if e == nil {
			break
		}
		prev := e.Prev()
		key := e.Value.(*failures).key
		if !l.refused(key, now) {
			if e, still := l.entries[key]; still {
				l.drop(e)
			}
			return // dropped here, or by recent as aged out
		}
		e = prev
	}
	last = l.order.Back()
	if last == nil {
		return
	}
	l.drop(last)
}

// refused says whether key is refused something now.
func (l *failureLog) refused(key string, now time.Time) bool {
	if l.refusing != nil {
		return l.refusing(key, now)
	}
	return len(l.recent(key, now)) >= l.max
}

// remove takes back one failure of key recorded at at.
func (l *failureLog) remove(key string, at time.Time) {
	e, ok := l.entries[key]
	if !ok {
		return
	}
	f := e.Value.(*failures)
	for i := len(f.times) - 1; i >= 0; i-- {
		if f.times[i].Equal(at) {
			f.times = append(f.times[:i:i], f.times[i+1:]...)
			break
		}
	}
	if len(f.times) == 0 {
		l.drop(e)
	}
}

// forget drops every failure of key.
func (l *failureLog) forget(key string) {
	if e, ok := l.entries[key]; ok {
		l.drop(e)
	}
}

// count is how many failures of key are within the window.
func (l *failureLog) count(key string, now time.Time) int { return len(l.recent(key, now)) }

// signInThrottle holds the failures of sign-ins by user, by client, and
// by user and client.
type signInThrottle struct {
	mu                    sync.Mutex
	users, clients, pairs *failureLog
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
	if c.MaxTracked <= 0 {
		c.MaxTracked = DefaultMaxTracked
	}
	t := &signInThrottle{
		users:   newFailureLog(c.MaxFailuresPerUser, c.MaxFailuresPerUser, c.Window, c.MaxTracked),
		clients: newFailureLog(c.MaxFailuresPerClient, c.MaxFailuresPerClient, c.Window, c.MaxTracked),
		// A pair counts whether, and since when, the client failed for
		// the user: its last failure is what it waits out. It is refused
		// something while its user is under attack.
		pairs: newFailureLog(1, 1, c.Window, c.MaxTracked),
	}
	t.pairs.refusing = func(pair string, now time.Time) bool {
		user, _, _ := strings.Cut(pair, "\x00")
		return t.users.wait(user, now) > 0
	}
	return t
}

// throttleKey is what a client is counted by: an IPv4 address as it is, an
// IPv6 address's /64, anything else as written ("" for unknown).
func throttleKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

// outcome is how an attempt admit let through ended.
type outcome int

const (
	wrongCredentials outcome = iota // a failure: it stays counted
	signedIn                        // the client proved it knows the password
	notJudged                       // the store failed: the attempt does not count
)

// admit judges an attempt of user from client before its password is
// compared: a refusal while the client must wait, or while the user is
// under attack and the client has failed for them; else the attempt counts
// as a failure at once, so that attempts sent together cannot all pass
// before the first of them fails; settle says how it ended.
func (t *signInThrottle) admit(user, client string, now time.Time) (settle func(outcome), refusal error) {
	client = throttleKey(client)
	pair := ""
	if user != "" && client != "" {
		pair = user + "\x00" + client
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Under attack, a client that failed for the user is refused until the
	// user's count or the client's own failure ages out: the lesser of the
	// two waits, which is 0 unless both are refusing.
	wait := max(t.clients.wait(client, now), min(t.users.wait(user, now), t.pairs.wait(pair, now)))
	if wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		return nil, &Error{Code: ETOOMANYREQUESTS, RetryAfter: time.Duration(secs) * time.Second,
			Message: "Too many failed sign-ins for this user or from this address: try again in " + strconv.Itoa(secs) + " seconds."}
	}
	t.users.add(user, now)
	t.clients.add(client, now)
	t.pairs.add(pair, now)
	return func(o outcome) {
		t.mu.Lock()
		defer t.mu.Unlock()
		switch o {
		case signedIn:
			t.users.remove(user, now)
			t.clients.remove(client, now)
			t.pairs.forget(pair)
		case notJudged:
			t.users.remove(user, now)
			t.clients.remove(client, now)
			t.pairs.remove(pair, now)
		}
	}, nil
}

// forget drops the failures of user (a reset token proved who it is).
func (t *signInThrottle) forget(user string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.users.forget(user)
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
