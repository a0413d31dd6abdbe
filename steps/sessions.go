package steps

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// The steps of issue 22's rules: where signing in may lead, sign-in
// throttling, sessions that end at a password reset, and the Host a
// request names.

// securityState is what these steps keep between them.
type securityState struct {
	// earlier is the session a person held before setting a new password.
	earlier []*http.Cookie
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
	page, cookies, csrf := w.openSignInPageAt(who, link)
	if csrf == "" {
		w.addFailure(fmt.Sprintf("%s answered status %d with no sign-in form holding a CSRF token", page.what, page.status))
		return page
	}
	form := url.Values{"csrf_token": {csrf}, "username": {username}, "password": {password}}
	if next := formNext.FindSubmatch(page.body); next != nil {
		form.Set("next", html.UnescapeString(string(next[1])))
	}
	return w.postSignInForm(who, cookies, form)
}

// openSignInPage opens the frontend's sign-in page as a new browser: the
// answer, the cookies it set (as a Cookie header's pairs) and its form's
// CSRF token ("" when there is none).
func (w *world) openSignInPage(who string) (*answer, []string, string) {
	return w.openSignInPageAt(who, w.frontend()+"/login")
}

func (w *world) openSignInPageAt(who, link string) (*answer, []string, string) {
	page := w.send(caller{name: who, frontend: w.frontend()}, request{method: http.MethodGet, url: link})
	page.what = who + " opening the sign-in page"
	var cookies []string
	for _, c := range (&http.Response{Header: page.header}).Cookies() {
		w.secret(c.Value)
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	csrf := formCSRF.FindSubmatch(page.body)
	if page.status != http.StatusOK || csrf == nil {
		return page, cookies, ""
	}
	token := html.UnescapeString(string(csrf[1]))
	w.secret(token)
	return page, cookies, token
}

// sendSignInForm opens the sign-in page as a new browser and sends its
// form with username and password, and with *token for its CSRF token
// when token is not nil ("" leaves the field out).
func (w *world) sendSignInForm(who, username, password string, token *string) *answer {
	page, cookies, csrf := w.openSignInPage(who)
	if csrf == "" {
		w.addFailure(fmt.Sprintf("%s answered status %d with no sign-in form holding a CSRF token", page.what, page.status))
		return page
	}
	form := url.Values{"csrf_token": {csrf}, "username": {username}, "password": {password}}
	if token != nil {
		if *token == "" {
			form.Del("csrf_token")
		} else {
			form.Set("csrf_token", *token)
		}
	}
	return w.postSignInForm(who, cookies, form)
}

// postSignInForm posts the sign-in form with the browser's cookies; the
// answer is not followed.
func (w *world) postSignInForm(who string, cookies []string, form url.Values) *answer {
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

// sessionCaller sends requests to the frontend with cookies, as a browser
// holding them does.
func (w *world) sessionCaller(name string, cookies []*http.Cookie) caller {
	pairs := make([]string, 0, len(cookies))
	for _, c := range cookies {
		pairs = append(pairs, c.Name+"="+c.Value)
	}
	return caller{name: name, gms: w.suite.Target.GMS, frontend: w.suite.Target.Frontend, headers: map[string]string{"Cookie": strings.Join(pairs, "; ")}}
}

// maxGuesses is how many wrong passwords the suite sends before it
// concludes that the target does not throttle them.
const maxGuesses = 50

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
