package steps

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
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
//	| CATALOGSPEC_NOAUTH_GMS_URL | metadata service of an auth-disabled instance | unset: @auth-disabled is skipped |
//	| CATALOGSPEC_CATALOGD       | path to a built catalogd binary               | unset: go build it               |
const (
	envGMS      = "CATALOGSPEC_GMS_URL"
	envFrontend = "CATALOGSPEC_FRONTEND_URL"
	envAdmin    = "CATALOGSPEC_ADMIN_TOKEN"
	envNoAuth   = "CATALOGSPEC_NOAUTH_GMS_URL"
	envCatalogd = "CATALOGSPEC_CATALOGD"
)

// target is the deployment the scenarios run against.
type target struct {
	GMS        string // metadata service base URL, no trailing slash
	Frontend   string // frontend base URL, no trailing slash
	AdminToken string // never printed
	NoAuthGMS  string // "" when there is no auth-disabled instance
	Reference  bool   // the harness started the reference

	stop func(context.Context) error // stops what the harness started
}

// newTarget reads the target from the environment, or starts the reference
// when CATALOGSPEC_GMS_URL is unset. reportsDir receives the reference's logs.
func newTarget(ctx context.Context, getenv func(string) string, reportsDir string) (*target, error) {
	gms := getenv(envGMS)
	if gms == "" {
		for _, v := range []string{envFrontend, envAdmin} {
			if getenv(v) != "" {
				return nil, fmt.Errorf("%s is set but %s is not: set both to test a deployment, or neither to test the reference", v, envGMS)
			}
		}
		return startReference(ctx, getenv, reportsDir)
	}
	t := &target{
		GMS:        strings.TrimRight(gms, "/"),
		Frontend:   strings.TrimRight(getenv(envFrontend), "/"),
		AdminToken: strings.TrimSpace(getenv(envAdmin)),
		NoAuthGMS:  strings.TrimRight(getenv(envNoAuth), "/"),
	}
	var missing []string
	if t.Frontend == "" {
		missing = append(missing, envFrontend)
	}
	if t.AdminToken == "" {
		missing = append(missing, envAdmin)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s is set, so %s must be set too", envGMS, strings.Join(missing, " and "))
	}
	for name, u := range map[string]string{envGMS: t.GMS, envFrontend: t.Frontend, envNoAuth: t.NoAuthGMS} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("%s=%q is not an http(s) base URL", name, u)
		}
	}
	return t, nil
}

// close stops what the harness started for the target.
func (t *target) close(ctx context.Context) error {
	if t == nil || t.stop == nil {
		return nil
	}
	return t.stop(ctx)
}

// describe names the target for the run's output, without secrets.
func (t *target) describe() string {
	noAuth := t.NoAuthGMS
	if noAuth == "" {
		noAuth = "none (@auth-disabled scenarios are skipped)"
	}
	who := "deployment"
	if t.Reference {
		who = "reference started by the harness"
	}
	return fmt.Sprintf("%s: gms %s, frontend %s, auth-disabled gms %s", who, t.GMS, t.Frontend, noAuth)
}

var errNoCatalogd = errors.New("catalogd binary not found")
