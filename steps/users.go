package steps

import (
	"context"
	"fmt"
	"slices"
)

// registerUsersSteps registers the steps of features/users.feature.
func registerUsersSteps(s stepRegistrar) {
	s.Step(`^`+who+` lists the users, looking for `+who+`$`, listsUsersLookingFor)
	s.Step(`^the list includes `+who+`$`, userListIncludes)
	s.Step(`^`+who+` removes `+who+`$`, removesUser)
	s.Step(`^the administrator removes `+who+`$`, adminRemovesUser)
	s.Step(`^the answer says the user was removed$`, answerSaysRemoved)
	s.Step(`^`+who+` is no longer listed and has no profile$`, noLongerListed)
}

// Listing and removing users (users.feature): listUsers (ListUsersResolver,
// no privilege asked) and removeUser (RemoveUserResolver,
// canManageUsersAndGroups: MANAGE_USERS_AND_GROUPS).

// userList is DataHub's ListUsersResult, with what the suite reads.
type userList struct {
	Start int `json:"start"`
	Count int `json:"count"`
	Total int `json:"total"`
	Users []struct {
		URN      string `json:"urn"`
		Username string `json:"username"`
	} `json:"users"`
}

func (l *userList) has(username string) bool {
	return l != nil && slices.ContainsFunc(l.Users, func(u struct {
		URN      string `json:"urn"`
		Username string `json:"username"`
	}) bool {
		return u.Username == username
	})
}

// listUsers asks listUsers as c for the users whose search matches query.
func (w *world) listUsers(c caller, query string) *answer {
	a := w.graphql(c, w.suite.docs.listUsers, map[string]any{"input": map[string]any{"start": 0, "count": 20, "query": query}})
	a.what = fmt.Sprintf("%s listing the users (query %q)", c.name, query)
	a.noEffect = nothingToCheck
	a.again = func() *answer { return w.listUsers(c, query) }
	return a
}

// usersListShow checks, within the propagation window (DataHub lists users
// from a search index), that the list a includes username, or with want
// false that it does not.
func (w *world) usersListShow(a *answer, username string, want bool) error {
	what := fmt.Sprintf("%s including %s", a.what, username)
	if !want {
		what = fmt.Sprintf("%s no longer including %s", a.what, username)
	}
	return w.eventually(what, func() (bool, error) {
		var l *userList
		if err := a.data("listUsers", &l); err != nil {
			return false, w.failed(err)
		}
		if l == nil {
			return false, w.fail("%s: listUsers is null", a.what)
		}
		if l.has(username) == want {
			return true, nil
		}
		miss := w.fail("%s does not include %s", a.what, username)
		if !want {
			miss = w.fail("%s still includes %s", a.what, username)
		}
		a = a.again()
		return false, miss
	})
}

func listsUsersLookingFor(ctx context.Context, name, whom string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.listUsers(c, w.person(whom).username)
	return w.checkpoint()
}

func userListIncludes(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.usersListShow(a, w.person(name).username, true)
}

// removeUser sends removeUser for p as c.
func (w *world) removeUser(c caller, p *person) *answer {
	a := w.graphql(c, w.suite.docs.removeUser, map[string]any{"urn": p.urn})
	a.what = fmt.Sprintf("%s removing %s (%s)", c.name, p.name, p.urn)
	a.subject = p.urn
	return a
}

func removesUser(ctx context.Context, name, whom string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	p := w.person(whom)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	a := w.removeUser(c, p)
	// Refused, the user is still there: their profile, and their password
	// (when they have one) still signs them in.
	a.noEffect = func() error {
		got, err := w.profile(p.urn)
		if err != nil {
			return err
		}
		if got == "" {
			return w.fail("%s has no profile any more although %s was refused", p.urn, a.what)
		}
		if p.password == "" {
			return nil
		}
		return w.signsInAs(p.username, p.password, p.urn)
	}
	w.last = a
	if g, err := a.decodeGraphQL(); err == nil && len(g.Errors) == 0 {
		p.removed = true
	}
	return w.checkpoint()
}

func adminRemovesUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	a := w.removeUser(w.admin(), p)
	var ok *bool
	if err := a.data("removeUser", &ok); err != nil {
		return w.failed(err)
	}
	if ok == nil || !*ok {
		return w.fail("%s answered %v, expected true", a.what, ok)
	}
	p.removed = true
	return nil
}

func answerSaysRemoved(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var ok *bool
	if err := a.data("removeUser", &ok); err != nil {
		return w.failed(err)
	}
	if ok == nil || !*ok {
		return w.fail("%s answered %v, expected true", a.what, ok)
	}
	return nil
}

// noLongerListed: the removed user leaves the list (within the propagation
// window) and has no profile.
func noLongerListed(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.usersListShow(w.listUsers(w.admin(), p.username), p.username, false); err != nil {
		return err
	}
	return w.eventually(name+"'s profile being gone", func() (bool, error) {
		err := w.noProfile(p.urn)
		return err == nil, err
	})
}
