package steps

import (
	"context"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/cucumber/godog"
)

// registerTokenLifetimeSteps registers the steps of features/token_lifetime.feature.
func registerTokenLifetimeSteps(s stepRegistrar) {
	s.Step(`^`+who+` creates a personal access token for `+anyoneOf+` that lasts ([A-Z_]+)$`, createsTokenLasting)
	s.Step(`^`+who+` has created a personal access token for `+anyoneOf+` that lasts ([A-Z_]+)$`, hasCreatedTokenLasting)
	s.Step(`^`+who+` asks for a personal access token for `+anyoneOf+` that lasts ([A-Z_]+)$`, asksForTokenLasting)
	s.Step(`^either the new token has no expiry anywhere, or it was refused as a bad request and none was made$`, noExpiryAnywhereOrRefused)
	s.Step(`^the new token is described as expiring (\d+) (hours?|days?) after it was made$`, describedAsExpiring)
	s.Step(`^the new token's own expiry is the same$`, ownExpiryIsTheSame)
	s.Step(`^a day and an hour have passed$`, timePasses)
}

func createsTokenLasting(ctx context.Context, name, whom, duration string) error {
	return theWorld(ctx).createTokenLasting(name, whom, duration)
}

// hasCreatedTokenLasting states that a token of the duration exists. A
// target may refuse NO_EXPIRY as a bad request (life-02 checks that it then
// makes none): the scenario is then skipped, saying why, never passed.
func hasCreatedTokenLasting(ctx context.Context, name, whom, duration string) error {
	w := theWorld(ctx)
	if duration != "NO_EXPIRY" {
		return w.createTokenLasting(name, whom, duration)
	}
	if err := w.askForTokenLasting(name, whom, duration); err != nil {
		return err
	}
	if w.newToken != nil {
		return nil
	}
	if err := w.refusedAsBadRequestMakingNone(w.last); err != nil {
		return err
	}
	w.notRun, w.notRunReason = runner.StatusSkipped, noExpiryRefused
	return godog.ErrSkip
}

func asksForTokenLasting(ctx context.Context, name, whom, duration string) error {
	return theWorld(ctx).askForTokenLasting(name, whom, duration)
}

// noExpiryAnywhereOrRefused accepts both behaviours of a correct DataHub: a
// NO_EXPIRY token described without expiresAt (in the answer and in its
// metadata) and carrying no exp claim, or a refusal as a bad request that
// made no token.
func noExpiryAnywhereOrRefused(ctx context.Context) error {
	w := theWorld(ctx)
	if w.newToken == nil {
		a, err := w.lastAnswer()
		if err != nil {
			return err
		}
		return w.refusedAsBadRequestMakingNone(a)
	}
	if err := describedWithNoExpiry(ctx); err != nil {
		return err
	}
	return carriesNoExpiry(ctx)
}

func describedAsExpiring(ctx context.Context, n int, unit string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	length := time.Duration(n) * time.Hour
	if strings.HasPrefix(unit, "day") {
		length *= 24
	}
	m := tok.meta
	if m.ExpiresAt == nil {
		return w.fail("the new token is described with no expiresAt, expected createdAt + %s", length)
	}
	if got := time.Duration(*m.ExpiresAt-m.CreatedAt) * time.Millisecond; got != length {
		return w.fail("the new token is described with expiresAt - createdAt = %s, expected exactly %s", got, length)
	}
	if created := time.UnixMilli(m.CreatedAt); created.Before(tok.madeAt.Add(-5*time.Minute)) || created.After(tok.madeAt.Add(5*time.Minute)) {
		return w.fail("the new token is described as created at %s, but it was made at %s", created.UTC(), tok.madeAt.UTC())
	}
	return nil
}

func ownExpiryIsTheSame(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	exp, err := w.tokenExp(tok.raw)
	if err != nil {
		return err
	}
	if exp == nil || tok.meta.ExpiresAt == nil {
		return w.fail("the new token has exp %v and expiresAt %v, expected both", exp, tok.meta.ExpiresAt)
	}
	// exp is in whole seconds; expiresAt in milliseconds.
	if d := exp.Sub(time.UnixMilli(*tok.meta.ExpiresAt)); d <= -time.Second || d >= time.Second {
		return w.fail("the new token's exp claim says %s, its description %s", exp.UTC(), time.UnixMilli(*tok.meta.ExpiresAt).UTC())
	}
	return nil
}

func timePasses(ctx context.Context) error {
	w := theWorld(ctx)
	if w.suite.Target.LaterGMS == "" {
		return godog.ErrSkip
	}
	w.later = true
	return nil
}
