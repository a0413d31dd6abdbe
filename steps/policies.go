package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerPoliciesSteps registers the steps of features/policies.feature.
func registerPoliciesSteps(s stepRegistrar) {
	s.Step(`^the administrator has made a policy$`, adminHasMadeAPolicy)
	s.Step(`^`+who+` (creates a policy|updates the policy|deletes the policy|lists the policies)$`, doesToPolicies)
	s.Step(`^the policies show what `+who+` did$`, policiesShowWhatWasDone)
	s.Step(`^the administrator has made an INACTIVE policy granting `+who+` `+priv+`$`, adminMadeInactivePolicy)
	s.Step(`^a policy grants every user `+priv+`$`, policyGrantsEveryUser)
	s.Step(`^the administrator creates an? (ACTIVE|INACTIVE|DRAFT) policy$`, adminCreatesPolicyInState)
	s.Step(`^the policy reads back as the administrator wrote it$`, policyReadsBackAsWritten)
	s.Step(`^the policy is listed as editable$`, policyListedAsEditable)
	s.Step(`^the administrator changes the policy$`, adminChangesThePolicy)
	s.Step(`^the starting policy (urn:li:dataHubPolicy:\S+) is listed as (editable|not editable)$`, startingPolicyListedEditable)
	s.Step(`^the administrator (updates|deletes) a policy that does not exist$`, adminWritesMissingPolicy)
	s.Step(`^either the update is refused and there is no such policy, or the policy now exists as sent$`, updateMadeItOrRefused)
	s.Step(`^the answer is the policy's URN or a refusal, and there is no such policy$`, deleteAnsweredURNOrRefused)
	s.Step(`^the administrator (updates|deletes) a policy by (a malformed URN|the tag's URN)$`, adminWritesPolicyByOtherURN)
	s.Step(`^the request is refused as a bad request and the policies(?: and the tag)? are as they were$`, refusedAsBadRequestChangingNothing)
	s.Step(`^the administrator has made two policies whose names share no word$`, adminMadeTwoPoliciesNamedApart)
	s.Step(`^the administrator lists the policies by the first one's word$`, listsPoliciesByFirstWord)
	s.Step(`^the list includes the first policy and not the second$`, listingFindsFirstOnly)
	s.Step(`^`+who+` is granted `+priv+` by a policy with (no resource filter|a resource filter that names nothing)$`, grantedByPolicyWith)
	s.Step(`^the administrator creates a policy that (.+)$`, adminCreatesBadPolicy)
	s.Step(`^the administrator changes the policy so that it (.+)$`, adminChangesPolicyBadly)
	s.Step(`^the administrator lists the policies from position (-?\d+)$`, adminListsPoliciesFrom)
	s.Step(`^the request is refused and the policies are as they were$`, requestRefusedChangingNothing)
}

// Privileges reach users through policies (SPEC.md, Policies). Scenarios
// grant them with policies of their own and take them away by setting those
// INACTIVE or deleting them. Scenarios tagged @exclusive may also switch off
// the policies that give something to every user, and put them back after.

// metadataPrivileges are granted by METADATA policies; all others by
// PLATFORM policies.
var metadataPrivileges = []string{"VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE", "EDIT_ENTITY", "DELETE_ENTITY", "GET_TIMESERIES_ASPECT_PRIVILEGE"}

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
// metadata privilege (every resource when nil), and leaves pending the wait
// until it shows (pending.go).
func (w *world) grant(p *person, privilege string, resources *resourceFilter) error {
	if err := w.grantNoWait(p, privilege, resources); err != nil {
		return err
	}
	granted := w.policies[policyKey(p.name, privilege)].input.Resources
	w.waitLater(fmt.Sprintf("the grant of %s to %s taking effect", privilege, p.name), func() error {
		return w.untilEffective(p, privilege, granted)
	})
	return nil
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
// manageUserCredentials, as DataHub's MeResolver does), a read for a read
// privilege, an ingestion of the status aspect {"removed": false} (the
// default) for EDIT_ENTITY, and for DELETE_ENTITY the deletion of a tag the
// suite makes for the purpose; as p (prober).
func (w *world) untilEffective(p *person, privilege string, resources *resourceFilter) error {
	c, err := w.prober(p)
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
	case "MANAGE_USERS_AND_GROUPS":
		// me says nothing of it: the probe removes a user no one made (the
		// reference answers NOT_FOUND, DataHub true), and the grant shows
		// once that is not refused as unauthorized.
		nobody := &person{name: "nobody", urn: "urn:li:corpuser:" + w.unique("nobody")}
		return w.eventually(what, func() (bool, error) {
			a := w.removeUser(c, nobody)
			a.noEffect = nothingToCheck
			if err := w.rejectedAsUnauthorized(a); err == nil {
				return false, w.fail("%s was refused as unauthorized", a.what)
			}
			return true, nil
		})
	case "EDIT_ENTITY":
		// Reading proves nothing (every user may read, by a starting
		// policy): the probe writes the status aspect, {"removed": false}
		// (the default), to an entity the policy covers, a new one when it
		// names none.
		entityType, urn := "dataset", probeURN(resources, "dataset")
		if urn == "" && resources != nil && !resources.AllResources && resources.Type != "" && resources.Type != "dataset" {
			entityType, urn = resources.Type, probeURN(resources, resources.Type)
			if urn == "" && entityType == "tag" {
				t := w.newTag()
				w.undoTag(t) // the probe makes it
				urn = t.urn
			}
		}
		if urn == "" && entityType == "dataset" {
			urn = w.newDataset().urn
		}
		if urn == "" {
			return w.fail("no entity to probe the grant of %s to %s with (resources %+v)", privilege, p.name, *resources)
		}
		return w.eventually(what, func() (bool, error) {
			a := w.ingest(c, c.gms, entityType, urn, "status", map[string]bool{"removed": false})
			return a.status == http.StatusOK, w.fail("%s answered status %d", a.what, a.status)
		})
	case "DELETE_ENTITY":
		if resources != nil && !resources.AllResources {
			return nil // the policy was given its own probe tag; see grantDeleteOn
		}
		return w.untilCanDeleteProbeTag(p, c, what)
	case "UPDATE_USERS_AND_GROUPS":
		// me says nothing of it: the probe writes the prober's own key, as
		// it is, which only a holder of a privilege over users may.
		return w.eventually(what, func() (bool, error) {
			a := w.ingest(c, c.gms, "corpuser", p.urn, "corpUserKey", map[string]string{"username": p.username})
			return a.status == http.StatusOK, w.fail("%s answered status %d", a.what, a.status)
		})
	case "GET_TIMESERIES_ASPECT_PRIVILEGE":
		urn := probeURN(resources, "dataset")
		if urn == "" {
			urn = w.newDataset().urn
		}
		return w.eventually(what, func() (bool, error) {
			a := w.readSeries(c, "metadata service", urn, "datasetProfile", sdkclient.Obj{}, 1)
			return a.status == http.StatusOK, w.fail("%s answered status %d", a.what, a.status)
		})
	case "VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE":
		urn := probeURN(resources, "")
		if urn == "" {
			urn = runner.RootUser
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
	if err == nil && tolerant {
		w.suite.trace.count("policies", 1) // a cleanup's
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

// Steps.

// grantOn grants p the metadata privilege on resources and waits until it
// shows.
func (w *world) grantOn(p *person, privilege string, resources *resourceFilter) error {
	return w.grant(p, privilege, resources)
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
		w.removeNamed(in.Name)
		a.noEffect = w.noPolicyMade(in.Name)
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
		list := func() *answer {
			return w.graphql(c, w.suite.docs.listPolicies, map[string]any{"input": map[string]any{"start": 0, "count": 1000}})
		}
		a = list()
		a.noEffect = nothingToCheck
		// The listing comes from DataHub's search index, which lists a
		// policy a moment after it is made: listed again while it lags.
		check = func() error {
			listed := a
			return w.eventually(fmt.Sprintf("%s's listing including the policy %s", name, rec.urn), func() (bool, error) {
				if listed == nil {
					listed = list()
					listed.what = a.what
				}
				var page *policyPage
				err := listed.data("listPolicies", &page)
				what := listed.what
				listed = nil
				if err != nil {
					return false, w.failed(err)
				}
				if page == nil || !slices.ContainsFunc(page.Policies, func(v policyView) bool { return v.URN == rec.urn }) {
					return false, w.fail("%s does not include the policy %s", what, rec.urn)
				}
				return true, nil
			})
		}
	default:
		return w.fail("unknown action on policies %q", action)
	}
	a.what = fmt.Sprintf("%s, who %s", name, action)
	w.last = a
	w.policyCheck = check
	return w.checkpoint()
}

// policyIs checks that the policy at urn is listed as in, or with in nil
// that none is. listPolicies comes from DataHub's search index, which lists
// a new policy a moment after it is made: the listing is read again, within
// the propagation window, until it shows what is expected.
func (w *world) policyIs(urn string, in *policyInput) error {
	what := "the policy " + urn + " being listed as expected"
	if in == nil {
		what = "the policy " + urn + " no longer being listed"
	}
	return w.eventually(what, func() (bool, error) {
		all, err := w.allPolicies()
		if err != nil {
			return false, err
		}
		i := slices.IndexFunc(all, func(v policyView) bool { return v.URN == urn })
		switch {
		case in == nil && i >= 0:
			return false, w.fail("the policy %s still exists", urn)
		case in == nil:
			return true, nil
		case i < 0:
			return false, w.fail("the policy %s does not exist", urn)
		}
		got := all[i]
		if got.Name != in.Name || got.State != in.State || got.Type != in.Type || !slices.Equal(got.Privileges, in.Privileges) ||
			!slices.Equal(got.Actors.Users, in.Actors.Users) {
			return false, w.fail("the policy %s is %+v, expected %+v", urn, got, *in)
		}
		return true, nil
	})
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
	return theWorld(ctx).grantEveryUser(privilege)
}

func adminCreatesPolicyInState(ctx context.Context, state string) error {
	w := theWorld(ctx)
	in := w.aPolicy()
	in.State = state
	urn, err := w.createPolicy(w.admin(), in)
	if err != nil {
		return err
	}
	w.policy = &policyRecord{urn: urn, input: in}
	return nil
}

func policyReadsBackAsWritten(ctx context.Context) error {
	w := theWorld(ctx)
	if w.policy == nil {
		return w.fail("no policy was made before")
	}
	return w.policyIs(w.policy.urn, &w.policy.input)
}

func policyListedAsEditable(ctx context.Context) error {
	w := theWorld(ctx)
	if w.policy == nil {
		return w.fail("no policy was made before")
	}
	return w.policyListedEditable(w.policy.urn, true)
}

func adminChangesThePolicy(ctx context.Context) error {
	w := theWorld(ctx)
	if w.policy == nil {
		return w.fail("no policy was made before")
	}
	in := w.policy.input
	in.Name += " (changed)"
	in.State = "INACTIVE"
	if err := w.updatePolicy(w.policy.urn, in); err != nil {
		return w.failed(err)
	}
	w.policy.input = in
	return w.policyIs(w.policy.urn, &in)
}

// startingPolicyListedEditable checks a starting policy's editable flag as
// listed before any scenario ran, and as listed now. Before: a scenario that
// switches every user's policies off and on again (switchOffEveryUserPolicies)
// writes them through the API, which marks a policy editable (policy-07), so
// the listing now alone would pass or fail by the order the scenarios ran in.
func startingPolicyListedEditable(ctx context.Context, urn, editable string) error {
	w := theWorld(ctx)
	want := editable == "editable"
	d := w.suite.Definitions
	if d.startingPoliciesErr != nil {
		return w.fail("%v", d.startingPoliciesErr)
	}
	p, ok := d.startingPolicies[urn]
	if !ok {
		return w.fail("the policy %s was not listed before the run began (%d policies were)", urn, len(d.startingPolicies))
	}
	if p.Editable != want {
		return w.fail("before the run began, the policy %s (%q) was listed with editable %t, expected %t", urn, p.Name, p.Editable, want)
	}
	return w.policyListedEditable(urn, want)
}

// adminWritesMissingPolicy updates or deletes a policy that was never made.
func adminWritesMissingPolicy(ctx context.Context, action string) error {
	w := theWorld(ctx)
	urn := w.missingPolicyURN()
	in := w.aPolicy()
	var a *answer
	switch action {
	case "updates":
		a = w.graphql(w.admin(), w.suite.docs.updatePolicy, map[string]any{"urn": urn, "input": in})
		// DataHub's update is an upsert: it may make the policy.
		w.undo("delete the policy "+urn+" if the update made it", func() error { return w.deletePolicy(urn, true) })
	case "deletes":
		a = w.graphql(w.admin(), w.suite.docs.deletePolicy, map[string]any{"urn": urn})
	default:
		return w.fail("unknown action %q", action)
	}
	a.what = fmt.Sprintf("the administrator, who %s the policy %s that does not exist", action, urn)
	a.noEffect = func() error { return w.policyIs(urn, nil) }
	w.last = a
	w.policy = &policyRecord{urn: urn, input: in}
	return w.checkpoint()
}

// updateMadeItOrRefused: DataHub makes a missing policy on update (an
// upsert), the reference refuses; answering success without the policy
// existing as sent is wrong either way.
func updateMadeItOrRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var out *string
	if err := a.data("updatePolicy", &out); err != nil {
		return w.noEffect(a) // refused: and nothing was made
	}
	if out == nil || *out != w.policy.urn {
		return w.fail("%s answered %v, expected the policy's URN %s or a refusal", a.what, quoted(out), w.policy.urn)
	}
	return w.policyIs(w.policy.urn, &w.policy.input)
}

// deleteAnsweredURNOrRefused: DataHub answers the URN of a missing policy
// it deletes, the reference refuses; either way there is no such policy.
func deleteAnsweredURNOrRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var out *string
	if err := a.data("deletePolicy", &out); err == nil && (out == nil || *out != w.policy.urn) {
		return w.fail("%s answered %v, expected the policy's URN %s or a refusal", a.what, quoted(out), w.policy.urn)
	}
	return w.noEffect(a)
}

// adminWritesPolicyByOtherURN updates or deletes "a policy" by a URN that
// is not a policy's. For update, the input carries a name of its own, so
// that the check can see that no policy was written.
func adminWritesPolicyByOtherURN(ctx context.Context, action, which string) error {
	w := theWorld(ctx)
	var urn string
	switch which {
	case "a malformed URN":
		urn = "not-a-urn-" + w.id
	case "the tag's URN":
		if w.tag == nil {
			return w.fail("no tag was made before")
		}
		urn = w.tag.urn
	default:
		return w.fail("unknown kind of URN %q", which)
	}
	in := w.aPolicy()
	var a *answer
	switch action {
	case "updates":
		a = w.graphql(w.admin(), w.suite.docs.updatePolicy, map[string]any{"urn": urn, "input": in})
		w.removeNamed(in.Name)
	case "deletes":
		a = w.graphql(w.admin(), w.suite.docs.deletePolicy, map[string]any{"urn": urn})
	default:
		return w.fail("unknown action %q", action)
	}
	a.what = fmt.Sprintf("the administrator, who %s a policy by %s (%s)", action, which, urn)
	tag := w.tag
	a.noEffect = func() error {
		if err := w.noPolicyNamed(in.Name); err != nil {
			return err
		}
		if w.policy != nil {
			if err := w.policyIs(w.policy.urn, &w.policy.input); err != nil {
				return err
			}
		}
		if tag != nil {
			return w.tagReadsBack(tag)
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

func adminMadeTwoPoliciesNamedApart(ctx context.Context) error {
	w := theWorld(ctx)
	word := "cs" + randomID(12)
	first := w.aPolicy()
	first.Name = "Policy " + word + " of catalogspec"
	second := w.aPolicy()
	second.Name = "Policy cs" + randomID(12) + " of catalogspec"
	u1, err := w.createPolicy(w.admin(), first)
	if err != nil {
		return err
	}
	u2, err := w.createPolicy(w.admin(), second)
	if err != nil {
		return err
	}
	w.named = &namedPolicies{word: word, first: u1, second: u2}
	return nil
}

func listsPoliciesByFirstWord(ctx context.Context) error {
	w := theWorld(ctx)
	if w.named == nil {
		return w.fail("no policies were made to list")
	}
	w.last = w.listByWord(w.named.word)
	return w.checkpoint()
}

// listingFindsFirstOnly checks the listing by the first policy's word: the
// first policy is in the list, the second is not. DataHub's list comes from
// its search index, so the listing is made again, within the propagation
// window, while it does not show the first policy yet.
func listingFindsFirstOnly(ctx context.Context) error {
	w := theWorld(ctx)
	n := w.named
	a, err := w.lastAnswer()
	if err != nil || n == nil {
		return w.fail("the policies were not listed by a word")
	}
	return w.eventually("the listing by the word "+n.word+" finding the policy", func() (bool, error) {
		if a == nil {
			a = w.listByWord(n.word)
			w.last = a
		}
		var page *policyPage
		err := a.data("listPolicies", &page)
		what := a.what
		a = nil
		if err != nil {
			return false, w.failed(err)
		}
		if page == nil {
			return false, w.fail("%s answered null", what)
		}
		has := func(urn string) bool {
			return slices.ContainsFunc(page.Policies, func(v policyView) bool { return v.URN == urn })
		}
		if has(n.second) {
			return false, w.fail("%s includes the policy %s, whose name does not have the word", what, n.second)
		}
		if !has(n.first) {
			return false, w.fail("%s does not include the policy %s, whose name has the word", what, n.first)
		}
		return true, nil
	})
}

// grantedByPolicyWith makes a METADATA policy giving p the privilege with
// the resource filter described, and waits until p may ingest the status
// aspect of a new dataset with it.
func grantedByPolicyWith(ctx context.Context, name, privilege, resources string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if !slices.Contains(metadataPrivileges, privilege) {
		return w.fail("%s is not a metadata privilege", privilege)
	}
	if err := w.ensureUser(p); err != nil {
		return err
	}
	desc := "Made by the catalogspec scenario: " + w.name
	in := policyInput{
		Type: "METADATA", Name: fmt.Sprintf("%s %s %s", w.unique("policy"), p.name, privilege),
		State: "ACTIVE", Description: &desc, Privileges: []string{privilege},
		Actors: actorFilter{Users: []string{p.urn}, Groups: []string{}},
	}
	switch resources {
	case "no resource filter":
	case "a resource filter that names nothing":
		in.Resources = &resourceFilter{}
	default:
		return w.fail("unknown resource filter %q", resources)
	}
	urn, err := w.createPolicy(w.admin(), in)
	if err != nil {
		return err
	}
	w.policies[policyKey(p.name, privilege)] = &policyRecord{urn: urn, input: in}
	if privilege != "EDIT_ENTITY" || !w.canActAs(p) {
		return nil
	}
	what := fmt.Sprintf("the grant of %s to %s taking effect", privilege, name)
	w.waitLater(what, func() error {
		c, err := w.as(p)
		if err != nil {
			return err
		}
		probe := w.newDataset().urn
		return w.eventually(what, func() (bool, error) {
			a := w.ingest(c, c.gms, "dataset", probe, "status", map[string]bool{"removed": false})
			return a.status == http.StatusOK, w.fail("%s answered status %d", a.what, a.status)
		})
	})
	return nil
}

func adminCreatesBadPolicy(ctx context.Context, defect string) error {
	w := theWorld(ctx)
	in, err := w.badPolicy(defect)
	if err != nil {
		return err
	}
	// The description is unique to the attempt: a policy without a name is
	// found by it.
	desc := "Made by the catalogspec scenario: " + w.name + " " + w.unique("attempt")
	in.Description = &desc
	a := w.graphql(w.admin(), w.suite.docs.createPolicy, map[string]any{"input": in})
	a.what = "the administrator creating a policy that " + defect
	w.undo("delete the policy that "+defect+" if it was made", func() error {
		all, err := w.allPolicies()
		if err != nil {
			return err
		}
		for _, p := range all {
			if p.Description != nil && *p.Description == desc {
				if err := w.deletePolicy(p.URN, true); err != nil {
					return err
				}
			}
		}
		return nil
	})
	a.noEffect = func() error {
		all, err := w.allPolicies()
		if err != nil {
			return err
		}
		for _, p := range all {
			if p.Description != nil && *p.Description == desc {
				return w.fail("the policy %s was made although making it was refused", p.URN)
			}
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

func adminChangesPolicyBadly(ctx context.Context, defect string) error {
	w := theWorld(ctx)
	if w.policy == nil {
		return w.fail("no policy was made before")
	}
	rec := *w.policy
	in, err := w.badPolicy(defect)
	if err != nil {
		return err
	}
	in.Description = rec.input.Description
	a := w.graphql(w.admin(), w.suite.docs.updatePolicy, map[string]any{"urn": rec.urn, "input": in})
	a.what = "the administrator changing the policy so that it " + defect
	a.noEffect = func() error { return w.policyIs(rec.urn, &rec.input) }
	w.last = a
	return w.checkpoint()
}

func adminListsPoliciesFrom(ctx context.Context, start int) error {
	w := theWorld(ctx)
	a := w.graphql(w.admin(), w.suite.docs.listPolicies, map[string]any{"input": map[string]any{"start": start, "count": 10}})
	a.what = fmt.Sprintf("the administrator listing the policies from position %d", start)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// editableView is a policy as list_policies_editable.graphql shows it.
type editableView struct {
	URN      string `json:"urn"`
	Name     string `json:"name"`
	State    string `json:"state"`
	Editable bool   `json:"editable"`
}

// editablePolicy finds the policy at urn, page by page, as the
// administrator; nil when there is none.
func (w *world) editablePolicy(urn string) (*editableView, error) {
	const pageSize = 100
	for start := 0; start < 100*pageSize; {
		a := w.graphql(w.admin(), w.suite.docs.listPoliciesEditable, map[string]any{"input": map[string]any{"start": start, "count": pageSize}})
		a.what = "the administrator listing policies with their editable flag"
		var page *struct {
			Total    int            `json:"total"`
			Policies []editableView `json:"policies"`
		}
		if err := a.data("listPolicies", &page); err != nil {
			return nil, w.failed(err)
		}
		if page == nil {
			return nil, w.fail("listPolicies answered null")
		}
		for _, p := range page.Policies {
			if p.URN == urn {
				return &p, nil
			}
		}
		start += len(page.Policies)
		if len(page.Policies) == 0 || start >= page.Total {
			return nil, nil
		}
	}
	return nil, w.fail("listPolicies did not come to an end after 100 pages")
}

// policyListedEditable checks that the policy at urn is listed with
// editable as want: within the propagation window, since the listing comes
// from DataHub's search index, which lists a new policy a moment after it
// is made.
func (w *world) policyListedEditable(urn string, want bool) error {
	return w.eventually("the policy "+urn+" being listed", func() (bool, error) {
		p, err := w.editablePolicy(urn)
		if err != nil {
			return false, err
		}
		if p == nil {
			return false, w.fail("the policy %s is not listed", urn)
		}
		if p.Editable != want {
			return false, w.fail("the policy %s (%q) is listed with editable %t, expected %t", urn, p.Name, p.Editable, want)
		}
		return true, nil
	})
}

// missingPolicyURN is the URN of a policy that was never made.
func (w *world) missingPolicyURN() string {
	return "urn:li:dataHubPolicy:" + w.unique("missing")
}

// removeNamed deletes, at the end of the scenario, every policy called name.
func (w *world) removeNamed(name string) {
	w.undo("delete the policy "+name+" if it was made", func() error {
		named, err := w.policiesNamed(name)
		if err != nil {
			return err
		}
		for _, pol := range named {
			if err := w.deletePolicy(pol.URN, true); err != nil {
				return err
			}
		}
		return nil
	})
}

// noPolicyMade is the read-back of a refused creation of the policy name:
// no policy is called name.
func (w *world) noPolicyMade(name string) func() error {
	return func() error {
		named, err := w.policiesNamed(name)
		if err != nil {
			return err
		}
		if len(named) > 0 {
			return w.fail("the policy %q exists although making it was refused", name)
		}
		return nil
	}
}

// noPolicyNamed checks that no policy is called name.
func (w *world) noPolicyNamed(name string) error {
	named, err := w.policiesNamed(name)
	if err != nil {
		return err
	}
	if len(named) > 0 {
		return w.fail("a policy %q exists (%s), although writing it was refused", name, named[0].URN)
	}
	return nil
}

func quoted(s *string) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *s)
}

// namedPolicies are two policies whose names share no word: the scenario
// lists by the first one's word.
type namedPolicies struct {
	word          string
	first, second string // URNs
}

// listByWord lists the policies whose name has the word, as the
// administrator.
func (w *world) listByWord(word string) *answer {
	a := w.graphql(w.admin(), w.suite.docs.listPolicies, map[string]any{"input": map[string]any{"start": 0, "count": 100, "query": word}})
	a.what = fmt.Sprintf("the administrator listing the policies by the word %q", word)
	a.noEffect = nothingToCheck
	return a
}

// badPolicy is w.aPolicy() with the defect.
func (w *world) badPolicy(defect string) (policyInput, error) {
	in := w.aPolicy()
	switch defect {
	case "has no name":
		in.Name = ""
	case "grants a privilege the service does not know":
		in.Privileges = []string{"NO_SUCH_PRIVILEGE_" + strings.ToUpper(randomID(8))}
	case "names a user by a malformed URN":
		in.Actors.Users = []string{"not-a-urn-" + w.id}
	case "covers a resource by a malformed URN":
		in.Type = "METADATA"
		in.Privileges = []string{"VIEW_ENTITY_PAGE"}
		in.Resources = &resourceFilter{Type: "dataset", Resources: []string{"not-a-urn-" + w.id}}
	default:
		return in, w.fail("unknown defect %q", defect)
	}
	return in, nil
}
