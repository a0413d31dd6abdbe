package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

func scenarios(phase string, n int) []ScenarioInfo {
	var out []ScenarioInfo
	for i := range n {
		s := ScenarioInfo{Name: fmt.Sprintf("%s %02d", phase, i)}
		switch phase {
		case phaseAlone:
			s.Capabilities = []string{"replicas"}
		case phaseExclusive:
			s.Tags = []string{"@exclusive"}
			s.Steps = []string{"Ann holds a personal access token", "no policy lets every user read entities"}
		case phaseSolo:
			s.Tags = []string{"@exclusive"}
			s.Steps = []string{"the administrator has made a new invite token"}
		}
		out = append(out, s)
	}
	return out
}

// throwsSwitch stands for the steps' ThrowsSwitch: the exclusive
// scenarios of scenarios() throw a switch.
func throwsSwitch(step string) bool { return step == "no policy lets every user read entities" }

// noClose is a closeWindow that the test expects never to run.
func noClose() {}

// admitted waits up to a second for admit to return.
func admitted(t *testing.T, s *Scheduler, name string) {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- s.Admit(context.Background(), name) }()
	select {
	case why := <-done:
		if why != "" {
			t.Fatalf("%s not run: %s", name, why)
		}
	case <-time.After(time.Second):
		t.Fatalf("%s was not admitted", name)
	}
}

// blocked starts admit and says it has not returned within 50 ms; the
// channel gets its result later.
func blocked(t *testing.T, s *Scheduler, name string) chan string {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- s.Admit(context.Background(), name) }()
	select {
	case <-done:
		t.Fatalf("%s was admitted while it should wait", name)
	case <-time.After(50 * time.Millisecond):
	}
	return done
}

func TestScheduleOrderComesFromTheSeed(t *testing.T) {
	sel := scenarios(phaseRest, 30)
	a, b := newScheduler(sel, 4, 7, throwsSwitch), newScheduler(sel, 4, 7, throwsSwitch)
	if !slices.Equal(a.phases[0].order, b.phases[0].order) {
		t.Fatal("one seed, two orders")
	}
	reversed := slices.Clone(sel)
	slices.Reverse(reversed)
	if c := newScheduler(reversed, 4, 7, throwsSwitch); !slices.Equal(a.phases[0].order, c.phases[0].order) {
		t.Error("the order depends on the features' order, not the seed alone")
	}
	if d := newScheduler(sel, 4, 8, throwsSwitch); slices.Equal(a.phases[0].order, d.phases[0].order) {
		t.Error("two seeds, one order")
	}
}

func TestScheduleGivesAWaitingScenarioItsSlotBackFirst(t *testing.T) {
	s := newScheduler(scenarios(phaseRest, 4), 2, 1, throwsSwitch)
	order := s.phases[0].order
	admitted(t, s, order[0])
	admitted(t, s, order[1])
	third := blocked(t, s, order[2]) // both slots taken
	s.Pause(order[0])                // order[0] waits for a change: its slot goes
	if why := <-third; why != "" {
		t.Fatal(why)
	}
	resumed := make(chan struct{})
	go func() { s.Resume(order[0]); close(resumed) }()
	fourth := blocked(t, s, order[3])
	select {
	case <-resumed:
		t.Fatal("resumed while both slots were taken")
	case <-time.After(50 * time.Millisecond):
	}
	s.Leave(order[1], true, noClose)
	select {
	case <-resumed:
	case <-time.After(time.Second):
		t.Fatal("the waiting scenario did not get the free slot")
	}
	select {
	case <-fourth:
		t.Fatal("a new scenario took the slot before the one that waited")
	case <-time.After(50 * time.Millisecond):
	}
	s.Leave(order[2], true, noClose)
	if why := <-fourth; why != "" {
		t.Fatal(why)
	}
}

func TestSchedulePhases(t *testing.T) {
	sel := append(append(scenarios(phaseRest, 3), scenarios(phaseExclusive, 2)...), scenarios(phaseAlone, 2)...)
	var s *Scheduler
	for seed := int64(1); seed < 1000; seed++ { // a seed that puts the window first
		if s = newScheduler(sel, 4, seed, throwsSwitch); s.phases[1].name == phaseExclusive {
			break
		}
	}
	if got := []string{s.phases[0].name, s.phases[1].name, s.phases[2].name}; !slices.Equal(got, []string{phaseAlone, phaseExclusive, phaseRest}) {
		t.Fatalf("phases %v", got)
	}
	select {
	case <-s.quiet:
		t.Fatal("quiet before the scenarios that run alone")
	default:
	}
	alone, excl, rest := s.phases[0].order, s.phases[1].order, s.phases[2].order
	admitted(t, s, alone[0])
	second := blocked(t, s, alone[1]) // one at a time, with slots to spare
	early := blocked(t, s, excl[0])   // the next phase waits
	s.Leave(alone[0], true, noClose)
	if why := <-second; why != "" {
		t.Fatal(why)
	}
	s.Leave(alone[1], true, noClose)
	if why := <-early; why != "" {
		t.Fatal(why)
	}
	select {
	case <-s.quiet:
	case <-time.After(time.Second):
		t.Fatal("not quiet once the scenarios that run alone are done")
	}
	admitted(t, s, excl[1]) // the window's scenarios run together
	var closedBy []string
	var mu sync.Mutex
	closer := func(name string) func() {
		return func() { mu.Lock(); closedBy = append(closedBy, name); mu.Unlock() }
	}
	s.CloseWindowAtEnd()
	restFirst := blocked(t, s, rest[0])
	s.Leave(excl[0], true, closer(excl[0]))
	select {
	case <-restFirst:
		t.Fatal("a scenario started while the window was open")
	case <-time.After(50 * time.Millisecond):
	}
	s.Leave(excl[1], true, closer(excl[1]))
	if why := <-restFirst; why != "" {
		t.Fatal(why)
	}
	if !slices.Equal(closedBy, []string{excl[1]}) {
		t.Errorf("the window was closed by %v, want once, by its last scenario %s", closedBy, excl[1])
	}
}

func TestScheduleLetsASkippedScenarioOut(t *testing.T) {
	sel := append(scenarios(phaseExclusive, 1), scenarios(phaseRest, 4)...)
	var s *Scheduler
	for seed := int64(1); seed < 1000; seed++ { // the window first
		if s = newScheduler(sel, 4, seed, throwsSwitch); s.phases[0].name == phaseExclusive {
			break
		}
	}
	if s.phases[0].name != phaseExclusive {
		t.Fatal("no seed puts the window first")
	}
	rest := s.phases[1].order
	first := blocked(t, s, rest[0]) // the window is not done
	// The window's one scenario is skipped: it leaves without being
	// admitted, and the rest do not wait for it.
	s.Leave("exclusive 00", false, noClose)
	if why := <-first; why != "" {
		t.Fatal(why)
	}
	// Nor for a skipped scenario of their own phase, next in line or
	// further on.
	s.Leave(rest[1], false, noClose)
	s.Leave(rest[0], true, noClose)
	s.Leave(rest[2], false, noClose)
	admitted(t, s, rest[3])
	s.Leave(rest[3], true, noClose)
	if s.current != len(s.phases) {
		t.Errorf("phase %d of %d after every scenario left", s.current, len(s.phases))
	}
}

func TestScheduleStops(t *testing.T) {
	s := newScheduler(scenarios(phaseRest, 3), 1, 1, throwsSwitch)
	order := s.phases[0].order
	admitted(t, s, order[0])
	waiting := blocked(t, s, order[1])
	s.Stop("the run stopped at the first failure")
	if why := <-waiting; why != "the run stopped at the first failure" {
		t.Errorf("a scenario waiting to start: %q, want it not run", why)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if why := newScheduler(scenarios(phaseRest, 1), 1, 1, throwsSwitch).Admit(ctx, "rest 00"); why != "the run was interrupted" {
		t.Errorf("an interrupted run: %q", why)
	}
}

func TestScheduleRunsAnExclusiveScenarioWithoutASwitchAlone(t *testing.T) {
	sel := append(append(scenarios(phaseSolo, 2), scenarios(phaseExclusive, 1)...), scenarios(phaseRest, 1)...)
	var s *Scheduler
	for seed := int64(1); seed < 1000; seed++ {
		if s = newScheduler(sel, 4, seed, throwsSwitch); s.phases[0].name == phaseSolo {
			break
		}
	}
	if s.phases[0].name != phaseSolo || len(s.phases[0].order) != 2 {
		t.Fatalf("phases %+v", s.phases[0])
	}
	solo := s.phases[0].order
	admitted(t, s, solo[0])
	second := blocked(t, s, solo[1])
	s.Leave(solo[0], true, noClose)
	if why := <-second; why != "" {
		t.Fatal(why)
	}
}

// browserScenarios are n scenarios of the rest that drive a browser.
func browserScenarios(n int) []ScenarioInfo {
	var out []ScenarioInfo
	for i := range n {
		out = append(out, ScenarioInfo{Name: fmt.Sprintf("ui %02d", i), Tags: []string{"@ui"}, Capabilities: []string{"ui"}})
	}
	return out
}

// inLane is the names of order in lane l of s, in order.
func inLane(s *Scheduler, order []string, l int) []string {
	var out []string
	for _, n := range order {
		if s.lane[n] == l {
			out = append(out, n)
		}
	}
	return out
}

func TestScheduleGivesTheBrowserScenariosSlotsOfTheirOwn(t *testing.T) {
	s := newScheduler(append(scenarios(phaseRest, 4), browserScenarios(3)...), 2, 1, throwsSwitch)
	order := s.phases[0].order
	work, ui := inLane(s, order, laneWork), inLane(s, order, laneBrowser)
	if len(work) != 4 || len(ui) != 3 {
		t.Fatalf("lanes: %v and %v", work, ui)
	}
	admitted(t, s, work[0])
	admitted(t, s, work[1])
	// Both work slots taken: a browser scenario still starts, in its own
	// slot (one: half of two).
	admitted(t, s, ui[0])
	nextUI := blocked(t, s, ui[1])
	thirdWork := blocked(t, s, work[2])
	// A work slot freed goes to the next work scenario, whatever browser
	// scenario waits before it in the run's order.
	s.Leave(work[0], true, noClose)
	if why := <-thirdWork; why != "" {
		t.Fatal(why)
	}
	select {
	case <-nextUI:
		t.Fatal("a browser scenario took a work slot")
	case <-time.After(50 * time.Millisecond):
	}
	// A browser scenario that waits gives its own slot up, and takes one
	// of its own lane back.
	s.Pause(ui[0])
	if why := <-nextUI; why != "" {
		t.Fatal(why)
	}
	resumed := make(chan struct{})
	go func() { s.Resume(ui[0]); close(resumed) }()
	select {
	case <-resumed:
		t.Fatal("resumed into a work slot while its own lane's was taken")
	case <-time.After(50 * time.Millisecond):
	}
	s.Leave(ui[1], true, noClose)
	select {
	case <-resumed:
	case <-time.After(time.Second):
		t.Fatal("the waiting browser scenario did not get its lane's free slot")
	}
}

func TestScheduleRunsOnlyBrowserScenariosInEverySlot(t *testing.T) {
	s := newScheduler(browserScenarios(3), 2, 1, throwsSwitch)
	order := s.phases[0].order
	admitted(t, s, order[0])
	admitted(t, s, order[1]) // both slots: there is nothing else to run
	third := blocked(t, s, order[2])
	s.Leave(order[0], true, noClose)
	if why := <-third; why != "" {
		t.Fatal(why)
	}
}

func TestScheduleRunsOneAtATimeAtConcurrencyOne(t *testing.T) {
	s := newScheduler(append(scenarios(phaseRest, 1), browserScenarios(1)...), 1, 1, throwsSwitch)
	order := s.phases[0].order
	admitted(t, s, order[0])
	second := blocked(t, s, order[1]) // one lane, one slot
	s.Leave(order[0], true, noClose)
	if why := <-second; why != "" {
		t.Fatal(why)
	}
}

func TestScheduleRunsOneOfEitherLaneInAPhaseThatRunsAlone(t *testing.T) {
	ui := browserScenarios(1)
	ui[0].Tags = append(ui[0].Tags, "@exclusive")
	sel := append(scenarios(phaseSolo, 1), ui...)
	s := newScheduler(sel, 4, 1, throwsSwitch)
	if s.phases[0].name != phaseSolo || len(s.phases[0].order) != 2 {
		t.Fatalf("phases %+v", s.phases[0])
	}
	order := s.phases[0].order
	admitted(t, s, order[0])
	second := blocked(t, s, order[1]) // in the other lane, still alone
	s.Leave(order[0], true, noClose)
	if why := <-second; why != "" {
		t.Fatal(why)
	}
}
