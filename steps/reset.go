package steps

import (
	"context"
	"fmt"
	"strings"
)

// registerResetSteps registers the steps of password reset tokens.
func registerResetSteps(s stepRegistrar) {
	s.Step(`^`+who+` makes a password reset token for `+who+`$`, makesResetToken)
	s.Step(`^the answer is a reset token with which `+who+` sets a password and is signed in$`, resetTokenSetsPassword)
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
	password, cookies, err := w.setPasswordWithResetToken(a, p, w.suite.target.Frontend)
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
	c := caller{name: name + "'s browser", gms: w.suite.target.GMS, frontend: w.suite.target.Frontend, headers: map[string]string{"Cookie": strings.Join(pairs, "; ")}}
	me := w.askWhoAmI(c, w.suite.target.Frontend+"/api/graphql")
	return w.answerNames(me, p.urn)
}
