package steps

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerEntityRegistrySteps registers the steps of
// features/entity_registry.feature.
func registerEntityRegistrySteps(s stepRegistrar) {
	s.Step(`^`+who+` writes (the properties of a new container|the editable properties of a new data job|the input of a new execution request|the information of a new ingestion source|the information of a new glossary term) through (a Rest\.li proposal|a Rest\.li batch|OpenAPI)$`, writesSample)
	s.Step(`^the aspect written reads back under its record's full name$`, sampleReadsBack)
	s.Step(`^the entity's key aspect holds the parts of its URN$`, sampleKeyReadsBack)
	s.Step(`^`+who+` writes through (a Rest\.li batch|a Rest\.li proposal|OpenAPI) a new dataset's properties and (a proposal for an entity type DataHub does not have|an aspect datasets do not have|the properties of a dataset whose URN lacks its origin)$`, writesWithAFlaw)
	s.Step(`^`+who+` writes a policy giving `+own+` every privilege through a Rest\.li proposal$`, writesPolicyThroughIngestion)
	s.Step(`^the write is refused, and no such policy exists$`, policyWriteRefused)
	s.Step(`^`+who+` rewrites the record of `+who+`'s token as (?:hers|his|theirs) through a Rest\.li proposal$`, rewritesTokenRecord)
	s.Step(`^the write is refused, and the record of `+who+`'s token is as it was$`, tokenRecordUnchanged)
	s.Step(`^`+who+` writes `+who+`'s information through a Rest\.li proposal$`, writesUserInfo)
	s.Step(`^`+who+`'s information reads back as `+who+` wrote it$`, userInfoReadsBack)
}

// entity_registry.feature: proposals for entity types beyond datasets,
// tags and users, built as DataHub's SDK builds them (sdkclient), sent
// through the three write paths, and read back as get_aspect reads them.

// registryState is what a scenario of entity_registry.feature knows.
type registryState struct {
	sample *sample // the entity written
	// rewritten is what a refused write tried to write over.
	rewritten string
}

// sample is an entity of one of the registry's types, with one aspect.
type sample struct {
	entityType, urn string
	aspect, class   string
	value           sdkclient.Obj
	mark            [2]string // a field of the value and what it holds
	key, keyClass   string
	keyFields       map[string]string // the key aspect the URN makes
}

func (s *sample) mcp() sdkclient.MCP {
	return sdkclient.MCP{EntityType: s.entityType, EntityURN: s.urn, AspectName: s.aspect, Aspect: s.value}
}

// auditStamp is AuditStampClass's default, as ChangeAuditStamps has it.
func auditStamp() sdkclient.Obj {
	return sdkclient.Obj{{Key: "time", Value: int64(0)}, {Key: "actor", Value: "urn:li:corpuser:unknown"}}
}

// newSample makes the entity the step names, its values as the SDK's
// classes' to_obj writes them (schema order, defaults filled in).
func (w *world) newSample(what string) *sample {
	tag := w.unique("registry")
	switch what {
	case "the properties of a new container":
		return &sample{entityType: "container", urn: "urn:li:container:" + tag,
			aspect: "containerProperties", class: "com.linkedin.container.ContainerProperties",
			value: sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "name", Value: tag}}, mark: [2]string{"name", tag},
			key: "containerKey", keyClass: "com.linkedin.metadata.key.ContainerKey", keyFields: map[string]string{"guid": tag}}
	case "the editable properties of a new data job":
		flow := "urn:li:dataFlow:(airflow," + tag + ",prod)"
		return &sample{entityType: "dataJob", urn: "urn:li:dataJob:(" + flow + ",load)",
			aspect: "editableDataJobProperties", class: "com.linkedin.datajob.EditableDataJobProperties",
			value: sdkclient.Obj{{Key: "created", Value: auditStamp()}, {Key: "lastModified", Value: auditStamp()}, {Key: "description", Value: tag}}, mark: [2]string{"description", tag},
			key: "dataJobKey", keyClass: "com.linkedin.metadata.key.DataJobKey", keyFields: map[string]string{"flow": flow, "jobId": "load"}}
	case "the input of a new execution request":
		// A request of the CLI's kind, which DataHub's executor leaves alone.
		return &sample{entityType: "dataHubExecutionRequest", urn: "urn:li:dataHubExecutionRequest:" + tag,
			aspect: "dataHubExecutionRequestInput", class: "com.linkedin.execution.ExecutionRequestInput",
			value: sdkclient.Obj{{Key: "task", Value: "CLI Ingestion"}, {Key: "args", Value: sdkclient.Obj{{Key: "recipe", Value: tag}}}, {Key: "executorId", Value: "__datahub_cli_"},
				{Key: "source", Value: sdkclient.Obj{{Key: "type", Value: "CLI_INGESTION_SOURCE"}}}, {Key: "requestedAt", Value: time.Now().UnixMilli()}},
			mark: [2]string{"task", "CLI Ingestion"},
			key:  "dataHubExecutionRequestKey", keyClass: "com.linkedin.metadata.key.ExecutionRequestKey", keyFields: map[string]string{"id": tag}}
	case "the information of a new ingestion source":
		return &sample{entityType: "dataHubIngestionSource", urn: "urn:li:dataHubIngestionSource:" + tag,
			aspect: "dataHubIngestionSourceInfo", class: "com.linkedin.ingestion.DataHubIngestionSourceInfo",
			value: sdkclient.Obj{{Key: "name", Value: tag}, {Key: "type", Value: "file"}, {Key: "config", Value: sdkclient.Obj{{Key: "recipe", Value: "{}"}, {Key: "executorId", Value: "__datahub_cli_"}}}},
			mark:  [2]string{"name", tag},
			key:   "dataHubIngestionSourceKey", keyClass: "com.linkedin.metadata.key.DataHubIngestionSourceKey", keyFields: map[string]string{"id": tag}}
	case "the information of a new glossary term":
		return &sample{entityType: "glossaryTerm", urn: "urn:li:glossaryTerm:" + tag,
			aspect: "glossaryTermInfo", class: "com.linkedin.glossary.GlossaryTermInfo",
			value: sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "definition", Value: tag}, {Key: "termSource", Value: "INTERNAL"}},
			mark:  [2]string{"definition", tag},
			key:   "glossaryTermKey", keyClass: "com.linkedin.metadata.key.GlossaryTermKey", keyFields: map[string]string{"name": tag}}
	}
	return nil
}

// writeThrough sends ms as c through the path the step names, as DataHub's
// SDK sends them: emit_mcp (one proposal), emit_mcps on Rest.li (a batch),
// or emit_mcps on OpenAPI, every item in one request to the first's
// entity type (as _emit_openapi_mcps sends the items of one type).
func (w *world) writeThrough(c caller, path string, ms []sdkclient.MCP) *answer {
	var a *answer
	switch path {
	case "a Rest.li proposal":
		if len(ms) != 1 {
			w.addFailure(fmt.Sprintf("a Rest.li proposal carries one aspect, not %d (a defect of the step)", len(ms)))
		}
		a = w.sdkSend(c, http.MethodPost, c.gms+sdkclient.IngestProposalPath(), sdkclient.IngestProposalBody(ms[0], false))
	case "a Rest.li batch":
		a = w.sdkSend(c, http.MethodPost, c.gms+sdkclient.IngestProposalBatchPath(), sdkclient.IngestProposalBatchBody(ms, false))
	default:
		items := make([]string, len(ms))
		for i, m := range ms {
			body := string(sdkclient.OpenAPIWrite(m, false).Body)
			items[i] = body[1 : len(body)-1]
		}
		r := sdkclient.OpenAPIWrite(ms[0], false)
		a = w.sdkSend(c, r.Method, c.gms+r.Path, []byte("["+strings.Join(items, ",")+"]"))
	}
	a.what = fmt.Sprintf("%s writing %d aspects through %s", c.name, len(ms), path)
	return a
}

func writesSample(ctx context.Context, name, what, path string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	s := w.newSample(what)
	w.sample = s
	w.last = w.writeThrough(c, path, []sdkclient.MCP{s.mcp()})
	w.last.subject = s.urn
	w.last.noEffect = func() error { return w.entityNotMade(s.urn, s.key) }
	return w.checkpoint()
}

// readAspectValue reads urn's aspect as the administrator through the
// aspect path, as get_aspect does: the value under the record's full name.
func (w *world) readAspectValue(urn, aspect, class string) (map[string]any, *answer, error) {
	a := w.readAspect(w.reader(), tierGMS, urn, aspect)
	if a.status != http.StatusOK {
		return nil, a, w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var body struct {
		Aspect map[string]map[string]any `json:"aspect"`
	}
	if err := a.jsonBody(&body); err != nil {
		return nil, a, w.fail("%s: %v (get_aspect reads an object with an \"aspect\" object)", a.what, err)
	}
	v, ok := body.Aspect[class]
	if !ok {
		return nil, a, w.fail("%s holds no aspect.%s: DataHub's SDK raises \"Failed to find %s in response\"", a.what, class, class)
	}
	return v, a, nil
}

func sampleReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	s := w.sample
	if s == nil {
		return w.fail("no entity was written")
	}
	v, a, err := w.readAspectValue(s.urn, s.aspect, s.class)
	if err != nil {
		return err
	}
	if got := fmt.Sprint(v[s.mark[0]]); got != s.mark[1] {
		return w.fail("%s: %s.%s is %q, expected %q as written", a.what, s.class, s.mark[0], got, s.mark[1])
	}
	return nil
}

func sampleKeyReadsBack(ctx context.Context) error {
	w := theWorld(ctx)
	s := w.sample
	if s == nil {
		return w.fail("no entity was written")
	}
	v, a, err := w.readAspectValue(s.urn, s.key, s.keyClass)
	if err != nil {
		return err
	}
	got := map[string]string{}
	for k, f := range v {
		got[k] = fmt.Sprint(f)
	}
	if !maps.Equal(got, s.keyFields) {
		return w.fail("%s: the key %s is %v, expected %v (the parts of %s)", a.what, s.keyClass, got, s.keyFields, s.urn)
	}
	return nil
}

// writesWithAFlaw writes a new dataset's properties and, beside them (or,
// through one Rest.li proposal, alone), a proposal DataHub refuses.
func writesWithAFlaw(ctx context.Context, name, path, flaw string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	good := sdkclient.MCP{EntityURN: d.urn, AspectName: "datasetProperties", Aspect: propertiesAspect(d.description)}
	var bad sdkclient.MCP
	switch flaw {
	case "a proposal for an entity type DataHub does not have":
		bad = sdkclient.MCP{EntityURN: "urn:li:catalogspecNoSuchType:" + w.unique("x"), AspectName: "status", Aspect: sdkclient.Obj{{Key: "removed", Value: false}}}
	case "an aspect datasets do not have":
		// chartInfo is a chart's, not a dataset's.
		bad = sdkclient.MCP{EntityURN: d.urn, AspectName: "chartInfo", Aspect: sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "title", Value: d.description}, {Key: "description", Value: d.description},
			{Key: "lastModified", Value: sdkclient.Obj{{Key: "created", Value: auditStamp()}, {Key: "lastModified", Value: auditStamp()}}}}}
	default:
		bad = sdkclient.MCP{EntityURN: "urn:li:dataset:(urn:li:dataPlatform:hive," + w.unique("dataset") + ")", AspectName: "datasetProperties", Aspect: propertiesAspect(d.description)}
	}
	ms := []sdkclient.MCP{good, bad}
	if path == "a Rest.li proposal" {
		ms = []sdkclient.MCP{bad}
	}
	w.last = w.writeThrough(c, path, ms)
	w.last.noEffect = func() error {
		if err := w.entityNotMade(d.urn, "datasetKey"); err != nil {
			return err
		}
		return w.datasetAbsent(d)
	}
	return w.checkpoint()
}

// refusal checks that a write was refused (4xx), and that it changed
// nothing.
func (w *world) refusal(a *answer) error {
	if a.status < 400 || a.status > 499 {
		return w.fail("%s answered status %d, expected a refusal (4xx)", a.what, a.status)
	}
	return w.noEffect(a)
}

func writesPolicyThroughIngestion(ctx context.Context, name string) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	urn := "urn:li:dataHubPolicy:" + w.unique("policy")
	// Should a target take it, the scenario removes it.
	w.undo("delete the policy "+urn+" if ingestion made it", func() error { return w.deletePolicy(urn, true) })
	info := sdkclient.Obj{
		{Key: "displayName", Value: "Written through ingestion by " + name}, {Key: "description", Value: "catalogspec: " + w.name},
		{Key: "type", Value: "PLATFORM"}, {Key: "state", Value: "ACTIVE"},
		{Key: "privileges", Value: []any{"MANAGE_POLICIES", "MANAGE_ACCESS_TOKENS", "MANAGE_USERS_AND_GROUPS"}},
		{Key: "actors", Value: sdkclient.Obj{{Key: "users", Value: []any{p.urn}}, {Key: "allUsers", Value: false}, {Key: "allGroups", Value: false}, {Key: "resourceOwners", Value: false}}},
		{Key: "editable", Value: true},
	}
	a := w.writeThrough(c, "a Rest.li proposal", []sdkclient.MCP{{EntityURN: urn, AspectName: "dataHubPolicyInfo", Aspect: info}})
	a.noEffect = func() error { return w.entityNotMade(urn, "dataHubPolicyInfo") }
	w.last = a
	return w.checkpoint()
}

func policyWriteRefused(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.refusal(a)
}

// tokenInfo reads the record of the token through the aspect path.
func (w *world) tokenInfo(tokenID string) (map[string]any, *answer, error) {
	return w.readAspectValue("urn:li:dataHubAccessToken:"+tokenID, "dataHubAccessTokenInfo", "com.linkedin.access.token.DataHubAccessTokenInfo")
}

func rewritesTokenRecord(ctx context.Context, name, owner string) error {
	w := theWorld(ctx)
	p, o := w.person(name), w.person(owner)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	if o.tokenID == "" {
		return w.fail("%s holds no token whose record to rewrite", owner)
	}
	before, _, err := w.tokenInfo(o.tokenID)
	if err != nil {
		return err
	}
	w.rewritten = fmt.Sprint(before["actorUrn"])
	info := sdkclient.Obj{{Key: "name", Value: "rewritten by " + name}, {Key: "actorUrn", Value: p.urn}, {Key: "ownerUrn", Value: p.urn},
		{Key: "createdAt", Value: time.Now().UnixMilli()}, {Key: "description", Value: "catalogspec: " + w.name}}
	a := w.writeThrough(c, "a Rest.li proposal", []sdkclient.MCP{{EntityURN: "urn:li:dataHubAccessToken:" + o.tokenID, AspectName: "dataHubAccessTokenInfo", Aspect: info}})
	a.noEffect = func() error {
		after, r, err := w.tokenInfo(o.tokenID)
		if err != nil {
			return err
		}
		if got := fmt.Sprint(after["actorUrn"]); got != w.rewritten || fmt.Sprint(after["name"]) == "rewritten by "+name {
			return w.fail("%s: the token's record now names %s (%v): it was rewritten", r.what, got, after["name"])
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

func tokenRecordUnchanged(ctx context.Context, _ string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.refusal(a)
}

// userInfo reads p's corpUserInfo through the aspect path.
func (w *world) userInfo(p *person) (map[string]any, *answer, error) {
	return w.readAspectValue(p.urn, "corpUserInfo", "com.linkedin.identity.CorpUserInfo")
}

func writesUserInfo(ctx context.Context, name, whose string) error {
	w := theWorld(ctx)
	p, o := w.person(name), w.person(whose)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	before, _, err := w.userInfo(o)
	if err != nil {
		return err
	}
	was := fmt.Sprint(before["displayName"])
	w.rewritten = "Written by " + name + " " + w.unique("name")
	info := sdkclient.Obj{{Key: "customProperties", Value: sdkclient.Obj{}}, {Key: "active", Value: true}, {Key: "displayName", Value: w.rewritten}, {Key: "email", Value: o.username + "@example.com"}}
	a := w.writeThrough(c, "a Rest.li proposal", []sdkclient.MCP{{EntityURN: o.urn, AspectName: "corpUserInfo", Aspect: info}})
	a.noEffect = func() error {
		after, r, err := w.userInfo(o)
		if err != nil {
			return err
		}
		if got := fmt.Sprint(after["displayName"]); got != was {
			return w.fail("%s: %s's display name is %q, not %q as before: the refused write changed it", r.what, whose, got, was)
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

func userInfoReadsBack(ctx context.Context, whose, _ string) error {
	w := theWorld(ctx)
	info, a, err := w.userInfo(w.person(whose))
	if err != nil {
		return err
	}
	if got := fmt.Sprint(info["displayName"]); got != w.rewritten {
		return w.fail("%s: the display name is %q, expected %q as written", a.what, got, w.rewritten)
	}
	return nil
}
