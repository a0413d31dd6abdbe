package steps

import (
	"context"
	"fmt"
	"slices"
)

// Privileges reach users through policies (CONTRACT section 5). Scenarios
// grant them with policies of their own and take them away by setting those
// INACTIVE or deleting them. Scenarios tagged @exclusive may also switch off
// the policies that give something to every user, and put them back after.

// metadataPrivileges are granted by METADATA policies; all others by
// PLATFORM policies.
var metadataPrivileges = []string{"VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE", "EDIT_ENTITY", "DELETE_ENTITY"}

// platformPrivileges are the platform privileges the contract names.
var platformPrivileges = []string{"GENERATE_PERSONAL_ACCESS_TOKENS", "MANAGE_ACCESS_TOKENS", "MANAGE_POLICIES", "CREATE_TAGS", "MANAGE_TAGS"}

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
// metadata privilege (every resource when nil).
func (w *world) grant(p *person, privilege string, resources *resourceFilter) error {
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
	return nil
}

// Steps.

func isGranted(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	return w.grant(w.person(name), privilege, nil)
}

func isGrantedOnNewDatasetOnly(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	w.dataset = w.newDataset()
	return w.grant(w.person(name), privilege, &resourceFilter{Type: "dataset", Resources: []string{w.dataset.urn}})
}

func grantingPolicyChanges(ctx context.Context, name, privilege, change string) error {
	w := theWorld(ctx)
	rec, ok := w.policies[policyKey(name, privilege)]
	if !ok {
		return w.fail("the scenario made no policy granting %s %s", name, privilege)
	}
	switch change {
	case "set INACTIVE":
		in := rec.input
		in.State = "INACTIVE"
		return w.failed(w.updatePolicy(rec.urn, in))
	case "deleted":
		return w.failed(w.deletePolicy(rec.urn, false))
	}
	return w.fail("unknown change %q", change)
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
