package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Privileges reach users through policies (SPEC.md, Policies). Scenarios
// grant them with policies of their own and take them away by setting those
// INACTIVE or deleting them. Scenarios tagged @exclusive may also switch off
// the policies that give something to every user, and put them back after.

// metadataPrivileges are granted by METADATA policies; all others by
// PLATFORM policies.
var metadataPrivileges = []string{"VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE", "EDIT_ENTITY", "DELETE_ENTITY"}

// platformPrivileges are the platform privileges the contract names.
var platformPrivileges = []string{"GENERATE_PERSONAL_ACCESS_TOKENS", "MANAGE_ACCESS_TOKENS", "MANAGE_POLICIES", "CREATE_TAGS", "MANAGE_TAGS"}

// policyState is what a scenario knows of the policies it made.
type policyState struct {
	policies    map[string]*policyRecord // granting policies, by person name and privilege
	policy      *policyRecord            // the policy the scenario talks about
	policyCheck func() error             // checks what was done to the policies
	named       *namedPolicies           // policies made to be listed by a word
}

// policyInput is DataHub's PolicyUpdateInput.
type policyInput struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	State       string          `json:"state"`
	Description *string         `json:"description,omitempty"`
	Resources   *resourceFilter `json:"resources,omitempty"`
	Privileges  []string        `json:"privileges"`
	Actors      actorFilter     `json:"actors"`
}

type actorFilter struct {
	Users          []string `json:"users"`
	Groups         []string `json:"groups"`
	ResourceOwners bool     `json:"resourceOwners"`
	AllUsers       bool     `json:"allUsers"`
	AllGroups      bool     `json:"allGroups"`
}

type resourceFilter struct {
	Type         string   `json:"type,omitempty"`
	Resources    []string `json:"resources,omitempty"`
	AllResources bool     `json:"allResources"`
}

// policyView is a policy as listPolicies shows it.
type policyView struct {
	URN         string          `json:"urn"`
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	State       string          `json:"state"`
	Description *string         `json:"description"`
	Privileges  []string        `json:"privileges"`
	Actors      actorFilter     `json:"actors"`
	Resources   *resourceFilter `json:"resources"`
}

// input is what writes the policy back as it is.
func (p policyView) input() policyInput {
	return policyInput{Type: p.Type, Name: p.Name, State: p.State, Description: p.Description,
		Resources: p.Resources, Privileges: p.Privileges, Actors: p.Actors}
}

// policyRecord is a policy a scenario made.
type policyRecord struct {
	urn   string
	input policyInput
}

func policyKey(name, privilege string) string { return name + " " + privilege }

// grant makes a policy that gives p the privilege, on resources for a
// metadata privilege (every resource when nil), and waits until it shows.
func (w *world) grant(p *person, privilege string, resources *resourceFilter) error {
	if err := w.grantNoWait(p, privilege, resources); err != nil {
		return err
	}
	return w.untilEffective(p, privilege, w.policies[policyKey(p.name, privilege)].input.Resources)
}

// grantNoWait makes the policy and returns at once.
func (w *world) grantNoWait(p *person, privilege string, resources *resourceFilter) error {
	if err := w.ensureUser(p); err != nil {
		return err
	}
	desc := "Made by the catalogspec scenario: " + w.name
	in := policyInput{
		Type:        "PLATFORM",
		Name:        fmt.Sprintf("%s %s %s", w.unique("policy"), p.name, privilege),
		State:       "ACTIVE",
		Description: &desc,
		Privileges:  []string{privilege},
		Actors:      actorFilter{Users: []string{p.urn}, Groups: []string{}},
	}
	if slices.Contains(metadataPrivileges, privilege) {
		in.Type = "METADATA"
		if resources == nil {
			resources = &resourceFilter{AllResources: true}
		}
		in.Resources = resources
	} else if resources != nil {
		return w.fail("%s is a platform privilege: it is not granted on resources", privilege)
	}
	urn, err := w.createPolicy(w.admin(), in)
	if err != nil {
		return err
	}
	w.policies[policyKey(p.name, privilege)] = &policyRecord{urn: urn, input: in}
	return nil
}

// untilEffective waits, within the propagation window, until p's requests
// are judged with the privilege: DataHub's authorizer sees a new policy only
// when its cache refreshes. Each probe is harmless: `me` for a platform
// privilege (MANAGE_USER_CREDENTIALS included, which `me` reports as
// manageUserCredentials, as DataHub's MeResolver does), a read for a read privilege, an ingestion of the status aspect
// {"removed": false} (the default) for EDIT_ENTITY, and for DELETE_ENTITY
// the deletion of a tag the suite makes for the purpose. Without a token p
// cannot probe, and nothing waits.
func (w *world) untilEffective(p *person, privilege string, resources *resourceFilter) error {
	if !w.canActAs(p) {
		return nil
	}
	c, err := w.as(p)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("the grant of %s to %s taking effect", privilege, p.name)
	if field, ok := privilegeFields[privilege]; ok {
		return w.eventually(what, func() (bool, error) {
			held, err := w.platformPrivilegesOf(p)
			if err != nil {
				return false, err
			}
			if !held[field] {
				return false, w.fail("me.platformPrivileges.%s is false for %s", field, p.name)
			}
			return true, nil
		})
	}
	switch privilege {
	case "EDIT_ENTITY":
		urn := probeURN(resources, "dataset")
		if urn == "" {
			if resources != nil && !resources.AllResources && resources.Type != "dataset" {
				// Covers no dataset: probe by reading what it covers, which
				// EDIT_ENTITY allows too.
				return w.untilReads(c, what, probeURN(resources, ""))
			}
			urn = w.newDataset().urn
		}
		return w.eventually(what, func() (bool, error) {
			a := w.ingest(c, c.gms, "dataset", urn, "status", map[string]bool{"removed": false})
			return a.status == http.StatusOK, w.fail("%s answered status %d", a.what, a.status)
		})
	case "DELETE_ENTITY":
		if resources != nil && !resources.AllResources {
			return nil // the policy was given its own probe tag; see grantDeleteOn
		}
		return w.untilCanDeleteProbeTag(p, c, what)
	case "VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE":
		urn := probeURN(resources, "")
		if urn == "" {
			urn = rootUser
		}
		return w.untilReads(c, what, urn)
	}
	return nil
}

// untilReads waits until c may read urn ("" waits for nothing).
func (w *world) untilReads(c caller, what, urn string) error {
	if urn == "" {
		return nil
	}
	return w.eventually(what, func() (bool, error) {
		a := w.readEntity(c, tierGMS, urn, false)
		return a.status == http.StatusOK || a.status == http.StatusNotFound, w.fail("%s answered status %d", a.what, a.status)
	})
}

// probeURN is a URN the resource filter names, of the entity type when one
// is given; "" when it names none.
func probeURN(r *resourceFilter, entityType string) string {
	if r == nil {
		return ""
	}
	for _, u := range r.Resources {
		if entityType == "" || strings.HasPrefix(u, "urn:li:"+entityType+":") {
			return u
		}
	}
	return ""
}

// untilCanDeleteProbeTag makes a tag as the administrator and has p delete
// it, until that works.
func (w *world) untilCanDeleteProbeTag(p *person, c caller, what string) error {
	probe := w.newTag()
	if err := w.mustCreateTag(w.admin(), probe); err != nil {
		return err
	}
	return w.eventually(what, func() (bool, error) {
		a := w.deleteTagAs(c, probe)
		var ok *bool
		if err := a.data("deleteTag", &ok); err != nil {
			return false, w.failed(err)
		}
		return true, nil
	})
}

// createPolicy has c create the policy, which must succeed, and deletes it
// at the end of the scenario.
func (w *world) createPolicy(c caller, in policyInput) (string, error) {
	a := w.graphql(c, w.suite.docs.createPolicy, map[string]any{"input": in})
	a.what = fmt.Sprintf("%s creating the policy %q", c.name, in.Name)
	var urn string
	if err := a.data("createPolicy", &urn); err != nil {
		return "", w.failed(err)
	}
	w.undo("delete the policy "+in.Name, func() error { return w.deletePolicy(urn, true) })
	return urn, nil
}

// updatePolicy has the administrator write the policy; it must succeed.
func (w *world) updatePolicy(urn string, in policyInput) error {
	a := w.graphql(w.admin(), w.suite.docs.updatePolicy, map[string]any{"urn": urn, "input": in})
	a.what = fmt.Sprintf("the administrator setting the policy %q %s", in.Name, in.State)
	var out string
	return a.data("updatePolicy", &out)
}

// deletePolicy has the administrator delete the policy; with tolerant, a
// policy that is gone already is fine.
func (w *world) deletePolicy(urn string, tolerant bool) error {
	a := w.graphql(w.admin(), w.suite.docs.deletePolicy, map[string]any{"urn": urn})
	a.what = "the administrator deleting the policy " + urn
	var out *string
	err := a.data("deletePolicy", &out)
	if err != nil && tolerant && isNotFound(a) {
		return nil
	}
	return err
}

// policyPage is one page of listPolicies.
type policyPage struct {
	Start    int          `json:"start"`
	Count    int          `json:"count"`
	Total    int          `json:"total"`
	Policies []policyView `json:"policies"`
}

// allPolicies lists every policy, page by page, as the administrator.
func (w *world) allPolicies() ([]policyView, error) {
	const pageSize = 100
	var all []policyView
	for start := 0; start < 100*pageSize; {
		a := w.graphql(w.admin(), w.suite.docs.listPolicies, map[string]any{"input": map[string]any{"start": start, "count": pageSize}})
		a.what = "the administrator listing policies"
		var page *policyPage
		if err := a.data("listPolicies", &page); err != nil {
			return nil, w.failed(err)
		}
		if page == nil {
			return nil, w.fail("listPolicies answered null")
		}
		all = append(all, page.Policies...)
		start += len(page.Policies)
		if len(page.Policies) == 0 || start >= page.Total {
			return all, nil
		}
	}
	return nil, w.fail("listPolicies did not come to an end after 100 pages")
}

// policiesNamed returns the policies called name.
func (w *world) policiesNamed(name string) ([]policyView, error) {
	all, err := w.allPolicies()
	if err != nil {
		return nil, err
	}
	var named []policyView
	for _, p := range all {
		if p.Name == name {
			named = append(named, p)
		}
	}
	return named, nil
}

// switchOffEveryUserPolicies sets INACTIVE every ACTIVE policy that gives
// any of the privileges to all users, and sets them ACTIVE again at the end
// of the scenario, whatever its outcome.
func (w *world) switchOffEveryUserPolicies(privileges ...string) error {
	if !w.exclusive {
		return w.fail("this step changes what every user may do: tag the scenario @exclusive so that it runs alone")
	}
	all, err := w.allPolicies()
	if err != nil {
		return err
	}
	for _, p := range all {
		if p.State != "ACTIVE" || !p.Actors.AllUsers || !slices.ContainsFunc(p.Privileges, func(s string) bool { return slices.Contains(privileges, s) }) {
			continue
		}
		restore := p.input()
		off := p.input()
		off.State = "INACTIVE"
		w.undo(fmt.Sprintf("set the policy %q ACTIVE again", p.Name), func() error { return w.updatePolicy(p.URN, restore) })
		if err := w.updatePolicy(p.URN, off); err != nil {
			return w.failed(err)
		}
	}
	return w.untilWithdrawn(privileges)
}

// untilWithdrawn waits, within the propagation window, until no person of
// the scenario who holds a token is judged with the privileges any more
// (only those the scenario did not grant them itself).
func (w *world) untilWithdrawn(privileges []string) error {
	for _, p := range w.people {
		if err := w.untilWithdrawnFrom(p, privileges); err != nil {
			return err
		}
	}
	return nil
}

// untilWithdrawnFrom waits until p is no longer judged with the privileges
// the scenario did not grant p itself.
func (w *world) untilWithdrawnFrom(p *person, privileges []string) error {
	if !w.canActAs(p) {
		return nil
	}
	c, err := w.as(p)
	if err != nil {
		return err
	}
	for _, priv := range privileges {
		if _, own := w.policies[policyKey(p.name, priv)]; own {
			continue
		}
		what := fmt.Sprintf("%s losing %s", p.name, priv)
		var err error
		if field, ok := privilegeFields[priv]; ok {
			err = w.eventually(what, func() (bool, error) {
				held, err := w.platformPrivilegesOf(p)
				if err != nil {
					return false, err
				}
				return !held[field], w.fail("me.platformPrivileges.%s is still true for %s", field, p.name)
			})
		} else if priv == "VIEW_ENTITY_PAGE" || priv == "GET_ENTITY_PRIVILEGE" {
			err = w.eventually(what, func() (bool, error) {
				a := w.readEntity(c, tierGMS, rootUser, false)
				return a.status == http.StatusForbidden, w.fail("%s answered status %d", a.what, a.status)
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Steps.

func isGranted(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	return w.grant(w.person(name), privilege, nil)
}

func adminGrants(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	return w.grantNoWait(w.person(name), privilege, nil)
}

func isGrantedOnNewDatasetOnly(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	w.dataset = w.newDataset()
	return w.grant(w.person(name), privilege, &resourceFilter{Type: "dataset", Resources: []string{w.dataset.urn}})
}

// grantingPolicyChanges changes the policy the scenario made to grant the
// privilege. "is ..." returns at once, so that a later step can judge how
// soon the change shows; "has been ..." states a fact the rest of the
// scenario builds on, and so waits until it shows.
func grantingPolicyChanges(ctx context.Context, name, privilege, change string) error {
	w := theWorld(ctx)
	rec, ok := w.policies[policyKey(name, privilege)]
	if !ok {
		return w.fail("the scenario made no policy granting %s %s", name, privilege)
	}
	var err error
	switch strings.TrimPrefix(strings.TrimPrefix(change, "is "), "has been ") {
	case "set INACTIVE":
		in := rec.input
		in.State = "INACTIVE"
		rec.input = in
		err = w.updatePolicy(rec.urn, in)
	case "deleted":
		err = w.deletePolicy(rec.urn, false)
	default:
		return w.fail("unknown change %q", change)
	}
	if err != nil || strings.HasPrefix(change, "is ") {
		return w.failed(err)
	}
	delete(w.policies, policyKey(name, privilege))
	return w.untilWithdrawnFrom(w.person(name), []string{privilege})
}

func noPolicyLetsEveryUser(ctx context.Context, what string) error {
	w := theWorld(ctx)
	switch what {
	case "generate personal access tokens":
		return w.switchOffEveryUserPolicies("GENERATE_PERSONAL_ACCESS_TOKENS")
	case "read entities":
		return w.switchOffEveryUserPolicies("VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE")
	}
	return w.fail("unknown kind of policy %q", what)
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
	removeAll := func() error {
		named, err := w.policiesNamed(in.Name)
		if err != nil {
			return err
		}
		for _, pol := range named {
			if err := w.deletePolicy(pol.URN, true); err != nil {
				return err
			}
		}
		return nil
	}
	w.undo("delete the policy "+in.Name+" if it was made", removeAll)
	a.noEffect = func() error {
		named, err := w.policiesNamed(in.Name)
		if err != nil {
			return err
		}
		if len(named) > 0 {
			return w.fail("the policy %q exists although making it was refused", in.Name)
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

// grantOn grants p the metadata privilege on resources and waits until it
// shows.
func (w *world) grantOn(p *person, privilege string, resources *resourceFilter) error {
	return w.grant(p, privilege, resources)
}

func isGrantedOnTagOnly(ctx context.Context, name, privilege, which string) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made before")
	}
	target := w.tag
	if which == "another tag" {
		target = w.newTag()
		if err := w.mustCreateTag(w.admin(), target); err != nil {
			return err
		}
	}
	resources := &resourceFilter{Type: "tag", Resources: []string{target.urn}}
	p := w.person(name)
	if privilege != "DELETE_ENTITY" {
		return w.grantOn(p, privilege, resources)
	}
	// Deleting is the only probe of DELETE_ENTITY: the policy also covers a
	// tag made for the purpose, which p deletes once the grant shows.
	probe := w.newTag()
	if err := w.mustCreateTag(w.admin(), probe); err != nil {
		return err
	}
	resources.Resources = append(resources.Resources, probe.urn)
	if err := w.grantNoWait(p, privilege, resources); err != nil {
		return err
	}
	if !w.canActAs(p) {
		return nil
	}
	c, err := w.as(p)
	if err != nil {
		return err
	}
	return w.eventually(fmt.Sprintf("the grant of %s to %s taking effect", privilege, name), func() (bool, error) {
		a := w.deleteTagAs(c, probe)
		var ok *bool
		if err := a.data("deleteTag", &ok); err != nil {
			return false, w.failed(err)
		}
		return true, nil
	})
}

func isGrantedOnType(ctx context.Context, name, privilege, types string) error {
	w := theWorld(ctx)
	entityType := map[string]string{"datasets": "dataset", "tags": "tag"}[types]
	return w.grantOn(w.person(name), privilege, &resourceFilter{Type: entityType})
}

// aPolicy makes a policy of the administrator's that grants nobody
// anything that matters: MANAGE_TAGS to a user who does not exist.
func (w *world) aPolicy() policyInput {
	desc := "Made by the catalogspec scenario: " + w.name
	return policyInput{
		Type:        "PLATFORM",
		Name:        w.unique("policy") + " harmless",
		State:       "ACTIVE",
		Description: &desc,
		Privileges:  []string{"MANAGE_TAGS"},
		Actors:      actorFilter{Users: []string{"urn:li:corpuser:" + w.unique("nobody")}, Groups: []string{}},
	}
}

func adminHasMadeAPolicy(ctx context.Context) error {
	w := theWorld(ctx)
	in := w.aPolicy()
	urn, err := w.createPolicy(w.admin(), in)
	if err != nil {
		return err
	}
	w.policy = &policyRecord{urn: urn, input: in}
	return nil
}

// policyAction is what a person did to the policies, and how to check it.
type policyAction struct {
	what   string
	answer *answer
	check  func() error // the effect, when the action was allowed
}

func doesToPolicies(ctx context.Context, name, action string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	if w.policy == nil {
		return w.fail("no policy was made before")
	}
	rec := *w.policy
	unchanged := func() error { return w.policyIs(rec.urn, &rec.input) }
	var a *answer
	var check func() error
	switch action {
	case "creates a policy":
		in := w.aPolicy()
		a = w.graphql(c, w.suite.docs.createPolicy, map[string]any{"input": in})
		removeAll := func() error {
			named, err := w.policiesNamed(in.Name)
			if err != nil {
				return err
			}
			for _, pol := range named {
				if err := w.deletePolicy(pol.URN, true); err != nil {
					return err
				}
			}
			return nil
		}
		w.undo("delete the policy "+in.Name+" if it was made", removeAll)
		a.noEffect = func() error {
			named, err := w.policiesNamed(in.Name)
			if err != nil {
				return err
			}
			if len(named) > 0 {
				return w.fail("the policy %q exists although making it was refused", in.Name)
			}
			return nil
		}
		check = func() error {
			var urn string
			if err := a.data("createPolicy", &urn); err != nil {
				return w.failed(err)
			}
			if !strings.HasPrefix(urn, "urn:li:dataHubPolicy:") {
				return w.fail("%s answered %q, expected the URN of a dataHubPolicy", a.what, urn)
			}
			return w.policyIs(urn, &in)
		}
	case "updates the policy":
		in := rec.input
		in.Name = rec.input.Name + " (updated)"
		in.Privileges = []string{"CREATE_TAGS"}
		a = w.graphql(c, w.suite.docs.updatePolicy, map[string]any{"urn": rec.urn, "input": in})
		a.noEffect = unchanged
		check = func() error {
			var out string
			if err := a.data("updatePolicy", &out); err != nil {
				return w.failed(err)
			}
			if out != rec.urn {
				return w.fail("%s answered %q, expected the policy's URN %s", a.what, out, rec.urn)
			}
			return w.policyIs(rec.urn, &in)
		}
	case "deletes the policy":
		a = w.graphql(c, w.suite.docs.deletePolicy, map[string]any{"urn": rec.urn})
		a.noEffect = unchanged
		check = func() error {
			var out *string
			if err := a.data("deletePolicy", &out); err != nil {
				return w.failed(err)
			}
			if out == nil || *out != rec.urn {
				return w.fail("%s answered %s, expected the policy's URN %s", a.what, quoted(out), rec.urn)
			}
			return w.policyIs(rec.urn, nil)
		}
	case "lists the policies":
		a = w.graphql(c, w.suite.docs.listPolicies, map[string]any{"input": map[string]any{"start": 0, "count": 1000}})
		a.noEffect = nothingToCheck
		check = func() error {
			var page *policyPage
			if err := a.data("listPolicies", &page); err != nil {
				return w.failed(err)
			}
			if page == nil || !slices.ContainsFunc(page.Policies, func(v policyView) bool { return v.URN == rec.urn }) {
				return w.fail("%s does not include the policy %s", a.what, rec.urn)
			}
			return nil
		}
	default:
		return w.fail("unknown action on policies %q", action)
	}
	a.what = fmt.Sprintf("%s, who %s", name, action)
	w.last = a
	w.policyCheck = check
	return w.checkpoint()
}

// policyIs checks that the policy at urn is as in, or with in nil that
// there is none.
func (w *world) policyIs(urn string, in *policyInput) error {
	all, err := w.allPolicies()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(all, func(v policyView) bool { return v.URN == urn })
	switch {
	case in == nil && i >= 0:
		return w.fail("the policy %s still exists", urn)
	case in == nil:
		return nil
	case i < 0:
		return w.fail("the policy %s does not exist", urn)
	}
	got := all[i]
	if got.Name != in.Name || got.State != in.State || got.Type != in.Type || !slices.Equal(got.Privileges, in.Privileges) ||
		!slices.Equal(got.Actors.Users, in.Actors.Users) {
		return w.fail("the policy %s is %+v, expected %+v", urn, got, *in)
	}
	return nil
}

func policiesShowWhatWasDone(ctx context.Context, _ string) error {
	w := theWorld(ctx)
	if w.policyCheck == nil {
		return w.fail("nothing was done to the policies")
	}
	return w.policyCheck()
}

func adminMadeInactivePolicy(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.ensureUser(p); err != nil {
		return err
	}
	desc := "Made INACTIVE by the catalogspec scenario: " + w.name
	in := policyInput{
		Type: "PLATFORM", Name: fmt.Sprintf("%s %s %s inactive", w.unique("policy"), p.name, privilege),
		State: "INACTIVE", Description: &desc, Privileges: []string{privilege},
		Actors: actorFilter{Users: []string{p.urn}, Groups: []string{}},
	}
	_, err := w.createPolicy(w.admin(), in)
	return err
}

func policyGrantsEveryUser(ctx context.Context, privilege string) error {
	w := theWorld(ctx)
	if !w.exclusive {
		return w.fail("this step changes what every user may do: tag the scenario @exclusive so that it runs alone")
	}
	desc := "Made by the catalogspec scenario: " + w.name
	in := policyInput{
		Type: "PLATFORM", Name: fmt.Sprintf("%s every user %s", w.unique("policy"), privilege),
		State: "ACTIVE", Description: &desc, Privileges: []string{privilege},
		Actors: actorFilter{AllUsers: true, Users: []string{}, Groups: []string{}},
	}
	if _, err := w.createPolicy(w.admin(), in); err != nil {
		return err
	}
	for _, p := range w.people {
		if err := w.untilEffective(p, privilege, nil); err != nil {
			return err
		}
	}
	return nil
}
