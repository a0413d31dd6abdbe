package steps

import "context"

// registerTokensForOthersSteps registers the steps of features/tokens_for_others.feature.
func registerTokensForOthersSteps(s stepRegistrar) {
	s.Step(`^`+who+` creates a tag with the new token$`, createsATagWithNewToken)
	s.Step(`^the metadata describes the new token with `+who+` as its actor and `+who+` as its owner$`, metadataDescribes)
}

func createsATagWithNewToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	if tok.actor.name != name {
		return w.fail("the new token stands for %s, not %s", tok.actor.name, name)
	}
	w.tag = w.newTag()
	w.last = w.attemptCreateTag(w.withToken(name, tok.raw), w.tag)
	return w.checkpoint()
}

func metadataDescribes(ctx context.Context, actorName, ownerName string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var m *tokenMetadata
	if err := a.data("getAccessTokenMetadata", &m); err != nil {
		return w.failed(err)
	}
	if m == nil {
		return w.fail("%s: the answer is null", a.what)
	}
	actor, owner := w.person(actorName), w.person(ownerName)
	if m.ActorURN != actor.urn || m.OwnerURN != owner.urn {
		return w.fail("%s describes actor %q and owner %q, expected %q and %q", a.what, m.ActorURN, m.OwnerURN, actor.urn, owner.urn)
	}
	return w.failed(sameDescription(a.what, *m, tok.meta))
}
