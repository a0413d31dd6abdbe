package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/catalogspec/catalogspec/sdkclient"
)

// aspectTiers names the aspect path of either tier in a step.
const aspectTiers = `through the ` + tiers + ` aspect path`

// registerRestLiSteps registers the steps of features/restli.feature.
func registerRestLiSteps(s stepRegistrar) {
	s.Step(`^`+who+` reads the dataset's (properties|key) `+aspectTiers+`$`, readsDatasetAspect)
	s.Step(`^`+who+` reads (the key of a dataset no one has written|the ownership of a dataset that has none) `+aspectTiers+`$`, readsMissingAspect)
	s.Step(`^the answer holds the dataset's (description|platform, name and origin) under (com\.linkedin\.[\w.]+)$`, answerHoldsAspect)
	s.Step(`^`+who+` reads an aspect (by a malformed URN|without naming it) through the metadata service's aspect path$`, readsBadAspect)
	s.Step(`^`+who+` reads (the dataset|the dataset's properties and ownership|a dataset no one has written) through the `+tiers+` v2 entity path$`, readsDatasetV2)
	s.Step(`^the answer names the dataset and holds its properties, institutional memory and key, each with its value$`, answerNamesDatasetWithAll)
	s.Step(`^the answer holds the dataset's properties and its key, and no aspect but those asked for$`, answerHoldsOnlyAskedFor)
	s.Step(`^the answer shows no aspect of it but its key$`, answerShowsOnlyKey)
	s.Step(`^`+who+` reads the dataset and (a dataset no one has written|the other dataset) in a batch through the v2 entity path$`, readsBatchV2)
	s.Step(`^the batch's results hold the dataset with its properties, institutional memory and key, and no aspect of the other but its key$`, batchResultsHold)
	s.Step(`^the answer is the dataset's key aspect alone$`, answerIsKeyAlone)
	s.Step(`^`+who+` writes a batch of proposals for two new datasets(?: through the (metadata service|frontend))?$`, writesBatch)
	s.Step(`^`+who+` writes a batch of proposals for two new datasets for asynchronous ingestion$`, writesAsyncBatch)
	s.Step(`^`+who+` writes a batch of proposals of more than a MiB for two new datasets$`, writesLargeBatch)
	s.Step(`^`+who+` writes a batch of proposals for that dataset and another new dataset$`, writesBatchForThatDataset)
	s.Step(`^`+who+` writes a batch of proposals for two new datasets, the second description not being text$`, writesBatchWithBadValue)
	s.Step(`^the batch is acknowledged$`, batchAcknowledged)
	s.Step(`^`+who+` writes a batch of proposals that describes a new dataset twice, differently$`, writesBatchDescribingTwice)
	s.Step(`^someone without a token (reads an aspect|reads an entity|writes a batch) through the (metadata service|frontend)$`, anonymousRestli)
	s.Step(`^`+who+` puts a description for a new dataset as the datahub CLI does$`, putsDescription)
	s.Step(`^the configuration names no DataHub version, or one DataHub's SDK can read$`, configVersionReadable)
}

// restli.feature: get_aspect and exists() (GET /aspects/<urn>),
// get_entity_raw (GET /entitiesV2/<urn>) and emit_mcps on Rest.li
// (POST /aspects?action=ingestProposalBatch), as DataHub's SDK sends them.

// readAspect reads urn's aspect through the tier's aspect path as c, as
// get_aspect does.
func (w *world) readAspect(c caller, tier, urn, aspect string) *answer {
	a := w.sdkSend(c, http.MethodGet, base(c, tier)+sdkclient.AspectPath(urn, aspect, 0), nil)
	a.what = fmt.Sprintf("%s reading the %s of %s through the %s aspect path", c.name, aspect, urn, tier)
	a.subject = urn
	a.noEffect = nothingToCheck
	return a
}

// readEntityV2 reads urn through the tier's v2 entity path as c, as
// get_entity_raw does (aspects nil: all of them).
func (w *world) readEntityV2(c caller, tier, urn string, aspects []string) *answer {
	a := w.sdkSend(c, http.MethodGet, base(c, tier)+sdkclient.EntityV2Path(urn, aspects), nil)
	a.what = fmt.Sprintf("%s reading %s through the %s v2 entity path", c.name, urn, tier)
	if aspects != nil {
		a.what += " asking for " + strings.Join(aspects, " and ")
	}
	a.subject = urn
	a.noEffect = nothingToCheck
	return a
}

// writeBatch sends the scenario's batch as c to the tier, as emit_mcps
// does on Rest.li; a refusal must leave none of it stored.
func (w *world) writeBatch(c caller, tier string) *answer {
	a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.IngestProposalBatchPath(), sdkclient.IngestProposalBatchBody(w.mcps(), w.batchAsync))
	a.what = fmt.Sprintf("%s writing a batch of %d proposals through the %s", c.name, len(w.batch), tier)
	a.noEffect = func() error { return w.batchStored(false) }
	return a
}

// twoDatasetsBatch is the batch the scenarios write: the description of
// two datasets and the institutional memory of the first.
func (w *world) twoDatasetsBatch(first, second *datasetRecord) []batchItem {
	return []batchItem{propertiesItem(first), w.memoryItem(first), propertiesItem(second)}
}

// Steps.

func readsDatasetAspect(ctx context.Context, name, which, tier string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	aspect := map[string]string{"properties": "datasetProperties", "key": "datasetKey"}[which]
	w.last = w.readAspect(c, tier, d.urn, aspect)
	return w.checkpoint()
}

func readsMissingAspect(ctx context.Context, name, what, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	aspect := "datasetKey"
	if strings.HasPrefix(what, "the ownership") {
		aspect = "ownership"
		if err := w.mustIngest(w.admin(), "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description, CustomProperties: map[string]string{}}); err != nil {
			return err
		}
	}
	w.last = w.readAspect(c, tier, d.urn, aspect)
	return w.checkpoint()
}

// answerHoldsAspect checks the answer as get_aspect reads it: 200, a JSON
// object whose "aspect" holds the aspect under its record's full name.
func answerHoldsAspect(ctx context.Context, what, class string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	want := map[string]string{"description": "com.linkedin.dataset.DatasetProperties", "platform, name and origin": "com.linkedin.metadata.key.DatasetKey"}[what]
	if class != want {
		return w.fail("the step names %s for the dataset's %s, which is in %s (a defect of the feature)", class, what, want)
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var body struct {
		Aspect map[string]json.RawMessage `json:"aspect"`
	}
	if err := a.jsonBody(&body); err != nil {
		return w.fail("%s: %v (get_aspect reads an object with an \"aspect\" object)", a.what, err)
	}
	raw, ok := body.Aspect[class]
	if !ok {
		return w.fail("%s holds no aspect.%s: DataHub's SDK raises \"Failed to find %s in response\"", a.what, class, class)
	}
	switch what {
	case "description":
		var p datasetProperties
		if err := json.Unmarshal(raw, &p); err != nil || p.Description != d.description {
			return w.fail("%s: aspect.%s is %s, expected the description %q", a.what, class, raw, d.description)
		}
	default:
		return w.keyNames(a, raw, d.urn)
	}
	return nil
}

// keyNames checks that a DatasetKey value names the dataset's platform,
// name and origin.
func (w *world) keyNames(a *answer, raw json.RawMessage, urn string) error {
	var key struct {
		Platform string `json:"platform"`
		Name     string `json:"name"`
		Origin   string `json:"origin"`
	}
	if err := json.Unmarshal(raw, &key); err != nil {
		return w.fail("%s: the key %s is not a DatasetKey: %v", a.what, raw, err)
	}
	if got := fmt.Sprintf("urn:li:dataset:(%s,%s,%s)", key.Platform, key.Name, key.Origin); got != urn {
		return w.fail("%s: the key names platform %q, name %q and origin %q, which make %s, not %s", a.what, key.Platform, key.Name, key.Origin, got, urn)
	}
	return nil
}

func readsBadAspect(ctx context.Context, name, flaw string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	path := "/aspects/" + sdkclient.URLEncode("urn:li:dataset:") + "?aspect=datasetProperties&version=0"
	if flaw == "without naming it" {
		path = "/aspects/" + sdkclient.URLEncode(w.newDataset().urn) + "?version=0"
	}
	a := w.sdkSend(c, http.MethodGet, c.gms+path, nil)
	a.what = fmt.Sprintf("%s reading an aspect %s", name, flaw)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func readsDatasetV2(ctx context.Context, name, which, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	var aspects []string
	switch which {
	case "a dataset no one has written":
		w.dataset = w.newDataset()
	case "the dataset's properties and ownership":
		aspects = []string{"datasetProperties", "ownership"}
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	w.last = w.readEntityV2(c, tier, d.urn, aspects)
	return w.checkpoint()
}

// entityResponse is an EntityResponse as get_entity_raw's callers read it.
type entityResponse struct {
	URN     string `json:"urn"`
	Aspects map[string]struct {
		Value json.RawMessage `json:"value"`
	} `json:"aspects"`
}

func (w *world) entityResponse(a *answer) (*entityResponse, error) {
	if a.status != http.StatusOK {
		return nil, w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var e entityResponse
	if err := a.jsonBody(&e); err != nil {
		return nil, w.fail("%s: %v (get_entity_raw's callers read an object whose aspects map names to objects)", a.what, err)
	}
	return &e, nil
}

// holdsAll checks that the aspects hold the batch's aspects (the scenario's
// dataset's properties and memory) and the key, each with its value.
func (w *world) holdsAll(a *answer, urn string, aspects map[string]json.RawMessage) error {
	for _, b := range w.batch {
		raw, ok := aspects[b.mcp.AspectName]
		if !ok || len(raw) == 0 || string(raw) == "null" {
			return w.fail("%s holds no value of %s", a.what, b.mcp.AspectName)
		}
		if !b.shows(raw) {
			return w.fail("%s: %s is %s, not what was written", a.what, b.mcp.AspectName, raw)
		}
	}
	key, ok := aspects["datasetKey"]
	if !ok {
		return w.fail("%s holds no value of datasetKey", a.what)
	}
	return w.keyNames(a, key, urn)
}

func answerNamesDatasetWithAll(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	e, err := w.entityResponse(a)
	if err != nil {
		return err
	}
	if e.URN != d.urn {
		return w.fail("%s names %q, expected %q", a.what, e.URN, d.urn)
	}
	values := map[string]json.RawMessage{}
	for n, v := range e.Aspects {
		values[n] = v.Value
	}
	return w.holdsAll(a, d.urn, values)
}

func answerHoldsOnlyAskedFor(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	e, err := w.entityResponse(a)
	if err != nil {
		return err
	}
	for n := range e.Aspects {
		if n != "datasetProperties" && n != "ownership" && n != "datasetKey" {
			return w.fail("%s holds %s, which was not asked for", a.what, n)
		}
	}
	p, ok := e.Aspects["datasetProperties"]
	if !ok || !propertiesItem(d).shows(p.Value) {
		return w.fail("%s does not hold the dataset's properties with its description %q", a.what, d.description)
	}
	// DataHub adds the key to the aspects asked for when they do not name
	// it (EntityServiceImpl.getCorrespondingAspects), and the SDK counts on
	// it ("The entity's key aspect will always be present").
	if _, ok := e.Aspects["datasetKey"]; !ok {
		return w.fail("%s does not hold the dataset's key (datasetKey), which DataHub adds to the aspects asked for", a.what)
	}
	return nil
}

// answerShowsOnlyKey: a URN never written is 404, or (as DataHub answers
// it) 200 with no aspect but its key; answerIsKeyAlone asks for the latter.
func answerShowsOnlyKey(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status == http.StatusNotFound {
		return nil
	}
	return w.onlyKey(a, false)
}

func answerIsKeyAlone(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.onlyKey(a, true)
}

// onlyKey checks a 200 whose aspects are the dataset's key at most (with
// keyNeeded, exactly).
func (w *world) onlyKey(a *answer, keyNeeded bool) error {
	e, err := w.entityResponse(a)
	if err != nil {
		return err
	}
	for n, v := range e.Aspects {
		if n != "datasetKey" {
			return w.fail("%s holds %s for a dataset no one has written", a.what, n)
		}
		if err := w.keyNames(a, v.Value, w.dataset.urn); err != nil {
			return err
		}
	}
	if _, ok := e.Aspects["datasetKey"]; keyNeeded && !ok {
		return w.fail("%s holds no key aspect, which DataHub's SDK counts on (get_entity_semityped: \"The entity's key aspect will always be present\")", a.what)
	}
	return nil
}

// readsBatchV2 reads the dataset and another (never written) in one
// request, as `datahub migrate` does (batch_get_ids, cli/migrate.py).
func readsBatchV2(ctx context.Context, name, other string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	var urns []string
	if other == "a dataset no one has written" || w.other == "" {
		w.other = w.newDataset().urn
		urns = []string{d.urn, w.other}
	} else {
		// The one that may be read first: a check of the first alone lets
		// the batch through.
		urns = []string{w.other, d.urn}
	}
	a := w.sdkSend(c, http.MethodGet, c.gms+sdkclient.EntitiesV2Path(urns), nil)
	a.what = fmt.Sprintf("%s reading %s and %s in a batch through the v2 entity path", name, d.urn, w.other)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// batchResultsHold checks the answer as `datahub migrate` reads it: 200,
// "results" by URN, each an EntityResponse; the dataset with all it holds,
// the other with its key at most.
func batchResultsHold(ctx context.Context) error {
	w := theWorld(ctx)
	a, d, err := w.okAnswerOfTheDataset("batch_get_ids yields nothing otherwise")
	if err != nil {
		return err
	}
	var body struct {
		Results map[string]entityResponse `json:"results"`
	}
	if err := a.jsonBody(&body); err != nil || body.Results == nil {
		return w.fail("%s has no \"results\" object of entities (batch_get_ids reads results[\"results\"]): %v", a.what, err)
	}
	e, ok := body.Results[d.urn]
	if !ok || e.URN != d.urn {
		return w.fail("%s has no result for %s", a.what, d.urn)
	}
	values := map[string]json.RawMessage{}
	for n, v := range e.Aspects {
		values[n] = v.Value
	}
	if err := w.holdsAll(a, d.urn, values); err != nil {
		return err
	}
	for n, v := range body.Results[w.other].Aspects {
		if n != "datasetKey" {
			return w.fail("%s holds %s for %s, which no one has written", a.what, n, w.other)
		}
		if err := w.keyNames(a, v.Value, w.other); err != nil {
			return err
		}
	}
	return nil
}

func writesBatch(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.batch = w.twoDatasetsBatch(w.newDataset(), w.newDataset())
	w.last = w.writeBatch(c, tierOrGMS(tier))
	return w.checkpoint()
}

// tierOrGMS is the tier a step names, the metadata service when none.
func tierOrGMS(tier string) string {
	if tier == "" {
		return "metadata service"
	}
	return tier
}

// largeDatasets are two new datasets whose descriptions make a batch of
// more than a MiB, which DataHub's SDK sends (it sizes batches up to
// 15 MiB).
func (w *world) largeDatasets() (*datasetRecord, *datasetRecord) {
	first, second := w.newDataset(), w.newDataset()
	first.description += " " + strings.Repeat("large ", 120_000)
	second.description += " " + strings.Repeat("large ", 120_000)
	return first, second
}

func writesLargeBatch(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.batch = w.twoDatasetsBatch(w.largeDatasets())
	w.last = w.writeBatch(c, "metadata service")
	return w.checkpoint()
}

func writesAsyncBatch(ctx context.Context, name string) error {
	w := theWorld(ctx)
	w.batchAsync = true
	return writesBatch(ctx, name, "")
}

func writesBatchForThatDataset(ctx context.Context, name string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.batch = w.twoDatasetsBatch(d, w.newDataset())
	w.last = w.writeBatch(c, "metadata service")
	return w.checkpoint()
}

// writesBatchWithBadValue: the second dataset's description is a number,
// which DatasetProperties does not allow.
func writesBatchWithBadValue(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.batch = w.twoDatasetsBatch(w.newDataset(), w.newDataset())
	w.batch[2].mcp.Aspect = sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "description", Value: 42}, {Key: "tags", Value: []any{}}}
	w.last = w.writeBatch(c, "metadata service")
	return w.checkpoint()
}

// writesBatchDescribingTwice writes, on Rest.li, a batch naming a new
// dataset's description twice (describedTwiceBatch).
func writesBatchDescribingTwice(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.dataset = w.newDataset()
	w.batch = w.describedTwiceBatch(w.dataset, w.newDataset())
	w.last = w.writeBatch(c, "metadata service")
	return w.checkpoint()
}

func batchAcknowledged(ctx context.Context) error { return writeAcknowledged(ctx) }

func anonymousRestli(ctx context.Context, does, tier string) error {
	w := theWorld(ctx)
	c := w.anonymous()
	var a *answer
	switch does {
	case "reads an aspect":
		a = w.readAspect(c, tier, runner.RootUser, "corpUserKey")
	case "reads an entity":
		a = w.readEntityV2(c, tier, runner.RootUser, nil)
	case "writes a batch":
		w.batch = w.twoDatasetsBatch(w.newDataset(), w.newDataset())
		a = w.writeBatch(c, tier)
	default:
		return w.fail("unknown request %q", does)
	}
	a.what = fmt.Sprintf("someone without a token who %s through the %s", does, tier)
	w.last = a
	return w.checkpoint()
}

// putsDescription sends what `datahub put` sends (post_entity,
// cli/cli_utils.py): POST /aspects/?action=ingestProposal, the proposal's
// fields in the order post_entity writes them, "async": "false".
func putsDescription(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	body := sdkclient.Dumps(sdkclient.Obj{
		{Key: "proposal", Value: sdkclient.Obj{
			{Key: "entityType", Value: "dataset"},
			{Key: "entityUrn", Value: d.urn},
			{Key: "aspectName", Value: "datasetProperties"},
			{Key: "changeType", Value: "UPSERT"},
			{Key: "aspect", Value: sdkclient.Obj{{Key: "contentType", Value: "application/json"}, {Key: "value", Value: string(sdkclient.Dumps(sdkclient.Obj{{Key: "description", Value: d.description}}))}}},
		}},
		{Key: "async", Value: "false"},
	})
	a := w.sdkSend(c, http.MethodPost, c.gms+"/aspects/?action=ingestProposal", body)
	a.what = name + " putting a description as `datahub put` does"
	a.subject = d.urn
	a.noEffect = func() error { return w.datasetAbsent(d) }
	w.last = a
	return w.checkpoint()
}

func configVersionReadable(ctx context.Context) error {
	w := theWorld(ctx)
	v, err := w.configVersion()
	if err != nil || v == "" {
		return err
	}
	if !versionShape.MatchString(v) {
		return w.fail(`/config names the DataHub version %q, which DataHub's SDK cannot read (RestServiceConfig._parse_version raises "Invalid version format")`, v)
	}
	return nil
}
