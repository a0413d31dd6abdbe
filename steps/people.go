package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// registerPeopleSteps registers the steps of who people are and the tokens they hold,
// which several features share.
func registerPeopleSteps(s stepRegistrar) {
	s.Step(`^`+who+` has a password$`, hasPassword)
	s.Step(`^`+who+` cannot sign in at the frontend's sign-in API with (?:the password `+pronoun+` chose|`+own+` password)$`, cannotSignInWithPassword)
	s.Step(`^`+who+` holds a personal access token$`, holdsToken)
	s.Step(`^`+who+` is a user$`, isAUser)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+`$`, asksWhoSheIs)
	s.Step(`^the answer names `+who+` as the signed-in user$`, answerNamesSignedInUser)
	s.Step(`^`+who+`'s token is refused$`, tokenIsRefused)
	s.Step(`^`+who+` is a user known only by `+own+` user name$`, isUserKnownOnlyByName)
}

// person is someone a scenario names ("Ann", "Bob", "Mia"). Each scenario
// maps the name to a user of its own, so scenarios never share users.
type person struct {
	name      string // as the scenario says it
	username  string
	urn       string
	exists    bool   // the user was made on the target
	token     string // the token the administrator made for them: "Ann's token"
	suspended bool   // the administrator suspended them
	removed   bool   // the administrator removed them
	tokenID   string
	// probeToken is a token the administrator made for p only to watch
	// p's privileges change, when the scenario gave p none (probe).
	probeToken string
	password   string         // set by the suite for signing in (ui.go)
	session    []*http.Cookie // what the frontend set when the password was
	// native: the user signed up with an invite token (native_users.go);
	// fullName and title are what they signed up with.
	native          bool
	fullName, title string
	// client is the person's own HTTP client of the frontend's sign-in
	// API, with the cookies it was given (native_users.go).
	client *apiClient
}

// person returns the scenario's person called name, making the record (not
// the user) on first mention. In a scenario of native users the username is
// an email address, as DataHub's sign-up asks by default
// (auth.native.signUp.enforceValidEmail).
func (w *world) person(name string) *person {
	p, ok := w.people[name]
	if !ok {
		username := fmt.Sprintf("catalogspec-%s-%s", strings.ToLower(name), w.id)
		if w.native {
			username += "@example.com"
		}
		p = &person{name: name, username: username, urn: "urn:li:corpuser:" + username}
		w.people[name] = p
	}
	return p
}

// admin is the administrator: a user holding every privilege, or on the
// auth-disabled deployment the system actor, who may do everything.
func (w *world) admin() caller {
	if w.noAuth {
		a := w.anonymous()
		a.name = "the administrator (the system actor)"
		return a
	}
	t := w.suite.Target
	if w.suite.ReadOnly {
		// A step of a scenario that is not read-only: it fails rather
		// than send anything.
		w.addFailure("this step needs the administrator, whom a read-only audit does not have")
	}
	return caller{name: "the administrator", token: t.AdminToken, gms: t.GMS, frontend: t.Frontend}
}

// canActAs reports whether the suite can send requests as p: with p's
// token, or on the auth-disabled deployment by naming p in X-DataHub-Actor.
func (w *world) canActAs(p *person) bool {
	return p.token != "" || w.noAuth
}

// as is p using the token the administrator made for them, or on the
// auth-disabled deployment someone naming p in X-DataHub-Actor.
func (w *world) as(p *person) (caller, error) {
	if w.noAuth {
		c := w.anonymous()
		c.name = p.name
		c.headers = map[string]string{"X-DataHub-Actor": p.urn}
		return c, nil
	}
	if p.token == "" {
		return caller{}, w.fail("%s holds no personal access token: the scenario needs \"Given %s holds a personal access token\"", p.name, p.name)
	}
	return w.withToken(p.name, p.token), nil
}

// withToken is someone called name sending token, on the later-clock
// instance once the scenario has moved there.
func (w *world) withToken(name, token string) caller {
	t := w.suite.Target
	c := caller{name: name, token: token, gms: t.GMS, frontend: t.Frontend}
	if w.later {
		c.gms, c.frontend = t.LaterGMS, ""
	}
	return c
}

// anonymous is someone without a token, at the auth-disabled deployment
// when the scenario is about it.
func (w *world) anonymous() caller {
	t := w.suite.Target
	if w.noAuth {
		return caller{name: "someone without a token", gms: t.NoAuthGMS, frontend: t.NoAuthFrontend}
	}
	return caller{name: "someone without a token", gms: t.GMS, frontend: t.Frontend}
}

// reader is who reads back what a scenario did: the administrator, or in
// a read-only audit the operator's user (Ada), or no one when the audit
// was given no token.
func (w *world) reader() caller {
	if w.suite.ReadOnly {
		t := w.suite.Target
		if t.UserToken == "" {
			return w.anonymous()
		}
		return caller{name: "the operator's user", token: t.UserToken, gms: t.GMS, frontend: t.Frontend}
	}
	return w.admin()
}

// corpUserInfo is the corpUserInfo aspect of a scenario's user.
type corpUserInfo struct {
	Active      bool   `json:"active"`
	DisplayName string `json:"displayName"`
	Email       string `json:"email"`
}

// ensureUser makes p's user on the target, unless it was made already:
// in a scenario of native users (@cap:native-users) as DataHub makes them,
// by invitation and sign-up with a password; otherwise through ingestion
// by the administrator.
func (w *world) ensureUser(p *person) error {
	if p.exists {
		return nil
	}
	if w.native {
		return w.signUpInvited(p)
	}
	admin := w.admin()
	if err := w.mustIngest(admin, "corpuser", p.urn, "corpUserKey", map[string]string{"username": p.username}); err != nil {
		return err
	}
	info := corpUserInfo{Active: true, DisplayName: p.name + " (catalogspec)", Email: p.username + "@example.com"}
	if err := w.mustIngest(admin, "corpuser", p.urn, "corpUserInfo", info); err != nil {
		return err
	}
	p.exists = true
	return nil
}

// giveToken makes p's user and has the administrator create a personal
// access token for them.
func (w *world) giveToken(p *person) error {
	if err := w.ensureUser(p); err != nil {
		return err
	}
	tok, err := w.mustCreateToken(w.admin(), p)
	if err != nil {
		return err
	}
	p.token, p.tokenID = tok.raw, tok.meta.ID
	return nil
}

// meView is the part of `me` the suite reads.
type meView struct {
	CorpUser struct {
		URN      string `json:"urn"`
		Username string `json:"username"`
	} `json:"corpUser"`
	PlatformPrivileges map[string]bool `json:"platformPrivileges"`
}

// privilegeFields are the fields of `me.platformPrivileges` that report
// each platform privilege.
var privilegeFields = map[string]string{
	"GENERATE_PERSONAL_ACCESS_TOKENS": "generatePersonalAccessTokens",
	"MANAGE_ACCESS_TOKENS":            "manageTokens",
	"MANAGE_POLICIES":                 "managePolicies",
	"CREATE_TAGS":                     "createTags",
	"MANAGE_TAGS":                     "manageTags",
	"MANAGE_USER_CREDENTIALS":         "manageUserCredentials",
}

// prober is p, to watch p's privileges change with: p's own token (or
// X-DataHub-Actor), or when the scenario gave p none (p signs in with a
// password), a token the administrator makes for p for that alone, owned
// by the administrator, so that it is in no list of p's own tokens.
func (w *world) prober(p *person) (caller, error) {
	if w.canActAs(p) {
		return w.as(p)
	}
	if p.probeToken == "" {
		if err := w.ensureUser(p); err != nil {
			return caller{}, err
		}
		tok, err := w.mustCreateToken(w.admin(), p)
		if err != nil {
			return caller{}, err
		}
		p.probeToken = tok.raw
	}
	return w.withToken(p.name, p.probeToken), nil
}

// platformPrivilegesOf asks, as p, which platform privileges p holds.
func (w *world) platformPrivilegesOf(p *person) (map[string]bool, error) {
	c, err := w.prober(p)
	if err != nil {
		return nil, err
	}
	a := w.askWhoAmI(c, "")
	var me *meView
	if err := a.data("me", &me); err != nil {
		return nil, w.failed(err)
	}
	if me == nil {
		return nil, w.fail("%s: `me` is null", a.what)
	}
	return me.PlatformPrivileges, nil
}

// askWhoAmI sends `me` as c to the endpoint (the metadata service's
// GraphQL endpoint when endpoint is "").
func (w *world) askWhoAmI(c caller, endpoint string) *answer {
	if endpoint == "" {
		endpoint = c.gms + "/api/graphql"
	}
	a := w.graphqlAt(c, endpoint, w.suite.docs.me, nil)
	a.what = c.name + " asking who they are"
	a.noEffect = nothingToCheck
	return a
}

// answerNames checks that a `me` answer names the user urn.
func (w *world) answerNames(a *answer, urn string) error {
	var me *meView
	if err := a.data("me", &me); err != nil {
		return w.failed(err)
	}
	if me == nil {
		return w.fail("%s: `me` is null, expected %s", a.what, urn)
	}
	if me.CorpUser.URN != urn {
		return w.fail("%s: `me` names %q, expected %q", a.what, me.CorpUser.URN, urn)
	}
	return nil
}

// Steps.

func holdsToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.giveToken(w.person(name))
}

func isAUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.ensureUser(w.person(name))
}

func asksWhoSheIs(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.askWhoAmI(c, "")
	return w.checkpoint()
}

func answerNamesSignedInUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.last == nil {
		return w.fail("no request was made to judge")
	}
	return w.answerNames(w.last, w.person(name).urn)
}

func tokenIsRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	p := w.person(name)
	if !p.suspended && !p.removed {
		a := w.askWhoAmI(c, "")
		a.what = c.name + "'s token asking who it stands for"
		return w.refused(a)
	}
	// DataHub judges whether a user is active from what it reads of the
	// user, which may lag a moment behind the write: poll.
	return w.eventually(name+"'s token being refused after the suspension or removal", func() (bool, error) {
		a := w.askWhoAmI(c, "")
		a.what = c.name + "'s token asking who it stands for"
		err := w.refused(a)
		return err == nil, err
	})
}

// abilityFields are the fields of `me.platformPrivileges` by what each says
// its user may do, in the words the features use.
var abilityFields = map[string]string{
	"generate personal access tokens": "generatePersonalAccessTokens",
	"manage all access tokens":        "manageTokens",
	"manage policies":                 "managePolicies",
	"create tags":                     "createTags",
	"manage tags":                     "manageTags",
	"manage user credentials":         "manageUserCredentials",
}

func hasPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.givePassword(w.person(name))
}

// cannotSignInWithPassword: within the propagation window (a removal may
// take a moment to reach what DataHub reads), the password signs no one in.
func cannotSignInWithPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if p.password == "" {
		return w.fail("%s never chose a password", name)
	}
	return w.eventually(name+"'s password no longer signing in", func() (bool, error) {
		err := w.cannotSignIn(p.username, p.password)
		return err == nil, err
	})
}

// isUserKnownOnlyByName makes p's user with nothing but its key aspect.
func isUserKnownOnlyByName(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.mustIngest(w.admin(), "corpuser", p.urn, "corpUserKey", map[string]string{"username": p.username}); err != nil {
		return err
	}
	p.exists = true
	return nil
}
