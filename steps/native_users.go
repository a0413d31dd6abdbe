package steps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/catalogspec/catalogspec/runner"
)

// Native users, as DataHub has them (NativeUserService): someone holding
// MANAGE_USER_CREDENTIALS hands out an invite token (getInviteToken,
// createInviteToken), and the new person posts it to the frontend's
// /signUp with their full name, email (their username), password and
// title; the frontend makes the user and signs them in. They then sign in
// with POST /logIn (JSON username and password) and carry the cookies it
// answers with, as DataHub's web app and smoke tests do
// (AuthenticationController; smoke-test/tests/utils.py login_as).

// nativeState is what the native-user steps keep in a scenario.
type nativeState struct {
	// invite is the invite token an answer gave last; previousInvite the
	// one before it.
	invite, previousInvite string
	// roleInvites are the invite tokens given for a role ("" for none),
	// and roleInvitesBefore the ones they replaced (invitations.go).
	roleInvites, roleInvitesBefore map[string]string
	// lastClient is the client that made the last sign-in, sign-up or
	// reset attempt.
	lastClient *apiClient
	// kept are cookies a step kept, to be tried after the client lost them.
	keptCookies []*http.Cookie
	// resetTokens are the reset tokens made for the scenario, in order.
	resetTokens []string
	// newPassword is the password a reset attempt tried to set.
	newPassword string
	// before is a user's profile read before an attempt, by username.
	before map[string]string
	// cookiesExpected: the last answer must set cookies (sign_in_api.go).
	cookiesExpected bool
	// removals are the answers of the removals a scenario tried (users.go).
	removals []*answer
	// former is what a removed user held before their name came back
	// (users.go).
	former *formerSelf
	// lookalikeName is a username that reads as another's, which a
	// sign-up tried (invitations.go).
	lookalikeName string
}

// apiClient is a client of the frontend that keeps the cookies it is
// given, as Python's requests.Session does: it sends them with every
// request to the frontend, and takes what each answer's Set-Cookie says
// (new cookies, replaced ones, cleared ones).
type apiClient struct {
	name     string // "Ann's session", "someone"
	frontend string
	jar      *cookiejar.Jar
}

func newAPIClient(name, frontend string) *apiClient {
	jar, _ := cookiejar.New(nil) // never fails without options
	return &apiClient{name: name, frontend: frontend, jar: jar}
}

// cookies are the cookies c holds for its frontend.
func (c *apiClient) cookies() []*http.Cookie {
	u, err := url.Parse(c.frontend + "/")
	if err != nil {
		return nil
	}
	return c.jar.Cookies(u)
}

// clientOf is p's client, made on first use.
func (w *world) clientOf(p *person) *apiClient {
	if p.client == nil {
		p.client = newAPIClient(p.name+"'s session", w.frontend())
	}
	return p.client
}

// cookieHeader is the Cookie header that sends cs.
func cookieHeader(cs []*http.Cookie) string {
	pairs := make([]string, len(cs))
	for i, c := range cs {
		pairs[i] = c.Name + "=" + c.Value
	}
	return strings.Join(pairs, "; ")
}

// clientSend sends a request from c to path on its frontend, with the
// cookies c holds, JSON body when body is not nil, without following a
// redirect; c keeps the cookies the answer sets.
func (w *world) clientSend(c *apiClient, method, path string, body any) *answer {
	u, err := url.Parse(c.frontend + path)
	if err != nil {
		w.addFailure(fmt.Sprintf("a bad URL %q: %v", c.frontend+path, err))
		return &answer{caller: c.name, header: http.Header{}}
	}
	r := request{method: method, url: u.String(), headers: map[string]string{}, noRedirect: true}
	if cs := c.jar.Cookies(u); len(cs) > 0 {
		for _, ck := range cs {
			w.secret(ck.Value)
		}
		r.headers["Cookie"] = cookieHeader(cs)
	}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			w.addFailure(fmt.Sprintf("encoding a request body: %v", err))
			return &answer{caller: c.name, header: http.Header{}}
		}
		r.contentType, r.body = "application/json", b
	}
	a := w.send(caller{name: c.name, frontend: c.frontend}, r)
	if set := setCookies(a); len(set) > 0 {
		for _, ck := range set {
			w.secret(ck.Value)
		}
		c.jar.SetCookies(u, set)
	}
	return a
}

// setCookies are the cookies an answer sets.
func setCookies(a *answer) []*http.Cookie {
	return (&http.Response{Header: a.header}).Cookies()
}

// clientGraphQL posts a GraphQL document from c to the frontend's
// /api/v2/graphql, where DataHub's web app and smoke tests send theirs.
func (w *world) clientGraphQL(c *apiClient, doc string, vars map[string]any) *answer {
	a := w.clientSend(c, http.MethodPost, "/api/v2/graphql", graphQLRequest{Query: doc, Variables: vars})
	a.what = "a GraphQL request from " + c.name
	return a
}

// clientWhoAmI asks `me` from c, on the frontend's v2 GraphQL endpoint.
func (w *world) clientWhoAmI(c *apiClient) *answer {
	a := w.clientGraphQL(c, w.suite.docs.me, nil)
	a.what = c.name + " asking who it is at the frontend's /api/v2/graphql"
	a.noEffect = nothingToCheck
	return a
}

// signInAt posts a username and password to the frontend's /logIn from c,
// as DataHub's login_as does; fields holds what is sent (a field left out
// is not sent).
func (w *world) signInAt(c *apiClient, fields map[string]string) *answer {
	a := w.clientSend(c, http.MethodPost, "/logIn", fields)
	a.what = fmt.Sprintf("%s signing in at %s/logIn as %q", c.name, c.frontend, fields["username"])
	a.noEffect = nothingToCheck
	return a
}

// signInAs signs in as username with password from a new client.
func (w *world) signInAs(name, username, password string) (*apiClient, *answer) {
	c := newAPIClient(name, w.frontend())
	w.secret(password)
	return c, w.signInAt(c, map[string]string{"username": username, "password": password})
}

// notSignedIn checks that c's cookies are no session: the frontend's
// GraphQL endpoint refuses them, as it refuses a request with no
// credentials (401).
func (w *world) notSignedIn(c *apiClient) error {
	a := w.clientWhoAmI(c)
	if a.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401: %s holds a session", a.what, a.status, c.name)
	}
	return nil
}

// signsInAs checks that username signs in with password and that the
// session is answered as urn.
func (w *world) signsInAs(username, password, urn string) error {
	c, a := w.signInAs("a new session of "+username, username, password)
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200: the password does not sign in", a.what, a.status)
	}
	return w.answerNames(w.clientWhoAmI(c), urn)
}

// cannotSignIn checks that username does not sign in with password: the
// sign-in is refused and the client holds no session.
func (w *world) cannotSignIn(username, password string) error {
	c, a := w.signInAs("someone signing in as "+username, username, password)
	if a.status < 400 {
		return w.fail("%s answered status %d, expected a refusal: the password signs in", a.what, a.status)
	}
	return w.notSignedIn(c)
}

// inviteToken asks for the current invite token as c (getInviteToken) or,
// with create, makes a new one (createInviteToken).
func (w *world) inviteTokenAs(c caller, create bool) *answer {
	doc, field, what := w.suite.docs.getInviteToken, "getInviteToken", "asking for the invite token"
	if create {
		doc, field, what = w.suite.docs.createInviteToken, "createInviteToken", "making a new invite token"
	}
	a := w.graphql(c, doc, map[string]any{"input": map[string]any{}})
	a.what = c.name + " " + what + " (" + field + ")"
	return a
}

// inviteFrom reads the invite token out of an answer to getInviteToken or
// createInviteToken.
func (w *world) inviteFrom(a *answer, field string) (string, error) {
	var out *struct {
		InviteToken string `json:"inviteToken"`
	}
	if err := a.data(field, &out); err != nil {
		return "", w.failed(err)
	}
	if out == nil || out.InviteToken == "" {
		return "", w.fail("%s answered no invite token", a.what)
	}
	w.secret(out.InviteToken)
	return out.InviteToken, nil
}

// currentInvite is the invite token the administrator reads now, once
// the target keeps one (invitesSettled).
func (w *world) currentInvite() (string, error) {
	if err := w.invitesSettled(); err != nil {
		return "", err
	}
	return w.readInvite()
}

// readInvite is the administrator's getInviteToken.
func (w *world) readInvite() (string, error) {
	return w.inviteFrom(w.inviteTokenAs(w.admin(), false), "getInviteToken")
}

// One invite token at a time. DataHub's InviteTokenService keeps invite
// tokens as entities it finds through its search index (up to ten, of the
// role asked for: hasRole false when none is, the suite's case).
// getInviteToken returns the one it finds; finding none it makes one, and
// finding more than one it deletes every one it found and makes a new one.
// createInviteToken makes a new one beside the one before (unless it too
// finds more than one). So after a createInviteToken, or two first
// getInviteTokens at once, the target holds two, and the next reader's
// clean-up withdraws the token another scenario has just read; and while
// the index lags, every reader cleans up again. The suite keeps it at one:
// the first scenario of a run that uses an invite token settles the
// target's (the others wait for it), and a scenario that makes a new one
// settles them again as it ends (these are @exclusive, run with nothing
// else running).

// invitePool is whether the target's invite tokens have settled to one,
// shared by the scenarios of a run.
type invitePool struct {
	mu      sync.Mutex
	settled bool
	// settling is closed when the scenario settling them is done; nil
	// when none is.
	settling chan struct{}
}

// invitesSettled returns once the target's invite tokens have settled to
// one in this run, settling them when no scenario has.
func (w *world) invitesSettled() error {
	g := &w.suite.invites
	for {
		g.mu.Lock()
		if g.settled {
			g.mu.Unlock()
			return nil
		}
		if g.settling == nil {
			done := make(chan struct{})
			g.settling = done
			g.mu.Unlock()
			err := w.settleInvites("")
			g.mu.Lock()
			g.settled, g.settling = err == nil, nil
			g.mu.Unlock()
			close(done)
			return err
		}
		done := g.settling
		g.mu.Unlock()
		w.waitOn(done)
	}
}

// settleInvitesAtEnd settles the target's invite tokens again when the
// scenario ends, after it made a new one (made): DataHub keeps the one
// before beside it.
func (w *world) settleInvitesAtEnd(made string) {
	w.undo("settling the invite tokens to one", func() error {
		err := w.settleInvites(made)
		if err != nil {
			g := &w.suite.invites
			g.mu.Lock()
			g.settled = false // the next reader tries again
			g.mu.Unlock()
		}
		return err
	})
}

// waitOn waits until done is closed, its slot given to another scenario
// meanwhile.
func (w *world) waitOn(done <-chan struct{}) {
	if w.admitted && w.suite.Sched != nil {
		w.suite.Sched.Pause(w.name)
		defer w.suite.Sched.Resume(w.name)
	}
	<-done
}

// settleInvites reads the invite token until the target keeps one: until a
// read, made when whatever the read before it wrote has had time to show
// in the target's search index (twice its search lag), answers the token
// that read answered (or made: the token the scenario made last, "" for
// none). Such a read found exactly one token and wrote nothing, and the
// index held every write: the target holds that one token alone.
func (w *world) settleInvites(made string) error {
	pause := max(2*w.suite.Target.SearchLag(), 20*time.Millisecond)
	deadline := time.Now().Add(w.suite.Target.Propagation)
	prev := made
	var seen int
	for {
		// The first read of a run needs no pause: what was written before
		// it shows by the next.
		if prev != "" {
			began := time.Now()
			w.sleep(pause)
			d := time.Since(began)
			w.waited += d
			w.suite.Waits.Add(d)
		}
		now, err := w.readInvite()
		if err != nil {
			return err
		}
		if now == prev {
			return nil
		}
		prev = now
		if seen++; time.Now().Add(pause).After(deadline) {
			return w.fail("the invite token did not settle within the propagation window of %s (%s): %d reads of getInviteToken, each %s after the one before, each answered another token",
				w.suite.Target.Propagation, runner.EnvPropagation, seen, pause)
		}
	}
}

// signUpBody is what p sends to /signUp with the invite token: DataHub's
// fields, the email being the username.
func (p *person) signUpBody(invite string) map[string]string {
	return map[string]string{"fullName": p.fullName, "email": p.username, "password": p.password, "title": p.title, "inviteToken": invite}
}

// choosePassword gives p a random password and the name and title they
// sign up with, unless they have them.
func (w *world) choosePassword(p *person) {
	if p.password == "" {
		p.password = "pw-" + randomID(16)
	}
	w.secret(p.password)
	if p.fullName == "" {
		p.fullName, p.title = p.name+" (catalogspec)", "Data Engineer"
	}
}

// signUp posts body to the frontend's /signUp from c.
func (w *world) signUp(c *apiClient, who string, body map[string]string) *answer {
	a := w.clientSend(c, http.MethodPost, "/signUp", body)
	a.what = fmt.Sprintf("%s signing up at %s/signUp as %q", who, c.frontend, body["email"])
	return a
}

// signUpInvited makes p a native user as DataHub does: the administrator
// reads the invite token, p signs up with it. DataHub keeps invite tokens
// in a search index, and two readers at once may each make one; a token
// that is refused is read again, within the propagation window.
func (w *world) signUpInvited(p *person) error {
	w.choosePassword(p)
	c := w.clientOf(p)
	err := w.eventually("signing "+p.name+" up with the administrator's invite token", func() (bool, error) {
		invite, err := w.currentInvite()
		if err != nil {
			return false, err
		}
		a := w.signUp(c, p.name, p.signUpBody(invite))
		if a.status != http.StatusOK {
			return false, w.fail("%s answered status %d, expected 200", a.what, a.status)
		}
		p.session = setCookies(a)
		return true, nil
	})
	if err != nil {
		return err
	}
	p.exists, p.native = true, true
	return nil
}

// profile reads the user at urn as the administrator: its username, full
// name, display name, email and title as one line, "" when there is no
// profile (no user, or a user without info).
func (w *world) profile(urn string) (string, error) {
	a := w.graphql(w.admin(), w.suite.docs.corpUserProfile, map[string]any{"urn": urn})
	a.what = "the administrator looking up " + urn
	var u *struct {
		Username string `json:"username"`
		Info     *struct {
			Active      bool    `json:"active"`
			DisplayName *string `json:"displayName"`
			FullName    *string `json:"fullName"`
			Email       *string `json:"email"`
			Title       *string `json:"title"`
		} `json:"info"`
	}
	if err := a.data("corpUser", &u); err != nil {
		return "", w.failed(err)
	}
	if u == nil || u.Info == nil {
		return "", nil
	}
	s := func(p *string) string {
		if p == nil {
			return "(none)"
		}
		return fmt.Sprintf("%q", *p)
	}
	i := u.Info
	return fmt.Sprintf("username %q, active %t, display name %s, full name %s, email %s, title %s", u.Username, i.Active, s(i.DisplayName), s(i.FullName), s(i.Email), s(i.Title)), nil
}

// noProfile checks that the user at urn has no profile.
func (w *world) noProfile(urn string) error {
	got, err := w.profile(urn)
	if err != nil {
		return err
	}
	if got != "" {
		return w.fail("%s has a profile (%s), expected none: the user exists", urn, got)
	}
	return nil
}

// jsonMessage is the "message" of a JSON error body, "" when there is none.
func jsonMessage(a *answer) string {
	var body struct {
		Message string `json:"message"`
	}
	if a.jsonBody(&body) != nil {
		return ""
	}
	return body.Message
}
