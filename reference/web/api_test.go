package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// The sign-in API (api.go), as DataHub's frontend answers it.

// postJSON posts body to path from c, as JSON unless contentType says else.
func (s *site) postJSON(t *testing.T, c *http.Client, path, contentType, body string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Post(s.srv.URL+path, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// oneMessage is the message of an answer that must be one JSON object,
// {"message": ...}, and nothing after it.
func oneMessage(t *testing.T, body string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	var m map[string]string
	if err := dec.Decode(&m); err != nil || len(m) != 1 || m["message"] == "" {
		t.Errorf("the answer %q is not one JSON object {\"message\": ...}: %v", body, err)
		return ""
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Errorf("the answer %q goes on after its JSON object", body)
	}
	return m["message"]
}

// cookie is the cookie name an answer sets, nil for none.
func cookie(resp *http.Response, name string) *http.Cookie {
	for _, ck := range resp.Cookies() {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

func TestLogInAPIOpensTheSessionThePagesUse(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	resp, body := s.postJSON(t, c, "/logIn", "application/json", `{"username":"`+s.username+`","password":"`+s.password+`"}`)
	if resp.StatusCode != http.StatusOK || body != "" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("a good sign-in: %d %q, Cache-Control %q; want 200 and no body, as DataHub, never stored", resp.StatusCode, body, resp.Header.Get("Cache-Control"))
	}
	sess, actor := cookie(resp, SessionCookie), cookie(resp, ActorCookie)
	urn := reference.UserURN(s.username).String()
	if sess == nil || actor == nil || actor.Value != urn {
		t.Fatalf("cookies %v; want %s and %s=%s", resp.Cookies(), SessionCookie, ActorCookie, urn)
	}
	for _, ck := range []*http.Cookie{sess, actor} {
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Expires.IsZero() {
			t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Path=/ and an expiry", ck)
		}
	}
	if a, err := s.svc.Authenticate(context.Background(), sess.Value); err != nil || a.URN.String() != urn {
		t.Errorf("the session: %v, %v; want %s", a, err, urn)
	}
	// The same session opens the pages.
	resp, page, _ := s.get(t, c, "/settings/tokens")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="signed-in-user">`+s.username+`<`) {
		t.Errorf("the tokens page with the API's session: %d, naming the user: %t", resp.StatusCode, strings.Contains(page, s.username))
	}
}

func TestLogInAPIRefusesAsDataHub(t *testing.T) {
	s := newSite(t, false)
	for name, c := range map[string]struct {
		contentType, body string
		status            int
		says              string
	}{
		"a wrong password":      {"application/json", `{"username":"` + s.username + `","password":"wrong"}`, 400, "Invalid Credentials"},
		"no password":           {"application/json", `{"username":"` + s.username + `"}`, 400, "Invalid Credentials"},
		"a username no one has": {"application/json", `{"username":"nobody-` + s.username + `","password":"` + s.password + `"}`, 400, "Invalid Credentials"},
		"no username":           {"application/json", `{"password":"` + s.password + `"}`, 400, "User name must not be empty."},
		"a blank username":      {"application/json", `{"username":"  ","password":"` + s.password + `"}`, 400, "User name must not be empty."},
		"not JSON":              {"application/json", `{"username":`, 400, "not a JSON object"},
		"a form":                {"application/x-www-form-urlencoded", "username=" + s.username + "&password=" + s.password, 415, "application/json"},
		// What another site's form can send: JSON as text/plain.
		"JSON as text/plain": {"text/plain", `{"username":"` + s.username + `","password":"` + s.password + `"}`, 415, "application/json"},
	} {
		resp, body := s.postJSON(t, s.browser(t), "/logIn", c.contentType, c.body)
		if resp.StatusCode != c.status || !strings.Contains(oneMessage(t, body), c.says) || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s (%s); want %d saying %s, as JSON", name, resp.StatusCode, body, resp.Header.Get("Content-Type"), c.status, c.says)
		}
		if len(resp.Cookies()) != 0 {
			t.Errorf("%s: cookies were set: %v", name, resp.Cookies())
		}
		// A browser must not read the answer as anything but JSON, nor
		// keep it.
		if got := resp.Header.Get("X-Content-Type-Options") + " " + resp.Header.Get("Cache-Control"); got != "nosniff no-store" {
			t.Errorf("%s: X-Content-Type-Options and Cache-Control %q, want \"nosniff no-store\"", name, got)
		}
	}
}

func TestLogOutAPIEndsTheSessionAndClearsItsCookies(t *testing.T) {
	s := newSite(t, false)
	c := s.browser(t)
	resp, _ := s.postJSON(t, c, "/logIn", "application/json", `{"username":"`+s.username+`","password":"`+s.password+`"}`)
	sess := cookie(resp, SessionCookie)
	if sess == nil {
		t.Fatal("no session")
	}
	for range 2 { // signed in, then already signed out
		resp, err := c.Get(s.srv.URL + "/logOut")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
			t.Errorf("GET /logOut: %d to %q; want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
		}
		for _, name := range []string{SessionCookie, ActorCookie} {
			if ck := cookie(resp, name); ck == nil || ck.MaxAge >= 0 || ck.Value != "" {
				t.Errorf("GET /logOut left the cookie %s: %+v", name, ck)
			}
		}
	}
	if _, err := s.svc.Authenticate(context.Background(), sess.Value); reference.ErrorCodeOf(err) != reference.EUNAUTHENTICATED {
		t.Errorf("the session after GET /logOut: %v, want UNAUTHENTICATED", err)
	}
}

func TestSignUpAPIMakesTheUserAndSignsThemIn(t *testing.T) {
	s := newSite(t, false)
	invite, err := s.svc.GetInviteToken(root, "")
	if err != nil {
		t.Fatal(err)
	}
	email := "carl-" + uuid.NewString()[:8] + "@example.com"
	body := func(email, invite string) string {
		return `{"fullName":"Carl","email":"` + email + `","password":"carl's","title":"Engineer","inviteToken":"` + invite + `"}`
	}
	for name, c := range map[string]struct {
		contentType, body string
		status            int
		says              string
	}{
		"an unknown invite token": {"application/json", body(email, invite+"x"), 400, "invite token is not valid"},
		"no invite token":         {"application/json", `{"fullName":"Carl","email":"` + email + `","password":"p"}`, 400, "Invite token must not be empty."},
		"no full name":            {"application/json", `{"email":"` + email + `","password":"p","inviteToken":"` + invite + `"}`, 400, "Full name must not be empty."},
		"a user who exists":       {"application/json", body(s.username, invite), 409, "This user already exists!"},
		"a form":                  {"application/x-www-form-urlencoded", "email=" + email, 415, "application/json"},
		// What another site's form can send: JSON as text/plain.
		"JSON as text/plain": {"text/plain", body(email, invite), 415, "application/json"},
		"not JSON":           {"application/json", `{"email":`, 400, "not a JSON object"},
	} {
		resp, got := s.postJSON(t, s.browser(t), "/signUp", c.contentType, c.body)
		if resp.StatusCode != c.status || !strings.Contains(oneMessage(t, got), c.says) || len(resp.Cookies()) != 0 {
			t.Errorf("%s: %d %s, cookies %v; want %d saying %q and no cookie", name, resp.StatusCode, got, resp.Cookies(), c.status, c.says)
		}
	}
	if u, _ := s.svc.CorpUser(root, reference.UserURN(email).String()); u != nil {
		t.Fatalf("refused sign-ups made %v", u)
	}
	if _, _, err := s.svc.SignIn(context.Background(), s.username, s.password); err != nil {
		t.Errorf("the existing user's password after a sign-up for them was refused: %v", err)
	}
	// A refusal is the client's mistake, not the service's: nothing is
	// logged as a failure.
	if logged := s.logs.String(); strings.Contains(logged, "level=ERROR") {
		t.Errorf("refused sign-ups were logged as failures:\n%s", logged)
	}
	c := s.browser(t)
	resp, got := s.postJSON(t, c, "/signUp", "application/json", body(email, invite))
	if resp.StatusCode != http.StatusOK || got != "" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("a good sign-up: %d %q, Cache-Control %q; want 200, no body, no-store", resp.StatusCode, got, resp.Header.Get("Cache-Control"))
	}
	sess := cookie(resp, SessionCookie)
	if actor := cookie(resp, ActorCookie); sess == nil || actor == nil || actor.Value != reference.UserURN(email).String() {
		t.Fatalf("a good sign-up set %v", resp.Cookies())
	}
	if a, err := s.svc.Authenticate(context.Background(), sess.Value); err != nil || a.URN != reference.UserURN(email) {
		t.Errorf("the sign-up's session: %v, %v", a, err)
	}
	if _, page, _ := s.get(t, c, "/settings/tokens"); !strings.Contains(page, `data-testid="signed-in-user">`+email+`<`) {
		t.Errorf("the tokens page after signing up does not name %s", email)
	}
}

// A sign-up from a client refused more sign-ins makes the user but signs no
// one in: the answer is the refusal, 429 with when to try again, and no
// cookie.
func TestSignUpFromAThrottledClientSignsNoOneIn(t *testing.T) {
	db, _ := pgtest.Fresh(t)
	s := newSiteWith(t, false, db, reference.Config{AuthEnabled: true, SignInThrottle: reference.ThrottleConfig{MaxFailuresPerClient: 1}}, "192.0.2.7")
	c := s.browser(t)
	if resp, body := s.postJSON(t, c, "/logIn", "application/json", `{"username":"`+s.username+`","password":"wrong"}`); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a wrong password: %d %s", resp.StatusCode, body)
	}
	invite, err := s.svc.GetInviteToken(root, "")
	if err != nil {
		t.Fatal(err)
	}
	email := "dora-" + uuid.NewString()[:8] + "@example.com"
	resp, body := s.postJSON(t, c, "/signUp", "application/json", `{"fullName":"Dora","email":"`+email+`","password":"dora's","inviteToken":"`+invite+`"}`)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || len(resp.Cookies()) != 0 || !strings.Contains(oneMessage(t, body), "Too many") {
		t.Errorf("a sign-up from a client refused sign-ins: %d %s, Retry-After %q, cookies %v; want 429 saying so, with Retry-After and no cookie", resp.StatusCode, body, resp.Header.Get("Retry-After"), resp.Cookies())
	}
	if u, err := s.svc.CorpUser(root, reference.UserURN(email).String()); err != nil || u == nil {
		t.Errorf("the user signed up: %v, %v; want made", u, err)
	}
}
