package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerDeletionSteps registers the steps of features/deletion.feature.
func registerDeletionSteps(s stepRegistrar) {
	s.Step(`^`+who+` is granted `+priv+` on (the dataset|another dataset) alone$`, isGrantedOnDatasetAlone)
	s.Step(`^`+who+` deletes the dataset for good through the (metadata service|frontend)$`, deletesForGood)
	s.Step(`^`+who+` deletes a dataset no one has written for good$`, deletesNeverWritten)
	s.Step(`^the deletion is answered with (the number of rows it removed|no rows removed)$`, deletionAnswered)
	s.Step(`^DataHub's SDK no longer finds the dataset or its properties$`, sdkNoLongerFinds)
	s.Step(`^the administrator has deleted the (dataset|first dataset) for good$`, adminDeletesForGood)
	s.Step(`^`+who+` reads the dataset through the (entity path|aspect path|v2 entity path|OpenAPI entity path)$`, readsDeletedDataset)
	s.Step(`^the answer shows none of the dataset's aspects$`, answerShowsNoAspect)
	s.Step(`^the administrator has tagged two new datasets with the tag and with another tag$`, adminTagsTwoDatasets)
	s.Step(`^the administrator has made `+who+` and `+who+` owners of a new dataset$`, adminMakesTwoOwners)
	s.Step(`^a dry run finds the references to (the tag|`+who[1:len(who)-1]+`)$`, dryRunFinds)
	s.Step(`^`+who+` deletes the references to (the tag|`+who[1:len(who)-1]+`)( in a dry run)?$`, deletesReferences)
	s.Step(`^the answer counts the references to the tag on the two datasets$`, answerCountsReferences)
	s.Step(`^neither dataset holds the tag, and each still holds the other tag$`, neitherHoldsTag)
	s.Step(`^both datasets still hold the tag$`, bothStillHoldTag)
	s.Step(`^the tag still exists$`, tagStillExists)
	s.Step(`^the dataset's owners are `+who+` alone$`, ownersAreAlone)
	s.Step(`^`+who+` deletes every dataset of the scenario's platform for good as the datahub CLI does$`, deletesPlatformAsCLI)
	s.Step(`^DataHub's SDK finds none of the platform's datasets, and still finds the other$`, sdkFindsNoneOfPlatform)
	s.Step(`^someone without a token (deletes the dataset for good|deletes the references to the dataset) through the (metadata service|frontend)$`, anonymousDeletes)
	s.Step(`^`+who+` sends a deletion (that names no URN|that names a malformed URN|whose body is not JSON|of an aspect that is not a series)$`, sendsFlawedDeletion)
}

// deletion.feature: hard_delete_entity (POST /entities?action=delete) and
// delete_references_to_urn (POST /entities?action=deleteReferences), and
// `datahub delete --platform --hard`, as DataHub's SDK and CLI send them
// (sdkclient), each effect read back through the reads the SDK makes.

// deletionState is what a scenario of deletion.feature knows.
type deletionState struct {
	tagged   []*datasetRecord // the datasets the administrator tagged
	otherTag string           // the other tag they hold
	refOwner *person          // whose references a scenario deletes
	keptOwn  *person          // the owner that stays
}

// deleteEntity sends hard_delete_entity's request for urn as c.
func (w *world) deleteEntity(c caller, tier, urn string) *answer {
	a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.DeleteEntityPath, sdkclient.DeleteEntityBody(urn))
	a.what = fmt.Sprintf("%s deleting %s for good through the %s", c.name, urn, tier)
	a.subject = urn
	return a
}

// deleteReferences sends delete_references_to_urn's request as c.
func (w *world) deleteReferences(c caller, tier, urn string, dryRun bool) *answer {
	a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.DeleteReferencesPath, sdkclient.DeleteReferencesBody(urn, dryRun))
	a.what = fmt.Sprintf("%s deleting the references to %s (dry run: %v) through the %s", c.name, urn, dryRun, tier)
	a.subject = urn
	return a
}

// forgetLater deletes d for good at the end of the scenario, as a run
// leaves a target as it found it (best effort: a target that does not
// serve deletion keeps it, as before).
func (w *world) forgetLater(d *datasetRecord) {
	w.undo("delete "+d.urn+" for good", func() error {
		w.deleteEntity(w.admin(), tierGMS, d.urn)
		w.takeFailures()
		return nil
	})
}

// stillThere is the read-back of a refused deletion: the dataset's
// description reads back through the aspect path.
func (w *world) stillThere(d *datasetRecord) func() error {
	return func() error {
		var p datasetProperties
		found, err := w.aspectOf(d.urn, "datasetProperties", &p)
		if err != nil {
			return err
		}
		if !found || p.Description != d.description {
			return w.fail("%s lost its properties, though its deletion was refused", d.urn)
		}
		return nil
	}
}

// isGrantedOnDatasetAlone grants a privilege on one dataset, and waits
// until it shows by a probe that needs it and changes nothing: a dry run
// of deleting the references to the dataset for DELETE_ENTITY, a write of
// the default status for EDIT_ENTITY (policies.go).
func isGrantedOnDatasetAlone(ctx context.Context, name, privilege, which string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	urn := d.urn
	if which == "another dataset" {
		other := w.newDataset()
		w.forgetLater(other)
		urn = other.urn
	}
	p := w.person(name)
	res := &resourceFilter{Type: "dataset", Resources: []string{urn}}
	if err := w.grantNoWait(p, privilege, res); err != nil {
		return err
	}
	what := fmt.Sprintf("the grant of %s on %s to %s taking effect", privilege, urn, name)
	switch privilege {
	case "EDIT_ENTITY":
		w.waitLater(what, func() error { return w.untilEffective(p, privilege, res) })
	case "DELETE_ENTITY":
		w.waitLater(what, func() error {
			c, err := w.as(p)
			if err != nil {
				return err
			}
			return w.eventually(what, func() (bool, error) {
				a := w.deleteReferences(c, tierGMS, urn, true)
				return a.status == http.StatusOK, w.fail("%s answered status %d", a.what, a.status)
			})
		})
	default:
		return w.fail("no probe for a grant of %s on one dataset", privilege)
	}
	return nil
}

func deletesForGood(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	a := w.deleteEntity(c, tier, d.urn)
	a.noEffect = w.stillThere(d)
	w.last = a
	return w.checkpoint()
}

func deletesNeverWritten(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	a := w.deleteEntity(c, tierGMS, d.urn)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// deletionAnswered reads the answer as hard_delete_entity does:
// answer.get("value", {}).get("rows", 0), a number.
func deletionAnswered(ctx context.Context, how string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var body struct {
		Value *struct {
			Rows *json.Number `json:"rows"`
		} `json:"value"`
	}
	if err := a.jsonBody(&body); err != nil {
		return w.failed(err)
	}
	rows := int64(0)
	if body.Value != nil && body.Value.Rows != nil {
		n, err := body.Value.Rows.Int64()
		if err != nil {
			return w.fail("%s says rows %s, not a whole number, which the SDK adds up", a.what, *body.Value.Rows)
		}
		rows = n
	}
	switch how {
	case "no rows removed":
		if rows != 0 {
			return w.fail("%s says it removed %d rows of a dataset no one wrote", a.what, rows)
		}
	default:
		if body.Value == nil || body.Value.Rows == nil || rows < 2 {
			return w.fail("%s says it removed %d rows, expected the dataset's aspects (two at least) in value.rows", a.what, rows)
		}
	}
	return nil
}

// sdkNoLongerFinds is exists() and get_aspect of the properties after the
// deletion: both as absent (404).
func sdkNoLongerFinds(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	for _, aspect := range []string{"datasetKey", "datasetProperties"} {
		a := w.readAspect(w.reader(), tierGMS, d.urn, aspect)
		if a.status != http.StatusNotFound {
			return w.fail("%s answered status %d after the dataset was deleted for good, expected 404 (the SDK's None)", a.what, a.status)
		}
	}
	return nil
}

func adminDeletesForGood(ctx context.Context, which string) error {
	w := theWorld(ctx)
	d := w.dataset
	if which == "first dataset" {
		if len(w.onPlatform) == 0 {
			return w.fail("no dataset was written on the scenario's platform")
		}
		d = w.onPlatform[0]
	}
	if d == nil {
		return w.fail("no dataset was written")
	}
	a := w.deleteEntity(w.admin(), tierGMS, d.urn)
	return w.acknowledged(a)
}

func readsDeletedDataset(ctx context.Context, name, read string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	var a *answer
	switch read {
	case "entity path":
		a = w.readEntity(c, tierGMS, d.urn, true)
	case "aspect path":
		a = w.readAspect(c, tierGMS, d.urn, "datasetProperties")
	case "v2 entity path":
		a = w.readEntityV2(c, tierGMS, d.urn, nil)
	case "OpenAPI entity path":
		a = w.sdkSend(c, http.MethodGet, c.gms+"/openapi/v3/entity/dataset/"+sdkclient.URLEncode(d.urn), nil)
		a.what = fmt.Sprintf("%s reading %s through OpenAPI", c.name, d.urn)
	}
	a.noEffect = nothingToCheck
	a.subject = read
	w.last = a
	return w.checkpoint()
}

// answerShowsNoAspect: the read of a dataset deleted for good shows no
// aspect of it (the v2 entity path may show its key, which DataHub
// derives from the URN).
func answerShowsNoAspect(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status == http.StatusNotFound {
		return nil
	}
	switch a.subject {
	case "entity path":
		return w.aspectAbsent(a, "DatasetSnapshot", "com.linkedin.dataset.DatasetProperties")
	case "v2 entity path":
		return w.onlyKey(a, false)
	}
	return w.fail("%s answered status %d, expected 404", a.what, a.status)
}

func adminTagsTwoDatasets(ctx context.Context) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was made")
	}
	w.otherTag = w.tagURN()
	w.tagged = []*datasetRecord{w.newDataset(), w.newDataset()}
	for _, d := range w.tagged {
		w.forgetLater(d)
		if err := w.mustIngest(w.admin(), "dataset", d.urn, "globalTags", globalTags(w.tag.urn, w.otherTag)); err != nil {
			return err
		}
	}
	return nil
}

func adminMakesTwoOwners(ctx context.Context, first, second string) error {
	w := theWorld(ctx)
	d := w.newDataset()
	w.dataset = d
	w.forgetLater(d)
	w.refOwner, w.keptOwn = w.person(first), w.person(second)
	return w.mustIngest(w.admin(), "dataset", d.urn, "ownership", ownershipOf(map[string]string{w.refOwner.urn: technicalOwner, w.keptOwn.urn: businessOwner}))
}

// referenced is the URN of what the step names: the tag, or a person.
func (w *world) referenced(what string) (string, error) {
	if what == "the tag" {
		if w.tag == nil {
			return "", w.fail("no tag was made")
		}
		return w.tag.urn, nil
	}
	return w.person(what).urn, nil
}

// referenceCount reads delete_references_to_urn's answer as it does.
func (w *world) referenceCount(a *answer) (int, []map[string]string, error) {
	if a.status != http.StatusOK {
		return 0, nil, w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var body struct {
		Value struct {
			Total          int                 `json:"total"`
			RelatedAspects []map[string]string `json:"relatedAspects"`
		} `json:"value"`
	}
	if err := a.jsonBody(&body); err != nil {
		return 0, nil, w.failed(err)
	}
	return body.Value.Total, body.Value.RelatedAspects, nil
}

// dryRunFinds waits until the service's graph holds the references the
// scenario wrote: a dry run, as the administrator, counts them all.
func dryRunFinds(ctx context.Context, what string) error {
	w := theWorld(ctx)
	urn, err := w.referenced(what)
	if err != nil {
		return err
	}
	want := max(len(w.tagged), 1)
	return w.eventually("a dry run finding the references to "+urn, func() (bool, error) {
		n, _, err := w.referenceCount(w.deleteReferences(w.admin(), tierGMS, urn, true))
		if err != nil {
			return false, err
		}
		return n >= want, w.fail("a dry run found %d references to %s, expected %d", n, urn, want)
	})
}

func deletesReferences(ctx context.Context, name, what, dry string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	urn, err := w.referenced(what)
	if err != nil {
		return err
	}
	a := w.deleteReferences(c, tierGMS, urn, dry != "")
	if what == "the tag" {
		a.noEffect = func() error { return w.everyTaggedHolds(true) }
	} else {
		a.noEffect = nothingToCheck
	}
	w.last = a
	return w.checkpoint()
}

// everyTaggedHolds checks that each tagged dataset holds (or not) the
// tag, and still holds the other.
func (w *world) everyTaggedHolds(tag bool) error {
	for _, d := range w.tagged {
		got, err := w.tagsOf(d.urn)
		if err != nil {
			return err
		}
		if slices.Contains(got, w.tag.urn) != tag || !slices.Contains(got, w.otherTag) {
			return w.fail("%s holds the tags %v; expected the tag %s %s, and the other tag %s", d.urn, got, w.tag.urn, map[bool]string{true: "still there", false: "gone"}[tag], w.otherTag)
		}
	}
	return nil
}

// answerCountsReferences: a total of one reference per dataset, and a
// sample naming the datasets' globalTags and the TaggedWith relationship.
func answerCountsReferences(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	n, related, err := w.referenceCount(a)
	if err != nil {
		return err
	}
	if n != len(w.tagged) {
		return w.fail("%s counts %d references, expected %d (one per dataset tagged)", a.what, n, len(w.tagged))
	}
	want := urnsOf(w.tagged...)
	var got []string
	for _, r := range related {
		if r["aspect"] != "globalTags" || r["relationship"] != "TaggedWith" {
			return w.fail("%s names the related aspect %v, expected globalTags by TaggedWith", a.what, r)
		}
		got = append(got, r["entity"])
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return w.fail("%s names the entities %v, expected %v", a.what, got, want)
	}
	return nil
}

func neitherHoldsTag(ctx context.Context) error {
	w := theWorld(ctx)
	if _, _, err := w.referenceCount(w.last); err != nil {
		return err
	}
	return w.everyTaggedHolds(false)
}

func bothStillHoldTag(ctx context.Context) error {
	return theWorld(ctx).everyTaggedHolds(true)
}

func tagStillExists(ctx context.Context) error {
	w := theWorld(ctx)
	return w.tagReadsBack(w.tag)
}

func ownersAreAlone(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if _, _, err := w.referenceCount(w.last); err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	got, err := w.ownersOf(d.urn)
	if err != nil {
		return err
	}
	want := maps2pairs(map[string]string{w.person(name).urn: businessOwner})
	if !slices.Equal(got, want) {
		return w.fail("%s has the owners %v, expected %v", d.urn, got, want)
	}
	return nil
}

// deletesPlatformAsCLI is `datahub delete --platform <p> --hard --force`
// (delete_cli.py by_filter): get_urns_by_filter with every status and
// skip_cache, 3000 at a time, then hard_delete_entity of each URN found.
func deletesPlatformAsCLI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	f := sdkclient.Filter{Platforms: []string{w.scenarioPlatform()}, Status: sdkclient.StatusAll, SkipCache: true, BatchSize: 3000}
	run := w.searchPages(c, tierGMS, f)
	if !run.ok() {
		w.last = run.last
		return w.fail("the CLI's search answered status %d, not a page of results", run.last.status)
	}
	for _, u := range run.found {
		a := w.deleteEntity(c, tierGMS, u)
		if err := w.acknowledged(a); err != nil {
			return err
		}
		w.last = a
	}
	if len(run.found) == 0 {
		return w.fail("the CLI's search found nothing to delete on the scenario's platform")
	}
	return w.checkpoint()
}

func sdkFindsNoneOfPlatform(ctx context.Context) error {
	w := theWorld(ctx)
	for _, d := range w.onPlatform {
		a := w.readAspect(w.reader(), tierGMS, d.urn, "datasetKey")
		if a.status != http.StatusNotFound {
			return w.fail("%s answered status %d: the dataset of the platform is still there", a.what, a.status)
		}
	}
	return w.stillThere(w.offPlat)()
}

func anonymousDeletes(ctx context.Context, does, tier string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	var a *answer
	if strings.HasPrefix(does, "deletes the dataset") {
		a = w.deleteEntity(w.anonymous(), tier, d.urn)
	} else {
		a = w.deleteReferences(w.anonymous(), tier, d.urn, false)
	}
	a.noEffect = w.stillThere(d)
	w.last = a
	return w.checkpoint()
}

func sendsFlawedDeletion(ctx context.Context, name, flaw string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	var body []byte
	switch flaw {
	case "that names no URN":
		body = sdkclient.Dumps(sdkclient.Obj{{Key: "aspectName", Value: "datasetProperties"}})
	case "that names a malformed URN":
		body = sdkclient.DeleteEntityBody("not-a-urn")
	case "whose body is not JSON":
		body = []byte(`{"urn": "` + d.urn + `"`)
	case "of an aspect that is not a series":
		body = sdkclient.Dumps(sdkclient.Obj{{Key: "urn", Value: d.urn}, {Key: "aspectName", Value: "datasetProperties"}})
	}
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.DeleteEntityPath, body)
	a.what = fmt.Sprintf("%s sending a deletion %s", name, flaw)
	a.noEffect = w.stillThere(d)
	w.last = a
	return w.checkpoint()
}
