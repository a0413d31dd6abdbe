// Package web serves the reference's browser pages on the frontend tier:
// sign-in and sign-out, Settings > Access Tokens, and the GraphiQL explorer
// (on both tiers), with their stylesheets and scripts. Every rule about
// tokens and privileges is the Service's: a page decodes a form, calls one
// Service method as the signed-in user, and shows what it answered.
//
// Templates and assets are embedded. GraphiQL's third-party bundles are
// built from the npm registry by `make assets` into static/vendor; a catalogd
// built without them serves a GraphiQL page that says how to build them.
package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Cookie names. The session cookie holds the session token (a bearer
// token for the metadata service), so it is HttpOnly and never readable by
// a script. Its name and the actor cookie, which names the signed-in user,
// are DataHub's frontend's (AuthUtils), whose clients read the actor
// cookie; unlike DataHub's, it too is HttpOnly: no page of the reference's
// needs to read it.
const (
	SessionCookie = "PLAY_SESSION"
	ActorCookie   = "actor"
	csrfCookie    = "catalogd_csrf"
)

// Pages serves the browser pages.
type Pages struct {
	svc     *reference.Service
	csrfKey []byte
	logger  *slog.Logger
	tmpl    map[string]*template.Template
	static  fs.FS
	// graphiqlBuilt says whether GraphiQL's bundles were built into static.
	graphiqlBuilt bool
}

// New returns the pages over svc. csrfKey signs the forms' CSRF tokens: at
// least 32 random bytes, the same for every replica.
func New(svc *reference.Service, csrfKey []byte, logger *slog.Logger) (*Pages, error) {
	if len(csrfKey) < 32 {
		return nil, errors.New("web: the CSRF key must be at least 32 bytes")
	}
	if logger == nil {
		logger = slog.Default()
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, err
	}
	p := &Pages{svc: svc, csrfKey: append([]byte(nil), csrfKey...), logger: logger, static: static, tmpl: map[string]*template.Template{}}
	for _, name := range []string{"login", "tokens", "graphiql", "problem"} {
		t, err := template.New("layout.html").Funcs(template.FuncMap{"date": formatDate}).ParseFS(templateFiles, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		p.tmpl[name] = t
	}
	p.graphiqlBuilt = true
	for _, f := range graphiqlBundles {
		if _, err := fs.Stat(static, f); err != nil {
			p.graphiqlBuilt = false
		}
	}
	return p, nil
}

// Mount adds the frontend's pages to mux.
func (p *Pages) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", p.home)
	mux.HandleFunc("GET /login", p.loginPage)
	mux.HandleFunc("POST /login", p.login)
	mux.HandleFunc("POST /logout", p.logout)
	mux.HandleFunc("POST /resetNativeUserCredentials", p.resetCredentials)
	// DataHub's frontend's sign-in API (api.go).
	mux.HandleFunc("POST /logIn", p.logInAPI)
	mux.HandleFunc("GET /logOut", p.logOutAPI)
	mux.HandleFunc("POST /signUp", p.signUpAPI)
	mux.HandleFunc("GET /settings/tokens", p.showTokens)
	mux.HandleFunc("POST /settings/tokens", p.createToken)
	mux.HandleFunc("POST /settings/tokens/revoke", p.revokeToken)
	mux.Handle("GET /assets/", p.Assets())
}

// WithSession lets a signed-in browser reach the metadata service through
// the frontend's proxy: a request that carries no Authorization header but
// the session cookie is sent on with the session token as its bearer
// token, so the metadata service authorizes it exactly as that user's
// personal access token. A request that sends its own Authorization header
// is sent on as it is. A cookie that holds anything but a session's token
// (a personal access token pasted in, say) is not sent on: the request
// then has no credentials.
func (p *Pages) WithSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, sent := r.Header["Authorization"]; !sent {
			// Only a session's token: a personal access token put in the
			// cookie is no session, and is not sent on.
			if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" && p.svc.IsSessionToken(c.Value) {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+c.Value)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// signedIn is the user of a request's session.
type signedIn struct {
	actor reference.Actor
	raw   string // the session token
	ctx   context.Context
}

// session returns the request's signed-in user, or nil.
func (p *Pages) session(r *http.Request) (*signedIn, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	if !p.svc.IsSessionToken(c.Value) {
		return nil, nil // a personal access token in the cookie is no session
	}
	actor, err := p.svc.Authenticate(r.Context(), c.Value)
	if err != nil {
		if reference.ErrorCodeOf(err) == reference.EUNAUTHENTICATED {
			return nil, nil
		}
		return nil, err
	}
	return &signedIn{actor: actor, raw: c.Value, ctx: reference.NewContextWithActor(r.Context(), actor)}, nil
}

// CSRF: every form carries a token that is the HMAC of what binds it to the
// browser: the session token once signed in, before that a random cookie.
// A post whose token does not match is refused before anything is done.

func (p *Pages) csrfToken(binding string) string {
	m := hmac.New(sha256.New, p.csrfKey)
	m.Write([]byte("catalogd csrf\x00" + binding))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// preSessionCSRF returns the CSRF token of the sign-in form, setting the
// cookie it is bound to when the browser has none.
func (p *Pages) preSessionCSRF(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 {
		return p.csrfToken("pre-session\x00" + c.Value)
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: v, Path: "/", HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode})
	return p.csrfToken("pre-session\x00" + v)
}

// checkCSRF reports whether the posted form's token matches its binding.
func (p *Pages) checkCSRF(r *http.Request, s *signedIn) bool {
	sent := r.PostFormValue("csrf_token")
	if sent == "" {
		return false
	}
	var want string
	if s != nil {
		want = p.csrfToken("session\x00" + s.raw)
	} else {
		c, err := r.Cookie(csrfCookie)
		if err != nil || len(c.Value) < 32 {
			return false
		}
		want = p.csrfToken("pre-session\x00" + c.Value)
	}
	return subtle.ConstantTimeCompare([]byte(sent), []byte(want)) == 1
}

// securityHeaders are sent with every page: nothing is loaded from another
// origin, no inline script runs, no other site may frame the page.
func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

// render writes a page. Pages that may show a secret are never cached.
func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	securityHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	var b strings.Builder
	if err := p.tmpl[name].Execute(&b, data); err != nil {
		p.logger.ErrorContext(r.Context(), "render page", "page", name, "error", err)
		http.Error(w, reference.InternalMessage, http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// problem answers with a page that says what went wrong and what to do.
func (p *Pages) problem(w http.ResponseWriter, r *http.Request, status int, message string) {
	p.render(w, r, status, "problem", problemPage{layout: layout{Title: http.StatusText(status)}, Message: message})
}

// failed answers a Service error: its message when it is meant for the
// client, a generic one (and a log line) when not.
func (p *Pages) failed(w http.ResponseWriter, r *http.Request, err error) {
	code := reference.ErrorCodeOf(err)
	if code == reference.EINTERNAL {
		p.logger.ErrorContext(r.Context(), "page failed", "path", r.URL.Path, "error", err)
	}
	if ra := reference.RetryAfterOf(err); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	p.problem(w, r, reference.HTTPStatus(code), reference.ErrorMessageOf(err))
}

// secure says whether r reached the service over HTTPS: directly, or as
// the transport judged it (a public https URL, a trusted proxy's
// X-Forwarded-Proto). Cookies are Secure then.
func secure(r *http.Request) bool {
	c, _ := reference.ClientFromContext(r.Context())
	return r.TLS != nil || c.Secure
}

func formatDate(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2 Jan 2006, 15:04 UTC")
}

// home sends a browser to its tokens page, or to sign in.
func (p *Pages) home(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/settings/tokens", http.StatusSeeOther)
}
