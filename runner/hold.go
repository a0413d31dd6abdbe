package runner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// A run's hold on the target (the steps' journal.go does the work): before
// any scenario runs, the run takes the target with a lock on the target
// itself, renewed while it lives, and repairs what runs that died there
// left; every scenario records on the target what it is about to make or
// change (its journal) before it does; at the end, what the scenarios left
// is removed and the hold let go. A second run against the same target
// waits for the first (CATALOGSPEC_WAIT) or refuses with exit 2.
//
//	| variable          | meaning                                                    | default |
//	|-------------------|------------------------------------------------------------|---------|
//	| CATALOGSPEC_LEASE | how long a run's hold lasts unless it renews it (every third of it) | 30s |
//	| CATALOGSPEC_WAIT  | how long a run waits for another run that holds the target | 0: refuse at once |
const (
	EnvLease = "CATALOGSPEC_LEASE"
	EnvWait  = "CATALOGSPEC_WAIT"
)

// DefaultLease is how long a hold lasts unless it is renewed.
const DefaultLease = 30 * time.Second

// HoldOptions say how a run takes the target.
type HoldOptions struct {
	// Lease is how long the hold lasts unless renewed; the run renews it
	// every third of it.
	Lease time.Duration
	// Wait is how long to wait for another run that holds the target; 0
	// refuses at once.
	Wait time.Duration
	// Say prints one line to the run's output (waiting, a repair).
	Say func(line string)
}

// Hold is a run's hold on the target.
type Hold interface {
	// Lost is closed when the run loses its hold (it could not renew it
	// within its lease, or another run took the target): no scenario
	// should start after, and the run cannot be judged.
	Lost() <-chan struct{}
	// LostWhy says why the hold was lost, "" while it holds.
	LostWhy() string
	// Release removes what the run's scenarios left (it puts back what
	// they changed), lets the target go, and returns what it did.
	Release(ctx context.Context) Tally
}

// Tally is what a run (or a cleanup) removed from the target and put back,
// and what it could not.
type Tally struct {
	// Removed counts what was removed, by kind ("users", "datasets",
	// "tags", "policies", "tokens", "sessions").
	Removed map[string]int
	// PutBack names what was put back as it was (a starting policy).
	PutBack []string
	// Left names what was changed since and so left as it is.
	Left []string
	// Failed names what could not be removed or put back, with why.
	Failed []string
}

// removedKinds are the kinds a tally counts, in the order it says them.
var removedKinds = []string{"users", "datasets", "tags", "policies", "tokens", "sessions"}

// Summary says what the tally holds, in one sentence without the subject:
// "removed 3 users, 0 datasets, ...; put back ...".
func (t Tally) Summary() string {
	var parts []string
	var counts []string
	for _, k := range removedKinds {
		counts = append(counts, count(t.Removed[k], k))
	}
	for _, k := range slices.Sorted(maps.Keys(t.Removed)) {
		if !slices.Contains(removedKinds, k) {
			counts = append(counts, count(t.Removed[k], k))
		}
	}
	parts = append(parts, "removed "+strings.Join(counts, ", "))
	if len(t.PutBack) > 0 {
		parts = append(parts, fmt.Sprintf("put back %d changed %s (%s)", len(t.PutBack), plural(len(t.PutBack), "thing", "things"), strings.Join(t.PutBack, ", ")))
	}
	if len(t.Left) > 0 {
		parts = append(parts, fmt.Sprintf("left %d as it is, changed by someone since (%s)", len(t.Left), strings.Join(t.Left, "; ")))
	}
	if len(t.Failed) > 0 {
		parts = append(parts, fmt.Sprintf("could NOT remove or put back %d: %s", len(t.Failed), strings.Join(t.Failed, "; ")))
	}
	return strings.Join(parts, "; ")
}

// count says n things of a kind: "1 user", "3 users", "0 datasets".
func count(n int, kind string) string {
	if n == 1 {
		kind = strings.Replace(kind, "policies", "policy", 1)
		kind = strings.Replace(kind, "entities", "entity", 1)
		kind = strings.TrimSuffix(kind, "s")
	}
	return fmt.Sprintf("%d %s", n, kind)
}

// Clean says whether nothing failed.
func (t Tally) Clean() bool { return len(t.Failed) == 0 }

// holdOptions reads the lease and the wait from the environment.
func holdOptions(getenv func(string) string) (HoldOptions, error) {
	o := HoldOptions{Lease: DefaultLease}
	if v := strings.TrimSpace(getenv(EnvLease)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 300*time.Millisecond {
			return o, fmt.Errorf("%s=%q: want a duration of at least 300ms, such as 30s", EnvLease, v)
		}
		o.Lease = d
	}
	if v := strings.TrimSpace(getenv(EnvWait)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return o, fmt.Errorf("%s=%q: want a duration such as 10m, or 0 to refuse at once", EnvWait, v)
		}
		o.Wait = d
	}
	return o, nil
}
