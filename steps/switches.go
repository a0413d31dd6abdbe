package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/catalogspec/catalogspec/sdkclient"
)

// Switches: what an @exclusive scenario changes for every user (a boot
// policy set INACTIVE, a policy for every user made). The scenarios of the
// exclusive window share them: the first that needs a switch throws it, the
// others find it thrown, and the window's last scenario puts every switch
// back and waits until that shows before any other scenario starts
// (schedule.go). A scenario run on its own throws and puts back its own.

// Switches: what an @exclusive scenario changes for every user, by the step
// that does it. Both are setup (pending.go); a scenario with either runs in
// the exclusive window (Definitions.ThrowsSwitch, schedule.go).
const (
	switchOffPattern = `^no policy lets every user (generate personal access tokens|read entities)$`
	switchOnPattern  = `^a policy grants every user ` + priv + `$`
)

var switchSteps = compileAll(switchOffPattern, switchOnPattern)

// bootSwitch is one switch of the window.
type bootSwitch struct {
	name   string
	thrown bool
	// keys are the journal's entries of what throwing it made or changed,
	// taken out once it is put back.
	keys []string
	err  error // what throwing it went wrong with
	// back puts it back, as w, and returns the wait until that shows: the
	// window puts every switch back first and then waits for them all, so
	// that they show at the same refresh.
	back func(w *world) (wait func() error, err error)
}

// throwSwitch throws the switch called name, unless the window threw it
// already: throw does it and returns how to put it back (also when it
// fails halfway). Scenarios of the window that need the same switch wait
// for the first to have thrown it.
func (w *world) throwSwitch(name string, throw func() (back func(*world) (func() error, error), err error)) error {
	if !w.exclusive {
		return w.fail("this step changes what every user may do: tag the scenario @exclusive so that it runs in the exclusive window")
	}
	s := w.suite
	s.switchMu.Lock()
	defer s.switchMu.Unlock()
	if s.switches == nil {
		s.switches = map[string]*bootSwitch{}
	}
	sw := s.switches[name]
	if sw == nil {
		sw = &bootSwitch{name: name}
		s.switches[name] = sw
	}
	if sw.thrown {
		if sw.err != nil {
			return w.fail("another scenario of the exclusive window could not switch %q: %v", name, sw.err)
		}
		return nil
	}
	sw.thrown = true
	w.owner = sw
	sw.back, sw.err = throw()
	w.owner = nil
	if s.Sched != nil {
		s.Sched.CloseWindowAtEnd()
	} else {
		// No window: this scenario puts it back itself.
		w.undo("put back: "+name, func() error { return s.putBack(w) })
	}
	return sw.err
}

// closeWindow puts back every switch the window threw, as the window's last
// scenario w, and waits until that shows.
func (s *suite) closeWindow(w *world) {
	if err := s.putBack(w); err != nil {
		w.windowErr = err
	}
}

// putBack puts every thrown switch back, in w, with the cleanups it
// needed for that run at once.
func (s *suite) putBack(w *world) error {
	s.switchMu.Lock()
	var thrown []*bootSwitch
	for _, name := range sortedKeys(s.switches) {
		if sw := s.switches[name]; sw.thrown {
			thrown = append(thrown, sw)
			sw.thrown = false
		}
	}
	s.switchMu.Unlock()
	cleanups := len(w.cleanups)
	var errs []error
	var waits []func() error
	var waitNames []string
	for _, sw := range thrown {
		if sw.back == nil {
			continue
		}
		wait, err := sw.back(w)
		if err != nil {
			errs = append(errs, fmt.Errorf("putting back %q after the exclusive scenarios: %w", sw.name, err))
			continue
		}
		if s.trace != nil {
			s.trace.done(sw.keys...)
		}
		sw.keys = nil
		waits, waitNames = append(waits, wait), append(waitNames, sw.name)
	}
	for i, wait := range waits {
		if err := wait(); err != nil {
			errs = append(errs, fmt.Errorf("after putting back %q: %w", waitNames[i], err))
		}
	}
	// What putting back made (a person to probe with) goes now.
	if len(w.cleanups) > cleanups {
		rest := w.cleanups[cleanups:]
		w.cleanups = w.cleanups[:cleanups]
		saved := w.cleanups
		w.cleanups = rest
		errs = append(errs, w.cleanUp())
		w.cleanups = saved
	}
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// probe is a person made to watch a change to every user show: a user of
// the scenario's own with a token, who holds nothing the scenario gave.
func (w *world) probe() (*person, error) {
	p := w.person("Probe")
	if p.token == "" && !w.noAuth {
		if err := w.giveToken(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// switchOffEveryUserPolicies sets INACTIVE every ACTIVE policy that gives
// any of the privileges to all users (once for the window), and leaves
// pending the wait until the scenario's people, or a probe when none of
// them can act, have lost them.
func (w *world) switchOffEveryUserPolicies(what string, privileges ...string) error {
	err := w.throwSwitch("every user may "+what, func() (func(*world) (func() error, error), error) {
		all, err := w.allPolicies()
		if err != nil {
			return nil, err
		}
		var restores []policyView
		back := func(w *world) (func() error, error) {
			var errs []error
			for _, p := range restores {
				if err := w.updatePolicy(p.URN, p.input()); err != nil {
					errs = append(errs, w.failed(err))
				}
			}
			if len(errs) > 0 {
				return nil, errors.Join(errs...)
			}
			// Back for every user: a probe holding nothing else has them.
			return func() error {
				p, err := w.probe()
				if err != nil {
					return err
				}
				return w.untilEffective(p, privileges[0], nil)
			}, nil
		}
		for _, p := range all {
			if p.State != "ACTIVE" || !p.Actors.AllUsers || !slices.ContainsFunc(p.Privileges, func(s string) bool { return slices.Contains(privileges, s) }) {
				continue
			}
			off := p.input()
			off.State = "INACTIVE"
			if err := w.journalChange(p, off); err != nil {
				return back, err
			}
			if err := w.updatePolicy(p.URN, off); err != nil {
				return back, w.failed(err)
			}
			restores = append(restores, p)
		}
		return back, nil
	})
	if err != nil {
		return err
	}
	w.waitLater("every user losing "+strings.Join(privileges, " and "), func() error {
		return w.untilWithdrawn(privileges)
	})
	return nil
}

// untilWithdrawn waits, within the propagation window, until no person of
// the scenario made on the target is judged with the privileges any more
// (only those the scenario did not grant them itself); when it has made no
// one yet, a probe made for it.
func (w *world) untilWithdrawn(privileges []string) error {
	var made []*person
	for _, p := range w.people {
		if p.exists {
			made = append(made, p)
		}
	}
	if len(made) == 0 {
		p, err := w.probe()
		if err != nil {
			return err
		}
		made = append(made, p)
	}
	for _, p := range made {
		if err := w.untilWithdrawnFrom(p, privileges); err != nil {
			return err
		}
	}
	return nil
}

// untilWithdrawnFrom waits until p is no longer judged with the privileges
// the scenario did not grant p itself.
func (w *world) untilWithdrawnFrom(p *person, privileges []string) error {
	c, err := w.prober(p)
	if err != nil {
		return err
	}
	for _, priv := range privileges {
		if _, own := w.policies[policyKey(p.name, priv)]; own {
			continue
		}
		what := fmt.Sprintf("%s losing %s", p.name, priv)
		var err error
		if field, ok := privilegeFields[priv]; ok {
			err = w.eventually(what, func() (bool, error) {
				held, err := w.platformPrivilegesOf(p)
				if err != nil {
					return false, err
				}
				return !held[field], w.fail("me.platformPrivileges.%s is still true for %s", field, p.name)
			})
		} else if priv == "VIEW_ENTITY_PAGE" || priv == "GET_ENTITY_PRIVILEGE" {
			err = w.eventually(what, func() (bool, error) {
				a := w.readEntity(c, tierGMS, runner.RootUser, false)
				return a.status == http.StatusForbidden, w.fail("%s answered status %d", a.what, a.status)
			})
		} else if priv == "GET_TIMESERIES_ASPECT_PRIVILEGE" {
			urn := w.newDataset().urn
			err = w.eventually(what, func() (bool, error) {
				a := w.readSeries(c, "metadata service", urn, "datasetProfile", sdkclient.Obj{}, 1)
				return a.status == http.StatusForbidden, w.fail("%s answered status %d", a.what, a.status)
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// grantEveryUser makes a policy giving every user the privilege (once for
// the window), and leaves pending the wait until the scenario's people
// hold it.
func (w *world) grantEveryUser(privilege string) error {
	err := w.throwSwitch("every user granted "+privilege, func() (func(*world) (func() error, error), error) {
		desc := "Made by the catalogspec scenario: " + w.name
		in := policyInput{
			Type: "PLATFORM", Name: fmt.Sprintf("%s every user %s", w.unique("policy"), privilege),
			State: "ACTIVE", Description: &desc, Privileges: []string{privilege},
			Actors: actorFilter{AllUsers: true, Users: []string{}, Groups: []string{}},
		}
		a := w.graphql(w.admin(), w.suite.docs.createPolicy, map[string]any{"input": in})
		a.what = fmt.Sprintf("the administrator creating the policy %q", in.Name)
		var urn string
		if err := a.data("createPolicy", &urn); err != nil {
			return nil, w.failed(err)
		}
		return func(w *world) (func() error, error) {
			if err := w.deletePolicy(urn, true); err != nil {
				return nil, w.failed(err)
			}
			return func() error {
				p, err := w.probe()
				if err != nil {
					return err
				}
				return w.untilWithdrawnFrom(p, []string{privilege})
			}, nil
		}, nil
	})
	if err != nil {
		return err
	}
	for _, p := range w.people {
		w.waitLater(fmt.Sprintf("every user, %s among them, holding %s", p.name, privilege), func() error {
			return w.untilEffective(p, privilege, nil)
		})
	}
	return nil
}

// journalChange records in the run's journal, before the change, that the
// policy p is about to be set to to: the next run puts it back if this one
// dies first. The switch being thrown owns the entry.
func (w *world) journalChange(p policyView, to policyInput) error {
	tr := w.suite.trace
	if tr == nil {
		return nil
	}
	before := p.input()
	e := entry{Kind: kindChange, URN: p.URN, Before: &before, Set: &to}
	if w.noAuth {
		e.At = "noauth"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := tr.intend(ctx, e); err != nil {
		return w.fail("%v", err)
	}
	if w.owner != nil {
		w.owner.keys = append(w.owner.keys, e.key())
	}
	return nil
}
