package steps

import (
	"context"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/runner"
)

// TestFeatures runs the features against the target, each scenario a
// subtest: `go test -run 'TestFeatures/<name>'` runs the scenarios whose
// names match (spaces written as _). The run is configured as Run's
// (run.go, target.go), from the environment; the reports go to ../reports
// unless CATALOGSPEC_REPORTS_DIR says otherwise.
func TestFeatures(t *testing.T) {
	cfg, err := runner.ConfigFromEnv(os.Getenv)
	if err != nil {
		t.Fatalf("catalogspec: %v", err)
	}
	if os.Getenv(runner.EnvReports) == "" {
		cfg.ReportsDir = "../reports"
	}
	cfg.TestingT = t
	cfg.Only = subtestFilter()
	switch code := runner.Run(context.Background(), cfg, New()); code {
	case runner.ExitConformant:
	case runner.ExitFailed:
		t.Errorf("catalogspec: the target does not conform (exit %d); see the list above and %s/report.html", code, cfg.ReportsDir)
	default:
		t.Fatalf("catalogspec: the run could not judge the target (exit %d); see the message above", code)
	}
}

// subtestFilter reads go test's -run pattern: with a part for subtests
// ("TestFeatures/<pattern>"), it accepts the scenarios whose names, as go
// test writes them (spaces as _), match that part; nil otherwise.
func subtestFilter() func(string) bool {
	f := flag.Lookup("test.run")
	if f == nil {
		return nil
	}
	_, sub, ok := strings.Cut(f.Value.String(), "/")
	if !ok || sub == "" {
		return nil
	}
	re, err := regexp.Compile(sub)
	if err != nil {
		return nil // go test itself reports a bad pattern
	}
	return func(name string) bool { return re.MatchString(strings.ReplaceAll(name, " ", "_")) }
}
