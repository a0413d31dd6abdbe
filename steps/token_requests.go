package steps

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// registerTokenRequestsSteps registers the steps of features/token_requests.feature.
func registerTokenRequestsSteps(s stepRegistrar) {
	s.Step(`^`+who+` has created a personal access token for `+self+` named "([^"]+)"$`, hasCreatedNamedToken)
	s.Step(`^`+who+` lists `+own+` own tokens, leaving out those named "([^"]+)"$`, listsOwnTokensExcept)
	s.Step(`^the list holds the token named "([^"]+)" and no other, and counts one$`, listHoldsOnlyNamed)
	s.Step(`^`+who+` lists the tokens whose owner is not `+who+`$`, listsTokensNotOwnedBy)
	s.Step(`^the administrator creates a token for `+who+` with a name of (\d+) characters and a description of (\d+)$`, adminCreatesLongToken)
	s.Step(`^the administrator creates a token for `+who+` (without a name|with a name of 257 characters|with a description of 2049 characters)$`, adminCreatesFlawedToken)
	s.Step(`^the administrator creates a token for a user who does not exist$`, adminCreatesTokenForNobody)
	s.Step(`^the new token is described with that name and description$`, newTokenDescribedWithThatNameAndDescription)
	s.Step(`^the request is refused as a bad request and no token was made$`, refusedAsBadRequestChangingNothing)
	s.Step(`^the administrator lists tokens (by a field tokens do not have|from a negative position|with a negative count|1001 at a time)$`, adminListsTokensHow)
	s.Step(`^the administrator lists `+who+`'s tokens 1000 at a time$`, adminListsThousandOf)
	s.Step(`^the administrator revokes a token that does not exist$`, adminRevokesMissingToken)
	s.Step(`^the answer says no such token was found$`, answerSaysNotFound)
	s.Step(`^`+who+` revokes a token that does not exist$`, revokesMissingToken)
	s.Step(`^the revocation is refused$`, revocationIsRefused)
	s.Step(`^the administrator revokes a token without naming it$`, adminRevokesWithoutNaming)
	s.Step(`^the administrator asks for the metadata of something that is not a token$`, adminAsksMetadataOfNonToken)
	s.Step(`^the administrator has created a personal access token for `+who+`$`, adminHasCreatedTokenFor)
	s.Step(`^the administrator has revoked the new token$`, adminHasRevokedNewToken)
	s.Step(`^the administrator asks for the metadata of the new token$`, adminAsksMetadataOfNewToken)
	s.Step(`^no metadata is given$`, noMetadataGiven)
	s.Step(`^the new token names ([a-z-]+) as its issuer$`, newTokenNamesIssuer)
	s.Step(`^the administrator lists `+who+`'s tokens from the second on$`, adminListsFromSecond)
	s.Step(`^the page is empty but counts one token$`, pageEmptyCountsOne)
	s.Step(`^someone asks who they are with the revoked token$`, asksWithRevokedToken)
	s.Step(`^the administrator has created three tokens for `+who+` that last different times$`, adminCreatesThreeTokens)
	s.Step(`^the administrator lists `+who+`'s tokens one at a time$`, adminListsOneAtATime)
	s.Step(`^each of the first three pages holds one of the three tokens, a different one each time$`, firstPagesHoldEachToken)
	s.Step(`^the page after them is empty but counts all three$`, pageAfterIsEmptyButCounts)
}

// Steps of token_requests.feature: token operations asked to do something
// that makes no sense.

// tokenRequest is what the administrator asks createAccessToken for, on top
// of the usual input (attemptCreateTokenFor).
type tokenRequest struct {
	name, description string
	actor             *person // nil: a user who does not exist
}

// createTokenAsAdmin sends createAccessToken as the administrator with r,
// records the answer with a read-back that no token stands for the actor
// beyond those it had, and keeps a token that was made for the scenario.
func (w *world) createTokenAsAdmin(r tokenRequest) error {
	actor := r.actor
	if actor == nil {
		actor = &person{name: "a user who does not exist", urn: "urn:li:corpuser:" + w.unique("nobody")}
	} else if err := w.ensureUser(actor); err != nil {
		return err
	}
	before, err := w.tokensFor(actor)
	if err != nil {
		return err
	}
	baseline := &tokenBaseline{actor: actor, ids: before}
	c := w.admin()
	a := w.graphql(c, w.suite.docs.createAccessToken, map[string]any{"input": map[string]any{
		"type": "PERSONAL", "actorUrn": actor.urn, "duration": tokenDuration,
		"name": r.name, "description": r.description,
	}})
	a.what = fmt.Sprintf("the administrator creating a token for %s (name of %d characters, description of %d)", actor.name, len(r.name), len(r.description))
	a.noEffect = func() error { return w.noNewTokens(baseline) }
	w.last = a
	w.tokenBaseline = baseline
	if g, err := a.decodeGraphQL(); err == nil && len(g.Errors) == 0 {
		if w.newToken, err = w.tokenFrom(a, c, actor); err != nil {
			return err
		}
	} else {
		w.undo("revoke tokens made for "+actor.name+" by a refused attempt", func() error { return w.revokeNewTokens(baseline) })
	}
	return w.checkpoint()
}

// nameOf is a token name of n characters, unique to the scenario.
func (w *world) nameOf(n int) string {
	s := w.unique("token")
	if len(s) >= n {
		return s[:n]
	}
	return s + strings.Repeat("n", n-len(s))
}

func adminCreatesLongToken(ctx context.Context, name string, nameLen, descLen int) error {
	w := theWorld(ctx)
	return w.createTokenAsAdmin(tokenRequest{name: w.nameOf(nameLen), description: strings.Repeat("d", descLen), actor: w.person(name)})
}

func adminCreatesFlawedToken(ctx context.Context, name, flaw string) error {
	w := theWorld(ctx)
	r := tokenRequest{name: w.unique("token"), description: "made by catalogspec", actor: w.person(name)}
	switch flaw {
	case "without a name":
		r.name = ""
	case "with a name of 257 characters":
		r.name = w.nameOf(257)
	case "with a description of 2049 characters":
		r.description = strings.Repeat("d", 2049)
	default:
		return w.fail("unknown flaw %q", flaw)
	}
	return w.createTokenAsAdmin(r)
}

func adminCreatesTokenForNobody(ctx context.Context) error {
	w := theWorld(ctx)
	return w.createTokenAsAdmin(tokenRequest{name: w.unique("token"), description: "made by catalogspec"})
}

func newTokenDescribedWithThatNameAndDescription(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	var sent struct {
		Variables struct {
			Input struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"input"`
		} `json:"variables"`
	}
	// What was asked for is in the request the answer came to.
	w.mu.Lock()
	x := append([]exchange(nil), w.exchanges...)
	w.mu.Unlock()
	for i := len(x) - 1; i >= 0; i-- {
		if strings.Contains(x[i].body, "createAccessToken") && json.Unmarshal([]byte(x[i].body), &sent) == nil {
			break
		}
	}
	_, m, err := w.tokenMetadataOf(tok.raw)
	if err != nil {
		return err
	}
	desc := ""
	if m.Description != nil {
		desc = *m.Description
	}
	if m.Name != sent.Variables.Input.Name || desc != sent.Variables.Input.Description || sent.Variables.Input.Name == "" {
		return w.fail("the token's metadata has a name of %d characters and a description of %d; %d and %d were asked for",
			len(m.Name), len(desc), len(sent.Variables.Input.Name), len(sent.Variables.Input.Description))
	}
	return nil
}

// listTokensWith sends listAccessTokens as the administrator with input.
func (w *world) listTokensWith(what string, input map[string]any) error {
	a := w.graphql(w.admin(), w.suite.docs.listAccessTokens, map[string]any{"input": input})
	a.what = "the administrator listing tokens " + what
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func adminListsTokensHow(ctx context.Context, how string) error {
	w := theWorld(ctx)
	input := map[string]any{"start": 0, "count": 10}
	switch how {
	case "by a field tokens do not have":
		input["filters"] = []tokenFilter{{Field: "catalogspecNoSuchField", Values: []string{"x"}}}
	case "from a negative position":
		input["start"] = -1
	case "with a negative count":
		input["count"] = -1
	case "1001 at a time":
		input["count"] = 1001
	default:
		return w.fail("unknown way of listing %q", how)
	}
	return w.listTokensWith(how, input)
}

// adminListsThousandOf asks, as the administrator, for a page of 1000 of
// the tokens that act for name: only theirs, since an unfiltered list of a
// DataHub fails while its search index still holds a token some other
// scenario has just revoked.
func adminListsThousandOf(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	var list func() *answer
	list = func() *answer {
		a := w.graphql(w.admin(), w.suite.docs.listAccessTokens, map[string]any{"input": map[string]any{
			"start": 0, "count": 1000, "filters": []tokenFilter{{Field: "actorUrn", Values: []string{p.urn}}}}})
		a.what = fmt.Sprintf("the administrator listing the tokens of %s 1000 at a time", name)
		a.noEffect = nothingToCheck
		a.again = list
		return a
	}
	w.last = list()
	return w.checkpoint()
}

// missingTokenID is an id no token has.
func (w *world) missingTokenID() string { return w.unique("no-such-token") }

func adminRevokesMissingToken(ctx context.Context) error {
	w := theWorld(ctx)
	w.last = w.revoke(w.admin(), w.missingTokenID())
	return w.checkpoint()
}

func answerSaysNotFound(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if !isNotFound(a) {
		return w.fail("%s was not answered as not found (a GraphQL error with code 404 or type NOT_FOUND)", a.what)
	}
	return nil
}

func revokesMissingToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.revoke(c, w.missingTokenID())
	return w.checkpoint()
}

func revocationIsRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	_, err = w.graphQLRefusal(a, "a refusal")
	return err
}

func adminRevokesWithoutNaming(ctx context.Context) error {
	w := theWorld(ctx)
	w.last = w.revoke(w.admin(), "")
	w.last.noEffect = nothingToCheck
	return w.checkpoint()
}

func adminAsksMetadataOfNonToken(ctx context.Context) error {
	w := theWorld(ctx)
	a := w.graphql(w.admin(), w.suite.docs.getAccessTokenMetadata, map[string]any{"token": "not-a-token-" + w.id})
	a.what = "the administrator asking for the metadata of something that is not a token"
	w.last = a
	return w.checkpoint()
}

func adminHasCreatedTokenFor(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if err := w.createTokenAsAdmin(tokenRequest{name: w.unique("token"), description: "made by catalogspec", actor: w.person(name)}); err != nil {
		return err
	}
	if w.newToken == nil {
		return w.fail("the administrator could not create a token for %s", name)
	}
	return nil
}

func adminHasRevokedNewToken(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	a := w.revoke(w.admin(), tok.meta.ID)
	var ok bool
	if err := a.data("revokeAccessToken", &ok); err != nil {
		return w.failed(err)
	}
	if !ok {
		return w.fail("%s answered false", a.what)
	}
	return nil
}

func adminAsksMetadataOfNewToken(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	a := w.graphql(w.admin(), w.suite.docs.getAccessTokenMetadata, map[string]any{"token": tok.raw})
	a.what = "the administrator asking for the metadata of the revoked token"
	w.last = a
	return w.checkpoint()
}

// noMetadataGiven: an error, and no metadata in the answer. DataHub may
// take a moment to see the revocation, so the question is asked again
// within the propagation window.
func noMetadataGiven(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	return w.eventually("the revoked token's metadata being refused", func() (bool, error) {
		a := w.graphql(w.admin(), w.suite.docs.getAccessTokenMetadata, map[string]any{"token": tok.raw})
		var m *tokenMetadata
		derr := a.data("getAccessTokenMetadata", &m)
		w.takeFailures()
		g, gerr := a.decodeGraphQL()
		return derr != nil && gerr == nil && len(g.Errors) > 0 && m == nil, nil
	})
}

// newTokenNamesIssuer checks the iss claim of the new token: DataHub's
// StatelessTokenService signs with DATAHUB_TOKEN_SERVICE_ISSUER, by default
// datahub-metadata-service.
func newTokenNamesIssuer(ctx context.Context, issuer string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	parts := strings.Split(tok.raw, ".")
	if len(parts) != 3 {
		return w.fail("the new token is not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return w.fail("the new token's claims are not base64url: %v", err)
	}
	var claims struct {
		Iss string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return w.fail("the new token's claims are not JSON: %v", err)
	}
	if claims.Iss != issuer {
		return w.fail("the new token's issuer (iss) is %q, expected %q", claims.Iss, issuer)
	}
	return nil
}

// pagedTokens is what paging through one user's tokens gave.
type pagedTokens struct {
	made  []string   // ids of the tokens made
	pages [][]string // ids on each page, count 1, from start 0
	total []int      // the total each page reported
}

func adminCreatesThreeTokens(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	// Different lifetimes: DataHub sorts its list by expiresAt.
	w.paged = &pagedTokens{}
	for _, d := range []string{"ONE_HOUR", "ONE_DAY", "ONE_MONTH"} {
		a := w.attemptCreateTokenFor(w.admin(), p, d)
		tok, err := w.tokenFrom(a, w.admin(), p)
		if err != nil {
			return err
		}
		w.paged.made = append(w.paged.made, tok.meta.ID)
	}
	return w.checkpoint()
}

func adminListsOneAtATime(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.paged == nil {
		return w.fail("no tokens were made to page through")
	}
	p := w.person(name)
	filter := []tokenFilter{{Field: "actorUrn", Values: []string{p.urn}}}
	// The list is search-backed on DataHub: wait until it holds all three.
	if err := w.eventually("the list of "+name+"'s tokens holding all three", func() (bool, error) {
		a := w.graphql(w.admin(), w.suite.docs.listAccessTokens, map[string]any{"input": map[string]any{"start": 0, "count": 10, "filters": filter}})
		var l *tokenList
		if err := a.data("listAccessTokens", &l); err != nil {
			return false, w.failed(err)
		}
		return l != nil && l.Total == len(w.paged.made), nil
	}); err != nil {
		return err
	}
	for start := 0; start <= len(w.paged.made); start++ {
		a := w.graphql(w.admin(), w.suite.docs.listAccessTokens, map[string]any{"input": map[string]any{"start": start, "count": 1, "filters": filter}})
		a.what = fmt.Sprintf("the administrator listing %s's tokens from %d, one at a time", name, start)
		var l *tokenList
		if err := a.data("listAccessTokens", &l); err != nil {
			return w.failed(err)
		}
		var ids []string
		for _, t := range l.Tokens {
			ids = append(ids, t.ID)
		}
		w.paged.pages = append(w.paged.pages, ids)
		w.paged.total = append(w.paged.total, l.Total)
	}
	return w.checkpoint()
}

func firstPagesHoldEachToken(ctx context.Context) error {
	w := theWorld(ctx)
	pg := w.paged
	if pg == nil || len(pg.pages) != len(pg.made)+1 {
		return w.fail("the tokens were not paged through")
	}
	seen := map[string]bool{}
	for i := range pg.made {
		if len(pg.pages[i]) != 1 {
			return w.fail("page %d (count 1) holds %d tokens, expected 1", i, len(pg.pages[i]))
		}
		id := pg.pages[i][0]
		if seen[id] || !slices.Contains(pg.made, id) {
			return w.fail("page %d holds %s, which is another page's or not one of the three tokens (%v)", i, id, pg.made)
		}
		seen[id] = true
	}
	return nil
}

func pageAfterIsEmptyButCounts(ctx context.Context) error {
	w := theWorld(ctx)
	pg := w.paged
	n := len(pg.made)
	if len(pg.pages[n]) != 0 || pg.total[n] != n {
		return w.fail("the page from %d holds %d tokens and says the total is %d; expected none and a total of %d", n, len(pg.pages[n]), pg.total[n], n)
	}
	return nil
}

func adminListsFromSecond(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	filter := []tokenFilter{{Field: "actorUrn", Values: []string{p.urn}}}
	if err := w.eventually("the list of "+name+"'s tokens holding the token", func() (bool, error) {
		a := w.graphql(w.admin(), w.suite.docs.listAccessTokens, map[string]any{"input": map[string]any{"start": 0, "count": 10, "filters": filter}})
		var l *tokenList
		if err := a.data("listAccessTokens", &l); err != nil {
			return false, w.failed(err)
		}
		return l != nil && l.Total == 1, nil
	}); err != nil {
		return err
	}
	a := w.graphql(w.admin(), w.suite.docs.listAccessTokens, map[string]any{"input": map[string]any{"start": 1, "count": 10, "filters": filter}})
	a.what = "the administrator listing " + name + "'s tokens from the second on"
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func pageEmptyCountsOne(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var l *tokenList
	if err := a.data("listAccessTokens", &l); err != nil {
		return w.failed(err)
	}
	if l == nil || len(l.Tokens) != 0 || l.Total != 1 {
		return w.fail("%s: %v; expected no token and a total of 1", a.what, l)
	}
	return nil
}

func asksWithRevokedToken(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	w.last = w.askWhoAmI(w.withToken("someone with the revoked token", tok.raw), "")
	return w.checkpoint()
}

// Negated token filters (token_requests.feature): DataHub's own smoke test
// (smoke-test/tests/tokens/revokable_access_token_test.py) lists tokens
// leaving out those named "Test Session Token" with a FacetFilterInput
// {"field": "name", "condition": "EQUAL", "negated": true}. A negated
// owner filter must not pass for listing one's own tokens.

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

// namedToken is the token the scenario made with that name, nil for none.
func (w *world) namedToken(name string) *tokenRecord {
	for _, t := range w.namedTokens {
		if t.meta.Name == name {
			return t
		}
	}
	return nil
}
