package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerSDKSteps registers the steps of DataHub's SDK, which several
// features share.
func registerSDKSteps(s stepRegistrar) {
	s.Step(`^the administrator has written a new dataset with a description( and institutional memory)?$`, adminHasWrittenDataset)
	s.Step(`^the answer shows nothing of the dataset$`, answerShowsNothing)
	s.Step(`^every proposal of the batch reads back$`, everyProposalReadsBack)
	s.Step(`^no proposal of the batch was stored$`, noProposalStored)
	s.Step(`^DataHub's SDK finds that each dataset of the batch exists$`, sdkFindsEachDataset)
	s.Step(`^the later description reads back, and every other proposal of the batch$`, laterDescriptionReadsBack)
	s.Step(`^`+who+` reads `+own+` own user through `+userPaths+`$`, readsOwnUserThrough)
	s.Step(`^the answer is `+who+`'s user, with `+own+` info$`, answerIsUserWithInfo)
	s.Step(`^`+who+` is refused `+who+`'s user through `+userPaths+`, and shown nothing of (?:him|her|them)$`, refusedOthersUserThrough)
	s.Step(`^`+who+` reads `+own+` own user and `+who+`'s in a batch through (the v2 entity path|OpenAPI)$`, readsOwnAndOthersUserInBatch)
	s.Step(`^the answer shows nothing of `+who+`'s user$`, answerShowsNothingOfUser)
}

// What restli.feature and openapi.feature share: requests shaped as
// DataHub's Python SDK shapes them (built by sdkclient, which follows the
// SDK's source), the datasets they read and the batches they write.

// sdkState is what a scenario of those features knows.
type sdkState struct {
	batch      []batchItem // the proposals of the last batch written, or meant to be
	batchAsync bool        // the batch was sent for asynchronous ingestion
	other      string      // the URN of a dataset named but never written
	userPath   string      // the path the last read of a user went through
}

// batchItem is one proposal of a batch, with how to find it again.
type batchItem struct {
	urn   string
	mcp   sdkclient.MCP
	class string // its record's full name, as the entity path shows it
	// shows says whether an aspect read back (its value) is the one written.
	shows func(value json.RawMessage) bool
	// superseded: a later proposal of the batch names the same aspect of
	// the same entity, so this one is not what reads back.
	superseded bool
}

// sdkHeaders are the headers of the SDK's session (sdkclient.Headers)
// but Accept-Encoding and Connection, which Go's client manages itself.
var sdkHeaders = func() map[string]string {
	h := map[string]string{}
	for k, v := range sdkclient.Headers("") {
		if k != "Accept-Encoding" && k != "Connection" {
			h[k] = v[0]
		}
	}
	return h
}()

// sdk is c sending the SDK's headers on top of its own.
func (w *world) sdk(c caller) caller {
	h := make(map[string]string, len(sdkHeaders)+len(c.headers))
	for k, v := range sdkHeaders {
		h[k] = v
	}
	for k, v := range c.headers {
		h[k] = v
	}
	c.headers = h
	return c
}

// base is the metadata service's base URL as c reaches it through the
// tier ("metadata service" or "frontend", with or without "'s").
func base(c caller, tier string) string {
	if strings.HasPrefix(tier, "frontend") {
		return c.frontend + "/api/gms"
	}
	return c.gms
}

// sdkSend sends a request the SDK would send, as c, to a path below base.
func (w *world) sdkSend(c caller, method, url string, body []byte) *answer {
	r := request{method: method, url: url, body: body}
	if body == nil && method != http.MethodGet {
		r.body = []byte{}
	}
	return w.send(w.sdk(c), r)
}

// propertiesAspect is datasetProperties as DatasetPropertiesClass.to_obj
// gives it with only a description set: the defaults of customProperties
// and tags, in schema order, nulls left out.
func propertiesAspect(description string) sdkclient.Obj {
	return sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "description", Value: description}, {Key: "tags", Value: []any{}}}
}

// memoryAspect is institutionalMemory with one link.
func memoryAspect(url, description, actor string) sdkclient.Obj {
	stamp := sdkclient.Obj{{Key: "time", Value: time.Now().UnixMilli()}, {Key: "actor", Value: actor}}
	element := sdkclient.Obj{{Key: "url", Value: url}, {Key: "description", Value: description}, {Key: "createStamp", Value: stamp}}
	return sdkclient.Obj{{Key: "elements", Value: []any{element}}}
}

// propertiesItem is a proposal of d's description.
func propertiesItem(d *datasetRecord) batchItem {
	return batchItem{
		urn:   d.urn,
		mcp:   sdkclient.MCP{EntityURN: d.urn, AspectName: "datasetProperties", Aspect: propertiesAspect(d.description)},
		class: "com.linkedin.dataset.DatasetProperties",
		shows: func(v json.RawMessage) bool {
			var p datasetProperties
			return json.Unmarshal(v, &p) == nil && p.Description == d.description
		},
	}
}

// memoryItem is a proposal of institutional memory for d.
func (w *world) memoryItem(d *datasetRecord) batchItem {
	description := "Remembered by the catalogspec scenario " + w.unique("memory")
	return batchItem{
		urn:   d.urn,
		mcp:   sdkclient.MCP{EntityURN: d.urn, AspectName: "institutionalMemory", Aspect: memoryAspect("https://example.com/"+w.unique("doc"), description, runner.RootUser)},
		class: "com.linkedin.common.InstitutionalMemory",
		shows: func(v json.RawMessage) bool {
			var m institutionalMemory
			return json.Unmarshal(v, &m) == nil && len(m.Elements) == 1 && m.Elements[0].Description == description
		},
	}
}

// mcps are the batch's proposals.
func (w *world) mcps() []sdkclient.MCP {
	out := make([]sdkclient.MCP, len(w.batch))
	for i, b := range w.batch {
		out[i] = b.mcp
	}
	return out
}

// batchStored reads each proposal of the batch back through the metadata
// service's entity path, as the administrator: present says whether each
// must be there (with the value written) or absent.
func (w *world) batchStored(present bool) error {
	if len(w.batch) == 0 {
		return w.fail("no batch was written")
	}
	for _, b := range w.batch {
		if present && b.superseded {
			continue
		}
		a := w.readEntity(w.reader(), tierGMS, b.urn, false)
		if !present {
			if err := w.aspectAbsent(a, "DatasetSnapshot", b.class); err != nil {
				return err
			}
			continue
		}
		s, err := w.snapshotOf(a, "DatasetSnapshot")
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := w.aspect(s, b.class, &raw); err != nil {
			return err
		}
		if !b.shows(raw) {
			return w.fail("%s: %s is %s, not what the batch wrote", a.what, b.class, raw)
		}
	}
	return nil
}

// describedTwiceBatch is a batch that names the description of d twice,
// the later one different, with another aspect of d between them and
// another dataset's description after: the earlier description is
// superseded, and each of the others must read back.
func (w *world) describedTwiceBatch(d, other *datasetRecord) []batchItem {
	earlier := *d
	earlier.description += " (earlier, superseded in the same batch)"
	first := propertiesItem(&earlier)
	first.superseded = true
	return []batchItem{first, w.memoryItem(d), propertiesItem(d), propertiesItem(other)}
}

// laterDescriptionReadsBack: what DataHub keeps of a batch naming one
// aspect of one entity twice is the later value (AspectsBatch's
// "inner-batch upserts"), and every other proposal; the earlier value is
// nowhere.
func laterDescriptionReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	if err := w.batchStored(true); err != nil {
		return err
	}
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	a := w.readEntity(w.reader(), tierGMS, d.urn, false)
	if strings.Contains(string(a.body), "superseded in the same batch") {
		return w.fail("%s shows the earlier description, which a later proposal of the same batch replaced", a.what)
	}
	return nil
}

// theDataset is the dataset the scenario talks about.
func (w *world) theDataset() (*datasetRecord, error) {
	if w.dataset == nil {
		return nil, w.fail("no dataset was named before")
	}
	return w.dataset, nil
}

// Steps shared by both features.

func adminHasWrittenDataset(ctx context.Context, memory string) error {
	w := theWorld(ctx)
	d := w.newDataset()
	w.dataset = d
	admin := w.admin()
	if err := w.mustIngest(admin, "dataset", d.urn, "datasetProperties", datasetProperties{Description: d.description, CustomProperties: map[string]string{}}); err != nil {
		return err
	}
	if memory == "" {
		return nil
	}
	m := w.memoryItem(d)
	w.batch = []batchItem{propertiesItem(d), m}
	var value any
	if err := json.Unmarshal(sdkclient.Dumps(m.mcp.Aspect), &value); err != nil {
		return w.failed(err)
	}
	return w.mustIngest(admin, "dataset", d.urn, "institutionalMemory", value)
}

// answerShowsNothing checks that a refusal shows nothing of the dataset:
// neither its description, nor its institutional memory, nor a value, nor
// an aspect's class.
func answerShowsNothing(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	body := string(a.body)
	// The aspects' names may be in the answer, which may repeat the path
	// asked for; their classes and values may not.
	secrets := []string{"com.linkedin.dataset.DatasetProperties", "com.linkedin.common.InstitutionalMemory", `"value"`}
	if w.dataset != nil {
		secrets = append(secrets, w.dataset.description)
	}
	for _, b := range w.batch {
		if s, ok := b.mcp.Aspect.Get("elements").([]any); ok && len(s) == 1 {
			if e, ok := s[0].(sdkclient.Obj); ok {
				secrets = append(secrets, fmt.Sprint(e.Get("description")))
			}
		}
	}
	for _, s := range secrets {
		if strings.Contains(body, s) {
			return w.fail("%s was refused, but its answer shows %q", a.what, s)
		}
	}
	return nil
}

// acknowledged checks a write the SDK takes as done: a 2xx (the SDK
// raises at 400 and above; DataHub answers 200, or 202 for asynchronous
// ingestion through OpenAPI).
func (w *world) acknowledged(a *answer) error {
	if a.status < 200 || a.status > 299 {
		return w.fail("%s answered status %d, expected a success (2xx)", a.what, a.status)
	}
	return nil
}

// everyProposalReadsBack: what a synchronous write acknowledged reads back
// at once; what was sent for asynchronous ingestion, within the
// propagation window.
func everyProposalReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	if !w.batchAsync {
		return w.batchStored(true)
	}
	return w.eventually("the asynchronous batch being written", func() (bool, error) {
		err := w.batchStored(true)
		return err == nil, err
	})
}

// sdkFindsEachDataset checks what DataHub's SDK asks after writing
// (exists(), DataHubClient.entities.get): each entity of the batch has its
// key aspect through the aspect path, naming it, as DataHub writes the key
// of an entity with its first aspect.
func sdkFindsEachDataset(ctx context.Context) error {
	w := theWorld(ctx)
	seen := map[string]bool{}
	for _, b := range w.batch {
		if seen[b.urn] {
			continue
		}
		seen[b.urn] = true
		a := w.readAspect(w.reader(), tierGMS, b.urn, "datasetKey")
		if a.status != http.StatusOK {
			return w.fail("%s answered status %d: DataHub's SDK finds no dataset %s (exists() reads its key)", a.what, a.status, b.urn)
		}
		var body struct {
			Aspect map[string]json.RawMessage `json:"aspect"`
		}
		if err := a.jsonBody(&body); err != nil {
			return w.failed(err)
		}
		if err := w.keyNames(a, body.Aspect["com.linkedin.metadata.key.DatasetKey"], b.urn); err != nil {
			return err
		}
	}
	return nil
}

func noProposalStored(ctx context.Context) error {
	return theWorld(ctx).batchStored(false)
}

// versionShape is how DataHub's SDK reads a DataHub version
// (RestServiceConfig._parse_version): an optional "v", then X.Y.Z.
var versionShape = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)`)

// configVersion reads versions["acryldata/datahub"].version out of the
// last answer, a /config: "" when there is none.
func (w *world) configVersion() (string, error) {
	a, err := w.lastAnswer()
	if err != nil {
		return "", err
	}
	if a.status != http.StatusOK {
		return "", w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var cfg struct {
		Versions map[string]struct {
			Version any `json:"version"`
		} `json:"versions"`
	}
	if err := a.jsonBody(&cfg); err != nil {
		return "", w.fail("%s: the versions are not as DataHub's SDK reads them (an object of objects): %v", a.what, err)
	}
	v := cfg.Versions["acryldata/datahub"].Version
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", w.fail(`%s: versions["acryldata/datahub"].version is %v, not a string`, a.what, v)
	}
	return s, nil
}

// Reading users through the SDK's paths (restli.feature, openapi.feature):
// everyone may read their own user entity whatever the policies say
// (DataHub's authorizer adds a policy "View Self" for every actor:
// PoliciesConfig.getDefaultPolicies), and no one else's without a read
// privilege.

// userPaths are the paths a user entity is read through, as a step names
// them.
const userPaths = `(?:the )?(metadata service's aspect path|frontend's aspect path|metadata service's v2 entity path|frontend's v2 entity path|OpenAPI|OpenAPI's aspect path|OpenAPI in a batch)`

// readUser reads p's user through the path as c: the aspect paths read
// corpUserInfo, the entity paths the whole entity.
func (w *world) readUser(c caller, path string, p *person) *answer {
	var a *answer
	switch path {
	case "metadata service's aspect path", "frontend's aspect path":
		a = w.readAspect(c, strings.TrimSuffix(path, " aspect path"), p.urn, "corpUserInfo")
	case "metadata service's v2 entity path", "frontend's v2 entity path":
		a = w.readEntityV2(c, strings.TrimSuffix(path, " v2 entity path"), p.urn, nil)
	case "OpenAPI":
		a = w.sdkSend(c, http.MethodGet, c.gms+"/openapi/v3/entity/corpuser/"+sdkclient.URLEncode(p.urn), nil)
	case "OpenAPI's aspect path":
		a = w.sdkSend(c, http.MethodGet, c.gms+"/openapi/v3/entity/corpuser/"+sdkclient.URLEncode(p.urn)+"/corpUserInfo", nil)
	default: // OpenAPI in a batch
		a = w.sdkSend(c, http.MethodPost, c.gms+sdkclient.EntitiesPath("corpuser", false), sdkclient.EntitiesBody([]string{p.urn}, nil))
	}
	a.what = fmt.Sprintf("%s reading %s's user (%s) through the %s", c.name, p.name, p.urn, path)
	a.subject = p.urn
	a.noEffect = nothingToCheck
	return a
}

func readsOwnUserThrough(ctx context.Context, name, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.readUser(c, path, w.person(name))
	w.userPath = path
	return w.checkpoint()
}

// answerIsUserWithInfo checks the answer of a read of name's user as the
// path answers it: their corpUserInfo (the display name the suite gave
// them) and, on the entity paths, the entity's URN and its key.
func answerIsUserWithInfo(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	p := w.person(name)
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	infoIs := func(raw json.RawMessage) error {
		var info corpUserInfo
		if err := json.Unmarshal(raw, &info); err != nil || info.DisplayName != p.name+" (catalogspec)" {
			return w.fail("%s: the user's info is %s, expected the display name %q", a.what, raw, p.name+" (catalogspec)")
		}
		return nil
	}
	keyIs := func(raw json.RawMessage) error {
		var key struct {
			Username string `json:"username"`
		}
		if err := json.Unmarshal(raw, &key); err != nil || key.Username != p.username {
			return w.fail("%s: the user's key is %s, expected the username %q", a.what, raw, p.username)
		}
		return nil
	}
	switch w.userPath {
	case "metadata service's aspect path", "frontend's aspect path":
		var body struct {
			Aspect map[string]json.RawMessage `json:"aspect"`
		}
		if err := a.jsonBody(&body); err != nil {
			return w.failed(err)
		}
		return infoIs(body.Aspect["com.linkedin.identity.CorpUserInfo"])
	case "metadata service's v2 entity path", "frontend's v2 entity path":
		e, err := w.entityResponse(a)
		if err != nil {
			return err
		}
		if e.URN != p.urn {
			return w.fail("%s names %q, expected %q", a.what, e.URN, p.urn)
		}
		if err := infoIs(e.Aspects["corpUserInfo"].Value); err != nil {
			return err
		}
		return keyIs(e.Aspects["corpUserKey"].Value)
	case "OpenAPI's aspect path":
		var body struct {
			Value json.RawMessage `json:"value"`
		}
		if err := a.jsonBody(&body); err != nil {
			return w.failed(err)
		}
		return infoIs(body.Value)
	}
	// OpenAPI: one entity; in a batch, a list holding it.
	var raws []map[string]json.RawMessage
	if w.userPath == "OpenAPI" {
		var raw map[string]json.RawMessage
		if err := a.jsonBody(&raw); err != nil {
			return w.failed(err)
		}
		raws = append(raws, raw)
	} else if err := a.jsonBody(&raws); err != nil {
		return w.failed(err)
	}
	for _, raw := range raws {
		urn, values, err := w.openAPIEntity(a, raw)
		if err != nil {
			return err
		}
		if urn != p.urn {
			continue
		}
		if err := infoIs(values["corpUserInfo"]); err != nil {
			return err
		}
		return keyIs(values["corpUserKey"])
	}
	return w.fail("%s does not hold %s", a.what, p.urn)
}

// refusedOthersUserThrough: name reading whose's user through the path is
// refused with 403, and the answer shows nothing of whose's user.
func refusedOthersUserThrough(ctx context.Context, name, whose, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.readUser(c, path, w.person(whose))
	if a.status != http.StatusForbidden {
		return w.fail("%s answered status %d, expected 403", a.what, a.status)
	}
	return w.showsNothingOfUser(a, w.person(whose))
}

// readsOwnAndOthersUserInBatch reads name's own user and whose's in one
// request: the v2 entity path's batch, or OpenAPI's batchGet. The own user
// comes first, so that a check of the first entity alone lets it through.
func readsOwnAndOthersUserInBatch(ctx context.Context, name, whose, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	urns := []string{w.person(name).urn, w.person(whose).urn}
	var a *answer
	if path == "OpenAPI" {
		a = w.sdkSend(c, http.MethodPost, c.gms+sdkclient.EntitiesPath("corpuser", false), sdkclient.EntitiesBody(urns, nil))
	} else {
		a = w.sdkSend(c, http.MethodGet, c.gms+sdkclient.EntitiesV2Path(urns), nil)
	}
	a.what = fmt.Sprintf("%s reading %s and %s in a batch through %s", name, urns[0], urns[1], path)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func answerShowsNothingOfUser(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.showsNothingOfUser(a, w.person(name))
}

// showsNothingOfUser checks that a refusal shows nothing of p's user: not
// their display name, nor an aspect's class or value.
func (w *world) showsNothingOfUser(a *answer, p *person) error {
	for _, s := range []string{p.name + " (catalogspec)", "com.linkedin.identity.CorpUserInfo", `"value"`, `"username"`} {
		if strings.Contains(string(a.body), s) {
			return w.fail("%s was refused, but its answer shows %q", a.what, s)
		}
	}
	return nil
}
