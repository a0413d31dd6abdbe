// Command catalogspec checks a metadata-catalog service that speaks
// DataHub's API against the catalogspec specification, with the features
// and GraphQL documents built in: no repository or Go toolchain needed.
//
//	catalogspec run [flags]    run the suite (exit 0 conformant, 1 not, 2 harness or configuration error)
//	catalogspec audit [flags]  a read-only audit of a deployment: only what writes nothing, with at most a user's token
//	catalogspec cleanup [flags] put back what runs of the suite that were killed left on a target
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
  catalogspec audit [flags]   a read-only audit of a deployment: only the checks that
                              write nothing, with at most a user's token
  catalogspec cleanup [flags] put back what runs of the suite that were killed left
                              on a target
  catalogspec list [--json]   list the scenarios with their ids, levels and capabilities
  catalogspec version         print the suite's version and the spec's

Every flag of run and audit has an environment variable of the same meaning
(shown in brackets); a flag wins over its variable. With no target URL, run
starts the reference service (it needs a built catalogd, CATALOGSPEC_CATALOGD,
and PostgreSQL). run makes users, tags, datasets, policies and tokens on the
target; audit writes nothing there. Exit status: 0 conformant, 1 a failure at
or above the fail-on level (or a stale baseline entry), 2 the harness or its
configuration is wrong, or the run was interrupted, and nothing was judged.

A run leaves the target as it found it: it removes what it made and puts back
what it changed, and records both on the target first, so that the next run, or
"catalogspec cleanup", puts back what a run that was killed left. One run at a
time holds a target: another waits (--wait) or refuses with exit 2.

Run "catalogspec run --help", "catalogspec audit --help" or "catalogspec
cleanup --help" for the flags.
`

const runHelp = `Usage: catalogspec run [flags]

Runs the suite against the target and leaves it as it found it. Before it
changes anything, the run takes the target: it makes the tag catalogspec-lock
there, renewed every third of its lease while it runs. When another run holds
the target, this one refuses at once with exit 2 and one line naming that run,
unless --wait gives it time to wait for it. A run that was killed is found
dead once its lease runs out: the next run (or catalogspec cleanup) puts back
what it changed and removes what it made, and says so in one line. The
@irreversible scenarios make a new invite token, which cannot be undone: leave
them out with --tags '~@irreversible' on a deployment people use.

Flags (each has the environment variable in brackets):
`

const cleanupHelp = `Usage: catalogspec cleanup [flags]

Puts back what runs of the suite that were killed left on the target: it
removes what their journals (tags on the target) say they made, and puts back
what they changed where it is still as they set it; it says what it did in one
line. A run that is alive is never touched: cleanup refuses with exit 2, or
waits for it with --wait. Exit status: 0 done (or nothing to do), 1 something
could not be removed or put back (named), 2 a live run holds the target or the
configuration is wrong. It needs the target and the admin token, as run does.

Flags (each has the environment variable in brackets):
`

const auditUsage = `Usage: catalogspec audit --gms-url URL --frontend-url URL [--token-file FILE] [flags]

A read-only audit of a deployment people use: it runs only the scenarios tagged
@read-only, which write nothing to a target that works, in seconds, with the two
base URLs and at most one user's personal access token (any user's; no
administrator's). It checks:
  - authentication on every path of both tiers: a request without a token, with a
    malformed token, one signed with another key, an unsigned one (the audit
    forges those itself), and, when you give them, an expired and a revoked token,
    is refused with 401;
  - GraphQL sent by GET, PUT, PATCH or DELETE is refused, and a tag creation sent
    by GET makes no tag;
  - the user's own privileges as me reports them, alike on both tiers and as the
    service enforces them on what the user may list;
  - introspection, and the depth limits of queries and of introspection;
  - nosniff on JSON answers, HSTS over https, and where the frontend serves its
    own sign-in page: that it cannot be framed, that its cookies are HttpOnly and
    SameSite, and that a sign-in link to another site leads back to the site.
What needs the user's token, or a token you did not give, is skipped and says so.
The scenarios that write, or need an administrator's token, are listed as skipped
("catalogspec run" checks them). Where a refused request would write to a broken
target (a mutation sent by GET, an ingestion with a bad token), what it would
write is harmless, named catalogspec-..., and looked for: docs/suite.md lists them.
The audit takes no lock on the target and writes no journal there.

Exit status: 0 conformant at the fail-on level, 1 not, 2 a configuration problem
or an interrupted audit. Reports (read-only in their verdict) go to --reports-dir.

Flags (each has the environment variable in brackets; a flag wins):
`

// flagSpec is a flag of run or audit: its environment variable, or for a
// file flag the variable its content stands for (a token is never a flag's
// value, which other users of the machine can see).
type flagSpec struct {
	name, env, usage string
	file             bool   // the flag names a file holding the variable's value
	audit            bool   // audit takes it too
	auditUsage       string // what it means to audit, when that differs
	cleanup          bool   // cleanup takes it too
}

// runFlags are the flags of run, and those of audit.
var runFlags = []flagSpec{
	{name: "gms-url", cleanup: true, env: "CATALOGSPEC_GMS_URL", usage: "base URL of the target's metadata service (GMS); unset: start the reference", audit: true, auditUsage: "base URL of the deployment's metadata service (GMS), required"},
	{name: "frontend-url", cleanup: true, env: "CATALOGSPEC_FRONTEND_URL", usage: "base URL of the target's frontend", audit: true, auditUsage: "base URL of the deployment's frontend, required"},
	{name: "admin-token-file", cleanup: true, env: "CATALOGSPEC_ADMIN_TOKEN", file: true, usage: "file holding the admin's personal access token"},
	{name: "token-file", env: "CATALOGSPEC_TOKEN", file: true, audit: true, usage: "file holding a user's personal access token, any user's: the audit's only token, and the read-only scenarios' (default for run: the admin's)"},
	{name: "expired-token-file", env: "CATALOGSPEC_EXPIRED_TOKEN", file: true, audit: true, usage: "file holding a personal access token of the target that has expired (unset: that check is skipped)"},
	{name: "revoked-token-file", env: "CATALOGSPEC_REVOKED_TOKEN", file: true, audit: true, usage: "file holding a personal access token of the target that was revoked (unset: that check is skipped)"},
	{name: "noauth-gms-url", cleanup: true, env: "CATALOGSPEC_NOAUTH_GMS_URL", usage: "metadata service of an instance with authentication disabled; unset: those scenarios are skipped"},
	{name: "noauth-frontend-url", cleanup: true, env: "CATALOGSPEC_NOAUTH_FRONTEND_URL", usage: "frontend of that instance"},
	{name: "later-gms-url", env: "CATALOGSPEC_LATER_GMS_URL", usage: "metadata service of an instance sharing the data whose clock runs 25 hours ahead"},
	{name: "later-frontend-url", env: "CATALOGSPEC_LATER_FRONTEND_URL", usage: "frontend of that instance"},
	{name: "replica-gms-url", env: "CATALOGSPEC_REPLICA_GMS_URL", usage: "metadata service of another instance of the same deployment (same database and clock)"},
	{name: "https-frontend-url", env: "CATALOGSPEC_HTTPS_FRONTEND_URL", usage: "the frontend as people reach it over HTTPS, through what terminates TLS in front of it (its certificate checked against the system's roots: SSL_CERT_FILE)"},
	{name: "propagation-timeout", env: "CATALOGSPEC_PROPAGATION_TIMEOUT", usage: "how long a policy change or a token list may take to show (default 150s; 5s for the reference, a refresh and a search lag and a quarter more when it lags)"},
	{name: "tags", env: "CATALOGSPEC_TAGS", audit: true, usage: "tag expression selecting scenarios, e.g. @must or @cap:tokens && ~@exclusive (default all; audit runs those of them tagged @read-only)"},
	{name: "disable", env: "CATALOGSPEC_DISABLE", audit: true, usage: "capabilities switched off, comma-separated, reported as disabled"},
	{name: "fail-on", env: "CATALOGSPEC_FAIL_ON", audit: true, usage: "lowest level whose failure fails the run: must, should or may (default must; should for the reference)", auditUsage: "lowest level whose failure fails the audit: must, should or may (default must)"},
	{name: "baseline", env: "CATALOGSPEC_BASELINE", audit: true, usage: "file of scenarios known to fail on the target, e.g. baselines/datahub.yaml"},
	{name: "concurrency", env: "CATALOGSPEC_CONCURRENCY", audit: true, usage: "scenarios run at once, and half as many @ui ones beside them (default 4)"},
	{name: "seed", env: "CATALOGSPEC_SEED", audit: true, usage: "seed of the random scenario order (default random, printed)"},
	{name: "format", env: "CATALOGSPEC_FORMAT", audit: true, usage: "console format: progress or pretty"},
	{name: "reports-dir", env: "CATALOGSPEC_REPORTS_DIR", audit: true, usage: "where report.html, results.json, junit.xml and cucumber.json go (default reports)"},
	{name: "fail-fast", env: "CATALOGSPEC_FAIL_FAST", usage: "1: stop at the first failing scenario"},
	{name: "catalogd", env: "CATALOGSPEC_CATALOGD", usage: "a built catalogd, for running the reference"},
	{name: "reference-lag", env: "CATALOGSPEC_REFERENCE_LAG", usage: "start the reference lagging as DataHub does, for conformance testing: datahub (policies refreshed every 120s, lists 4s behind), or <policy refresh>[,<search lag>] such as 3s,1s (default: immediate)"},
	{name: "browser", env: "CATALOGSPEC_BROWSER", usage: "the Chromium the @ui scenarios drive, headless (default chromium-headless-shell on PATH, else chromium)"},
	{name: "wait", env: "CATALOGSPEC_WAIT", cleanup: true, usage: "how long to wait for another run that holds the target, e.g. 10m (default 0: refuse at once, exit 2)"},
	{name: "lease", env: "CATALOGSPEC_LEASE", cleanup: true, usage: "how long the run's hold on the target lasts unless renewed (every third of it); a run killed is found dead this long after (default 30s)"},
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
	case "run", "audit", "cleanup":
		return runSuite(args[0], args[1:], stdout, stderr, getenv)
	}
	fmt.Fprintf(stderr, "catalogspec: unknown command %q\n\n%s", args[0], usage)
	return runner.ExitConfig
}

// runSuite runs the command name (run, audit: the read-only audit, or
// cleanup) with the flags of args over the environment.
func runSuite(name string, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	readOnly, cleanup := name == "audit", name == "cleanup"
	fs := flag.NewFlagSet("catalogspec "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	values := map[string]*string{}
	var flags []flagSpec
	for _, f := range runFlags {
		if readOnly && !f.audit || cleanup && !f.cleanup {
			continue
		}
		flags = append(flags, f)
		u := f.usage
		if readOnly && f.auditUsage != "" {
			u = f.auditUsage
		}
		if f.file {
			u += " [or " + f.env + "; never pass a token as a flag]"
		} else {
			u += " [" + f.env + "]"
		}
		values[f.name] = fs.String(f.name, "", u)
	}
	usage := func(w io.Writer) {
		switch {
		case readOnly:
			fmt.Fprint(w, auditUsage)
		case cleanup:
			fmt.Fprint(w, cleanupHelp)
		default:
			fmt.Fprint(w, runHelp)
		}
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	fs.Usage = func() { usage(stderr) }
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			usage(stdout)
			return 0
		}
		if a == "--" {
			break
		}
	}
	if err := fs.Parse(args); err != nil {
		return runner.ExitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "catalogspec %s takes no arguments, got %q (flags come as --name value)\n", name, fs.Args())
		return runner.ExitConfig
	}
	overrides := map[string]string{}
	for _, f := range flags {
		v := *values[f.name]
		switch {
		case v == "":
		case f.file:
			b, err := os.ReadFile(v)
			if err != nil {
				fmt.Fprintf(stderr, "catalogspec: --%s: %v\n", f.name, err)
				return runner.ExitConfig
			}
			overrides[f.env] = strings.TrimSpace(string(b))
		default:
			overrides[f.env] = v
		}
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
	if cleanup {
		return runner.Cleanup(context.Background(), cfg, steps.New())
	}
	cfg.ReadOnly = readOnly
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
