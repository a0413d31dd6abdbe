package steps

import (
	"context"
	"fmt"
)

// Negated token filters (token_requests.feature): DataHub's own smoke test
// (smoke-test/tests/tokens/revokable_access_token_test.py) lists tokens
// leaving out those named "Test Session Token" with a FacetFilterInput
// {"field": "name", "condition": "EQUAL", "negated": true}. A negated
// owner filter must not pass for listing one's own tokens.

func registerTokenFilterSteps(s stepRegistrar) {
	s.Step(`^`+who+` has created a personal access token for `+self+` named "([^"]+)"$`, hasCreatedNamedToken)
	s.Step(`^`+who+` lists `+own+` own tokens, leaving out those named "([^"]+)"$`, listsOwnTokensExcept)
	s.Step(`^the list holds the token named "([^"]+)" and no other, and counts one$`, listHoldsOnlyNamed)
	s.Step(`^`+who+` lists the tokens whose owner is not `+who+`$`, listsTokensNotOwnedBy)
}

// namedToken is the token the scenario made with that name, nil for none.
func (w *world) namedToken(name string) *tokenRecord {
	for _, t := range w.namedTokens {
		if t.meta.Name == name {
			return t
		}
	}
	return nil
}

func hasCreatedNamedToken(ctx context.Context, name, tokenName string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	a := w.graphql(c, w.suite.docs.createAccessToken, map[string]any{"input": map[string]any{
		"type": "PERSONAL", "actorUrn": p.urn, "duration": tokenDuration, "name": tokenName,
	}})
	a.what = fmt.Sprintf("%s creating a personal access token named %q", name, tokenName)
	t, err := w.tokenFrom(a, c, p)
	if err != nil {
		return err
	}
	w.namedTokens = append(w.namedTokens, t)
	return nil
}

func listsOwnTokensExcept(ctx context.Context, name, tokenName string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	w.last = w.listTokens(c,
		tokenFilter{Field: "ownerUrn", Values: []string{p.urn}},
		tokenFilter{Field: "name", Values: []string{tokenName}, Condition: "EQUAL", Negated: true})
	return w.checkpoint()
}

// listHoldsOnlyNamed checks, within the propagation window (the list is
// search-backed in DataHub), that the list holds exactly the one token of
// that name, and counts one.
func listHoldsOnlyNamed(ctx context.Context, tokenName string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	want := w.namedToken(tokenName)
	if want == nil {
		return w.fail("no token named %q was made in this scenario", tokenName)
	}
	return w.eventually(fmt.Sprintf("%s holding only the token %q", a.what, tokenName), func() (bool, error) {
		var l *tokenList
		if err := a.data("listAccessTokens", &l); err != nil {
			return false, w.failed(err)
		}
		if l != nil && l.Total == 1 && len(l.Tokens) == 1 && l.Tokens[0].ID == want.meta.ID {
			return true, nil
		}
		var got []string
		total := 0
		if l != nil {
			total = l.Total
			for _, t := range l.Tokens {
				got = append(got, fmt.Sprintf("%q (%s)", t.Name, t.ID))
			}
		}
		miss := w.fail("%s holds %v and counts %d, expected only %q (%s) and a count of 1", a.what, got, total, tokenName, want.meta.ID)
		a = a.again()
		return false, miss
	})
}

func listsTokensNotOwnedBy(ctx context.Context, name, owner string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.listTokens(c, tokenFilter{Field: "ownerUrn", Values: []string{w.person(owner).urn}, Condition: "EQUAL", Negated: true})
	return w.checkpoint()
}
