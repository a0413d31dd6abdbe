package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// registerPasswordResetSteps registers the steps of features/password_reset.feature.
func registerPasswordResetSteps(s stepRegistrar) {
	s.Step(`^`+who+` makes a password reset token for `+who+`$`, makesResetToken)
	s.Step(`^the answer is a reset token with which `+who+` sets a password and is signed in$`, resetTokenSetsPassword)
	s.Step(`^the administrator makes a password reset token for `+who+`$`, adminMakesResetToken)
	s.Step(`^the administrator makes a password reset token for the root user$`, adminMakesRootResetToken)
	s.Step(`^the request is refused and no reset token is given$`, noResetTokenGiven)
	s.Step(`^the administrator has made (?:a|another) password reset token for `+who+`$`, adminHasMadeResetToken)
	s.Step(`^someone sets a new password with (Ann's reset token and Bob's username|a reset token no one made and Ann's username|Ann's reset token altered and Ann's username)$`, setsPasswordWith)
	s.Step(`^`+who+` sets a new password with the first reset token$`, setsPasswordWithFirst)
	s.Step(`^a day and an hour later `+who+` sets a new password with the reset token$`, setsPasswordLater)
	s.Step(`^`+who+` has set a new password with the reset token$`, hasSetPassword)
	s.Step(`^someone sets another new password with the same reset token$`, setsPasswordAgain)
	s.Step(`^the reset is refused$`, resetRefused)
	s.Step(`^Ann and Bob still sign in with their own passwords, and no one with the new one$`, annAndBobUnchanged)
	s.Step(`^`+who+` still signs in with `+own+` own password, and no one with the new one$`, stillSignsInWithOwn)
	s.Step(`^the second reset token sets `+who+`'s password$`, secondResetTokenWorks)
	s.Step(`^`+who+` signs in with the password `+pronoun+` set, and no one with the other one$`, signsInWithSetPassword)
	s.Step(`^`+who+` sets a new password with a new reset token$`, setsNewPassword)
	s.Step(`^the session `+who+` held before is refused on the GraphQL endpoint$`, earlierSessionRefused)
	s.Step(`^the session the new password opened is answered as `+who+`$`, newSessionAnswered)
}

func makesResetToken(ctx context.Context, name, forName string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	target := w.person(forName)
	if err := w.ensureUser(target); err != nil {
		return err
	}
	a := w.graphql(c, w.suite.docs.createResetToken, map[string]any{"input": map[string]any{"userUrn": target.urn}})
	a.what = fmt.Sprintf("%s making a password reset token for %s", name, forName)
	a.subject = target.urn
	// A reset token exists only in the answer that carries it: a refused
	// request that shows none has made nothing anyone can use.
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// resetTokenSetsPassword checks the effect of a reset token: the user sets
// a password with it at the frontend, which signs them in, and the session
// it opens is answered as that user.
func resetTokenSetsPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	p := w.person(name)
	password, cookies, err := w.setPasswordWithResetToken(a, p, w.suite.Target.Frontend)
	if err != nil {
		return err
	}
	p.password = password
	if len(cookies) == 0 {
		return w.fail("setting %s's password set no cookie: %s is not signed in", name, name)
	}
	pairs := make([]string, len(cookies))
	for i, c := range cookies {
		pairs[i] = c.Name + "=" + c.Value
	}
	c := caller{name: name + "'s browser", gms: w.suite.Target.GMS, frontend: w.suite.Target.Frontend, headers: map[string]string{"Cookie": strings.Join(pairs, "; ")}}
	me := w.askWhoAmI(c, w.suite.Target.Frontend+"/api/graphql")
	return w.answerNames(me, p.urn)
}

func adminMakesResetToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	a := w.graphql(w.admin(), w.suite.docs.createResetToken, map[string]any{"input": map[string]any{"userUrn": p.urn}})
	a.what = "the administrator making a password reset token for " + name
	a.subject = p.urn
	// A reset token exists only in the answer that carries it.
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// noResetTokenGiven: the answer is a GraphQL error (DataHub answers one for
// a user who has no password: NativeUserService "User does not exist or is
// a non-native user!") and carries no reset token.
func noResetTokenGiven(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if _, err := w.graphQLRefusal(a, "a refusal"); err != nil {
		return err
	}
	return w.noEffect(a)
}

func adminHasMadeResetToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	a := w.graphql(w.admin(), w.suite.docs.createResetToken, map[string]any{"input": map[string]any{"userUrn": p.urn}})
	a.what = "the administrator making a password reset token for " + name
	var out *struct {
		ResetToken string `json:"resetToken"`
	}
	if err := a.data("createNativeUserResetToken", &out); err != nil {
		return w.failed(err)
	}
	if out == nil || out.ResetToken == "" {
		return w.fail("%s answered no reset token", a.what)
	}
	w.secret(out.ResetToken)
	w.resetTokens = append(w.resetTokens, out.ResetToken)
	return nil
}

// firstResetToken is the first reset token the scenario made.
func (w *world) firstResetToken() (string, error) {
	if len(w.resetTokens) == 0 {
		return "", w.fail("no reset token was made in this scenario")
	}
	return w.resetTokens[0], nil
}

// attemptReset sends a reset of username's password with token from a new
// client at frontend, trying a new password (w.newPassword), and keeps it
// as the last attempt.
func (w *world) attemptReset(frontend, username, token string) *answer {
	w.newPassword = "new-pw-" + randomID(16)
	w.secret(w.newPassword)
	c := newAPIClient("someone", frontend)
	a := w.clientSend(c, http.MethodPost, "/resetNativeUserCredentials", map[string]string{"email": username, "password": w.newPassword, "resetToken": token})
	a.what = fmt.Sprintf("someone setting a new password for %q at %s/resetNativeUserCredentials", username, frontend)
	a.noEffect = nothingToCheck // the Then steps sign in to show whose password is what
	w.last, w.lastClient = a, c
	return a
}

func setsPasswordWith(ctx context.Context, sent string) error {
	w := theWorld(ctx)
	token, err := w.firstResetToken()
	if err != nil {
		return err
	}
	username := w.person("Ann").username
	switch sent {
	case "Ann's reset token and Bob's username":
		username = w.person("Bob").username
	case "a reset token no one made and Ann's username":
		token = randomID(32)
	case "Ann's reset token altered and Ann's username":
		last := token[len(token)-1]
		alt := byte('a')
		if last == 'a' {
			alt = 'b'
		}
		token = token[:len(token)-1] + string(alt)
	}
	w.attemptReset(w.frontend(), username, token)
	return w.checkpoint()
}

func setsPasswordWithFirst(ctx context.Context, name string) error {
	w := theWorld(ctx)
	token, err := w.firstResetToken()
	if err != nil {
		return err
	}
	w.attemptReset(w.frontend(), w.person(name).username, token)
	return w.checkpoint()
}

// setsPasswordLater sends the reset to the frontend of the instance whose
// clock runs a day and an hour ahead (CATALOGSPEC_LATER_FRONTEND_URL).
func setsPasswordLater(ctx context.Context, name string) error {
	w := theWorld(ctx)
	token, err := w.firstResetToken()
	if err != nil {
		return err
	}
	w.attemptReset(w.suite.Target.LaterFrontend, w.person(name).username, token)
	return w.checkpoint()
}

func hasSetPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	token, err := w.firstResetToken()
	if err != nil {
		return err
	}
	a := w.attemptReset(w.frontend(), p.username, token)
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	p.password = w.newPassword
	return w.signsInAs(p.username, p.password, p.urn)
}

func setsPasswordAgain(ctx context.Context) error {
	w := theWorld(ctx)
	token, err := w.firstResetToken()
	if err != nil {
		return err
	}
	w.attemptReset(w.frontend(), w.person("Ann").username, token)
	return w.checkpoint()
}

// resetRefused: the reset answered an error (DataHub: 500 for a token that
// does not match or has expired, 400 for a missing field) and signed no one
// in.
func resetRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status < 400 {
		return w.fail("%s answered status %d, expected a refusal", a.what, a.status)
	}
	return w.notSignedIn(w.lastClient)
}

// keepsPassword checks that p signs in with their own password and not
// with the one a refused reset tried to set.
func (w *world) keepsPassword(p *person) error {
	if err := w.signsInAs(p.username, p.password, p.urn); err != nil {
		return err
	}
	return w.cannotSignIn(p.username, w.newPassword)
}

func annAndBobUnchanged(ctx context.Context) error {
	w := theWorld(ctx)
	if err := w.keepsPassword(w.person("Ann")); err != nil {
		return err
	}
	return w.keepsPassword(w.person("Bob"))
}

func stillSignsInWithOwn(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.keepsPassword(w.person(name))
}

func secondResetTokenWorks(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if len(w.resetTokens) < 2 {
		return w.fail("no second reset token was made")
	}
	p := w.person(name)
	a := w.attemptReset(w.frontend(), p.username, w.resetTokens[1])
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	p.password = w.newPassword
	return w.signsInAs(p.username, p.password, p.urn)
}

func signsInWithSetPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.keepsPassword(w.person(name))
}

// setsNewPassword has the administrator make a reset token for name, who
// sets a new password with it. The session the first password opened is
// checked to work first, and kept; the one the new password opens too.
func setsNewPassword(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.givePassword(p); err != nil {
		return err
	}
	if len(p.session) == 0 {
		return w.fail("setting %s's first password opened no session", name)
	}
	before := w.sessionCaller(name+"'s earlier session", p.session)
	if err := w.answerNames(w.askWhoAmI(before, w.suite.Target.Frontend+"/api/graphql"), p.urn); err != nil {
		return err
	}
	w.earlier = p.session
	admin := w.admin()
	a := w.graphql(admin, w.suite.docs.createResetToken, map[string]any{"input": map[string]any{"userUrn": p.urn}})
	a.what = fmt.Sprintf("%s making a new password reset token for %s", admin.name, name)
	password, cookies, err := w.setPasswordWithResetToken(a, p, admin.frontend)
	if err != nil {
		return err
	}
	p.password, p.session = password, cookies
	return nil
}

func earlierSessionRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if len(w.earlier) == 0 {
		return w.fail("no earlier session of %s was kept", name)
	}
	a := w.askWhoAmI(w.sessionCaller(name+"'s earlier session", w.earlier), w.suite.Target.Frontend+"/api/graphql")
	if a.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401: the session outlived the password that opened it", a.what, a.status)
	}
	return nil
}

func newSessionAnswered(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if len(p.session) == 0 {
		return w.fail("setting %s's new password opened no session", name)
	}
	return w.answerNames(w.askWhoAmI(w.sessionCaller(name+"'s new session", p.session), w.suite.Target.Frontend+"/api/graphql"), p.urn)
}

// adminMakesRootResetToken asks for a reset token for the root user, which
// on DataHub is no native user (its password is the frontend's own,
// user.props): NativeUserService finds no credentials and refuses. A token
// the answer carries anyway is masked in the reports.
func adminMakesRootResetToken(ctx context.Context) error {
	w := theWorld(ctx)
	root := "urn:li:corpuser:" + rootUsername
	a := w.graphql(w.admin(), w.suite.docs.createResetToken, map[string]any{"input": map[string]any{"userUrn": root}})
	a.what = "the administrator making a password reset token for the root user"
	a.subject = root
	var out *struct {
		ResetToken string `json:"resetToken"`
	}
	if a.data("createNativeUserResetToken", &out) == nil && out != nil && out.ResetToken != "" {
		w.secret(out.ResetToken)
	}
	w.takeFailures() // a refusal is what the Then step judges
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}
