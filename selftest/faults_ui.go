package selftest

import (
	"bytes"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// The browser pages' faults (SPEC.md, Browser pages): each is a mistake a
// frontend could make in what it sends a browser or does with what a
// browser sends. Each runs with the @ui scenarios of its rule, both sides
// of it (Trips, which must catch it, and With, its allowed neighbour):
// a whole @ui run per fault would cost most of a minute. The first clean
// run runs every scenario.
func init() {
	Faults = append(Faults, uiFaults...)
}

var uiFaults = []Fault{
	{
		Name:   "session-cookie-scriptable",
		Trips:  []string{"signin-06"},
		With:   []string{"signin-01"},
		UI:     true,
		Breaks: "the session cookie is set without HttpOnly, so any script on the page can read it",
		Tier:   FrontendOnly,
		Response: func(_ *State, _ *Exchange, r *Response) {
			cookies := r.Header.Values("Set-Cookie")
			r.Header.Del("Set-Cookie")
			for _, c := range cookies {
				r.Header.Add("Set-Cookie", httpOnly.ReplaceAllString(c, ""))
			}
		},
	},
	{
		Name:   "generate-button-always-enabled",
		Trips:  []string{"page-03", "page-04"},
		With:   []string{"page-01"},
		UI:     true,
		Breaks: `the "Generate new token" button is enabled whatever the user may do, and whether token authentication is on or off`,
		Tier:   FrontendOnly,
		Response: func(_ *State, x *Exchange, r *Response) {
			if x.Req.URL.Path == "/settings/tokens" {
				r.Body = addTokenDisabled.ReplaceAll(r.Body, []byte("$1"))
			}
		},
	},
	{
		Name:     "token-shown-again",
		Trips:    []string{"page-06"},
		With:     []string{"page-05"},
		UI:       true,
		Breaks:   "the tokens page shows a new token again on every later visit, not only in the answer that made it",
		Tier:     FrontendOnly,
		Response: tokenShownAgain,
	},
	{
		Name:   "sign-out-keeps-session",
		Trips:  []string{"signin-05"},
		UI:     true,
		Breaks: "signing out clears the browser's cookie but not the session: the old cookie still works",
		Tier:   FrontendOnly,
		Request: func(_ *State, x *Exchange) *Response {
			if x.Req.Method != http.MethodPost || x.Req.URL.Path != "/logout" {
				return nil
			}
			h := http.Header{}
			h.Set("Location", "/login")
			h.Add("Set-Cookie", "PLAY_SESSION=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
			return &Response{Status: http.StatusSeeOther, Header: h}
		},
	},
	{
		Name:     "csrf-not-checked",
		Trips:    []string{"page-13"},
		With:     []string{"page-05"},
		UI:       true,
		Breaks:   "the token form is accepted without its CSRF token (the server does not check it)",
		Tier:     FrontendOnly,
		Request:  csrfFillRequest,
		Response: csrfRememberResponse,
	},
	{
		Name:   "session-as-service-identity",
		Trips:  []string{"signin-03"},
		With:   []string{"signin-04"},
		UI:     true,
		Breaks: "the frontend sends a signed-in browser's API requests on with its own service identity, not the user's session",
		Tier:   FrontendOnly,
		Request: func(s *State, x *Exchange) *Response {
			if !strings.HasPrefix(x.Req.URL.Path, "/api/") || x.Req.Header.Get("Authorization") != "" || !hasSessionCookie(x) {
				return nil
			}
			x.Req.Header.Set("Authorization", s.AdminAuthorization())
			return nil
		},
	},
	{
		Name:   "graphiql-from-a-cdn",
		Trips:  []string{"giql-03"},
		With:   []string{"giql-01"},
		UI:     true,
		Breaks: "the GraphiQL page loads its scripts from a CDN, which a deployment without the internet cannot reach",
		Tier:   BothTiers,
		Response: func(_ *State, x *Exchange, r *Response) {
			if x.Req.URL.Path != "/api/graphiql" {
				return
			}
			r.Body = bytes.ReplaceAll(r.Body, []byte(`"/assets/vendor/react.production.min.js"`), []byte(`"https://unpkg.com/react@18.3.1/umd/react.production.min.js"`))
			r.Header.Del("Content-Security-Policy")
		},
	},
	{
		Name:   "graphiql-headers-ignored",
		Trips:  []string{"giql-02"},
		With:   []string{"giql-01"},
		UI:     true,
		Breaks: "a signed-in browser's session replaces the Authorization header its GraphiQL sends",
		Tier:   FrontendOnly,
		Request: func(_ *State, x *Exchange) *Response {
			if x.Req.URL.Path == "/api/graphql" && hasSessionCookie(x) {
				x.Req.Header.Del("Authorization")
			}
			return nil
		},
	},
}

var (
	httpOnly = regexp.MustCompile(`(?i);\s*HttpOnly`)
	// addTokenDisabled is the "Generate new token" button's disabled
	// attribute; group 1 is the button up to it.
	addTokenDisabled = regexp.MustCompile(`(<button[^>]*data-testid="add-token-button"[^>]*?)\s+disabled(?:="[^"]*")?`)
	// newTokenValue is the field of the tokens page that shows a new token.
	newTokenValue = regexp.MustCompile(`<input[^>]*value="([^"]+)"[^>]*data-testid="new-token-value"[^>]*>`)
	csrfField     = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
)

func hasSessionCookie(x *Exchange) bool {
	c, err := x.Req.Cookie("PLAY_SESSION")
	return err == nil && c.Value != ""
}

// sessionKey is what a fault remembers a browser's session by.
func sessionKey(kind string, x *Exchange) string {
	c, err := x.Req.Cookie("PLAY_SESSION")
	if err != nil {
		return ""
	}
	return kind + "\x00" + c.Value
}

// tokenShownAgain keeps the field that shows a new token and puts it into
// every later tokens page of the same session.
func tokenShownAgain(s *State, x *Exchange, r *Response) {
	if x.Req.URL.Path != "/settings/tokens" {
		return
	}
	key := sessionKey("new-token", x)
	if key == "" {
		return
	}
	if x.Req.Method == http.MethodPost {
		if field := newTokenValue.Find(r.Body); field != nil {
			s.Remember(key, field)
		}
		return
	}
	field, ok := s.Recall(key)
	if !ok || bytes.Contains(r.Body, []byte(`data-testid="new-token-value"`)) {
		return
	}
	r.Body = bytes.Replace(r.Body, []byte(`<table class="tokens"`), append(append([]byte(nil), field...), []byte(`<table class="tokens"`)...), 1)
}

// csrfRememberResponse keeps the CSRF token of each session's pages.
func csrfRememberResponse(s *State, x *Exchange, r *Response) {
	if key := sessionKey("csrf", x); key != "" {
		if m := csrfField.FindSubmatch(r.Body); m != nil {
			s.Remember(key, m[1])
		}
	}
}

// csrfFillRequest gives a token form sent without a CSRF token the one the
// session's page carried, as a server that does not check would behave.
func csrfFillRequest(s *State, x *Exchange) *Response {
	if x.Req.Method != http.MethodPost || !strings.HasPrefix(x.Req.URL.Path, "/settings/tokens") {
		return nil
	}
	form, err := url.ParseQuery(string(x.Body))
	if err != nil || form.Get("csrf_token") != "" {
		return nil
	}
	token, ok := s.Recall(sessionKey("csrf", x))
	if !ok {
		return nil
	}
	form.Set("csrf_token", string(token))
	x.Body = []byte(form.Encode())
	return nil
}
