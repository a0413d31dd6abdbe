package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerPatchingSteps registers the steps of features/patching.feature.
func registerPatchingSteps(s stepRegistrar) {
	s.Step(`^the administrator has tagged a new dataset with (a tag|two tags)$`, adminTagsDataset)
	s.Step(`^`+who+` (adds another tag to|removes the first tag from|adds a tag to|adds the same tag to) the dataset(?: again)? with a patch through (Rest\.li|OpenAPI)$`, patchesTags)
	s.Step(`^someone without a token adds another tag to the dataset with a patch through (Rest\.li|OpenAPI) on the (metadata service|frontend)$`, anonymousPatch)
	s.Step(`^the dataset's tags are (the first tag and the new one, in that order|the second tag alone|that tag alone)$`, datasetTagsAre)
	s.Step(`^the dataset's description is unchanged$`, descriptionUnchanged)
	s.Step(`^the administrator has made `+who+` a technical owner and `+who+` a business owner of a new dataset$`, adminMakesOwners)
	s.Step(`^`+who+` adds `+who+` as a data steward and removes `+who+` from the dataset's owners with a patch through (Rest\.li|OpenAPI)$`, patchesOwners)
	s.Step(`^the dataset's owners are `+who+` as a business owner and `+who+` as a data steward$`, ownersAre)
	s.Step(`^the administrator has written a new dataset with two custom properties$`, adminWritesCustomProperties)
	s.Step(`^`+who+` adds a custom property and removes the first one with a patch through (Rest\.li|OpenAPI)$`, patchesCustomProperties)
	s.Step(`^the dataset's custom properties are the second one and the new one$`, customPropertiesAre)
	s.Step(`^the administrator has given a new dataset (a glossary term|an upstream dataset)$`, adminGivesTermOrUpstream)
	s.Step(`^`+who+` adds (another glossary term|another upstream) to the dataset with a patch through (Rest\.li|OpenAPI)$`, patchesTermOrUpstream)
	s.Step(`^the dataset's (glossary terms are the first term|upstreams are the first one) and the new one$`, termsOrUpstreamsAre)
	s.Step(`^`+who+` sends a patch of the dataset's tags (with an operation JSON Patch does not have|that is not a list of operations|whose path does not start with a slash|through OpenAPI without its patch)$`, sendsFlawedPatch)
	s.Step(`^`+who+` sends eight patches at once, each adding a tag of its own to the dataset$`, sendsEightPatches)
	s.Step(`^the dataset holds the first tag and all eight new ones$`, datasetHoldsNine)
}

// patching.feature: proposals with changeType PATCH as DataHub's SDK patch
// builders make them (sdkclient.DatasetPatchBuilder), sent as emit_mcps
// sends them over Rest.li (ingestProposalBatch) or over OpenAPI (PATCH
// /openapi/v3/entity/dataset?async=false, as entities.update does), each
// effect read back through the aspect path as get_aspect reads it.

// patchState is what a scenario of patching.feature knows.
type patchState struct {
	tags     []string // the tags the administrator gave the dataset
	addedTag string   // the tag a patch adds
	thatTag  string   // the tag the scenario names last
	owners   map[string]string
	terms    []string // the first term or upstream, then the new one
	props    [][2]string
	newProp  [2]string
	eightNew []string
}

// classes are the records' full names get_aspect looks aspects up by.
var classes = map[string]string{
	"globalTags":        "com.linkedin.common.GlobalTags",
	"ownership":         "com.linkedin.common.Ownership",
	"glossaryTerms":     "com.linkedin.common.GlossaryTerms",
	"upstreamLineage":   "com.linkedin.dataset.UpstreamLineage",
	"datasetProperties": "com.linkedin.dataset.DatasetProperties",
}

// aspectOf reads urn's aspect back as the administrator, as get_aspect
// does: found false for a 404.
func (w *world) aspectOf(urn, aspect string, v any) (bool, error) {
	a := w.readAspect(w.reader(), tierGMS, urn, aspect)
	if a.status == http.StatusNotFound {
		return false, nil
	}
	if a.status != http.StatusOK {
		return false, w.fail("%s answered status %d, expected 200 or 404", a.what, a.status)
	}
	var body struct {
		Aspect map[string]json.RawMessage `json:"aspect"`
	}
	if err := a.jsonBody(&body); err != nil {
		return false, w.failed(err)
	}
	raw, ok := body.Aspect[classes[aspect]]
	if !ok {
		return false, w.fail("%s holds no %s, where DataHub's SDK looks for the aspect", a.what, classes[aspect])
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, w.fail("%s: the aspect is not as expected: %v", a.what, err)
	}
	return true, nil
}

// tagsOf are the tags urn holds, in order.
func (w *world) tagsOf(urn string) ([]string, error) {
	var g struct {
		Tags []struct {
			Tag string `json:"tag"`
		} `json:"tags"`
	}
	if _, err := w.aspectOf(urn, "globalTags", &g); err != nil {
		return nil, err
	}
	out := []string{}
	for _, t := range g.Tags {
		out = append(out, t.Tag)
	}
	return out, nil
}

// tagURN is a tag of the scenario's own (which need not exist: an
// aspect may name any tag).
func (w *world) tagURN() string { return "urn:li:tag:" + w.unique("tag") }

// globalTags is the aspect holding the tags.
func globalTags(tags ...string) map[string]any {
	list := make([]map[string]string, len(tags))
	for i, t := range tags {
		list[i] = map[string]string{"tag": t}
	}
	return map[string]any{"tags": list}
}

// tagsUnchanged is the read-back of a refused patch: the dataset holds
// the tags the administrator gave it, and only those.
func (w *world) tagsUnchanged() error {
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	got, err := w.tagsOf(d.urn)
	if err != nil {
		return err
	}
	if !slices.Equal(got, w.tags) {
		return w.fail("%s holds the tags %v after a refused patch, expected %v", d.urn, got, w.tags)
	}
	return nil
}

// sendPatch sends the builder's proposals as c through the path, as
// emit_mcps sends them: over Rest.li one ingestProposalBatch, over
// OpenAPI one PATCH per entity type.
func (w *world) sendPatch(c caller, tier, path string, b *sdkclient.DatasetPatchBuilder) *answer {
	mcps := b.Build()
	var a *answer
	if path == "Rest.li" {
		a = w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.IngestProposalBatchPath(), sdkclient.IngestProposalBatchBody(mcps, false))
	} else {
		reqs := sdkclient.OpenAPIWrites(mcps, false)
		if len(reqs) != 1 {
			w.addFailure(fmt.Sprintf("the patch makes %d OpenAPI requests, expected one", len(reqs)))
			return &answer{caller: c.name, header: http.Header{}}
		}
		a = w.sdkSend(c, reqs[0].Method, base(c, tier)+reqs[0].Path, reqs[0].Body)
	}
	a.what = fmt.Sprintf("%s patching %s through %s on the %s", c.name, b.URN, path, tier)
	a.subject = b.URN
	return a
}

func adminTagsDataset(ctx context.Context, how string) error {
	w := theWorld(ctx)
	d := w.newDataset()
	w.dataset = d
	w.forgetLater(d)
	w.tags = []string{w.tagURN()}
	if how == "two tags" {
		w.tags = append(w.tags, w.tagURN())
	}
	w.thatTag = w.tags[0]
	if err := w.mustIngest(w.admin(), "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description, CustomProperties: map[string]string{}}); err != nil {
		return err
	}
	return w.mustIngest(w.admin(), "dataset", d.urn, "globalTags", globalTags(w.tags...))
}

func patchesTags(ctx context.Context, name, what, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	b := sdkclient.NewDatasetPatchBuilder(d.urn)
	switch what {
	case "adds another tag to", "adds a tag to":
		w.addedTag = w.tagURN()
		w.thatTag = w.addedTag
		b.AddTag(w.addedTag)
	case "removes the first tag from":
		b.RemoveTag(w.tags[0])
	case "adds the same tag to":
		b.AddTag(w.tags[0])
	}
	a := w.sendPatch(c, tierGMS, path, b)
	a.noEffect = w.tagsUnchanged
	w.last = a
	return w.checkpoint()
}

func anonymousPatch(ctx context.Context, path, tier string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	w.addedTag = w.tagURN()
	a := w.sendPatch(w.anonymous(), tier, path, sdkclient.NewDatasetPatchBuilder(d.urn).AddTag(w.addedTag))
	a.noEffect = w.tagsUnchanged
	w.last = a
	return w.checkpoint()
}

// patched checks the last patch was taken (2xx, as the SDK takes it).
func (w *world) patched() error {
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.acknowledged(a)
}

func datasetTagsAre(ctx context.Context, which string) error {
	w := theWorld(ctx)
	if err := w.patched(); err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	got, err := w.tagsOf(d.urn)
	if err != nil {
		return err
	}
	var want []string
	switch which {
	case "the first tag and the new one, in that order":
		want = []string{w.tags[0], w.addedTag}
	case "the second tag alone":
		want = []string{w.tags[1]}
	case "that tag alone":
		want = []string{w.thatTag}
	}
	if !slices.Equal(got, want) {
		return w.fail("%s holds the tags %v, expected %v", d.urn, got, want)
	}
	return nil
}

func descriptionUnchanged(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	var p datasetProperties
	if found, err := w.aspectOf(d.urn, "datasetProperties", &p); err != nil || !found {
		return w.fail("%s has no properties any more (%v)", d.urn, err)
	}
	if p.Description != d.description {
		return w.fail("%s is described %q, expected %q", d.urn, p.Description, d.description)
	}
	return nil
}

// ownership types by how the scenarios say them.
const (
	technicalOwner = "TECHNICAL_OWNER"
	businessOwner  = "BUSINESS_OWNER"
	dataSteward    = "DATA_STEWARD"
)

func ownershipOf(owners map[string]string) map[string]any {
	var list []map[string]string
	for _, urn := range slices.Sorted(maps.Keys(owners)) {
		list = append(list, map[string]string{"owner": urn, "type": owners[urn]})
	}
	return map[string]any{"owners": list, "lastModified": map[string]any{"time": 0, "actor": "urn:li:corpuser:unknown"}}
}

// ownersOf are urn's owners, owner URN by ownership type.
func (w *world) ownersOf(urn string) ([][2]string, error) {
	var o struct {
		Owners []struct {
			Owner string `json:"owner"`
			Type  string `json:"type"`
		} `json:"owners"`
	}
	if _, err := w.aspectOf(urn, "ownership", &o); err != nil {
		return nil, err
	}
	out := [][2]string{}
	for _, e := range o.Owners {
		out = append(out, [2]string{e.Owner, e.Type})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) })
	return out, nil
}

func adminMakesOwners(ctx context.Context, tech, business string) error {
	w := theWorld(ctx)
	d := w.newDataset()
	w.dataset = d
	w.forgetLater(d)
	w.owners = map[string]string{w.person(tech).urn: technicalOwner, w.person(business).urn: businessOwner}
	return w.mustIngest(w.admin(), "dataset", d.urn, "ownership", ownershipOf(w.owners))
}

func patchesOwners(ctx context.Context, name, steward, removed, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	before := maps2pairs(w.owners)
	b := sdkclient.NewDatasetPatchBuilder(d.urn).AddOwner(w.person(steward).urn, dataSteward).RemoveOwner(w.person(removed).urn)
	a := w.sendPatch(c, tierGMS, path, b)
	a.noEffect = func() error {
		got, err := w.ownersOf(d.urn)
		if err != nil {
			return err
		}
		if !slices.Equal(got, before) {
			return w.fail("%s has the owners %v after a refused patch, expected %v", d.urn, got, before)
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

// maps2pairs is owners sorted as ownersOf gives them.
func maps2pairs(owners map[string]string) [][2]string {
	out := [][2]string{}
	for k, v := range owners {
		out = append(out, [2]string{k, v})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) })
	return out
}

func ownersAre(ctx context.Context, business, steward string) error {
	w := theWorld(ctx)
	if err := w.patched(); err != nil {
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
	want := maps2pairs(map[string]string{w.person(business).urn: businessOwner, w.person(steward).urn: dataSteward})
	if !slices.Equal(got, want) {
		return w.fail("%s has the owners %v, expected %v", d.urn, got, want)
	}
	return nil
}

func adminWritesCustomProperties(ctx context.Context) error {
	w := theWorld(ctx)
	d := w.newDataset()
	w.dataset = d
	w.forgetLater(d)
	w.props = [][2]string{{"first", w.unique("value")}, {"second", w.unique("value")}}
	return w.mustIngest(w.admin(), "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description,
		CustomProperties: map[string]string{w.props[0][0]: w.props[0][1], w.props[1][0]: w.props[1][1]}})
}

// customPropertiesOf are urn's custom properties.
func (w *world) customPropertiesOf(urn string) (map[string]string, error) {
	var p datasetProperties
	if _, err := w.aspectOf(urn, "datasetProperties", &p); err != nil {
		return nil, err
	}
	return p.CustomProperties, nil
}

func patchesCustomProperties(ctx context.Context, name, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	w.newProp = [2]string{"added", w.unique("value")}
	b := sdkclient.NewDatasetPatchBuilder(d.urn).AddCustomProperty(w.newProp[0], w.newProp[1]).RemoveCustomProperty(w.props[0][0])
	a := w.sendPatch(c, tierGMS, path, b)
	a.noEffect = func() error {
		got, err := w.customPropertiesOf(d.urn)
		if err != nil {
			return err
		}
		if len(got) != 2 || got[w.props[0][0]] != w.props[0][1] {
			return w.fail("%s has the custom properties %v after a refused patch", d.urn, got)
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

func customPropertiesAre(ctx context.Context) error {
	w := theWorld(ctx)
	if err := w.patched(); err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	got, err := w.customPropertiesOf(d.urn)
	if err != nil {
		return err
	}
	want := map[string]string{w.props[1][0]: w.props[1][1], w.newProp[0]: w.newProp[1]}
	if len(got) != len(want) || got[w.props[1][0]] != w.props[1][1] || got[w.newProp[0]] != w.newProp[1] {
		return w.fail("%s has the custom properties %v, expected %v", d.urn, got, want)
	}
	return nil
}

func adminGivesTermOrUpstream(ctx context.Context, what string) error {
	w := theWorld(ctx)
	d := w.newDataset()
	w.dataset = d
	w.forgetLater(d)
	if what == "a glossary term" {
		w.terms = []string{"urn:li:glossaryTerm:" + w.unique("term")}
		return w.mustIngest(w.admin(), "dataset", d.urn, "glossaryTerms", map[string]any{
			"terms":      []map[string]string{{"urn": w.terms[0]}},
			"auditStamp": map[string]any{"time": 0, "actor": "urn:li:corpuser:unknown"},
		})
	}
	w.terms = []string{w.newDataset().urn}
	return w.mustIngest(w.admin(), "dataset", d.urn, "upstreamLineage", map[string]any{
		"upstreams": []map[string]any{{"dataset": w.terms[0], "type": "TRANSFORMED",
			"auditStamp": map[string]any{"time": 0, "actor": "urn:li:corpuser:unknown"}}},
	})
}

// termsOrUpstreamsOf are the URNs of urn's glossary terms or upstreams.
func (w *world) termsOrUpstreamsOf(urn, aspect string) ([]string, error) {
	var v struct {
		Terms []struct {
			URN string `json:"urn"`
		} `json:"terms"`
		Upstreams []struct {
			Dataset string `json:"dataset"`
		} `json:"upstreams"`
	}
	if _, err := w.aspectOf(urn, aspect, &v); err != nil {
		return nil, err
	}
	out := []string{}
	for _, t := range v.Terms {
		out = append(out, t.URN)
	}
	for _, u := range v.Upstreams {
		out = append(out, u.Dataset)
	}
	return out, nil
}

func patchesTermOrUpstream(ctx context.Context, name, what, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	b := sdkclient.NewDatasetPatchBuilder(d.urn)
	aspect := "glossaryTerms"
	if what == "another glossary term" {
		w.terms = append(w.terms[:1], "urn:li:glossaryTerm:"+w.unique("term"))
		b.AddTerm(w.terms[1])
	} else {
		aspect = "upstreamLineage"
		w.terms = append(w.terms[:1], w.newDataset().urn)
		b.AddUpstreamLineage(w.terms[1], "TRANSFORMED")
	}
	first := w.terms[0]
	a := w.sendPatch(c, tierGMS, path, b)
	a.noEffect = func() error {
		got, err := w.termsOrUpstreamsOf(d.urn, aspect)
		if err != nil {
			return err
		}
		if !slices.Equal(got, []string{first}) {
			return w.fail("%s's %s is %v after a refused patch", d.urn, aspect, got)
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

func termsOrUpstreamsAre(ctx context.Context, what string) error {
	w := theWorld(ctx)
	if err := w.patched(); err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	aspect := "glossaryTerms"
	if strings.HasPrefix(what, "upstreams") {
		aspect = "upstreamLineage"
	}
	got, err := w.termsOrUpstreamsOf(d.urn, aspect)
	if err != nil {
		return err
	}
	if !slices.Equal(got, w.terms) {
		return w.fail("%s's %s is %v, expected %v", d.urn, aspect, got, w.terms)
	}
	return nil
}

func sendsFlawedPatch(ctx context.Context, name, flaw string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	good := sdkclient.PatchOp("add", []string{"tags", w.tagURN()}, sdkclient.Obj{{Key: "tag", Value: "urn:li:tag:x"}})
	var ops []any
	switch flaw {
	case "with an operation JSON Patch does not have":
		ops = []any{good, sdkclient.Obj{{Key: "op", Value: "merge"}, {Key: "path", Value: "/tags"}, {Key: "value", Value: sdkclient.Obj{}}}}
	case "that is not a list of operations":
		mcp := sdkclient.MCP{EntityURN: d.urn, ChangeType: "PATCH", AspectName: "globalTags"}
		body := strings.Replace(string(sdkclient.IngestProposalBody(mcp, false)), `"value": "[]"`, `"value": "{\"op\": \"add\"}"`, 1)
		if !strings.Contains(body, `{\"op\": \"add\"}`) {
			return w.fail("the proposal of an empty patch is not as expected: %s", body)
		}
		a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.IngestProposalPath(), []byte(body))
		a.what = fmt.Sprintf("%s patching %s with an object that is not a list of operations", name, d.urn)
		a.noEffect = w.tagsUnchanged
		w.last = a
		return w.checkpoint()
	case "whose path does not start with a slash":
		ops = []any{good, sdkclient.Obj{{Key: "op", Value: "add"}, {Key: "path", Value: "tags/urn:li:tag:y"}, {Key: "value", Value: sdkclient.Obj{{Key: "tag", Value: "urn:li:tag:y"}}}}}
	case "through OpenAPI without its patch":
		req := sdkclient.OpenAPIWrite(sdkclient.MCP{EntityURN: d.urn, ChangeType: "PATCH", AspectName: "globalTags", Patch: []any{good}}, false)
		body := strings.Replace(string(req.Body), `"value": {"patch": `, `"value": {"operations": `, 1)
		a := w.sdkSend(c, req.Method, c.gms+req.Path, []byte(body))
		a.what = fmt.Sprintf("%s patching %s through OpenAPI without \"patch\"", name, d.urn)
		a.noEffect = w.tagsUnchanged
		w.last = a
		return w.checkpoint()
	}
	mcp := sdkclient.MCP{EntityURN: d.urn, ChangeType: "PATCH", AspectName: "globalTags", Patch: ops}
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.IngestProposalPath(), sdkclient.IngestProposalBody(mcp, false))
	a.what = fmt.Sprintf("%s patching %s %s", name, d.urn, flaw)
	a.noEffect = w.tagsUnchanged
	w.last = a
	return w.checkpoint()
}

func sendsEightPatches(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	w.eightNew = make([]string, 8)
	for i := range w.eightNew {
		w.eightNew[i] = w.tagURN()
	}
	answers := make([]*answer, len(w.eightNew))
	var wg sync.WaitGroup
	for i, tag := range w.eightNew {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "Rest.li"
			if i%2 == 1 {
				path = "OpenAPI"
			}
			answers[i] = w.sendPatch(c, tierGMS, path, sdkclient.NewDatasetPatchBuilder(d.urn).AddTag(tag))
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if err := w.acknowledged(a); err != nil {
			return err
		}
	}
	w.last = answers[len(answers)-1]
	return w.checkpoint()
}

func datasetHoldsNine(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	got, err := w.tagsOf(d.urn)
	if err != nil {
		return err
	}
	want := append(slices.Clone(w.tags[:1]), w.eightNew...)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return w.fail("%s holds %d tags %v after eight patches sent at once, expected the %d tags %v: a patch was lost", d.urn, len(got), got, len(want), want)
	}
	return nil
}
