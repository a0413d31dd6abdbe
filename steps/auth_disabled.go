package steps

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cucumber/godog"
)

// registerAuthDisabledSteps registers the steps of features/auth_disabled.feature.
func registerAuthDisabledSteps(s stepRegistrar) {
	s.Step(`^someone names (a malformed URN|a tag's URN) in X-DataHub-Actor$`, namesInActorHeader)
	s.Step(`^the service runs with authentication disabled$`, serviceRunsWithAuthDisabled)
	s.Step(`^someone without a token creates a personal access token for `+who+`$`, anonymousCreatesToken)
	s.Step(`^the request is refused and no token was made for `+who+`$`, refusedMakingNoToken)
	s.Step(`^someone without a token asks who they are$`, someoneWithoutTokenAsksWhoTheyAre)
	s.Step(`^someone without a token creates a tag$`, someoneWithoutTokenCreatesTag)
	s.Step(`^someone without a token reads the app configuration$`, someoneWithoutTokenReadsAppConfig)
	s.Step(`^the answer names the system actor as the signed-in user$`, answerNamesSystemActor)
	s.Step(`^someone naming `+who+` in X-DataHub-Actor asks who they are( through the frontend)?$`, someoneNamingAsksWhoTheyAre)
	s.Step(`^the answer does not name `+who+` as the signed-in user$`, answerDoesNotName)
	s.Step(`^someone naming `+who+` in X-DataHub-Actor creates a tag$`, createsATag)
}

// systemActor is who a request without a token runs as when authentication
// is disabled.
const systemActor = "urn:li:corpuser:__datahub_system"

// Steps.

func serviceRunsWithAuthDisabled(ctx context.Context) error {
	w := theWorld(ctx)
	if w.suite.Target.NoAuthGMS == "" {
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

func someoneNamingAsksWhoTheyAre(ctx context.Context, name, through string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	endpoint := ""
	if through != "" {
		endpoint = c.frontend + "/api/graphql"
	}
	w.last = w.askWhoAmI(c, endpoint)
	w.last.what = fmt.Sprintf("someone naming %s in X-DataHub-Actor asking who they are%s", name, through)
	return w.checkpoint()
}

func answerDoesNotName(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return nil // refused: not run as the named user either
	}
	var me *meView
	if err := a.data("me", &me); err != nil {
		return nil
	}
	if me != nil && me.CorpUser.URN == w.person(name).urn {
		return w.fail("%s: the answer names %s, so the client's X-DataHub-Actor was passed on", a.what, me.CorpUser.URN)
	}
	return nil
}

func namesInActorHeader(ctx context.Context, what string) error {
	w := theWorld(ctx)
	t := w.suite.Target
	value := "not-a-urn-" + w.id
	if what == "a tag's URN" {
		value = "urn:li:tag:" + w.unique("tag")
	}
	c := caller{name: "someone naming " + what + " in X-DataHub-Actor", gms: t.NoAuthGMS, frontend: t.NoAuthFrontend,
		headers: map[string]string{"X-DataHub-Actor": value}}
	w.last = w.askWhoAmI(c, "")
	return w.checkpoint()
}

// anonymousCreatesToken asks, without a token, for a personal access token
// for p; a token made anyway is revoked at the end.
func anonymousCreatesToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	before, err := w.tokensFor(p)
	if err != nil {
		return err
	}
	baseline := &tokenBaseline{actor: p, ids: before}
	a := w.attemptCreateTokenFor(w.anonymous(), p, tokenDuration)
	a.noEffect = func() error { return w.noNewTokens(baseline) }
	var tok *accessToken
	if a.data("createAccessToken", &tok) == nil && tok != nil && tok.AccessToken != "" {
		w.secret(tok.AccessToken)
	}
	w.takeFailures() // a refusal is what the Then step judges
	w.undo("revoke tokens made for "+p.name+" without a token", func() error { return w.revokeNewTokens(baseline) })
	w.last, w.tokenBaseline = a, baseline
	return w.checkpoint()
}

func refusedMakingNoToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status == 200 {
		if _, err := w.graphQLRefusal(a, "a refusal"); err != nil {
			return err
		}
	}
	return w.noEffect(a)
}
