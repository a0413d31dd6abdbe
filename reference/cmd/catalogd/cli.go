package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// errHelp is returned when a command printed its usage because it was
// asked to: run treats it as success.
var errHelp = errors.New("help requested")

// parse parses args with fs. -h and --help print the usage to stdout and
// return errHelp; a bad flag prints the usage to stderr; an argument that
// is not a flag is an error, since every command takes flags only.
func parse(fs *flag.FlagSet, args []string, about, trailer string, stdout, stderr io.Writer) error {
	usage := func(w io.Writer) func() {
		return func() {
			fmt.Fprintf(w, "usage: %s [flags]\n\n", fs.Name())
			if about != "" {
				fmt.Fprintln(w, strings.TrimSpace(about))
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, "Flags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
			if trailer != "" {
				fmt.Fprintln(w, trailer)
			}
		}
	}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)()
		return errHelp
	case err != nil:
		usage(stderr)()
		return err
	case fs.NArg() > 0:
		return fmt.Errorf("%s: unexpected argument %q: every setting is a flag (see %s -h)", strings.TrimPrefix(fs.Name(), "catalogd "), fs.Arg(0), fs.Name())
	}
	return nil
}

// logLevels are the values of --log-level.
var logLevels = []string{"debug", "info", "warn", "error"}

func checkLogLevel(level string) error {
	for _, l := range logLevels {
		if strings.EqualFold(level, l) {
			return nil
		}
	}
	return fmt.Errorf("bad --log-level %q: use one of %s", level, strings.Join(logLevels, ", "))
}

// versionText is the version and, when the binary was built from a
// repository, its commit.
func versionText() string {
	commit, dirty := "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	switch {
	case commit == "":
		return "catalogd " + version
	case dirty:
		return fmt.Sprintf("catalogd %s (commit %s, with uncommitted changes)", version, commit)
	}
	return fmt.Sprintf("catalogd %s (commit %s)", version, commit)
}

// serveEnvironment is the environment serve reads, for its usage text.
const serveEnvironment = `
Environment:
  DATABASE_URL                        the Postgres to use (else a container, else a local cluster in --data-dir)
  METADATA_SERVICE_AUTH_ENABLED       false serves requests without a token (default true)
  DATAHUB_TOKEN_SERVICE_SIGNING_KEY   HS256 key, 32+ characters (default: generated once, kept in the database)
  DATAHUB_TOKEN_SERVICE_SALT          salt of stored token ids, 32+ characters (default: as the key)
  DATAHUB_TOKEN_SERVICE_ISSUER        the tokens' iss (default datahub-metadata-service)
  ACCESS_TOKEN_ALLOW_NO_EXPIRY        false refuses createAccessToken for NO_EXPIRY tokens, as
                                      current DataHub does by default (default true)
  CATALOGD_ROOT_PASSWORD              the root user's password (default: generated once, written to a new file of mode 0600 whose path is printed)
  CATALOGD_ROOT_PASSWORD_FILE         where a generated root password goes (a new file; default: beside the data directory, or the temporary directory)
  CATALOGD_DB_TIMEOUT                 one database call (default 5s)
  CATALOGD_REQUEST_TIMEOUT            one request end to end (default 30s)
  CATALOGD_READ_TIMEOUT               reading one request (default 30s)
  CATALOGD_IDLE_TIMEOUT               an idle kept-alive connection (default 120s)
  CATALOGD_SESSION_TTL                a browser session, from sign-in (default 24h)
  CATALOGD_MAX_SESSIONS_PER_USER      sessions one user holds; signing in ends the oldest past it (default 100)
  CATALOGD_PUBLIC_URL                 the frontend's URL as people use it; https makes cookies Secure
                                      and sends Strict-Transport-Security (default none)
  CATALOGD_TRUSTED_PROXIES            proxies (IPs, CIDRs) whose X-Forwarded-For and X-Forwarded-Proto
                                      are believed (default none)
  CATALOGD_SIGNIN_MAX_FAILURES_PER_USER    failed sign-ins for one user within the window (default 10)
  CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT  failed sign-ins from one client within the window (default 100)
  CATALOGD_SIGNIN_FAILURE_WINDOW      how long a failed sign-in counts (default 5m)
  CATALOGD_ALLOWED_HOSTS              names the service answers to in the Host header besides its
                                      addresses, localhost and this machine's name: comma-separated,
                                      .example.com for a domain and its names, * for any (default none)
  CATALOGD_MAX_HEADER_BYTES           request headers (default 65536)
  CATALOGD_GRAPHQL_MAX_TOKENS         tokens of a GraphQL document (default 15000)
  CATALOGD_GRAPHQL_MAX_FIELDS         fields after fragment expansion (default 5000)
  CATALOGD_GRAPHQL_MAX_DEPTH          nesting of selections (default 50, as DataHub; 20 at most
                                      for __schema and __type, as DataHub)
  CATALOGD_GRAPHQL_MAX_SAME_NAME      one response name in one selection set (default 100)
  CATALOGD_GRAPHQL_MAX_SPREADS        fragment spreads in one selection set (default 100)
  CATALOGD_GRAPHQL_MAX_FRAGMENTS      fragments of one document (default 250)
  CATALOGD_GRAPHQL_MAX_COST           values an answer could hold, pages counted per item (default 25000)
  CATALOGD_GRAPHQL_MAX_RESPONSE_BYTES bytes of one query's answer (default 8388608)
  CATALOGD_GRAPHQL_MAX_ERRORS         errors in one response (default 50)
  CATALOGD_MAX_TOKENS_PER_USER        unexpired tokens one user without MANAGE_ACCESS_TOKENS owns (default 1000)
  CATALOGD_MAX_READ_BYTES             stored metadata one request reads: entities, pages, lists (default 33554432)
  CATALOGD_MAX_BYTES_IN_FLIGHT        what the requests in flight hold at once; past it a request is
                                      refused with 503 and Retry-After (default 268435456)
  CATALOGD_GRAPHQL_INTROSPECTION      false turns __schema and __type off (default true)
  GOGC                                the Go collector's target (default 400 for serve: the live heap is small)
  CATALOGD_CACHE                      false reads users, tokens and policies from PostgreSQL on
                                      every request instead of keeping them in memory (default true)
  CATALOGD_CLOCK_OFFSET               for conformance testing only: run the clock ahead (e.g. 25h)
  CATALOGD_POLICY_REFRESH             for conformance testing only: apply policy changes at a refresh
                                      every this long, as DataHub does (its default: 120s)
  CATALOGD_PASSWORD_COST              for conformance testing only: the bcrypt cost of stored passwords
                                      (4 to 31; default 10)
  CATALOGD_SEARCH_LAG                 for conformance testing only: token, policy and user lists show
                                      a change this long after it is made, as DataHub's search index
                                      does (its default: up to 4s)`
