package selftest

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec"
)

// TestFaultTable checks the fault tables without running anything, so that
// `go test -short` and `make unit` catch a fault naming a scenario that no
// longer exists.
func TestFaultTable(t *testing.T) {
	if err := checkFaults(Faults); err != nil {
		t.Fatal(err)
	}
}

// TestFaultTableRefusesUnknownIDs shows that checkFaults fails a table that
// names an id no scenario has, or names none.
func TestFaultTableRefusesUnknownIDs(t *testing.T) {
	good := Fault{Name: "f", Breaks: "b", Trips: []string{"auth-01"}, Request: func(*State, *Exchange) *Response { return nil }}
	if err := checkFaults([]Fault{good}); err != nil {
		t.Fatalf("a good table is refused: %v", err)
	}
	for _, bad := range []func(*Fault){
		func(f *Fault) { f.Trips = []string{"auth-99"} },
		func(f *Fault) { f.Trips = nil },
		func(f *Fault) { f.With = []string{"nosuch-01"} },
		func(f *Fault) { f.Trips = []string{"A request without a token"} },
		func(f *Fault) { f.Trips = []string{"signin-01"} }, // a @ui scenario, disabled in the fault's run
		func(f *Fault) { f.UI = true },                     // no @ui scenario to drive
		func(f *Fault) { f.Request = nil },                 // does nothing
	} {
		f := good
		bad(&f)
		if err := checkFaults([]Fault{f}); err == nil {
			t.Errorf("checkFaults accepts %+v", f)
		}
	}
	if err := checkFaults([]Fault{good, good}); err == nil {
		t.Error("checkFaults accepts a fault listed twice")
	}
}

// checkFaults checks the tables of faults: unique names, the rule each
// breaks, something each does, and scenarios named by ids the features
// have, at least one of which must catch it. A fault of the browser pages
// names @ui scenarios; any other names none (its run leaves them out).
func checkFaults(faults []Fault) error {
	ui, err := scenarioIDs(catalogspec.Features())
	if err != nil {
		return err
	}
	var errs []error
	seen := map[string]bool{}
	for _, f := range faults {
		switch {
		case f.Name == "" || f.Breaks == "":
			errs = append(errs, fmt.Errorf("fault %q needs a name and the rule it breaks", f.Name))
		case seen[f.Name]:
			errs = append(errs, fmt.Errorf("fault %s is listed twice", f.Name))
		case f.Request == nil && f.Response == nil:
			errs = append(errs, fmt.Errorf("fault %s does nothing", f.Name))
		case len(f.Trips) == 0:
			errs = append(errs, fmt.Errorf("fault %s names no scenario that must catch it (Trips)", f.Name))
		}
		seen[f.Name] = true
		for _, id := range append(slices.Clip(f.Trips), f.With...) {
			isUI, ok := ui[id]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("fault %s names %q, which is no scenario's id: update the table (selftest/faults*.go)", f.Name, id))
			case isUI && !f.UI:
				errs = append(errs, fmt.Errorf("fault %s names %s, a @ui scenario, which its run leaves out: mark the fault UI", f.Name, id))
			}
		}
		if f.UI && !slices.ContainsFunc(f.Trips, func(id string) bool { return ui[id] }) {
			errs = append(errs, fmt.Errorf("fault %s is a fault of the browser pages, but none of its Trips is a @ui scenario", f.Name))
		}
	}
	return errors.Join(errs...)
}

var (
	idTag  = regexp.MustCompile(`(?:^|\s)@id:(\S+)`)
	uiTag  = regexp.MustCompile(`(?:^|\s)@ui(?:\s|$)`)
	header = regexp.MustCompile(`^\s*(Feature|Rule|Scenario|Scenario Outline|Example|Background):`)
)

// scenarioIDs reads the features' scenario ids, each with whether the
// scenario is tagged @ui (on its own tag line or its feature's).
func scenarioIDs(features fs.FS) (map[string]bool, error) {
	paths, err := fs.Glob(features, "*.feature")
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no features to read the scenario ids from (%v)", err)
	}
	ids := map[string]bool{}
	for _, p := range paths {
		b, err := fs.ReadFile(features, p)
		if err != nil {
			return nil, err
		}
		featureUI, inHeader := false, true
		for _, line := range strings.Split(string(b), "\n") {
			trimmed := strings.TrimSpace(line)
			if inHeader && strings.HasPrefix(trimmed, "@") && uiTag.MatchString(trimmed) {
				featureUI = true
			}
			if header.MatchString(line) {
				inHeader = false
			}
			if m := idTag.FindStringSubmatch(trimmed); m != nil && strings.HasPrefix(trimmed, "@") {
				ids[m[1]] = featureUI || uiTag.MatchString(trimmed)
			}
		}
	}
	return ids, nil
}

// idTags is the tag expression that runs the scenarios of these ids
// ("@id:a-01,@id:b-02").
func idTags(ids ...[]string) string {
	var tags []string
	for _, l := range ids {
		for _, id := range l {
			tags = append(tags, "@id:"+id)
		}
	}
	slices.Sort(tags)
	return strings.Join(slices.Compact(tags), ",")
}
