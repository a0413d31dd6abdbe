package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// More rules on policies (SPEC.md, Policies): what a write answers, states,
// editability, resource filters, the query of listPolicies, and the
// policies and URNs a write refuses.

// listPoliciesEditable is listPolicies with each policy's `editable` flag.
const listPoliciesEditable = `query listPoliciesEditable($input: ListPoliciesInput!) {
  listPolicies(input: $input) {
    start
    count
    total
    policies { urn name state editable }
  }
}`

// editableView is a policy as listPoliciesEditable shows it.
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
		a := w.graphql(w.admin(), listPoliciesEditable, map[string]any{"input": map[string]any{"start": start, "count": pageSize}})
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

// Steps.

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
	t := w.suite.target
	if t.StartingPoliciesErr != nil {
		return w.fail("%v", t.StartingPoliciesErr)
	}
	p, ok := t.StartingPolicies[urn]
	if !ok {
		return w.fail("the policy %s was not listed before the run began (%d policies were)", urn, len(t.StartingPolicies))
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

func quoted(s *string) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *s)
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

func refusedAsBadRequestChangingNothing(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if err := answerIsBadRequestError(ctx); err != nil {
		return err
	}
	return w.noEffect(a)
}

// Listing by query.

// namedPolicies are two policies whose names share no word: the scenario
// lists by the first one's word.
type namedPolicies struct {
	word          string
	first, second string // URNs
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

// listByWord lists the policies whose name has the word, as the
// administrator.
func (w *world) listByWord(word string) *answer {
	a := w.graphql(w.admin(), w.suite.docs.listPolicies, map[string]any{"input": map[string]any{"start": 0, "count": 100, "query": word}})
	a.what = fmt.Sprintf("the administrator listing the policies by the word %q", word)
	a.noEffect = nothingToCheck
	return a
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

// Resource filters.

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

// Policies a write refuses.

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

// Users.

// isUserKnownOnlyByName makes p's user with nothing but its key aspect.
func isUserKnownOnlyByName(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	if err := w.mustIngest(w.admin(), "corpuser", p.urn, "corpUserKey", map[string]string{"username": p.username}); err != nil {
		return err
	}
	p.exists = true
	return nil
}

// corpUserDoc looks a user up by URN.
const corpUserDoc = `query corpUser($urn: String!) {
  corpUser(urn: $urn) {
    urn
    username
    status
    info { displayName email }
  }
}`

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
		a := w.graphql(w.admin(), corpUserDoc, map[string]any{"urn": p.urn})
		a.what = "the administrator looking up " + p.urn
		err := check(a)
		return err == nil, err
	})
}

func adminLooksUpUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	a := w.graphql(w.admin(), corpUserDoc, map[string]any{"urn": p.urn})
	a.what = "the administrator looking up " + p.urn
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func adminLooksUpMalformedUser(ctx context.Context) error {
	w := theWorld(ctx)
	a := w.graphql(w.admin(), corpUserDoc, map[string]any{"urn": "not-a-urn-" + w.id})
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

func adminListsPoliciesFrom(ctx context.Context, start int) error {
	w := theWorld(ctx)
	a := w.graphql(w.admin(), w.suite.docs.listPolicies, map[string]any{"input": map[string]any{"start": start, "count": 10}})
	a.what = fmt.Sprintf("the administrator listing the policies from position %d", start)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func adminLooksUpUserByTagURN(ctx context.Context) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made before")
	}
	a := w.graphql(w.admin(), corpUserDoc, map[string]any{"urn": w.tag.urn})
	a.what = "the administrator looking up a user by the tag's URN " + w.tag.urn
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// adminLooksUpUnknownUser looks up a user URN no one has made.
func adminLooksUpUnknownUser(ctx context.Context) error {
	w := theWorld(ctx)
	urn := "urn:li:corpuser:catalogspec-nobody-" + w.id
	a := w.graphql(w.admin(), corpUserDoc, map[string]any{"urn": urn})
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
