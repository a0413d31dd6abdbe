package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// DataHub's frontend's sign-in API, as its web app and its smoke tests call
// it (datahub-frontend/conf/routes, AuthenticationController): JSON in,
// the session's cookies out. A session opened here is the same as one
// opened by the sign-in page (setSession): each works wherever the other
// does. Every sign-in goes through Service.SignIn, as the page's does.
//
// Each endpoint takes JSON only, which no other site's form can send, so
// no CSRF token is needed; GET /logOut, as DataHub's, needs none either: the
// worst another site can do with it is sign someone out.

// invalidCredentials is DataHub's answer to every failed sign-in.
const invalidCredentials = "Invalid Credentials"

// answerJSON writes {"message": message} with status.
func answerJSON(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": message})
}

// readJSON decodes the request's JSON body into v, or answers the refusal
// itself and returns false: 415 for a body not declared as JSON, 400 for
// one that is not the object described by what.
func readJSON(w http.ResponseWriter, r *http.Request, v any, what string) bool {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		answerJSON(w, http.StatusUnsupportedMediaType, "send the request as application/json")
		return false
	}
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		answerJSON(w, http.StatusBadRequest, "the body is not "+what)
		return false
	}
	return true
}

// apiFailed answers a Service error in JSON: its message when it is meant
// for the client, a generic one (and a log line) when not.
func (p *Pages) apiFailed(w http.ResponseWriter, r *http.Request, err error) {
	code := reference.ErrorCodeOf(err)
	if code == reference.EINTERNAL {
		p.logger.ErrorContext(r.Context(), "sign-in API failed", "path", r.URL.Path, "error", err)
	}
	// An outage, or too many failed sign-ins (429), says when to try again.
	if ra := reference.RetryAfterOf(err); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	answerJSON(w, reference.HTTPStatus(code), reference.ErrorMessageOf(err))
}

// signedInAnswer gives the browser the session and answers 200 with no
// body, as DataHub's createSession does.
func (p *Pages) signedInAnswer(w http.ResponseWriter, r *http.Request, raw string, sess reference.Session) {
	p.setSession(w, r, raw, sess)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// logInAPI is DataHub's POST /logIn: {"username", "password"}. A failed
// sign-in, whatever failed, is 400 {"message": "Invalid Credentials"}, and
// one without a username 400 "User name must not be empty.", as DataHub
// answers them.
func (p *Pages) logInAPI(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if !readJSON(w, r, &in, "a JSON object with username and password") {
		return
	}
	if strings.TrimSpace(in.Username) == "" {
		answerJSON(w, http.StatusBadRequest, "User name must not be empty.")
		return
	}
	raw, sess, err := p.svc.SignIn(r.Context(), in.Username, in.Password)
	if reference.ErrorCodeOf(err) == reference.EUNAUTHENTICATED {
		answerJSON(w, http.StatusBadRequest, invalidCredentials)
		return
	}
	if err != nil {
		p.apiFailed(w, r, err)
		return
	}
	p.signedInAnswer(w, r, raw, sess)
}

// logOutAPI is DataHub's GET /logOut: the session ends (on every replica,
// unlike DataHub's, whose session token stays good until it expires), the
// browser's cookies are cleared, and it is sent to sign in.
func (p *Pages) logOutAPI(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		if err := p.svc.SignOut(r.Context(), c.Value); err != nil {
			p.failed(w, r, err)
			return
		}
	}
	p.clearSession(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// signUpAPI is DataHub's POST /signUp: {"fullName", "email", "password",
// "title", "inviteToken"}. It makes the native user (Service.SignUp) and
// signs them in.
func (p *Pages) signUpAPI(w http.ResponseWriter, r *http.Request) {
	var in struct {
		FullName    string `json:"fullName"`
		Email       string `json:"email"`
		Password    string `json:"password"`
		Title       string `json:"title"`
		InviteToken string `json:"inviteToken"`
	}
	if !readJSON(w, r, &in, "a JSON object with fullName, email, password, title and inviteToken") {
		return
	}
	urn, err := p.svc.SignUp(r.Context(), reference.SignUpInput{
		FullName: in.FullName, Email: in.Email, Password: in.Password, Title: in.Title, InviteToken: in.InviteToken,
	})
	if err != nil {
		p.apiFailed(w, r, err)
		return
	}
	raw, sess, err := p.svc.SignIn(r.Context(), urn.ID, in.Password)
	if err != nil {
		p.apiFailed(w, r, err)
		return
	}
	p.signedInAnswer(w, r, raw, sess)
}
