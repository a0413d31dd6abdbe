package steps

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerTokenFiltersSteps registers the steps of features/token_filters.feature.
func registerTokenFiltersSteps(s stepRegistrar) {
	s.Step(`^the administrator has created for `+who+` a token that lasts an hour and one that lasts a month$`, adminCreatesHourAndMonth)
	s.Step(`^`+who+` has created for `+self+` a token that lasts an hour and one that lasts a month$`, createsHourAndMonth)
	s.Step(`^(the administrator|`+who[1:len(who)-1]+`) lists the tokens that expire within two hours, as datahub-gc lists the expired ones$`, listsAsGC)
	s.Step(`^the administrator lists `+who+`'s tokens that do not expire within two hours$`, adminListsNotExpiring)
	s.Step(`^the administrator lists `+who+`'s tokens that expire within two hours, as datahub-gc lists the expired ones$`, adminListsExpiringOf)
	s.Step(`^the administrator lists `+who+`'s tokens whose name (contains|starts with|ends with) that of the token that lasts an hour$`, adminListsByName)
	s.Step(`^`+who+` lists `+own+` own tokens that expire within two hours$`, listsOwnExpiring)
	s.Step(`^the list holds the token that lasts (an hour|a month), and not the one that lasts (an hour|a month)$`, listHoldsOneNotOther)
	s.Step(`^the administrator lists tokens (whose expiry is before something not a time|by a range without a bound)$`, adminListsTokensFlawed)
}

// token_filters.feature: listAccessTokens with DataHub's conditions, as
// datahub-gc sends it (sdkclient.ExpiredTokensQuery: expiresAt LESS_THAN a
// time in epoch milliseconds) and as a person narrows a list by name.
// Token lists lag in DataHub: a list is asked again within the propagation
// window until it shows what it must.

// tokenFilterState is what a scenario of token_filters.feature knows.
type tokenFilterState struct {
	hourToken, monthToken *tokenRecord
	listing               func(start int) *answer // the listing, from start, to make again
}

// createNamed has c create a token for actor lasting duration, named name.
func (w *world) createNamed(c caller, actor *person, duration, name string) (*tokenRecord, error) {
	a := w.graphql(c, w.suite.docs.createAccessToken, map[string]any{"input": map[string]any{
		"type": "PERSONAL", "actorUrn": actor.urn, "duration": duration, "name": name,
		"description": fmt.Sprintf("Made by %s for %s in the catalogspec scenario: %s", c.name, actor.name, w.name),
	}})
	a.what = fmt.Sprintf("%s creating a token for %s that lasts %s", c.name, actor.name, duration)
	return w.tokenFrom(a, c, actor)
}

// hourAndMonth makes the two tokens, their names telling them apart by
// their start, middle and end.
func (w *world) hourAndMonth(c caller, actor *person) error {
	if err := w.ensureUser(actor); err != nil {
		return err
	}
	var err error
	if w.hourToken, err = w.createNamed(c, actor, "ONE_HOUR", "catalogspec-hour-"+w.id+"-h"); err != nil {
		return err
	}
	w.monthToken, err = w.createNamed(c, actor, "ONE_MONTH", "catalogspec-month-"+w.id+"-m")
	return err
}

func adminCreatesHourAndMonth(ctx context.Context, name string) error {
	w := theWorld(ctx)
	return w.hourAndMonth(w.admin(), w.person(name))
}

func createsHourAndMonth(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	return w.hourAndMonth(c, p)
}

// inTwoHours is a moment by which a token of an hour has expired and one
// of a month has not, in epoch milliseconds.
func inTwoHours() string { return strconv.FormatInt(time.Now().Add(2*time.Hour).UnixMilli(), 10) }

// listTokensBy lists tokens as c with the filters, start at start,
// through the document datahub-gc sends.
func (w *world) listTokensBy(c caller, start, count int, filters []any) *answer {
	vars := sdkclient.Obj{{Key: "input", Value: sdkclient.Obj{{Key: "start", Value: start}, {Key: "count", Value: count}, {Key: "filters", Value: filters}}}}
	a := w.sdkSend(c, "POST", c.gms+sdkclient.GraphQLPath(), sdkclient.GraphQLBody(sdkclient.ExpiredTokensQuery, vars, ""))
	a.what = fmt.Sprintf("%s listing tokens from %d (filters %s)", c.name, start, sdkclient.Dumps(filters))
	a.noEffect = nothingToCheck
	return a
}

func expiresBefore(bound string, negated bool) sdkclient.Obj {
	o := sdkclient.Obj{{Key: "field", Value: "expiresAt"}, {Key: "values", Value: []any{bound}}, {Key: "condition", Value: "LESS_THAN"}}
	if negated {
		o = append(o, sdkclient.Member{Key: "negated", Value: true})
	}
	return o
}

func ownedBy(p *person) sdkclient.Obj {
	return sdkclient.Obj{{Key: "field", Value: "ownerUrn"}, {Key: "values", Value: []any{p.urn}}}
}

func actedBy(p *person) sdkclient.Obj {
	return sdkclient.Obj{{Key: "field", Value: "actorUrn"}, {Key: "values", Value: []any{p.urn}}}
}

func listsAsGC(ctx context.Context, who string) error {
	w := theWorld(ctx)
	c := w.admin()
	if who != "the administrator" {
		var err error
		if c, err = w.as(w.person(who)); err != nil {
			return err
		}
	}
	bound := inTwoHours()
	w.listing = func(start int) *answer {
		return w.listTokensBy(c, start, 100, []any{expiresBefore(bound, false)})
	}
	w.last = w.listing(0)
	return w.checkpoint()
}

// adminListsExpiringOf is datahub-gc's listing (expiresAt LESS_THAN a
// time) narrowed to p's tokens: a listing of every user's tokens fails
// while the search index names a token another client has just revoked.
func adminListsExpiringOf(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	bound := inTwoHours()
	w.listing = func(start int) *answer {
		return w.listTokensBy(w.admin(), start, 100, []any{expiresBefore(bound, false), actedBy(p)})
	}
	w.last = w.listing(0)
	return w.checkpoint()
}

func adminListsNotExpiring(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	bound := inTwoHours()
	w.listing = func(start int) *answer {
		return w.listTokensBy(w.admin(), start, 100, []any{actedBy(p), expiresBefore(bound, true)})
	}
	w.last = w.listing(0)
	return w.checkpoint()
}

func adminListsByName(ctx context.Context, name, how string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if w.hourToken == nil {
		return w.fail("no token that lasts an hour was made")
	}
	by := map[string][2]string{
		"contains":    {"CONTAIN", "hour-" + w.id},
		"starts with": {"START_WITH", "catalogspec-hour-"},
		"ends with":   {"END_WITH", w.id + "-h"},
	}[how]
	cond, part := by[0], by[1]
	byName := sdkclient.Obj{{Key: "field", Value: "name"}, {Key: "values", Value: []any{part}}, {Key: "condition", Value: cond}}
	w.listing = func(start int) *answer {
		return w.listTokensBy(w.admin(), start, 100, []any{actedBy(p), byName})
	}
	w.last = w.listing(0)
	return w.checkpoint()
}

func listsOwnExpiring(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	bound := inTwoHours()
	w.listing = func(start int) *answer {
		return w.listTokensBy(c, start, 100, []any{ownedBy(p), expiresBefore(bound, false)})
	}
	w.last = w.listing(0)
	return w.checkpoint()
}

// listed reads the ids of a token listing, and its total.
func (w *world) listed(a *answer) (map[string]bool, int, error) {
	var list struct {
		Total  int             `json:"total"`
		Tokens []tokenMetadata `json:"tokens"`
	}
	if err := a.data("listAccessTokens", &list); err != nil {
		return nil, 0, w.failed(err)
	}
	ids := map[string]bool{}
	for _, t := range list.Tokens {
		ids[t.ID] = true
	}
	return ids, list.Total, nil
}

// listHoldsOneNotOther asks the listing again (from the start, and page
// after page while there is more) until it holds the one token and not
// the other, within the propagation window.
func listHoldsOneNotOther(ctx context.Context, in, out string) error {
	w := theWorld(ctx)
	if w.listing == nil || w.hourToken == nil || w.monthToken == nil {
		return w.fail("no listing of the scenario's tokens was made")
	}
	pick := map[string]*tokenRecord{"an hour": w.hourToken, "a month": w.monthToken}
	want, notWant := pick[in].meta.ID, pick[out].meta.ID
	first := true
	return w.eventually("the list holding the token that lasts "+in, func() (bool, error) {
		a := w.last
		if !first {
			a = w.listing(0)
		}
		first = false
		ids, total, err := w.listed(a)
		if err != nil {
			return false, err
		}
		// A listing of every token (as datahub-gc's) pages on, 100 at a time.
		for start := 100; !ids[want] && start < total && start < 5000; start += 100 {
			more, _, err := w.listed(w.listing(start))
			if err != nil {
				return false, err
			}
			for id := range more {
				ids[id] = true
			}
		}
		if ids[notWant] {
			return false, w.fail("%s lists the token that lasts %s", a.what, out)
		}
		return ids[want], w.fail("%s does not list the token that lasts %s", a.what, in)
	})
}

func adminListsTokensFlawed(ctx context.Context, flaw string) error {
	w := theWorld(ctx)
	filter := expiresBefore("not a time", false)
	if flaw == "by a range without a bound" {
		filter = sdkclient.Obj{{Key: "field", Value: "expiresAt"}, {Key: "values", Value: []any{}}, {Key: "condition", Value: "LESS_THAN"}}
	}
	w.last = w.listTokensBy(w.admin(), 0, 10, []any{filter})
	return w.checkpoint()
}
