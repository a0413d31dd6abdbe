package steps

import (
	"context"

	"github.com/cucumber/godog"
)

// systemActor is who a request without a token runs as when authentication
// is disabled.
const systemActor = "urn:li:corpuser:__datahub_system"

// Steps.

func serviceRunsWithAuthDisabled(ctx context.Context) error {
	w := theWorld(ctx)
	if w.suite.target.NoAuthGMS == "" {
		// The Before hook skips @auth-disabled scenarios already; this
		// covers the step used in a scenario without the tag.
		return godog.ErrSkip
	}
	w.noAuth = true
	return nil
}

func someoneWithoutTokenAsksWhoTheyAre(ctx context.Context) error {
	w := theWorld(ctx)
	w.last = w.askWhoAmI(w.anonymous(), "")
	return w.checkpoint()
}

func someoneWithoutTokenCreatesTag(ctx context.Context) error {
	w := theWorld(ctx)
	w.tag = w.newTag()
	w.last = w.attemptCreateTag(w.anonymous(), w.tag)
	return w.checkpoint()
}

func someoneWithoutTokenReadsAppConfig(ctx context.Context) error {
	w := theWorld(ctx)
	w.last = w.appConfig(w.anonymous())
	return w.checkpoint()
}

func answerNamesSystemActor(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.answerNames(a, systemActor)
}
