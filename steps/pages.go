package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/cucumber/godog"
)

// registerPagesSteps registers the steps of the browser's pages,
// which several features share.
func registerPagesSteps(s stepRegistrar) {
	s.Step(`^`+who+` is signed in to the frontend in (?:a|another) browser$`, isSignedIn)
	s.Step(`^the browser is at the sign-in page$`, atSignInPage)
	s.Step(`^every request the page made went to the service's own origin$`, requestsStayedHome)
}

// The browser steps (@ui): sign-in, Settings > Access Tokens and GraphiQL,
// driven through a real Chromium (browser.go). Elements are found by their
// data-testid, GraphiQL's by its own class names; what a step judges is
// checked by its effect too (a token shown is tried on the API, a page's
// refusal is read back as no token made).

// uiState is what the browser steps keep in a scenario.
type uiState struct {
	pages   map[string]*runner.Page // each person's browser, by name; "someone" for a stranger
	current *runner.Page            // the browser that acted last
	shown   *shownToken             // the token a page showed last
	// kept are cookies a step kept, to be tried after the browser lost them.
	kept []*network.Cookie
	// attempt and loginError are the last failed sign-in attempt and what
	// the sign-in page said to it.
	attempt, loginError string
	// result is what GraphiQL's result pane showed last.
	result string
}

// shownToken is a token made in the page and shown there.
type shownToken struct {
	raw         string
	name        string
	description string
	owner       *person
	madeAt      time.Time
}

// frontend is the frontend the scenario's browsers use.
func (w *world) frontend() string {
	if w.noAuth {
		return w.suite.Target.NoAuthFrontend
	}
	return w.suite.Target.Frontend
}

// browserOf returns who's browser, opening one on first use.
func (w *world) browserOf(name string) (*runner.Page, error) {
	if p, ok := w.pages[name]; ok {
		w.current = p
		return p, nil
	}
	if w.suite.Browser == nil {
		return nil, w.fail("this run has no browser: the @ui scenarios need one (%s)", runner.EnvBrowser)
	}
	p, err := w.suite.Browser.NewPage()
	if err != nil {
		return nil, w.fail("opening a browser for %s: %v", name, err)
	}
	p.Owner = w.name
	if w.pages == nil {
		w.pages = map[string]*runner.Page{}
	}
	w.pages[name] = p
	w.current = p
	frontend := w.frontend()
	w.undo("empty "+name+"'s browser", func() error {
		// A session the browser holds is ended first, at the frontend's
		// /logOut with the browser's cookies (over HTTP: what the frontend
		// is sent is the same, without a page load): the frontend keeps no
		// session of the run's.
		if cs, err := p.Cookies(frontend); err == nil && slices.ContainsFunc(cs, func(c *network.Cookie) bool { return c.Name == sessionCookie && c.Value != "" }) {
			pairs := make([]string, len(cs))
			for i, c := range cs {
				w.secret(c.Value)
				pairs[i] = c.Name + "=" + c.Value
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err := logOut(ctx, w.suite.Target.HTTPClient(30*time.Second), frontend, strings.Join(pairs, "; "))
			cancel()
			if err == nil {
				w.suite.trace.count("sessions", 1)
			}
		}
		p.Release()
		return nil
	})
	return p, nil
}

// uiFail is a failing browser step: what went wrong, and where the page is.
func (w *world) uiFail(p *runner.Page, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if p != nil {
		if u, err := p.Location(); err == nil {
			msg += fmt.Sprintf(" (the page is at %s)", u.Redacted())
		}
	}
	return w.fail("%s", msg)
}

// screenshotOnFailure saves the current browser page, when the scenario
// has one, and says where: a failing @ui step's message ends with it.
func (w *world) screenshotOnFailure() string {
	if w.current == nil || w.suite.ReportsDir == "" {
		return ""
	}
	w.shots++
	name := fmt.Sprintf("%s-%s-%d", strings.ReplaceAll(strings.TrimPrefix(w.info.ID, "@id:"), ":", "-"), w.id, w.shots)
	path, err := w.current.Screenshot(w.suite.ReportsDir+"/screenshots", name)
	if err != nil {
		return "\n(no screenshot of the page: " + err.Error() + ")"
	}
	return "\nscreenshot of the page: " + path
}

// givePassword makes p a user with a password, as DataHub has it done:
// the administrator invites them with an invite token and they sign up at
// the frontend, choosing a random password (native_users.go). The frontend
// signs them in as it makes them, as DataHub's does: a browser given the
// cookies it set (p.session) is signed in. Only a scenario of native
// users (@cap:native-users) makes its people so, and only before anything
// else has made their user.
func (w *world) givePassword(p *person) error {
	if p.password != "" {
		return nil
	}
	if !w.native {
		return w.fail("%s needs a password, which only a scenario tagged @cap:native-users gives (its people sign up with an invite token)", p.name)
	}
	if p.exists {
		return w.fail("%s's user was made without a password (%s is known only by a user name): DataHub gives passwords only to people who sign up", p.name, p.name)
	}
	return w.ensureUser(p)
}

// setPasswordWithResetToken takes the reset token from the answer a to
// createNativeUserResetToken and sets a new password for p with it at the
// frontend's /resetNativeUserCredentials. It returns the password and the
// cookies of the session the frontend opened (every secret masked).
func (w *world) setPasswordWithResetToken(a *answer, p *person, frontend string) (string, []*http.Cookie, error) {
	var out *struct {
		ResetToken string `json:"resetToken"`
	}
	if err := a.data("createNativeUserResetToken", &out); err != nil {
		return "", nil, w.failed(err)
	}
	if out == nil || out.ResetToken == "" {
		return "", nil, w.fail("%s answered no reset token", a.what)
	}
	w.secret(out.ResetToken)
	password := "pw-" + randomID(16)
	w.secret(password)
	r := w.sendJSON(caller{name: p.name, frontend: frontend}, frontend+"/resetNativeUserCredentials",
		map[string]string{"email": p.username, "password": password, "resetToken": out.ResetToken}, nil)
	r.what = fmt.Sprintf("%s setting a password with the reset token", p.name)
	if r.status != http.StatusOK {
		return "", nil, w.fail("%s answered status %d, expected 200", r.what, r.status)
	}
	cookies := (&http.Response{Header: r.header}).Cookies()
	for _, c := range cookies {
		w.secret(c.Value)
	}
	return password, cookies, nil
}

// signedIn gives p's browser the session the frontend opened when p's
// password was set: p is signed in without the sign-in page (which
// signsIn and the sign-in scenarios use).
func (w *world) signedIn(p *person) (*runner.Page, error) {
	if err := w.givePassword(p); err != nil {
		return nil, err
	}
	if len(p.session) == 0 {
		return w.signIn(p)
	}
	b, err := w.browserOf(p.name)
	if err != nil {
		return nil, err
	}
	for _, c := range p.session {
		set := network.SetCookie(c.Name, c.Value).WithURL(w.frontend()).WithPath(c.Path).WithHTTPOnly(c.HttpOnly).WithSecure(c.Secure)
		switch c.SameSite {
		case http.SameSiteLaxMode:
			set = set.WithSameSite(network.CookieSameSiteLax)
		case http.SameSiteStrictMode:
			set = set.WithSameSite(network.CookieSameSiteStrict)
		}
		if err := b.Run(set); err != nil {
			return b, w.uiFail(b, "giving %s's browser the session cookie %s: %v", p.name, c.Name, err)
		}
	}
	return b, nil
}

// signIn signs p in through the sign-in page in p's browser.
func (w *world) signIn(p *person) (*runner.Page, error) {
	if err := w.givePassword(p); err != nil {
		return nil, err
	}
	b, err := w.browserOf(p.name)
	if err != nil {
		return nil, err
	}
	if err := w.submitLogin(b, p.username, p.password); err != nil {
		return b, err
	}
	u, err := b.Location()
	if err != nil {
		return b, w.uiFail(b, "reading where the browser is: %v", err)
	}
	if u.Path == "/login" {
		msg, _ := text(b, `[data-testid="login-error"], [data-testid="problem-message"]`)
		status, _ := b.Status()
		return b, w.uiFail(b, "%s was not signed in with the right password: the sign-in answered status %d, saying %q", p.name, status, msg)
	}
	return b, nil
}

// submitLogin fills in and sends the sign-in form.
func (w *world) submitLogin(b *runner.Page, username, password string) error {
	err := b.Run(
		chromedp.Navigate(w.frontend()+"/login"),
		chromedp.WaitVisible(`[data-testid="login-form"]`, chromedp.ByQuery),
		chromedp.SetValue(`[data-testid="login-username"]`, username, chromedp.ByQuery),
		chromedp.SetValue(`[data-testid="login-password"]`, password, chromedp.ByQuery),
	)
	if err != nil {
		return w.uiFail(b, "filling in the sign-in form at %s/login: %v", w.frontend(), err)
	}
	return w.click(b, `[data-testid="login-submit"]`, "Sign in")
}

// click clicks the element sel, which leads to another page, and waits
// for that page to load.
func (w *world) click(b *runner.Page, sel, what string) error {
	if err := b.Run(chromedp.WaitVisible(sel, chromedp.ByQuery)); err != nil {
		return w.uiFail(b, "finding %s: %v", what, err)
	}
	before := b.LoadCount()
	if err := b.Run(chromedp.Click(sel, chromedp.ByQuery)); err != nil {
		return w.uiFail(b, "clicking %s: %v", what, err)
	}
	return w.waitNewDocument(b, before, "clicking "+what)
}

// waitNewDocument waits until the page has loaded a document after the
// first before: the answer to a form sent or a link followed.
func (w *world) waitNewDocument(b *runner.Page, before int, what string) error {
	if !b.WaitLoadAfter(before, runner.UITimeout) {
		return w.uiFail(b, "%s led to no new page within %s", what, runner.UITimeout)
	}
	return nil
}

// text is the trimmed text of the element sel, "" when there is none.
func text(b *runner.Page, sel string) (string, error) {
	var s string
	err := b.Eval(fmt.Sprintf(`((document.querySelector(%q) || {}).textContent || "").trim()`, sel), &s)
	return strings.Join(strings.Fields(s), " "), err
}

// exists says whether the page has an element sel.
func exists(b *runner.Page, sel string) (bool, error) {
	var ok bool
	err := b.Eval(fmt.Sprintf(`document.querySelector(%q) !== null`, sel), &ok)
	return ok, err
}

// fetchAnswer is what a request made from the page's own scripts got.
type fetchAnswer struct {
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
	Body        string `json:"body"`
}

// fetchGraphQL posts a GraphQL document from the page to the frontend's
// /api/graphql, with the browser's cookies, as a script of the page would.
func (w *world) fetchGraphQL(b *runner.Page, who, doc string, vars map[string]any) (*answer, error) {
	body, err := json.Marshal(graphQLRequest{Query: doc, Variables: vars})
	if err != nil {
		return nil, err
	}
	// From a page of the frontend, as its own scripts would.
	if u, err := b.Location(); err != nil || !strings.HasPrefix(u.String(), w.frontend()+"/") {
		if err := b.Navigate(w.frontend() + tokensPath); err != nil {
			return nil, w.uiFail(b, "opening a page of the frontend: %v", err)
		}
	}
	js := fmt.Sprintf(`fetch("/api/graphql", {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"}, body: %q})
		.then(r => r.text().then(t => ({status: r.status, contentType: r.headers.get("Content-Type") || "", body: t})))`, body)
	var f fetchAnswer
	if err := b.Eval(js, &f); err != nil {
		return nil, w.uiFail(b, "sending a GraphQL request from %s's page: %v", who, err)
	}
	a := &answer{caller: who, status: f.Status, header: http.Header{"Content-Type": {f.ContentType}}, body: []byte(f.Body), what: fmt.Sprintf("a GraphQL request from %s's browser", who)}
	w.recordRequest(exchange{request: "POST " + w.frontend() + "/api/graphql (from the page, with its cookies)\n\n" + string(body), method: http.MethodPost, url: w.frontend() + "/api/graphql", body: string(body), response: fmt.Sprintf("HTTP %d\n\n%s", f.Status, truncate(f.Body))})
	return a, nil
}

// Steps: signing in.

func isSignedIn(ctx context.Context, name string) error {
	w := theWorld(ctx)
	_, err := w.signedIn(w.person(name))
	return err
}

// Steps: the access tokens page.

const tokensPath = "/settings/tokens"

func (w *world) openTokensPage(name string) (*runner.Page, error) {
	b, err := w.browserOf(name)
	if err != nil {
		return nil, err
	}
	if err := b.Navigate(w.frontend() + tokensPath); err != nil {
		return b, w.uiFail(b, "opening the access tokens page: %v", err)
	}
	if err := b.Run(chromedp.WaitVisible(`[data-testid="add-token-button"]`, chromedp.ByQuery)); err != nil {
		return b, w.uiFail(b, "the access tokens page shows no \"Generate new token\" button (data-testid=add-token-button): %v", err)
	}
	return b, nil
}

// untilTokenListed waits, within the propagation window, until the access
// tokens page in b lists the token named (or, with want false, no longer
// does), opening the page again while it does not: the page lists tokens
// from DataHub's search index, which lags behind making and revoking them.
func (w *world) untilTokenListed(b *runner.Page, name string, want bool) error {
	what := fmt.Sprintf("the access tokens page listing the token %q", name)
	if !want {
		what = fmt.Sprintf("the access tokens page no longer listing the token %q", name)
	}
	return w.eventually(what, func() (bool, error) {
		var seen struct {
			Page bool `json:"page"`
			Row  bool `json:"row"`
		}
		if err := b.Eval(fmt.Sprintf(`({page: !!document.querySelector('[data-testid="add-token-button"]'), row: !!(%s)})`, fmt.Sprintf(tokenRowJS, name)), &seen); err != nil {
			return false, w.uiFail(b, "%v", err)
		}
		var miss error
		switch {
		case !seen.Page:
			// An error instead of the list says nothing either way.
			miss = w.uiFail(b, "the access tokens page is not shown")
		case seen.Row == want:
			return true, nil
		case want:
			miss = w.uiFail(b, "the page does not list the token %q", name)
		default:
			miss = w.uiFail(b, "the page still lists the token %q", name)
		}
		// Opened again by its address (never reloaded: that could send a
		// form again).
		if err := b.Navigate(w.frontend() + tokensPath); err != nil {
			return false, w.uiFail(b, "opening the access tokens page again: %v", err)
		}
		return false, miss
	})
}

func atSignInPage(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	u, err := b.Location()
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	ok, err := exists(b, `[data-testid="login-form"]`)
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	if u.Path != "/login" || !ok {
		return w.uiFail(b, "the browser is not at the sign-in page")
	}
	if !strings.HasPrefix(u.String(), w.frontend()) {
		return w.uiFail(b, "the sign-in page is not on the frontend %s", w.frontend())
	}
	return nil
}

// durationLabels are the page's expiry choices, as the contract's
// durations.
var durationLabels = map[string]string{
	"1 hour": "ONE_HOUR", "1 day": "ONE_DAY", "1 week": "ONE_WEEK", "1 month": "ONE_MONTH",
	"3 months": "THREE_MONTHS", "6 months": "SIX_MONTHS", "1 year": "ONE_YEAR", "Never": "NO_EXPIRY",
}

// openTokenForm opens the page and its form that makes a token.
func (w *world) openTokenForm(name string) (*runner.Page, error) {
	b, err := w.openTokensPage(name)
	if err != nil {
		return nil, err
	}
	if err := w.click(b, `[data-testid="add-token-button"]`, "Generate new token"); err != nil {
		return b, err
	}
	if err := b.Run(chromedp.WaitVisible(`[data-testid="create-token-form"]`, chromedp.ByQuery)); err != nil {
		return b, w.uiFail(b, "no form to make a token after clicking \"Generate new token\": %v", err)
	}
	return b, nil
}

// fillTokenForm fills in the token form with a new name and description.
func (w *world) fillTokenForm(b *runner.Page, owner *person, choice string) (*shownToken, error) {
	t := &shownToken{name: w.unique("page-token"), description: "Made in the page by the catalogspec scenario: " + w.name, owner: owner}
	actions := []chromedp.Action{
		chromedp.SetValue(`[data-testid="token-name-input"]`, t.name, chromedp.ByQuery),
		chromedp.SetValue(`[data-testid="token-description-input"]`, t.description, chromedp.ByQuery),
	}
	if choice != "" {
		value, ok := durationLabels[choice]
		if !ok {
			return nil, w.fail("unknown expiry %q", choice)
		}
		actions = append(actions, chromedp.SetValue(`[data-testid="token-duration-select"]`, value, chromedp.ByQuery))
	}
	if err := b.Run(actions...); err != nil {
		return nil, w.uiFail(b, "filling in the token form: %v", err)
	}
	return t, nil
}

// readShownToken reads the token the page shows after Create, and has it
// revoked at the end of the scenario.
func (w *world) readShownToken(b *runner.Page, t *shownToken) error {
	if err := b.Run(chromedp.WaitVisible(`[data-testid="new-token-value"]`, chromedp.ByQuery)); err != nil {
		return w.uiFail(b, "the page shows no new token after Create: %v", err)
	}
	t.madeAt = time.Now()
	if err := b.Run(chromedp.Value(`[data-testid="new-token-value"]`, &t.raw, chromedp.ByQuery)); err != nil {
		return w.uiFail(b, "reading the new token: %v", err)
	}
	t.raw = strings.TrimSpace(t.raw)
	w.secret(t.raw)
	if t.raw == "" {
		return w.uiFail(b, "the page shows an empty token")
	}
	w.shown = t
	raw := t.raw
	w.undo("revoke the token made in the page", func() error {
		_, meta, err := w.tokenMetadataOf(raw)
		if err != nil || meta == nil {
			return nil // gone already, or never made
		}
		return w.revokeTolerant(meta.ID)
	})
	return nil
}

// neverNotOffered judges a token form that does not offer "Never": right
// only where the service refuses to make tokens that never expire (as
// DataHub's page hides "Never" then), and the scenario is then skipped,
// saying why; wrong where the service makes them.
func (w *world) neverNotOffered(b *runner.Page, name string) error {
	if p := w.person(name); p.token == "" {
		// Asked through the API with a token of the person's own.
		if err := w.giveToken(p); err != nil {
			return err
		}
	}
	if err := w.askForTokenLasting(name, "herself", "NO_EXPIRY"); err != nil {
		return err
	}
	if w.newToken != nil {
		return w.uiFail(b, "the token form does not offer Never, yet the service makes tokens that never expire")
	}
	if err := w.refusedAsBadRequestMakingNone(w.last); err != nil {
		return err
	}
	w.notRun, w.notRunReason = runner.StatusSkipped, noExpiryRefused
	return godog.ErrSkip
}

func (w *world) shownToken() (*shownToken, error) {
	if w.shown == nil {
		return nil, w.fail("no token was shown in the page")
	}
	return w.shown, nil
}

// expiryLengths are the feature's words for how long a token lasts.
var expiryLengths = map[string]time.Duration{
	"1 hour": time.Hour, "1 day": 24 * time.Hour, "7 days": 7 * 24 * time.Hour, "30 days": 30 * 24 * time.Hour,
	"90 days": 90 * 24 * time.Hour, "180 days": 180 * 24 * time.Hour, "365 days": 365 * 24 * time.Hour,
}

// tokenRowJS finds the list's row of the token named %q.
const tokenRowJS = `[...document.querySelectorAll('[data-testid="token-row"]')].find(r => r.getAttribute("data-token-name") === %q)`

// startRevoking clicks the token's Revoke and waits for the confirmation.
func (w *world) startRevoking(name string) (*runner.Page, error) {
	t, err := w.shownToken()
	if err != nil {
		return nil, err
	}
	b, err := w.openTokensPage(name)
	if err != nil {
		return nil, err
	}
	if err := w.untilTokenListed(b, t.name, true); err != nil {
		return b, err
	}
	clicked := false
	before := b.LoadCount()
	if err := b.Eval(fmt.Sprintf(`(() => { const r = %s; const e = r && r.querySelector('[data-testid="revoke-token-button"]'); if (e) e.click(); return !!e })()`, fmt.Sprintf(tokenRowJS, t.name)), &clicked); err != nil {
		return b, w.uiFail(b, "%v", err)
	}
	if !clicked {
		return b, w.uiFail(b, "the token %q has no Revoke control in the list", t.name)
	}
	if err := w.waitNewDocument(b, before, "clicking Revoke"); err != nil {
		return b, err
	}
	if err := b.Run(chromedp.WaitVisible(`[data-testid="revoke-confirmation"]`, chromedp.ByQuery)); err != nil {
		return b, w.uiFail(b, "Revoke asked for no confirmation: %v", err)
	}
	return b, nil
}

// formFieldsJS lists the token form's fields: name, type, value.
const formFieldsJS = `[...document.querySelectorAll('[data-testid="create-token-form"] input, [data-testid="create-token-form"] select, [data-testid="create-token-form"] textarea')].map(e => ({name: e.name, type: e.type, value: e.value}))`

// tokenFormFields are the fields a token form may have: none names a user.
var tokenFormFields = []string{"csrf_token", "name", "description", "duration"}

// addFields adds hidden fields to the token form.
func addFields(b *runner.Page, fields map[string]string) error {
	js, _ := json.Marshal(fields)
	return b.Eval(fmt.Sprintf(`(() => { const f = document.querySelector('[data-testid="create-token-form"]');
		for (const [k, v] of Object.entries(%s)) { const i = document.createElement("input"); i.type = "hidden"; i.name = k; i.value = v; f.appendChild(i) }
		return true })()`, js), new(bool))
}

// Steps: GraphiQL.

// graphiqlEditor is the CodeMirror of GraphiQL's query editor; headersEditor
// that of its headers editor.
const (
	graphiqlQueryEditor   = `.graphiql-query-editor .CodeMirror`
	graphiqlHeadersEditor = `.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror`
	graphiqlResult        = `.graphiql-response .result-window`
)

func (w *world) runInGraphiQL(name, query, headers string) error {
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	if err := b.Navigate(w.frontend() + "/api/graphiql"); err != nil {
		return w.uiFail(b, "opening GraphiQL: %v", err)
	}
	if err := b.Run(chromedp.WaitVisible(graphiqlQueryEditor, chromedp.ByQuery)); err != nil {
		return w.uiFail(b, "GraphiQL did not start (no query editor): %v", err)
	}
	// The editor of that kind that is on show (GraphiQL keeps hidden ones).
	set := func(sel, value string) error {
		var ok bool
		err := b.Eval(fmt.Sprintf(`(() => { const e = [...document.querySelectorAll(%q)].find(e => e.offsetParent !== null); if (e) e.CodeMirror.setValue(%q); return !!e })()`, sel, value), &ok)
		if err == nil && !ok {
			err = fmt.Errorf("no editor %s on show", sel)
		}
		return err
	}
	if err := set(graphiqlQueryEditor, query); err != nil {
		return w.uiFail(b, "typing the query into GraphiQL: %v", err)
	}
	if headers != "" {
		opened := false
		if err := b.Eval(`(() => { const t = [...document.querySelectorAll("button")].find(e => e.textContent.trim() === "Headers"); if (t) t.click(); return !!t })()`, &opened); err != nil || !opened {
			return w.uiFail(b, "GraphiQL has no Headers editor to open (%v)", err)
		}
		if err := b.Run(chromedp.WaitVisible(graphiqlHeadersEditor, chromedp.ByQuery)); err != nil {
			return w.uiFail(b, "GraphiQL's headers editor did not open: %v", err)
		}
		if err := set(graphiqlHeadersEditor, headers); err != nil {
			return w.uiFail(b, "typing into GraphiQL's headers editor: %v", err)
		}
	}
	if err := b.Run(chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery)); err != nil {
		return w.uiFail(b, "running the query: %v", err)
	}
	// Watched as the page changes (no fixed pauses): the result pane's
	// text, once it holds an answer.
	var out string
	result := fmt.Sprintf(`(() => { const e = document.querySelector(%q);
		const t = e && e.CodeMirror ? e.CodeMirror.getValue() : (e ? e.textContent : "");
		return t.includes('"data"') || t.includes('"errors"') ? t : false })()`, graphiqlResult+" .CodeMirror")
	if err := b.Run(chromedp.Poll(result, &out, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(runner.UITimeout))); err != nil {
		return w.uiFail(b, "GraphiQL showed no result within %s: %v", runner.UITimeout, err)
	}
	w.result = out
	return nil
}

// resultURN is the me.corpUser.urn of a GraphiQL result.
var resultURN = regexp.MustCompile(`"urn":\s*"([^"]+)"`)

func requestsStayedHome(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	home, err := url.Parse(w.frontend())
	if err != nil {
		return err
	}
	var away []string
	for _, r := range b.Seen() {
		u, err := url.Parse(r)
		if err != nil || u.Scheme == "data" || u.Scheme == "about" || u.Scheme == "blob" {
			continue
		}
		if u.Scheme != home.Scheme || u.Host != home.Host {
			away = append(away, r)
		}
	}
	if len(away) > 0 {
		return w.uiFail(b, "the page made requests to other origins: %s", strings.Join(away, ", "))
	}
	if len(b.Seen()) < 2 {
		return w.uiFail(b, "the page made no requests at all: was it loaded?")
	}
	return nil
}

// Steps: one session for the pages and the sign-in API (signin-08).
