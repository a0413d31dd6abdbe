package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// Page data: one type per page.

type layout struct {
	Title string
	User  string // the signed-in user's name, "" when signed out
	CSRF  string // the CSRF token of the sign-out form
}

type loginPage struct {
	layout
	Form  string // the sign-in form's CSRF token
	Next  string
	Error string
	// Username is kept after a failed attempt; the password never is.
	Username string
}

type tokensPage struct {
	layout
	// CanGenerate: the signed-in user may make tokens for themself.
	CanGenerate bool
	AuthEnabled bool
	// Creating shows the form that makes a token.
	Creating  bool
	Durations []duration
	Form      tokenForm
	FormError string
	// Created is the token just made, shown this once.
	Created  *createdToken
	Tokens   []tokenRow
	ListNote string // why the list is not shown, when it is not
	// Confirm is the token whose revocation is being confirmed.
	Confirm *tokenRow
	Notice  string
}

type tokenForm struct {
	Name, Description, Duration string
}

type duration struct {
	Value, Label string
}

type createdToken struct {
	Token string
	Name  string
}

type tokenRow struct {
	ID, Name, Description string
	ExpiresAt             *int64
	CreatedAt             int64
}

type graphiqlPage struct {
	layout
	Built bool
}

type problemPage struct {
	layout
	Message string
}

// The durations a token may have, as DataHub's page offers them.
var durations = []duration{
	{reference.DurationOneHour, "1 hour"},
	{reference.DurationOneDay, "1 day"},
	{reference.DurationOneWeek, "1 week"},
	{reference.DurationOneMonth, "1 month"},
	{reference.DurationThreeMonths, "3 months"},
	{reference.DurationSixMonths, "6 months"},
	{reference.DurationOneYear, "1 year"},
	{reference.DurationNoExpiry, "Never"},
}

const defaultDuration = reference.DurationOneMonth

// offered is the durations the form offers: "Never" only where the service
// makes tokens that never expire, as DataHub's page hides it otherwise.
func offered(noExpiry bool) []duration {
	if noExpiry {
		return durations
	}
	return slices.DeleteFunc(slices.Clone(durations), func(d duration) bool { return d.Value == reference.DurationNoExpiry })
}

// safeNext is where to go after signing in: a path on this site, else the
// tokens page. It is judged as it will finally be sent, in the Location
// header, and as a browser reads that header: a browser drops tabs and
// newlines from a URL and reads a backslash as a slash, so `/\host` or
// `/./\host` (which path cleaning turns into the former) is another
// site. Nothing with a control character, a space or a backslash is kept;
// the path is cleaned here, so that what is judged is what is sent.
func safeNext(next string) string {
	const home = "/settings/tokens"
	if next == "" || strings.ContainsFunc(next, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
		return home
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") {
		return home
	}
	clean := path.Clean(u.Path)
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/"
	}
	loc := (&url.URL{Path: clean, RawQuery: u.RawQuery}).String()
	if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
		return home
	}
	return loc
}

// redirectTo sends the browser to loc, a location safeNext gave, exactly
// as it is (http.Redirect would clean it again).
func redirectTo(w http.ResponseWriter, loc string) {
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusSeeOther)
}

func (p *Pages) loginPage(w http.ResponseWriter, r *http.Request) {
	s, err := p.session(r)
	if err != nil {
		p.failed(w, r, err)
		return
	}
	next := safeNext(r.URL.Query().Get("next"))
	if s != nil {
		redirectTo(w, next)
		return
	}
	p.render(w, r, http.StatusOK, "login", loginPage{layout: layout{Title: "Sign in"}, Form: p.preSessionCSRF(w, r), Next: next})
}

func (p *Pages) login(w http.ResponseWriter, r *http.Request) {
	if !p.checkCSRF(r, nil) {
		p.problem(w, r, http.StatusForbidden, "This form has expired or did not come from this site. Go back, reload the page and sign in again.")
		return
	}
	username, password := strings.TrimSpace(r.PostFormValue("username")), r.PostFormValue("password")
	next := safeNext(r.PostFormValue("next"))
	raw, sess, err := p.svc.SignIn(r.Context(), username, password)
	if err != nil {
		code := reference.ErrorCodeOf(err)
		if code != reference.EUNAUTHENTICATED && code != reference.ETOOMANYREQUESTS {
			p.failed(w, r, err)
			return
		}
		// A refusal of the password, or of the attempt (too many failed
		// ones: 429 and when to try again), shows the form again.
		if ra := reference.RetryAfterOf(err); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		p.render(w, r, reference.HTTPStatus(code), "login", loginPage{layout: layout{Title: "Sign in"}, Form: p.preSessionCSRF(w, r), Next: next, Error: reference.ErrorMessageOf(err), Username: username})
		return
	}
	p.setSession(w, r, raw, sess)
	redirectTo(w, next)
}

// setSession gives the browser the session: the same cookies whether it
// signed in through the page, the sign-in API, a sign-up or a password
// reset, so that each works wherever the others do.
func (p *Pages) setSession(w http.ResponseWriter, r *http.Request, raw string, sess reference.Session) {
	for name, value := range map[string]string{SessionCookie: raw, ActorCookie: sess.ActorURN} {
		http.SetCookie(w, &http.Cookie{
			Name: name, Value: value, Path: "/", Expires: sess.ExpiresAt,
			HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode,
		})
	}
}

// clearSession takes the session's cookies from the browser.
func (p *Pages) clearSession(w http.ResponseWriter, r *http.Request) {
	for _, name := range []string{SessionCookie, ActorCookie} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode})
	}
}

func (p *Pages) logout(w http.ResponseWriter, r *http.Request) {
	s, err := p.session(r)
	if err != nil {
		p.failed(w, r, err)
		return
	}
	if s == nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if !p.checkCSRF(r, s) {
		p.problem(w, r, http.StatusForbidden, "This form has expired or did not come from this site. Go back, reload the page and try again.")
		return
	}
	if err := p.svc.SignOut(r.Context(), s.raw); err != nil {
		p.failed(w, r, err)
		return
	}
	p.clearSession(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// resetCredentials is DataHub's POST /resetNativeUserCredentials: JSON
// {"email": username, "password", "resetToken"}. It sets the password and
// signs the user in, as DataHub's frontend does. A JSON API, not a form:
// it is refused unless the body is JSON, which no other site's form can
// send.
func (p *Pages) resetCredentials(w http.ResponseWriter, r *http.Request) {
	answer := func(status int, message string) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": message})
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		answer(http.StatusUnsupportedMediaType, "send the request as application/json")
		return
	}
	var in struct {
		Email      string `json:"email"`
		Password   string `json:"password"`
		ResetToken string `json:"resetToken"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		answer(http.StatusBadRequest, "the body is not a JSON object with email, password and resetToken")
		return
	}
	switch {
	case strings.TrimSpace(in.Email) == "":
		answer(http.StatusBadRequest, "Email must not be empty.")
		return
	case in.ResetToken == "":
		answer(http.StatusBadRequest, "Reset token must not be empty.")
		return
	}
	username := strings.TrimSpace(in.Email)
	if err := p.svc.ResetNativeUserCredentials(r.Context(), username, in.Password, in.ResetToken); err != nil {
		code := reference.ErrorCodeOf(err)
		if code == reference.EINTERNAL {
			p.logger.ErrorContext(r.Context(), "reset credentials", "error", err)
		}
		answer(reference.HTTPStatus(code), reference.ErrorMessageOf(err))
		return
	}
	raw, sess, err := p.svc.SignIn(r.Context(), username, in.Password)
	if err != nil {
		if ra := reference.RetryAfterOf(err); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		answer(reference.HTTPStatus(reference.ErrorCodeOf(err)), reference.ErrorMessageOf(err))
		return
	}
	p.setSession(w, r, raw, sess)
	answer(http.StatusOK, "the password is set")
}

// signedInOrLogin returns the signed-in user, or sends the browser to sign
// in (nil).
func (p *Pages) signedInOrLogin(w http.ResponseWriter, r *http.Request) *signedIn {
	s, err := p.session(r)
	if err != nil {
		p.failed(w, r, err)
		return nil
	}
	if s == nil {
		if r.Method == http.MethodGet {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		} else {
			p.problem(w, r, http.StatusUnauthorized, "You are not signed in, or your session has ended. Sign in and try again.")
		}
		return nil
	}
	return s
}

// tokensData gathers what the tokens page shows the signed-in user.
func (p *Pages) tokensData(s *signedIn) (tokensPage, error) {
	d := tokensPage{
		layout:      layout{Title: "Manage Access Tokens", User: s.actor.URN.ID, CSRF: p.csrfToken("session\x00" + s.raw)},
		AuthEnabled: p.svc.AuthEnabled(),
		Durations:   offered(p.svc.AllowsNoExpiry()),
		Form:        tokenForm{Duration: defaultDuration},
	}
	_, privs, err := p.svc.Me(s.ctx)
	if err != nil {
		return d, err
	}
	d.CanGenerate = privs[reference.PrivGenerateAccessTokens] || privs[reference.PrivManageAccessTokens]
	tokens, _, err := p.svc.ListAccessTokens(s.ctx, reference.ListAccessTokensInput{
		Count: 1000, Filters: map[string][]string{"ownerUrn": {s.actor.URN.String()}},
	})
	switch reference.ErrorCodeOf(err) {
	case "":
		for _, t := range tokens {
			d.Tokens = append(d.Tokens, tokenRow{ID: t.ID, Name: t.Name, Description: t.Description, ExpiresAt: t.ExpiresAt, CreatedAt: t.CreatedAt})
		}
	case reference.EUNAUTHORIZED:
		// Listing one's tokens needs the privileges that making them does;
		// the page says so once, beside the button.
		d.ListNote = "Your tokens cannot be listed without one of those privileges."
	default:
		return d, err
	}
	return d, nil
}

func (p *Pages) showTokens(w http.ResponseWriter, r *http.Request) {
	s := p.signedInOrLogin(w, r)
	if s == nil {
		return
	}
	d, err := p.tokensData(s)
	if err != nil {
		p.failed(w, r, err)
		return
	}
	q := r.URL.Query()
	d.Creating = q.Get("new") != "" && d.CanGenerate && d.AuthEnabled
	if id := q.Get("revoke"); id != "" {
		for i := range d.Tokens {
			if d.Tokens[i].ID == id {
				d.Confirm = &d.Tokens[i]
			}
		}
	}
	if q.Get("revoked") != "" {
		d.Notice = "The token was revoked: it no longer works."
	}
	p.render(w, r, http.StatusOK, "tokens", d)
}

// formPost returns the signed-in user of a form post whose CSRF token
// matches, or answers the refusal itself and returns nil; notDone says
// what the refused form did not do.
func (p *Pages) formPost(w http.ResponseWriter, r *http.Request, notDone string) *signedIn {
	s := p.signedInOrLogin(w, r)
	if s == nil {
		return nil
	}
	if !p.checkCSRF(r, s) {
		p.problem(w, r, http.StatusForbidden, "This form has expired or did not come from this site. Go back, reload the page and try again: "+notDone)
		return nil
	}
	return s
}

func (p *Pages) createToken(w http.ResponseWriter, r *http.Request) {
	s := p.formPost(w, r, "no token was made.")
	if s == nil {
		return
	}
	d, err := p.tokensData(s)
	if err != nil {
		p.failed(w, r, err)
		return
	}
	if !d.AuthEnabled {
		p.render(w, r, http.StatusForbidden, "tokens", d)
		return
	}
	// The token is always the signed-in user's own: the form has no field
	// naming anyone else, and any such field sent is ignored.
	d.Form = tokenForm{Name: strings.TrimSpace(r.PostFormValue("name")), Description: strings.TrimSpace(r.PostFormValue("description")), Duration: r.PostFormValue("duration")}
	if d.Form.Name == "" {
		d.Creating, d.FormError = true, "Give the token a name."
		p.render(w, r, http.StatusBadRequest, "tokens", d)
		return
	}
	raw, info, err := p.svc.CreateAccessToken(s.ctx, reference.CreateAccessTokenInput{
		ActorURN: s.actor.URN.String(), Duration: d.Form.Duration, Name: d.Form.Name, Description: d.Form.Description,
	})
	if err != nil {
		code := reference.ErrorCodeOf(err)
		if code != reference.EBADREQUEST && code != reference.EUNAUTHORIZED {
			p.failed(w, r, err)
			return
		}
		d.Creating, d.FormError = d.CanGenerate, reference.ErrorMessageOf(err)
		if !d.CanGenerate {
			d.Notice = reference.ErrorMessageOf(err)
		}
		p.render(w, r, reference.HTTPStatus(code), "tokens", d)
		return
	}
	d.Created = &createdToken{Token: raw, Name: info.Name}
	d.Form = tokenForm{Duration: defaultDuration}
	d.Tokens = append([]tokenRow{{ID: info.ID, Name: info.Name, Description: info.Description, ExpiresAt: info.ExpiresAt, CreatedAt: info.CreatedAt}}, d.Tokens...)
	p.render(w, r, http.StatusOK, "tokens", d)
}

func (p *Pages) revokeToken(w http.ResponseWriter, r *http.Request) {
	s := p.formPost(w, r, "no token was revoked.")
	if s == nil {
		return
	}
	if err := p.svc.RevokeAccessToken(s.ctx, r.PostFormValue("id")); err != nil {
		p.failed(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings/tokens?revoked=1", http.StatusSeeOther)
}
