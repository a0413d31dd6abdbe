package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/catalogspec/catalogspec/runner"
)

// registerSignInAPISteps registers the steps of features/sign_in_api.feature.
func registerSignInAPISteps(s stepRegistrar) {
	s.Step(`^someone signs in( at the sign-in API)? as `+who+` with wrong passwords until the frontend stops checking them$`, guessesUntilThrottled)
	s.Step(`^at the sign-in API, `+who+`'s right password is refused the same way, and signs no one in$`, rightPasswordThrottledAtAPI)
	s.Step(`^`+who+` signs in at the sign-in API with `+own+` password$`, signsInAtAPIWithPassword)
	s.Step(`^the frontend answers status 429 and says when to try again$`, throttledSaysWhen)
	s.Step(`^`+who+` signs in at the frontend's sign-in API$`, signsInAtAPI)
	s.Step(`^`+who+` is signed in at the frontend's sign-in API$`, isSignedInAtAPI)
	s.Step(`^someone signs in at the frontend's sign-in API with (.+)$`, someoneSignsInAtAPIWith)
	s.Step(`^someone signs in at the frontend's sign-in API without a username$`, signsInWithoutUsername)
	s.Step(`^someone signs in at the frontend's sign-in API as `+who+` with (any password|an empty password)$`, signsInWithAnyPassword)
	s.Step(`^the sign-in is accepted with cookies, one of them naming `+who+`$`, signInAccepted)
	s.Step(`^`+who+`'s session is answered as `+who+` on the frontend's v2 GraphQL endpoint$`, sessionAnsweredAs)
	s.Step(`^`+who+`'s session reads `+own+` own user through the frontend's entity path$`, sessionReadsOwnUser)
	s.Step(`^the sign-in is refused as DataHub refuses wrong credentials$`, signInRefusedAsWrong)
	s.Step(`^the sign-in is refused, saying the user name must not be empty$`, signInRefusedNoUsername)
	s.Step(`^the client that tried is not signed in$`, clientThatTriedNotSignedIn)
	s.Step(`^`+who+`'s session creates a tag through the frontend's v2 GraphQL endpoint$`, sessionCreatesTag)
	s.Step(`^`+who+`'s session is rejected as unauthorized$`, sessionRejectedAsUnauthorized)
	s.Step(`^`+who+` signs out at the frontend's sign-out API$`, signsOutAtAPI)
	s.Step(`^`+who+`'s client is no longer signed in$`, clientNoLongerSignedIn)
	s.Step(`^the cookies of `+who+`'s session are kept$`, keepSessionCookies)
	s.Step(`^the kept cookies are refused on the frontend's v2 GraphQL endpoint$`, keptSessionCookiesRefused)
	s.Step(`^`+who+` gets no session that works$`, getsNoWorkingSession)
	s.Step(`^`+who+`'s session is refused on the frontend's v2 GraphQL endpoint$`, sessionRefused)
	s.Step(`^the administrator has removed `+who+`$`, adminRemovesUser)
	s.Step(`^someone sends `+who+`'s personal access token as the session cookie to the frontend's v2 GraphQL endpoint$`, tokenAsSessionCookie)
	s.Step(`^over HTTPS, (Ann signs in at the sign-in API|Ann's session asks who she is at the frontend's v2 GraphQL endpoint|Carl signs up with the invite token|Ann sets a new password with a reset token|someone opens the sign-in page)$`, overHTTPS)
	s.Step(`^every cookie the frontend set is Secure$`, everyCookieSecure)
	s.Step(`^the answer tells the browser to come back over HTTPS alone$`, answerCarriesHSTS)
}

// The frontend's sign-in API (sign_in_api.feature), as DataHub's
// AuthenticationController answers it: POST /logIn with JSON username and
// password; 200 and cookies (PLAY_SESSION, and "actor" naming the user),
// or 400 with {"message": "Invalid Credentials"}; 400 with "User name must
// not be empty." when there is no username; GET /logOut clears the session.

// invalidCredentials is DataHub's message for every failed sign-in.
const invalidCredentials = "Invalid Credentials"

// userNameEmpty is DataHub's message for a sign-in without a username.
const userNameEmpty = "User name must not be empty."

// signInAttempt signs p in from a new client, which becomes p's.
func (w *world) signInAttempt(p *person) (*apiClient, *answer, error) {
	if p.password == "" {
		return nil, nil, w.fail("%s has no password to sign in with: the scenario needs \"Given %s has a password\"", p.name, p.name)
	}
	c, a := w.signInAs(p.name+"'s session", p.username, p.password)
	p.client = c
	w.lastClient = c
	w.last = a
	return c, a, nil
}

func signsInAtAPI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	_, _, err := w.signInAttempt(p)
	if err != nil {
		return err
	}
	return w.checkpoint()
}

func isSignedInAtAPI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	c, a, err := w.signInAttempt(p)
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	return w.answerNames(w.clientWhoAmI(c), p.urn)
}

func someoneSignsInAtAPIWith(ctx context.Context, attempt string) error {
	w := theWorld(ctx)
	ann := w.person("Ann")
	username, password := ann.username, ann.password
	switch attempt {
	case "Ann's username and a wrong password":
		password = "not-" + ann.password
	case "a username no one has":
		username = w.unique("nobody") + "@example.com"
	case "Ann's username and no password":
		password = ""
	case "Ann's username in capitals":
		// Another username, as DataHub's URNs are case-sensitive.
		username = strings.ToUpper(ann.username)
	default:
		return w.fail("unknown sign-in attempt %q", attempt)
	}
	c, a := w.signInAs("someone", username, password)
	w.lastClient, w.last = c, a
	return w.checkpoint()
}

func signsInWithoutUsername(ctx context.Context) error {
	w := theWorld(ctx)
	c := newAPIClient("someone", w.frontend())
	a := w.signInAt(c, map[string]string{"password": "pw-" + randomID(16)})
	w.lastClient, w.last = c, a
	return w.checkpoint()
}

func signsInWithAnyPassword(ctx context.Context, name, which string) error {
	w := theWorld(ctx)
	p := w.person(name)
	password := "pw-" + randomID(16)
	if which == "an empty password" {
		password = ""
	}
	c, a := w.signInAs("someone", p.username, password)
	w.lastClient, w.last = c, a
	return w.checkpoint()
}

// signInAccepted checks DataHub's answer to a good sign-in: 200, and among
// the cookies an "actor" cookie naming the user (DataHub's smoke tests read
// it: TestSessionWrapper._generate_gms_token).
func signInAccepted(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	p := w.person(name)
	var names []string
	for _, c := range setCookies(a) {
		names = append(names, c.Name)
		if c.Name != "actor" {
			continue
		}
		v, err := url.QueryUnescape(c.Value)
		if err != nil {
			v = c.Value
		}
		if v != p.urn {
			return w.fail("%s set the actor cookie to %q, expected %s's URN %q", a.what, v, name, p.urn)
		}
		return nil
	}
	return w.fail("%s set the cookies %v, and no \"actor\" cookie naming %s (DataHub's clients read it)", a.what, names, name)
}

func sessionAnsweredAs(ctx context.Context, name, as string) error {
	w := theWorld(ctx)
	return w.answerNames(w.clientWhoAmI(w.clientOf(w.person(name))), w.person(as).urn)
}

func sessionReadsOwnUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c := w.clientOf(p)
	a := w.clientSend(c, http.MethodGet, "/api/gms/entities/"+url.PathEscape(p.urn), nil)
	a.what = fmt.Sprintf("%s reading %s through the frontend's entity path", c.name, p.urn)
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var snap struct {
		Value map[string]struct {
			URN string `json:"urn"`
		} `json:"value"`
	}
	if err := a.jsonBody(&snap); err != nil {
		return w.failed(err)
	}
	if got := snap.Value["com.linkedin.metadata.snapshot.CorpUserSnapshot"].URN; got != p.urn {
		return w.fail("%s answered the snapshot of %q, expected %s's user %q", a.what, got, name, p.urn)
	}
	return nil
}

// refusedWithMessage checks a refusal of the sign-in API: 400 with
// DataHub's JSON message.
func (w *world) refusedWithMessage(a *answer, message string) error {
	if a.status != http.StatusBadRequest {
		return w.fail("%s answered status %d, expected 400 as DataHub answers", a.what, a.status)
	}
	if got := jsonMessage(a); got != message {
		return w.fail("%s answered the message %q, expected DataHub's %q", a.what, got, message)
	}
	return nil
}

func signInRefusedAsWrong(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.refusedWithMessage(a, invalidCredentials)
}

func signInRefusedNoUsername(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.refusedWithMessage(a, userNameEmpty)
}

func clientThatTriedNotSignedIn(ctx context.Context) error {
	w := theWorld(ctx)
	if w.lastClient == nil {
		return w.fail("no client tried anything")
	}
	return w.notSignedIn(w.lastClient)
}

func sessionCreatesTag(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c := w.clientOf(w.person(name))
	t := w.newTag()
	w.tag = t
	w.undoTag(t)
	a := w.clientGraphQL(c, w.suite.docs.createTag, map[string]any{"input": map[string]any{"id": t.id, "name": t.name, "description": t.description}})
	a.what = fmt.Sprintf("%s creating the tag %s", c.name, t.urn)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.last = a
	return w.checkpoint()
}

func sessionRejectedAsUnauthorized(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if want := w.clientOf(w.person(name)).name; a.caller != want {
		return w.fail("the last request was made by %s, not %s", a.caller, want)
	}
	return w.rejectedAsUnauthorized(a)
}

func signsOutAtAPI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c := w.clientOf(w.person(name))
	a := w.clientSend(c, http.MethodGet, "/logOut", nil)
	a.what = c.name + " signing out at " + c.frontend + "/logOut"
	if a.status >= 400 {
		return w.fail("%s answered status %d, expected the sign-out to be done (DataHub redirects to /login)", a.what, a.status)
	}
	return nil
}

func clientNoLongerSignedIn(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.notSignedIn(w.clientOf(w.person(name)))
}

func keepSessionCookies(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c := w.clientOf(w.person(name))
	w.keptCookies = c.cookies()
	if len(w.keptCookies) == 0 {
		return w.fail("%s holds no cookie of the frontend", c.name)
	}
	return nil
}

func keptSessionCookiesRefused(ctx context.Context) error {
	w := theWorld(ctx)
	if len(w.keptCookies) == 0 {
		return w.fail("no cookies were kept")
	}
	c := newAPIClient("someone with the kept cookies", w.frontend())
	u, _ := url.Parse(w.frontend() + "/")
	c.jar.SetCookies(u, w.keptCookies)
	a := w.clientWhoAmI(c)
	if a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
		return w.fail("%s answered status %d, expected a refusal (401 or 403): the session outlived signing out", a.what, a.status)
	}
	return nil
}

// refusedEventually asks `me` from c until it is refused (401 or 403),
// within the propagation window: DataHub judges whether a user is active
// from what it reads of the user, which may lag behind a change.
func (w *world) refusedEventually(c *apiClient) error {
	return w.eventually(c.name+" being refused", func() (bool, error) {
		a := w.clientWhoAmI(c)
		if a.status == http.StatusUnauthorized || a.status == http.StatusForbidden {
			return true, nil
		}
		return false, w.fail("%s answered status %d, expected a refusal (401 or 403)", a.what, a.status)
	})
}

// getsNoWorkingSession: whatever the sign-in answered, the cookies it gave
// are no session that any request honours.
func getsNoWorkingSession(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.lastClient == nil {
		return w.fail("%s made no sign-in attempt", name)
	}
	return w.refusedEventually(w.lastClient)
}

func sessionRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.refusedEventually(w.clientOf(w.person(name)))
}

// guessesUntilThrottled sends wrong passwords for name, through the
// sign-in form or DataHub's sign-in API (/logIn), until an answer other
// than a refusal of the password comes (the form refuses one with 401,
// the API with 400).
func guessesUntilThrottled(ctx context.Context, api, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	for i := 1; i <= maxGuesses; i++ {
		wrong := "not-" + p.password + "-" + randomID(4)
		w.secret(wrong)
		var a *answer
		refused := http.StatusUnauthorized
		if api != "" {
			a, refused = w.signInAt(newAPIClient("someone", w.frontend()), map[string]string{"username": p.username, "password": wrong}), http.StatusBadRequest
		} else {
			a = w.signInThroughForm("someone", w.frontend()+"/login", p.username, wrong)
		}
		a.what = fmt.Sprintf("wrong password %d for %s", i, name)
		w.last = a
		if a.status != refused {
			return w.checkpoint()
		}
	}
	return w.fail("%d wrong passwords for %s were each refused as wrong: nothing throttles them", maxGuesses, name)
}

func throttledSaysWhen(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.throttled(a)
}

func rightPasswordThrottledAtAPI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c := newAPIClient("someone", w.frontend())
	a := w.signInAt(c, map[string]string{"username": p.username, "password": p.password})
	a.what = fmt.Sprintf("%s's right password at the sign-in API, after the wrong ones", name)
	if err := w.throttled(a); err != nil {
		return err
	}
	return w.notSignedIn(c)
}

func signsInAtAPIWithPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	return w.signsInAs(p.username, p.password, p.urn)
}

// tokenAsSessionCookie sends `me` to the frontend's v2 GraphQL endpoint
// with p's personal access token as the value of the session cookie
// (PLAY_SESSION, as DataHub's frontend names it) and no Authorization
// header: a cookie holds a session the frontend's sign-in made, or nothing.
func tokenAsSessionCookie(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if p.token == "" {
		return w.fail("%s holds no personal access token", name)
	}
	t := w.suite.Target
	c := caller{name: "someone with " + name + "'s token as the session cookie", gms: t.GMS, frontend: t.Frontend,
		headers: map[string]string{"Cookie": "PLAY_SESSION=" + p.token + "; actor=" + url.QueryEscape(p.urn)}}
	w.last = w.askWhoAmI(c, t.Frontend+"/api/v2/graphql")
	return w.checkpoint()
}

// Over HTTPS (signapi-17, @cap:https-frontend): the frontend as people reach
// it through what terminates TLS in front of it. Its cookies then carry
// Secure, so that a browser never sends them over plain HTTP, and its
// answers Strict-Transport-Security, so that the browser comes back over
// HTTPS alone (RFC 6265 section 4.1.2.5, RFC 6797).

// overHTTPS does, at the frontend's HTTPS URL, what the step says; the
// answer is the last one, judged by the next steps.
func overHTTPS(ctx context.Context, does string) error {
	w := theWorld(ctx)
	front := w.suite.Target.HTTPSFrontend
	if front == "" {
		return w.fail("the target names no HTTPS frontend (%s)", runner.EnvHTTPSFrontend)
	}
	w.cookiesExpected = true
	switch does {
	case "Ann signs in at the sign-in API", "Ann's session asks who she is at the frontend's v2 GraphQL endpoint":
		p := w.person("Ann")
		if err := w.givePassword(p); err != nil {
			return err
		}
		c := newAPIClient("Ann's browser over HTTPS", front)
		a := w.signInAt(c, map[string]string{"username": p.username, "password": p.password})
		w.last = a
		if does == "Ann signs in at the sign-in API" {
			if a.status != http.StatusOK {
				return w.fail("%s answered status %d, expected 200", a.what, a.status)
			}
			return nil
		}
		if len(c.cookies()) == 0 {
			return w.fail("%s answered status %d and set no cookie the client keeps over HTTPS", a.what, a.status)
		}
		w.cookiesExpected = false
		me := w.clientWhoAmI(c)
		w.last = me
		return w.answerNames(me, p.urn)
	case "Carl signs up with the invite token":
		p := w.person("Carl")
		w.choosePassword(p)
		invite, err := w.currentInvite()
		if err != nil {
			return err
		}
		a := w.signUp(newAPIClient("Carl's browser over HTTPS", front), p.name, p.signUpBody(invite))
		w.last = a
		if a.status != http.StatusOK {
			return w.fail("%s answered status %d, expected 200", a.what, a.status)
		}
		p.exists, p.native = true, true
		return nil
	case "Ann sets a new password with a reset token":
		p := w.person("Ann")
		if err := w.givePassword(p); err != nil {
			return err
		}
		made := w.graphql(w.admin(), w.suite.docs.createResetToken, map[string]any{"input": map[string]any{"userUrn": p.urn}})
		made.what = "the administrator making a password reset token for Ann"
		var out *struct {
			ResetToken string `json:"resetToken"`
		}
		if err := made.data("createNativeUserResetToken", &out); err != nil {
			return w.failed(err)
		}
		if out == nil || out.ResetToken == "" {
			return w.fail("%s answered no reset token", made.what)
		}
		w.secret(out.ResetToken)
		password := "pw-" + randomID(16)
		w.secret(password)
		a := w.clientSend(newAPIClient("Ann's browser over HTTPS", front), http.MethodPost, "/resetNativeUserCredentials",
			map[string]string{"email": p.username, "password": password, "resetToken": out.ResetToken})
		a.what = "Ann setting a new password with a reset token over HTTPS"
		w.last = a
		if a.status != http.StatusOK {
			return w.fail("%s answered status %d, expected 200", a.what, a.status)
		}
		p.password = password
		return nil
	}
	// The sign-in page: whatever cookies it sets (a form's), and HSTS.
	w.cookiesExpected = false
	a := w.send(caller{name: "someone over HTTPS", frontend: front}, request{method: http.MethodGet, url: front + "/login"})
	a.what = "someone opening the sign-in page over HTTPS"
	for _, c := range setCookies(a) {
		w.secret(c.Value)
	}
	w.last = a
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	return nil
}

// everyCookieSecure: every cookie the last answer set carries Secure (and
// there is one, where the step signed someone in).
func everyCookieSecure(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	cookies := setCookies(a)
	if w.cookiesExpected && len(cookies) == 0 {
		return w.fail("%s set no cookie, expected the session's", a.what)
	}
	for _, c := range cookies {
		if !c.Secure {
			return w.fail("%s set the cookie %s without Secure: a browser would send it over plain HTTP too", a.what, c.Name)
		}
	}
	return nil
}

// answerCarriesHSTS: the last answer carries Strict-Transport-Security with
// a positive max-age (RFC 6797 section 6.1.1; max-age=0 tells the browser
// to forget it).
func answerCarriesHSTS(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	h := a.header.Get("Strict-Transport-Security")
	for _, d := range strings.Split(h, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(d), "=")
		if strings.EqualFold(k, "max-age") {
			if n, err := strconv.Atoi(strings.Trim(v, `"`)); err == nil && n > 0 {
				return nil
			}
		}
	}
	return w.fail("%s answered Strict-Transport-Security %q, expected one with a positive max-age", a.what, h)
}
