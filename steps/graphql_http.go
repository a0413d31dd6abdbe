package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// registerGraphQLHTTPSteps registers the steps of features/graphql_http.feature.
func registerGraphQLHTTPSteps(s stepRegistrar) {
	s.Step(`^`+who+` asks the GraphQL endpoint to describe its schema$`, asksForSchema)
	s.Step(`^the answer describes a schema whose queries include me and tag$`, schemaDescribed)
	s.Step(`^`+who+` asks the GraphQL endpoint about the type (\w+), naming it in a variable$`, asksAboutType)
	s.Step(`^the answer names the type (\w+), with no errors$`, typeNamed)
	s.Step(`^`+who+` asks for a type nested (\d+) levels deep$`, asksNestedType)
	s.Step(`^`+who+` asks for (\d+) fields in one query$`, asksManyFields)
	s.Step(`^`+who+` asks for (\d+) fields (as aliases of one root field|over several different root fields|through fragments)$`, asksFieldsSpread)
	s.Step(`^`+who+` asks for (\d+) fields and (\d+) type names in one query$`, asksFieldsAndTypeNames)
	s.Step(`^`+who+` asks for her manager, her manager's manager and so on, in a query nested (\d+) levels deep$`, asksNestedManagers)
	s.Step(`^the answer is a GraphQL error, without data$`, answeredWithErrorWithoutData)
	s.Step(`^the answer has data and no errors$`, answeredWithoutErrors)
	s.Step(`^the answer holds every field asked for, with no errors$`, answeredEveryFieldAsked)
	s.Step(`^the answer is a GraphQL error saying the query's complexity is (\d+), past the limit of (\d+), without data$`, refusedForComplexity)
	s.Step(`^the request is refused, not answered$`, requestRefusedNotAnswered)
	s.Step(`^the answer is DataHub's "unauthorized" GraphQL error$`, answerIsUnauthorizedGraphQLError)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` through the frontend's (GraphQL|v2 GraphQL) endpoint$`, asksWhoSheIsThroughFrontend)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+`, accepting (application/json|application/graphql-response\+json)$`, asksWhoSheIsAccepting)
	s.Step(`^the answer comes as (application/json|application/graphql-response\+json)$`, answerComesAs)
	s.Step(`^`+who+` sends a query to the GraphQL endpoint by (GET|PUT|PATCH|DELETE)$`, sendsQueryByMethod)
	s.Step(`^`+who+` sends a tag creation to the GraphQL endpoint by GET$`, sendsTagCreationByGET)
	s.Step(`^`+who+` sends a GraphQL request whose body is not valid JSON$`, sendsBodyNotJSON)
	s.Step(`^`+who+` sends a GraphQL request whose body has no query$`, sendsBodyWithoutQuery)
	s.Step(`^`+who+` sends a GraphQL request whose body has a second JSON object after the first$`, sendsTwoObjects)
	s.Step(`^`+who+` sends a GraphQL query declared as plain text$`, sendsQueryAsPlainText)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` in a body laid out over several lines and indented with tabs$`, asksWhoSheIsInALaidOutBody)
	s.Step(`^the answer says that only POST is allowed$`, answerAllowsOnlyPOST)
	s.Step(`^the answer does not repeat the body that was sent$`, answerDoesNotEcho)
}

// graphqlState is what a GraphQL transport scenario sent.
type graphqlState struct {
	echoMarker string // a marker sent in a body the answer must not echo
	// fieldsAsked are the names the last query of many fields gives its
	// root fields: its answer's data holds each of them and nothing else.
	fieldsAsked []string
}

// frontendGraphQLPath is where the frontend answers GraphQL, by the name
// graphql_http.feature gives the endpoint.
func frontendGraphQLPath(endpoint string) string {
	if endpoint == "v2 GraphQL" {
		return "/api/v2/graphql"
	}
	return "/api/graphql"
}

// getURL is the GraphQL endpoint with a request in the query string, the
// way GraphQL over GET would carry it.
func getURL(gms, doc string, vars map[string]any) string {
	q := url.Values{"query": {doc}}
	if vars != nil {
		v, _ := json.Marshal(vars)
		q.Set("variables", string(v))
	}
	return gms + "/api/graphql?" + q.Encode()
}

// Steps.

func asksWhoSheIsThroughFrontend(ctx context.Context, name, endpoint string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.askWhoAmI(c, c.frontend+frontendGraphQLPath(endpoint))
	return w.checkpoint()
}

func sendsQueryByMethod(ctx context.Context, name, method string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	r := request{method: method, url: c.gms + "/api/graphql"}
	if method == http.MethodGet {
		r.url = getURL(c.gms, w.suite.docs.me, nil)
	} else {
		r.contentType = "application/json"
		r.body, _ = json.Marshal(graphQLRequest{Query: w.suite.docs.me})
	}
	a := w.send(c, r)
	a.what = fmt.Sprintf("%s sending a query by %s", name, method)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func sendsTagCreationByGET(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	t := w.newTag()
	w.tag = t
	vars := map[string]any{"input": map[string]any{"id": t.id, "name": t.name, "description": t.description}}
	a := w.send(c, request{method: http.MethodGet, url: getURL(c.gms, w.suite.docs.createTag, vars)})
	a.what = fmt.Sprintf("%s sending the creation of the tag %s by GET", name, t.urn)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.undoTag(t)
	w.last = a
	return w.checkpoint()
}

// sendBody posts body to the GraphQL endpoint as name, with contentType.
func (w *world) sendBody(name, contentType string, body []byte, what string) error {
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.send(c, request{method: http.MethodPost, url: c.gms + "/api/graphql", contentType: contentType, body: body})
	a.what = fmt.Sprintf("%s sending %s", name, what)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func sendsBodyNotJSON(ctx context.Context, name string) error {
	w := theWorld(ctx)
	w.echoMarker = "catalogspec-echo-" + w.id
	body := fmt.Sprintf(`{"query": "query me { me { corpUser { urn } } }", "variables": {"marker": %q`, w.echoMarker)
	return w.sendBody(name, "application/json", []byte(body), "a body that is not valid JSON")
}

// sendsTwoObjects sends a valid request followed by a second JSON object: a
// parser that stops at the first would run it, and which one counts is
// ambiguous.
func sendsTwoObjects(ctx context.Context, name string) error {
	w := theWorld(ctx)
	w.echoMarker = "catalogspec-echo-" + w.id
	first, _ := json.Marshal(graphQLRequest{Query: w.suite.docs.me})
	second, _ := json.Marshal(map[string]any{"query": "{ me { corpUser { urn } } }", "operationName": w.echoMarker})
	return w.sendBody(name, "application/json", append(append(first, '\n'), second...), "a body with a second JSON object after the first")
}

func sendsBodyWithoutQuery(ctx context.Context, name string) error {
	w := theWorld(ctx)
	w.echoMarker = "catalogspec-echo-" + w.id
	body, _ := json.Marshal(map[string]any{"variables": map[string]string{"marker": w.echoMarker}, "operationName": w.echoMarker})
	return w.sendBody(name, "application/json", body, "a body without a query")
}

// asksWhoSheIsInALaidOutBody sends the who-am-I question in a body laid
// out as a person or a pretty-printer lays out JSON: every kind of white
// space JSON allows (space, tab, line feed, carriage return) between its
// parts, before and after it.
func asksWhoSheIsInALaidOutBody(ctx context.Context, name string) error {
	w := theWorld(ctx)
	query, _ := json.Marshal(w.suite.docs.me)
	body := "\r\n{\r\n\t\"query\" :\t" + string(query) + " ,\r\n\t\"variables\" : {\n\t},\n\t\"operationName\"\t: null\n}\r\n"
	return w.sendBody(name, "application/json", []byte(body), "the question who they are in a body laid out over several lines and indented with tabs")
}

func sendsQueryAsPlainText(ctx context.Context, name string) error {
	w := theWorld(ctx)
	body, _ := json.Marshal(graphQLRequest{Query: w.suite.docs.me})
	return w.sendBody(name, "text/plain", body, "a query declared as plain text")
}

func answerAllowsOnlyPOST(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	a.resp.Header("Allow").IsEqual(http.MethodPost)
	return w.checkpoint()
}

func answerDoesNotEcho(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if w.echoMarker == "" {
		return w.fail("no marked body was sent")
	}
	if a.status == 0 {
		return w.fail("no answer came to %s", a.what)
	}
	if strings.Contains(string(a.body), w.echoMarker) {
		return w.fail("the answer to %s repeats the body that was sent", a.what)
	}
	return nil
}

func asksWhoSheIsAccepting(ctx context.Context, name, mediaType string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.sendJSON(c, c.gms+"/api/graphql", graphQLRequest{Query: w.suite.docs.me}, map[string]string{"Accept": mediaType})
	a.what = c.name + " asking who they are, accepting " + mediaType
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// answerComesAs checks the media type of the last answer (any parameters,
// such as a charset, aside).
func answerComesAs(ctx context.Context, mediaType string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	got, _, err := mime.ParseMediaType(a.header.Get("Content-Type"))
	if err != nil || got != mediaType {
		return w.fail("%s came as %q, expected %s", a.what, a.header.Get("Content-Type"), mediaType)
	}
	return nil
}

func asksForSchema(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.graphql(c, w.suite.docs.introspection, nil)
	a.what = name + " asking the GraphQL endpoint to describe its schema"
	a.noEffect = nothingToCheck // a read
	w.last = a
	return w.checkpoint()
}

func schemaDescribed(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	var schema struct {
		QueryType struct {
			Name   string `json:"name"`
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
		} `json:"queryType"`
		Types []struct {
			Name string `json:"name"`
		} `json:"types"`
	}
	if err := a.data("__schema", &schema); err != nil {
		return w.failed(err)
	}
	queries := map[string]bool{}
	for _, f := range schema.QueryType.Fields {
		queries[f.Name] = true
	}
	if !queries["me"] || !queries["tag"] {
		return w.fail("%s: the query type %q lists %d fields, without me or tag", a.what, schema.QueryType.Name, len(schema.QueryType.Fields))
	}
	return nil
}

func asksAboutType(ctx context.Context, name, typ string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.graphql(c, w.suite.docs.typeByName, map[string]any{"name": typ})
	a.what = fmt.Sprintf("%s asking about the type %s in a variable", name, typ)
	a.noEffect = nothingToCheck // a read
	w.last = a
	return w.checkpoint()
}

func typeNamed(ctx context.Context, typ string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	g, err := a.decodeGraphQL()
	if err != nil {
		return w.failed(err)
	}
	if len(g.Errors) > 0 {
		return w.fail("%s was answered with errors: %s", a.what, g.Errors[0].Message)
	}
	var t *struct {
		Name string `json:"name"`
	}
	if err := a.data("__type", &t); err != nil {
		return w.failed(err)
	}
	if t == nil || t.Name != typ {
		return w.fail("%s: __type is %+v, expected the type %s", a.what, t, typ)
	}
	return nil
}

// asksNestedType asks, through introspection, for a type's ofType nested
// until the document is levels deep (__type is the first level, name the
// last): a document DataHub serves while levels is within its depth limit.
func asksNestedType(ctx context.Context, name string, levels int) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	if levels < 3 {
		return w.fail("a nested query needs at least 3 levels")
	}
	inner := levels - 2
	doc := `{ __type(name: "String") { ` + strings.Repeat("ofType { ", inner) + "name" + strings.Repeat(" }", inner) + " name } }"
	a := w.graphql(c, doc, nil)
	a.what = fmt.Sprintf("%s asking for a type nested %d levels deep", name, levels)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// asksNestedManagers asks for p's user, its properties' manager, that
// manager's properties' manager and so on, until the document is levels
// deep (corpUser is the first level; the last is urn under a manager or
// displayName under properties). CorpUser.properties.manager is DataHub's
// own schema (CorpUserProperties.manager: CorpUser), the one place where it
// and the reference nest an ordinary query without end: DataHub's depth
// limit, not the schema, bounds it. How deep the data goes does not matter:
// the limit is a property of the document, checked before it runs.
func asksNestedManagers(ctx context.Context, name string, levels int) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	if levels < 2 {
		return w.fail("a nested query needs at least 2 levels")
	}
	var b strings.Builder
	b.WriteString("query nestedManagers($urn: String!) { corpUser(urn: $urn) { ")
	leaf := "urn"
	for level := 2; level < levels; level++ {
		if level%2 == 0 {
			b.WriteString("properties { ")
			leaf = "displayName"
		} else {
			b.WriteString("manager { ")
			leaf = "urn"
		}
	}
	b.WriteString(leaf + strings.Repeat(" }", levels))
	a := w.graphql(c, b.String(), map[string]any{"urn": p.urn})
	a.what = fmt.Sprintf("%s asking for her managers in a query nested %d levels deep", name, levels)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// answeredWithErrorWithoutData: a GraphQL answer that carries errors and no
// data (data absent or null), as DataHub's engine answers a document it
// refuses before running it (graphql-java's AbortExecutionException and its
// good-faith introspection check: HTTP 200, errors, data null).
func answeredWithErrorWithoutData(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	g, err := a.decodeGraphQL()
	if err != nil {
		return w.failed(err)
	}
	if len(g.Errors) == 0 {
		return w.fail("%s was answered without an error (status %d): %.300s", a.what, a.status, a.body)
	}
	if len(g.Data) > 0 {
		return w.fail("%s was answered with an error and with data, as if it had run: %.300s", a.what, a.body)
	}
	return nil
}

// asksManyFields asks for n fields in one query, over several different
// root fields (see fieldsDocument).
func asksManyFields(ctx context.Context, name string, n int) error {
	return asksFieldsSpread(ctx, name, n, "over several different root fields")
}

// asksFieldsSpread asks for n fields in one query, the way how says.
func asksFieldsSpread(ctx context.Context, name string, n int, how string) error {
	return asksFields(ctx, name, n, how, 0)
}

// asksFieldsAndTypeNames asks for n fields over several root fields and
// for __typename k times besides, half at the top, half in a user.
func asksFieldsAndTypeNames(ctx context.Context, name string, n, k int) error {
	return asksFields(ctx, name, n, "over several different root fields", k)
}

func asksFields(ctx context.Context, name string, n int, how string, typeNames int) error {
	w := theWorld(ctx)
	p := w.person(name)
	c, err := w.as(p)
	if err != nil {
		return err
	}
	doc, keys, err := fieldsDocument(n, how, typeNames)
	if err != nil {
		return w.fail("%v", err)
	}
	w.fieldsAsked = keys
	var vars map[string]any
	if strings.Contains(doc, "$urn") {
		vars = map[string]any{"urn": p.urn}
	}
	a := w.graphql(c, doc, vars)
	a.what = fmt.Sprintf("%s asking for %d fields %s", name, n, how)
	if typeNames > 0 {
		a.what += fmt.Sprintf(" and %d type names", typeNames)
	}
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// complexityPart is a root field and what DataHub's complexity limit
// (GRAPHQL_QUERY_COMPLEXITY_LIMIT, 2,000) counts for it: graphql-java's
// MaxQueryComplexityInstrumentation with DataHub's
// DataHubFieldComplexityCalculator counts each field 1 plus its
// selections, over the whole operation, through fragments, and __typename
// nothing; a field adds more only for an input with a count under a
// search's results, or an input that is a list, which none of these has.
type complexityPart struct {
	field, fragmented string // the field, and the same through fragments
	cost              int
}

var (
	// appConfigParts are one root field, appConfig, two ways.
	appConfigParts = []complexityPart{
		{"appConfig { authConfig { tokenAuthEnabled } }", "appConfig { ...Auth }", 3},
		{"appConfig { appVersion }", "appConfig { ...Version }", 2},
	}
	// mixedParts are three root fields.
	mixedParts = []complexityPart{
		{"me { corpUser { urn } }", "me { ...Me }", 3},
		{"appConfig { appVersion }", "appConfig { ...Version }", 2},
		{"corpUser(urn: $urn) { urn }", "corpUser(urn: $urn) { ...User }", 2},
	}
	// fieldFragments are the fragments the parts spread, by name.
	fieldFragments = map[string]string{
		"Auth":    "fragment Auth on AppConfig { authConfig { tokenAuthEnabled } }",
		"Version": "fragment Version on AppConfig { appVersion }",
		"Me":      "fragment Me on AuthenticatedUser { corpUser { ...User } }",
		"User":    "fragment User on CorpUser { urn }",
	}
)

// fieldsDocument is a query whose fields DataHub's complexity limit counts
// n in all: aliases of one root field, of several, or of several through
// fragments (four fragments on Query, each selecting its fields through
// fragments of their own); with typeNames aliases of __typename besides,
// half at the top and half in the asker's user, which it counts nothing.
// The operation declares $urn (the asker's URN) when it uses it. keys are
// the names of its root fields, as its answer's data holds them.
func fieldsDocument(n int, how string, typeNames int) (doc string, keys []string, err error) {
	parts := mixedParts
	if how == "as aliases of one root field" {
		parts = appConfigParts
	}
	var fields []string
	for left, i := n, 0; left > 0; i++ {
		p := parts[i%len(parts)]
		if left-p.cost == 1 || left < p.cost {
			// Another part, so that what is left can still be made.
			found := false
			for _, q := range parts {
				if q.cost != p.cost && left-q.cost != 1 && left >= q.cost {
					p, found = q, true
					break
				}
			}
			if !found {
				return "", nil, fmt.Errorf("no query of these root fields has a complexity of %d", n)
			}
		}
		f := p.field
		if how == "through fragments" {
			f = p.fragmented
		}
		keys = append(keys, fmt.Sprintf("f%d", len(fields)))
		fields = append(fields, fmt.Sprintf("f%d: %s", len(fields), f))
		left -= p.cost
	}
	var b strings.Builder
	b.WriteString("query fields {")
	if strings.Contains(strings.Join(fields, " "), "$urn") {
		// GraphQL refuses a variable declared and never used.
		b.Reset()
		b.WriteString("query fields($urn: String!) {")
	}
	if how == "through fragments" {
		b.WriteString(" ...Q0 ...Q1 ...Q2 ...Q3 }\n")
		for q := range 4 {
			fmt.Fprintf(&b, "fragment Q%d on Query {", q)
			for i := q; i < len(fields); i += 4 {
				b.WriteString(" " + fields[i])
			}
			b.WriteString(" }\n")
		}
		// Only the fragments spread: GraphQL refuses one never used.
		for _, f := range []string{"Auth", "Version", "Me", "User"} {
			if strings.Contains(b.String(), "..."+f+" ") {
				b.WriteString(fieldFragments[f] + "\n")
			}
		}
		return b.String(), keys, nil
	}
	if typeNames > 0 {
		// The first field is me { corpUser { urn } }: half of them there.
		var in strings.Builder
		for i := typeNames / 2; i < typeNames; i++ {
			fmt.Fprintf(&in, " t%d: __typename", i)
		}
		fields[0] = strings.Replace(fields[0], "urn }", "urn"+in.String()+" }", 1)
		for i := range typeNames / 2 {
			fmt.Fprintf(&b, " t%d: __typename", i)
			keys = append(keys, fmt.Sprintf("t%d", i))
		}
	}
	for _, f := range fields {
		b.WriteString(" " + f)
	}
	b.WriteString(" }")
	return b.String(), keys, nil
}

// refusedForComplexity: an error without data whose message names the
// complexity, the figure counted and the limit. DataHub's is graphql-java's
// "maximum query complexity exceeded 2001 > 2000"
// (MaxQueryComplexityInstrumentation), the reference's gqlgen's "operation
// has complexity 2001, which exceeds the limit of 2000".
func refusedForComplexity(ctx context.Context, counted, limit int) error {
	if err := answeredWithErrorWithoutData(ctx); err != nil {
		return err
	}
	w := theWorld(ctx)
	g, err := w.last.decodeGraphQL()
	if err != nil {
		return w.failed(err)
	}
	msg := g.Errors[0].Message
	if !strings.Contains(strings.ToLower(msg), "complexity") || !strings.Contains(msg, strconv.Itoa(counted)) || !strings.Contains(msg, strconv.Itoa(limit)) {
		return w.fail("%s was refused with %q, which does not say its complexity is %d, past the limit of %d", w.last.what, msg, counted, limit)
	}
	return nil
}

// answeredEveryFieldAsked: a 200 without errors whose data holds every
// root field the query of many fields asked for, none of them null, and
// nothing else.
func answeredEveryFieldAsked(ctx context.Context) error {
	if err := answeredWithoutErrors(ctx); err != nil {
		return err
	}
	w := theWorld(ctx)
	g, err := w.last.decodeGraphQL()
	if err != nil {
		return w.failed(err)
	}
	if len(w.fieldsAsked) == 0 {
		return w.fail("no query of many fields was sent before this step (a defect of the scenario)")
	}
	for _, k := range w.fieldsAsked {
		if v, ok := g.Data[k]; !ok || string(v) == "null" {
			return w.fail("%s was answered without its field %s (%s): %.300s", w.last.what, k, v, w.last.body)
		}
	}
	if len(g.Data) != len(w.fieldsAsked) {
		return w.fail("%s was answered with %d root fields, where it asked for %d", w.last.what, len(g.Data), len(w.fieldsAsked))
	}
	return nil
}

// answeredWithoutErrors: a 200 whose data is there and errors absent.
func answeredWithoutErrors(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	g, err := a.decodeGraphQL()
	if err != nil {
		return w.failed(err)
	}
	if len(g.Errors) > 0 {
		return w.fail("%s was answered with errors: %s", a.what, g.Errors[0].Message)
	}
	if len(g.Data) == 0 {
		return w.fail("%s was answered without data", a.what)
	}
	return nil
}

// requestRefusedNotAnswered: any 4xx or 5xx, and the request had no effect
// (read back where it names one). A refusal of a method DataHub does not
// serve is 405 or, for GET at /api/graphql, 500: the status is not the rule.
func requestRefusedNotAnswered(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status < 400 || a.status > 599 {
		return w.fail("%s answered status %d, expected a refusal (4xx or 5xx)", a.what, a.status)
	}
	return w.noEffect(a)
}

// unauthorizedMessage is the message DataHub gives a caller who lacks a
// privilege (SPEC.md, GraphQL over HTTP).
const unauthorizedMessage = "Unauthorized to perform this action. Please contact your DataHub administrator."

// answerIsUnauthorizedGraphQLError checks DataHub's exact shape of a refusal:
// the field null, errors[0] with DataHub's message and extensions
// {"code": 403, "type": "UNAUTHORIZED"}, and nothing changed.
func answerIsUnauthorizedGraphQLError(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	e, err := w.graphQLRefusal(a, "DataHub's unauthorized error")
	if err != nil {
		return err
	}
	if e.Message != unauthorizedMessage || e.code() != "403" || e.Extensions.Type != "UNAUTHORIZED" {
		return w.fail("%s failed with message %q, code %q and type %q; expected %q, 403 and UNAUTHORIZED",
			a.what, e.Message, e.code(), e.Extensions.Type, unauthorizedMessage)
	}
	return w.noEffect(a)
}
