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

// registerOpenAPISteps registers the steps of features/openapi.feature.
func registerOpenAPISteps(s stepRegistrar) {
	s.Step(`^`+who+` writes a description for (a new dataset|that dataset|another new dataset) through OpenAPI(?: on the (metadata service|frontend))?$`, writesDescriptionOpenAPI)
	s.Step(`^`+who+` writes proposals for (two new datasets|two new datasets of more than a MiB|that dataset and another new dataset) in one request through OpenAPI( for asynchronous ingestion)?$`, writesProposalsOpenAPI)
	s.Step(`^the write is answered with the dataset and its properties$`, writeAnsweredWithDataset)
	s.Step(`^the write is acknowledged$`, writeAcknowledged)
	s.Step(`^`+who+` writes proposals that describe a new dataset twice, differently, in one request through OpenAPI$`, writesDescribingTwiceOpenAPI)
	s.Step(`^the write is answered with the dataset once, with its later description$`, answeredWithLaterDescription)
	s.Step(`^`+who+` reads (the dataset|the dataset's properties|the dataset in a batch|a dataset no one has written|the ownership of a dataset that has none) through OpenAPI$`, readsOpenAPI)
	s.Step(`^the OpenAPI answer names the dataset and holds its properties, institutional memory and key, each with its value$`, openAPIAnswerHoldsAll)
	s.Step(`^the OpenAPI answer is the dataset's properties with its description$`, openAPIAnswerIsProperties)
	s.Step(`^`+who+` reads the dataset's properties and a dataset no one has written in a batch through OpenAPI$`, readsBatchWithMissing)
	s.Step(`^the answer lists the dataset with its properties, and not the other$`, batchListsDatasetOnly)
	s.Step(`^`+who+` writes through OpenAPI a request (whose body is not JSON|holding an entity without a URN|naming a malformed URN|naming an aspect datasets do not have|sent to the path of another entity type|sent to the path of no entity type|whose description is not text)$`, writesFlawedOpenAPI)
	s.Step(`^the answer says in JSON why it was refused$`, answerSaysWhy)
	s.Step(`^`+who+` deletes the dataset through OpenAPI$`, deletesOpenAPI)
	s.Step(`^the deletion is acknowledged$`, writeAcknowledged)
	s.Step(`^`+who+` deletes (a dataset no one has written|a dataset `+pronoun+` has deleted already) through OpenAPI$`, deletesAbsentOpenAPI)
	s.Step(`^DataHub's SDK finds no such dataset$`, sdkFindsNoDataset)
	s.Step(`^someone without a token (writes|reads an entity|reads an aspect|reads a batch|deletes) through OpenAPI on the (metadata service|frontend)$`, anonymousOpenAPI)
	s.Step(`^the configuration names a DataHub version of 1\.0\.1 or later$`, configVersionAtLeast101)
}

// openapi.feature: emit_mcp and emit_mcps on the OpenAPI path (POST and
// DELETE /openapi/v3/entity/...), get_entities (POST .../batchGet), and the
// service's reads of one entity and one aspect, as DataHub's SDK and
// DataHub's OpenAPI v3 EntityController shape them.

// writeOpenAPI sends the scenario's batch as c, as emit_mcps does on the
// OpenAPI path: every proposal here is for a dataset, so one request.
func (w *world) writeOpenAPI(c caller, tier string) *answer {
	reqs := sdkclient.OpenAPIWrites(w.mcps(), w.batchAsync)
	if len(reqs) != 1 {
		w.addFailure(fmt.Sprintf("the batch makes %d OpenAPI requests, expected one", len(reqs)))
		return &answer{caller: c.name, header: http.Header{}}
	}
	a := w.sdkSend(c, reqs[0].Method, base(c, tier)+reqs[0].Path, reqs[0].Body)
	a.what = fmt.Sprintf("%s writing %d aspects through OpenAPI on the %s", c.name, len(w.batch), tier)
	a.noEffect = func() error { return w.batchStored(false) }
	return a
}

func writesDescriptionOpenAPI(ctx context.Context, name, which, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	switch which {
	case "a new dataset", "another new dataset":
		w.dataset = w.newDataset()
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	w.batch = []batchItem{propertiesItem(d)}
	w.last = w.writeOpenAPI(c, tierOrGMS(tier))
	return w.checkpoint()
}

func writesProposalsOpenAPI(ctx context.Context, name, which, async string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	first := w.newDataset()
	if which == "that dataset and another new dataset" {
		if first, err = w.theDataset(); err != nil {
			return err
		}
	}
	second := w.newDataset()
	if which == "two new datasets of more than a MiB" {
		first, second = w.largeDatasets()
	}
	w.batch = w.twoDatasetsBatch(first, second)
	w.batchAsync = async != ""
	w.last = w.writeOpenAPI(c, "metadata service")
	return w.checkpoint()
}

// writesDescribingTwiceOpenAPI writes, through OpenAPI, items naming a
// new dataset's description twice (describedTwiceBatch), one item per
// proposal as emit_mcps sends them.
func writesDescribingTwiceOpenAPI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.dataset = w.newDataset()
	w.batch = w.describedTwiceBatch(w.dataset, w.newDataset())
	w.last = w.writeOpenAPI(c, "metadata service")
	return w.checkpoint()
}

// entitiesWritten reads the last answer as the list of entities an
// OpenAPI v3 write answers with (200), beside the scenario's dataset.
func (w *world) entitiesWritten() (*answer, *datasetRecord, []map[string]json.RawMessage, error) {
	a, d, err := w.okAnswerOfTheDataset("")
	if err != nil {
		return nil, nil, nil, err
	}
	var list []map[string]json.RawMessage
	if err := a.jsonBody(&list); err != nil {
		return nil, nil, nil, w.fail("%s: %v (expected a list of the entities written)", a.what, err)
	}
	return a, d, list, nil
}

// answeredWithLaterDescription: DataHub's EntityController answers each
// entity written once, an aspect written twice with its later value
// (buildEntityList: "just take latest one").
func answeredWithLaterDescription(ctx context.Context) error {
	w := theWorld(ctx)
	a, d, list, err := w.entitiesWritten()
	if err != nil {
		return err
	}
	seen := 0
	for _, raw := range list {
		urn, values, err := w.openAPIEntity(a, raw)
		if err != nil {
			return err
		}
		if urn != d.urn {
			continue
		}
		seen++
		if !propertiesItem(d).shows(values["datasetProperties"]) {
			return w.fail("%s lists %s with the properties %s, expected the later description %q", a.what, d.urn, values["datasetProperties"], d.description)
		}
	}
	if seen != 1 {
		return w.fail("%s lists %s %d times, expected once", a.what, d.urn, seen)
	}
	return nil
}

// writeAnsweredWithDataset checks the answer to a synchronous write as
// DataHub's EntityController gives it: 200 and a list of the entities
// written, each with the aspects written and their values.
func writeAnsweredWithDataset(ctx context.Context) error {
	w := theWorld(ctx)
	a, d, list, err := w.entitiesWritten()
	if err != nil {
		return err
	}
	for _, e := range list {
		var urn string
		_ = json.Unmarshal(e["urn"], &urn)
		if urn != d.urn {
			continue
		}
		var aspect struct {
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(e["datasetProperties"], &aspect); err == nil && propertiesItem(d).shows(aspect.Value) {
			return nil
		}
		return w.fail("%s lists %s without its properties as written", a.what, d.urn)
	}
	return w.fail("%s does not list %s", a.what, d.urn)
}

// readOpenAPI reads what the step names as c through OpenAPI.
func (w *world) readOpenAPI(c caller, what string) (*answer, error) {
	var (
		method = http.MethodGet
		path   string
		body   []byte
	)
	switch what {
	case "a dataset no one has written":
		w.dataset = w.newDataset()
	case "the ownership of a dataset that has none":
		d := w.newDataset()
		w.dataset = d
		if err := w.mustIngest(w.admin(), "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description, CustomProperties: map[string]string{}}); err != nil {
			return nil, err
		}
	}
	d, err := w.theDataset()
	if err != nil {
		return nil, err
	}
	switch what {
	case "the dataset", "a dataset no one has written":
		path = "/openapi/v3/entity/dataset/" + sdkclient.URLEncode(d.urn)
	case "the dataset's properties":
		path = "/openapi/v3/entity/dataset/" + sdkclient.URLEncode(d.urn) + "/datasetProperties"
	case "the ownership of a dataset that has none":
		path = "/openapi/v3/entity/dataset/" + sdkclient.URLEncode(d.urn) + "/ownership"
	case "the dataset in a batch":
		method, path, body = http.MethodPost, sdkclient.EntitiesPath("dataset", false), sdkclient.EntitiesBody([]string{d.urn}, nil)
	default:
		return nil, w.fail("unknown read %q", what)
	}
	a := w.sdkSend(c, method, c.gms+path, body)
	a.what = fmt.Sprintf("%s reading %s through OpenAPI", c.name, what)
	a.subject = d.urn
	a.noEffect = nothingToCheck
	return a, nil
}

func readsOpenAPI(ctx context.Context, name, what string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a, err := w.readOpenAPI(c, what)
	if err != nil {
		return err
	}
	w.last = a
	return w.checkpoint()
}

// openAPIEntity is an entity as DataHub's OpenAPI v3 shows it: its urn,
// and each aspect by name as {"value": ...}.
func (w *world) openAPIEntity(a *answer, raw map[string]json.RawMessage) (string, map[string]json.RawMessage, error) {
	var urn string
	if err := json.Unmarshal(raw["urn"], &urn); err != nil {
		return "", nil, w.fail("%s: an entity without a urn", a.what)
	}
	values := map[string]json.RawMessage{}
	for name, v := range raw {
		if name == "urn" {
			continue
		}
		var aspect struct {
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(v, &aspect); err != nil {
			return "", nil, w.fail("%s: the aspect %s is %s, not an object with a value", a.what, name, v)
		}
		values[name] = aspect.Value
	}
	return urn, values, nil
}

func openAPIAnswerHoldsAll(ctx context.Context) error {
	w := theWorld(ctx)
	a, d, err := w.okAnswerOfTheDataset("")
	if err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := a.jsonBody(&raw); err != nil {
		return w.fail("%s: %v (expected an entity object)", a.what, err)
	}
	urn, values, err := w.openAPIEntity(a, raw)
	if err != nil {
		return err
	}
	if urn != d.urn {
		return w.fail("%s names %q, expected %q", a.what, urn, d.urn)
	}
	return w.holdsAll(a, d.urn, values)
}

func openAPIAnswerIsProperties(ctx context.Context) error {
	w := theWorld(ctx)
	a, d, err := w.okAnswerOfTheDataset("")
	if err != nil {
		return err
	}
	var aspect struct {
		Value json.RawMessage `json:"value"`
	}
	if err := a.jsonBody(&aspect); err != nil || !propertiesItem(d).shows(aspect.Value) {
		return w.fail("%s is not {\"value\": the properties with the description %q}", a.what, d.description)
	}
	return nil
}

func readsBatchWithMissing(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	w.other = w.newDataset().urn
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.EntitiesPath("dataset", false), sdkclient.EntitiesBody([]string{d.urn, w.other}, []string{"datasetProperties"}))
	a.what = fmt.Sprintf("%s reading the properties of %s and of %s, never written, in a batch through OpenAPI", name, d.urn, w.other)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// batchListsDatasetOnly checks the answer as get_entities reads it: a list
// of entities, the dataset among them with its properties as a value, and
// the dataset never written not among them.
func batchListsDatasetOnly(ctx context.Context) error {
	w := theWorld(ctx)
	a, d, err := w.okAnswerOfTheDataset("")
	if err != nil {
		return err
	}
	var list []map[string]json.RawMessage
	if err := a.jsonBody(&list); err != nil {
		return w.fail("%s: %v (get_entities reads a list of entities)", a.what, err)
	}
	found := false
	for _, raw := range list {
		urn, values, err := w.openAPIEntity(a, raw)
		if err != nil {
			return err
		}
		switch urn {
		case w.other:
			return w.fail("%s lists %s, which no one has written", a.what, urn)
		case d.urn:
			if !propertiesItem(d).shows(values["datasetProperties"]) {
				return w.fail("%s lists %s without its properties as written", a.what, urn)
			}
			found = true
		}
	}
	if !found {
		return w.fail("%s does not list %s", a.what, d.urn)
	}
	return nil
}

// writesFlawedOpenAPI sends a write the service must refuse whole. The
// first item is always a good one, for a dataset that must stay unwritten.
func writesFlawedOpenAPI(ctx context.Context, name, flaw string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	good := propertiesItem(d)
	w.batch = []batchItem{good}
	goodJSON := string(sdkclient.OpenAPIWrites([]sdkclient.MCP{good.mcp}, false)[0].Body)
	goodJSON = strings.TrimSuffix(strings.TrimPrefix(goodJSON, "["), "]")
	path := "/openapi/v3/entity/dataset?async=false"
	var body string
	switch flaw {
	case "whose body is not JSON":
		body = "[" + goodJSON + ",{\"urn\": "
	case "holding an entity without a URN":
		body = "[" + goodJSON + `,{"datasetProperties": {"value": {"description": "no urn"}}}]`
	case "naming a malformed URN":
		body = "[" + goodJSON + `,{"urn": "not-a-urn", "datasetProperties": {"value": {"description": "bad urn"}}}]`
	case "naming an aspect datasets do not have":
		body = "[" + goodJSON + `,{"urn": "` + d.urn + `", "catalogspecNoSuchAspect": {"value": {"description": "no such aspect"}}}]`
	case "sent to the path of another entity type":
		path = "/openapi/v3/entity/tag?async=false"
		body = "[" + goodJSON + "]"
	case "sent to the path of no entity type":
		path = "/openapi/v3/entity/catalogspecNoSuchType?async=false"
		body = "[" + goodJSON + "]"
	case "whose description is not text":
		bad := propertiesItem(w.newDataset())
		bad.mcp.Aspect = sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "description", Value: []any{"not", "text"}}, {Key: "tags", Value: []any{}}}
		w.batch = append(w.batch, bad)
		all := string(sdkclient.OpenAPIWrites([]sdkclient.MCP{good.mcp, bad.mcp}, false)[0].Body)
		body = all
	default:
		return w.fail("unknown flaw %q", flaw)
	}
	a := w.sdkSend(c, http.MethodPost, c.gms+path, []byte(body))
	a.what = fmt.Sprintf("%s writing through OpenAPI a request %s", name, flaw)
	a.noEffect = func() error { return w.batchStored(false) }
	w.last = a
	return w.checkpoint()
}

// answerSaysWhy checks an OpenAPI refusal's body: a JSON object with an
// "error" or a "message" that says something (DataHub's exception handler
// answers {"error": ...}).
func answerSaysWhy(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var body map[string]any
	if err := a.jsonBody(&body); err != nil {
		return w.failed(err)
	}
	for _, k := range []string{"error", "message"} {
		if s, ok := body[k].(string); ok && strings.TrimSpace(s) != "" && s != "An unknown error occurred." {
			return nil
		}
	}
	return w.fail("%s answered status %d without saying why in an \"error\" or \"message\" of its JSON body", a.what, a.status)
}

// deletesOpenAPI sends what emit_mcp sends on the OpenAPI path for a
// proposal to delete: DELETE /openapi/v3/entity/dataset/<raw urn>, with
// the body "[]".
func deletesOpenAPI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	req := sdkclient.OpenAPIWrite(sdkclient.MCP{EntityURN: d.urn, ChangeType: "DELETE", AspectName: "datasetProperties"}, false)
	a := w.sdkSend(c, req.Method, c.gms+req.Path, req.Body)
	a.what = fmt.Sprintf("%s deleting %s through OpenAPI", name, d.urn)
	a.noEffect = func() error { return datasetDescriptionReadsBack(ctx, tierGMS) }
	w.last = a
	return w.checkpoint()
}

// deletesAbsentOpenAPI deletes, as DataHub's SDK sends a proposal to
// delete, a dataset that does not exist: one never written, or one the
// person has just deleted (the first deletion must be acknowledged).
func deletesAbsentOpenAPI(ctx context.Context, name, what string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	del := func() *answer {
		req := sdkclient.OpenAPIWrite(sdkclient.MCP{EntityURN: d.urn, ChangeType: "DELETE", AspectName: "datasetProperties"}, false)
		a := w.sdkSend(c, req.Method, c.gms+req.Path, req.Body)
		a.what = fmt.Sprintf("%s deleting %s (%s) through OpenAPI", name, d.urn, what)
		a.noEffect = func() error { return w.noSuchDataset(d) }
		return a
	}
	if what != "a dataset no one has written" {
		if err := w.mustIngest(w.admin(), "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description, CustomProperties: map[string]string{}}); err != nil {
			return err
		}
		first := del()
		first.what = fmt.Sprintf("%s deleting %s the first time through OpenAPI", name, d.urn)
		if err := w.acknowledged(first); err != nil {
			return err
		}
	}
	w.last = del()
	return w.checkpoint()
}

// noSuchDataset checks what DataHub's SDK's exists() asks: the dataset's
// key aspect is not found (404) through the aspect path, so nothing of it
// is there, not even the key a write would have made.
func (w *world) noSuchDataset(d *datasetRecord) error {
	a := w.readAspect(w.reader(), tierGMS, d.urn, "datasetKey")
	if a.status != http.StatusNotFound {
		return w.fail("%s answered status %d, expected 404: DataHub's SDK finds that %s exists", a.what, a.status, d.urn)
	}
	return nil
}

func sdkFindsNoDataset(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	return w.noSuchDataset(d)
}

func anonymousOpenAPI(ctx context.Context, does, tier string) error {
	w := theWorld(ctx)
	c := w.anonymous()
	var a *answer
	switch does {
	case "writes":
		w.batch = w.twoDatasetsBatch(w.newDataset(), w.newDataset())
		a = w.writeOpenAPI(c, tier)
	case "reads an entity", "reads an aspect", "reads a batch":
		path := "/openapi/v3/entity/corpuser/" + sdkclient.URLEncode(runner.RootUser)
		method := http.MethodGet
		var body []byte
		switch does {
		case "reads an aspect":
			path += "/corpUserKey"
		case "reads a batch":
			method, path, body = http.MethodPost, sdkclient.EntitiesPath("corpuser", false), sdkclient.EntitiesBody([]string{runner.RootUser}, nil)
		}
		a = w.sdkSend(c, method, base(c, tier)+path, body)
		a.noEffect = nothingToCheck
	case "deletes":
		d := w.newDataset()
		w.dataset = d
		if err := w.mustIngest(w.admin(), "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description, CustomProperties: map[string]string{}}); err != nil {
			return err
		}
		req := sdkclient.OpenAPIWrite(sdkclient.MCP{EntityURN: d.urn, ChangeType: "DELETE", AspectName: "datasetProperties"}, false)
		a = w.sdkSend(c, req.Method, base(c, tier)+req.Path, req.Body)
		a.noEffect = func() error { return datasetDescriptionReadsBack(ctx, tierGMS) }
	default:
		return w.fail("unknown request %q", does)
	}
	a.what = fmt.Sprintf("someone without a token who %s through OpenAPI on the %s", does, tier)
	w.last = a
	return w.checkpoint()
}

func writeAcknowledged(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.acknowledged(a)
}

func configVersionAtLeast101(ctx context.Context) error {
	w := theWorld(ctx)
	v, err := w.configVersion()
	if err != nil {
		return err
	}
	m := versionShape.FindStringSubmatch(v)
	if m == nil {
		return w.fail(`/config names the DataHub version %q, expected one of 1.0.1 or later in DataHub's form (v1.5.0)`, v)
	}
	var n [3]int
	for i := range n {
		fmt.Sscan(m[i+1], &n[i])
	}
	if n[0] < 1 || n[0] == 1 && n[1] == 0 && n[2] < 1 {
		return w.fail(`/config names the DataHub version %q: below 1.0.1, DataHub's SDK writes through Rest.li, not OpenAPI`, v)
	}
	return nil
}
