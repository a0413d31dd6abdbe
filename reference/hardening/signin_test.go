package hardening

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sessionCookie is the frontend's session cookie (reference/web), named as
// DataHub's frontend names its own.
const sessionCookie = "PLAY_SESSION"

var (
	csrfInput  = regexp.MustCompile(`name="csrf_token" value="([^"]*)"`)
	noRedirect = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
)

// signIn sends the sign-in form as a browser at client (an address a
// trusted proxy would name in X-Forwarded-For; "" for none) does, with
// extra headers, and returns the answer to the form.
func (in *instance) signIn(t *testing.T, client, username, password string, header ...string) *http.Response {
	t.Helper()
	get, _ := http.NewRequest("GET", in.frontend+"/login", nil)
	post, _ := http.NewRequest("POST", in.frontend+"/login", nil)
	for _, r := range []*http.Request{get, post} {
		if client != "" {
			r.Header.Set("X-Forwarded-For", client)
		}
		for i := 0; i+1 < len(header); i += 2 {
			if header[i] == "Host" {
				r.Host = header[i+1]
			} else {
				r.Header.Set(header[i], header[i+1])
			}
		}
	}
	resp, err := noRedirect.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfInput.FindSubmatch(page)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("GET /login: %d, no form", resp.StatusCode)
	}
	var cookies []string
	for _, c := range resp.Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	form := url.Values{"csrf_token": {string(m[1])}, "username": {username}, "password": {password}}
	post.Body = io.NopCloser(strings.NewReader(form.Encode()))
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	post.Header.Set("Cookie", strings.Join(cookies, "; "))
	resp, err = noRedirect.Do(post)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// withPassword makes name a native user with password, as DataHub makes
// them: the administrator's invite token, and a sign-up with it at the
// frontend (name is the email, which is the username).
func (in *instance) withPassword(t *testing.T, name, password string) {
	t.Helper()
	resp := in.graphql(t, in.admin, `query { getInviteToken(input: {}) { inviteToken } }`, nil)
	var out struct {
		Data struct {
			GetInviteToken struct{ InviteToken string }
		}
	}
	if err := json.Unmarshal([]byte(resp.body), &out); err != nil || out.Data.GetInviteToken.InviteToken == "" {
		t.Fatalf("invite token: %.300s", resp.body)
	}
	body, _ := json.Marshal(map[string]string{"fullName": name, "email": name, "password": password, "title": "", "inviteToken": out.Data.GetInviteToken.InviteToken})
	if r := in.do(t, "POST", in.frontend+"/signUp", "", "application/json", body); r.status != 200 {
		t.Fatalf("sign %s up: %d %.300s", name, r.status, r.body)
	}
}

func retryAfter(t *testing.T, what string, resp *http.Response, window time.Duration) {
	t.Helper()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("%s: %d, want 429", what, resp.StatusCode)
	}
	n, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || n < 1 || time.Duration(n)*time.Second > window+time.Second {
		t.Errorf("%s: Retry-After %q, want whole seconds from 1 to the window (%s)", what, resp.Header.Get("Retry-After"), window)
	}
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie && c.Value != "" {
			t.Errorf("%s: a session cookie was set", what)
		}
	}
}

// TestSignInThrottle: failed sign-ins are throttled per user and client
// and per client (an IPv6 client by its /64), clients as a trusted proxy
// names them and as nobody else can; the right password from a client that
// has not been failing signs its user in, however many guesses others made;
// a throttled attempt costs no password comparison, says when to try
// again, and is let through once that time has passed.
func TestSignInThrottle(t *testing.T) {
	db, _ := database(t, false)
	// A window far longer than the attempts take, however loaded the
	// machine: a sign-in compares a password at bcrypt's default cost, and
	// an attempt that left the window early would let the next through.
	// Only "the window passes" waits one out, on an instance of its own.
	const window = 10 * time.Minute
	throttled := func(window time.Duration, env ...string) *instance {
		return start(t, db, append([]string{"CATALOGD_SIGNIN_MAX_FAILURES_PER_USER=3", "CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT=5",
			"CATALOGD_SIGNIN_FAILURE_WINDOW=" + window.String(), "CATALOGD_TRUSTED_PROXIES=127.0.0.1"}, env...)...)
	}
	in := throttled(window)
	for _, u := range []string{"throttle-ann", "throttle-bob"} {
		in.withPassword(t, u, "right-"+u)
	}

	t.Run("per user: the failing clients, never the user", func(t *testing.T) {
		// Three clients guess Ann's password: she is under attack. The
		// right password from a client that has not been failing signs her
		// in; from one that has, it is refused, as is another guess.
		for i := 1; i <= 3; i++ {
			if r := in.signIn(t, fmt.Sprintf("198.51.100.%d", i), "throttle-ann", "wrong"); r.StatusCode != 401 {
				t.Fatalf("wrong password %d: %d, want 401", i, r.StatusCode)
			}
		}
		retryAfter(t, "Ann's right password from a client that guessed", in.signIn(t, "198.51.100.1", "throttle-ann", "right-throttle-ann"), window)
		if r := in.signIn(t, "198.51.100.4", "throttle-ann", "right-throttle-ann"); r.StatusCode != 303 {
			t.Fatalf("Ann's right password from a client that has not been failing: %d, want 303 (signed in)", r.StatusCode)
		}
		if r := in.signIn(t, "198.51.100.2", "throttle-bob", "right-throttle-bob"); r.StatusCode != 303 {
			t.Fatalf("Bob from a client that guessed Ann's: %d, want 303", r.StatusCode)
		}
		// A new client gets one guess while she is under attack.
		if r := in.signIn(t, "198.51.100.5", "throttle-ann", "wrong"); r.StatusCode != 401 {
			t.Fatalf("a new client's first guess: %d, want 401", r.StatusCode)
		}
		retryAfter(t, "its second guess", in.signIn(t, "198.51.100.5", "throttle-ann", "wrong"), window)
	})
	t.Run("an IPv6 client is its /64", func(t *testing.T) {
		for i := 1; i <= 5; i++ {
			if r := in.signIn(t, fmt.Sprintf("2001:db8:5::%x", i), fmt.Sprintf("v6-nobody-%d", i), "wrong"); r.StatusCode != 401 {
				t.Fatalf("failure %d: %d, want 401", i, r.StatusCode)
			}
		}
		retryAfter(t, "another address of the same /64, with Bob's right password", in.signIn(t, "2001:db8:5::beef:1", "throttle-bob", "right-throttle-bob"), window)
		if r := in.signIn(t, "2001:db8:5:1::1", "throttle-bob", "right-throttle-bob"); r.StatusCode != 303 {
			t.Fatalf("Bob from the next /64: %d, want 303", r.StatusCode)
		}
	})
	t.Run("per client, whatever user it names", func(t *testing.T) {
		for i := 1; i <= 5; i++ {
			if r := in.signIn(t, "203.0.113.9", fmt.Sprintf("nobody-%d", i), "wrong"); r.StatusCode != 401 {
				t.Fatalf("failure %d: %d, want 401", i, r.StatusCode)
			}
		}
		retryAfter(t, "the client's sixth attempt, with Bob's right password", in.signIn(t, "203.0.113.9", "throttle-bob", "right-throttle-bob"), window)
		if r := in.signIn(t, "203.0.113.10", "throttle-bob", "right-throttle-bob"); r.StatusCode != 303 {
			t.Fatalf("Bob from another client: %d, want 303", r.StatusCode)
		}
		// A client cannot pass as another by writing X-Forwarded-For
		// itself: the proxy's own addition, the last, is what counts.
		retryAfter(t, "the client claiming another address before its own", in.signIn(t, "10.9.9.9, 203.0.113.9", "throttle-bob", "right-throttle-bob"), window)
	})
	t.Run("a throttled attempt compares no password", func(t *testing.T) {
		cpu := in.cpu(t)
		for i := 0; i < 5; i++ {
			in.signIn(t, "192.0.2.50", fmt.Sprintf("cpu-%d", i), "wrong") // bcrypt each
		}
		failing := in.cpu(t) - cpu
		cpu = in.cpu(t)
		for i := 0; i < 20; i++ {
			if r := in.signIn(t, "192.0.2.50", "throttle-bob", "wrong"); r.StatusCode != 429 {
				t.Fatalf("throttled attempt %d: %d", i+1, r.StatusCode)
			}
		}
		throttled := in.cpu(t) - cpu
		t.Logf("server CPU: 5 failed sign-ins %s; 20 throttled ones %s", failing, throttled)
		if throttled > failing {
			t.Errorf("20 throttled attempts cost %s of CPU, more than 5 that compared a password (%s)", throttled, failing)
		}
	})
	t.Run("the window passes", func(t *testing.T) {
		// Another catalogd on the same database, its counts its own: the
		// failures that start its window are three quick ones in a row.
		const window = 5 * time.Second
		brief := throttled(window)
		for i := 1; i <= 3; i++ {
			if r := brief.signIn(t, "198.51.100.4", "throttle-ann", "wrong"); r.StatusCode != 401 {
				t.Fatalf("wrong password %d: %d, want 401", i, r.StatusCode)
			}
		}
		retryAfter(t, "Ann's right password within the window, from the client that guessed", brief.signIn(t, "198.51.100.4", "throttle-ann", "right-throttle-ann"), window)
		time.Sleep(window + 500*time.Millisecond)
		if r := brief.signIn(t, "198.51.100.4", "throttle-ann", "right-throttle-ann"); r.StatusCode != 303 {
			t.Fatalf("Ann's right password after the window: %d, want 303", r.StatusCode)
		}
	})
	t.Run("without trusted proxies, X-Forwarded-For names no one", func(t *testing.T) {
		other := start(t, db, "CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT=5", "CATALOGD_SIGNIN_FAILURE_WINDOW="+window.String())
		for i := 1; i <= 5; i++ {
			other.signIn(t, fmt.Sprintf("198.51.100.%d", 100+i), fmt.Sprintf("nobody-%d", i), "wrong")
		}
		retryAfter(t, "a sixth attempt claiming yet another address", other.signIn(t, "198.51.100.200", "throttle-bob", "right-throttle-bob"), window)
	})
}

// TestSecureCookiesAndHSTS: behind a proxy that terminates TLS (catalogd
// itself serves plain HTTP), the cookies are Secure and answers carry
// Strict-Transport-Security when the public URL is https, or when a
// trusted proxy says X-Forwarded-Proto: https; never when an untrusted
// client says so, nor over plain HTTP.
func TestSecureCookiesAndHSTS(t *testing.T) {
	db, _ := database(t, false)
	plain := start(t, db)
	proxied := start(t, db, "CATALOGD_TRUSTED_PROXIES=127.0.0.0/8")
	public := start(t, db, "CATALOGD_PUBLIC_URL=https://catalog.example.com")
	plain.withPassword(t, "secure-ann", "right-secure-ann")
	cases := []struct {
		name   string
		in     *instance
		header []string
		secure bool
	}{
		{"plain HTTP", plain, nil, false},
		{"an untrusted client saying X-Forwarded-Proto: https", plain, []string{"X-Forwarded-Proto", "https"}, false},
		{"a trusted proxy saying X-Forwarded-Proto: https", proxied, []string{"X-Forwarded-Proto", "https"}, true},
		{"a trusted proxy saying X-Forwarded-Proto: http", proxied, []string{"X-Forwarded-Proto", "http"}, false},
		{"a trusted proxy after a client that claims https", proxied, []string{"X-Forwarded-Proto", "https, http"}, false},
		{"a public https URL", public, []string{"Host", "catalog.example.com"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := c.in.signIn(t, "", "secure-ann", "right-secure-ann", c.header...)
			if resp.StatusCode != 303 {
				t.Fatalf("sign-in: %d", resp.StatusCode)
			}
			var session *http.Cookie
			for _, ck := range resp.Cookies() {
				if ck.Name == sessionCookie {
					session = ck
				}
			}
			if session == nil || session.Secure != c.secure {
				t.Errorf("session cookie set %v, Secure %v; want Secure %v", session != nil, session != nil && session.Secure, c.secure)
			}
			hsts := resp.Header.Get("Strict-Transport-Security")
			if (hsts != "") != c.secure || (c.secure && !strings.HasPrefix(hsts, "max-age=")) {
				t.Errorf("Strict-Transport-Security %q; want one with a max-age %v", hsts, c.secure)
			}
		})
	}
	t.Run("the public URL's host is answered, another is not", func(t *testing.T) {
		for host, want := range map[string]int{"catalog.example.com": 200, "elsewhere.example": 421} {
			req, _ := http.NewRequest("GET", public.gms+"/health", nil)
			req.Host = host
			if r := send(t, req); r.status != want {
				t.Errorf("Host %s: %d, want %d", host, r.status, want)
			}
		}
	})
}
