package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The steps of issue 22's rules: where signing in may lead, sign-in
// throttling, sessions that end at a password reset, and the Host a
// request names.

// securityState is what these steps keep between them.
type securityState struct {
	// earlier is the session a person held before setting a new password.
	earlier []*http.Cookie
}

func registerSecuritySteps(s stepRegistrar) {
	s.Step(`^`+who+` signs in from a sign-in link that leads to another site, (.+)$`, signsInFromLink)
	s.Step(`^the sign-in sends the browser to a page of the frontend$`, signInStaysHome)
	s.Step(`^`+who+`'s browser follows a sign-in link that leads to another site, (.+)$`, followsSignInLink)
	s.Step(`^(the administrator|someone without a token) creates a tag through the (metadata service|frontend) in a request that names another host$`, createsTagNamingAnotherHost)
	s.Step(`^the request is refused as sent to a host the service does not answer to$`, refusedAsMisdirected)
	s.Step(`^`+who+` sets a new password with a new reset token$`, setsNewPassword)
	s.Step(`^someone signs in( at the sign-in API)? as `+who+` with wrong passwords until the frontend stops checking them$`, guessesUntilThrottled)
	s.Step(`^at the sign-in API, `+who+`'s right password is refused the same way, and signs no one in$`, rightPasswordThrottledAtAPI)
	s.Step(`^`+who+` signs in at the sign-in API with `+own+` password$`, signsInAtAPIWithPassword)
	s.Step(`^the frontend answers status 429 and says when to try again$`, throttledSaysWhen)
	s.Step(`^`+who+`'s right password is refused the same way, and signs no one in$`, rightPasswordThrottled)
	s.Step(`^`+who+` signs in with `+own+` password$`, signsInWithPassword)
	s.Step(`^the session `+who+` held before is refused on the GraphQL endpoint$`, earlierSessionRefused)
	s.Step(`^the session the new password opened is answered as `+who+`$`, newSessionAnswered)
}

// elsewhere is where a sign-in link may try to send the browser after
// signing in, each written as browsers read it: another origin on a
// loopback address where nothing answers (on a port browsers do not
// refuse), so that no name is looked up and nothing leaves the machine.
var elsewhere = map[string]string{
	"named with its scheme":                     "http://127.0.0.2:8/",
	"named without its scheme":                  "//127.0.0.2:8/",
	"named after a backslash":                   `/\127.0.0.2:8/`,
	"named after a dot segment and a backslash": `/./\127.0.0.2:8/`,
	"named after a tab":                         "/\t/127.0.0.2:8/",
}

func (w *world) signInLink(how string) (string, error) {
	next, ok := elsewhere[how]
	if !ok {
		return "", w.fail("no sign-in link leads to another site %q", how)
	}
	return w.frontend() + "/login?next=" + url.QueryEscape(next), nil
}

var (
	formCSRF = regexp.MustCompile(`name="csrf_token" value="([^"]*)"`)
	formNext = regexp.MustCompile(`name="next" value="([^"]*)"`)
)

// signInThroughForm signs username in as a browser does through the page
// at link: it opens the page, keeps its cookie, and sends the form as the
// page holds it. The answer is not followed: the next step judges it.
func (w *world) signInThroughForm(who, link, username, password string) *answer {
	page := w.send(caller{name: who, frontend: w.frontend()}, request{method: http.MethodGet, url: link})
	page.what = who + " opening the sign-in page"
	csrf, next := formCSRF.FindSubmatch(page.body), formNext.FindSubmatch(page.body)
	if page.status != http.StatusOK || csrf == nil {
		w.addFailure(fmt.Sprintf("%s answered status %d with no sign-in form holding a CSRF token", page.what, page.status))
		return page
	}
	var cookies []string
	for _, c := range (&http.Response{Header: page.header}).Cookies() {
		w.secret(c.Value)
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	form := url.Values{"csrf_token": {html.UnescapeString(string(csrf[1]))}, "username": {username}, "password": {password}}
	if next != nil {
		form.Set("next", html.UnescapeString(string(next[1])))
	}
	a := w.send(caller{name: who, frontend: w.frontend()}, request{
		method: http.MethodPost, url: w.frontend() + "/login", contentType: "application/x-www-form-urlencoded",
		body: []byte(form.Encode()), headers: map[string]string{"Cookie": strings.Join(cookies, "; ")}, noRedirect: true,
	})
	a.what = who + " signing in through the sign-in form"
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		w.secret(c.Value)
	}
	return a
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

// browserResolve resolves a Location against base as a browser's URL
// parser does for http(s) (WHATWG URL Standard, basic URL parser): leading
// and trailing C0 controls and spaces are dropped, tabs and newlines
// anywhere are removed, and a backslash is a slash.
func browserResolve(base *url.URL, loc string) (*url.URL, error) {
	s := strings.TrimFunc(loc, func(r rune) bool { return r <= 0x20 })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(s)
	ref, err := url.Parse(s)
	if err != nil {
		// Go refuses what a browser keeps as it is (a stray %, say); a path
		// on the same site is all that matters here.
		if strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") {
			return base.ResolveReference(&url.URL{Path: "/"}), nil
		}
		return nil, err
	}
	return base.ResolveReference(ref), nil
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
	before, asked := b.loadCount(), len(b.seen())
	go func() { _ = b.navigate(link) }()
	for deadline := time.Now().Add(uiTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b.loadCount() > before {
			return nil
		}
		for _, r := range b.seen()[asked:] {
			if u, err := url.Parse(r); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != home.Host {
				return nil
			}
		}
	}
	return w.uiFail(b, "opening %s led to no page within %s", link, uiTimeout)
}

// createsTagNamingAnotherHost sends a tag creation to the tier's address
// with a Host header naming another site, as a page of that site sends it
// once its name resolves to the service.
func createsTagNamingAnotherHost(ctx context.Context, who, tier string) error {
	w := theWorld(ctx)
	c := w.admin()
	if who == "someone without a token" {
		c = w.anonymous()
	}
	endpoint := c.gms + "/api/graphql"
	if tier == "frontend" {
		endpoint = c.frontend + "/api/graphql"
	}
	t := w.newTag()
	w.tag = t
	body, _ := json.Marshal(graphQLRequest{Query: w.suite.docs.createTag, Variables: map[string]any{"input": map[string]any{"id": t.id, "name": t.name}}})
	host := w.unique("rebound") + ".example"
	if u, err := url.Parse(endpoint); err == nil && u.Port() != "" {
		host += ":" + u.Port()
	}
	a := w.send(c, request{method: http.MethodPost, url: endpoint, contentType: "application/json", body: body, host: host})
	a.what = fmt.Sprintf("%s creating the tag %s through the %s, naming the host %s", c.name, t.urn, tier, host)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.undoTag(t)
	w.last = a
	return w.checkpoint()
}

// refusedAsMisdirected: the answer is 421 (Misdirected Request) or 400,
// and the attempt changed nothing.
func refusedAsMisdirected(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusMisdirectedRequest && a.status != http.StatusBadRequest {
		return w.fail("%s answered status %d, expected 421 or 400", a.what, a.status)
	}
	return a.noEffect()
}

// sessionCaller sends requests to the frontend with cookies, as a browser
// holding them does.
func (w *world) sessionCaller(name string, cookies []*http.Cookie) caller {
	pairs := make([]string, 0, len(cookies))
	for _, c := range cookies {
		pairs = append(pairs, c.Name+"="+c.Value)
	}
	return caller{name: name, gms: w.suite.target.GMS, frontend: w.suite.target.Frontend, headers: map[string]string{"Cookie": strings.Join(pairs, "; ")}}
}

// setsNewPassword has the administrator make a reset token for name, who
// sets a new password with it. The session the first password opened is
// checked to work first, and kept; the one the new password opens too.
func setsNewPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	if len(p.session) == 0 {
		return w.fail("setting %s's first password opened no session", name)
	}
	before := w.sessionCaller(name+"'s earlier session", p.session)
	if err := w.answerNames(w.askWhoAmI(before, w.suite.target.Frontend+"/api/graphql"), p.urn); err != nil {
		return err
	}
	w.earlier = p.session
	admin := w.admin()
	a := w.graphql(admin, w.suite.docs.createResetToken, map[string]any{"input": map[string]any{"userUrn": p.urn}})
	a.what = fmt.Sprintf("%s making a new password reset token for %s", admin.name, name)
	password, cookies, err := w.setPasswordWithResetToken(a, p, admin.frontend)
	if err != nil {
		return err
	}
	p.password, p.session = password, cookies
	return nil
}

func earlierSessionRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if len(w.earlier) == 0 {
		return w.fail("no earlier session of %s was kept", name)
	}
	a := w.askWhoAmI(w.sessionCaller(name+"'s earlier session", w.earlier), w.suite.target.Frontend+"/api/graphql")
	if a.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401: the session outlived the password that opened it", a.what, a.status)
	}
	return nil
}

func newSessionAnswered(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if len(p.session) == 0 {
		return w.fail("setting %s's new password opened no session", name)
	}
	return w.answerNames(w.askWhoAmI(w.sessionCaller(name+"'s new session", p.session), w.suite.target.Frontend+"/api/graphql"), p.urn)
}

// maxGuesses is how many wrong passwords the suite sends before it
// concludes that the target does not throttle them.
const maxGuesses = 50

// guessesUntilThrottled sends wrong passwords for name, through the
// sign-in form or DataHub's sign-in API (/logIn), until an answer other
// than a refusal of the password comes (the form refuses one with 401,
// the API with 400).
func guessesUntilThrottled(ctx context.Context, api, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	for i := 1; i <= maxGuesses; i++ {
		wrong := "not-" + p.password + "-" + randomID(4)
		w.secret(wrong)
		var a *answer
		refused := http.StatusUnauthorized
		if api != "" {
			a, refused = w.signInAt(newAPIClient("someone", w.frontend()), map[string]string{"username": p.username, "password": wrong}), http.StatusBadRequest
		} else {
			a = w.signInThroughForm("someone", w.frontend()+"/login", p.username, wrong)
		}
		a.what = fmt.Sprintf("wrong password %d for %s", i, name)
		w.last = a
		if a.status != refused {
			return w.checkpoint()
		}
	}
	return w.fail("%d wrong passwords for %s were each refused as wrong: nothing throttles them", maxGuesses, name)
}

// throttled checks that a is a 429 that says when to try again (RFC 9110
// section 10.2.3: seconds, or an HTTP date) and sets no session.
func (w *world) throttled(a *answer) error {
	if a.status != http.StatusTooManyRequests {
		return w.fail("%s answered status %d, expected 429", a.what, a.status)
	}
	ra := a.header.Get("Retry-After")
	if n, err := strconv.Atoi(ra); err == nil {
		if n <= 0 {
			return w.fail("%s answered Retry-After %q: not a time to try again", a.what, ra)
		}
	} else if _, err := http.ParseTime(ra); err != nil {
		return w.fail("%s answered Retry-After %q, which is neither seconds nor an HTTP date", a.what, ra)
	}
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name != "" && c.Value != "" && c.MaxAge >= 0 && strings.Contains(strings.ToLower(c.Name), "session") {
			return w.fail("%s set the cookie %s: someone was signed in", a.what, c.Name)
		}
	}
	return nil
}

func throttledSaysWhen(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.throttled(a)
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

func rightPasswordThrottledAtAPI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c := newAPIClient("someone", w.frontend())
	a := w.signInAt(c, map[string]string{"username": p.username, "password": p.password})
	a.what = fmt.Sprintf("%s's right password at the sign-in API, after the wrong ones", name)
	if err := w.throttled(a); err != nil {
		return err
	}
	return w.notSignedIn(c)
}

func signsInAtAPIWithPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	return w.signsInAs(p.username, p.password, p.urn)
}
