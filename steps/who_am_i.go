package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// registerWhoAmISteps registers the steps of features/who_am_i.feature.
func registerWhoAmISteps(s stepRegistrar) {
	s.Step(`^the answer says `+who+` may ([a-z ,]+), and nothing more$`, answerSaysMayExactly)
	s.Step(`^someone without a token checks the service's health$`, checksHealth)
	s.Step(`^the service says it is healthy$`, serviceIsHealthy)
	s.Step(`^the administrator looks up `+who+` by `+own+` URN$`, adminLooksUpUser)
	s.Step(`^the administrator looks up a user by a malformed URN$`, adminLooksUpMalformedUser)
	s.Step(`^the answer shows `+who+`'s status as (ACTIVE|SUSPENDED)$`, answerShowsStatus)
	s.Step(`^the administrator looks up a user no one has made$`, adminLooksUpUnknownUser)
	s.Step(`^the answer shows no such user, without an error$`, answerShowsNoProfile)
	s.Step(`^the administrator looks up a user by the tag's URN$`, adminLooksUpUserByTagURN)
	s.Step(`^the answer is `+who+`'s user, with `+own+` display name and email$`, answerIsUser)
	s.Step(`^someone naming `+who+` in X-DataHub-Actor is rejected as unauthorized$`, namingSuspendedIsRefused)
	s.Step(`^the lookup is refused$`, requestRefusedChangingNothing)
}

// More rules on policies (SPEC.md, Policies): what a write answers, states,
// editability, resource filters, the query of listPolicies, and the
// policies and URNs a write refuses.

// Steps.

// requestRefusedChangingNothing: any refusal (an HTTP error, or a GraphQL
// error with the field null), and nothing changed, read back.
func requestRefusedChangingNothing(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status == http.StatusOK {
		if _, err := w.graphQLRefusal(a, "a refusal"); err != nil {
			return err
		}
	} else if a.status < 400 {
		return w.fail("%s answered status %d, expected a refusal", a.what, a.status)
	}
	return w.noEffect(a)
}

// Listing by query.

// Resource filters.

// Policies a write refuses.

// Users.

// answerShowsStatus checks corpUser's status: SUSPENDED for a suspended
// user; for anyone else anything but SUSPENDED (DataHub shows null for a
// user who was never given a status, the reference ACTIVE). A suspension
// may take a moment to show: the lookup is asked again within the
// propagation window.
func answerShowsStatus(ctx context.Context, name, want string) error {
	w := theWorld(ctx)
	p := w.person(name)
	check := func(a *answer) error {
		var u *struct {
			Status *string `json:"status"`
		}
		if err := a.data("corpUser", &u); err != nil {
			return w.failed(err)
		}
		if u == nil {
			return w.fail("%s answered null, expected the user", a.what)
		}
		suspended := u.Status != nil && *u.Status == "SUSPENDED"
		if suspended != (want == "SUSPENDED") {
			expected := "SUSPENDED"
			if want != "SUSPENDED" {
				expected = "ACTIVE, or no status"
			}
			return w.fail("%s shows status %v, expected %s", a.what, deref(u.Status), expected)
		}
		return nil
	}
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if check(a) == nil {
		return nil
	}
	return w.eventually(name+"'s status showing "+want, func() (bool, error) {
		a := w.graphql(w.admin(), w.suite.docs.corpUser, map[string]any{"urn": p.urn})
		a.what = "the administrator looking up " + p.urn
		err := check(a)
		return err == nil, err
	})
}

func adminLooksUpUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	a := w.graphql(w.admin(), w.suite.docs.corpUser, map[string]any{"urn": p.urn})
	a.what = "the administrator looking up " + p.urn
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func adminLooksUpMalformedUser(ctx context.Context) error {
	w := theWorld(ctx)
	a := w.graphql(w.admin(), w.suite.docs.corpUser, map[string]any{"urn": "not-a-urn-" + w.id})
	a.what = "the administrator looking up a user by a malformed URN"
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func answerIsUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	p := w.person(name)
	var u *struct {
		URN      string `json:"urn"`
		Username string `json:"username"`
		Info     *struct {
			DisplayName string `json:"displayName"`
			Email       string `json:"email"`
		} `json:"info"`
	}
	if err := a.data("corpUser", &u); err != nil {
		return w.failed(err)
	}
	if u == nil {
		return w.fail("%s answered null, expected the user", a.what)
	}
	want := corpUserInfo{DisplayName: p.name + " (catalogspec)", Email: p.username + "@example.com"}
	if u.URN != p.urn || u.Username != p.username || u.Info == nil || u.Info.DisplayName != want.DisplayName || u.Info.Email != want.Email {
		return w.fail("%s answered %+v, expected %s (%s) named %q with email %q", a.what, *u, p.urn, p.username, want.DisplayName, want.Email)
	}
	return nil
}

// namingSuspendedIsRefused asks, as someone naming p in X-DataHub-Actor,
// who they are, until it is refused as unauthorized: DataHub judges whether
// a user is active from what it reads of the user, which may lag.
func namingSuspendedIsRefused(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	return w.eventually("the request naming "+name+" being refused after the suspension", func() (bool, error) {
		a := w.askWhoAmI(c, "")
		a.what = fmt.Sprintf("someone naming %s in X-DataHub-Actor asking who they are", name)
		w.last = a
		err := w.rejectedAsUnauthorized(a)
		return err == nil, err
	})
}

func adminLooksUpUserByTagURN(ctx context.Context) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made before")
	}
	a := w.graphql(w.admin(), w.suite.docs.corpUser, map[string]any{"urn": w.tag.urn})
	a.what = "the administrator looking up a user by the tag's URN " + w.tag.urn
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// adminLooksUpUnknownUser looks up a user URN no one has made.
func adminLooksUpUnknownUser(ctx context.Context) error {
	w := theWorld(ctx)
	urn := "urn:li:corpuser:catalogspec-nobody-" + w.id
	a := w.graphql(w.admin(), w.suite.docs.corpUser, map[string]any{"urn": urn})
	a.what = "the administrator looking up " + urn + ", whom no one made"
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// answerShowsNoProfile: the lookup of a user who does not exist answers
// without a server error and shows no profile (null, or the URN alone).
func answerShowsNoProfile(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var env struct {
		Data struct {
			CorpUser *struct {
				Info *json.RawMessage `json:"info"`
			} `json:"corpUser"`
		} `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(a.body, &env); err != nil {
		return w.fail("%s: the answer is not JSON: %v", a.what, err)
	}
	if len(env.Errors) > 0 {
		return w.fail("%s answered an error (%s), expected no user", a.what, env.Errors[0].Message)
	}
	if u := env.Data.CorpUser; u != nil && u.Info != nil && string(*u.Info) != "null" {
		return w.fail("%s shows a profile %s for a user no one made", a.what, *u.Info)
	}
	return nil
}

// answerSaysMayExactly checks `me.platformPrivileges` against a list such
// as "generate personal access tokens, create tags and manage tags": those
// true, every other the suite reads false.
func answerSaysMayExactly(ctx context.Context, name, list string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if err := w.answerNames(a, w.person(name).urn); err != nil {
		return err
	}
	var me *meView
	if err := a.data("me", &me); err != nil {
		return w.failed(err)
	}
	want := map[string]bool{}
	for _, part := range strings.Split(list, ", ") {
		for _, ability := range strings.Split(part, " and ") {
			field, ok := abilityFields[ability]
			if !ok {
				return w.fail("%q is not something `me.platformPrivileges` reports", ability)
			}
			want[field] = true
		}
	}
	var wrong []string
	for _, field := range abilityFields {
		if me.PlatformPrivileges[field] != want[field] {
			wrong = append(wrong, fmt.Sprintf("%s is %t", field, me.PlatformPrivileges[field]))
		}
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		return w.fail("%s: platformPrivileges say %s; expected that %s may %s, and nothing more", a.what, strings.Join(wrong, ", "), name, list)
	}
	return nil
}

func checksHealth(ctx context.Context) error {
	w := theWorld(ctx)
	c := w.anonymous()
	a := w.getPage(c, c.gms+"/health")
	a.what = "someone without a token checking " + c.gms + "/health"
	w.last = a
	return w.checkpoint()
}

func serviceIsHealthy(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	return nil
}
