package runner

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// The target is the deployment under test: one value per run, read from the
// environment. With CATALOGSPEC_GMS_URL unset, the harness starts the
// reference service itself (reference.go).
//
//	| variable                   | meaning                                       | default                          |
//	|----------------------------|-----------------------------------------------|----------------------------------|
//	| CATALOGSPEC_GMS_URL        | metadata service base URL of the target       | unset: start the reference       |
//	| CATALOGSPEC_FRONTEND_URL   | frontend base URL                             | required with GMS_URL            |
//	| CATALOGSPEC_ADMIN_TOKEN    | PAT of a user holding every privilege         | required with GMS_URL            |
//	| CATALOGSPEC_NOAUTH_GMS_URL | metadata service of an auth-disabled instance | unset: @cap:auth-disabled is skipped |
//	| CATALOGSPEC_NOAUTH_FRONTEND_URL | frontend of that instance                | unset: its scenarios are skipped |
//	| CATALOGSPEC_LATER_GMS_URL  | metadata service of an instance of the same deployment whose clock runs 25 hours ahead | unset: @cap:clock is skipped |
//	| CATALOGSPEC_LATER_FRONTEND_URL | frontend of that instance                 | unset: @cap:clock-frontend is skipped |
//	| CATALOGSPEC_REPLICA_GMS_URL | metadata service of another instance of the same deployment (same database, same clock) | unset: @cap:replicas is skipped |
//	| CATALOGSPEC_HTTPS_FRONTEND_URL | the deployment's frontend as people reach it over HTTPS | unset: @cap:https-frontend is skipped |
//	| CATALOGSPEC_PROPAGATION_TIMEOUT | how long a policy change or a token list may take to show | 150s; 5s for the reference |
//	| CATALOGSPEC_CATALOGD       | path to a built catalogd binary               | unset: go build it               |
//	| CATALOGSPEC_REFERENCE_LAG  | start the reference lagging as DataHub does: datahub, or <policy refresh>[,<search lag>] | unset: immediate |
//	| CATALOGSPEC_TOKEN          | a user's PAT: the read-only scenarios' (Ada's), and the audit's only one | the admin's in a full run; none in an audit |
//	| CATALOGSPEC_EXPIRED_TOKEN  | a PAT of the target that has expired          | unset: that check is skipped     |
//	| CATALOGSPEC_REVOKED_TOKEN  | a PAT of the target that was revoked          | unset: that check is skipped     |
const (
	EnvGMS            = "CATALOGSPEC_GMS_URL"
	EnvFrontend       = "CATALOGSPEC_FRONTEND_URL"
	EnvAdmin          = "CATALOGSPEC_ADMIN_TOKEN"
	EnvNoAuth         = "CATALOGSPEC_NOAUTH_GMS_URL"
	EnvNoAuthFrontend = "CATALOGSPEC_NOAUTH_FRONTEND_URL"
	EnvLater          = "CATALOGSPEC_LATER_GMS_URL"
	EnvLaterFrontend  = "CATALOGSPEC_LATER_FRONTEND_URL"
	EnvReplica        = "CATALOGSPEC_REPLICA_GMS_URL"
	EnvHTTPSFrontend  = "CATALOGSPEC_HTTPS_FRONTEND_URL"
	EnvPropagation    = "CATALOGSPEC_PROPAGATION_TIMEOUT"
	envCatalogd       = "CATALOGSPEC_CATALOGD"
	envReferenceLag   = "CATALOGSPEC_REFERENCE_LAG"
	EnvToken          = "CATALOGSPEC_TOKEN"
	EnvExpiredToken   = "CATALOGSPEC_EXPIRED_TOKEN"
	EnvRevokedToken   = "CATALOGSPEC_REVOKED_TOKEN"
)

// laterBy is how far ahead the clock of the CATALOGSPEC_LATER_GMS_URL
// instance runs: more than a day, less than a week, so that a ONE_DAY token
// has expired there and a ONE_WEEK token has not.
const laterBy = 25 * time.Hour

// Propagation windows: DataHub refreshes its policy cache every 120 s by
// default and its token list is search-backed; the reference is immediate.
const (
	defaultPropagation   = 150 * time.Second
	referencePropagation = 5 * time.Second
)

// Target is the deployment the scenarios run against.
type Target struct {
	GMS        string // metadata service base URL, no trailing slash
	Frontend   string // frontend base URL, no trailing slash
	AdminToken string // never printed
	NoAuthGMS  string // "" when there is no auth-disabled instance
	// NoAuthFrontend is the frontend of the auth-disabled instance.
	NoAuthFrontend string
	// LaterGMS is the metadata service of an instance sharing the target's
	// data whose clock runs laterBy ahead; "" when there is none.
	LaterGMS string
	// LaterFrontend is the frontend of that instance.
	LaterFrontend string
	// ReplicaGMS is the metadata service of another instance of the same
	// deployment; "" when there is none.
	ReplicaGMS string
	// HTTPSFrontend is the deployment's frontend as people reach it over
	// HTTPS (through whatever terminates TLS in front of it); "" when
	// there is none.
	HTTPSFrontend string
	// TLSRoots are the certificates the suite trusts over HTTPS besides
	// the system's: the harness's TLS proxy's; nil for the system's alone
	// (which SSL_CERT_FILE and SSL_CERT_DIR can name).
	TLSRoots *x509.CertPool
	// Propagation is how long a policy change, or a token's appearing in
	// or leaving a list, may take to show.
	Propagation time.Duration
	Reference   bool // the harness started the reference
	// Lag is how the harness started the reference: lagging as DataHub
	// does, or immediate (zero).
	Lag referenceLag
	// Pages says whether the frontend serves the browser pages the @ui
	// scenarios drive (preflight looks).
	Pages bool

	// ReadOnly: the run is a read-only audit. It has no AdminToken, and
	// sends nothing that would write to a target that works.
	ReadOnly bool
	// UserToken is the read-only scenarios' token (Ada's): the operator's
	// CATALOGSPEC_TOKEN, else in a full run the admin's; "" in an audit
	// given none. Never printed.
	UserToken string
	// User is the URN UserToken stands for, and UserPrivileges what `me`
	// says they may do ("manage policies"); preflight asks.
	User           string
	UserPrivileges []string
	// ExpiredToken and RevokedToken are tokens of the target that it must
	// refuse, when the operator gives them; never printed.
	ExpiredToken, RevokedToken string

	stop func(context.Context) error // stops what the harness started
}

// newTarget reads the target from the environment, or starts the reference
// when CATALOGSPEC_GMS_URL is unset. reportsDir receives the reference's logs.
// A read-only audit checks a deployment with at most a user's token: it
// needs the URLs, and leaves CATALOGSPEC_ADMIN_TOKEN unread.
func newTarget(ctx context.Context, getenv func(string) string, reportsDir string, readOnly bool) (*Target, error) {
	t, err := targetOf(ctx, getenv, reportsDir, readOnly)
	if err != nil {
		return nil, err
	}
	t.ReadOnly = readOnly
	// The harness gives the reference's own revoked token.
	if v := strings.TrimSpace(getenv(EnvExpiredToken)); v != "" {
		t.ExpiredToken = v
	}
	if v := strings.TrimSpace(getenv(EnvRevokedToken)); v != "" {
		t.RevokedToken = v
	}
	if tok := strings.TrimSpace(getenv(EnvToken)); tok != "" {
		t.UserToken = tok
	} else if !readOnly {
		t.UserToken = t.AdminToken
	}
	return t, nil
}

func targetOf(ctx context.Context, getenv func(string) string, reportsDir string, readOnly bool) (*Target, error) {
	gms := getenv(EnvGMS)
	if gms == "" && readOnly {
		return nil, fmt.Errorf("the read-only audit checks a deployment: set %s and %s (it starts no reference; `catalogspec run` does)", EnvGMS, EnvFrontend)
	}
	if gms == "" {
		for _, v := range []string{EnvFrontend, EnvAdmin} {
			if getenv(v) != "" {
				return nil, fmt.Errorf("%s is set but %s is not: set both to test a deployment, or neither to test the reference", v, EnvGMS)
			}
		}
		lag, err := parseReferenceLag(getenv(envReferenceLag))
		if err != nil {
			return nil, err
		}
		t, err := startReference(ctx, getenv, reportsDir, lag)
		if err != nil {
			return nil, err
		}
		t.Propagation, err = propagation(getenv, lag.window())
		return t, err
	}
	if getenv(envReferenceLag) != "" {
		return nil, fmt.Errorf("%s is set, but so is %s: the lag is a way of starting the reference, not of a deployment", envReferenceLag, EnvGMS)
	}
	admin := strings.TrimSpace(getenv(EnvAdmin))
	if readOnly {
		admin = ""
	}
	t := &Target{
		GMS:        strings.TrimRight(gms, "/"),
		Frontend:   strings.TrimRight(getenv(EnvFrontend), "/"),
		AdminToken: admin,
		NoAuthGMS:  strings.TrimRight(getenv(EnvNoAuth), "/"),

		NoAuthFrontend: strings.TrimRight(getenv(EnvNoAuthFrontend), "/"),
		LaterGMS:       strings.TrimRight(getenv(EnvLater), "/"),
		LaterFrontend:  strings.TrimRight(getenv(EnvLaterFrontend), "/"),
		ReplicaGMS:     strings.TrimRight(getenv(EnvReplica), "/"),
		HTTPSFrontend:  strings.TrimRight(getenv(EnvHTTPSFrontend), "/"),
	}
	var err error
	if t.Propagation, err = propagation(getenv, defaultPropagation); err != nil {
		return nil, err
	}
	var missing []string
	if t.Frontend == "" {
		missing = append(missing, EnvFrontend)
	}
	if t.AdminToken == "" && !readOnly {
		missing = append(missing, EnvAdmin)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s is set, so %s must be set too", EnvGMS, strings.Join(missing, " and "))
	}
	for name, u := range map[string]string{EnvGMS: t.GMS, EnvFrontend: t.Frontend, EnvNoAuth: t.NoAuthGMS, EnvNoAuthFrontend: t.NoAuthFrontend, EnvLater: t.LaterGMS, EnvLaterFrontend: t.LaterFrontend, EnvReplica: t.ReplicaGMS, EnvHTTPSFrontend: t.HTTPSFrontend} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("%s=%q is not an http(s) base URL", name, u)
		}
	}
	if u, err := url.Parse(t.HTTPSFrontend); t.HTTPSFrontend != "" && (err != nil || u.Scheme != "https") {
		return nil, fmt.Errorf("%s=%q is not an https URL: it names the frontend as people reach it over HTTPS", EnvHTTPSFrontend, t.HTTPSFrontend)
	}
	return t, nil
}

// propagation reads CATALOGSPEC_PROPAGATION_TIMEOUT, def when unset.
func propagation(getenv func(string) string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(getenv(EnvPropagation))
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 150s", EnvPropagation, v)
	}
	return d, nil
}

// capabilities are the tags of scenarios that need more than the target's
// two tiers, and what each needs.
var capabilities = []struct {
	tag  string
	has  func(*Target) bool
	need string
}{
	{"@cap:auth-disabled", func(t *Target) bool { return t.NoAuthGMS != "" }, "an auth-disabled instance (" + EnvNoAuth + ")"},
	{"@cap:auth-disabled-frontend", func(t *Target) bool { return t.NoAuthFrontend != "" }, "the frontend of an auth-disabled instance (" + EnvNoAuthFrontend + ")"},
	{"@cap:clock", func(t *Target) bool { return t.LaterGMS != "" }, "an instance whose clock runs 25 hours ahead (" + EnvLater + ")"},
	{"@cap:clock-frontend", func(t *Target) bool { return t.LaterFrontend != "" }, "the frontend of an instance whose clock runs 25 hours ahead (" + EnvLaterFrontend + ")"},
	{"@cap:replicas", func(t *Target) bool { return t.ReplicaGMS != "" }, "a second instance of the same deployment (" + EnvReplica + ")"},
	{"@cap:https-frontend", func(t *Target) bool { return t.HTTPSFrontend != "" }, "the frontend as people reach it over HTTPS (" + EnvHTTPSFrontend + ")"},
	{"@cap:ui", func(t *Target) bool { return t.Pages }, "a frontend that serves the sign-in and access tokens pages (its GET /login answers no sign-in form with data-testid=\"login-form\")"},
}

// HTTPClient is a client of the target's URLs with the timeout: over
// HTTPS it trusts TLSRoots when the harness set them (its own TLS proxy's
// certificate), else the system's roots.
func (t *Target) HTTPClient(timeout time.Duration) *http.Client {
	c := &http.Client{Timeout: timeout}
	if t != nil && t.TLSRoots != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: t.TLSRoots, MinVersion: tls.VersionTLS12}
		c.Transport = tr
	}
	return c
}

// Lacks says what the target lacks for the scenario, "" when nothing.
func (t *Target) Lacks(sc *godog.Scenario) string {
	for _, c := range capabilities {
		if hasTag(sc, c.tag) && !c.has(t) {
			return fmt.Sprintf("%s scenarios need %s", c.tag, c.need)
		}
	}
	return ""
}

// close stops what the harness started for the target.
func (t *Target) close(ctx context.Context) error {
	if t == nil || t.stop == nil {
		return nil
	}
	return t.stop(ctx)
}

// describe names the target for the run's output, without secrets.
func (t *Target) describe() string {
	noAuth := t.NoAuthGMS
	if noAuth == "" {
		noAuth = "none (@cap:auth-disabled scenarios are skipped)"
	}
	who := "deployment"
	if t.Reference {
		who = "reference started by the harness"
		if t.Lag.on() {
			who += fmt.Sprintf(" lagging as DataHub does (policy refresh every %s, search lag %s)", t.Lag.PolicyRefresh, t.Lag.Search)
		}
	}
	later := t.LaterGMS
	if later == "" {
		later = "none (@cap:clock scenarios are skipped)"
	} else if t.LaterFrontend != "" {
		later += " (frontend " + t.LaterFrontend + ")"
	}
	replica := t.ReplicaGMS
	if replica == "" {
		replica = "none (@cap:replicas scenarios are skipped)"
	}
	if t.ReadOnly {
		as := "without a token (" + EnvToken + " unset: what needs one is skipped)"
		if t.User != "" {
			may := "nothing beyond what every user may"
			if len(t.UserPrivileges) > 0 {
				may = strings.Join(t.UserPrivileges, ", ")
			}
			as = "as " + t.User + " (" + EnvToken + "), whom the me query says may " + may
		}
		return fmt.Sprintf("read-only audit of a deployment, %s: gms %s, frontend %s", as, t.GMS, t.Frontend)
	}
	https := t.HTTPSFrontend
	if https == "" {
		https = "none (@cap:https-frontend scenarios are skipped)"
	}
	return fmt.Sprintf("%s: gms %s, frontend %s, auth-disabled gms %s, later-clock gms %s, replica gms %s, https frontend %s, propagation window %s",
		who, t.GMS, t.Frontend, noAuth, later, replica, https, t.Propagation)
}

var errNoCatalogd = errors.New("catalogd binary not found")

func hasTag(sc *godog.Scenario, tag string) bool {
	for _, t := range sc.Tags {
		if t.Name == tag {
			return true
		}
	}
	return false
}
