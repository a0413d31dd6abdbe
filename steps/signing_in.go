package steps

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// registerSigningInSteps registers the steps of features/signing_in.feature.
func registerSigningInSteps(s stepRegistrar) {
	s.Step(`^`+who+` signs in to the frontend in a browser$`, signsIn)
	s.Step(`^someone signs in to the frontend in a browser with (.+)$`, someoneSignsInWith)
	s.Step(`^the sign-in page says the username or the password is wrong$`, loginSaysWrong)
	s.Step(`^the browser is not signed in$`, browserNotSignedIn)
	s.Step(`^the page shows that `+who+` is signed in$`, pageShowsSignedIn)
	s.Step(`^`+who+`'s browser is answered on the GraphQL endpoint as `+who+`$`, browserAnsweredAs)
	s.Step(`^`+who+`'s browser is refused on the GraphQL endpoint$`, browserRefused)
	s.Step(`^`+who+`'s browser reads `+own+` own user through the frontend's entity path$`, browserReadsOwnUser)
	s.Step(`^`+who+`'s browser creates a tag through the frontend's GraphQL endpoint$`, browserCreatesTag)
	s.Step(`^the cookies of `+who+`'s browser are kept$`, keepCookies)
	s.Step(`^`+who+` signs out in the page$`, signsOut)
	s.Step(`^the kept cookies are refused on the GraphQL endpoint$`, keptCookiesRefused)
	s.Step(`^no cookie of the frontend can be read by the page's scripts$`, noCookieReadable)
	s.Step(`^every cookie of the frontend is kept from other sites' requests$`, cookiesSameSite)
	s.Step(`^`+who+`'s browser holds the cookies of that session$`, browserHoldsAPISession)
	s.Step(`^after `+who+` signs out at the frontend's sign-out API in the browser, the access tokens page sends the browser to sign in$`, signsOutAtAPIInBrowser)
	s.Step(`^`+who+` signs in from a sign-in link that leads to another site, (.+)$`, signsInFromLink)
	s.Step(`^the sign-in sends the browser to a page of the frontend$`, signInStaysHome)
	s.Step(`^`+who+`'s browser follows a sign-in link that leads to another site, (.+)$`, followsSignInLink)
	s.Step(`^`+who+`'s right password is refused the same way, and signs no one in$`, rightPasswordThrottled)
	s.Step(`^`+who+` signs in with `+own+` password$`, signsInWithPassword)
	s.Step(`^`+who+`'s browser is rejected as unauthorized$`, isRejectedAsUnauthorized)
	s.Step(`^`+who+`'s sign-in form is sent (without its CSRF token|with a CSRF token made up|with the CSRF token of another browser's sign-in page|with the CSRF token of `+who+`'s signed-in page)$`, sendsSignInFormWithBadCSRF)
	s.Step(`^the sign-in form is refused, and no one is signed in$`, signInFormRefused)
}

func signsIn(ctx context.Context, name string) error {
	w := theWorld(ctx)
	_, err := w.signIn(w.person(name))
	return err
}

func someoneSignsInWith(ctx context.Context, attempt string) error {
	w := theWorld(ctx)
	ann := w.person("Ann")
	var username, password string
	switch attempt {
	case "Ann's username and a wrong password":
		username, password = ann.username, "not-"+ann.password
	case "a username no one has":
		username, password = w.unique("nobody"), "pw-"+randomID(16)
	case "Ann's username and no password":
		username, password = ann.username, ""
	default:
		return w.fail("unknown sign-in attempt %q", attempt)
	}
	w.attempt = attempt
	b, err := w.browserOf("someone")
	if err != nil {
		return err
	}
	if password == "" {
		// The form asks for a password; a browser would not send it empty.
		if err := b.Run(chromedp.Navigate(w.frontend() + "/login")); err != nil {
			return w.uiFail(b, "opening the sign-in page: %v", err)
		}
		if err := b.Eval(`document.querySelectorAll("[required]").forEach(e => e.removeAttribute("required")), true`, new(bool)); err != nil {
			return w.uiFail(b, "%v", err)
		}
		if err = b.Run(chromedp.SetValue(`[data-testid="login-username"]`, username, chromedp.ByQuery)); err == nil {
			err = w.click(b, `[data-testid="login-submit"]`, "Sign in")
		}
	} else {
		err = w.submitLogin(b, username, password)
	}
	if err != nil {
		return err
	}
	w.loginError, err = text(b, `[data-testid="login-error"]`)
	return err
}

// loginSaysWrong checks that the sign-in page refused the attempt with a
// message, the same one it gives a username no one has: it never says
// which of the two was wrong.
func loginSaysWrong(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	if w.loginError == "" {
		return w.uiFail(b, "the sign-in page shows no message saying the attempt failed")
	}
	lower := strings.ToLower(w.loginError)
	if !strings.Contains(lower, "username") || !strings.Contains(lower, "password") {
		return w.uiFail(b, "the sign-in page says %q, which does not name both the username and the password as what may be wrong", w.loginError)
	}
	// The same words for the other kind of failure: a username no one has
	// after a wrong password, a wrong password after anything else.
	other, err := w.browserOf("someone else")
	if err != nil {
		return err
	}
	ann := w.person("Ann")
	if err := w.givePassword(ann); err != nil {
		return err
	}
	otherKind := "a wrong password for Ann"
	username, password := ann.username, "also-not-"+ann.password
	if w.attempt == "Ann's username and a wrong password" {
		otherKind = "a username no one has"
		username, password = w.unique("nobody"), "pw-"+randomID(16)
	}
	if err := w.submitLogin(other, username, password); err != nil {
		return err
	}
	otherSays, err := text(other, `[data-testid="login-error"]`)
	if err != nil {
		return err
	}
	w.current = b
	if w.loginError != otherSays {
		return w.uiFail(b, "the sign-in page tells failures apart: %q here, %q for %s", w.loginError, otherSays, otherKind)
	}
	return nil
}

func browserNotSignedIn(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	if b == nil {
		return w.fail("no browser was used")
	}
	a, err := w.fetchGraphQL(b, "the browser", w.suite.docs.me, nil)
	if err != nil {
		return err
	}
	if a.status != http.StatusUnauthorized {
		return w.uiFail(b, "%s answered status %d, expected 401: the browser holds a session", a.what, a.status)
	}
	if err := b.Navigate(w.frontend() + "/settings/tokens"); err != nil {
		return w.uiFail(b, "opening the access tokens page: %v", err)
	}
	return atSignInPage(ctx)
}

func pageShowsSignedIn(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	got, err := text(b, `[data-testid="signed-in-user"]`)
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	if got != w.person(name).username {
		return w.uiFail(b, "the page names %q as signed in, expected %s's username %q", got, name, w.person(name).username)
	}
	return nil
}

func browserAnsweredAs(ctx context.Context, name, as string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	a, err := w.fetchGraphQL(b, name, w.suite.docs.me, nil)
	if err != nil {
		return err
	}
	return w.answerNames(a, w.person(as).urn)
}

// browserReadsOwnUser reads the person's corpuser entity from the page, at
// the frontend's /api/gms/entities: the session stands for the user there
// as on GraphQL.
func browserReadsOwnUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	p := w.person(name)
	path := "/api/gms/entities/" + url.PathEscape(p.urn)
	var f fetchAnswer
	js := fmt.Sprintf(`fetch(%q, {credentials: "same-origin"}).then(r => r.text().then(t => ({status: r.status, contentType: r.headers.get("Content-Type") || "", body: t})))`, path)
	if err := b.Eval(js, &f); err != nil {
		return w.uiFail(b, "reading %s from %s's page: %v", path, name, err)
	}
	if f.Status != http.StatusOK || !strings.Contains(f.Body, `"urn":"`+p.urn+`"`) {
		return w.uiFail(b, "GET %s from %s's page answered %d: %s; expected %s's user", path, name, f.Status, truncate(f.Body), name)
	}
	return nil
}

func browserRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	return w.eventually(name+"'s browser being refused", func() (bool, error) {
		a, err := w.fetchGraphQL(b, name, w.suite.docs.me, nil)
		if err != nil {
			return false, err
		}
		if a.status == http.StatusUnauthorized || a.status == http.StatusForbidden {
			return true, nil
		}
		return false, w.fail("%s answered status %d, expected a refusal (401 or 403)", a.what, a.status)
	})
}

func browserCreatesTag(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	t := w.newTag()
	w.tag = t
	w.undoTag(t)
	a, err := w.fetchGraphQL(b, name, w.suite.docs.createTag, map[string]any{"input": map[string]any{"id": t.id, "name": t.name, "description": t.description}})
	if err != nil {
		return err
	}
	a.what = fmt.Sprintf("%s's browser creating the tag %s", name, t.urn)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.last = a
	return nil
}

func keepCookies(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	cs, err := b.Cookies(w.frontend())
	if err != nil {
		return w.uiFail(b, "reading the browser's cookies: %v", err)
	}
	if len(cs) == 0 {
		return w.uiFail(b, "%s's browser holds no cookie of the frontend", name)
	}
	for _, c := range cs {
		w.secret(c.Value)
	}
	w.kept = cs
	return nil
}

func signsOut(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	if err := b.Navigate(w.frontend() + "/settings/tokens"); err != nil {
		return w.uiFail(b, "opening the access tokens page: %v", err)
	}
	return w.click(b, `[data-testid="sign-out-button"]`, "Sign out")
}

func keptCookiesRefused(ctx context.Context) error {
	w := theWorld(ctx)
	if len(w.kept) == 0 {
		return w.fail("no cookies were kept")
	}
	var pairs []string
	for _, c := range w.kept {
		pairs = append(pairs, c.Name+"="+c.Value)
	}
	c := caller{name: "someone with the kept cookies", frontend: w.frontend(), headers: map[string]string{"Cookie": strings.Join(pairs, "; ")}}
	a := w.graphqlAt(c, w.frontend()+"/api/graphql", w.suite.docs.me, nil)
	if a.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401: the session outlived signing out", a.what, a.status)
	}
	return nil
}

func noCookieReadable(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	var cookies string
	if err := b.Eval(`document.cookie`, &cookies); err != nil {
		return w.uiFail(b, "%v", err)
	}
	if cookies != "" {
		var names []string
		for _, kv := range strings.Split(cookies, ";") {
			n, _, _ := strings.Cut(strings.TrimSpace(kv), "=")
			names = append(names, n)
		}
		return w.uiFail(b, "the page's scripts can read the cookies %s: they are not HttpOnly", strings.Join(names, ", "))
	}
	cs, err := b.Cookies(w.frontend())
	if err != nil {
		return w.uiFail(b, "reading the browser's cookies: %v", err)
	}
	if len(cs) == 0 {
		return w.uiFail(b, "the browser holds no cookie of the frontend after signing in: where is the session?")
	}
	return nil
}

func cookiesSameSite(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	cs, err := b.Cookies(w.frontend())
	if err != nil {
		return w.uiFail(b, "reading the browser's cookies: %v", err)
	}
	for _, c := range cs {
		if c.SameSite != network.CookieSameSiteLax && c.SameSite != network.CookieSameSiteStrict {
			return w.uiFail(b, "the cookie %s is SameSite=%q: other sites' requests would carry it (want Lax or Strict)", c.Name, c.SameSite)
		}
	}
	return nil
}

// browserHoldsAPISession gives p's browser the cookies p's client was given
// by the sign-in API, and opens the access tokens page with them.
func browserHoldsAPISession(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	cs := w.clientOf(p).cookies()
	if len(cs) == 0 {
		return w.fail("%s's client holds no cookie of the frontend", name)
	}
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if err := b.Run(network.SetCookie(c.Name, c.Value).WithURL(w.frontend()).WithPath("/").WithHTTPOnly(true)); err != nil {
			return w.uiFail(b, "giving %s's browser the cookie %s: %v", name, c.Name, err)
		}
	}
	if err := b.Navigate(w.frontend() + tokensPath); err != nil {
		return w.uiFail(b, "opening the access tokens page: %v", err)
	}
	return nil
}

// signsOutAtAPIInBrowser opens the frontend's /logOut in p's browser, as
// DataHub's web app signs out, then the access tokens page, which must
// send the browser to sign in.
func signsOutAtAPIInBrowser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	if err := b.Navigate(w.frontend() + "/logOut"); err != nil {
		return w.uiFail(b, "opening %s/logOut: %v", w.frontend(), err)
	}
	if err := b.Navigate(w.frontend() + tokensPath); err != nil {
		return w.uiFail(b, "opening the access tokens page: %v", err)
	}
	return atSignInPage(ctx)
}

// signsInFromLink signs name in through the sign-in page opened from a
// link whose next parameter names another site.
func signsInFromLink(ctx context.Context, name, how string) error {
	w := theWorld(ctx)
	link, err := w.signInLink(how)
	if err != nil {
		return err
	}
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	w.last = w.signInThroughForm(name, link, p.username, p.password)
	return w.checkpoint()
}

// signInStaysHome checks that the sign-in answered with a redirect to a
// page of the frontend, its Location read as a browser reads it, and a
// session.
func signInStaysHome(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status < 300 || a.status > 399 {
		return w.fail("%s answered status %d, expected a redirect", a.what, a.status)
	}
	home, err := url.Parse(w.frontend())
	if err != nil {
		return err
	}
	loc := a.header.Get("Location")
	to, err := browserResolve(home, loc)
	if err != nil {
		return w.fail("%s answered Location %q, which a browser cannot follow: %v", a.what, loc, err)
	}
	if to.Scheme != home.Scheme || to.Host != home.Host {
		return w.fail("%s answered Location %q, which a browser follows to %s, another site", a.what, loc, to.Redacted())
	}
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Value != "" && c.MaxAge >= 0 {
			return nil
		}
	}
	return w.fail("%s set no cookie: no one was signed in", a.what)
}

// followsSignInLink has name's browser, signed in already, open a sign-in
// link whose next parameter names another site.
func followsSignInLink(ctx context.Context, name, how string) error {
	w := theWorld(ctx)
	link, err := w.signInLink(how)
	if err != nil {
		return err
	}
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	home, err := url.Parse(w.frontend())
	if err != nil {
		return err
	}
	// Where the link leads is for the next steps to judge: the page either
	// loads a document, or (another site being unreachable) shows none,
	// having asked for it.
	before, asked := b.LoadCount(), len(b.Seen())
	go func() { _ = b.Navigate(link) }()
	for deadline := time.Now().Add(runner.UITimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b.LoadCount() > before {
			return nil
		}
		for _, r := range b.Seen()[asked:] {
			if u, err := url.Parse(r); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != home.Host {
				return nil
			}
		}
	}
	return w.uiFail(b, "opening %s led to no page within %s", link, runner.UITimeout)
}

func rightPasswordThrottled(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	a := w.signInThroughForm("someone", w.frontend()+"/login", p.username, p.password)
	a.what = fmt.Sprintf("%s's right password, after the wrong ones", name)
	return w.throttled(a)
}

func signsInWithPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	a := w.signInThroughForm(name, w.frontend()+"/login", p.username, p.password)
	a.what = fmt.Sprintf("%s signing in with %s password", name, "their")
	if a.status != http.StatusSeeOther && a.status != http.StatusFound {
		return w.fail("%s answered status %d, expected a redirect into the site", a.what, a.status)
	}
	var session []*http.Cookie
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Value != "" && c.MaxAge >= 0 {
			session = append(session, c)
		}
	}
	if len(session) == 0 {
		return w.fail("%s set no cookie", a.what)
	}
	return w.answerNames(w.askWhoAmI(w.sessionCaller(name+"'s session", session), w.frontend()+"/api/graphql"), p.urn)
}

// The sign-in form's own CSRF token (signin-12): before anyone is signed
// in, the form's token is bound to the browser that opened the page, so
// that another site cannot sign a browser in as someone else (login CSRF).
// These steps drive the form over HTTP as a browser sends it.

// sendsSignInFormWithBadCSRF opens the sign-in page as a new browser and
// sends its form with name's right password, but with the CSRF token the
// step names instead of the page's own.
func sendsSignInFormWithBadCSRF(ctx context.Context, name, how, other string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	var token string
	switch {
	case how == "without its CSRF token":
	case how == "with a CSRF token made up":
		token = randomID(43)
	case how == "with the CSRF token of another browser's sign-in page":
		page, _, csrf := w.openSignInPage("another browser")
		if csrf == "" {
			return w.fail("%s answered status %d with no sign-in form holding a CSRF token", page.what, page.status)
		}
		token = csrf
	default:
		o := w.person(other)
		if err := w.givePassword(o); err != nil {
			return err
		}
		page := w.send(w.sessionCaller(other+"'s browser", o.session), request{method: http.MethodGet, url: w.frontend() + "/settings/tokens"})
		page.what = other + "'s browser opening the access tokens page"
		m := formCSRF.FindSubmatch(page.body)
		if page.status != http.StatusOK || m == nil {
			return w.fail("%s answered status %d with no form holding a CSRF token", page.what, page.status)
		}
		token = html.UnescapeString(string(m[1]))
		w.secret(token)
	}
	w.last = w.sendSignInForm(name+"'s browser", p.username, p.password, &token)
	return w.checkpoint()
}

// signInFormRefused: the form is refused (4xx), the answer sets no session,
// and the cookies the browser holds then are no session either.
func signInFormRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status < 400 || a.status > 499 {
		return w.fail("%s answered status %d, expected a refusal (403)", a.what, a.status)
	}
	cookies := (&http.Response{Header: a.header}).Cookies()
	for _, c := range cookies {
		if c.Name == "PLAY_SESSION" && c.Value != "" && c.MaxAge >= 0 {
			return w.fail("%s set the session cookie: someone was signed in", a.what)
		}
	}
	me := w.askWhoAmI(w.sessionCaller("the browser that sent the form", cookies), w.frontend()+"/api/v2/graphql")
	if me.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401: the browser holds a session", me.what, me.status)
	}
	return nil
}
