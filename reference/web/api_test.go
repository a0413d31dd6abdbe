package web

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
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
	if resp.StatusCode != http.StatusOK || body != "" {
		t.Fatalf("a good sign-in: %d %q; want 200 and no body, as DataHub", resp.StatusCode, body)
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
		"a wrong password":      {"application/json", `{"username":"` + s.username + `","password":"wrong"}`, 400, `{"message":"Invalid Credentials"}`},
		"no password":           {"application/json", `{"username":"` + s.username + `"}`, 400, `{"message":"Invalid Credentials"}`},
		"a username no one has": {"application/json", `{"username":"nobody-` + s.username + `","password":"` + s.password + `"}`, 400, `{"message":"Invalid Credentials"}`},
		"no username":           {"application/json", `{"password":"` + s.password + `"}`, 400, `{"message":"User name must not be empty."}`},
		"a blank username":      {"application/json", `{"username":"  ","password":"` + s.password + `"}`, 400, `{"message":"User name must not be empty."}`},
		"not JSON":              {"application/json", `{"username":`, 400, "not a JSON object"},
		"a form":                {"application/x-www-form-urlencoded", "username=" + s.username + "&password=" + s.password, 415, "application/json"},
	} {
		resp, body := s.postJSON(t, s.browser(t), "/logIn", c.contentType, c.body)
		if resp.StatusCode != c.status || !strings.Contains(body, c.says) || resp.Header.Get("Content-Type") != "application/json" {
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
	} {
		resp, got := s.postJSON(t, s.browser(t), "/signUp", c.contentType, c.body)
		if resp.StatusCode != c.status || !strings.Contains(got, c.says) || len(resp.Cookies()) != 0 {
			t.Errorf("%s: %d %s, cookies %v; want %d saying %q and no cookie", name, resp.StatusCode, got, resp.Cookies(), c.status, c.says)
		}
	}
	if u, _ := s.svc.CorpUser(root, reference.UserURN(email).String()); u != nil {
		t.Fatalf("refused sign-ups made %v", u)
	}
	if _, _, err := s.svc.SignIn(context.Background(), s.username, s.password); err != nil {
		t.Errorf("the existing user's password after a sign-up for them was refused: %v", err)
	}
	c := s.browser(t)
	resp, got := s.postJSON(t, c, "/signUp", "application/json", body(email, invite))
	if resp.StatusCode != http.StatusOK || got != "" {
		t.Fatalf("a good sign-up: %d %q", resp.StatusCode, got)
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
