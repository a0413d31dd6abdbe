package hardening

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Bounds of the abuse test. Each attack took minutes or gigabytes before
// the service bounded it; the bounds are generous so that a loaded machine
// cannot make the test flaky, and still three orders of magnitude below
// an unbounded attack. The figures measured are logged.
const (
	maxCPU    = 500 * time.Millisecond // server CPU time to refuse one attack
	maxWall   = 2 * time.Second        // wall time to the answer
	maxGrowth = 50 << 10               // kB of peak memory (VmHWM) an attack may add
)

// fragmentBomb spreads each fragment ten times from the next, eleven
// levels: under 1 KB standing for 10^11 fields.
func fragmentBomb() string {
	var b strings.Builder
	b.WriteString("query Bomb { ...F10 }\nfragment F0 on Query { me { corpUser { urn } } }\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query {%s }\n", i, strings.Repeat(fmt.Sprintf(" ...F%d", i-1), 10))
	}
	return b.String()
}

// aliasOverlap gives n fields one response name with different arguments:
// validation compares them pairwise.
func aliasOverlap(n int) string {
	var b strings.Builder
	b.WriteString("query Overlap {")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ` x: tag(urn: "urn:li:tag:t%d") { urn }`, i)
	}
	b.WriteString(" }")
	return b.String()
}

func identicalFields(n int) string {
	return "query Same {" + strings.Repeat(" me { corpUser { urn } }", n) + " }"
}

// distinctFields spreads one fragment of n aliased fields k times, each
// spread under its own alias: n*k fields, no response name repeated.
func distinctFields(n, k int) string {
	var b strings.Builder
	b.WriteString("query Wide {")
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, " m%d: me { ...U }", i)
	}
	b.WriteString(" }\nfragment U on AuthenticatedUser {")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " u%d: corpUser { urn }", i)
	}
	b.WriteString(" }")
	return b.String()
}

// fragmentRing spreads n fragments at the top, each spreading the next:
// a cycle that validation took seconds to find (2.8 s for 1,000).
func fragmentRing(n int) string {
	var b strings.Builder
	b.WriteString("query Ring {")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " ...F%d", i)
	}
	b.WriteString(" }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d }\n", i, (i+1)%n)
	}
	return b.String()
}

// fragmentChain has n fragments each spreading the next: no cycle, but the
// document check listed each one's names by walking the rest (7 s for 800).
func fragmentChain(n int) string {
	var b strings.Builder
	b.WriteString("query Chain { ...F0 }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { a%d: __typename", i, i)
		if i < n-1 {
			fmt.Fprintf(&b, " ...F%d", i+1)
		}
		b.WriteString(" }\n")
	}
	return b.String()
}

// distinctSpreads spreads n fragments of one field each in one selection
// set: validation compares them pairwise.
func distinctSpreads(n int) string {
	var b strings.Builder
	b.WriteString("query Spreads {")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " ...F%d", i)
	}
	b.WriteString(" }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { a%d: __typename }\n", i, i)
	}
	return b.String()
}

func deepDocument(depth int) string {
	return "query Deep { " + strings.Repeat("me { ", depth) + "urn" + strings.Repeat(" }", depth) + " }"
}

func manyTokens(n int) string {
	return "query Long { me { corpUser { urn " + strings.Repeat("__typename ", n) + "} } }"
}

// TestAbuseDocuments sends the documents built to exhaust a GraphQL server,
// as the root user and as a user with no privileges: each must be refused
// quickly, with a message naming the limit, and cost little memory.
func TestAbuseDocuments(t *testing.T) {
	db, _ := database(t, false)
	in := start(t, db)
	nobody := in.user(t, "hardening-nobody")
	// Warm up, so that the baseline holds what any first request allocates.
	for i := 0; i < 3; i++ {
		in.graphql(t, in.admin, "{ me { corpUser { urn } } }", nil)
	}
	attacks := []struct {
		name, query, limit string
	}{
		{"fragment bomb (10^11 fields in 1 KB)", fragmentBomb(), "fields"},
		{"3,000 aliases of one name with different arguments (69 KB)", aliasOverlap(3000), "limit: tokens"},
		{"1,000 aliases of one name with different arguments", aliasOverlap(1000), "limit: sameName"},
		{"6,000 identical fields", identicalFields(6000), "limit: tokens"},
		{"1,500 identical fields", identicalFields(1500), "limit: sameName"},
		{"4,000 distinct fields through fragments", distinctFields(400, 12), "limit: fields"},
		{"selections 60 deep", deepDocument(60), "depth"},
		{"20,000 tokens", manyTokens(20000), "limit: tokens"},
		{"a ring of 1,000 fragments (42 KB)", fragmentRing(1000), "limit: fragments"},
		{"a ring of 250 fragments", fragmentRing(250), "may not form cycles"},
		{"a fragment spreading itself 7,000 times", "query Self { me { corpUser { urn } } ...F }\nfragment F on Query {" + strings.Repeat(" ...F", 7000) + " }", "may not form cycles"},
		{"a chain of 800 fragments (41 KB)", fragmentChain(800), "limit: fragments"},
		{"200 fragments spread in one selection set", distinctSpreads(200), "limit: spreads"},
	}
	for _, caller := range []struct{ name, token string }{{"root", in.admin}, {"no privileges", nobody}} {
		for _, a := range attacks {
			t.Run(caller.name+"/"+a.name, func(t *testing.T) {
				peak, cpu := in.memory(t, "VmHWM"), in.cpu(t)
				resp := in.graphql(t, caller.token, a.query, nil)
				usedCPU, grew := in.cpu(t)-cpu, in.memory(t, "VmHWM")-peak
				t.Logf("%d bytes: HTTP %d in %s, server CPU %s, peak memory +%d kB", len(a.query), resp.status, resp.elapsed, usedCPU, grew)
				var body struct {
					Data   any `json:"data"`
					Errors []struct {
						Message    string         `json:"message"`
						Extensions map[string]any `json:"extensions"`
					} `json:"errors"`
				}
				if err := json.Unmarshal([]byte(resp.body), &body); err != nil {
					t.Fatalf("HTTP %d, body not JSON: %.200s", resp.status, resp.body)
				}
				if resp.status >= 500 || body.Data != nil || len(body.Errors) != 1 {
					t.Fatalf("want one refusal and no data, got HTTP %d: %.300s", resp.status, resp.body)
				}
				if msg := body.Errors[0].Message; !strings.Contains(msg, a.limit) {
					t.Errorf("the refusal %q does not name the limit %q", msg, a.limit)
				}
				if typ := body.Errors[0].Extensions["type"]; typ != "BAD_REQUEST" {
					t.Errorf("error type %v, want BAD_REQUEST", typ)
				}
				if resp.elapsed > maxWall || usedCPU > maxCPU {
					t.Errorf("refused in %s using %s of CPU; want under %s and %s", resp.elapsed, usedCPU, maxWall, maxCPU)
				}
				if grew > maxGrowth {
					t.Errorf("peak memory grew by %d kB; want under %d kB", grew, maxGrowth)
				}
			})
		}
	}
	t.Run("errors are capped", func(t *testing.T) {
		// 60 fields that do not exist: 60 validation errors, 50 shown.
		resp := in.graphql(t, nobody, "{"+strings.Repeat(" nosuchfield", 1)+strings.Repeat(" me { nosuch }", 59)+" }", nil)
		var body struct {
			Errors []struct{ Message string } `json:"errors"`
		}
		_ = json.Unmarshal([]byte(resp.body), &body)
		if len(body.Errors) == 0 || len(body.Errors) > 51 {
			t.Fatalf("want at most 50 errors and a note, got %d: %.300s", len(body.Errors), resp.body)
		}
	})
	t.Run("the contract's operations pass", func(t *testing.T) {
		resp := in.graphql(t, nobody, "query Me { me { corpUser { urn username } platformPrivileges { generatePersonalAccessTokens } } }", nil)
		if resp.status != 200 || strings.Contains(resp.body, `"errors"`) {
			t.Fatalf("HTTP %d: %.300s", resp.status, resp.body)
		}
	})
}

// TestAbuseConnections holds connections open the ways a slow-loris client
// does: each is cut when its time is up, and an anonymous body is never
// waited for.
func TestAbuseConnections(t *testing.T) {
	db, _ := database(t, false)
	in := start(t, db, "CATALOGD_READ_TIMEOUT=2s", "CATALOGD_IDLE_TIMEOUT=2s")
	host := strings.TrimPrefix(in.gms, "http://")

	// closedWithin reads from conn until the server closes it.
	closedWithin := func(t *testing.T, conn net.Conn, limit time.Duration) (string, time.Duration) {
		t.Helper()
		began := time.Now()
		_ = conn.SetReadDeadline(began.Add(limit))
		r := bufio.NewReader(conn)
		var got strings.Builder
		for {
			line, err := r.ReadString('\n')
			got.WriteString(line)
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatalf("the server still held the connection after %s; it had sent %q", limit, got.String())
				}
				return got.String(), time.Since(began)
			}
		}
	}

	t.Run("an anonymous body is refused before it is read", func(t *testing.T) {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/graphql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", host)
		got, took := closedWithin(t, conn, 1500*time.Millisecond)
		if !strings.HasPrefix(got, "HTTP/1.1 401") {
			t.Fatalf("want 401 at once, got %.200q", got)
		}
		t.Logf("401 and closed after %s", took)
	})
	t.Run("a body with two Authorization headers is refused before it is read", func(t *testing.T) {
		for _, base := range []string{in.gms, in.frontend} {
			h := strings.TrimPrefix(base, "http://")
			conn, err := net.Dial("tcp", h)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "POST /api/graphql HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", h)
			got, _ := closedWithin(t, conn, 1500*time.Millisecond)
			conn.Close()
			if !strings.HasPrefix(got, "HTTP/1.1 400") {
				t.Fatalf("%s: want 400 at once, got %.200q", base, got)
			}
		}
	})
	t.Run("a body sent to a host the service does not answer to is refused before it is read", func(t *testing.T) {
		for _, base := range []string{in.gms, in.frontend} {
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "POST /api/graphql HTTP/1.1\r\nHost: catalog.elsewhere.example\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", in.admin)
			got, _ := closedWithin(t, conn, 1500*time.Millisecond)
			conn.Close()
			if !strings.HasPrefix(got, "HTTP/1.1 421") {
				t.Fatalf("%s: want 421 at once, got %.200q", base, got)
			}
		}
	})
	t.Run("a body sent a byte at a time is cut at the read timeout", func(t *testing.T) {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/graphql HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", host, in.admin)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Millisecond):
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		}()
		_, took := closedWithin(t, conn, 6*time.Second)
		t.Logf("cut after %s (read timeout 2s)", took)
	})
	t.Run("300 connections that never finish their headers are all cut", func(t *testing.T) {
		conns := make([]net.Conn, 0, 300)
		for i := 0; i < 300; i++ {
			c, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			defer c.Close()
			fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: %s\r\n", host)
			conns = append(conns, c)
		}
		for i, c := range conns {
			if _, took := closedWithin(t, c, 6*time.Second); i == 0 {
				t.Logf("the first cut after %s", took)
			}
		}
		if resp := in.do(t, "GET", in.gms+"/health", "", "", nil); resp.status != 200 {
			t.Fatalf("/health after the attack: %d", resp.status)
		}
	})
	t.Run("headers past the size limit are refused", func(t *testing.T) {
		req, _ := http.NewRequest("GET", in.gms+"/health", nil)
		req.Header.Set("X-Padding", strings.Repeat("a", 100<<10))
		if resp := send(t, req); resp.status != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("want 431, got %d", resp.status)
		}
	})
}

// TestBadInput sends input built to break the service: every answer is a
// 4xx with a short message that does not echo the input whole, and
// nothing is stored.
func TestBadInput(t *testing.T) {
	db, _ := database(t, false)
	in := start(t, db)
	huge := "urn:li:tag:" + strings.Repeat("x", 900<<10)
	nul := "urn:li:tag:nul\x00x"
	ingest := func(value string, aspect string) []byte {
		b, _ := json.Marshal(map[string]any{"proposal": map[string]any{
			"entityType": "dataset", "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,hardening.bad,PROD)", "changeType": "UPSERT",
			"aspectName": aspect, "aspect": map[string]any{"value": value, "contentType": "application/json"},
		}})
		return b
	}
	twoQueries := []byte(`{"query":"query Q { me { corpUser { urn } } }","query":"mutation M { createTag(input: {id: \"hidden\", name: \"hidden\"}) }"}`)
	cases := []struct {
		name   string
		req    func() *http.Request
		status int
		says   string
	}{
		{"invalid UTF-8 in an entity path", func() *http.Request {
			return request(t, "GET", in.gms+"/entities/urn:li:tag:%FF%FE", in.admin, "", nil)
		}, 400, "UTF-8"},
		{"NUL in an entity path", func() *http.Request {
			return request(t, "GET", in.gms+"/entities/urn:li:tag:a%00b", in.admin, "", nil)
		}, 400, "invalid urn"},
		{"NUL in an ingested value", func() *http.Request {
			return request(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", ingest(`{"description":"a\u0000b"}`, "datasetProperties"))
		}, 400, "U+0000"},
		{"NUL in an ingested key", func() *http.Request {
			return request(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", ingest(`{"a\u0000b":"c"}`, "datasetProperties"))
		}, 400, "U+0000"},
		{"a lone surrogate in an ingested value", func() *http.Request {
			return request(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", ingest(`{"description":"\ud800"}`, "datasetProperties"))
		}, 0, ""},
		{"a 900 KB aspect name", func() *http.Request {
			return request(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", ingest(`{}`, strings.Repeat("a", 900<<10)))
		}, 400, "is not an aspect"},
		{"a long unknown aspect name", func() *http.Request {
			return request(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", ingest(`{}`, strings.Repeat("a", 500<<10)))
		}, 400, "is not an aspect"},
		{"NUL in a GraphQL literal", func() *http.Request {
			return gql(t, in, in.admin, `mutation { createTag(input: {id: "nul", name: "a\u0000b"}) }`, nil, "")
		}, 200, "U+0000"},
		{"NUL in a GraphQL variable", func() *http.Request {
			return gql(t, in, in.admin, `mutation T($name: String!) { createTag(input: {id: "nulvar", name: $name}) }`, map[string]any{"name": "a\x00b"}, "")
		}, 200, "U+0000"},
		{"NUL in a GraphQL URN argument", func() *http.Request {
			return gql(t, in, in.admin, `query { tag(urn: "`+strings.ReplaceAll(nul, "\x00", `\u0000`)+`") { urn } }`, nil, "")
		}, 200, "U+0000"},
		{"a long unknown operationName", func() *http.Request {
			return gql(t, in, in.admin, `query Me { me { corpUser { urn } } }`, nil, strings.Repeat("Op", 100<<10))
		}, 200, "no operation named"},
		{"a 900 KB URN argument", func() *http.Request {
			return gql(t, in, in.admin, `query T($u: String!) { tag(urn: $u) { urn } }`, map[string]any{"u": huge[:500<<10]}, "")
		}, 200, "invalid urn"},
		{"a 60 KB URN in the entity path", func() *http.Request {
			return request(t, "GET", in.gms+"/entities/"+huge[:60<<10], in.admin, "", nil)
		}, 400, "invalid urn"},
		{"two query keys", func() *http.Request {
			return request(t, "POST", in.gms+"/api/graphql", in.admin, "application/json", twoQueries)
		}, 400, "more than once"},
		{"two Authorization headers", func() *http.Request {
			r := request(t, "POST", in.gms+"/api/graphql", in.admin, "application/json", []byte(`{"query":"{ me { corpUser { urn } } }"}`))
			r.Header.Add("Authorization", "Bearer someone-else")
			return r
		}, 400, "more than one Authorization"},
		{"two Authorization headers at the frontend", func() *http.Request {
			r := request(t, "POST", in.frontend+"/api/v2/graphql", in.admin, "application/json", []byte(`{"query":"{ me { corpUser { urn } } }"}`))
			r.Header.Add("Authorization", "Bearer someone-else")
			return r
		}, 400, "more than one Authorization"},
		{"a 10 MB body at the frontend", func() *http.Request {
			return request(t, "POST", in.frontend+"/api/v2/graphql", in.admin, "application/json", []byte(`{"query":"`+strings.Repeat("a", 10<<20)+`"}`))
		}, 413, "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := send(t, c.req())
			t.Logf("HTTP %d in %s: %.160s", resp.status, resp.elapsed, resp.body)
			if resp.status >= 500 {
				t.Fatalf("a 5xx for bad input: %d %.300s", resp.status, resp.body)
			}
			if c.status == 0 {
				if resp.status != 400 && !(resp.status == 200 && strings.Contains(resp.body, "BAD_REQUEST")) {
					t.Fatalf("want a refusal, got %d %.300s", resp.status, resp.body)
				}
			} else if resp.status != c.status {
				t.Fatalf("want %d, got %d %.300s", c.status, resp.status, resp.body)
			}
			if c.status == 200 && (!strings.Contains(resp.body, `"errors"`) || strings.Contains(resp.body, "SERVER_ERROR")) {
				t.Fatalf("want a GraphQL refusal, got %.300s", resp.body)
			}
			if c.says != "" && !strings.Contains(resp.body, c.says) {
				t.Errorf("the answer does not say %q: %.300s", c.says, resp.body)
			}
			if len(resp.body) > 2048 {
				t.Errorf("the answer is %d bytes: an error must quote a short prefix of the input, not all of it", len(resp.body))
			}
		})
	}
	t.Run("nothing was stored", func(t *testing.T) {
		for _, urn := range []string{"urn:li:tag:nul", "urn:li:tag:nulvar", "urn:li:tag:hidden", "urn:li:dataset:(urn:li:dataPlatform:hive,hardening.bad,PROD)"} {
			resp := in.do(t, "GET", in.gms+"/entities/"+urn, in.admin, "", nil)
			if resp.status != 404 {
				t.Errorf("%s: want 404, got %d %.200s", urn, resp.status, resp.body)
			}
		}
	})
}

func request(t *testing.T, method, url, token, contentType string, body []byte) *http.Request {
	t.Helper()
	var r *http.Request
	var err error
	if body == nil {
		r, err = http.NewRequest(method, url, nil)
	} else {
		r, err = http.NewRequest(method, url, strings.NewReader(string(body)))
	}
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

func gql(t *testing.T, in *instance, token, query string, variables map[string]any, operationName string) *http.Request {
	t.Helper()
	m := map[string]any{"query": query, "variables": variables}
	if operationName != "" {
		m["operationName"] = operationName
	}
	b, _ := json.Marshal(m)
	return request(t, "POST", in.gms+"/api/graphql", token, "application/json", b)
}
