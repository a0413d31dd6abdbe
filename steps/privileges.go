package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerPrivilegesSteps registers the steps of what people are granted,
// which several features share.
func registerPrivilegesSteps(s stepRegistrar) {
	s.Step(`^`+who+` is granted `+priv+` on (the dataset|another dataset) only$`, isGrantedOnDataset)
	s.Step(`^`+who+` is granted `+priv+`$`, isGranted)
	s.Step(`^`+who+` is granted `+priv+` on a new dataset only$`, isGrantedOnNewDatasetOnly)
	s.Step(`^`+who+` is granted `+priv+` on (that tag|another tag) only$`, isGrantedOnTagOnly)
	s.Step(`^`+who+` is granted `+priv+` on (datasets|tags)$`, isGrantedOnType)
	s.Step(`^the policy granting `+who+` `+priv+` (is set INACTIVE|is deleted|has been set INACTIVE|has been deleted)$`, grantingPolicyChanges)
	s.Step(`^no policy lets every user (generate personal access tokens|read entities)$`, noPolicyLetsEveryUser)
	s.Step(`^`+who+` can create a tag( at once)?$`, canCreateATag)
	s.Step(`^`+who+` (?:cannot|can no longer) create a tag( at once)?$`, cannotCreateATag)
}

func isGranted(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	return w.grant(w.person(name), privilege, nil)
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
	p := w.person(name)
	w.waitLater(fmt.Sprintf("%s losing %s", name, privilege), func() error {
		return w.untilWithdrawnFrom(p, []string{privilege})
	})
	return nil
}

func noPolicyLetsEveryUser(ctx context.Context, what string) error {
	w := theWorld(ctx)
	switch what {
	case "generate personal access tokens":
		return w.switchOffEveryUserPolicies(what, "GENERATE_PERSONAL_ACCESS_TOKENS")
	case "read entities":
		// Reading an entity's timeseries aspects is reading it too: DataHub's
		// "All Users - View Entity Page" gives every user all three.
		return w.switchOffEveryUserPolicies(what, "VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE", "GET_TIMESERIES_ASPECT_PRIVILEGE")
	}
	return w.fail("unknown kind of policy %q", what)
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
	what := fmt.Sprintf("the grant of %s to %s taking effect", privilege, name)
	w.waitLater(what, func() error {
		c, err := w.prober(p)
		if err != nil {
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
	})
	return nil
}

func isGrantedOnType(ctx context.Context, name, privilege, types string) error {
	w := theWorld(ctx)
	entityType := map[string]string{"datasets": "dataset", "tags": "tag"}[types]
	return w.grantOn(w.person(name), privilege, &resourceFilter{Type: entityType})
}

// isGrantedOnDataset grants p a read or write privilege on the scenario's
// dataset (or on another, never written) alone, and waits until p may
// read what it covers: the key through the aspect path answers 200 for
// the dataset, 404 for the other (not 403).
func isGrantedOnDataset(ctx context.Context, name, privilege, which string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	urn, want := d.urn, http.StatusOK
	if which == "another dataset" {
		w.other = w.newDataset().urn
		urn, want = w.other, http.StatusNotFound
	}
	p := w.person(name)
	if err := w.grantNoWait(p, privilege, &resourceFilter{Type: "dataset", Resources: []string{urn}}); err != nil {
		return err
	}
	if !w.canActAs(p) {
		return nil
	}
	// Left pending (pending.go): after what every user lost is waited for,
	// a read shows the grant and not a starting policy. The timeseries
	// privilege reads no key: its probe reads the dataset's profiles.
	what := fmt.Sprintf("the grant of %s to %s taking effect", privilege, name)
	w.waitLater(what, func() error {
		c, err := w.as(p)
		if err != nil {
			return err
		}
		return w.eventually(what, func() (bool, error) {
			if privilege == "GET_TIMESERIES_ASPECT_PRIVILEGE" {
				a := w.readSeries(c, "metadata service", urn, "datasetProfile", sdkclient.Obj{}, 1)
				return a.status == http.StatusOK, w.fail("%s answered status %d, expected 200", a.what, a.status)
			}
			a := w.sdkSend(c, http.MethodGet, c.gms+sdkclient.AspectPath(urn, "datasetKey", 0), nil)
			return a.status == want, w.fail("reading the key of %s as %s answered status %d, expected %d", urn, name, a.status, want)
		})
	})
	return nil
}

func canCreateATag(ctx context.Context, name, atOnce string) error {
	w := theWorld(ctx)
	return w.canCreateTag(w.person(name), atOnce == "")
}

func cannotCreateATag(ctx context.Context, name, atOnce string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	return w.cannotCreateTag(c, atOnce == "")
}
