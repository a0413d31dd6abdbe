package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/catalogspec/catalogspec/runner"
)

// registerUsersSteps registers the steps of features/users.feature.
func registerUsersSteps(s stepRegistrar) {
	s.Step(`^`+who+` lists the users, looking for `+who+`$`, listsUsersLookingFor)
	s.Step(`^the list includes `+who+`$`, userListIncludes)
	s.Step(`^`+who+` removes `+who+`$`, removesUser)
	s.Step(`^the administrator removes `+who+`$`, adminRemovesUser)
	s.Step(`^the answer says the user was removed$`, answerSaysRemoved)
	s.Step(`^`+who+` is no longer listed and has no profile$`, noLongerListed)
	s.Step(`^someone signs up under `+who+`'s name$`, signsUpUnderName)
	s.Step(`^the administrator ingests `+who+`'s info anew$`, ingestsInfoAnew)
	s.Step(`^`+who+`'s token from before the removal is refused$`, formerTokenRefused)
	s.Step(`^`+who+`'s session from before the removal is refused$`, formerSessionRefused)
	s.Step(`^the new `+who+` does not hold `+priv+`$`, newUserLacks)
	s.Step(`^a new password sent with the reset token made before the removal is refused$`, formerResetTokenRefused)
	s.Step(`^the new `+who+` signs in with the password chosen at sign-up, and no one with the other one$`, newUserSignsIn)
	s.Step(`^`+who+` (suspends|reinstates) `+who+` through ingestion$`, changesStatusThroughIngestion)
	s.Step(`^`+who+`'s token still works$`, tokenStillWorks)
	s.Step(`^`+who+`'s token is still refused$`, tokenStillRefused)
	s.Step(`^`+who+` removes the system user and then the root user$`, removesSystemThenRoot)
	s.Step(`^both removals are refused as bad requests$`, bothRemovalsRefused)
	s.Step(`^the root user is as it was, and the administrator's token still works$`, rootAndAdminAsTheyWere)
	s.Step(`^`+who+` removes (the tag|a user no one has made|a user by a malformed URN) with removeUser$`, removesNotAUser)
	s.Step(`^the removal is refused as (a bad request|not found), and changes nothing$`, removalRefusedAs)
}

// Listing and removing users (users.feature): listUsers (ListUsersResolver,
// no privilege asked) and removeUser (RemoveUserResolver,
// canManageUsersAndGroups: MANAGE_USERS_AND_GROUPS).

// userList is DataHub's ListUsersResult, with what the suite reads.
type userList struct {
	Start int `json:"start"`
	Count int `json:"count"`
	Total int `json:"total"`
	Users []struct {
		URN      string `json:"urn"`
		Username string `json:"username"`
	} `json:"users"`
}

func (l *userList) has(username string) bool {
	return l != nil && slices.ContainsFunc(l.Users, func(u struct {
		URN      string `json:"urn"`
		Username string `json:"username"`
	}) bool {
		return u.Username == username
	})
}

// listUsers asks listUsers as c for the users whose search matches query.
func (w *world) listUsers(c caller, query string) *answer {
	a := w.graphql(c, w.suite.docs.listUsers, map[string]any{"input": map[string]any{"start": 0, "count": 20, "query": query}})
	a.what = fmt.Sprintf("%s listing the users (query %q)", c.name, query)
	a.noEffect = nothingToCheck
	a.again = func() *answer { return w.listUsers(c, query) }
	return a
}

// usersListShow checks, within the propagation window (DataHub lists users
// from a search index), that the list a includes username, or with want
// false that it does not.
func (w *world) usersListShow(a *answer, username string, want bool) error {
	what := fmt.Sprintf("%s including %s", a.what, username)
	if !want {
		what = fmt.Sprintf("%s no longer including %s", a.what, username)
	}
	return w.eventually(what, func() (bool, error) {
		var l *userList
		if err := a.data("listUsers", &l); err != nil {
			return false, w.failed(err)
		}
		if l == nil {
			return false, w.fail("%s: listUsers is null", a.what)
		}
		if l.has(username) == want {
			return true, nil
		}
		miss := w.fail("%s does not include %s", a.what, username)
		if !want {
			miss = w.fail("%s still includes %s", a.what, username)
		}
		a = a.again()
		return false, miss
	})
}

func listsUsersLookingFor(ctx context.Context, name, whom string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.listUsers(c, w.person(whom).username)
	return w.checkpoint()
}

func userListIncludes(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.usersListShow(a, w.person(name).username, true)
}

// removeUser sends removeUser for p as c.
func (w *world) removeUser(c caller, p *person) *answer {
	a := w.graphql(c, w.suite.docs.removeUser, map[string]any{"urn": p.urn})
	a.what = fmt.Sprintf("%s removing %s (%s)", c.name, p.name, p.urn)
	a.subject = p.urn
	return a
}

func removesUser(ctx context.Context, name, whom string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	p := w.person(whom)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	a := w.removeUser(c, p)
	// Refused, the user is still there: their profile, and their password
	// (when they have one) still signs them in.
	a.noEffect = func() error {
		got, err := w.profile(p.urn)
		if err != nil {
			return err
		}
		if got == "" {
			return w.fail("%s has no profile any more although %s was refused", p.urn, a.what)
		}
		if p.password == "" {
			return nil
		}
		return w.signsInAs(p.username, p.password, p.urn)
	}
	w.last = a
	if g, err := a.decodeGraphQL(); err == nil && len(g.Errors) == 0 {
		p.removed = true
	}
	return w.checkpoint()
}

func adminRemovesUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	a := w.removeUser(w.admin(), p)
	var ok *bool
	if err := a.data("removeUser", &ok); err != nil {
		return w.failed(err)
	}
	if ok == nil || !*ok {
		return w.fail("%s answered %v, expected true", a.what, ok)
	}
	p.removed = true
	return nil
}

func answerSaysRemoved(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var ok *bool
	if err := a.data("removeUser", &ok); err != nil {
		return w.failed(err)
	}
	if ok == nil || !*ok {
		return w.fail("%s answered %v, expected true", a.what, ok)
	}
	return nil
}

// noLongerListed: the removed user leaves the list (within the propagation
// window) and has no profile.
func noLongerListed(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.usersListShow(w.listUsers(w.admin(), p.username), p.username, false); err != nil {
		return err
	}
	return w.eventually(name+"'s profile being gone", func() (bool, error) {
		err := w.noProfile(p.urn)
		return err == nil, err
	})
}

// A removed user's name coming back (users-05 to users-07): whoever signs
// up under it, or is made anew by ingestion, is someone new. The steps keep
// what the removed user held (their token, their session's client, their
// password) and make the new user, waiting until the new user is active
// where the target judges tokens (their own session, or a token made for
// them, is answered), so that what is refused then is refused although a
// user of that name is there.

// formerSelf is what a removed user held before their name came back.
type formerSelf struct {
	p        *person
	token    string
	client   *apiClient
	password string
}

// keepFormerSelf keeps what p held and starts p anew: no token, no client,
// no password.
func (w *world) keepFormerSelf(p *person) error {
	if !p.removed {
		return w.fail("%s was not removed: the scenario needs \"Given the administrator has removed %s\"", p.name, p.name)
	}
	w.former = &formerSelf{p: p, token: p.token, client: p.client, password: p.password}
	p.token, p.tokenID, p.probeToken, p.client, p.password, p.session = "", "", "", nil, "", nil
	p.exists, p.removed, p.suspended = false, false, false
	return nil
}

func signsUpUnderName(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.keepFormerSelf(p); err != nil {
		return err
	}
	// A sign-up right after the removal may meet the removal's lag: tried
	// again within the propagation window.
	if err := w.signUpInvited(p); err != nil {
		return err
	}
	c := newAPIClient("the new "+name+"'s session", w.frontend())
	u, err := url.Parse(w.frontend() + "/")
	if err != nil {
		return w.failed(err)
	}
	c.jar.SetCookies(u, p.session)
	p.client = c
	return w.eventually("the new "+name+"'s session being answered as "+name, func() (bool, error) {
		err := w.answerNames(w.clientWhoAmI(c), p.urn)
		return err == nil, err
	})
}

func ingestsInfoAnew(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.keepFormerSelf(p); err != nil {
		return err
	}
	admin := w.admin()
	info := corpUserInfo{Active: true, DisplayName: p.name + " (catalogspec, anew)", Email: p.username}
	if err := w.mustIngest(admin, "corpuser", p.urn, "corpUserInfo", info); err != nil {
		return err
	}
	p.exists = true
	// The user made anew has no password: a token the administrator makes
	// for them shows when the target takes them for an active user.
	probe, err := w.prober(p)
	if err != nil {
		return err
	}
	return w.eventually("a token of the new "+name+" being answered as "+name, func() (bool, error) {
		err := w.answerNames(w.askWhoAmI(probe, ""), p.urn)
		return err == nil, err
	})
}

func (w *world) theFormerSelf() (*formerSelf, error) {
	if w.former == nil {
		return nil, w.fail("no removed user's name came back in this scenario")
	}
	return w.former, nil
}

// formerTokenRefused: the token the removed user held is refused now that
// a user of that name is active again.
func formerTokenRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	f, err := w.theFormerSelf()
	if err != nil {
		return err
	}
	if f.token == "" {
		return w.fail("%s held no token before the removal", name)
	}
	a := w.askWhoAmI(w.withToken(name+"'s token from before the removal", f.token), "")
	return w.refused(a)
}

func formerSessionRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	f, err := w.theFormerSelf()
	if err != nil {
		return err
	}
	if f.client == nil || len(f.client.cookies()) == 0 {
		return w.fail("%s held no session before the removal", name)
	}
	a := w.clientWhoAmI(f.client)
	if a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
		return w.fail("%s answered status %d, expected a refusal (401 or 403): the session of the removed user works for the new one", a.what, a.status)
	}
	return nil
}

// newUserLacks: the new user, asking through their own session, does not
// hold the privilege (within the propagation window: a target may take a
// moment to stop applying a policy to the name).
func newUserLacks(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	p := w.person(name)
	field, ok := privilegeFields[privilege]
	if !ok {
		return w.fail("no field of me.platformPrivileges reports %s", privilege)
	}
	if p.client == nil {
		return w.fail("the new %s has no session", name)
	}
	return w.eventually("the new "+name+" not holding "+privilege, func() (bool, error) {
		a := w.clientWhoAmI(p.client)
		var me *meView
		if err := a.data("me", &me); err != nil {
			return false, w.failed(err)
		}
		if me == nil {
			return false, w.fail("%s: `me` is null", a.what)
		}
		if me.PlatformPrivileges[field] {
			return false, w.fail("%s: the new %s holds %s, granted to the user removed before", a.what, name, privilege)
		}
		return true, nil
	})
}

func formerResetTokenRefused(ctx context.Context) error {
	w := theWorld(ctx)
	token, err := w.firstResetToken()
	if err != nil {
		return err
	}
	f, err := w.theFormerSelf()
	if err != nil {
		return err
	}
	p := f.p
	if !p.exists || p.password == "" {
		return w.fail("no one signed up under %s's name again", p.name)
	}
	a := w.attemptReset(w.suite.Target.Frontend, p.username, token)
	if a.status < 400 {
		return w.fail("%s answered status %d, expected a refusal: the reset token made for the removed user set the new user's password", a.what, a.status)
	}
	return w.notSignedIn(w.lastClient)
}

func newUserSignsIn(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.signsInAs(p.username, p.password, p.urn); err != nil {
		return err
	}
	if w.newPassword == "" {
		return w.fail("no new password was tried")
	}
	return w.cannotSignIn(p.username, w.newPassword)
}

// changesStatusThroughIngestion writes whom's corpUserStatus as name, at
// the metadata service's ingestion endpoint: SUSPENDED or ACTIVE. Refused,
// it changed nothing: whom's token answers as it did before.
func changesStatusThroughIngestion(ctx context.Context, name, change, whom string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	p := w.person(whom)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	status := map[string]any{"status": "SUSPENDED", "lastModified": map[string]any{"time": time.Now().UnixMilli(), "actor": "urn:li:corpuser:" + w.person(name).username}}
	if change == "reinstates" {
		status["status"] = "ACTIVE"
	}
	wasRefused := p.suspended
	a := w.ingest(c, c.gms, "corpuser", p.urn, "corpUserStatus", status)
	a.noEffect = func() error {
		if p.token == "" {
			return nil
		}
		me := w.askWhoAmI(w.withToken(whom+"'s token", p.token), "")
		if wasRefused {
			return w.refused(me)
		}
		return w.answerNames(me, p.urn)
	}
	if a.status == http.StatusOK {
		p.suspended = change == "suspends"
	}
	w.last = a
	return w.checkpoint()
}

func tokenStillWorks(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if p.token == "" {
		return w.fail("%s holds no token", name)
	}
	return w.answerNames(w.askWhoAmI(w.withToken(name+"'s token", p.token), ""), p.urn)
}

func tokenStillRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if p.token == "" {
		return w.fail("%s holds no token", name)
	}
	return w.refused(w.askWhoAmI(w.withToken(name+"'s token", p.token), ""))
}

// What removeUser refuses beyond DataHub (users-11 to users-14): the root
// and the system user, an entity that is not a user, a user no one made,
// and a malformed URN.

// removesSystemThenRoot asks, as name, to remove the system user and then
// the root user; the root user only when the system user's removal was
// refused: a target that removes users it should not would otherwise lose
// its root user, and the run its administrator.
func removesSystemThenRoot(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	before, err := w.profile(runner.RootUser)
	if err != nil {
		return err
	}
	if w.before == nil {
		w.before = map[string]string{}
	}
	w.before[rootUsername] = before
	system := w.removeUser(c, &person{name: "the system user", urn: "urn:li:corpuser:__datahub_system"})
	system.noEffect = nothingToCheck
	w.removals = []*answer{system}
	if g, err := system.decodeGraphQL(); err != nil || len(g.Errors) == 0 {
		return w.fail("%s was not refused (status %d, %.200s): the root user was not tried, lest the target remove it too and the run lose its administrator", system.what, system.status, system.body)
	}
	root := w.removeUser(c, &person{name: "the root user", urn: runner.RootUser})
	root.noEffect = func() error { return w.rootAndAdminAsTheyWere() }
	w.removals = append(w.removals, root)
	w.last = root
	return w.checkpoint()
}

func bothRemovalsRefused(ctx context.Context) error {
	w := theWorld(ctx)
	if len(w.removals) != 2 {
		return w.fail("no two removals were tried")
	}
	for _, a := range w.removals {
		e, err := w.graphQLRefusal(a, "a refusal as a bad request")
		if err != nil {
			return err
		}
		if e.code() != "400" {
			return w.fail("%s failed with code %q and type %q (%q), expected 400 BAD_REQUEST", a.what, e.code(), e.Extensions.Type, e.Message)
		}
	}
	return w.rootAndAdminAsTheyWere()
}

// rootAndAdminAsTheyWere: the root user's profile is as read before, and
// the administrator's token is still answered as the administrator.
func (w *world) rootAndAdminAsTheyWere() error {
	if err := w.profileAsBefore(rootUsername); err != nil {
		return err
	}
	a := w.askWhoAmI(w.admin(), "")
	var me *meView
	if err := a.data("me", &me); err != nil {
		return w.failed(err)
	}
	if me == nil || me.CorpUser.URN == "" {
		return w.fail("%s answered no user: the administrator's token no longer works", a.what)
	}
	return nil
}

func rootAndAdminAsTheyWere(ctx context.Context) error {
	return theWorld(ctx).rootAndAdminAsTheyWere()
}

// removesNotAUser asks, as name, removeUser of something that is not a
// user who exists: the scenario's tag (which must stay), a user no one
// made, or a malformed URN.
func removesNotAUser(ctx context.Context, name, what string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	target := &person{name: what}
	noEffect := nothingToCheck
	switch what {
	case "the tag":
		if w.tag == nil {
			return w.fail("no tag was made: the scenario needs \"Given a tag exists\"")
		}
		t := w.tag
		target.urn = t.urn
		noEffect = func() error { return w.tagReadsBack(t) }
	case "a user no one has made":
		target.urn = "urn:li:corpuser:" + w.unique("nobody")
		noEffect = func() error { return w.noProfile(target.urn) }
	default:
		target.urn = "not-a-urn-" + w.id
	}
	a := w.removeUser(c, target)
	a.noEffect = noEffect
	w.last = a
	return w.checkpoint()
}

// removalRefusedAs: a GraphQL error with code 400 (BAD_REQUEST) or 404
// (NOT_FOUND), and nothing changed, read back.
func removalRefusedAs(ctx context.Context, as string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	e, err := w.graphQLRefusal(a, "a refusal as "+as)
	if err != nil {
		return err
	}
	want := map[string]string{"a bad request": "400", "not found": "404"}[as]
	if e.code() != want {
		return w.fail("%s failed with code %q and type %q (%q), expected %s", a.what, e.code(), e.Extensions.Type, e.Message, want)
	}
	return w.noEffect(a)
}
