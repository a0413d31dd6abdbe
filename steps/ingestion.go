package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// registerIngestionSteps registers the steps of features/ingestion.feature.
func registerIngestionSteps(s stepRegistrar) {
	s.Step(`^`+who+` ingests a description for (a new dataset|that dataset|another new dataset)( through the frontend)?$`, ingestsDescription)
	s.Step(`^the ingestion is acknowledged$`, ingestionAcknowledged)
	s.Step(`^`+who+` has ingested a description for a new dataset$`, hasIngestedDescription)
	s.Step(`^`+who+` ingests another description for that dataset$`, ingestsAnotherDescription)
	s.Step(`^`+who+` ingests a description for a new dataset in a proposal `+malformationNames+`$`, ingestsMalformed)
	s.Step(`^the answer is a refusal of a bad request$`, refusedAsBadRequest)
	s.Step(`^`+who+` ingests the properties of a new tag$`, ingestsTagProperties)
	s.Step(`^the dataset's key aspect names its platform, name and origin$`, datasetKeyReadsBack)
	s.Step(`^the tag's key aspect names its id$`, tagKeyReadsBack)
	s.Step(`^the administrator ingests only the info of a new user$`, adminIngestsOnlyUserInfo)
	s.Step(`^the user's key aspect names their username$`, userKeyReadsBack)
	s.Step(`^`+who+` ingests the institutional memory of a new dataset$`, ingestsInstitutionalMemory)
	s.Step(`^the dataset's institutional memory reads back through the `+tiers+` entity path$`, institutionalMemoryReadsBack)
	s.Step(`^the dataset's description reads back through the `+tiers+` entity path$`, datasetDescriptionReadsBack)
	s.Step(`^nothing was stored for the dataset$`, nothingStoredForDataset)
	s.Step(`^`+who+` proposes to DELETE the dataset's description$`, sendsDeleteProposal)
	s.Step(`^the description is gone if the proposal was acknowledged, and still there if it was refused$`, deleteAnsweredTruthfully)
	s.Step(`^someone without a token reads the server configuration$`, someoneReadsServerConfig)
	s.Step(`^the configuration says the server takes ingestion from DataHub's own clients$`, configTakesIngestion)
}

// datasetState is the dataset a scenario writes, or means to.
type datasetState struct {
	dataset *datasetRecord
	newUser *person // a user made by ingestion in the scenario's When
}

// proposal is the body of POST /aspects?action=ingestProposal: one aspect
// of one entity, upserted, its value as JSON text.
type proposal struct {
	Proposal proposalBody `json:"proposal"`
}

type proposalBody struct {
	EntityType string      `json:"entityType"`
	EntityURN  string      `json:"entityUrn"`
	ChangeType string      `json:"changeType"`
	AspectName string      `json:"aspectName"`
	Aspect     aspectValue `json:"aspect"`
}

type aspectValue struct {
	Value       string `json:"value"`
	ContentType string `json:"contentType"`
}

// restliHeaders are the headers DataHub's ingestion clients send.
var restliHeaders = map[string]string{"X-RestLi-Protocol-Version": "2.0.0"}

// ingest sends a proposal that upserts the aspect as c to the metadata
// service at base (the GMS, or the frontend's /api/gms).
func (w *world) ingest(c caller, base, entityType, urn, aspectName string, value any) *answer {
	text, err := json.Marshal(value)
	if err != nil {
		w.addFailure(fmt.Sprintf("encoding the aspect %s: %v", aspectName, err))
	}
	body := proposal{Proposal: proposalBody{
		EntityType: entityType, EntityURN: urn, ChangeType: "UPSERT", AspectName: aspectName,
		Aspect: aspectValue{Value: string(text), ContentType: "application/json"},
	}}
	a := w.sendJSON(c, base+"/aspects?action=ingestProposal", body, restliHeaders)
	a.what = fmt.Sprintf("%s ingesting %s of %s", c.name, aspectName, urn)
	a.subject = urn
	return a
}

// mustIngest ingests as c at c's metadata service; it must succeed.
func (w *world) mustIngest(c caller, entityType, urn, aspectName string, value any) error {
	a := w.ingest(c, c.gms, entityType, urn, aspectName, value)
	return w.ingested(a, urn)
}

// ingested checks that a is the answer to a successful ingestion of urn.
func (w *world) ingested(a *answer, urn string) error {
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var body struct {
		Value string `json:"value"`
	}
	if err := a.jsonBody(&body); err != nil {
		return w.failed(err)
	}
	// Current DataHub answers "success"; older releases, and the reference,
	// the entity's URN (SPEC.md, Ingestion). Either acknowledges the write.
	if body.Value != urn && body.Value != "success" {
		return w.fail("%s answered value %q, expected \"success\" or the URN %q", a.what, body.Value, urn)
	}
	return nil
}

// datasetRecord is a dataset a scenario writes, or means to.
type datasetRecord struct {
	urn         string
	description string
}

func (w *world) newDataset() *datasetRecord {
	name := w.unique("dataset")
	return &datasetRecord{
		urn:         fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,%s,PROD)", name),
		description: "Described by the catalogspec scenario " + name,
	}
}

// datasetProperties is the datasetProperties aspect the suite writes.
type datasetProperties struct {
	Description      string            `json:"description"`
	CustomProperties map[string]string `json:"customProperties"`
}

// attemptIngestDescription sends d's description as c to base.
func (w *world) attemptIngestDescription(c caller, base string, d *datasetRecord) *answer {
	a := w.ingest(c, base, "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description, CustomProperties: map[string]string{}})
	a.noEffect = func() error { return w.datasetAbsent(d) }
	return a
}

// datasetAbsent checks that no description was stored for d: the entity
// path does not find d (the reference), or finds it without properties
// (DataHub answers a URN never written with its key aspect alone).
func (w *world) datasetAbsent(d *datasetRecord) error {
	a := w.readEntity(w.reader(), tierGMS, d.urn, false)
	return w.aspectAbsent(a, "DatasetSnapshot", "com.linkedin.dataset.DatasetProperties")
}

// aspectAbsent checks that an entity path's answer a holds no aspect of the
// class: a 404, or a snapshot of the kind without it.
func (w *world) aspectAbsent(a *answer, kind, class string) error {
	if a.status == http.StatusNotFound {
		return nil
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200 or 404", a.what, a.status)
	}
	s, err := w.snapshotOf(a, kind)
	if err != nil {
		return err
	}
	for _, asp := range s.Aspects {
		if _, ok := asp[class]; ok {
			return w.fail("%s shows %s: something was stored", a.what, class)
		}
	}
	return nil
}

// Steps.

func ingestsDescription(ctx context.Context, name, which, through string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	switch which {
	case "a new dataset", "another new dataset":
		w.dataset = w.newDataset()
	case "that dataset":
		if w.dataset == nil {
			return w.fail("no dataset was named before")
		}
	}
	base := c.gms
	if through != "" {
		base = c.frontend + "/api/gms"
	}
	w.last = w.attemptIngestDescription(c, base, w.dataset)
	return w.checkpoint()
}

func ingestionAcknowledged(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.ingested(a, a.subject)
}

func datasetDescriptionReadsBack(ctx context.Context, tier string) error {
	w := theWorld(ctx)
	if w.dataset == nil {
		return w.fail("no dataset was written")
	}
	a := w.readEntity(w.reader(), tier, w.dataset.urn, false)
	s, err := w.snapshotOf(a, "DatasetSnapshot")
	if err != nil {
		return err
	}
	var props datasetProperties
	if err := w.aspect(s, "com.linkedin.dataset.DatasetProperties", &props); err != nil {
		return err
	}
	if props.Description != w.dataset.description {
		return w.fail("%s: DatasetProperties.description is %q, expected %q", a.what, props.Description, w.dataset.description)
	}
	return nil
}

func nothingStoredForDataset(ctx context.Context) error {
	w := theWorld(ctx)
	if w.dataset == nil {
		return w.fail("no dataset was meant to be written")
	}
	return w.datasetAbsent(w.dataset)
}

// someoneReadsServerConfig reads GET /config, which ingestion clients ask
// before they send anything and which needs no token.
func someoneReadsServerConfig(ctx context.Context) error {
	w := theWorld(ctx)
	c := w.anonymous()
	a := w.send(c, request{method: http.MethodGet, url: c.gms + "/config"})
	a.what = "someone without a token reading /config"
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// configTakesIngestion checks what DataHub's clients check: a 200 JSON
// answer with "noCode": "true" (a string).
func configTakesIngestion(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200 without a token", a.what, a.status)
	}
	var cfg map[string]any
	if err := json.Unmarshal(a.body, &cfg); err != nil {
		return w.fail("%s is not a JSON object: %v", a.what, err)
	}
	if cfg["noCode"] != "true" {
		return w.fail(`%s has "noCode": %v, expected the string "true"`, a.what, cfg["noCode"])
	}
	return nil
}

// malformations are the ways a proposal can be malformed, and what each
// does to a well-formed one.
var malformations = map[string]func(*proposalBody){
	"whose entity type is not the URN's":      func(p *proposalBody) { p.EntityType = "tag" },
	"whose aspect value is not JSON":          func(p *proposalBody) { p.Aspect.Value = `{"description": ` },
	"whose aspect value is not a JSON object": func(p *proposalBody) { p.Aspect.Value = `["a", "list"]` },
	"without an aspect":                       nil, // the aspect field is left out
	"whose aspect content type is not JSON":   func(p *proposalBody) { p.Aspect.ContentType = "text/plain" },
}

// malformationNames is the step pattern's group that names a malformation.
var malformationNames = func() string {
	names := make([]string, 0, len(malformations))
	for n := range malformations {
		names = append(names, regexp.QuoteMeta(n))
	}
	slices.Sort(names)
	return "(" + strings.Join(names, "|") + ")"
}()

func ingestsMalformed(ctx context.Context, name, how string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	text, _ := json.Marshal(datasetProperties{Description: d.description, CustomProperties: map[string]string{}})
	p := proposalBody{EntityType: "dataset", EntityURN: d.urn, ChangeType: "UPSERT", AspectName: "datasetProperties",
		Aspect: aspectValue{Value: string(text), ContentType: "application/json"}}
	var body any
	if f := malformations[how]; f != nil {
		f(&p)
		body = proposal{Proposal: p}
	} else {
		body = map[string]any{"proposal": map[string]any{"entityType": p.EntityType, "entityUrn": p.EntityURN, "changeType": p.ChangeType, "aspectName": p.AspectName}}
	}
	a := w.sendJSON(c, c.gms+"/aspects?action=ingestProposal", body, restliHeaders)
	a.what = fmt.Sprintf("%s ingesting a proposal %s", name, how)
	a.noEffect = func() error { return w.datasetAbsent(d) }
	w.last = a
	return w.checkpoint()
}

// refusedAsBadRequest checks a refusal of malformed input: 400, or 422 as
// Rest.li answers a proposal that fails validation, and no effect.
func refusedAsBadRequest(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusBadRequest && a.status != http.StatusUnprocessableEntity {
		return w.fail("%s answered status %d, expected 400 (or 422)", a.what, a.status)
	}
	return w.noEffect(a)
}

func ingestsTagProperties(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	t := w.newTag()
	w.tag = t
	w.undoTag(t)
	a := w.ingest(c, c.gms, "tag", t.urn, "tagProperties", map[string]string{"name": t.name, "description": t.description})
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.last = a
	return w.checkpoint()
}

// institutionalMemory is the institutionalMemory aspect the suite writes.
type institutionalMemory struct {
	Elements []memoryElement `json:"elements"`
}

type memoryElement struct {
	URL         string `json:"url"`
	Description string `json:"description"`
	CreateStamp struct {
		Time  int64  `json:"time"`
		Actor string `json:"actor"`
	} `json:"createStamp"`
}

func ingestsInstitutionalMemory(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	e := memoryElement{URL: "https://example.com/" + w.unique("doc"), Description: d.description}
	e.CreateStamp.Time, e.CreateStamp.Actor = time.Now().UnixMilli(), p.urn
	a := w.ingest(c, c.gms, "dataset", d.urn, "institutionalMemory", institutionalMemory{Elements: []memoryElement{e}})
	a.noEffect = func() error { return w.datasetAbsent(d) }
	w.last = a
	return w.checkpoint()
}

func institutionalMemoryReadsBack(ctx context.Context, tier string) error {
	w := theWorld(ctx)
	if w.dataset == nil {
		return w.fail("no dataset was written")
	}
	a := w.readEntity(w.reader(), tier, w.dataset.urn, false)
	s, err := w.snapshotOf(a, "DatasetSnapshot")
	if err != nil {
		return err
	}
	var m institutionalMemory
	if err := w.aspect(s, "com.linkedin.common.InstitutionalMemory", &m); err != nil {
		return err
	}
	if len(m.Elements) != 1 || m.Elements[0].Description != w.dataset.description {
		return w.fail("%s: InstitutionalMemory is %+v, expected one element described %q", a.what, m, w.dataset.description)
	}
	return nil
}

func hasIngestedDescription(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.dataset = w.newDataset()
	a := w.attemptIngestDescription(c, c.gms, w.dataset)
	return w.ingested(a, w.dataset.urn)
}

func ingestsAnotherDescription(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if w.dataset == nil {
		return w.fail("no dataset was written before")
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.dataset.description = "Described again by the catalogspec scenario " + w.unique("again")
	w.last = w.attemptIngestDescription(c, c.gms, w.dataset)
	return w.checkpoint()
}

// datasetKeyReadsBack checks the key aspect ingestion gives a new dataset:
// DataHub writes an entity's key aspect with its first aspect, and shows it
// on the entity path like any other.
func datasetKeyReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	if w.dataset == nil {
		return w.fail("no dataset was written")
	}
	a := w.readEntity(w.reader(), tierGMS, w.dataset.urn, false)
	s, err := w.snapshotOf(a, "DatasetSnapshot")
	if err != nil {
		return err
	}
	var key struct {
		Platform string `json:"platform"`
		Name     string `json:"name"`
		Origin   string `json:"origin"`
	}
	if err := w.aspect(s, "com.linkedin.metadata.key.DatasetKey", &key); err != nil {
		return err
	}
	want := fmt.Sprintf("urn:li:dataset:(%s,%s,%s)", key.Platform, key.Name, key.Origin)
	if want != w.dataset.urn {
		return w.fail("%s: DatasetKey names platform %q, name %q, origin %q, which make %s, not %s", a.what, key.Platform, key.Name, key.Origin, want, w.dataset.urn)
	}
	return nil
}

// tagKeyReadsBack checks the key aspect ingestion gives a new tag.
func tagKeyReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	if w.tag == nil {
		return w.fail("no tag was written")
	}
	a := w.readEntity(w.reader(), tierGMS, w.tag.urn, false)
	s, err := w.snapshotOf(a, "TagSnapshot")
	if err != nil {
		return err
	}
	var key struct {
		Name string `json:"name"`
	}
	if err := w.aspect(s, "com.linkedin.metadata.key.TagKey", &key); err != nil {
		return err
	}
	if key.Name != w.tag.id {
		return w.fail("%s: TagKey names %q, expected the tag's id %q", a.what, key.Name, w.tag.id)
	}
	return nil
}

// adminIngestsOnlyUserInfo makes a user by ingesting its corpUserInfo alone,
// as a client that does not send key aspects would.
func adminIngestsOnlyUserInfo(ctx context.Context) error {
	w := theWorld(ctx)
	p := w.person("Ulla")
	w.newUser = p
	info := corpUserInfo{Active: true, DisplayName: p.name + " (catalogspec)", Email: p.username + "@example.com"}
	c := w.admin()
	a := w.ingest(c, c.gms, "corpuser", p.urn, "corpUserInfo", info)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// userKeyReadsBack checks the key aspect ingestion gave the new user.
func userKeyReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	if w.newUser == nil {
		return w.fail("no user was written")
	}
	a := w.readEntity(w.admin(), tierGMS, w.newUser.urn, false)
	s, err := w.snapshotOf(a, "CorpUserSnapshot")
	if err != nil {
		return err
	}
	var key struct {
		Username string `json:"username"`
	}
	if err := w.aspect(s, "com.linkedin.metadata.key.CorpUserKey", &key); err != nil {
		return err
	}
	if key.Username != w.newUser.username {
		return w.fail("%s: CorpUserKey names %q, expected %q", a.what, key.Username, w.newUser.username)
	}
	return nil
}

// sendsDeleteProposal asks, with changeType DELETE, for the dataset's
// properties to go. DataHub deletes the aspect; the reference refuses any
// change type but UPSERT. Either way the answer must tell the truth.
func sendsDeleteProposal(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	if w.dataset == nil {
		return w.fail("no dataset was written")
	}
	p := map[string]any{"entityType": "dataset", "entityUrn": w.dataset.urn, "changeType": "DELETE", "aspectName": "datasetProperties"}
	a := w.sendJSON(c, c.gms+"/aspects?action=ingestProposal", map[string]any{"proposal": p}, restliHeaders)
	a.what = name + " proposing to DELETE the dataset's properties"
	w.last = a
	return w.checkpoint()
}

// deleteAnsweredTruthfully: acknowledged and the properties gone, or refused
// (4xx) and the properties still there; never acknowledged with the
// properties kept.
func deleteAnsweredTruthfully(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	switch {
	case a.status >= 200 && a.status < 300:
		if err := w.datasetAbsent(w.dataset); err != nil {
			return w.fail("%s was acknowledged (status %d), but: %v", a.what, a.status, err)
		}
		return nil
	case a.status >= 400 && a.status < 500:
		return datasetDescriptionReadsBack(ctx, tierGMS)
	}
	return w.fail("%s answered status %d, expected a success that deleted it or a 4xx refusal", a.what, a.status)
}
