package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// registerInvitationsSteps registers the steps of features/invitations.feature.
func registerInvitationsSteps(s stepRegistrar) {
	s.Step(`^`+who+` (asks for the invite token|makes a new invite token)$`, asksForInvite)
	s.Step(`^the administrator has (asked for the invite token|made a new invite token)$`, adminHasInvite)
	s.Step(`^(?:with the invite token )?`+who+` signs up(?: with the invite token)? and is signed in as `+who+`$`, signsUpWithInvite)
	s.Step(`^`+who+`'s user has the full name, email and title `+pronoun+` signed up with$`, userHasSignUpDetails)
	s.Step(`^`+who+` signs up (with an invite token no one issued|without an invite token|without a password|without a full name)$`, signsUpFlawed)
	s.Step(`^`+who+` signs up with the invite token and (Ann's username|the root user's name)$`, signsUpAsExisting)
	s.Step(`^`+who+` signs up with the invite token before the new one$`, signsUpWithOldInvite)
	s.Step(`^the sign-up is refused$`, signUpRefused)
	s.Step(`^`+who+` signs up with the invite token and (Ann's|the root user's) name written (in capitals|with a zero-width space inside|with a Cyrillic letter for a Latin one|with a capital first letter)$`, signsUpAsLookalike)
	s.Step(`^the sign-up is refused as a bad request, saying the name reads as another user's$`, lookalikeRefused)
	s.Step(`^no user of that name exists$`, lookalikeDoesNotExist)
	s.Step(`^`+who+`'s user does not exist$`, userDoesNotExist)
	s.Step(`^`+who+`'s user is as it was, and `+who+` still signs in with `+own+` own password$`, userAsItWas)
	s.Step(`^no one signs in as `+who+` with the password `+who+` chose$`, noOneSignsInAsWithChosen)
	s.Step(`^the root user is as it was$`, rootAsItWas)
	s.Step(`^no one signs in as the root user with the password `+who+` chose$`, noOneSignsInAsRoot)
	s.Step(`^`+who+` (?:can sign|signs) in at the frontend's sign-in API with the password `+pronoun+` chose$`, signsInWithChosenPassword)
	s.Step(`^`+who+` (asks for the invite token|makes a new invite token) for the (Reader|Editor) role$`, asksForRoleInvite)
	s.Step(`^the administrator has asked for the invite tokens? (?:for )?(no role|the Reader role|the Editor role)(?: and (?:for )?(no role|the Reader role|the Editor role))?$`, adminHasRoleInvites)
	s.Step(`^`+who+` asks for the invite tokens for the Reader role, for the Editor role and for no role$`, asksForThreeInvites)
	s.Step(`^the three invite tokens differ, and with each a new person signs up$`, threeInvitesSignUp)
	s.Step(`^with the invite token for (no role|the Reader role|the Editor role) `+who+` signs up and is signed in as `+who+`$`, signsUpWithRoleInvite)
	s.Step(`^`+who+` signs up with the invite token for the (Reader|Editor) role before the new one$`, signsUpWithOldRoleInvite)
}

// Invitations and signing up (invitations.feature): getInviteToken and
// createInviteToken (InviteTokenService; GetInviteTokenResolver and
// CreateInviteTokenResolver ask for MANAGE_USER_CREDENTIALS) and the
// frontend's POST /signUp (AuthenticationController.signUp).

// rootUsername is DataHub's root user.
const rootUsername = "datahub"

func asksForInvite(ctx context.Context, name, act string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	create := act == "makes a new invite token"
	if err := w.invitesSettled(); err != nil {
		return err
	}
	var before string
	if create {
		// A refused attempt leaves the invite token as it was.
		if before, err = w.currentInvite(); err != nil {
			return err
		}
	}
	invite, err := w.inviteAsked(w.inviteTokenAs(c, create), create, before, w.currentInvite, "")
	if err != nil {
		return err
	}
	if invite != "" {
		w.previousInvite, w.invite = w.invite, invite
		if create {
			w.settleInvitesAtEnd(invite)
		}
	}
	return w.checkpoint()
}

// inviteAsked makes a, an ask for an invite token (create: for a new one),
// the scenario's last answer, whose read-back is that a new one refused
// left current() as it was before; it returns the token a granted ask
// answered, "" when refused. whose names the token in a failure.
func (w *world) inviteAsked(a *answer, create bool, before string, current func() (string, error), whose string) (string, error) {
	a.noEffect = nothingToCheck
	if create {
		a.noEffect = func() error {
			now, err := current()
			if err != nil {
				return err
			}
			if now != before {
				return w.fail("the invite token%s changed although %s was refused", whose, a.what)
			}
			return nil
		}
	}
	w.last = a
	if g, err := a.decodeGraphQL(); err != nil || len(g.Errors) != 0 {
		return "", nil
	}
	field := "getInviteToken"
	if create {
		field = "createInviteToken"
	}
	return w.inviteFrom(a, field)
}

func adminHasInvite(ctx context.Context, act string) error {
	w := theWorld(ctx)
	create := act == "made a new invite token"
	if err := w.invitesSettled(); err != nil {
		return err
	}
	field := "getInviteToken"
	if create {
		field = "createInviteToken"
	}
	invite, err := w.inviteFrom(w.inviteTokenAs(w.admin(), create), field)
	if err != nil {
		return err
	}
	w.previousInvite, w.invite = w.invite, invite
	if create {
		w.settleInvitesAtEnd(invite)
	}
	return nil
}

// signsUpWithInvite signs p up with the invite token the scenario was given
// last, and checks the effect: the frontend signs them in (its cookies are
// answered as them), and they exist.
func signsUpWithInvite(ctx context.Context, name, as string) error {
	w := theWorld(ctx)
	if w.invite == "" {
		return w.fail("no invite token was given in this scenario")
	}
	p := w.person(name)
	w.choosePassword(p)
	c := w.clientOf(p)
	a := w.signUp(c, name, p.signUpBody(w.invite))
	w.last, w.lastClient = a, c
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	p.exists, p.native = true, true
	return w.answerNames(w.clientWhoAmI(c), w.person(as).urn)
}

func userHasSignUpDetails(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	got, err := w.profile(p.urn)
	if err != nil {
		return err
	}
	want := fmt.Sprintf("username %q, active true, display name %q, full name %q, email %q, title %q", p.username, p.fullName, p.fullName, p.username, p.title)
	if got != want {
		return w.fail("%s's user is: %s\nexpected, as DataHub's NativeUserService makes it: %s", name, got, want)
	}
	return nil
}

// attemptSignUp sends a sign-up for p that is expected to be refused: it
// must make no user (the no-effect check).
func (w *world) attemptSignUp(p *person, body map[string]string) {
	c := newAPIClient(p.name+"'s session", w.frontend())
	a := w.signUp(c, p.name, body)
	a.noEffect = func() error { return w.noProfile("urn:li:corpuser:" + body["email"]) }
	w.last, w.lastClient = a, c
}

func signsUpFlawed(ctx context.Context, name, flaw string) error {
	w := theWorld(ctx)
	p := w.person(name)
	w.choosePassword(p)
	invite := "catalogspec-" + randomID(32)
	if flaw != "with an invite token no one issued" {
		var err error
		if invite, err = w.currentInvite(); err != nil {
			return err
		}
	}
	body := p.signUpBody(invite)
	switch flaw {
	case "with an invite token no one issued":
	case "without an invite token":
		delete(body, "inviteToken")
	case "without a password":
		delete(body, "password")
	case "without a full name":
		delete(body, "fullName")
	}
	w.attemptSignUp(p, body)
	return w.checkpoint()
}

// signsUpAsExisting signs p up with a username someone has: the other
// user's profile is kept first, to show it unchanged.
func signsUpAsExisting(ctx context.Context, name, whose string) error {
	w := theWorld(ctx)
	p := w.person(name)
	w.choosePassword(p)
	username := rootUsername
	if whose == "Ann's username" {
		ann := w.person("Ann")
		if !ann.exists {
			return w.fail("Ann does not exist yet: the scenario needs \"Given Ann has a password\"")
		}
		username = ann.username
	}
	before, err := w.profile("urn:li:corpuser:" + username)
	if err != nil {
		return err
	}
	if w.before == nil {
		w.before = map[string]string{}
	}
	w.before[username] = before
	invite, err := w.currentInvite()
	if err != nil {
		return err
	}
	body := p.signUpBody(invite)
	body["email"] = username
	c := newAPIClient(name+"'s session", w.frontend())
	a := w.signUp(c, name, body)
	a.noEffect = func() error { return w.profileAsBefore(username) }
	w.last, w.lastClient = a, c
	return w.checkpoint()
}

// profileAsBefore checks that the user's profile is as kept before.
func (w *world) profileAsBefore(username string) error {
	want, ok := w.before[username]
	if !ok {
		return w.fail("%s's profile was not read before", username)
	}
	got, err := w.profile("urn:li:corpuser:" + username)
	if err != nil {
		return err
	}
	if got != want {
		return w.fail("the user %s changed:\nbefore: %s\nnow:    %s", username, want, got)
	}
	return nil
}

func signsUpWithOldInvite(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.previousInvite == "" || w.previousInvite == w.invite {
		return w.fail("no invite token was made after another in this scenario")
	}
	p := w.person(name)
	w.choosePassword(p)
	w.attemptSignUp(p, p.signUpBody(w.previousInvite))
	return w.checkpoint()
}

// signUpRefused: the sign-up answered an error (DataHub: 400 for a missing
// field, 500 for an invite token it does not know or a user who exists),
// signed no one in, and changed nothing.
func signUpRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status < 400 {
		return w.fail("%s answered status %d, expected a refusal", a.what, a.status)
	}
	if err := w.notSignedIn(w.lastClient); err != nil {
		return err
	}
	return w.noEffect(a)
}

func userDoesNotExist(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.noProfile(w.person(name).urn)
}

func userAsItWas(ctx context.Context, name, again string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.profileAsBefore(p.username); err != nil {
		return err
	}
	return w.signsInAs(p.username, p.password, p.urn)
}

func noOneSignsInAsWithChosen(ctx context.Context, name, chooser string) error {
	w := theWorld(ctx)
	return w.cannotSignIn(w.person(name).username, w.person(chooser).password)
}

func rootAsItWas(ctx context.Context) error {
	return theWorld(ctx).profileAsBefore(rootUsername)
}

func noOneSignsInAsRoot(ctx context.Context, chooser string) error {
	w := theWorld(ctx)
	return w.cannotSignIn(rootUsername, w.person(chooser).password)
}

func signsInWithChosenPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	return w.signsInAs(p.username, p.password, p.urn)
}

// lookalike is name written as another that reads the same: how is one of
// the ways invite-09 names. The Latin letters a, e, o, c, p, x and y each
// have a Cyrillic twin (U+0430, U+0435, U+043E, U+0441, U+0440, U+0445,
// U+0443).
func lookalike(name, how string) (string, bool) {
	switch how {
	case "in capitals":
		return strings.ToUpper(name), strings.ToUpper(name) != name
	case "with a capital first letter":
		return strings.ToUpper(name[:1]) + name[1:], name[:1] != strings.ToUpper(name[:1])
	case "with a zero-width space inside":
		return name[:2] + "\u200b" + name[2:], len(name) > 2
	case "with a Cyrillic letter for a Latin one":
		twins := map[rune]string{'a': "\u0430", 'e': "\u0435", 'o': "\u043e", 'c': "\u0441", 'p': "\u0440", 'x': "\u0445", 'y': "\u0443"}
		for i, r := range name {
			if t, ok := twins[r]; ok {
				return name[:i] + t + name[i+1:], true
			}
		}
	}
	return "", false
}

func signsUpAsLookalike(ctx context.Context, name, whose, how string) error {
	w := theWorld(ctx)
	p := w.person(name)
	w.choosePassword(p)
	original := rootUsername
	if whose == "Ann's" {
		ann := w.person("Ann")
		if !ann.exists {
			return w.fail("Ann does not exist yet: the scenario needs \"Given Ann has a password\"")
		}
		original = ann.username
	}
	username, ok := lookalike(original, how)
	if !ok {
		return w.fail("%q cannot be written %s", original, how)
	}
	w.lookalikeName = username
	invite, err := w.currentInvite()
	if err != nil {
		return err
	}
	body := p.signUpBody(invite)
	body["email"] = username
	c := newAPIClient(name+"'s session", w.frontend())
	a := w.signUp(c, name, body)
	a.noEffect = func() error { return w.noProfile("urn:li:corpuser:" + username) }
	// A sign-up the target took anyway made a user the run must not leave.
	w.undo("remove the user "+username+" if the sign-up made one", func() error {
		if got, err := w.profile("urn:li:corpuser:" + username); err != nil || got == "" {
			return err
		}
		w.removeUser(w.admin(), &person{name: username, username: username, urn: "urn:li:corpuser:" + username})
		w.takeFailures()
		return nil
	})
	w.last, w.lastClient = a, c
	return w.checkpoint()
}

// lookalikeRefused: 400, with a message that says why (DataHub's frontend
// answers a refused sign-up with a JSON message), no session, no user.
func lookalikeRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusBadRequest {
		return w.fail("%s answered status %d, expected 400", a.what, a.status)
	}
	msg := strings.ToLower(jsonMessage(a))
	if !strings.Contains(msg, "reads as") && !strings.Contains(msg, "confus") && !strings.Contains(msg, "looks like") {
		return w.fail("%s answered the message %q, which does not say the name reads as another user's", a.what, jsonMessage(a))
	}
	if err := w.notSignedIn(w.lastClient); err != nil {
		return err
	}
	return w.noEffect(a)
}

func lookalikeDoesNotExist(ctx context.Context) error {
	w := theWorld(ctx)
	if w.lookalikeName == "" {
		return w.fail("no one signed up under a name that reads as another's")
	}
	return w.noProfile("urn:li:corpuser:" + w.lookalikeName)
}

// Invite tokens per role. DataHub keeps one invite token for each role a
// sign-up may be offered (getInviteToken and createInviteToken take a
// roleUrn; InviteTokenService filters its tokens by role, or by having
// none) and one for no role; each signs people up. The suite asks for
// DataHub's own roles, Reader and Editor, which a sign-up does not grant
// (the web app's acceptRole does).

// roleURN is the dataHubRole a step names ("" for no role).
func roleURN(role string) string {
	switch role = strings.TrimSuffix(strings.TrimPrefix(role, "the "), " role"); role {
	case "", "no":
		return ""
	}
	return "urn:li:dataHubRole:" + role
}

// roleName names a role for messages.
func roleName(urn string) string {
	if urn == "" {
		return "no role"
	}
	return "the role " + strings.TrimPrefix(urn, "urn:li:dataHubRole:")
}

// roleInviteAs asks c for the invite token of the role ("" for none), or
// with create for a new one.
func (w *world) roleInviteAs(c caller, create bool, role string) *answer {
	doc, field, what := w.suite.docs.getInviteToken, "getInviteToken", "asking for the invite token"
	if create {
		doc, field, what = w.suite.docs.createInviteToken, "createInviteToken", "making a new invite token"
	}
	input := map[string]any{}
	if role != "" {
		input["roleUrn"] = role
	}
	a := w.graphql(c, doc, map[string]any{"input": input})
	a.what = fmt.Sprintf("%s %s for %s (%s)", c.name, what, roleName(role), field)
	return a
}

// currentRoleInvite is the role's invite token the administrator reads now.
func (w *world) currentRoleInvite(role string) (string, error) {
	return w.inviteFrom(w.roleInviteAs(w.admin(), false, role), "getInviteToken")
}

// keepRoleInvite records the role's invite token, and the one it replaced.
func (w *world) keepRoleInvite(role, token string) {
	if w.roleInvites == nil {
		w.roleInvites, w.roleInvitesBefore = map[string]string{}, map[string]string{}
	}
	if old, ok := w.roleInvites[role]; ok && old != token {
		w.roleInvitesBefore[role] = old
	}
	w.roleInvites[role] = token
}

// asksForRoleInvite asks, as name, for a role's invite token or a new one.
// A new one refused leaves the role's invite token as it was.
func asksForRoleInvite(ctx context.Context, name, act, role string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	urn, create := roleURN(role), act == "makes a new invite token"
	var before string
	if create {
		if before, err = w.currentRoleInvite(urn); err != nil {
			return err
		}
		w.keepRoleInvite(urn, before)
	}
	current := func() (string, error) { return w.currentRoleInvite(urn) }
	invite, err := w.inviteAsked(w.roleInviteAs(c, create, urn), create, before, current, " for "+roleName(urn))
	if err != nil {
		return err
	}
	if invite != "" {
		w.keepRoleInvite(urn, invite)
	}
	return w.checkpoint()
}

func adminHasRoleInvites(ctx context.Context, first, second string) error {
	w := theWorld(ctx)
	for _, role := range []string{first, second} {
		if role == "" {
			continue
		}
		urn := roleURN(role)
		invite, err := w.currentRoleInvite(urn)
		if err != nil {
			return err
		}
		w.keepRoleInvite(urn, invite)
	}
	return nil
}

func asksForThreeInvites(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	for _, role := range []string{"urn:li:dataHubRole:Reader", "urn:li:dataHubRole:Editor", ""} {
		a := w.roleInviteAs(c, false, role)
		w.last = a
		invite, err := w.inviteFrom(a, "getInviteToken")
		if err != nil {
			return err
		}
		w.keepRoleInvite(role, invite)
	}
	return nil
}

// threeInvitesSignUp: the invite tokens of the two roles and of no role
// are three different tokens, and each signs a new person up (signed in
// as themselves).
func threeInvitesSignUp(ctx context.Context) error {
	w := theWorld(ctx)
	roles := []string{"urn:li:dataHubRole:Reader", "urn:li:dataHubRole:Editor", ""}
	seen := map[string]string{}
	for _, role := range roles {
		invite := w.roleInvites[role]
		if invite == "" {
			return w.fail("no invite token was given for %s", roleName(role))
		}
		if other, dup := seen[invite]; dup {
			return w.fail("the invite token for %s is the one for %s: one token for two kinds of sign-up", roleName(role), other)
		}
		seen[invite] = roleName(role)
	}
	for i, role := range roles {
		if err := w.signUpWith(w.person([]string{"Carl", "Dan", "Eve"}[i]), w.roleInvites[role], roleName(role)); err != nil {
			return err
		}
	}
	return nil
}

// signUpWith signs p up with invite, and checks that the frontend signed
// them in as themselves.
func (w *world) signUpWith(p *person, invite, whose string) error {
	w.choosePassword(p)
	c := w.clientOf(p)
	a := w.signUp(c, p.name, p.signUpBody(invite))
	a.what += " with the invite token for " + whose
	w.last, w.lastClient = a, c
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	p.exists, p.native = true, true
	return w.answerNames(w.clientWhoAmI(c), p.urn)
}

func signsUpWithRoleInvite(ctx context.Context, role, name, as string) error {
	w := theWorld(ctx)
	urn := roleURN(role)
	invite := w.roleInvites[urn]
	if invite == "" && urn == "" {
		invite = w.invite
	}
	if invite == "" {
		return w.fail("no invite token for %s was given in this scenario", roleName(urn))
	}
	if name != as {
		return w.fail("%s signs up as %s: a defect of the feature", name, as)
	}
	return w.signUpWith(w.person(name), invite, roleName(urn))
}

func signsUpWithOldRoleInvite(ctx context.Context, name, role string) error {
	w := theWorld(ctx)
	urn := roleURN(role)
	old := w.roleInvitesBefore[urn]
	if old == "" || old == w.roleInvites[urn] {
		return w.fail("no invite token for %s was made after another in this scenario", roleName(urn))
	}
	p := w.person(name)
	w.choosePassword(p)
	w.attemptSignUp(p, p.signUpBody(old))
	return w.checkpoint()
}
