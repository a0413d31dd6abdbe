package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

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
	"whose body is larger than a MiB": {"/aspects?action=ingestProposal", func() []byte {
		return []byte(`{"proposal": {"padding": "` + strings.Repeat("x", 1<<20+16) + `"}}`)
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

// registerHTTPDetailSteps registers the steps of http_details.feature.
func registerHTTPDetailSteps(s stepRegistrar) {
	s.Step(`^the configuration says the server is capable of stateful ingestion$`, configSaysStatefulIngestion)
	s.Step(`^the administrator sends an ingestion request (whose body is not JSON|whose body has no proposal|for an action that is not served|whose body is larger than a MiB)$`, adminSendsFlawedIngestion)
	s.Step(`^the administrator sends a GraphQL request whose (query is blank|variables are a list|operationName is a number|extensions are a string)$`, adminSendsFlawedGraphQL)
	s.Step(`^the administrator sends a GraphQL request with an operation name, extensions and null variables$`, adminSendsGraphQLWithAllParameters)
	s.Step(`^the answer says the caller is the administrator$`, answerSaysCallerIsAdmin)
	s.Step(`^the administrator sends a document that does not validate, accepting (application/json|application/graphql-response\+json)$`, adminSendsInvalidDocument)
	s.Step(`^the administrator asks the (metadata service|frontend) for a path it does not serve$`, adminAsksUnservedPath)
	s.Step(`^the administrator reads their own user through the entity path$`, adminReadsOwnUser)
	s.Step(`^the answer is application/json$`, answerIsApplicationJSON)
	s.Step(`^the answer is marked nosniff$`, answerIsNosniff)
	s.Step(`^the challenge does not say the token is invalid$`, challengeDoesNotSayInvalid)
}
