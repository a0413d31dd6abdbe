package runner

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"sync"
)

// The schedule: which scenario runs when. Against a target that lags (a
// DataHub refreshing its policies every two minutes), a scenario spends
// most of its time waiting for a change to show, and waits must overlap
// rather than add up; against one that does not, the machine's cores are
// the limit. So:
//
//   - at most Concurrency scenarios work at once (send requests); a
//     scenario waiting for a change to show (world.eventually) gives its
//     slot up meanwhile, and gets one back before any scenario of its lane
//     starts, so every scenario reaches its first wait early and the waits
//     of the whole run overlap;
//   - the scenarios that drive a browser (@cap:ui) have slots of their
//     own, half as many (browserSlots), beside those: most of their time
//     is the browser's (a page loading, a script running in Chromium), in
//     which the suite's own slot would stand idle, so the browser tier
//     runs beside the rest of the run instead of taking its slots. Each
//     lane starts its scenarios in the run's order; a phase that runs its
//     scenarios one at a time runs one of either lane. At concurrency 1
//     there is one lane: one scenario at a time; and one when the run has
//     scenarios of one kind only.
//   - the scenarios start in an order drawn from the seed over the whole
//     run (godog's own shuffles each feature apart), within phases:
//     1. alone: the scenarios that compare instances (@cap:replicas), one
//        at a time with nothing else running, so that each instance serves
//        from what it holds: under load a careful instance stops trusting
//        what it holds and reads through, and a replica that never learns
//        of a change would pass;
//     then, in an order the seed picks:
//     2. the exclusive window: the @exclusive scenarios that change what
//        every user may do, together, with nothing else running; they
//        share each switch (a boot policy set INACTIVE, an every-user
//        policy made): the first to need it throws it, and the window
//        puts it back once its last scenario is done and waits until that
//        shows, before any other scenario starts;
//     3. the @exclusive scenarios that change something else every
//        scenario relies on (the invite token people sign up with), one at
//        a time with nothing else running;
//     4. the rest.
//
// Each scenario still makes what it needs and cleans up: run alone (go test
// -run, CATALOGSPEC_TAGS) it does all of it itself.

// Phases of a run, in the order they may come.
const (
	phaseAlone     = "alone"
	phaseExclusive = "exclusive"
	phaseSolo      = "solo"
	phaseRest      = "rest"
)

// phaseOf is the phase a scenario runs in: an @exclusive scenario that
// throws a switch runs in the window, one that changes something else for
// every user (an invite token) alone.
// throwsSwitch says which steps change what every user may do (the steps'
// ThrowsSwitch).
func phaseOf(s ScenarioInfo, throwsSwitch func(step string) bool) string {
	switch {
	case slices.Contains(s.Capabilities, "replicas"):
		return phaseAlone
	case slices.Contains(s.Tags, "@exclusive"):
		for _, st := range s.Steps {
			if throwsSwitch(st) {
				return phaseExclusive
			}
		}
		return phaseSolo
	}
	return phaseRest
}

// Lanes: the slots a scenario takes.
const (
	laneWork    = 0 // every scenario but those driving a browser
	laneBrowser = 1 // @cap:ui, when there are browser slots
	lanes       = 2
)

// browserSlots is how many scenarios driving a browser run at once beside
// the concurrency others: half as many, none (one lane) at concurrency 1.
func browserSlots(concurrency int) int { return concurrency / 2 }

// Scheduler admits the scenarios of a run.
type Scheduler struct {
	slots [lanes]int     // scenarios that may work at once, by lane
	lane  map[string]int // each scenario's lane

	mu   sync.Mutex
	cond *sync.Cond
	// phases in the order they run, each with its scenarios in the order
	// they start.
	phases  []*phase
	current int        // index of the phase running now
	busy    [lanes]int // slots taken
	// resuming counts scenarios waiting for a slot to go on with: they
	// come before any scenario of their lane that has not started.
	resuming [lanes]int
	stopped  string // why no more scenarios start ("" while they do)
	// closing says that the exclusive window's last scenario must close
	// it (leave's closeWindow) before the next phase starts.
	closing bool
	// quiet is closed once the scenarios that run alone are done: what
	// would load the machine meanwhile (starting the browser) waits for it.
	quiet     chan struct{}
	quietDone bool
}

type phase struct {
	name  string
	order []string // scenario names, in the order they start
	// queue are the names not yet started, by lane, in that order.
	queue   [lanes][]string
	members map[string]bool // names not yet done
	alone   bool            // its scenarios run one at a time
	running int
}

// newScheduler lays the selected scenarios out in phases, each in an order
// drawn from seed.
func newScheduler(selected []ScenarioInfo, slots int, seed int64, throwsSwitch func(step string) bool) *Scheduler {
	rng := rand.New(rand.NewSource(seed))
	byPhase := map[string][]string{}
	names := make([]string, 0, len(selected))
	for _, s := range selected {
		names = append(names, s.Name)
	}
	sort.Strings(names) // the seed alone decides the order
	phaseName := map[string]string{}
	for _, s := range selected {
		phaseName[s.Name] = phaseOf(s, throwsSwitch)
	}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for _, n := range names {
		byPhase[phaseName[n]] = append(byPhase[phaseName[n]], n)
	}
	// The alone first, on a quiet machine; the others in an order the
	// seed picks.
	later := []string{phaseExclusive, phaseSolo, phaseRest}
	rng.Shuffle(len(later), func(i, j int) { later[i], later[j] = later[j], later[i] })
	order := append([]string{phaseAlone}, later...)
	s := &Scheduler{lane: map[string]int{}, quiet: make(chan struct{})}
	s.slots[laneWork] = max(slots, 1)
	// Two lanes when the run has scenarios of both kinds; one when it has
	// only one kind (CATALOGSPEC_TAGS=@ui runs them Concurrency at a time).
	ui := func(sc ScenarioInfo) bool { return slices.Contains(sc.Capabilities, "ui") }
	if slices.ContainsFunc(selected, ui) && !slices.ContainsFunc(selected, func(sc ScenarioInfo) bool { return !ui(sc) }) {
		s.slots[laneBrowser] = 0
	} else {
		s.slots[laneBrowser] = browserSlots(slots)
	}
	for _, sc := range selected {
		if s.slots[laneBrowser] > 0 && ui(sc) {
			s.lane[sc.Name] = laneBrowser
		}
	}
	s.cond = sync.NewCond(&s.mu)
	for _, name := range order {
		if len(byPhase[name]) == 0 {
			continue
		}
		p := &phase{name: name, order: byPhase[name], members: map[string]bool{}, alone: name == phaseAlone || name == phaseSolo}
		for _, n := range p.order {
			p.members[n] = true
			p.queue[s.lane[n]] = append(p.queue[s.lane[n]], n)
		}
		s.phases = append(s.phases, p)
	}
	s.advanceLocked()
	return s
}

// describe says how the run is laid out, for its first lines.
func (s *Scheduler) describe() string {
	var parts []string
	for _, p := range s.phases {
		what := map[string]string{
			phaseAlone:     "%d comparing instances, one at a time",
			phaseExclusive: "%d @exclusive together",
			phaseSolo:      "%d @exclusive one at a time",
			phaseRest:      "%d others",
		}[p.name]
		parts = append(parts, fmt.Sprintf(what, len(p.order)))
	}
	out := strings.Join(parts, ", then ")
	if n := s.count(laneBrowser); n > 0 {
		out += fmt.Sprintf("; the %d driving a browser in %d slots of their own beside the others", n, s.slots[laneBrowser])
	}
	return out
}

// count is how many scenarios run in lane l.
func (s *Scheduler) count(l int) int {
	n := 0
	for _, v := range s.lane {
		if v == l {
			n++
		}
	}
	return n
}

// Admit blocks until the scenario may start: its phase runs, the
// scenarios before it in that phase and lane have started, and a slot of
// its lane is free. It
// returns why the scenario will not run instead, when the run stops first;
// either way leave must follow.
func (s *Scheduler) Admit(ctx context.Context, name string) (notRun string) {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cond.Broadcast()
	})
	defer stop()
	l := s.lane[name]
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		switch {
		case ctx.Err() != nil:
			return "the run was interrupted"
		case s.stopped != "":
			return s.stopped
		}
		if s.current < len(s.phases) {
			p := s.phases[s.current]
			q := p.queue[l]
			if len(q) > 0 && q[0] == name &&
				s.busy[l] < s.slots[l] && s.resuming[l] == 0 && (!p.alone || p.running == 0) {
				p.queue[l] = q[1:]
				p.running++
				s.busy[l]++
				return ""
			}
		}
		s.cond.Wait()
	}
}

// Leave takes the scenario name out of the schedule: ended, its cleanup
// done, when it was admitted; else never started. When it is the last to
// leave an exclusive window that must be closed (CloseWindowAtEnd), it
// runs closeWindow first, which puts back what the window switched, before
// the next phase starts.
func (s *Scheduler) Leave(name string, admitted bool, closeWindow func()) {
	s.mu.Lock()
	l := s.lane[name]
	var p *phase
	for _, q := range s.phases {
		if q.members[name] {
			p = q
		}
	}
	if p != nil {
		delete(p.members, name)
		if i := slices.Index(p.queue[l], name); i >= 0 {
			p.queue[l] = slices.Delete(p.queue[l], i, i+1) // never started
		}
	}
	last := p != nil && p.name == phaseExclusive && len(p.members) == 0 && s.closing
	if last {
		s.closing = false
	}
	s.mu.Unlock()
	if last {
		closeWindow() // the next phase waits for it
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if admitted {
		if p != nil {
			p.running--
		}
		s.busy[l]--
	}
	s.advanceLocked()
	s.cond.Broadcast()
}

// advanceLocked moves to the next phase while the current one is done.
func (s *Scheduler) advanceLocked() {
	for s.current < len(s.phases) && len(s.phases[s.current].members) == 0 {
		s.current++
	}
	if !s.quietDone && (s.current >= len(s.phases) || s.phases[s.current].name != phaseAlone) {
		s.quietDone = true
		close(s.quiet)
	}
}

// Pause gives the slot of the scenario name up while it waits for a
// change to show.
func (s *Scheduler) Pause(name string) {
	l := s.lane[name]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy[l]--
	s.cond.Broadcast()
}

// Resume takes a slot of the scenario name's lane back after a pause,
// before any scenario of that lane starts.
func (s *Scheduler) Resume(name string) {
	l := s.lane[name]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resuming[l]++
	for s.busy[l] >= s.slots[l] {
		s.cond.Wait()
	}
	s.resuming[l]--
	s.busy[l]++
	s.cond.Broadcast()
}

// Stop starts no scenario after this one (the first failure, with
// CATALOGSPEC_FAIL_FAST).
func (s *Scheduler) Stop(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == "" {
		s.stopped = why
	}
	s.cond.Broadcast()
}

// CloseWindowAtEnd says that the exclusive window's last scenario must
// close it before the next phase (leave).
func (s *Scheduler) CloseWindowAtEnd() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
}
