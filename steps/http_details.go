package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// registerHTTPDetailsSteps registers the steps of features/http_details.feature.
func registerHTTPDetailsSteps(s stepRegistrar) {
	s.Step(`^the configuration says the server is capable of stateful ingestion$`, configSaysStatefulIngestion)
	s.Step(`^the administrator sends an ingestion request (whose body is not JSON|whose body has no proposal|for an action that is not served|whose body is larger than DataHub's 16,000,000 bytes)$`, adminSendsFlawedIngestion)
	s.Step(`^the administrator sends a GraphQL request whose (query is blank|variables are a list|operationName is a number|extensions are a string|query key appears twice)$`, adminSendsFlawedGraphQL)
	s.Step(`^the administrator sends a GraphQL request with an operation name, extensions and null variables$`, adminSendsGraphQLWithAllParameters)
	s.Step(`^the administrator sends a GraphQL request larger than a MiB to the frontend$`, adminSendsLargeGraphQLToFrontend)
	s.Step(`^the answer says the caller is the administrator$`, answerSaysCallerIsAdmin)
	s.Step(`^the administrator sends a document that does not validate, accepting (application/json|application/graphql-response\+json)$`, adminSendsInvalidDocument)
	s.Step(`^the administrator asks the (metadata service|frontend) for a path it does not serve$`, adminAsksUnservedPath)
	s.Step(`^the administrator reads their own user through the entity path$`, adminReadsOwnUser)
	s.Step(`^the answer is application/json$`, answerIsApplicationJSON)
	s.Step(`^the answer is marked nosniff$`, answerIsNosniff)
	s.Step(`^the challenge does not say the token is invalid$`, challengeDoesNotSayInvalid)
	s.Step(`^the administrator reads an entity by (a URN without an id|a URN without an entity type|a URN whose entity type has a dash|a URN with a tab in its id|a URN of 1025 characters|a URN with a NUL in its id|a URN that is not valid UTF-8) through the entity path$`, adminReadsEntityByMalformedURN)
	s.Step(`^the administrator ingests a proposal (that writes a policy|that writes an access token|whose aspect is not one of the entity's|whose aspect value is null|whose aspect value holds a NUL character|whose aspect value holds a NUL character in a key|whose aspect value holds a lone surrogate|whose aspect name is not an identifier|for a dataset URN that is not \(platform, name, origin\)|whose aspect name is 200 letters long|whose user info says active is neither true nor false|whose tag name is not text|whose dataset description is not text|whose dataset custom properties are not all text)$`, adminIngestsFlawedProposal)
	s.Step(`^the administrator reads an entity of a type the service does not know through the entity path$`, adminReadsEntityOfUnknownType)
}

// Steps of http_details.feature: the HTTP answers to what the tiers cannot
// serve.

func configSaysStatefulIngestion(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var cfg map[string]any
	if err := json.Unmarshal(a.body, &cfg); err != nil {
		return w.fail("%s is not a JSON object: %v", a.what, err)
	}
	if cfg["statefulIngestionCapable"] != true {
		return w.fail(`%s has "statefulIngestionCapable": %v, expected true`, a.what, cfg["statefulIngestionCapable"])
	}
	return nil
}

// ingestionFlaws are ingestion requests that cannot be served: the path
// (after the GMS base URL) and the body.
var ingestionFlaws = map[string]struct {
	path string
	body func() []byte
}{
	"whose body is not JSON":           {"/aspects?action=ingestProposal", func() []byte { return []byte(`{"proposal": `) }},
	"whose body has no proposal":       {"/aspects?action=ingestProposal", func() []byte { return []byte(`{"something": "else"}`) }},
	"for an action that is not served": {"/aspects?action=catalogspecNoSuchAction", func() []byte { return []byte(`{"proposal": {}}`) }},
	// DataHub's limit, under which DataHub's SDK sizes its batches: below
	// it an ingestion must be taken (restli.feature, openapi.feature).
	"whose body is larger than DataHub's 16,000,000 bytes": {"/aspects?action=ingestProposal", func() []byte {
		return []byte(`{"proposal": {"padding": "` + strings.Repeat("x", 16_000_000) + `"}}`)
	}},
}

func adminSendsFlawedIngestion(ctx context.Context, flaw string) error {
	w := theWorld(ctx)
	f, ok := ingestionFlaws[flaw]
	if !ok {
		return w.fail("unknown ingestion flaw %q", flaw)
	}
	c := w.admin()
	a := w.send(c, request{method: http.MethodPost, url: c.gms + f.path, contentType: "application/json", body: f.body(), headers: restliHeaders})
	a.what = "the administrator sending an ingestion request " + flaw
	a.noEffect = nothingToCheck // nothing names an entity to read back
	w.last = a
	return w.checkpoint()
}

// graphqlFlaws are GraphQL request bodies with one parameter malformed.
var graphqlFlaws = map[string]string{
	// encoding/json keeps the last of two keys: a query a proxy or a log
	// saw first could hide the mutation that runs.
	"query key appears twice":   `{"query": "query me { me { corpUser { urn } } }", "query": "mutation { createTag(input: {id: \"catalogspec-hidden\", name: \"hidden\"}) }"}`,
	"query is blank":            `{"query": "   "}`,
	"variables are a list":      `{"query": "query me { me { corpUser { urn } } }", "variables": [1]}`,
	"operationName is a number": `{"query": "query me { me { corpUser { urn } } }", "operationName": 7}`,
	"extensions are a string":   `{"query": "query me { me { corpUser { urn } } }", "extensions": "x"}`,
}

func (w *world) postGraphQLBody(what, body, accept string) *answer {
	c := w.admin()
	headers := map[string]string{}
	if accept != "" {
		headers["Accept"] = accept
	}
	a := w.send(c, request{method: http.MethodPost, url: c.gms + "/api/graphql", contentType: "application/json", body: []byte(body), headers: headers})
	a.what = what
	a.noEffect = nothingToCheck // a read
	return a
}

func adminSendsFlawedGraphQL(ctx context.Context, flaw string) error {
	w := theWorld(ctx)
	body, ok := graphqlFlaws[flaw]
	if !ok {
		return w.fail("unknown GraphQL flaw %q", flaw)
	}
	w.last = w.postGraphQLBody("the administrator sending a GraphQL request whose "+flaw, body, "")
	return w.checkpoint()
}

// adminSendsLargeGraphQLToFrontend posts a GraphQL request of over a MiB
// to the frontend, which must refuse it as the metadata service does, not
// call the metadata service unreachable.
func adminSendsLargeGraphQLToFrontend(ctx context.Context) error {
	w := theWorld(ctx)
	c := w.admin()
	body := `{"query": "query me { me { corpUser { urn } } }", "extensions": {"padding": "` + strings.Repeat("x", 1<<20+16) + `"}}`
	a := w.send(c, request{method: http.MethodPost, url: c.frontend + "/api/v2/graphql", contentType: "application/json", body: []byte(body)})
	a.what = "the administrator sending a GraphQL request larger than a MiB to the frontend"
	a.noEffect = nothingToCheck // a read
	w.last = a
	return w.checkpoint()
}

func adminSendsGraphQLWithAllParameters(ctx context.Context) error {
	w := theWorld(ctx)
	body := `{"query": "query me { me { corpUser { urn } } }", "operationName": "me", "extensions": {"catalogspec": true}, "variables": null}`
	w.last = w.postGraphQLBody("the administrator sending a GraphQL request with an operation name, extensions and null variables", body, "")
	return w.checkpoint()
}

func answerSaysCallerIsAdmin(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var me struct {
		CorpUser struct {
			Urn string `json:"urn"`
		} `json:"corpUser"`
	}
	if err := a.data("me", &me); err != nil {
		return w.failed(err)
	}
	if !strings.HasPrefix(me.CorpUser.Urn, "urn:li:corpuser:") {
		return w.fail("%s named %q as the caller, expected the administrator's user", a.what, me.CorpUser.Urn)
	}
	return nil
}

func adminSendsInvalidDocument(ctx context.Context, accept string) error {
	w := theWorld(ctx)
	body := `{"query": "query { catalogspecNoSuchField }"}`
	w.last = w.postGraphQLBody("the administrator sending a document that does not validate, accepting "+accept, body, accept)
	return w.checkpoint()
}

func adminAsksUnservedPath(ctx context.Context, tier string) error {
	w := theWorld(ctx)
	c := w.admin()
	base := c.gms
	if tier == "frontend" {
		base = c.frontend
	}
	a := w.send(c, request{method: http.MethodGet, url: base + "/catalogspec-no-such-path"})
	a.what = fmt.Sprintf("the administrator asking the %s for a path it does not serve", tier)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func adminReadsOwnUser(ctx context.Context) error {
	w := theWorld(ctx)
	c := w.admin()
	me := w.askWhoAmI(c, "")
	var who struct {
		CorpUser struct {
			Urn string `json:"urn"`
		} `json:"corpUser"`
	}
	if err := me.data("me", &who); err != nil {
		return w.failed(err)
	}
	a := w.readEntity(c, tierGMS, who.CorpUser.Urn, true)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func answerIsApplicationJSON(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	mt, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	if a.status != http.StatusOK || mt != "application/json" {
		return w.fail("%s answered %d with Content-Type %q, expected 200 application/json", a.what, a.status, a.header.Get("Content-Type"))
	}
	return nil
}

func answerIsNosniff(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if !strings.EqualFold(a.header.Get("X-Content-Type-Options"), "nosniff") {
		return w.fail("%s answered without X-Content-Type-Options: nosniff", a.what)
	}
	return nil
}

func challengeDoesNotSayInvalid(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if c := a.header.Get("WWW-Authenticate"); strings.Contains(c, "error=") {
		return w.fail("%s: the challenge %q gives an error code, but no credentials were sent (RFC 6750, section 3.1)", a.what, c)
	}
	return nil
}

func adminReadsEntityByMalformedURN(ctx context.Context, kind string) error {
	w := theWorld(ctx)
	mk, ok := malformedURNs[kind]
	if !ok {
		return w.fail("unknown malformed URN %q", kind)
	}
	a := w.readEntity(w.admin(), tierGMS, mk(), true)
	a.noEffect = nothingToCheck // a read
	w.last = a
	return w.checkpoint()
}

// An entity type of letters and digits, at the edges of each range, that
// no service knows.
func adminReadsEntityOfUnknownType(ctx context.Context) error {
	w := theWorld(ctx)
	a := w.readEntity(w.admin(), tierGMS, "urn:li:aAzZ09catalogspec:"+w.unique("thing"), true)
	a.noEffect = nothingToCheck // a read
	w.last = a
	return w.checkpoint()
}

// adminIngestsFlawedProposal sends a proposal that must be refused: a
// policy or a token written around their own operations (which check
// their own privileges), an aspect the entity does not have, or a null
// value. The read-back: the entity shows no such aspect.
func adminIngestsFlawedProposal(ctx context.Context, flaw string) error {
	w := theWorld(ctx)
	id := w.unique("ingest")
	p := proposalBody{ChangeType: "UPSERT", Aspect: aspectValue{ContentType: "application/json"}}
	switch flaw {
	case "that writes a policy":
		p.EntityType, p.EntityURN, p.AspectName = "dataHubPolicy", "urn:li:dataHubPolicy:"+id, "dataHubPolicyInfo"
		p.Aspect.Value = `{"displayName": "` + id + `", "type": "PLATFORM", "state": "ACTIVE", "privileges": ["MANAGE_POLICIES"], "actors": {"allUsers": true}, "editable": true}`
	case "that writes an access token":
		p.EntityType, p.EntityURN, p.AspectName = "dataHubAccessToken", "urn:li:dataHubAccessToken:"+id, "dataHubAccessTokenInfo"
		p.Aspect.Value = `{"name": "` + id + `", "actorUrn": "urn:li:corpuser:datahub", "ownerUrn": "urn:li:corpuser:datahub", "createdAt": 0}`
	case "whose aspect is not one of the entity's":
		p.EntityType, p.EntityURN, p.AspectName = "tag", "urn:li:tag:"+id, "schemaMetadata"
		p.Aspect.Value = `{"schemaName": "` + id + `"}`
	case "whose aspect value holds a NUL character":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", datasetURN(id), "datasetProperties"
		p.Aspect.Value = `{"description": "` + id + `\u0000"}`
	case "whose aspect value holds a NUL character in a key":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", datasetURN(id), "datasetProperties"
		p.Aspect.Value = `{"description": "` + id + `", "customProperties": {"a\u0000b": "c"}}`
	case "whose aspect value holds a lone surrogate":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", datasetURN(id), "datasetProperties"
		p.Aspect.Value = `{"description": "` + id + `\ud800"}`
	case "for a dataset URN that is not (platform, name, origin)":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", "urn:li:dataset:"+id, "datasetProperties"
		p.Aspect.Value = `{"description": "` + id + `"}`
	case "whose aspect name is not an identifier":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", datasetURN(id), "catalogspec-aspect"
		p.Aspect.Value = `{"description": "` + id + `"}`
	case "whose aspect name is 200 letters long":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", datasetURN(id), "catalogspec"+strings.Repeat("x", 200-len("catalogspec"))
		p.Aspect.Value = `{"description": "` + id + `"}`
	case "whose user info says active is neither true nor false":
		p.EntityType, p.EntityURN, p.AspectName = "corpuser", "urn:li:corpuser:"+id, "corpUserInfo"
		p.Aspect.Value = `{"active": "yes", "displayName": "` + id + `"}`
	case "whose tag name is not text":
		p.EntityType, p.EntityURN, p.AspectName = "tag", "urn:li:tag:"+id, "tagProperties"
		p.Aspect.Value = `{"name": 42, "description": "` + id + `"}`
	case "whose dataset description is not text":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", datasetURN(id), "datasetProperties"
		p.Aspect.Value = `{"description": ["` + id + `"]}`
	case "whose dataset custom properties are not all text":
		p.EntityType, p.EntityURN, p.AspectName = "dataset", datasetURN(id), "datasetProperties"
		p.Aspect.Value = `{"description": "` + id + `", "customProperties": {"rows": 42}}`
	case "whose aspect value is null":
		p.EntityType, p.EntityURN, p.AspectName = "tag", "urn:li:tag:"+id, "tagProperties"
		p.Aspect.Value = `null`
	default:
		return w.fail("unknown flaw %q", flaw)
	}
	c := w.admin()
	a := w.sendJSON(c, c.gms+"/aspects?action=ingestProposal", map[string]any{"proposal": p}, restliHeaders)
	a.what = "the administrator ingesting a proposal " + flaw
	a.noEffect = func() error {
		r := w.readEntity(c, tierGMS, p.EntityURN, true)
		w.takeFailures()
		if r.status == http.StatusOK && (strings.Contains(string(r.body), id) || strings.Contains(strings.ToLower(string(r.body)), strings.ToLower(p.AspectName))) {
			return w.fail("%s was refused, but %s now shows the aspect %s", a.what, p.EntityURN, p.AspectName)
		}
		return nil
	}
	w.last = a
	return w.checkpoint()
}

// datasetURN is the URN of a hive dataset named name.
func datasetURN(name string) string {
	return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,%s,PROD)", name)
}
