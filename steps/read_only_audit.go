package steps

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/catalogspec/catalogspec/sdkclient"
	"github.com/cucumber/godog"
	"github.com/golang-jwt/jwt/v5"
)

// registerReadOnlyAuditSteps registers the steps of features/read_only_audit.feature.
func registerReadOnlyAuditSteps(s stepRegistrar) {
	s.Step(`^`+who+` holds the token the operator gave$`, holdsOperatorsToken)
	s.Step(`^a request with `+auditCredentials+` reaches every path of both tiers$`, credentialsReachEveryPath)
	s.Step(`^every path refuses it as unauthenticated, and nothing it would write is there$`, everyPathRefuses)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` through the (metadata service|frontend), naming another user in X-DataHub-Actor$`, asksWhoNamingAnother)
	s.Step(`^`+who+` sends the creation of a tag to (the GraphQL endpoint|the frontend's GraphQL endpoint|the frontend's v2 GraphQL endpoint) by GET$`, sendsTagCreationByGETTo)
	s.Step(`^the answer names `+who+` with the privileges the metadata service says `+pronoun+` has$`, answerNamesWithPrivileges)
	s.Step(`^`+who+` lists (every user's access tokens|every policy)$`, listsWhatManagersMay)
	s.Step(`^`+pronoun+` is answered exactly when `+"`me`"+` says `+pronoun+` may (manage all access tokens|manage policies)$`, answeredExactlyWhenMeSays)
	s.Step(`^`+who+` asks the (metadata service|frontend) who `+pronoun+` `+verbIs+`$`, asksTierWhoSheIs)
	s.Step(`^the frontend serves its own sign-in page$`, frontendServesSignInPage)
	s.Step(`^someone opens the sign-in page$`, opensSignInPage)
	s.Step(`^someone opens a sign-in link that leads to another site, (.+)$`, opensSignInLink)
	s.Step(`^the page forbids other sites to frame it$`, pageForbidsFraming)
	s.Step(`^every cookie the page sets is kept from scripts and from other sites' requests$`, pageCookiesKept)
	s.Step(`^the sign-in page would send the browser to a page of the frontend$`, signInPageStaysHome)
}

// The read-only audit (catalogspec audit) runs the scenarios tagged
// @read-only with at most the operator's token: Ada's. In a full run
// given none, Ada is the administrator. Nothing here writes to a target
// that works; what a broken one would write is named here and looked for
// (docs/suite.md lists it).

// auditCredentials are what audit-01 sends to every path.
const auditCredentials = `(no token|no token, naming the root user in X-DataHub-Actor|a malformed token|a token signed with another key|an unsigned token|an expired token|a revoked token)`

// needsToken is why a scenario that needs Ada's token is skipped without it.
const needsToken = "needs a user's personal access token: give one in " + runner.EnvToken + " (catalogspec audit --token-file FILE)"

// auditPath is a path of a tier that serves data, and how to send it a
// request that a working target refuses without a valid token. A request
// that would write on a broken target says what (mayWrite), and its
// answer's noEffect looks for it.
type auditPath struct {
	name string
	cap  string // the capability it belongs to, switched off with it
	send func(w *world, c caller) *answer
}

// auditPaths are every path of both tiers that serves data, as DataHub
// has them: GraphQL, GraphiQL, the entity path, the SDK's Rest.li and
// OpenAPI paths (reads, and the writes of ingestion).
var auditPaths = func() []auditPath {
	var paths []auditPath
	for _, gql := range []struct{ name, path string }{
		{"the metadata service's GraphQL endpoint", "/api/graphql"},
		{"the frontend's GraphQL endpoint", "/api/graphql"},
		{"the frontend's v2 GraphQL endpoint", "/api/v2/graphql"},
	} {
		paths = append(paths, auditPath{gql.name, "graphql", func(w *world, c caller) *answer {
			base := c.frontend
			if strings.HasPrefix(gql.name, "the metadata service") {
				base = c.gms
			}
			return w.askWhoAmI(c, base+gql.path)
		}})
	}
	for _, tier := range []string{tierGMS, tierFrontend} {
		root := func(c caller) string { return base(c, tier) }
		on := " of the " + tier
		if tier == tierFrontend {
			on = " of the frontend (/api/gms)"
		}
		paths = append(paths,
			auditPath{"the GraphiQL page" + on, "graphql", func(w *world, c caller) *answer {
				page := c.gms + "/api/graphiql"
				if tier == tierFrontend {
					page = c.frontend + "/api/graphiql"
				}
				return w.getPage(c, page)
			}},
			auditPath{"the entity path" + on, "entity-paths", func(w *world, c caller) *answer {
				return w.readEntity(c, tier, runner.RootUser, false)
			}},
			auditPath{"the Rest.li aspect path" + on, "restli", func(w *world, c caller) *answer {
				return w.readAspect(c, tier, runner.RootUser, "corpUserKey")
			}},
			auditPath{"the Rest.li v2 entity path" + on, "restli", func(w *world, c caller) *answer {
				return w.readEntityV2(c, tier, runner.RootUser, nil)
			}},
			auditPath{"the OpenAPI entity path" + on, "openapi", func(w *world, c caller) *answer {
				a := w.sdkSend(c, http.MethodGet, root(c)+"/openapi/v3/entity/corpuser/"+sdkclient.URLEncode(runner.RootUser), nil)
				a.noEffect = nothingToCheck
				return a
			}},
			auditPath{"the OpenAPI batch read" + on, "openapi", func(w *world, c caller) *answer {
				a := w.send(w.sdk(c), request{method: http.MethodPost, url: root(c) + sdkclient.EntitiesPath("corpuser", false),
					body: sdkclient.EntitiesBody([]string{runner.RootUser}, nil), reads: true})
				a.noEffect = nothingToCheck
				return a
			}},
			auditPath{"hard deletion" + on, "deletion", func(w *world, c caller) *answer {
				d := w.newDataset()
				a := w.send(w.sdk(c), request{method: http.MethodPost, url: root(c) + sdkclient.DeleteEntityPath, body: sdkclient.DeleteEntityBody(d.urn),
					mayWrite: "nothing: the dataset " + d.urn + " it would delete was never written"})
				a.noEffect = nothingToCheck
				return a
			}},
			auditPath{"a dry run of deleting references" + on, "deletion", func(w *world, c caller) *answer {
				a := w.send(w.sdk(c), request{method: http.MethodPost, url: root(c) + sdkclient.DeleteReferencesPath,
					body: sdkclient.DeleteReferencesBody(runner.RootUser, true), reads: true})
				a.noEffect = nothingToCheck
				return a
			}},
			auditPath{"ingestion over Rest.li" + on, "ingestion", func(w *world, c caller) *answer {
				return w.probeIngestion(c, root(c), w.newDataset())
			}},
			auditPath{"ingestion over OpenAPI" + on, "openapi", func(w *world, c caller) *answer {
				d := w.newDataset()
				reqs := sdkclient.OpenAPIWrites([]sdkclient.MCP{propertiesItem(d).mcp}, false)
				a := w.send(w.sdk(c), request{method: reqs[0].Method, url: root(c) + reqs[0].Path, body: reqs[0].Body,
					mayWrite: "the description of the dataset " + d.urn})
				a.noEffect = func() error { return w.lookedFor(d) }
				return a
			}},
		)
	}
	return paths
}()

// probeIngestion sends as c, to the metadata service at base, the
// ingestion of d's description, which a working target refuses: a broken
// one would store the description, which noEffect looks for.
func (w *world) probeIngestion(c caller, base string, d *datasetRecord) *answer {
	body, _ := json.Marshal(proposal{Proposal: proposalBody{
		EntityType: "dataset", EntityURN: d.urn, ChangeType: "UPSERT", AspectName: "datasetProperties",
		Aspect: aspectValue{Value: mustJSON(datasetProperties{Description: d.description, CustomProperties: map[string]string{}}), ContentType: "application/json"},
	}})
	a := w.send(c, request{method: http.MethodPost, url: base + "/aspects?action=ingestProposal", contentType: "application/json",
		body: body, headers: restliHeaders, mayWrite: "the description of the dataset " + d.urn})
	a.what = fmt.Sprintf("%s ingesting datasetProperties of %s", c.name, d.urn)
	a.subject = d.urn
	a.noEffect = func() error { return w.lookedFor(d) }
	return a
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the suite's own values always encode
	}
	return string(b)
}

// lookedFor checks that nothing was stored for d, which a request refused
// as unauthenticated would have written to a broken target. Without a
// token to read with, a refusal of the read is all the audit can see.
func (w *world) lookedFor(d *datasetRecord) error {
	r := w.reader()
	a := w.readEntity(r, tierGMS, d.urn, false)
	if r.token == "" && (a.status == http.StatusUnauthorized || a.status == http.StatusForbidden) {
		return nil
	}
	return w.aspectAbsent(a, "DatasetSnapshot", "com.linkedin.dataset.DatasetProperties")
}

// auditState is what the audit's steps keep between them.
type auditState struct {
	// refusals are the answers of every path to audit-01's credentials.
	refusals []*answer
	// lister is who listed what only a manager may list, and listed what.
	lister     *person
	listedWhat string
}

// auditCaller is someone sending the credentials audit-01 names, "" when
// the scenario is to be skipped for want of them (with why).
func (w *world) auditCaller(credentials string) (caller, string, error) {
	t := w.suite.Target
	c := w.anonymous()
	c.name = "someone with " + credentials
	switch credentials {
	case "no token":
	case "no token, naming the root user in X-DataHub-Actor":
		c.headers = map[string]string{"X-DataHub-Actor": runner.RootUser}
	case "a malformed token", "a token signed with another key", "an unsigned token":
		tok, err := w.forgeFor(credentials)
		if err != nil {
			return c, "", err
		}
		w.secret(tok)
		c.token = tok
	case "an expired token":
		if t.ExpiredToken == "" {
			return c, "needs an expired personal access token of the target: give one in " + runner.EnvExpiredToken + " (--expired-token-file FILE)", nil
		}
		w.secret(t.ExpiredToken)
		c.token = t.ExpiredToken
	case "a revoked token":
		if t.RevokedToken == "" {
			return c, "needs a revoked personal access token of the target: give one in " + runner.EnvRevokedToken + " (--revoked-token-file FILE)", nil
		}
		w.secret(t.RevokedToken)
		c.token = t.RevokedToken
	default:
		return c, "", w.fail("unknown credentials %q", credentials)
	}
	return c, "", nil
}

// forgeFor makes a token of the kind badTokens names: with the claims of
// the operator's token when there is one, else with the claims DataHub
// gives a personal access token of its root user (StatelessTokenService),
// so that only the signature is wrong.
func (w *world) forgeFor(kind string) (string, error) {
	if tok := w.suite.Target.UserToken; tok != "" {
		if _, _, err := jwt.NewParser().ParseUnverified(tok, jwt.MapClaims{}); err == nil {
			return w.forge(&person{name: "the operator's user", token: tok}, kind)
		}
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	claims := jwt.MapClaims{
		"actorType": "USER", "actorId": "datahub", "type": "PERSONAL", "version": "2",
		"jti": fmt.Sprintf("%x", jti), "sub": "datahub", "iss": "datahub-metadata-service",
		"exp": time.Now().Add(time.Hour).Unix(),
	}
	root := &person{name: "the root user", token: mustSign(claims)}
	return w.forge(root, kind)
}

// mustSign signs claims with a key of its own: a token to copy claims from.
func mustSign(claims jwt.MapClaims) string {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)
	if err != nil {
		panic(err)
	}
	return tok
}

// anotherUser is a user other than p, for X-DataHub-Actor: the root user,
// or when p is the root user, someone no one has made.
func (w *world) anotherUser(p *person) string {
	if p.urn != runner.RootUser {
		return runner.RootUser
	}
	return "urn:li:corpuser:catalogspec-nobody-" + w.id
}

// Steps.

func holdsOperatorsToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	t := w.suite.Target
	if t.UserToken == "" || t.User == "" {
		w.notRun, w.notRunReason = runner.StatusSkipped, needsToken
		return godog.ErrSkip
	}
	p := w.person(name)
	p.token, p.urn, p.exists = t.UserToken, t.User, true
	p.username = strings.TrimPrefix(t.User, "urn:li:corpuser:")
	w.secret(p.token)
	return nil
}

func credentialsReachEveryPath(ctx context.Context, credentials string) error {
	w := theWorld(ctx)
	c, skip, err := w.auditCaller(credentials)
	if err != nil {
		return err
	}
	if skip != "" {
		w.notRun, w.notRunReason = runner.StatusSkipped, skip
		return godog.ErrSkip
	}
	w.refusals = nil
	for _, p := range auditPaths {
		if slices.Contains(w.suite.Disabled, p.cap) {
			continue
		}
		a := p.send(w, c)
		a.what = fmt.Sprintf("%s at %s", c.name, p.name)
		w.refusals = append(w.refusals, a)
	}
	return w.checkpoint()
}

// everyPathRefuses checks each path's answer as auth-01 does one: 401, and
// what it would have written is not there. Every path is judged; the
// failure lists each that did not refuse.
func everyPathRefuses(ctx context.Context) error {
	w := theWorld(ctx)
	if len(w.refusals) == 0 {
		return w.fail("no request was sent to any path")
	}
	var wrong []string
	for _, a := range w.refusals {
		if err := w.refusedAsUnauthenticated(a); err != nil {
			wrong = append(wrong, err.Error())
		}
	}
	if len(wrong) > 0 {
		return w.fail("%d of %d paths did not refuse:\n%s", len(wrong), len(w.refusals), strings.Join(wrong, "\n"))
	}
	return nil
}

func asksWhoNamingAnother(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	other := w.anotherUser(p)
	c.headers = map[string]string{"X-DataHub-Actor": other}
	endpoint := c.gms + "/api/graphql"
	if tier == "frontend" {
		endpoint = c.frontend + "/api/graphql"
	}
	w.last = w.askWhoAmI(c, endpoint)
	w.last.what = fmt.Sprintf("%s asking who she is through the %s, naming %s in X-DataHub-Actor", name, tier, other)
	return w.checkpoint()
}

// sendsTagCreationByGETTo sends createTag by GET. A target that ran it
// would make a tag of a name of its own, which the next steps look for;
// the audit cannot delete it (docs/suite.md says so), a full run does.
func sendsTagCreationByGETTo(ctx context.Context, name, endpoint string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	t := w.newTag()
	w.tag = t
	vars := map[string]any{"input": map[string]any{"id": t.id, "name": t.name, "description": t.description}}
	target := c.gms + "/api/graphql"
	switch endpoint {
	case "the frontend's GraphQL endpoint":
		target = c.frontend + "/api/graphql"
	case "the frontend's v2 GraphQL endpoint":
		target = c.frontend + "/api/v2/graphql"
	}
	v, _ := json.Marshal(vars)
	q := url.Values{"query": {w.suite.docs.createTag}, "variables": {string(v)}}
	a := w.send(c, request{method: http.MethodGet, url: target + "?" + q.Encode(), mayWrite: "the tag " + t.urn})
	a.what = fmt.Sprintf("%s sending the creation of the tag %s to %s by GET", name, t.urn, endpoint)
	a.noEffect = func() error { return w.tagAbsent(t) }
	if !w.suite.ReadOnly {
		w.undoTag(t)
	}
	w.last = a
	return w.checkpoint()
}

// answerNamesWithPrivileges checks that the last `me` answer names p with
// exactly the platform privileges `me` reports at the metadata service.
func answerNamesWithPrivileges(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if err := w.answerNames(a, p.urn); err != nil {
		return err
	}
	var there *meView
	if err := a.data("me", &there); err != nil {
		return w.failed(err)
	}
	here, err := w.platformPrivilegesOf(p)
	if err != nil {
		return err
	}
	if !maps.Equal(there.PlatformPrivileges, here) {
		return w.fail("%s reports the privileges %v; the metadata service's `me` reports %v", a.what, there.PlatformPrivileges, here)
	}
	return nil
}

func listsWhatManagersMay(ctx context.Context, name, what string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	w.lister, w.listedWhat = p, what
	doc := w.suite.docs.listAccessTokens
	if what == "every policy" {
		doc = w.suite.docs.listPolicies
	}
	a := w.graphql(c, doc, map[string]any{"input": map[string]any{"start": 0, "count": 1}})
	a.what = fmt.Sprintf("%s listing %s", name, what)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// answeredExactlyWhenMeSays judges the last listing from both sides: a
// caller `me` says may manage them is answered, anyone else is refused as
// DataHub refuses a caller without the privilege.
func answeredExactlyWhenMeSays(ctx context.Context, ability string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	field := map[string]string{"manage all access tokens": "listAccessTokens", "manage policies": "listPolicies"}[ability]
	p := w.lister
	if p == nil {
		return w.fail("no one listed anything")
	}
	privileges, err := w.platformPrivilegesOf(p)
	if err != nil {
		return err
	}
	if privileges[abilityFields[ability]] {
		// A list of every user's tokens comes from DataHub's search index,
		// which may still name a token another client has just revoked: the
		// listing then fails until the index catches up (ListAccessTokens
		// loads each token it names). Such a failure is listed again within
		// the propagation window; a refusal is never waited out.
		listed := func(a *answer) (bool, error) {
			var out *struct {
				Total *int `json:"total"`
			}
			if err := a.data(field, &out); err != nil {
				if g, derr := a.decodeGraphQL(); derr == nil && len(g.Errors) > 0 {
					if e := g.Errors[0]; e.code() == "401" || e.code() == "403" || e.Extensions.Type == "UNAUTHORIZED" {
						return true, w.fail("`me` says %s may %s, but %s was refused: %q", p.name, ability, a.what, e.Message)
					}
				}
				return false, w.fail("`me` says %s may %s, but %v", p.name, ability, err)
			}
			if out == nil || out.Total == nil {
				return true, w.fail("`me` says %s may %s, but %s answered no list", p.name, ability, a.what)
			}
			return true, nil
		}
		var verdict error
		first := true
		err := w.eventually(a.what, func() (bool, error) {
			if !first {
				if err := listsWhatManagersMay(ctx, p.name, w.listedWhat); err != nil {
					return true, err
				}
				a = w.last
			}
			first = false
			done, err := listed(a)
			if done {
				verdict = err
			}
			return done, err
		})
		if verdict != nil {
			return verdict
		}
		return err
	}
	e, err := w.graphQLRefusal(a, "a refusal, since `me` says "+p.name+" may not "+ability)
	if err != nil {
		return err
	}
	if e.code() != "403" && e.Extensions.Type != "UNAUTHORIZED" {
		return w.fail("`me` says %s may not %s, and %s failed with %q (code %s, type %s), not as unauthorized", p.name, ability, a.what, e.Message, e.code(), e.Extensions.Type)
	}
	return nil
}

func asksTierWhoSheIs(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	endpoint := c.gms + "/api/graphql"
	if tier == "frontend" {
		endpoint = c.frontend + "/api/graphql"
	}
	w.last = w.askWhoAmI(c, endpoint)
	w.last.what = fmt.Sprintf("%s asking the %s who she is", name, tier)
	return w.checkpoint()
}

// noSignInPage is why the sign-in page's scenarios are skipped on a
// frontend that serves none (DataHub's web app signs in in its scripts).
const noSignInPage = "the frontend serves no sign-in page of its own (GET /login answers no form with data-testid=\"login-form\")"

func frontendServesSignInPage(ctx context.Context) error {
	w := theWorld(ctx)
	if !w.suite.Target.Pages {
		w.notRun, w.notRunReason = runner.StatusSkipped, noSignInPage
		return godog.ErrSkip
	}
	return nil
}

// openPage opens link as a browser that holds no cookie would, taking
// the answer itself rather than where it redirects.
func (w *world) openPage(link, what string) error {
	a := w.send(caller{name: "someone", frontend: w.frontend()}, request{method: http.MethodGet, url: link, noRedirect: true})
	a.what = what
	a.noEffect = nothingToCheck
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		w.secret(c.Value)
	}
	w.last = a
	return w.checkpoint()
}

func opensSignInPage(ctx context.Context) error {
	w := theWorld(ctx)
	return w.openPage(w.frontend()+"/login", "someone opening the sign-in page")
}

func opensSignInLink(ctx context.Context, how string) error {
	w := theWorld(ctx)
	link, err := w.signInLink(how)
	if err != nil {
		return err
	}
	return w.openPage(link, "someone opening a sign-in link that leads to another site, "+how)
}

var frameAncestors = regexp.MustCompile(`(?i)(?:^|;)\s*frame-ancestors\s+([^;]*)`)

// pageForbidsFraming: X-Frame-Options DENY or SAMEORIGIN, or a Content
// Security Policy whose frame-ancestors are 'none' or 'self' alone.
func pageForbidsFraming(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected the page", a.what, a.status)
	}
	switch strings.ToUpper(strings.TrimSpace(a.header.Get("X-Frame-Options"))) {
	case "DENY", "SAMEORIGIN":
		return nil
	}
	for _, csp := range a.header.Values("Content-Security-Policy") {
		if m := frameAncestors.FindStringSubmatch(csp); m != nil {
			switch strings.ToLower(strings.TrimSpace(m[1])) {
			case "'none'", "'self'":
				return nil
			}
		}
	}
	return w.fail("%s answered neither X-Frame-Options DENY or SAMEORIGIN nor a Content-Security-Policy with frame-ancestors 'none' or 'self': another site may frame the page", a.what)
}

// pageCookiesKept: each cookie the page set is HttpOnly and SameSite Lax
// or Strict, and Secure when the frontend is reached over https.
func pageCookiesKept(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected the page", a.what, a.status)
	}
	https := strings.HasPrefix(w.frontend(), "https:")
	var wrong []string
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		switch {
		case !c.HttpOnly:
			wrong = append(wrong, c.Name+" is not HttpOnly: the page's scripts can read it")
		case c.SameSite != http.SameSiteLaxMode && c.SameSite != http.SameSiteStrictMode:
			wrong = append(wrong, c.Name+" is not SameSite=Lax or Strict: other sites' requests carry it")
		case https && !c.Secure:
			wrong = append(wrong, c.Name+" is not Secure, over https")
		}
	}
	if len(wrong) > 0 {
		return w.fail("%s set cookies that are not kept: %s", a.what, strings.Join(wrong, "; "))
	}
	return nil
}

var (
	loginForm  = regexp.MustCompile(`(?s)<form\b[^>]*data-testid="login-form"[^>]*>`)
	formAction = regexp.MustCompile(`\baction="([^"]*)"`)
)

// signInPageStaysHome judges where the sign-in page opened from a link
// would send the browser, without signing in (the reference keeps a
// session row for every sign-in): a redirect's Location, or the form's
// action and the next page it carries, each read as a browser reads it,
// must be a page of the frontend.
func signInPageStaysHome(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	home, err := url.Parse(w.frontend())
	if err != nil {
		return err
	}
	onSite := func(what, loc string) error {
		to, err := browserResolve(home, loc)
		if err != nil {
			return w.fail("%s: its %s %q cannot be followed: %v", a.what, what, loc, err)
		}
		if to.Scheme != home.Scheme || to.Host != home.Host {
			return w.fail("%s: its %s %q leads a browser to %s, another site", a.what, what, loc, to.Redacted())
		}
		return nil
	}
	if a.status >= 300 && a.status < 400 {
		return onSite("Location", a.header.Get("Location"))
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected the sign-in page or a redirect", a.what, a.status)
	}
	form := loginForm.Find(a.body)
	if form == nil {
		return w.fail("%s answered a page without the sign-in form", a.what)
	}
	if m := formAction.FindSubmatch(form); m != nil {
		if err := onSite("form's action", html.UnescapeString(string(m[1]))); err != nil {
			return err
		}
	}
	if m := formNext.FindSubmatch(a.body); m != nil && string(m[1]) != "" {
		return onSite("next page after signing in", html.UnescapeString(string(m[1])))
	}
	return nil
}
