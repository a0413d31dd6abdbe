package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gavv/httpexpect/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// This file is the suite's HTTP client: httpexpect with a reporter that works
// outside testing.T, and a printer that records every exchange of a scenario
// (masked: mask.go).

// reporter collects httpexpect failures into the scenario's world; a step
// turns them into its error (see world.checkpoint and suite.afterStep).
type reporter struct{ w *world }

func (r reporter) Errorf(message string, args ...any) {
	r.w.addFailure(fmt.Sprintf(message, args...))
}

// recorder is an httpexpect printer that keeps each request and response of
// the scenario, so that a failing step can show what it sent and got.
type recorder struct{ w *world }

// maxDumpBody bounds each request or response body kept in the record.
const maxDumpBody = 4000

func (p recorder) Request(req *http.Request) {
	if req == nil {
		return
	}
	dump, err := httputil.DumpRequestOut(req, true)
	if err != nil {
		dump = []byte(fmt.Sprintf("%s %s (request not dumpable: %v)", req.Method, req.URL, err))
	}
	x := exchange{request: truncate(string(dump)), method: req.Method, url: req.URL.String()}
	if _, body, ok := strings.Cut(string(dump), "\r\n\r\n"); ok {
		x.body = body
	}
	for _, k := range slices.Sorted(maps.Keys(req.Header)) {
		for _, v := range req.Header[k] {
			if strings.EqualFold(k, "Authorization") {
				scheme, _, found := strings.Cut(v, " ")
				if v = "$TOKEN"; found {
					v = scheme + " $TOKEN"
				}
			}
			x.headers = append(x.headers, k+": "+v)
		}
	}
	p.w.recordRequest(x)
}

func (p recorder) Response(resp *http.Response, elapsed time.Duration) {
	if resp == nil {
		return
	}
	dump, err := httputil.DumpResponse(resp, true)
	if err != nil {
		dump = []byte(fmt.Sprintf("%s (response not dumpable: %v)", resp.Status, err))
	}
	p.w.recordResponse(truncate(string(dump)), elapsed)
}

func truncate(s string) string {
	if len(s) <= maxDumpBody {
		return s
	}
	return s[:maxDumpBody] + fmt.Sprintf("\n... (%d more bytes)", len(s)-maxDumpBody)
}

// exchange is one request and, when one came, its response.
type exchange struct {
	request  string
	response string
	elapsed  time.Duration

	// The request again, to write a curl line that repeats it; the
	// Authorization header's credentials are $TOKEN.
	method  string
	url     string
	headers []string
	body    string
}

func (x exchange) String() string {
	resp := x.response
	if resp == "" {
		resp = "(no response)"
	}
	return fmt.Sprintf("--> %s\n<-- (%s) %s", strings.TrimSpace(x.request), x.elapsed.Round(time.Millisecond), strings.TrimSpace(resp))
}

// newExpect builds the scenario's httpexpect instance.
func newExpect(w *world) *httpexpect.Expect {
	return httpexpect.WithConfig(httpexpect.Config{
		TestName: w.name,
		// Every request names its full URL (see world.send), so this base
		// is only a default.
		BaseURL:  w.suite.Target.GMS,
		Reporter: reporter{w},
		Client:   w.suite.Target.HTTPClient(30 * time.Second),
		Printers: []httpexpect.Printer{recorder{w}},
		Formatter: &httpexpect.DefaultFormatter{
			DisableRequests:  true, // the recorder shows them, masked
			DisableResponses: true,
			ColorMode:        httpexpect.ColorModeNever,
		},
	})
}

// caller is who sends a request: a person with a token, the administrator,
// or someone without a token, and the tiers they send it to.
type caller struct {
	name     string // as a scenario names them: "Ann", "the administrator"
	token    string // "" sends no Authorization header
	gms      string
	frontend string
	// scheme is what precedes the token in the Authorization header:
	// "" means "Bearer"; "-" sends the token alone.
	scheme  string
	headers map[string]string // sent with every request
}

// authorization is the Authorization header c sends, "" for none.
func (c caller) authorization() string {
	switch {
	case c.token == "":
		return ""
	case c.scheme == "":
		return "Bearer " + c.token
	case c.scheme == "-":
		return c.token
	}
	return c.scheme + " " + c.token
}

// request is what world.send sends.
type request struct {
	method      string
	url         string
	contentType string
	body        []byte
	headers     map[string]string
	// host, when set, is the Host header sent in place of the URL's.
	host string
	// noRedirect takes the answer to the request itself, not to where it
	// redirects (whose Set-Cookie would be lost).
	noRedirect bool
	// mayWrite says what the request would write to a broken target (a
	// mutation sent by GET, an ingestion with a bad token), which the step
	// then looks for: a read-only audit sends it.
	mayWrite string
	// reads marks a request that only reads although it is not a GET nor
	// a GraphQL query (an OpenAPI batch read).
	reads bool
}

// answer is what came back, with what a later step needs to judge it.
type answer struct {
	caller string // who sent the request
	what   string // what was attempted, for messages
	// subject is the URN the request was about, when it was about one.
	subject string
	status  int // 0 when no response came
	header  http.Header
	body    []byte
	resp    *httpexpect.Response
	// noEffect reads back that the attempt changed nothing; steps that
	// judge a refusal call it. Reads set it to nothingToCheck.
	noEffect func() error
	// again sends the same read once more, for what may lag; nil when the
	// request is not a read that may be repeated.
	again func() *answer
}

// nothingToCheck is the no-effect check of an attempt that cannot change
// anything (a read).
func nothingToCheck() error { return nil }

// send makes one request as c and records the exchange. A read-only
// audit sends nothing that writes to a target that works (writes).
func (w *world) send(c caller, r request) *answer {
	if w.suite.ReadOnly {
		if why := writes(r); why != "" && r.mayWrite == "" {
			w.addFailure(fmt.Sprintf("a read-only audit does not send %s %s: %s (a defect of the step)", r.method, r.url, why))
			return &answer{caller: c.name, header: http.Header{}}
		}
	}
	// What the request may make is in the run's journal before it goes.
	if err := w.traceRequest(r); err != nil {
		w.addFailure(err.Error())
		return &answer{caller: c.name, what: "a request not sent", header: http.Header{}}
	}
	req := w.http.Request(r.method, "").WithURL(r.url)
	if u, err := url.Parse(r.url); err == nil {
		// The request was made against the base URL: send the Host of the
		// URL it goes to.
		req = req.WithHost(u.Host)
	}
	if r.host != "" {
		req = req.WithHost(r.host)
	}
	if h := c.authorization(); h != "" {
		req = req.WithHeader("Authorization", h)
	}
	for k, v := range c.headers {
		req = req.WithHeader(k, v)
	}
	if r.contentType != "" {
		req = req.WithHeader("Content-Type", r.contentType)
	}
	for k, v := range r.headers {
		req = req.WithHeader(k, v)
	}
	if r.body != nil {
		req = req.WithBytes(r.body)
	}
	if r.noRedirect {
		req = req.WithRedirectPolicy(httpexpect.DontFollowRedirects)
	}
	resp := req.Expect()
	a := &answer{caller: c.name, resp: resp, header: http.Header{}}
	if raw := resp.Raw(); raw != nil {
		a.status = raw.StatusCode
		a.header = raw.Header
		a.body = []byte(resp.Body().Raw())
	}
	w.noteSessions(r.url, a)
	return a
}

// sendJSON posts v as JSON to endpoint as c.
func (w *world) sendJSON(c caller, endpoint string, v any, headers map[string]string) *answer {
	body, err := json.Marshal(v)
	if err != nil {
		w.addFailure(fmt.Sprintf("encoding a request body: %v", err))
		return &answer{caller: c.name, header: http.Header{}}
	}
	return w.send(c, request{method: http.MethodPost, url: endpoint, contentType: "application/json", body: body, headers: headers})
}

// graphQLRequest is the body of a GraphQL request over HTTP.
type graphQLRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables,omitempty"`
}

// graphQLAnswer is the body of a GraphQL response.
type graphQLAnswer struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []graphQLError             `json:"errors"`
}

type graphQLError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code any    `json:"code"` // a number in DataHub; a string is tolerated
		Type string `json:"type"`
	} `json:"extensions"`
}

func (e graphQLError) code() string {
	switch c := e.Extensions.Code.(type) {
	case nil:
		return ""
	case float64:
		return fmt.Sprintf("%.0f", c)
	default:
		return fmt.Sprint(c)
	}
}

// graphql posts a GraphQL document to the metadata service as c.
func (w *world) graphql(c caller, doc string, vars map[string]any) *answer {
	return w.graphqlAt(c, c.gms+"/api/graphql", doc, vars)
}

// graphqlAt posts a GraphQL document to the endpoint as c.
func (w *world) graphqlAt(c caller, endpoint, doc string, vars map[string]any) *answer {
	a := w.sendJSON(c, endpoint, graphQLRequest{Query: doc, Variables: vars}, nil)
	a.what = "a GraphQL request"
	return a
}

// decodeGraphQL reads a GraphQL answer; it fails when the body is not one.
func (a *answer) decodeGraphQL() (graphQLAnswer, error) {
	var g graphQLAnswer
	if a.status == 0 {
		return g, fmt.Errorf("no answer came to %s", a.what)
	}
	if err := json.Unmarshal(a.body, &g); err != nil {
		return g, fmt.Errorf("the answer to %s (status %d) is not a GraphQL response: %v", a.what, a.status, err)
	}
	return g, nil
}

// data decodes the GraphQL field into v, failing on any error in the answer.
func (a *answer) data(field string, v any) error {
	g, err := a.decodeGraphQL()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return fmt.Errorf("%s answered status %d", a.what, a.status)
	}
	if len(g.Errors) > 0 {
		e := g.Errors[0]
		return fmt.Errorf("%s failed: %q (code %s, type %s)", a.what, e.Message, e.code(), e.Extensions.Type)
	}
	raw, ok := g.Data[field]
	if !ok {
		return fmt.Errorf("the answer to %s has no data.%s", a.what, field)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("data.%s of the answer to %s is not as expected: %v", field, a.what, err)
	}
	return nil
}

// jsonBody decodes a non-GraphQL JSON body into v.
func (a *answer) jsonBody(v any) error {
	if a.status == 0 {
		return fmt.Errorf("no answer came to %s", a.what)
	}
	dec := json.NewDecoder(bytes.NewReader(a.body))
	if err := dec.Decode(v); err != nil && err != io.EOF {
		return fmt.Errorf("the answer to %s (status %d) is not the JSON expected: %v", a.what, a.status, err)
	}
	return nil
}

// writes says why a request could write to a target that works, "" when
// it only reads: a GET or HEAD other than GraphQL; a GraphQL request,
// whatever its method, whose document holds queries alone; a request
// marked as a read. What a read-only audit sends besides says so
// (request.mayWrite).
func writes(r request) string {
	u, err := url.Parse(r.url)
	if err != nil {
		return "its URL does not parse"
	}
	if strings.HasSuffix(u.Path, "/graphql") {
		doc := u.Query().Get("query")
		if len(r.body) > 0 {
			var body struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(r.body, &body); err != nil {
				return "its GraphQL body is not one the suite can read"
			}
			doc = body.Query
		}
		qd, gerr := parser.ParseQuery(&ast.Source{Input: doc})
		if gerr != nil {
			return "its GraphQL document does not parse"
		}
		for _, op := range qd.Operations {
			if op.Operation != ast.Query {
				return "it is a GraphQL " + string(op.Operation)
			}
		}
		return ""
	}
	if r.method == http.MethodGet || r.method == http.MethodHead || r.reads {
		return ""
	}
	return "it is a " + r.method + " outside GraphQL"
}
