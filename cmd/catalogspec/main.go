// Command catalogspec checks a metadata-catalog service that speaks
// DataHub's API against the catalogspec specification, with the features
// and GraphQL documents built in: no repository or Go toolchain needed.
//
//	catalogspec run [flags]    run the suite (exit 0 conformant, 1 not, 2 harness or configuration error)
//	catalogspec list [--json]  the scenarios, with ids, levels and capabilities
//	catalogspec version        the suite's version and the spec's
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/catalogspec/catalogspec"
	"github.com/catalogspec/catalogspec/runner"
	"github.com/catalogspec/catalogspec/steps"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

const usage = `catalogspec checks a DataHub-compatible metadata service against the catalogspec specification.

Usage:
  catalogspec run [flags]     run the suite against a target
  catalogspec list [--json]   list the scenarios with their ids, levels and capabilities
  catalogspec version         print the suite's version and the spec's

Every flag of run has an environment variable of the same meaning (shown in
brackets); a flag wins over its variable. With no target URL, run starts the
reference service (it needs a built catalogd, CATALOGSPEC_CATALOGD, and
PostgreSQL). Exit status of run: 0 conformant, 1 a failure at or above the
fail-on level (or a stale baseline entry), 2 the harness or its configuration
is wrong and nothing was judged.

Run "catalogspec run --help" for the flags.
`

// runFlags maps each flag of run to its environment variable.
var runFlags = []struct{ name, env, usage string }{
	{"gms-url", "CATALOGSPEC_GMS_URL", "base URL of the target's metadata service (GMS); unset: start the reference"},
	{"frontend-url", "CATALOGSPEC_FRONTEND_URL", "base URL of the target's frontend"},
	{"admin-token-file", "", "file holding the admin's personal access token [or CATALOGSPEC_ADMIN_TOKEN; never pass a token as a flag]"},
	{"noauth-gms-url", "CATALOGSPEC_NOAUTH_GMS_URL", "metadata service of an instance with authentication disabled; unset: those scenarios are skipped"},
	{"noauth-frontend-url", "CATALOGSPEC_NOAUTH_FRONTEND_URL", "frontend of that instance"},
	{"later-gms-url", "CATALOGSPEC_LATER_GMS_URL", "metadata service of an instance sharing the data whose clock runs 25 hours ahead"},
	{"later-frontend-url", "CATALOGSPEC_LATER_FRONTEND_URL", "frontend of that instance"},
	{"replica-gms-url", "CATALOGSPEC_REPLICA_GMS_URL", "metadata service of another instance of the same deployment (same database and clock)"},
	{"https-frontend-url", "CATALOGSPEC_HTTPS_FRONTEND_URL", "the frontend as people reach it over HTTPS, through what terminates TLS in front of it (its certificate checked against the system's roots: SSL_CERT_FILE)"},
	{"propagation-timeout", "CATALOGSPEC_PROPAGATION_TIMEOUT", "how long a policy change or a token list may take to show (default 150s; 5s for the reference, a refresh and a search lag and a quarter more when it lags)"},
	{"tags", "CATALOGSPEC_TAGS", "tag expression selecting scenarios, e.g. @must or @cap:tokens && ~@exclusive (default all)"},
	{"disable", "CATALOGSPEC_DISABLE", "capabilities switched off, comma-separated, reported as disabled"},
	{"fail-on", "CATALOGSPEC_FAIL_ON", "lowest level whose failure fails the run: must, should or may (default must; should for the reference)"},
	{"baseline", "CATALOGSPEC_BASELINE", "file of scenarios known to fail on the target, e.g. baselines/datahub.yaml"},
	{"concurrency", "CATALOGSPEC_CONCURRENCY", "scenarios run at once (default 4)"},
	{"seed", "CATALOGSPEC_SEED", "seed of the random scenario order (default random, printed)"},
	{"format", "CATALOGSPEC_FORMAT", "console format: progress or pretty"},
	{"reports-dir", "CATALOGSPEC_REPORTS_DIR", "where report.html, results.json, junit.xml and cucumber.json go (default reports)"},
	{"fail-fast", "CATALOGSPEC_FAIL_FAST", "1: stop at the first failing scenario"},
	{"catalogd", "CATALOGSPEC_CATALOGD", "a built catalogd, for running the reference"},
	{"reference-lag", "CATALOGSPEC_REFERENCE_LAG", "start the reference lagging as DataHub does, for conformance testing: datahub (policies refreshed every 120s, lists 4s behind), or <policy refresh>[,<search lag>] such as 3s,1s (default: immediate)"},
	{"browser", "CATALOGSPEC_BROWSER", "the Chromium the @ui scenarios drive, headless (default chromium on PATH)"},
}

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return runner.ExitConfig
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "catalogspec version takes no arguments, got %q\n", args[1:])
			return runner.ExitConfig
		}
		fmt.Fprintf(stdout, "catalogspec %s (spec %s)\n", runner.Version, catalogspec.SpecVersion)
		return 0
	case "list":
		return list(args[1:], stdout, stderr)
	case "run":
		return runSuite(args[1:], stdout, stderr, getenv)
	}
	fmt.Fprintf(stderr, "catalogspec: unknown command %q\n\n%s", args[0], usage)
	return runner.ExitConfig
}

func runSuite(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("catalogspec run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	values := map[string]*string{}
	for _, f := range runFlags {
		u := f.usage
		if f.env != "" {
			u += " [" + f.env + "]"
		}
		values[f.name] = fs.String(f.name, "", u)
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: catalogspec run [flags]\n\nFlags (each has the environment variable in brackets):")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return runner.ExitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "catalogspec run takes no arguments, got %q (flags come as --name value)\n", fs.Args())
		return runner.ExitConfig
	}
	overrides := map[string]string{}
	for _, f := range runFlags {
		if v := *values[f.name]; v != "" && f.env != "" {
			overrides[f.env] = v
		}
	}
	if path := *values["admin-token-file"]; path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "catalogspec: --admin-token-file: %v\n", err)
			return runner.ExitConfig
		}
		overrides["CATALOGSPEC_ADMIN_TOKEN"] = strings.TrimSpace(string(b))
	}
	env := func(k string) string {
		if v, ok := overrides[k]; ok {
			return v
		}
		return getenv(k)
	}
	cfg, err := runner.ConfigFromEnv(env)
	if err != nil {
		fmt.Fprintf(stdout, "catalogspec: %v\n", err)
		return runner.ExitConfig
	}
	cfg.Stdout = stdout
	return runner.Run(context.Background(), cfg, steps.New())
}

func list(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("catalogspec list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return runner.ExitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "catalogspec list takes no arguments, got %q\n", fs.Args())
		return runner.ExitConfig
	}
	scenarios, err := runner.Scenarios()
	if err != nil {
		fmt.Fprintf(stderr, "catalogspec: %v\n", err)
		return runner.ExitConfig
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(scenarios); err != nil {
			return runner.ExitConfig
		}
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tCAPABILITIES\tWHERE\tSCENARIO")
	for _, s := range scenarios {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, s.Level, strings.Join(s.Capabilities, ","), s.Where, s.Name)
	}
	if err := tw.Flush(); err != nil {
		return runner.ExitConfig
	}
	return 0
}
