package runner

import (
	"encoding/xml"
	"fmt"
	"time"
)

// junit.xml is written from the suite's own results rather than by godog:
// godog lists a scenario skipped in its Before hook with an empty status and
// one <error type="skipped"> per step, which JUnit readers count as errors.
// Here there is one test case per scenario, grouped by feature; a skipped,
// disabled or not-run scenario is a JUnit skip with its reason; a warning
// (a recommendation not met, below the fail-on level) or a known failure
// (in the baseline) is a skip too, whose message says so, since it does not
// fail the run; a failure is a failure with the failing step and message.
// An interrupted run adds one test case in error, "the run as a whole".

type junitReport struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Skipped  int           `xml:"skipped,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Time     string        `xml:"time,attr"`
	Suites   []*junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Cases    []*junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d float64) string { return fmt.Sprintf("%.3f", d) }

func (rep *runReport) writeJUnit(path, failOn string, elapsed time.Duration) error {
	r := junitReport{Name: "catalogspec", Time: seconds(elapsed.Seconds())}
	suites := map[string]*junitSuite{}
	for _, o := range rep.outcomes {
		s := suites[o.Feature]
		if s == nil {
			s = &junitSuite{Name: o.Feature}
			suites[o.Feature] = s
			r.Suites = append(r.Suites, s)
		}
		c := &junitCase{
			Name:      fmt.Sprintf("%s [@id:%s @%s]", o.Name, o.ID, o.Level),
			Classname: o.Feature,
			Time:      seconds(o.Duration),
		}
		switch o.Status {
		case StatusFailed:
			c.Failure = &junitMessage{Message: "failed at: " + o.Step, Type: o.Level, Text: o.Message}
			s.Failures++
		case StatusWarning:
			c.Skipped = &junitMessage{Message: "warning: a @" + o.Level + " recommendation not met, at: " + o.Step}
			c.SystemOut = o.Message
			s.Skipped++
		case StatusKnown:
			c.Skipped = &junitMessage{Message: "known failure (baseline): " + o.Reason}
			c.SystemOut = o.Message
			s.Skipped++
		case StatusSkipped, StatusDisabled, StatusNotRun:
			c.Skipped = &junitMessage{Message: o.Status + ": " + o.Reason}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	if how := rep.cutShort(); how == "interrupted" {
		// The run as a whole is an error: a CI job reading junit.xml must
		// not take an interrupted run for a pass.
		msg := fmt.Sprintf("the run was interrupted by %s: %d of %d selected scenarios did not run, so it is not judged", rep.interrupted, rep.counts[StatusNotRun], len(rep.outcomes))
		r.Suites = append(r.Suites, &junitSuite{Name: "catalogspec", Tests: 1, Errors: 1, Time: seconds(0), Cases: []*junitCase{{
			Name: "the run as a whole", Classname: "catalogspec", Time: seconds(0),
			Error: &junitMessage{Message: msg, Type: "interrupted", Text: rep.verdict(failOn)},
		}}})
	}
	var secs = map[string]float64{}
	for _, o := range rep.outcomes {
		secs[o.Feature] += o.Duration
	}
	for _, s := range r.Suites {
		if s.Errors == 0 {
			s.Time = seconds(secs[s.Name])
		}
		r.Tests += s.Tests
		r.Skipped += s.Skipped
		r.Failures += s.Failures
		r.Errors += s.Errors
	}
	out, err := xml.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writeWhole(path, append([]byte(xml.Header), append(out, '\n')...))
}
