package steps

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// registerTokensSteps registers the steps of features/tokens.feature.
func registerTokensSteps(s stepRegistrar) {
	s.Step(`^the administrator grants `+who+` `+priv+`$`, adminGrants)
	s.Step(`^`+who+` grants `+self+` every platform privilege with a new policy$`, grantsHerselfEverything)
	s.Step(`^`+who+` creates a personal access token for `+anyoneOf+`$`, createsTokenFor)
	s.Step(`^`+who+` has created a personal access token for `+anyoneOf+`$`, hasCreatedTokenFor)
	s.Step(`^the new token acts as `+who+`$`, newTokenActsAs)
	s.Step(`^the new token is refused$`, newTokenIsRefused)
	s.Step(`^the new token is described with `+who+` as its actor and `+who+` as its owner$`, newTokenIsDescribed)
	s.Step(`^the new token is a JWT signed with HS256 that names `+who+`$`, newTokenIsHS256JWT)
	s.Step(`^no token was created for `+who+`$`, noTokenCreatedFor)
	s.Step(`^the answer holds the raw token$`, answerHoldsRawToken)
	s.Step(`^the raw token appears in no token list and no token metadata$`, rawTokenAppearsNowhere)
	s.Step(`^`+who+` lists `+own+` own tokens$`, listsOwnTokens)
	s.Step(`^`+who+` lists tokens without saying whose$`, listsTokensWithoutSayingWhose)
	s.Step(`^`+who+` lists the tokens `+who+` owns$`, listsTokensOwnedBy)
	s.Step(`^the list includes the new token$`, listIncludesNewToken)
	s.Step(`^every token in the list is owned by `+who+`$`, everyTokenOwnedBy)
	s.Step(`^`+who+`'s own token list does not include the new token$`, ownListExcludesNewToken)
	s.Step(`^`+who+` revokes the new token$`, revokesNewToken)
	s.Step(`^the new token is described with its name, description, actor, owner and dates in the answer, in `+own+` token list and in its metadata$`, describedEverywhere)
	s.Step(`^`+who+` reads the metadata of the new token$`, readsMetadataOfNewToken)
}

// tokenState is the tokens a scenario made or tried to make.
type tokenState struct {
	newToken      *tokenRecord   // the token the scenario made last
	tokenBaseline *tokenBaseline // tokens for a user before an attempt to make one
	namedTokens   []*tokenRecord // tokens made by name (token_filters.go)
}

// tokenMetadata is DataHub's AccessTokenMetadata.
type tokenMetadata struct {
	URN         string  `json:"urn"`
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	ActorURN    string  `json:"actorUrn"`
	OwnerURN    string  `json:"ownerUrn"`
	CreatedAt   int64   `json:"createdAt"`
	ExpiresAt   *int64  `json:"expiresAt"`
}

// accessToken is DataHub's AccessToken: the raw token, shown once.
type accessToken struct {
	AccessToken string         `json:"accessToken"`
	Metadata    *tokenMetadata `json:"metadata"`
}

// tokenRecord is a token a scenario made.
type tokenRecord struct {
	raw     string
	meta    tokenMetadata
	actor   *person
	owner   string // name of who made it, as the scenario says it
	created *answer
	madeAt  time.Time // when the suite had the answer
}

// tokenBaseline is what tokens stood for a user before an attempt to make
// one, so that a refused attempt can be shown to have made none.
type tokenBaseline struct {
	actor *person
	ids   map[string]bool
}

// tokenDuration is how long the tokens a scenario makes last.
const tokenDuration = "ONE_HOUR"

// attemptCreateToken sends createAccessToken as c for actor.
func (w *world) attemptCreateToken(c caller, actor *person) *answer {
	return w.attemptCreateTokenFor(c, actor, tokenDuration)
}

// attemptCreateTokenFor sends createAccessToken as c for actor, lasting
// duration.
func (w *world) attemptCreateTokenFor(c caller, actor *person, duration string) *answer {
	a := w.graphql(c, w.suite.docs.createAccessToken, map[string]any{"input": map[string]any{
		"type":        "PERSONAL",
		"actorUrn":    actor.urn,
		"duration":    duration,
		"name":        w.unique("token"),
		"description": fmt.Sprintf("Made by %s for %s in the catalogspec scenario: %s", c.name, actor.name, w.name),
	}})
	a.what = fmt.Sprintf("%s creating a personal access token for %s", c.name, actor.name)
	return a
}

// tokenFrom reads the token out of a createAccessToken answer and revokes
// it at the end of the scenario.
func (w *world) tokenFrom(a *answer, c caller, actor *person) (*tokenRecord, error) {
	var tok *accessToken
	if err := a.data("createAccessToken", &tok); err != nil {
		return nil, w.failed(err)
	}
	if tok == nil || tok.AccessToken == "" || tok.Metadata == nil || tok.Metadata.ID == "" {
		return nil, w.fail("%s answered without a token, or without its metadata and id", a.what)
	}
	w.secret(tok.AccessToken)
	rec := &tokenRecord{raw: tok.AccessToken, meta: *tok.Metadata, actor: actor, owner: c.name, created: a, madeAt: time.Now()}
	w.undo("revoke the token "+rec.meta.ID, func() error { return w.revokeTolerant(rec.meta.ID) })
	return rec, nil
}

// mustCreateToken has c create a token for actor; it must succeed.
func (w *world) mustCreateToken(c caller, actor *person) (*tokenRecord, error) {
	return w.tokenFrom(w.attemptCreateToken(c, actor), c, actor)
}

// revoke sends revokeAccessToken as c.
func (w *world) revoke(c caller, id string) *answer {
	a := w.graphql(c, w.suite.docs.revokeAccessToken, map[string]any{"tokenId": id})
	a.what = fmt.Sprintf("%s revoking the token %s", c.name, id)
	return a
}

// revokeTolerant revokes as the administrator; a token gone already is
// fine, whether the target says so as NOT_FOUND (the reference) or as
// SERVER_ERROR (DataHub).
func (w *world) revokeTolerant(id string) error {
	a := w.revoke(w.admin(), id)
	var ok bool
	if err := a.data("revokeAccessToken", &ok); err != nil {
		if !isNotFound(a) && !isServerError(a) {
			return err
		}
		return nil
	}
	w.suite.trace.count("tokens", 1)
	return nil
}

// tokenFilter is DataHub's FacetFilterInput.
type tokenFilter struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
	// Condition and Negated are sent only when set: "EQUAL" and true
	// leave out the tokens whose field has one of the values.
	Condition string `json:"condition,omitempty"`
	Negated   bool   `json:"negated,omitempty"`
}

// tokenList is DataHub's ListAccessTokenResult.
type tokenList struct {
	Start  int             `json:"start"`
	Count  int             `json:"count"`
	Total  int             `json:"total"`
	Tokens []tokenMetadata `json:"tokens"`
}

func (l *tokenList) has(id string) bool {
	return l != nil && slices.ContainsFunc(l.Tokens, func(t tokenMetadata) bool { return t.ID == id })
}

// listTokens sends listAccessTokens as c.
func (w *world) listTokens(c caller, filters ...tokenFilter) *answer {
	input := map[string]any{"start": 0, "count": 100}
	if filters != nil {
		input["filters"] = filters
	}
	a := w.graphql(c, w.suite.docs.listAccessTokens, map[string]any{"input": input})
	var whose []string
	for _, f := range filters {
		op := "="
		if f.Negated {
			op = "!="
		}
		whose = append(whose, f.Field+op+strings.Join(f.Values, ","))
	}
	a.what = fmt.Sprintf("%s listing tokens (filters: %s)", c.name, strings.Join(whose, "; "))
	a.noEffect = nothingToCheck
	a.again = func() *answer { return w.listTokens(c, filters...) }
	return a
}

// listShows checks, within the propagation window, that the list a (sent
// again while it lags) includes the token id, or with want false that it
// does not. DataHub's token lists come from a search index that lags
// behind creation and revocation.
func (w *world) listShows(a *answer, id string, want bool) (*answer, error) {
	what := fmt.Sprintf("%s including the token %s", a.what, id)
	if !want {
		what = fmt.Sprintf("%s no longer including the token %s", a.what, id)
	}
	err := w.eventually(what, func() (bool, error) {
		var l *tokenList
		if err := a.data("listAccessTokens", &l); err != nil {
			return false, w.failed(err)
		}
		if l.has(id) == want {
			return true, nil
		}
		miss := w.fail("%s does not include the token %s", a.what, id)
		if !want {
			miss = w.fail("%s still includes the token %s", a.what, id)
		}
		if a.again != nil {
			a = a.again()
		}
		return false, miss
	})
	return a, err
}

// tokensFor lists, as the administrator, the ids of the tokens that stand
// for p.
func (w *world) tokensFor(p *person) (map[string]bool, error) {
	a := w.listTokens(w.admin(), tokenFilter{Field: "actorUrn", Values: []string{p.urn}})
	var l *tokenList
	if err := a.data("listAccessTokens", &l); err != nil {
		return nil, w.failed(err)
	}
	ids := map[string]bool{}
	if l != nil {
		for _, t := range l.Tokens {
			// Filtered here too, in case a target ignores the filter.
			if t.ActorURN == p.urn {
				ids[t.ID] = true
			}
		}
	}
	return ids, nil
}

// newTokensSince lists the tokens that stand for b.actor beyond the
// baseline.
func (w *world) newTokensSince(b *tokenBaseline) ([]string, error) {
	now, err := w.tokensFor(b.actor)
	if err != nil {
		return nil, err
	}
	var extra []string
	for id := range now {
		if !b.ids[id] {
			extra = append(extra, id)
		}
	}
	return extra, nil
}

// noNewTokens checks that no token stands for b.actor beyond the baseline.
func (w *world) noNewTokens(b *tokenBaseline) error {
	extra, err := w.newTokensSince(b)
	if err != nil {
		return err
	}
	if len(extra) > 0 {
		return w.fail("%d token(s) were created for %s although the request was refused: %v", len(extra), b.actor.name, extra)
	}
	return nil
}

// revokeNewTokens revokes the tokens a refused attempt made anyway.
func (w *world) revokeNewTokens(b *tokenBaseline) error {
	extra, err := w.newTokensSince(b)
	if err != nil {
		return err
	}
	for _, id := range extra {
		if err := w.revokeTolerant(id); err != nil {
			return err
		}
	}
	return nil
}

// tokenMetadataOf asks for the metadata of a raw token, as the
// administrator.
func (w *world) tokenMetadataOf(raw string) (*answer, *tokenMetadata, error) {
	a := w.graphql(w.admin(), w.suite.docs.getAccessTokenMetadata, map[string]any{"token": raw})
	a.what = "the administrator asking for the metadata of the new token"
	var m *tokenMetadata
	if err := a.data("getAccessTokenMetadata", &m); err != nil {
		return a, nil, w.failed(err)
	}
	if m == nil {
		return a, nil, w.fail("%s: the answer is null", a.what)
	}
	return a, m, nil
}

func (w *world) theNewToken() (*tokenRecord, error) {
	if w.newToken == nil {
		return nil, w.fail("no token was made in this scenario")
	}
	return w.newToken, nil
}

// forWhom resolves "herself", "himself", "themself" or a name.
func (w *world) forWhom(name, whom string) *person {
	switch whom {
	case "herself", "himself", "themself":
		return w.person(name)
	}
	return w.person(whom)
}

// Steps.

func createsTokenFor(ctx context.Context, name, whom string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	actor := w.forWhom(name, whom)
	if err := w.ensureUser(actor); err != nil {
		return err
	}
	before, err := w.tokensFor(actor)
	if err != nil {
		return err
	}
	baseline := &tokenBaseline{actor: actor, ids: before}
	a := w.attemptCreateToken(c, actor)
	a.noEffect = func() error { return w.noNewTokens(baseline) }
	w.last = a
	if g, err := a.decodeGraphQL(); err == nil && len(g.Errors) == 0 {
		if w.newToken, err = w.tokenFrom(a, c, actor); err != nil {
			return err
		}
	} else {
		// A refused attempt, or a broken one that made a token anyway.
		w.undo("revoke tokens made for "+actor.name+" by a refused attempt", func() error { return w.revokeNewTokens(baseline) })
	}
	w.tokenBaseline = baseline
	return w.checkpoint()
}

func hasCreatedTokenFor(ctx context.Context, name, whom string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	actor := w.forWhom(name, whom)
	if err := w.ensureUser(actor); err != nil {
		return err
	}
	w.newToken, err = w.mustCreateToken(c, actor)
	return err
}

func newTokenActsAs(ctx context.Context, name string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	a := w.askWhoAmI(w.withToken("the new token", tok.raw), "")
	return w.answerNames(a, w.person(name).urn)
}

func newTokenIsRefused(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	a := w.askWhoAmI(w.withToken("the new token", tok.raw), "")
	return w.refused(a)
}

func newTokenIsDescribed(ctx context.Context, actorName, ownerName string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	actor, owner := w.person(actorName), w.person(ownerName)
	_, m, err := w.tokenMetadataOf(tok.raw)
	if err != nil {
		return err
	}
	for _, got := range []struct {
		where string
		meta  tokenMetadata
	}{{"the answer that created it", tok.meta}, {"getAccessTokenMetadata", *m}} {
		if got.meta.ActorURN != actor.urn || got.meta.OwnerURN != owner.urn {
			return w.fail("%s describes the new token with actor %q and owner %q; expected actor %q (%s) and owner %q (%s)",
				got.where, got.meta.ActorURN, got.meta.OwnerURN, actor.urn, actor.name, owner.urn, owner.name)
		}
	}
	if m.ID != tok.meta.ID {
		return w.fail("getAccessTokenMetadata gives the id %q, the creating answer gave %q", m.ID, tok.meta.ID)
	}
	return nil
}

func newTokenIsHS256JWT(ctx context.Context, name string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	p := w.person(name)
	claims := jwt.MapClaims{}
	parsed, _, err := jwt.NewParser().ParseUnverified(tok.raw, claims)
	if err != nil {
		return w.fail("the new token is not a JWT: %v", err)
	}
	var problems []string
	if alg, _ := parsed.Header["alg"].(string); alg != "HS256" {
		problems = append(problems, fmt.Sprintf("alg is %q, expected HS256", alg))
	}
	want := map[string]string{"actorType": "USER", "actorId": p.username, "sub": p.username, "type": "PERSONAL", "version": "2"}
	for k, v := range want {
		got, ok := claims[k].(string)
		if !ok || got != v {
			problems = append(problems, fmt.Sprintf("claim %s is %v, expected the string %q", k, claims[k], v))
		}
	}
	if jti, _ := claims["jti"].(string); jti == "" {
		problems = append(problems, "claim jti is missing")
	}
	exp, err := claims.GetExpirationTime()
	switch {
	case err != nil || exp == nil:
		problems = append(problems, "claim exp is missing or not a number, expected one for a ONE_HOUR token")
	case exp.Before(time.Now()) || exp.After(time.Now().Add(time.Hour+5*time.Minute)):
		problems = append(problems, fmt.Sprintf("claim exp is %s, expected about an hour from now", exp.UTC().Format(time.RFC3339)))
	}
	if len(problems) > 0 {
		return w.fail("the new token is not as the contract says: %s", strings.Join(problems, "; "))
	}
	return nil
}

func noTokenCreatedFor(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b := w.tokenBaseline
	if b == nil || b.actor.name != name {
		return w.fail("no attempt to create a token for %s was made", name)
	}
	return w.noNewTokens(b)
}

func answerHoldsRawToken(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	if strings.Count(tok.raw, ".") != 2 {
		return w.fail("the answer's accessToken is not a signed JWT (three dot-separated parts)")
	}
	if !strings.Contains(string(tok.created.body), tok.raw) {
		return w.fail("the answer that created the token does not hold it")
	}
	return nil
}

func rawTokenAppearsNowhere(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	owner := tok.actor
	c, err := w.as(owner)
	if err != nil {
		return err
	}
	own := tokenFilter{Field: "ownerUrn", Values: []string{owner.urn}}
	answers := []*answer{w.listTokens(c, own), w.listTokens(w.admin(), own)}
	for i, a := range answers {
		if answers[i], err = w.listShows(a, tok.meta.ID, true); err != nil {
			return err
		}
	}
	a, m, err := w.tokenMetadataOf(tok.raw)
	if err != nil {
		return err
	}
	if m.ID != tok.meta.ID {
		return w.fail("%s gives the id %q, expected %q", a.what, m.ID, tok.meta.ID)
	}
	answers = append(answers, a)
	for _, a := range answers {
		if strings.Contains(string(a.body), tok.raw) {
			return w.fail("the answer to %s contains the raw token", a.what)
		}
	}
	return nil
}

func listsOwnTokens(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	w.last = w.listTokens(c, tokenFilter{Field: "ownerUrn", Values: []string{p.urn}})
	return w.checkpoint()
}

func listsTokensWithoutSayingWhose(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.listTokens(c)
	return w.checkpoint()
}

func listsTokensOwnedBy(ctx context.Context, name, owner string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.listTokens(c, tokenFilter{Field: "ownerUrn", Values: []string{w.person(owner).urn}})
	return w.checkpoint()
}

func listIncludesNewToken(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	if w.last == nil {
		return w.fail("no list was asked for")
	}
	_, err = w.listShows(w.last, tok.meta.ID, true)
	return err
}

func ownListExcludesNewToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	_, err = w.listShows(w.listTokens(c, tokenFilter{Field: "ownerUrn", Values: []string{p.urn}}), tok.meta.ID, false)
	return err
}

func revokesNewToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.revoke(c, tok.meta.ID)
	// A refused revocation leaves the token working for its actor.
	a.noEffect = func() error {
		return w.answerNames(w.askWhoAmI(w.withToken("the new token", tok.raw), ""), tok.actor.urn)
	}
	w.last = a
	return w.checkpoint()
}

// durationLengths are the lengths the contract gives each duration.
var durationLengths = map[string]time.Duration{
	"ONE_HOUR": time.Hour, "ONE_DAY": 24 * time.Hour, "ONE_WEEK": 7 * 24 * time.Hour,
	"ONE_MONTH": 30 * 24 * time.Hour, "THREE_MONTHS": 90 * 24 * time.Hour,
	"SIX_MONTHS": 180 * 24 * time.Hour, "ONE_YEAR": 365 * 24 * time.Hour,
}

// createTokenLasting has name create a token for whom lasting duration; it
// must succeed.
func (w *world) createTokenLasting(name, whom, duration string) error {
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	actor := w.forWhom(name, whom)
	if err := w.ensureUser(actor); err != nil {
		return err
	}
	a := w.attemptCreateTokenFor(c, actor, duration)
	w.last = a
	w.newToken, err = w.tokenFrom(a, c, actor)
	return err
}

// noExpiryRefused is why a scenario that needs a token that never expires
// is skipped on a target that refuses to make one.
const noExpiryRefused = "the target refuses to make tokens that never expire (as DataHub does unless ACCESS_TOKEN_ALLOW_NO_EXPIRY is true): there is no such token to check"

// askForTokenLasting asks, as name, for a token of the duration for whom,
// and keeps the answer, whether a token or a refusal: the token as the new
// token, with the tokens whom had before as the baseline a refusal is
// judged against.
func (w *world) askForTokenLasting(name, whom, duration string) error {
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	actor := w.forWhom(name, whom)
	if err := w.ensureUser(actor); err != nil {
		return err
	}
	before, err := w.tokensFor(actor)
	if err != nil {
		return err
	}
	baseline := &tokenBaseline{actor: actor, ids: before}
	a := w.attemptCreateTokenFor(c, actor, duration)
	a.noEffect = func() error { return w.noNewTokens(baseline) }
	w.last, w.tokenBaseline, w.newToken = a, baseline, nil
	if g, err := a.decodeGraphQL(); err == nil && len(g.Errors) == 0 {
		w.newToken, err = w.tokenFrom(a, c, actor)
		return err
	}
	// A refused attempt, or a broken one that made a token anyway.
	w.undo("revoke tokens made for "+actor.name+" by a refused attempt", func() error { return w.revokeNewTokens(baseline) })
	return w.checkpoint()
}

// refusedAsBadRequestMakingNone checks that a is a GraphQL refusal with code
// 400 (BAD_REQUEST) and that no token was made for the baseline's actor.
func (w *world) refusedAsBadRequestMakingNone(a *answer) error {
	e, err := w.graphQLRefusal(a, "a token or a refusal as a bad request")
	if err != nil {
		return err
	}
	if e.code() != "400" {
		return w.fail("%s was refused with code %q and type %q (%q), expected a token, or a refusal with 400 BAD_REQUEST", a.what, e.code(), e.Extensions.Type, e.Message)
	}
	b := w.tokenBaseline
	if b == nil {
		return w.fail("no attempt to create a token was made")
	}
	return w.noNewTokens(b)
}

// tokenExp reads the exp claim of a raw token, nil when it has none.
func (w *world) tokenExp(raw string) (*time.Time, error) {
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(raw, claims); err != nil {
		return nil, w.fail("the new token is not a JWT: %v", err)
	}
	if _, ok := claims["exp"]; !ok {
		return nil, nil
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return nil, w.fail("the new token's exp claim is not a number of seconds: %v", claims["exp"])
	}
	t := exp.Time
	return &t, nil
}

func describedWithNoExpiry(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	if tok.meta.ExpiresAt != nil {
		return w.fail("the NO_EXPIRY token is described with expiresAt %d, expected null", *tok.meta.ExpiresAt)
	}
	_, m, err := w.tokenMetadataOf(tok.raw)
	if err != nil {
		return err
	}
	if m.ExpiresAt != nil {
		return w.fail("getAccessTokenMetadata describes the NO_EXPIRY token with expiresAt %d, expected null", *m.ExpiresAt)
	}
	return nil
}

func carriesNoExpiry(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	exp, err := w.tokenExp(tok.raw)
	if err != nil {
		return err
	}
	if exp != nil {
		return w.fail("the NO_EXPIRY token has an exp claim (%s), expected none", exp.UTC())
	}
	return nil
}

// sameDescription compares what two places say of a token.
func sameDescription(where string, got, want tokenMetadata) error {
	var diffs []string
	if got.ID != want.ID {
		diffs = append(diffs, fmt.Sprintf("id %q, not %q", got.ID, want.ID))
	}
	if got.Name != want.Name {
		diffs = append(diffs, fmt.Sprintf("name %q, not %q", got.Name, want.Name))
	}
	if deref(got.Description) != deref(want.Description) {
		diffs = append(diffs, fmt.Sprintf("description %q, not %q", deref(got.Description), deref(want.Description)))
	}
	if got.ActorURN != want.ActorURN || got.OwnerURN != want.OwnerURN {
		diffs = append(diffs, fmt.Sprintf("actor %q and owner %q, not %q and %q", got.ActorURN, got.OwnerURN, want.ActorURN, want.OwnerURN))
	}
	if got.CreatedAt != want.CreatedAt || deref(got.ExpiresAt) != deref(want.ExpiresAt) {
		diffs = append(diffs, fmt.Sprintf("createdAt %d and expiresAt %d, not %d and %d", got.CreatedAt, deref(got.ExpiresAt), want.CreatedAt, deref(want.ExpiresAt)))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s describes the token with %s", where, strings.Join(diffs, "; "))
	}
	return nil
}

func describedEverywhere(ctx context.Context) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	p := tok.actor
	want := tok.meta
	var problems []string
	if want.Name == "" || !strings.HasPrefix(want.Name, "catalogspec-token-") {
		problems = append(problems, fmt.Sprintf("the creating answer gives the name %q", want.Name))
	}
	if !strings.HasPrefix(deref(want.Description), "Made by ") {
		problems = append(problems, fmt.Sprintf("the creating answer gives the description %q", deref(want.Description)))
	}
	if want.ActorURN != p.urn || want.OwnerURN != p.urn {
		problems = append(problems, fmt.Sprintf("the creating answer gives actor %q and owner %q, expected %q for both", want.ActorURN, want.OwnerURN, p.urn))
	}
	if want.URN != "urn:li:dataHubAccessToken:"+want.ID {
		problems = append(problems, fmt.Sprintf("the creating answer gives the urn %q, expected urn:li:dataHubAccessToken:%s", want.URN, want.ID))
	}
	if len(problems) > 0 {
		return w.fail("%s", strings.Join(problems, "; "))
	}
	if err := describedAsExpiring(ctx, 1, "hour"); err != nil {
		return err
	}
	c, err := w.as(p)
	if err != nil {
		return err
	}
	list, err := w.listShows(w.listTokens(c, tokenFilter{Field: "ownerUrn", Values: []string{p.urn}}), want.ID, true)
	if err != nil {
		return err
	}
	var l *tokenList
	if err := list.data("listAccessTokens", &l); err != nil {
		return w.failed(err)
	}
	for _, t := range l.Tokens {
		if t.ID == want.ID {
			if err := sameDescription(list.what, t, want); err != nil {
				return w.failed(err)
			}
		}
	}
	a, m, err := w.tokenMetadataOf(tok.raw)
	if err != nil {
		return err
	}
	return w.failed(sameDescription(a.what, *m, want))
}

func readsMetadataOfNewToken(ctx context.Context, name string) error {
	w := theWorld(ctx)
	tok, err := w.theNewToken()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.graphql(c, w.suite.docs.getAccessTokenMetadata, map[string]any{"token": tok.raw})
	a.what = name + " reading the metadata of the new token"
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func everyTokenOwnedBy(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var l *tokenList
	if err := a.data("listAccessTokens", &l); err != nil {
		return w.failed(err)
	}
	owner := w.person(name).urn
	for _, t := range l.Tokens {
		if t.OwnerURN != owner {
			return w.fail("%s includes the token %s owned by %s", a.what, t.ID, t.OwnerURN)
		}
	}
	return nil
}

func adminGrants(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	return w.grantNoWait(w.person(name), privilege, nil)
}

func grantsHerselfEverything(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	in := policyInput{
		Type:       "PLATFORM",
		Name:       fmt.Sprintf("%s %s grants %s everything", w.unique("policy"), p.name, p.name),
		State:      "ACTIVE",
		Privileges: platformPrivileges,
		Actors:     actorFilter{Users: []string{p.urn}, Groups: []string{}},
	}
	a := w.graphql(c, w.suite.docs.createPolicy, map[string]any{"input": in})
	a.what = fmt.Sprintf("%s creating a policy that grants %s every platform privilege", p.name, p.name)
	w.removeNamed(in.Name)
	a.noEffect = w.noPolicyMade(in.Name)
	w.last = a
	return w.checkpoint()
}
