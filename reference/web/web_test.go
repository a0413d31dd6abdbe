package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/internal/syncbuf"
	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/jwt"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

var testDB *postgres.DB

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &testDB)) }

var root = reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})

// site is the pages over a real database, served by httptest, and a user
// with a password.
type site struct {
	svc      *reference.Service
	srv      *httptest.Server
	username string
	password string
	logs     *syncbuf.Buffer // what the pages logged
}

func newSite(t *testing.T, tls bool) *site {
	t.Helper()
	return newSiteOn(t, tls, testDB, true)
}

// newSiteOn is a site over store, with token authentication on or off.
func newSiteOn(t *testing.T, tls bool, store reference.Store, authEnabled bool) *site {
	t.Helper()
	return newSiteWith(t, tls, store, reference.Config{AuthEnabled: authEnabled}, "")
}

// newSiteWith is a site over store with the service configured as cfg
// (its codec and salt set here); when client is not "", every request
// reaches the pages from that address, as the transport names it.
func newSiteWith(t *testing.T, tls bool, store reference.Store, cfg reference.Config, client string) *site {
	t.Helper()
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Codec, cfg.Salt = codec, []byte("salt")
	svc := reference.NewService(store, cfg)
	if _, err := svc.Bootstrap(context.Background(), "root password for the web tests"); err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	p, err := New(svc, []byte(strings.Repeat("c", 32)), slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	p.Mount(mux)
	var h http.Handler = mux
	if client != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mux.ServeHTTP(w, r.WithContext(reference.NewContextWithClient(r.Context(), reference.Client{Addr: client})))
		})
	}
	s := &site{svc: svc, username: "web-" + uuid.NewString()[:8], password: "pw-" + uuid.NewString(), logs: logs}
	if tls {
		s.srv = httptest.NewTLSServer(h)
	} else {
		s.srv = httptest.NewServer(h)
	}
	t.Cleanup(s.srv.Close)
	// A native user, as DataHub makes them: invited, signed up.
	invite, err := svc.GetInviteToken(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignUp(context.Background(), reference.SignUpInput{FullName: "Web Test", Email: s.username, Password: s.password, InviteToken: invite}); err != nil {
		t.Fatal(err)
	}
	return s
}

// browser is a client with cookies that does not follow redirects.
func (s *site) browser(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := *s.srv.Client() // a copy: each browser its own cookies
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// get fetches path and returns the answer and the CSRF token of its form.
func (s *site) get(t *testing.T, c *http.Client, path string) (*http.Response, string, string) {
	t.Helper()
	resp, err := c.Get(s.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	csrf := ""
	if m := csrfField.FindSubmatch(b); m != nil {
		csrf = string(m[1])
	}
	return resp, string(b), csrf
}

func (s *site) post(t *testing.T, c *http.Client, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(s.srv.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// signedInAt is a browser signed in at path, and the CSRF token of its form.
func (s *site) signedInAt(t *testing.T, path string) (*http.Client, string) {
	t.Helper()
	c := s.browser(t)
	s.signIn(t, c)
	_, _, csrf := s.get(t, c, path)
	return c, csrf
}

// signIn signs in through the form and returns the session cookie.
func (s *site) signIn(t *testing.T, c *http.Client) *http.Cookie {
	t.Helper()
	_, _, csrf := s.get(t, c, "/login")
	resp, body := s.post(t, c, "/login", url.Values{"csrf_token": {csrf}, "username": {s.username}, "password": {s.password}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in answered %d: %s", resp.StatusCode, body)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == SessionCookie {
			return ck
		}
	}
	t.Fatalf("sign-in set no session cookie")
	return nil
}

func (s *site) tokens(t *testing.T) int {
	t.Helper()
	list, _, err := s.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {reference.UserURN(s.username).String()}}})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

func TestSessionCookieIsHttpOnlyLaxAndSecureOverTLS(t *testing.T) {
	for _, overTLS := range []bool{false, true} {
		s := newSite(t, overTLS)
		ck := s.signIn(t, s.browser(t))
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure != overTLS || ck.Expires.IsZero() {
			t.Errorf("over TLS %v: session cookie %+v: want HttpOnly, SameSite=Lax, Path=/, Secure only over TLS, an expiry", overTLS, ck)
		}
	}
}

func TestWrongCredentialsSayOneThingAndSignNoOneIn(t *testing.T) {
	s := newSite(t, false)
	var bodies []string
	for _, creds := range [][2]string{{s.username, "wrong"}, {"nobody-" + s.username, s.password}, {s.username, ""}} {
		c := s.browser(t)
		_, _, csrf := s.get(t, c, "/login")
		resp, body := s.post(t, c, "/login", url.Values{"csrf_token": {csrf}, "username": {creds[0]}, "password": {creds[1]}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%v: status %d, want 401", creds[0], resp.StatusCode)
		}
		for _, ck := range resp.Cookies() {
			if ck.Name == SessionCookie && ck.Value != "" {
				t.Errorf("%v: a session cookie was set", creds[0])
			}
		}
		m := regexp.MustCompile(`data-testid="login-error">([^<]*)<`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no error on the page: %s", body)
		}
		bodies = append(bodies, m[1])
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("failures are told apart: %q and %q", bodies[0], b)
		}
	}
}

func TestFormsWithoutTheirCSRFTokenChangeNothing(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	// Signing in without the token: refused, no session.
	s.get(t, c, "/login")
	resp, _ := s.post(t, c, "/login", url.Values{"username": {s.username}, "password": {s.password}})
	if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Errorf("sign-in without a CSRF token: %d, cookies %v; want 403 and none", resp.StatusCode, resp.Cookies())
	}
	s.signIn(t, c)
	_, _, csrf := s.get(t, c, "/settings/tokens?new=1")
	other := s.browser(t)
	s.signIn(t, other)
	_, _, otherCSRF := s.get(t, other, "/settings/tokens?new=1")
	if csrf == "" || otherCSRF == "" || csrf == otherCSRF {
		t.Fatalf("CSRF tokens %q and %q: want one per session", csrf, otherCSRF)
	}
	for name, token := range map[string]string{"none": "", "another session's": otherCSRF, "a made-up one": csrf + "x"} {
		resp, _ := s.post(t, c, "/settings/tokens", url.Values{"csrf_token": {token}, "name": {"t"}, "duration": {"ONE_HOUR"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("token form with %s CSRF token: %d, want 403", name, resp.StatusCode)
		}
	}
	if n := s.tokens(t); n != 0 {
		t.Fatalf("refused forms made %d tokens", n)
	}
	// The right token makes one; revoking and signing out need theirs too.
	resp, body := s.post(t, c, "/settings/tokens", url.Values{"csrf_token": {csrf}, "name": {"t"}, "duration": {"ONE_HOUR"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="new-token-value"`) || s.tokens(t) != 1 {
		t.Fatalf("token form with its CSRF token: %d, %d tokens", resp.StatusCode, s.tokens(t))
	}
	list, _, _ := s.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {reference.UserURN(s.username).String()}}})
	if resp, _ := s.post(t, c, "/settings/tokens/revoke", url.Values{"id": {list[0].ID}}); resp.StatusCode != http.StatusForbidden || s.tokens(t) != 1 {
		t.Errorf("revoke without a CSRF token: %d, %d tokens left", resp.StatusCode, s.tokens(t))
	}
	if resp, _ := s.post(t, c, "/logout", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without a CSRF token: %d, want 403", resp.StatusCode)
	}
	if resp, _, _ := s.get(t, c, "/settings/tokens"); resp.StatusCode != http.StatusOK {
		t.Errorf("the session ended on a refused sign-out: %d", resp.StatusCode)
	}
}

func TestSignOutEndsTheSession(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	ck := s.signIn(t, c)
	_, _, csrf := s.get(t, c, "/settings/tokens")
	resp, _ := s.post(t, c, "/logout", url.Values{"csrf_token": {csrf}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("sign-out: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, err := s.svc.Authenticate(context.Background(), ck.Value); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("the signed-out session still authenticates: %v", err)
	}
	// The browser is told to forget the cookie too, with the attributes it
	// was set with (a cookie is only replaced by one of the same path).
	var cleared *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == SessionCookie {
			cleared = c
		}
	}
	if cleared == nil || cleared.Value != "" || cleared.MaxAge >= 0 || cleared.Path != "/" || !cleared.HttpOnly {
		t.Errorf("sign-out's session cookie: %+v; want it emptied and expired, Path=/, HttpOnly", cleared)
	}
	if resp, _, _ := s.get(t, c, "/settings/tokens"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the tokens page after sign-out: %d, want a redirect to sign in", resp.StatusCode)
	}
}

func TestTokenFormWithoutANameSaysSoAndMakesNothing(t *testing.T) {
	s := newSite(t, false)
	c, csrf := s.signedInAt(t, "/settings/tokens?new=1")
	for _, name := range []string{"", "   "} {
		resp, body := s.post(t, c, "/settings/tokens", url.Values{"csrf_token": {csrf}, "name": {name}, "description": {"d"}, "duration": {"ONE_HOUR"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Give the token a name.") || strings.Contains(body, `data-testid="new-token-value"`) {
			t.Errorf("name %q: %d, want 400 saying to give a name and no token shown:\n%s", name, resp.StatusCode, body)
		}
		if n := s.tokens(t); n != 0 {
			t.Fatalf("name %q: %d token(s) made", name, n)
		}
	}
}

func TestSignedOutIsSentToSignIn(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	resp, _, _ := s.get(t, c, "/settings/tokens?new=1")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next=%2Fsettings%2Ftokens%3Fnew%3D1" {
		t.Errorf("signed out: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = s.post(t, c, "/settings/tokens", url.Values{"name": {"t"}})
	if resp.StatusCode != http.StatusUnauthorized || s.tokens(t) != 0 {
		t.Errorf("a signed-out post: %d, %d tokens", resp.StatusCode, s.tokens(t))
	}
}

func TestSignInGoesOnlyToThisSite(t *testing.T) {
	for next, want := range map[string]string{
		"/settings/tokens?new=1":   "/settings/tokens?new=1",
		"//evil.example/x":         "/settings/tokens",
		"https://evil.example/":    "/settings/tokens",
		`/\evil.example`:           "/settings/tokens",
		"":                         "/settings/tokens",
		"settings/tokens":          "/settings/tokens",
		"/api/graphiql":            "/api/graphiql",
		"http:/\\/evil.example/x/": "/settings/tokens",
		"/%zz":                     "/settings/tokens",
		// What http.Redirect's cleaning, or a browser, makes of these is
		// another site (issue 22).
		`/./\evil.example`:  "/settings/tokens",
		`/../\evil.example`: "/settings/tokens",
		"/\t/evil.example":  "/settings/tokens",
		"/\n/evil.example":  "/settings/tokens",
		// A space, the last character refused (and DEL): a browser may
		// drop or mangle it as it does a tab.
		"/ /evil.example":    "/settings/tokens",
		"/\x7f/evil.example": "/settings/tokens",
		"/.//evil.example/":  "/evil.example/",
		"/a/../b/?x=1":       "/b/?x=1",
		"/api/graphiql#frag": "/api/graphiql",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}

func TestResetCredentialsIsDataHubsJSONAPI(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	send := func(contentType, body string) (int, string) {
		resp, err := c.Post(s.srv.URL+"/resetNativeUserCredentials", contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if ct, sniff := resp.Header.Get("Content-Type"), resp.Header.Get("X-Content-Type-Options"); ct != "application/json" || sniff != "nosniff" {
			t.Errorf("an answer (%d) with Content-Type %q and X-Content-Type-Options %q; want application/json, nosniff", resp.StatusCode, ct, sniff)
		}
		return resp.StatusCode, string(b)
	}
	for name, c := range map[string]struct {
		contentType, body string
		status            int
		says              string
	}{
		"a form":         {"application/x-www-form-urlencoded", "email=x&password=y&resetToken=z", 415, "application/json"},
		"not JSON":       {"application/json", "{", 400, "not a JSON object"},
		"no email":       {"application/json", `{"password":"p","resetToken":"r"}`, 400, "Email must not be empty."},
		"no reset token": {"application/json", `{"email":"` + s.username + `","password":"p"}`, 400, "Reset token must not be empty."},
		"a wrong token":  {"application/json", `{"email":"` + s.username + `","password":"p","resetToken":"r"}`, 400, "Invalid reset token"},
	} {
		status, body := send(c.contentType, c.body)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s; want %d saying %q", name, status, body, c.status, c.says)
		}
	}
	if _, _, err := s.svc.SignIn(context.Background(), s.username, s.password); err != nil {
		t.Errorf("refused resets changed the password: %v", err)
	}
	reset, err := s.svc.CreateNativeUserResetToken(root, reference.UserURN(s.username).String())
	if err != nil {
		t.Fatal(err)
	}
	status, body := send("application/json", `{"email":"`+s.username+`","password":"the new one","resetToken":"`+reset+`"}`)
	if status != http.StatusOK || !strings.Contains(body, `"message":"the password is set"`) {
		t.Errorf("a good reset: %d %s; want 200 saying the password is set", status, body)
	}
	if _, _, err := s.svc.SignIn(context.Background(), s.username, "the new one"); err != nil {
		t.Errorf("after a good reset the new password does not sign in: %v", err)
	}
}

func TestGraphiQLWithoutItsBundlesSaysHowToBuildThem(t *testing.T) {
	s := newSite(t, false)
	p, err := New(s.svc, []byte(strings.Repeat("c", 32)), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.graphiqlBuilt = false
	rec := httptest.NewRecorder()
	p.GraphiQL().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/graphiql", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "make assets") {
		t.Errorf("GraphiQL without its bundles: %d %s", rec.Code, rec.Body.String())
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("no same-origin policy on the page: %q", csp)
	}
}

// TestGraphiQLNamesTheSignedInUserOnlyForTheirOwnSession: reached through
// the frontend (the session cookie sent on as the bearer token), GraphiQL
// names the signed-in user and offers sign-out; a bearer token that is not
// the cookie's session, an empty cookie, or a request no one was
// authenticated for gets the page with no one named.
func TestGraphiQLNamesTheSignedInUserOnlyForTheirOwnSession(t *testing.T) {
	s := newSite(t, false)
	p, err := New(s.svc, []byte(strings.Repeat("c", 32)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ann := reference.Actor{URN: reference.UserURN(s.username)}
	for _, tc := range []struct {
		name           string
		cookie, bearer string
		actor          bool
		named          bool
	}{
		{"the session's own bearer token", "sess", "sess", true, true},
		{"another bearer token", "sess", "other", true, false},
		{"an empty session cookie", "", "", true, false},
		{"no one authenticated", "sess", "sess", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/graphiql", nil)
			r.AddCookie(&http.Cookie{Name: SessionCookie, Value: tc.cookie})
			if tc.bearer != "" {
				r.Header.Set("Authorization", "Bearer "+tc.bearer)
			}
			if tc.actor {
				r = r.WithContext(reference.NewContextWithActor(r.Context(), ann))
			}
			rec := httptest.NewRecorder()
			p.GraphiQL().ServeHTTP(rec, r)
			named := strings.Contains(rec.Body.String(), `data-testid="signed-in-user">`+s.username+`<`)
			if named != tc.named || rec.Code != http.StatusOK {
				t.Errorf("%d; the page names %s: %t, want %t", rec.Code, s.username, named, tc.named)
			}
		})
	}
}

// TestAssetsAreFilesOnly: the stylesheets and scripts are served with
// nosniff and an hour's caching; a directory listing or the vendor
// folder's README is not served.
func TestAssetsAreFilesOnly(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	resp, body, _ := s.get(t, c, "/assets/catalogd.css")
	if resp.StatusCode != http.StatusOK || body == "" {
		t.Fatalf("the stylesheet: %d", resp.StatusCode)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options: %q, want nosniff", got)
	}
	if got := resp.Header.Get("Cache-Control"); got != "public, max-age=3600" {
		t.Errorf("Cache-Control: %q, want public, max-age=3600", got)
	}
	for _, path := range []string{"/assets/", "/assets/vendor/", "/assets/vendor/README.md"} {
		if resp, _, _ := s.get(t, c, path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestSignedInVisitorOfSignInGoesOn: someone already signed in who opens
// the sign-in page is sent where they were going.
func TestSignedInVisitorOfSignInGoesOn(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	s.signIn(t, c)
	resp, _, _ := s.get(t, c, "/login?next=%2Fapi%2Fgraphiql")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/api/graphiql" {
		t.Errorf("the sign-in page, signed in: %d to %q; want 303 to /api/graphiql", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestSignOutWithoutASessionGoesToSignIn: a sign-out with no session is
// sent to sign in; nothing else happens.
func TestSignOutWithoutASessionGoesToSignIn(t *testing.T) {
	s := newSite(t, false)
	resp, _ := s.post(t, s.browser(t), "/logout", url.Values{})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("sign-out with no session: %d to %q; want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestSignOutOverTLSForgetsTheSecureCookie: over TLS the session cookie is
// Secure, and the one that clears it at sign-out is too.
func TestSignOutOverTLSForgetsTheSecureCookie(t *testing.T) {
	s := newSite(t, true)
	c, csrf := s.signedInAt(t, "/settings/tokens")
	resp, _ := s.post(t, c, "/logout", url.Values{"csrf_token": {csrf}})
	var cleared *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == SessionCookie {
			cleared = ck
		}
	}
	if cleared == nil || !cleared.Secure || cleared.MaxAge >= 0 {
		t.Errorf("sign-out over TLS: session cookie %+v; want it expired and Secure", cleared)
	}
}

// TestTokensPageShowsWhatWasAsked: the form to make a token opens when
// asked (?new), the notice of a revocation shows after one (?revoked), and
// neither otherwise.
// TestNeverIsOfferedOnlyWhereTokensMayNeverExpire: the form offers "Never"
// only when the service makes tokens that never expire, as DataHub's page.
func TestNeverIsOfferedOnlyWhereTokensMayNeverExpire(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		got := offered(allowed)
		never := slices.ContainsFunc(got, func(d duration) bool { return d.Value == reference.DurationNoExpiry })
		if never != allowed || len(got) != len(durations)-1+map[bool]int{true: 1}[allowed] {
			t.Errorf("offered(%t) = %v", allowed, got)
		}
	}
	if len(durations) != 8 || durations[7].Value != reference.DurationNoExpiry {
		t.Errorf("offered(false) changed the durations: %v", durations)
	}
}

func TestTokensPageShowsWhatWasAsked(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	s.signIn(t, c)
	for path, want := range map[string][2]bool{
		"/settings/tokens":           {false, false},
		"/settings/tokens?new=1":     {true, false},
		"/settings/tokens?revoked=1": {false, true},
	} {
		resp, body, _ := s.get(t, c, path)
		form, notice := strings.Contains(body, `data-testid="create-token-form"`), strings.Contains(body, "The token was revoked")
		if resp.StatusCode != http.StatusOK || form != want[0] || notice != want[1] {
			t.Errorf("%s: %d, form %t (want %t), revoked notice %t (want %t)", path, resp.StatusCode, form, want[0], notice, want[1])
		}
	}
}

// TestTokenFormsMakeAndRevoke: the form makes a token of the signed-in
// user's and shows it once; a duration DataHub does not know is refused
// with its reason and makes nothing; the revoke form revokes it and says
// so; revoking a token that is not there is refused.
func TestTokenFormsMakeAndRevoke(t *testing.T) {
	s := newSite(t, false)
	c, csrf := s.signedInAt(t, "/settings/tokens?new=1")
	resp, body := s.post(t, c, "/settings/tokens", url.Values{"csrf_token": {csrf}, "name": {"t"}, "duration": {"FOREVER"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `data-testid="create-token-error"`) || s.tokens(t) != 0 {
		t.Errorf("an unknown duration: %d, %d token(s); want 400 with the form's error and none made:\n%s", resp.StatusCode, s.tokens(t), body)
	}
	resp, body = s.post(t, c, "/settings/tokens", url.Values{"csrf_token": {csrf}, "name": {"t"}, "duration": {"ONE_HOUR"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="new-token-value"`) || s.tokens(t) != 1 {
		t.Fatalf("making a token: %d, %d token(s):\n%s", resp.StatusCode, s.tokens(t), body)
	}
	list, _, err := s.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {reference.UserURN(s.username).String()}}})
	if err != nil || len(list) != 1 {
		t.Fatalf("the token made: %v, %v", list, err)
	}
	resp, _ = s.post(t, c, "/settings/tokens/revoke", url.Values{"csrf_token": {csrf}, "id": {"no-such-token"}})
	if resp.StatusCode < 400 || s.tokens(t) != 1 {
		t.Errorf("revoking a token that is not there: %d, %d token(s); want a refusal and the token kept", resp.StatusCode, s.tokens(t))
	}
	resp, _ = s.post(t, c, "/settings/tokens/revoke", url.Values{"csrf_token": {csrf}, "id": {list[0].ID}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings/tokens?revoked=1" || s.tokens(t) != 0 {
		t.Errorf("revoking the token: %d to %q, %d token(s) left; want 303 to /settings/tokens?revoked=1 and none", resp.StatusCode, resp.Header.Get("Location"), s.tokens(t))
	}
}

// TestPagesCarryTheirHeaders: every page says what it is, is never cached
// (it may show a token), loads nothing from elsewhere and may not be framed;
// the site's root sends a browser to its tokens page.
func TestPagesCarryTheirHeaders(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	resp, _, _ := s.get(t, c, "/login")
	for name, want := range map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "same-origin",
		"X-Frame-Options":        "DENY",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy: %q", csp)
	}
	resp, _, _ = s.get(t, c, "/")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings/tokens" {
		t.Errorf("the root: %d to %q; want 303 to /settings/tokens", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestSignInFormIsBoundToAStrongCookie: before sign-in the form's token is
// bound to a random cookie of at least 32 characters (Secure over TLS); a
// post whose cookie is missing or shorter is refused whatever token it
// carries, and a cookie of 32 characters is kept and accepted.
func TestSignInFormIsBoundToAStrongCookie(t *testing.T) {
	s := newSite(t, true)
	p, err := New(s.svc, []byte(strings.Repeat("c", 32)), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, _, _ := s.get(t, s.browser(t), "/login")
	var pre *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == csrfCookie {
			pre = ck
		}
	}
	if pre == nil || !pre.Secure || !pre.HttpOnly || len(pre.Value) < 32 {
		t.Fatalf("the sign-in form's cookie over TLS: %+v; want Secure, HttpOnly, 32 characters or more", pre)
	}
	post := func(cookie string) int {
		t.Helper()
		form := url.Values{"csrf_token": {p.csrfToken("pre-session\x00" + cookie)}, "username": {s.username}, "password": {"wrong"}}
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: csrfCookie, Value: cookie})
		}
		resp, err := s.browser(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(""); got != http.StatusForbidden {
		t.Errorf("no cookie: %d, want 403", got)
	}
	if got := post(strings.Repeat("a", 31)); got != http.StatusForbidden {
		t.Errorf("a cookie of 31 characters: %d, want 403", got)
	}
	if got := post(strings.Repeat("a", 32)); got != http.StatusUnauthorized {
		t.Errorf("a cookie of 32 characters and its token: %d, want the 401 of a wrong password", got)
	}
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/login", nil)
	req.AddCookie(&http.Cookie{Name: csrfCookie, Value: strings.Repeat("a", 32)})
	resp, err = s.browser(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(resp.Cookies()) != 0 {
		t.Errorf("a cookie of 32 characters was replaced: %v", resp.Cookies())
	}
}

// TestPagesSayTheDatabaseIsUnavailable: with the database gone, every page
// a signed-in browser opens or posts answers 503 with Retry-After and a
// page that says so, never a sign-in form or a success.
func TestPagesSayTheDatabaseIsUnavailable(t *testing.T) {
	s := newSite(t, false)
	ck := s.signIn(t, s.browser(t))
	gone, _ := pgtest.Fresh(t)
	gone.Close()
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(reference.NewService(gone, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt")}), []byte(strings.Repeat("c", 32)), nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	p.Mount(mux)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/login"},
		{http.MethodGet, "/settings/tokens"},
		{http.MethodPost, "/logout"},
		{http.MethodPost, "/settings/tokens"},
		{http.MethodPost, "/settings/tokens/revoke"},
		{http.MethodGet, "/logOut"},
	} {
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader("csrf_token=x&name=t&id=x"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(ck)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "<html") {
			t.Errorf("%s %s with the database gone: %d, Retry-After %q; want 503 with Retry-After and a page", tc.method, tc.path, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
}

// TestTokenFormRefusesWhoMayNotMakeTokens: without GENERATE_PERSONAL_ACCESS_TOKENS
// (here no policy gives it to every user) the form's post is refused with
// 403 and the reason, and with token authentication off it is refused
// with 403; neither makes a token.
func TestTokenFormRefusesWhoMayNotMakeTokens(t *testing.T) {
	t.Run("no privilege", func(t *testing.T) {
		db, _ := pgtest.Fresh(t)
		s := newSiteOn(t, false, db, true)
		everyone := reference.BootPolicies()[2]
		everyone.State = reference.PolicyInactive
		if _, err := s.svc.UpdatePolicy(root, everyone.URN.String(), everyone); err != nil {
			t.Fatal(err)
		}
		c, csrf := s.signedInAt(t, "/settings/tokens")
		resp, body := s.post(t, c, "/settings/tokens", url.Values{"csrf_token": {csrf}, "name": {"t"}, "duration": {"ONE_HOUR"}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `data-testid="tokens-notice"`) || strings.Contains(body, `data-testid="create-token-form"`) || s.tokens(t) != 0 {
			t.Errorf("a post without the privilege: %d, %d token(s); want 403 with the reason as a notice, no form, none made:\n%s", resp.StatusCode, s.tokens(t), body)
		}
	})
	t.Run("token authentication off", func(t *testing.T) {
		db, _ := pgtest.Fresh(t)
		s := newSiteOn(t, false, db, false)
		c, csrf := s.signedInAt(t, "/settings/tokens")
		resp, body := s.post(t, c, "/settings/tokens", url.Values{"csrf_token": {csrf}, "name": {"t"}, "duration": {"ONE_HOUR"}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `data-testid="token-auth-disabled-message"`) || s.tokens(t) != 0 {
			t.Errorf("a post with token authentication off: %d, %d token(s); want 403 saying so, none made:\n%s", resp.StatusCode, s.tokens(t), body)
		}
	})
}

// A client refused more sign-ins sees the sign-in form again with the
// refusal and when to try again (429, Retry-After), not an error page; a
// reset from it sets the password, and answers the refusal of the
// sign-in that follows, with when to try again.
func TestThrottledClientIsToldWhenToTryAgain(t *testing.T) {
	db, _ := pgtest.Fresh(t)
	s := newSiteWith(t, false, db, reference.Config{AuthEnabled: true, SignInThrottle: reference.ThrottleConfig{MaxFailuresPerClient: 1}}, "192.0.2.7")
	c := s.browser(t)
	for i, want := range []int{http.StatusUnauthorized, http.StatusTooManyRequests} {
		_, _, csrf := s.get(t, c, "/login")
		resp, body := s.post(t, c, "/login", url.Values{"csrf_token": {csrf}, "username": {s.username}, "password": {"wrong"}})
		if resp.StatusCode != want || !strings.Contains(body, `data-testid="login-error"`) || !strings.Contains(body, `name="password"`) {
			t.Fatalf("wrong password %d: %d; want %d with the sign-in form and its error:\n%s", i+1, resp.StatusCode, want, body)
		}
		if ra := resp.Header.Get("Retry-After"); (want == http.StatusTooManyRequests) != (ra != "") {
			t.Errorf("wrong password %d (%d): Retry-After %q", i+1, resp.StatusCode, ra)
		}
	}
	reset, err := s.svc.CreateNativeUserResetToken(root, reference.UserURN(s.username).String())
	if err != nil {
		t.Fatal(err)
	}
	resp, body := s.postJSON(t, c, "/resetNativeUserCredentials", "application/json", `{"email":"`+s.username+`","password":"the new one","resetToken":"`+reset+`"}`)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || cookie(resp, SessionCookie) != nil {
		t.Errorf("a reset from the refused client: %d %s, Retry-After %q; want 429 with Retry-After and no session", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if _, _, err := s.svc.SignIn(context.Background(), s.username, "the new one"); err != nil {
		t.Errorf("after the reset the new password does not sign in: %v", err)
	}
}

// A sign-in the database cannot judge is answered 503 with a page that
// says so, not the sign-in form with an error as if the password were
// wrong.
func TestSignInWithTheDatabaseGoneIsNoWrongPassword(t *testing.T) {
	gone, _ := pgtest.Fresh(t)
	s := newSiteOn(t, false, gone, true)
	gone.Close()
	c := s.browser(t)
	_, _, csrf := s.get(t, c, "/login")
	if csrf == "" {
		t.Fatal("the sign-in form, which needs no database, has no CSRF token")
	}
	resp, body := s.post(t, c, "/login", url.Values{"csrf_token": {csrf}, "username": {s.username}, "password": {s.password}})
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || strings.Contains(body, `name="password"`) {
		t.Errorf("a sign-in with the database gone: %d, Retry-After %q; want 503 with Retry-After and no sign-in form:\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}
