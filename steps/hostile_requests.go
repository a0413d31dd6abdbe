package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// registerHostileRequestsSteps registers the steps of features/hostile_requests.feature.
func registerHostileRequestsSteps(s stepRegistrar) {
	s.Step(`^`+who+` sends a document (whose fragments spread each other ten times over ten levels|with 3,000 aliases of one field with different arguments|with 1,000 aliases of one field with different arguments|with 6,000 copies of one field)$`, sendsHostileDocument)
	s.Step(`^the document is refused as a bad request within (\d+) seconds$`, documentRefusedWithin)
	s.Step(`^the service still answers `+who+`$`, serviceStillAnswers)
	s.Step(`^`+who+` creates a tag whose name holds a NUL character, sent (in a variable|in the document itself)$`, createsTagWithNUL)
	s.Step(`^`+who+` asks the (metadata service|frontend) who she is with her token in one Authorization header( and the administrator's in a second)?$`, asksWithAuthorizationHeaders)
	s.Step(`^the administrator creates a tag with a second Authorization header, `+who+`'s$`, adminCreatesTagWithTwoHeaders)
	s.Step(`^the administrator reads the tag's entity with a second Authorization header, `+who+`'s$`, adminReadsTagWithTwoHeaders)
	s.Step(`^the answer shows nothing of the tag$`, answerDoesNotShowTag)
	s.Step(`^(the administrator|someone without a token) creates a tag through the (metadata service|frontend) in a request that names another host$`, createsTagNamingAnotherHost)
	s.Step(`^the request is refused as sent to a host the service does not answer to$`, refusedAsMisdirected)
	s.Step(`^the administrator creates a tag through the (metadata service|frontend) in a request that names (localhost|the service's own host) followed by another domain$`, createsTagNamingPrefixedHost)
}

// Steps of hostile_requests.feature: documents built to exhaust the
// service, strings it cannot store, and ambiguous credentials.

// hostileState is what a hostile request's Then step judges besides the
// answer.
type hostileState struct {
	hostileTook time.Duration // how long the document took to be answered
}

// hostileDocuments builds each document a scenario can send. Each is
// valid GraphQL text whose cost, unbounded, is out of all proportion to
// its size.
var hostileDocuments = map[string]func() string{
	// Under 1 KB standing for 10^11 fields: F<n> spreads F<n-1> ten times.
	"whose fragments spread each other ten times over ten levels": func() string {
		var b strings.Builder
		b.WriteString("query Bomb { ...F10 }\nfragment F0 on Query { me { corpUser { urn } } }\n")
		for i := 1; i <= 10; i++ {
			fmt.Fprintf(&b, "fragment F%d on Query {%s }\n", i, strings.Repeat(fmt.Sprintf(" ...F%d", i-1), 10))
		}
		return b.String()
	},
	// Validation compares fields of one response name pairwise, and
	// reports every conflicting pair.
	"with 3,000 aliases of one field with different arguments": func() string { return aliases(3000) },
	"with 1,000 aliases of one field with different arguments": func() string { return aliases(1000) },
	"with 6,000 copies of one field": func() string {
		return "query Same {" + strings.Repeat(" me { corpUser { urn } }", 6000) + " }"
	},
}

func aliases(n int) string {
	var b strings.Builder
	b.WriteString("query Overlap {")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ` x: tag(urn: "urn:li:tag:catalogspec-%d") { urn }`, i)
	}
	b.WriteString(" }")
	return b.String()
}

func sendsHostileDocument(ctx context.Context, name, shape string) error {
	w := theWorld(ctx)
	mk, ok := hostileDocuments[shape]
	if !ok {
		return w.fail("unknown document %q", shape)
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	began := time.Now()
	a := w.graphql(c, mk(), nil)
	w.hostileTook = time.Since(began)
	a.what = fmt.Sprintf("%s sending a document %s", name, shape)
	a.noEffect = nothingToCheck // queries only
	w.last = a
	return nil // judged by the Then step: a refusal may come as an HTTP 4xx
}

// documentRefusedWithin judges a refusal the ways GraphQL over HTTP allows:
// an HTTP 4xx, or a GraphQL error of type BAD_REQUEST (code 400) without
// data, in time.
func documentRefusedWithin(ctx context.Context, seconds int) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	w.takeFailures() // a 4xx is one of the answers this step accepts
	if err != nil && a == nil {
		return err
	}
	limit := time.Duration(seconds) * time.Second
	if a.status == 0 {
		return w.fail("%s: no answer came within the client's timeout (the service took %s); expected a refusal within %s", a.what, w.hostileTook.Round(time.Millisecond), limit)
	}
	if w.hostileTook > limit {
		return w.fail("%s was answered after %s; expected a refusal within %s", a.what, w.hostileTook.Round(time.Millisecond), limit)
	}
	if a.status >= 400 && a.status < 500 {
		return nil
	}
	if a.status != http.StatusOK {
		return w.fail("%s was answered with status %d; expected a 4xx or a GraphQL error saying the request is bad", a.what, a.status)
	}
	var g struct {
		Data   json.RawMessage `json:"data"`
		Errors []graphQLError  `json:"errors"`
	}
	if err := json.Unmarshal(a.body, &g); err != nil {
		return w.fail("%s: the answer is not a GraphQL response: %v", a.what, err)
	}
	if len(g.Errors) == 0 || (len(g.Data) > 0 && string(g.Data) != "null") {
		return w.fail("%s was carried out (%d errors, data %.80s); expected it refused as a bad request", a.what, len(g.Errors), g.Data)
	}
	if e := g.Errors[0]; e.code() != "400" {
		return w.fail("%s was refused with code %q and type %q (%q); expected 400 BAD_REQUEST", a.what, e.code(), e.Extensions.Type, e.Message)
	}
	if len(a.body) > 64<<10 {
		return w.fail("%s was refused with an answer of %d bytes; a refusal should say what limit was passed, not list every conflict", a.what, len(a.body))
	}
	return nil
}

func serviceStillAnswers(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.askWhoAmI(c, "")
	if err := w.answerNames(a, w.person(name).urn); err != nil {
		return err
	}
	return w.checkpoint()
}

// createsTagWithNUL sends createTag with U+0000 in the name.
func createsTagWithNUL(ctx context.Context, name, how string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	t := w.newTag()
	w.tag = t
	var a *answer
	switch how {
	case "in a variable":
		a = w.graphql(c, w.suite.docs.createTag, map[string]any{"input": map[string]any{"id": t.id, "name": "catalogspec\x00nul", "description": t.description}})
	case "in the document itself":
		doc := fmt.Sprintf(`mutation { createTag(input: {id: %q, name: "catalogspec\u0000nul"}) }`, t.id)
		a = w.graphql(c, doc, nil)
	default:
		return w.fail("unknown way %q", how)
	}
	a.what = fmt.Sprintf("%s creating the tag %s with a NUL in its name, %s", name, t.urn, how)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.undoTag(t)
	w.last = a
	return w.checkpoint()
}

// asksWithAuthorizationHeaders asks who name is at a tier with name's token
// in one Authorization header and, when second is set, the administrator's
// in another: a server that takes the last one would run as the
// administrator.
func asksWithAuthorizationHeaders(ctx context.Context, name, tier, second string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	endpoint := c.gms + "/api/graphql"
	if tier == "frontend" {
		endpoint = c.frontend + "/api/v2/graphql"
	}
	body, _ := json.Marshal(graphQLRequest{Query: w.suite.docs.me})
	r := request{method: http.MethodPost, url: endpoint, contentType: "application/json", body: body}
	what := fmt.Sprintf("%s asking the %s who she is with her token in one Authorization header", name, tier)
	if second != "" {
		r.headers = map[string]string{"Authorization": w.admin().authorization()}
		what += " and the administrator's in a second"
	}
	a := w.send(c, r)
	a.what = what
	a.noEffect = nothingToCheck // a read
	w.last = a
	return w.checkpoint()
}

// adminCreatesTagWithTwoHeaders sends a tag creation carrying the
// administrator's token in one Authorization header and name's in a second:
// a server that judged the request by the first would make the tag.
func adminCreatesTagWithTwoHeaders(ctx context.Context, name string) error {
	w := theWorld(ctx)
	other, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	c := w.admin()
	t := w.newTag()
	w.tag = t
	body, _ := json.Marshal(graphQLRequest{Query: w.suite.docs.createTag, Variables: map[string]any{"input": map[string]any{"id": t.id, "name": t.name}}})
	r := request{method: http.MethodPost, url: c.gms + "/api/graphql", contentType: "application/json", body: body,
		headers: map[string]string{"Authorization": other.authorization()}}
	a := w.send(c, r)
	a.what = fmt.Sprintf("the administrator creating the tag %s with a second Authorization header, %s's", t.urn, name)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.undoTag(t)
	w.last = a
	return w.checkpoint()
}

// adminReadsTagWithTwoHeaders reads the tag's entity with the
// administrator's token in one Authorization header and name's in a second.
func adminReadsTagWithTwoHeaders(ctx context.Context, name string) error {
	w := theWorld(ctx)
	other, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	if w.tag == nil {
		return w.fail("no tag was made")
	}
	c := w.admin()
	a := w.send(c, request{method: http.MethodGet, url: entityURL(c, tierGMS, w.tag.urn, false),
		headers: map[string]string{"Authorization": other.authorization()}})
	a.what = fmt.Sprintf("the administrator reading %s with a second Authorization header, %s's", w.tag.urn, name)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// answerDoesNotShowTag: the answer is one JSON problem, with nothing of the
// tag in it.
func answerDoesNotShowTag(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if strings.Contains(string(a.body), "TagSnapshot") || strings.Contains(string(a.body), "TagProperties") {
		return w.fail("%s was refused, but the answer shows the tag: %.300s", a.what, a.body)
	}
	var v map[string]any
	if err := json.Unmarshal(a.body, &v); err != nil {
		return w.fail("%s: the answer is not one JSON object: %v: %.300s", a.what, err, a.body)
	}
	return nil
}

// createsTagNamingAnotherHost sends a tag creation to the tier's address
// with a Host header naming another site, as a page of that site sends it
// once its name resolves to the service.
func createsTagNamingAnotherHost(ctx context.Context, who, tier string) error {
	w := theWorld(ctx)
	c := w.admin()
	if who == "someone without a token" {
		c = w.anonymous()
	}
	return w.createTagNamingHost(c, tier, func(string) string { return w.unique("rebound") + ".example" })
}

// createsTagNamingPrefixedHost names a host that begins with one the
// service answers to, localhost or the host of its own URL, followed by a
// domain of another site's (as its owner may name a host of theirs):
// "localhost.<x>.example", "127.0.0.1.<x>.example".
func createsTagNamingPrefixedHost(ctx context.Context, tier, prefix string) error {
	w := theWorld(ctx)
	return w.createTagNamingHost(w.admin(), tier, func(own string) string {
		if prefix == "localhost" {
			own = "localhost"
		}
		return own + "." + w.unique("rebound") + ".example"
	})
}

// createTagNamingHost sends a tag creation as c to the tier's address,
// naming in its Host header the name hostFor makes of the tier's own host
// name (and the tier's port).
func (w *world) createTagNamingHost(c caller, tier string, hostFor func(own string) string) error {
	endpoint := c.gms + "/api/graphql"
	if tier == "frontend" {
		endpoint = c.frontend + "/api/graphql"
	}
	t := w.newTag()
	w.tag = t
	body, _ := json.Marshal(graphQLRequest{Query: w.suite.docs.createTag, Variables: map[string]any{"input": map[string]any{"id": t.id, "name": t.name}}})
	u, err := url.Parse(endpoint)
	if err != nil {
		return w.failed(err)
	}
	host := hostFor(u.Hostname())
	if u.Port() != "" {
		host += ":" + u.Port()
	}
	a := w.send(c, request{method: http.MethodPost, url: endpoint, contentType: "application/json", body: body, host: host})
	a.what = fmt.Sprintf("%s creating the tag %s through the %s, naming the host %s", c.name, t.urn, tier, host)
	a.noEffect = func() error { return w.tagAbsent(t) }
	w.undoTag(t)
	w.last = a
	return w.checkpoint()
}

// refusedAsMisdirected: the answer is 421 (Misdirected Request) or 400,
// and the attempt changed nothing.
func refusedAsMisdirected(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status != http.StatusMisdirectedRequest && a.status != http.StatusBadRequest {
		return w.fail("%s answered status %d, expected 421 or 400", a.what, a.status)
	}
	return a.noEffect()
}
