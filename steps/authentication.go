package steps

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/golang-jwt/jwt/v5"
)

// registerAuthenticationSteps registers the steps of features/authentication.feature.
func registerAuthenticationSteps(s stepRegistrar) {
	s.Step(`^`+who+`'s token works$`, tokenWorks)
	s.Step(`^`+who+` creates a tag, naming the administrator in X-DataHub-Actor$`, createsTagNamingAdmin)
	s.Step(`^a request without a token reaches `+surfaces+`$`, requestWithoutTokenReaches)
	s.Step(`^the request is refused as unauthenticated$`, refusedAsUnauthenticated)
	s.Step(`^the answer challenges the caller for a Bearer token$`, answerChallengesForBearer)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+`, sending `+own+` token `+schemeNames+`$`, asksWhoSheIsSendingToken)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` through the (metadata service|frontend), naming the administrator in X-DataHub-Actor$`, asksWhoSheIsNamingAdmin)
	s.Step(`^the challenge says the token is invalid$`, challengeSaysTokenInvalid)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` with `+badTokens+`$`, asksWhoSheIsWithBadToken)
	s.Step(`^the administrator revokes `+who+`'s token$`, adminRevokesToken)
	s.Step(`^the administrator suspends `+who+`$`, adminSuspends)
	s.Step(`^`+who+` reads the app configuration$`, readsAppConfig)
	s.Step(`^token authentication is reported as (enabled|disabled)$`, tokenAuthReportedAs)
}

// surfaceList is every place a request without a token must be refused,
// by the name authentication.feature gives it, with how to reach it.
var surfaceList = []struct {
	name  string
	reach func(w *world, c caller) *answer
}{
	{"the GraphQL endpoint", func(w *world, c caller) *answer { return w.askWhoAmI(c, c.gms+"/api/graphql") }},
	{"the frontend's GraphQL endpoint", func(w *world, c caller) *answer { return w.askWhoAmI(c, c.frontend+"/api/graphql") }},
	{"the frontend's v2 GraphQL endpoint", func(w *world, c caller) *answer { return w.askWhoAmI(c, c.frontend+"/api/v2/graphql") }},
	{"the GraphiQL page", func(w *world, c caller) *answer { return w.getPage(c, c.gms+"/api/graphiql") }},
	{"the frontend's GraphiQL page", func(w *world, c caller) *answer { return w.getPage(c, c.frontend+"/api/graphiql") }},
	{"the metadata service's entity path", func(w *world, c caller) *answer { return w.readEntity(c, tierGMS, runner.RootUser, false) }},
	{"the frontend's entity path", func(w *world, c caller) *answer { return w.readEntity(c, tierFrontend, runner.RootUser, false) }},
	{"the ingestion endpoint", func(w *world, c caller) *answer {
		w.dataset = w.newDataset()
		return w.probeIngestion(c, c.gms, w.dataset)
	}},
	{"the frontend's ingestion endpoint", func(w *world, c caller) *answer {
		w.dataset = w.newDataset()
		return w.probeIngestion(c, c.frontend+"/api/gms", w.dataset)
	}},
}

// surfaces is the step pattern's group that names a surface.
var surfaces = func() string {
	names := make([]string, len(surfaceList))
	for i, s := range surfaceList {
		names[i] = regexp.QuoteMeta(s.name)
	}
	return "(" + strings.Join(names, "|") + ")"
}()

// badTokens are the kinds of invalid token the suite makes.
const badTokens = `(a malformed token|a token signed with another key|an unsigned token)`

// getPage sends a GET that changes nothing.
func (w *world) getPage(c caller, url string) *answer {
	a := w.send(c, request{method: http.MethodGet, url: url})
	a.noEffect = nothingToCheck
	return a
}

// reachWithoutToken sends a request without a token to surface.
func (w *world) reachWithoutToken(surface string) (*answer, error) {
	for _, s := range surfaceList {
		if s.name == surface {
			a := s.reach(w, w.anonymous())
			a.what = "a request without a token to " + surface
			return a, nil
		}
	}
	return nil, w.fail("unknown surface %q", surface)
}

// refusedAsUnauthenticated checks the answer to a request that carried no
// valid credentials: 401, and no effect (SPEC.md, Authentication). DataHub's
// body is its own (Spring's error on the metadata service, empty at the
// frontend), so nothing more is asked at must level.
func (w *world) refusedAsUnauthenticated(a *answer) error {
	if a.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401", a.what, a.status)
	}
	return w.noEffect(a)
}

// refused checks that a token was not honoured: 401, or 403 (DataHub
// answers a suspended user's token so), and no effect.
func (w *world) refused(a *answer) error {
	if a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
		return w.fail("%s answered status %d, expected the token to be refused (401 or 403)", a.what, a.status)
	}
	return w.noEffect(a)
}

// challengesForBearer checks RFC 6750 section 3: a 401 with a Bearer
// challenge, and the contract's JSON body saying 401. A recommendation:
// DataHub sends no challenge.
func (w *world) challengesForBearer(a *answer) error {
	if a.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401", a.what, a.status)
	}
	challenge := a.header.Get("WWW-Authenticate")
	if !strings.HasPrefix(challenge, "Bearer") {
		return w.fail("%s answered WWW-Authenticate %q, expected a challenge starting with Bearer (RFC 6750 section 3)", a.what, challenge)
	}
	var body struct {
		Status any `json:"status"`
	}
	if err := a.jsonBody(&body); err != nil {
		return w.failed(err)
	}
	if fmt.Sprint(body.Status) != "401" {
		return w.fail("%s answered a body whose status is %v, expected 401", a.what, body.Status)
	}
	return nil
}

func (w *world) challengeSaysInvalid(a *answer) error {
	challenge := a.header.Get("WWW-Authenticate")
	if !strings.Contains(challenge, `error="invalid_token"`) {
		return w.fail("%s answered WWW-Authenticate %q, expected it to say error=\"invalid_token\" (RFC 6750 section 3.1)", a.what, challenge)
	}
	return nil
}

// forge makes an invalid token for p: kind is one of badTokens. Tokens with
// claims copy those of p's real token, so only what kind names is wrong.
func (w *world) forge(p *person, kind string) (string, error) {
	if kind == "a malformed token" {
		return "catalogspec-malformed-" + w.id, nil
	}
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(p.token, claims); err != nil {
		return "", w.fail("%s's token is not a JWT, so the suite cannot copy its claims: %v", p.name, err)
	}
	otherKey := make([]byte, 32)
	if _, err := rand.Read(otherKey); err != nil {
		return "", err
	}
	var (
		tok string
		err error
	)
	switch kind {
	case "a token signed with another key":
		tok, err = jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(otherKey)
	case "an unsigned token":
		tok, err = jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	default:
		return "", w.fail("unknown kind of token %q", kind)
	}
	if err != nil {
		return "", w.fail("making %s: %v", kind, err)
	}
	return tok, nil
}

// appConfig reads appConfig as c.
func (w *world) appConfig(c caller) *answer {
	a := w.graphql(c, w.suite.docs.appConfig, nil)
	a.what = c.name + " reading the app configuration"
	a.noEffect = nothingToCheck
	return a
}

// Steps.

func requestWithoutTokenReaches(ctx context.Context, surface string) error {
	w := theWorld(ctx)
	a, err := w.reachWithoutToken(surface)
	if err != nil {
		return err
	}
	w.last = a
	return w.checkpoint()
}

func refusedAsUnauthenticated(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.refusedAsUnauthenticated(a)
}

func answerChallengesForBearer(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.challengesForBearer(a)
}

func challengeSaysTokenInvalid(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.challengeSaysInvalid(a)
}

func asksWhoSheIsWithBadToken(ctx context.Context, name, kind string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if p.token == "" {
		return w.fail("%s holds no token to copy claims from", name)
	}
	tok, err := w.forge(p, kind)
	if err != nil {
		return err
	}
	w.secret(tok)
	w.last = w.askWhoAmI(w.withToken(name, tok), "")
	w.last.what = fmt.Sprintf("%s asking who she is with %s", name, kind)
	return w.checkpoint()
}

func adminSuspends(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	status := map[string]any{
		"status":       "SUSPENDED",
		"lastModified": map[string]any{"time": time.Now().UnixMilli(), "actor": "urn:li:corpuser:__datahub_system"},
	}
	p.suspended = true
	return w.mustIngest(w.admin(), "corpuser", p.urn, "corpUserStatus", status)
}

func readsAppConfig(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.appConfig(c)
	return w.checkpoint()
}

func tokenAuthReportedAs(ctx context.Context, state string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var cfg *struct {
		AuthConfig struct {
			TokenAuthEnabled bool `json:"tokenAuthEnabled"`
		} `json:"authConfig"`
	}
	if err := a.data("appConfig", &cfg); err != nil {
		return w.failed(err)
	}
	if cfg == nil {
		return w.fail("%s: appConfig is null", a.what)
	}
	if want := state == "enabled"; cfg.AuthConfig.TokenAuthEnabled != want {
		return w.fail("%s: tokenAuthEnabled is %t, expected %t", a.what, cfg.AuthConfig.TokenAuthEnabled, want)
	}
	return nil
}

// schemes are the ways "sending her token ..." names, and what each puts
// before the token in the Authorization header ("-": nothing).
var schemes = map[string]string{
	"with the Basic scheme":                "Basic",
	"with the Token scheme":                "Token",
	"without a scheme":                     "-",
	"with the bearer scheme in lower case": "bearer",
}

// schemeNames is the step pattern's group that names a way.
var schemeNames = func() string {
	names := make([]string, 0, len(schemes))
	for n := range schemes {
		names = append(names, regexp.QuoteMeta(n))
	}
	slices.Sort(names)
	return "(" + strings.Join(names, "|") + ")"
}()

func asksWhoSheIsSendingToken(ctx context.Context, name, how string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	c.scheme = schemes[how]
	w.last = w.askWhoAmI(c, "")
	w.last.what = fmt.Sprintf("%s asking who she is, sending her token %s", name, how)
	return w.checkpoint()
}

func asksWhoSheIsNamingAdmin(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	c.headers = map[string]string{"X-DataHub-Actor": runner.RootUser}
	endpoint := c.gms + "/api/graphql"
	if tier == "frontend" {
		endpoint = c.frontend + "/api/graphql"
	}
	w.last = w.askWhoAmI(c, endpoint)
	w.last.what = fmt.Sprintf("%s asking who she is through the %s, naming the administrator in X-DataHub-Actor", name, tier)
	return w.checkpoint()
}

func tokenWorks(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	return w.answerNames(w.askWhoAmI(c, ""), p.urn)
}

func createsTagNamingAdmin(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	c.headers = map[string]string{"X-DataHub-Actor": runner.RootUser}
	w.tag = w.newTag()
	w.last = w.attemptCreateTag(c, w.tag)
	return w.checkpoint()
}

func adminRevokesToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if p.tokenID == "" {
		return w.fail("%s holds no token", name)
	}
	a := w.revoke(w.admin(), p.tokenID)
	var ok bool
	if err := a.data("revokeAccessToken", &ok); err != nil {
		return w.failed(err)
	}
	if !ok {
		return w.fail("%s answered false", a.what)
	}
	return nil
}
