package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/catalogspec/catalogspec/runner"
)

// The run's hold on the target and its journal, kept on the target itself
// as tags, so that they outlive the machine the run was on:
//
//   - The lock is the tag catalogspec-lock. A run makes it with createTag,
//     which refuses an id that is taken (DataHub's CreateTagResolver, "This
//     Tag already exists!"): whoever makes it holds the target. Its
//     description (JSON, lockState) names the run and when it last renewed
//     its lease; the run renews it every third of its lease. A lock whose
//     lease has run out by the clock of the run that finds it, and that does
//     not change while that run watches it for half a lease more (so that
//     clocks set apart cannot make a live run look dead), belongs to a run
//     that died: the finder writes its own over it, naming the dead run in it
//     (inherits) until it has put back what the dead run left, so that the
//     dead run's journal is never named by no lock. Whoever writes the lock
//     reads it back a moment later (claim): of two runs that wrote it at
//     once, the one whose write came last keeps it.
//   - The journal is the tags catalogspec-journal-<run>-<page>, written by
//     ingestion proposals (upserts of tagProperties). It holds what the run
//     is about to make (a user, a dataset, a tag, a policy...) or change (a
//     starting policy, with its value before and the value set), each entry
//     written before the request that makes or changes the thing, and taken
//     out once the thing is removed or put back; concurrent scenarios' new
//     entries share one write (group commit).
//   - The next run against the target, or catalogspec cleanup, removes what
//     a dead run's journal names, and puts back what it changed where it is
//     still as the dead run set it (else it leaves it and says so).
//
// A second run against a target that a live run holds waits for it
// (CATALOGSPEC_WAIT) or refuses with exit 2. docs/suite.md says all this
// for people.

const (
	lockID = "catalogspec-lock"
	// lockURN is the run lock's tag.
	lockURN = "urn:li:tag:" + lockID
	// settle is how long a run that made the lock waits before it reads it
	// back: another run that took a dead lock over at the same moment has
	// deleted it meanwhile, and only one of them keeps it.
	lockSettle = 250 * time.Millisecond
	// pageBytes bounds the JSON of one journal page.
	pageBytes = 24 << 10
)

// lockState is what the lock says.
type lockState struct {
	Run     string    `json:"run"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Renewed time.Time `json:"renewed"`
	Lease   string    `json:"lease"`
	Seq     int       `json:"seq"`
	// Inherits are runs that died, whose journals this run is putting
	// back.
	Inherits []string `json:"inherits,omitempty"`
	// Released: the run ended and let the target go, but left what its
	// journal names (it could not remove it): the next run tries again.
	Released bool `json:"released,omitempty"`
}

func (l *lockState) lease() time.Duration {
	d, err := time.ParseDuration(l.Lease)
	if err != nil || d <= 0 {
		return runner.DefaultLease
	}
	return d
}

// who names the run of a lock for people.
func (l *lockState) who() string {
	return fmt.Sprintf("run %s from %s, started %s, its lease renewed %s ago", l.Run, l.Host,
		l.Started.Local().Format("2006-01-02 15:04:05"), time.Since(l.Renewed).Round(time.Second))
}

// Kinds of journal entries.
const (
	kindUser   = "user"   // a corpuser: removeUser, and its tokens revoked
	kindTag    = "tag"    // deleteTag, by URN or, for a tag whose URN the target chose, by its name
	kindEntity = "entity" // any other entity: OpenAPI v3 DELETE
	kindPolicy = "policy" // deletePolicy, by URN or by a part of its name
	kindToken  = "token"  // revokeAccessToken, by URN
	kindChange = "change" // a policy the run changed: put back
)

// entry is one line of the journal.
type entry struct {
	Seq  int    `json:"i"`
	Kind string `json:"k"`
	URN  string `json:"u,omitempty"`
	// Name is the part of a policy's name that the run gave it, for a
	// policy whose URN the target chooses.
	Name string `json:"n,omitempty"`
	// At is "noauth" for what was made at the auth-disabled deployment.
	At string `json:"at,omitempty"`
	// Before and Set are a changed policy as it was and as the run set it.
	Before *policyInput `json:"b,omitempty"`
	Set    *policyInput `json:"s,omitempty"`
}

func (e entry) key() string { return e.Kind + "|" + e.At + "|" + e.URN + "|" + e.Name }

// what names the entry's thing for people.
func (e entry) what() string {
	s := e.URN
	if s == "" {
		s = fmt.Sprintf("the %s named %q", e.Kind, e.Name)
	}
	if e.Kind == kindChange {
		s = "the policy " + e.URN + " as it was"
	}
	if e.At == "noauth" {
		s += " (at the auth-disabled deployment)"
	}
	return s
}

// trace is the run's hold and journal (runner.Hold).
type trace struct {
	run     string
	host    string
	started time.Time
	lease   time.Duration
	// patience is how long the sweep of the run's users' tokens waits for
	// a token list that lags (the target's propagation window, at most a
	// minute).
	patience time.Duration
	clients  map[string]*targetClient // "" the target, "noauth" the auth-disabled deployment
	noauth   []string                 // the auth-disabled deployment's base URLs
	say      func(string)

	mu      sync.Mutex
	cond    *sync.Cond
	open    map[string]entry
	seq     int
	gen     uint64 // bumped by every change of open
	durable uint64 // the gen the target holds
	writing bool
	pages   []string // what each page of the journal holds on the target
	lock    lockState
	lostWhy string
	lost    chan struct{}
	counts  map[string]int
	// users are the users the run recorded, by deployment: the tokens
	// that act as them are revoked at its end (sweepTokens).
	users map[string]map[string]bool

	stopRenew chan struct{}
	renewDone chan struct{}
	released  bool
}

func newTrace(t *runner.Target, docs *documents, o runner.HoldOptions) *trace {
	host, _ := os.Hostname()
	if host == "" {
		host = "an unnamed host"
	}
	tr := &trace{
		run: time.Now().UTC().Format("20060102t150405") + "-" + randomID(6), host: host, started: time.Now(), lease: o.Lease,
		clients: map[string]*targetClient{"": newTargetClient("the target", t.GMS, t.AdminToken, docs)},
		say:     o.Say, open: map[string]entry{}, lost: make(chan struct{}), counts: map[string]int{},
		users:    map[string]map[string]bool{},
		patience: min(t.Propagation, time.Minute),
	}
	if tr.say == nil {
		tr.say = func(string) {}
	}
	if t.NoAuthGMS != "" {
		tr.clients["noauth"] = newTargetClient("the auth-disabled deployment", t.NoAuthGMS, "", docs)
		tr.noauth = []string{t.NoAuthGMS}
		if t.NoAuthFrontend != "" {
			tr.noauth = append(tr.noauth, t.NoAuthFrontend)
		}
	}
	tr.cond = sync.NewCond(&tr.mu)
	return tr
}

func (tr *trace) main() *targetClient { return tr.clients[""] }

// at says at which deployment a request to u makes things.
func (tr *trace) at(u string) string {
	for _, base := range tr.noauth {
		if strings.HasPrefix(u, base) {
			return "noauth"
		}
	}
	return ""
}

func journalURN(run string, page int) string {
	return fmt.Sprintf("urn:li:tag:catalogspec-journal-%s-%d", run, page)
}

// ---- The journal ----

// intend records the entries on the target before what they name is made
// or changed; it returns once the target holds them. Entries already in
// the journal are not written again.
func (tr *trace) intend(ctx context.Context, entries ...entry) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.lostWhy != "" {
		return errors.New("the run lost its hold on the target: " + tr.lostWhy)
	}
	changed := false
	for _, e := range entries {
		k := e.key()
		if _, ok := tr.open[k]; ok {
			continue
		}
		tr.seq++
		e.Seq = tr.seq
		tr.open[k] = e
		changed = true
		if e.Kind == kindUser {
			tr.noteUserLocked(e)
		}
	}
	if changed {
		tr.gen++
	}
	if err := tr.syncLocked(ctx, tr.gen); err != nil {
		return fmt.Errorf("recording in the run's journal on the target what the scenario is about to make: %w", err)
	}
	return nil
}

// noteUserLocked keeps a user the run recorded, for the sweep of tokens.
func (tr *trace) noteUserLocked(e entry) {
	if tr.users[e.At] == nil {
		tr.users[e.At] = map[string]bool{}
	}
	tr.users[e.At][e.URN] = true
}

// sweepTokens revokes every token that acts as one of the users, at the
// deployment at: DataHub's removeUser leaves them. A token list that lags
// (DataHub's fails while its index still names a token just revoked) is
// asked again, within the run's patience.
func (tr *trace) sweepTokens(ctx context.Context, at string, users map[string]bool, t *runner.Tally) error {
	c := tr.clients[at]
	if c == nil || len(users) == 0 {
		return nil
	}
	list := slices.Sorted(maps.Keys(users))
	deadline := time.Now().Add(tr.patience)
	pause := 100 * time.Millisecond
	for {
		tokens, err := c.tokensActingAs(ctx, list)
		if err == nil {
			var errs []error
			for _, tok := range tokens {
				if !users[tok.ActorURN] {
					continue // a list that does not filter: not the run's
				}
				removed, err := c.revoke(ctx, tok.ID)
				if err != nil {
					errs = append(errs, err)
				}
				if removed {
					t.Removed["tokens"]++
				}
			}
			return errors.Join(errs...)
		}
		var re *remoteError
		if !errors.As(err, &re) || (re.code != "500" && re.typ != "SERVER_ERROR") || time.Now().Add(pause).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// done takes what the keys name out of the journal: it was removed or put
// back. The target learns it with the next write.
func (tr *trace) done(keys ...string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	changed := false
	for _, k := range keys {
		if _, ok := tr.open[k]; ok {
			delete(tr.open, k)
			changed = true
		}
	}
	if changed {
		tr.gen++
	}
}

// flush writes what the journal holds, if the target does not hold it yet.
func (tr *trace) flush(ctx context.Context) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.syncLocked(ctx, tr.gen)
}

// syncLocked returns once the target holds the journal as of gen: one
// caller writes what is open at that moment, the others wait for that
// write (group commit).
func (tr *trace) syncLocked(ctx context.Context, gen uint64) error {
	for tr.durable < gen {
		if tr.writing {
			tr.cond.Wait()
			continue
		}
		if tr.lostWhy != "" {
			return errors.New("the run lost its hold on the target: " + tr.lostWhy)
		}
		tr.writing = true
		snap := tr.gen
		entries := tr.openLocked()
		pages := slices.Clone(tr.pages)
		tr.mu.Unlock()
		written, err := tr.writePages(ctx, entries, pages)
		tr.mu.Lock()
		tr.writing = false
		tr.cond.Broadcast()
		if err != nil {
			return err
		}
		tr.pages = written
		tr.durable = snap
	}
	return nil
}

// openLocked is what the journal holds, in the order it was written.
func (tr *trace) openLocked() []entry {
	out := make([]entry, 0, len(tr.open))
	for _, e := range tr.open {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// journalPage is what one page of the journal holds.
type journalPage struct {
	Run     string  `json:"run"`
	Page    int     `json:"page"`
	Entries []entry `json:"entries"`
}

// writePages writes the entries into the journal's pages, only the pages
// whose text changed; was is each page's text on the target, and the
// result what it is after.
func (tr *trace) writePages(ctx context.Context, entries []entry, was []string) ([]string, error) {
	var texts []string
	page := journalPage{Run: tr.run, Page: 1}
	flushPage := func() {
		b, _ := json.Marshal(page)
		texts = append(texts, string(b))
		page = journalPage{Run: tr.run, Page: page.Page + 1}
	}
	size := 0
	for _, e := range entries {
		b, _ := json.Marshal(e)
		if size+len(b) > pageBytes && len(page.Entries) > 0 {
			flushPage()
			size = 0
		}
		page.Entries = append(page.Entries, e)
		size += len(b) + 1
	}
	if len(page.Entries) > 0 || len(texts) == 0 {
		flushPage()
	}
	// Pages no longer needed are emptied.
	for i := len(texts); i < len(was); i++ {
		b, _ := json.Marshal(journalPage{Run: tr.run, Page: i + 1, Entries: []entry{}})
		texts = append(texts, string(b))
	}
	for i, text := range texts {
		if i < len(was) && was[i] == text {
			continue
		}
		name := fmt.Sprintf("catalogspec journal of run %s, page %d (do not edit)", tr.run, i+1)
		if err := tr.main().writeTag(ctx, journalURN(tr.run, i+1), tagText{Name: name, Description: text}); err != nil {
			return was, err
		}
		if i < len(was) {
			was[i] = text
		} else {
			was = append(was, text)
		}
	}
	return was, nil
}

// readJournal reads every page of a run's journal.
func (tr *trace) readJournal(ctx context.Context, run string) (entries []entry, pages int, err error) {
	for page := 1; page < 10000; page++ {
		t, err := tr.main().readTag(ctx, journalURN(run, page))
		if err != nil {
			return nil, 0, err
		}
		if t == nil {
			return entries, page - 1, nil
		}
		var p journalPage
		if err := json.Unmarshal([]byte(t.Description), &p); err != nil || p.Run != run {
			return nil, 0, fmt.Errorf("the journal page %s is not one the suite wrote (%v): leave it to a person", journalURN(run, page), err)
		}
		entries = append(entries, p.Entries...)
	}
	return entries, 0, fmt.Errorf("the journal of run %s has too many pages", run)
}

// deleteJournal deletes a run's journal pages.
func (tr *trace) deleteJournal(ctx context.Context, run string, pages int) error {
	var errs []error
	for page := 1; page <= pages; page++ {
		if _, err := tr.main().deleteTag(ctx, journalURN(run, page)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ---- The lock ----

// readLock reads the lock; nil when no run holds the target.
func (tr *trace) readLock(ctx context.Context) (*lockState, error) {
	t, err := tr.main().readTag(ctx, lockURN)
	if err != nil || t == nil {
		return nil, err
	}
	var l lockState
	if err := json.Unmarshal([]byte(t.Description), &l); err != nil || l.Run == "" {
		return nil, fmt.Errorf("the tag %s is there, but it is not a lock of catalogspec's (its description is not one); if no run of the suite made it, delete it", lockURN)
	}
	return &l, nil
}

func (tr *trace) lockText(l lockState) tagText {
	b, _ := json.Marshal(l)
	return tagText{Name: "catalogspec: a run of the suite holds this deployment (do not edit)", Description: string(b)}
}

// take takes the target: it waits for a live run that holds it (up to
// o.Wait, else refuses), takes over the lock of a run that died, and
// returns the runs that died whose journals this run must put back.
func (tr *trace) take(ctx context.Context, o runner.HoldOptions) ([]lockState, error) {
	deadline := time.Now().Add(o.Wait)
	poll := min(time.Second, max(tr.lease/4, 50*time.Millisecond))
	var dead []lockState
	var inherits []string
	var watched *lockState
	var watchedAt time.Time
	waiting := false
	sleep := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cur, err := tr.readLock(ctx)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			won, err := tr.claim(ctx, inherits, func(l lockState) error { return tr.main().createTag(ctx, lockID, tr.lockText(l)) })
			if err != nil || won {
				return dead, err
			}
			continue // another run made it first
		}
		isDead := cur.Released
		if !isDead && time.Now().Before(cur.Renewed.Add(cur.lease())) {
			// Alive.
			watched = nil
			if time.Now().After(deadline) {
				if waiting {
					return nil, fmt.Errorf("another run still holds the target after waiting %s (%s=%s): %s", o.Wait, runner.EnvWait, o.Wait, cur.who())
				}
				return nil, fmt.Errorf("another run holds the target (%s): run again once it is done, or wait for it with %s (--wait), e.g. %s=10m", cur.who(), runner.EnvWait, runner.EnvWait)
			}
			if !waiting {
				waiting = true
				tr.say(fmt.Sprintf("another run holds the target (%s): waiting for it, up to %s", cur.who(), o.Wait))
			}
			if err := sleep(poll); err != nil {
				return nil, err
			}
			continue
		}
		if !isDead {
			// Its lease ran out by this clock: watch it, in case the
			// clocks disagree.
			if watched == nil || watched.Run != cur.Run || watched.Seq != cur.Seq {
				watched, watchedAt = cur, time.Now()
			}
			if time.Since(watchedAt) < cur.lease()/2 {
				if err := sleep(min(poll, cur.lease()/8+10*time.Millisecond)); err != nil {
					return nil, err
				}
				continue
			}
		}
		// The run died (or ended and left something): take its lock over,
		// in place (an upsert: the dead run's journal stays named in
		// this run's lock, never in none), naming it and whom it
		// inherited.
		if !slices.ContainsFunc(dead, func(d lockState) bool { return d.Run == cur.Run }) {
			dead = append(dead, *cur)
			for _, r := range append([]string{cur.Run}, cur.Inherits...) {
				if !slices.Contains(inherits, r) {
					inherits = append(inherits, r)
				}
			}
		}
		won, err := tr.claim(ctx, inherits, func(l lockState) error { return tr.writeLock(ctx, l) })
		if err != nil || won {
			return dead, err
		}
		watched = nil
	}
}

// claim writes this run's lock with write, waits a moment and reads it
// back: the run holds the target if the lock is still its own (another run
// that claimed it at the same moment wrote after it, or before).
func (tr *trace) claim(ctx context.Context, inherits []string, write func(lockState) error) (bool, error) {
	mine := lockState{Run: tr.run, Host: tr.host, Started: tr.started.UTC(), Renewed: time.Now().UTC(), Lease: tr.lease.String(), Seq: 1, Inherits: inherits}
	if err := write(mine); err != nil {
		if again, rerr := tr.readLock(ctx); rerr == nil && again != nil {
			return false, nil // another run made it first
		}
		return false, fmt.Errorf("taking the target (writing the tag %s): %w", lockURN, err)
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(lockSettle):
	}
	again, err := tr.readLock(ctx)
	if err != nil {
		return false, err
	}
	if again != nil && again.Run == tr.run {
		tr.mu.Lock()
		tr.lock = *again
		tr.mu.Unlock()
		return true, nil
	}
	return false, nil
}

// writeLock renews the lock with what it says now.
func (tr *trace) writeLock(ctx context.Context, l lockState) error {
	return tr.main().writeTag(ctx, lockURN, tr.lockText(l))
}

// renew renews the lease, after checking the lock is still this run's.
func (tr *trace) renew(ctx context.Context) error {
	cur, err := tr.readLock(ctx)
	if err != nil {
		return err
	}
	if cur == nil {
		return errHoldGone{"the lock " + lockURN + " was deleted"}
	}
	if cur.Run != tr.run {
		return errHoldGone{"another run took the target: " + cur.who()}
	}
	tr.mu.Lock()
	l := tr.lock
	tr.mu.Unlock()
	l.Seq = cur.Seq + 1
	l.Renewed = time.Now().UTC()
	if err := tr.writeLock(ctx, l); err != nil {
		return err
	}
	tr.mu.Lock()
	tr.lock = l
	tr.mu.Unlock()
	return nil
}

// errHoldGone is the lock showing another run's, or none.
type errHoldGone struct{ why string }

func (e errHoldGone) Error() string { return e.why }

// renewing renews the lease every third of it and writes what the journal
// took out meanwhile, until Release; when it cannot renew within the lease,
// or the lock shows another run, the run has lost the target.
func (tr *trace) renewing() {
	tr.stopRenew, tr.renewDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(tr.renewDone)
		every := tr.lease / 3
		lastOK := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tr.stopRenew:
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), tr.lease)
			err := tr.renew(ctx)
			if err == nil {
				lastOK = time.Now()
				_ = tr.flush(ctx)
			}
			cancel()
			var gone errHoldGone
			switch {
			case errors.As(err, &gone):
				tr.loseHold(gone.why)
				return
			case err != nil && time.Since(lastOK) > tr.lease:
				tr.loseHold(fmt.Sprintf("it could not renew its lease of %s (%s): %v", tr.lease, runner.EnvLease, err))
				return
			}
		}
	}()
}

func (tr *trace) loseHold(why string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.lostWhy == "" {
		tr.lostWhy = why
		close(tr.lost)
		tr.cond.Broadcast()
	}
}

// Lost is closed once the run has lost its hold (runner.Hold).
func (tr *trace) Lost() <-chan struct{} { return tr.lost }

// LostWhy says why (runner.Hold).
func (tr *trace) LostWhy() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.lostWhy
}

// count adds n things of a kind to what the run removed.
func (tr *trace) count(kind string, n int) {
	if tr == nil || n == 0 {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.counts[kind] += n
}

// ---- Taking the target, letting it go ----

// hold takes the target for a run: it waits or refuses when another run
// holds it, and puts back what runs that died left, saying so in one line.
func (tr *trace) hold(ctx context.Context, o runner.HoldOptions) error {
	dead, err := tr.take(ctx, o)
	if err != nil {
		return err
	}
	tr.renewing()
	if len(dead) > 0 {
		t, err := tr.repairDead(ctx, dead)
		if err != nil {
			tr.stop()
			return err
		}
		tr.say(t)
	}
	return nil
}

// repairDead puts back what the dead runs' journals name (and the runs
// they inherited), adopts into this run's journal what it could not, and
// deletes their journals; it returns the one line that says what it did.
func (tr *trace) repairDead(ctx context.Context, dead []lockState) (string, error) {
	var runs []string
	for _, d := range dead {
		for _, r := range append([]string{d.Run}, d.Inherits...) {
			if !slices.Contains(runs, r) {
				runs = append(runs, r)
			}
		}
	}
	var t runner.Tally
	t.Removed = map[string]int{}
	found := 0
	for _, run := range runs {
		entries, pages, err := tr.readJournal(ctx, run)
		if err != nil {
			return "", fmt.Errorf("reading the journal a run that died left: %w", err)
		}
		found += len(entries)
		left := tr.repair(ctx, entries, &t)
		users := map[string]map[string]bool{}
		for _, e := range entries {
			if e.Kind == kindUser {
				if users[e.At] == nil {
					users[e.At] = map[string]bool{}
				}
				users[e.At][e.URN] = true
			}
		}
		for _, at := range slices.Sorted(maps.Keys(users)) {
			if err := tr.sweepTokens(ctx, at, users[at], &t); err != nil {
				t.Failed = append(t.Failed, "the tokens of the users a run that died made: "+err.Error())
			}
		}
		// What could not be put back stays in a journal: this run's.
		if err := tr.intend(ctx, left...); err != nil {
			return "", err
		}
		if err := tr.deleteJournal(ctx, run, pages); err != nil {
			return "", fmt.Errorf("deleting the journal of run %s, which this run put back: %w", run, err)
		}
	}
	// This run's lock no longer names them.
	tr.mu.Lock()
	tr.lock.Inherits = nil
	tr.mu.Unlock()
	if err := tr.renew(ctx); err != nil {
		return "", err
	}
	var who []string
	for _, d := range dead {
		state := "that died"
		if d.Released {
			state = "that ended"
		}
		w := fmt.Sprintf("a run %s (%s)", state, d.who())
		if len(d.Inherits) > 0 {
			w += fmt.Sprintf(", and the runs it was putting back (%s)", strings.Join(d.Inherits, ", "))
		}
		who = append(who, w)
	}
	line := strings.Join(who, "; ")
	if found == 0 {
		return line + " had left nothing on the target", nil
	}
	return fmt.Sprintf("%s had left things on the target: %s", line, t.Summary()), nil
}

// stop stops renewing the lease.
func (tr *trace) stop() {
	if tr.stopRenew != nil {
		select {
		case <-tr.stopRenew:
		default:
			close(tr.stopRenew)
		}
		<-tr.renewDone
	}
}

// Release removes what the run's scenarios left in the journal (each
// scenario removes what it made as it ends: this is what they could not),
// and lets the target go: it deletes the journal and the lock, or, when
// something could not be removed, keeps it in the journal and marks the
// lock released, for the next run to try again (runner.Hold).
func (tr *trace) Release(ctx context.Context) runner.Tally {
	tr.stop()
	tr.mu.Lock()
	if tr.released {
		tr.mu.Unlock()
		return runner.Tally{}
	}
	tr.released = true
	entries := tr.openLocked()
	lostWhy := tr.lostWhy
	tr.mu.Unlock()
	t := runner.Tally{Removed: map[string]int{}}
	if lostWhy != "" {
		t.Failed = append(t.Failed, fmt.Sprintf("the run lost its hold on the target (%s), so it did not look for what its scenarios left: run catalogspec cleanup", lostWhy))
		tr.addCounts(&t)
		return t
	}
	left := tr.repair(ctx, entries, &t)
	tr.mu.Lock()
	users := tr.users
	tr.mu.Unlock()
	for _, at := range slices.Sorted(maps.Keys(users)) {
		if err := tr.sweepTokens(ctx, at, users[at], &t); err != nil {
			t.Failed = append(t.Failed, "the tokens of the users the run made: "+err.Error())
		}
	}
	tr.addCounts(&t)
	tr.mu.Lock()
	tr.open = map[string]entry{}
	for _, e := range left {
		tr.open[e.key()] = e
	}
	tr.gen++
	pages := len(tr.pages)
	tr.mu.Unlock()
	if len(left) == 0 {
		if err := tr.deleteJournal(ctx, tr.run, pages); err != nil {
			t.Failed = append(t.Failed, "the run's journal: "+err.Error())
		}
		if cur, err := tr.readLock(ctx); err != nil {
			t.Failed = append(t.Failed, "the run's lock: "+err.Error())
		} else if cur != nil && cur.Run == tr.run {
			if _, err := tr.main().deleteTag(ctx, lockURN); err != nil {
				t.Failed = append(t.Failed, "the run's lock: "+err.Error())
			}
		}
		return t
	}
	// Kept for the next run (or cleanup) to try again.
	if err := tr.flush(ctx); err != nil {
		t.Failed = append(t.Failed, "the run's journal, which names what it could not remove: "+err.Error())
	}
	tr.mu.Lock()
	l := tr.lock
	tr.mu.Unlock()
	l.Released, l.Renewed, l.Seq = true, time.Now().UTC(), l.Seq+1
	if err := tr.writeLock(ctx, l); err != nil {
		t.Failed = append(t.Failed, "the run's lock: "+err.Error())
	}
	return t
}

func (tr *trace) addCounts(t *runner.Tally) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for k, n := range tr.counts {
		t.Removed[k] += n
	}
}

// ---- Putting back ----

// repair removes what the entries name and puts back what they changed,
// the newest first, adding to t; it returns the entries it could not.
func (tr *trace) repair(ctx context.Context, entries []entry, t *runner.Tally) (left []entry) {
	if t.Removed == nil {
		t.Removed = map[string]int{}
	}
	policies := map[string][]policyView{} // by deployment, read once
	listPolicies := func(c *targetClient, at string) ([]policyView, error) {
		if p, ok := policies[at]; ok {
			return p, nil
		}
		p, err := c.policies(ctx)
		if err == nil {
			policies[at] = p
		}
		return p, err
	}
	sorted := slices.Clone(entries)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Seq > sorted[j].Seq })
	for _, e := range sorted {
		c := tr.clients[e.At]
		if c == nil {
			t.Failed = append(t.Failed, e.what()+": this run has no "+runner.EnvNoAuth+" to reach it")
			left = append(left, e)
			continue
		}
		if e.Kind != kindChange && !strings.Contains(e.URN+e.Name, "catalogspec-") || e.Kind == kindEntity && e.Name != "" && runReportAspects[entityTypeOf(e.URN)] == "" {
			// Never remove what the suite did not name.
			t.Failed = append(t.Failed, e.what()+": not named by the suite, so not removed (the journal is not the suite's?)")
			continue
		}
		if err := tr.repairOne(ctx, c, e, t, func() ([]policyView, error) { return listPolicies(c, e.At) }); err != nil {
			t.Failed = append(t.Failed, fmt.Sprintf("%s: %v", e.what(), err))
			left = append(left, e)
		}
	}
	return left
}

// repairOne removes or puts back what e names.
func (tr *trace) repairOne(ctx context.Context, c *targetClient, e entry, t *runner.Tally, policies func() ([]policyView, error)) error {
	switch e.Kind {
	case kindUser:
		removed, err := c.removeUser(ctx, e.URN)
		if removed {
			t.Removed["users"]++
		}
		return err
	case kindTag:
		if e.URN == "" {
			// A tag made without an id, whose answer (its URN) the run
			// may not have lived to read: found by the name it was given.
			urns, err := c.tagsNamed(ctx, e.Name)
			if err != nil {
				return err
			}
			for _, urn := range urns {
				removed, err := c.deleteTag(ctx, urn)
				if err != nil {
					return err
				}
				if removed {
					t.Removed["tags"]++
				}
			}
			return nil
		}
		if e.Name != "" {
			// A tag whose URN the target chose: delete it only if it
			// still has the name the suite gave it.
			t, err := c.readTag(ctx, e.URN)
			if err != nil || t == nil || t.Name != e.Name {
				return err
			}
		}
		removed, err := c.deleteTag(ctx, e.URN)
		if removed {
			t.Removed["tags"]++
		}
		return err
	case kindEntity:
		typ := entityTypeOf(e.URN)
		if e.Name != "" {
			// A run report's entity, whose URN DataHub's CLI chose:
			// removed only if it still names the suite's pipeline.
			ours, err := c.aspectNames(ctx, e.URN, runReportAspects[typ], e.Name)
			if err != nil || !ours {
				return err
			}
		}
		removed, err := c.deleteEntity(ctx, typ, e.URN)
		if removed {
			t.Removed[kindCount(typ)]++
		}
		return err
	case kindToken:
		removed, err := c.revoke(ctx, strings.TrimPrefix(e.URN, "urn:li:dataHubAccessToken:"))
		if removed {
			t.Removed["tokens"]++
		}
		return err
	case kindPolicy:
		if e.URN != "" {
			removed, err := c.deletePolicy(ctx, e.URN)
			if removed {
				t.Removed["policies"]++
			}
			return err
		}
		all, err := policies()
		if err != nil {
			return err
		}
		for _, p := range all {
			if strings.Contains(p.Name, e.Name) {
				removed, err := c.deletePolicy(ctx, p.URN)
				if err != nil {
					return err
				}
				if removed {
					t.Removed["policies"]++
				}
			}
		}
		return nil
	case kindChange:
		all, err := policies()
		if err != nil {
			return err
		}
		i := slices.IndexFunc(all, func(p policyView) bool { return p.URN == e.URN })
		if i < 0 {
			t.Left = append(t.Left, e.URN+" is gone")
			return nil
		}
		now := all[i].input()
		switch {
		case samePolicy(now, *e.Set):
			if err := c.updatePolicy(ctx, e.URN, *e.Before); err != nil {
				return err
			}
			t.PutBack = append(t.PutBack, fmt.Sprintf("the policy %s (%q) %s again", e.URN, e.Before.Name, e.Before.State))
		case samePolicy(now, *e.Before):
			// Put back already.
		default:
			t.Left = append(t.Left, fmt.Sprintf("the policy %s (%q) was changed since the run changed it (it is %s now; it was %s before)", e.URN, now.Name, now.State, e.Before.State))
		}
		return nil
	}
	return fmt.Errorf("an entry of a kind this suite does not know (%q): a newer suite's journal?", e.Kind)
}

// samePolicy compares two policies as written.
func samePolicy(a, b policyInput) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// entityTypeOf is the entity type of a URN.
func entityTypeOf(urn string) string {
	rest, _ := strings.CutPrefix(urn, "urn:li:")
	typ, _, _ := strings.Cut(rest, ":")
	return typ
}

// kindCount is how a tally counts entities of a type.
func kindCount(entityType string) string {
	if entityType == "dataset" {
		return "datasets"
	}
	return entityType + " entities"
}

// cleanup puts back what runs that died left, on demand.
func (tr *trace) cleanup(ctx context.Context, o runner.HoldOptions) (runner.Tally, error) {
	cur, err := tr.readLock(ctx)
	if err != nil {
		return runner.Tally{}, err
	}
	if cur == nil {
		tr.say("nothing to clean up: no run holds the target, and none that died left anything there")
		return runner.Tally{}, nil
	}
	dead, err := tr.take(ctx, o)
	if err != nil {
		return runner.Tally{}, err
	}
	tr.renewing()
	var line string
	if len(dead) > 0 {
		if line, err = tr.repairDead(ctx, dead); err != nil {
			tr.stop()
			return runner.Tally{}, err
		}
	}
	t := tr.Release(ctx)
	if line == "" {
		line = "nothing to clean up"
	}
	if !t.Clean() {
		line += "; " + t.Summary()
	}
	tr.say(line)
	return t, nil
}
