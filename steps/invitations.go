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
	a := w.inviteTokenAs(c, create)
	a.noEffect = nothingToCheck
	if create {
		a.noEffect = func() error {
			now, err := w.currentInvite()
			if err != nil {
				return err
			}
			if now != before {
				return w.fail("the invite token changed although %s was refused", a.what)
			}
			return nil
		}
	}
	w.last = a
	if g, err := a.decodeGraphQL(); err == nil && len(g.Errors) == 0 {
		field := "getInviteToken"
		if create {
			field = "createInviteToken"
		}
		invite, err := w.inviteFrom(a, field)
		if err != nil {
			return err
		}
		w.previousInvite, w.invite = w.invite, invite
		if create {
			w.settleInvitesAtEnd(invite)
		}
	}
	return w.checkpoint()
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
