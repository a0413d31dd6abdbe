package smoketest

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
	"github.com/catalogspec/catalogspec/sdkclient"
)

var (
	catalogdBin string
	testDB      *postgres.DB // the server pgtest provides; each test has a database of its own
)

func TestMain(m *testing.M) {
	// Another catalogd (an older build, a mutant) may be given to replay
	// the smoke tests against.
	os.Exit(catalogdtest.Main(os.Getenv("CATALOGSPEC_SMOKETEST_CATALOGD"), &catalogdBin, func() int { return pgtest.Main(m, &testDB) }))
}

// target is one `catalogd serve`, on a database of its own, with a root
// password the test knows: the smoke tests' admin credentials.
type target struct {
	gms, frontend string
	adminPassword string
}

func start(t *testing.T) *target {
	t.Helper()
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	tg := &target{adminPassword: base64.RawURLEncoding.EncodeToString(b)}
	srv := catalogdtest.New(t, catalogdtest.Options{Binary: catalogdBin, DatabaseURL: pgtest.Empty(t),
		Env: []string{"CATALOGD_ROOT_PASSWORD=" + tg.adminPassword}, Args: []string{"--access-log=false"}})
	tg.gms, tg.frontend = srv.GMS, srv.Frontend
	return tg
}

// Python's json.dumps, with its defaults (separators ", " and ": ",
// ensure_ascii), of values built from obj (a dict, in insertion order),
// []any, string, int, bool and nil: requests sends json= bodies so. The
// encoding is sdkclient's, the SDK's own.

type obj []field

type field struct {
	k string
	v any
}

func dumps(v any) string { return string(sdkclient.Dumps(pyValue(v))) }

// pyValue is v with each obj made the sdkclient.Obj that Dumps writes.
func pyValue(v any) any {
	switch t := v.(type) {
	case obj:
		o := make(sdkclient.Obj, len(t))
		for i, f := range t {
			o[i] = sdkclient.Member{Key: f.k, Value: pyValue(f.v)}
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = pyValue(e)
		}
		return out
	}
	return v
}

// session is Python's requests.Session: its cookie jar, its default
// headers, redirects followed.
type session struct {
	t      *testing.T
	client *http.Client
	jar    *cookiejar.Jar
}

// pythonRequestsHeaders are requests.utils.default_headers().
var pythonRequestsHeaders = map[string]string{
	"User-Agent":      "python-requests/2.32.3",
	"Accept-Encoding": "gzip, deflate",
	"Accept":          "*/*",
	"Connection":      "keep-alive",
}

func newSession(t *testing.T) *session {
	jar, _ := cookiejar.New(nil)
	return &session{t: t, jar: jar, client: &http.Client{Jar: jar, Timeout: 60 * time.Second}}
}

// answer is a response as the smoke test holds it.
type answer struct {
	status int
	body   []byte
	where  string // the smoke test's file and line that sent the request
}

// do sends one request as requests would, with headers on top of the
// session's defaults.
func (s *session) do(where, method, u string, body []byte, headers map[string]string) answer {
	s.t.Helper()
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		s.t.Fatalf("%s: %v", where, err)
	}
	if body == nil {
		req.Body = nil
	}
	for k, v := range pythonRequestsHeaders {
		req.Header.Set(k, v)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s: %s %s: %v", where, method, u, err)
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		if r, err = gzip.NewReader(resp.Body); err != nil {
			s.t.Fatalf("%s: %v", where, err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		s.t.Fatalf("%s: reading the answer: %v", where, err)
	}
	return answer{status: resp.StatusCode, body: b, where: where}
}

// postJSON is session.post(url, json=v).
func (s *session) postJSON(where, u string, v any) answer {
	s.t.Helper()
	return s.do(where, http.MethodPost, u, []byte(dumps(v)), map[string]string{"Content-Type": "application/json"})
}

// raiseForStatus is response.raise_for_status(): 4xx and 5xx raise.
func (a answer) raiseForStatus(t *testing.T) {
	t.Helper()
	if a.status >= 400 {
		t.Fatalf("%s: raise_for_status() raises: HTTP %d: %s", a.where, a.status, a.body)
	}
}

// json is response.json().
func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("%s: response.json() raises: %v: %q", a.where, err, a.body)
	}
	return m
}

// cookie is session.cookies[name].
func (s *session) cookie(u, name string) string {
	s.t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, c := range s.jar.Cookies(parsed) {
		if c.Name == name {
			return c.Value
		}
	}
	var names []string
	for _, c := range s.jar.Cookies(parsed) {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	s.t.Fatalf("session.cookies[%q] raises KeyError: the session holds %v", name, names)
	return ""
}

// at walks a decoded JSON value by keys and indexes, as res["data"][...]
// does; a missing key fails the test as Python's KeyError would.
func at(t *testing.T, where string, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%s: [%q] of %v, which is no dict", where, k, v)
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("%s: KeyError %q in %v", where, k, m)
			}
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%s: [%d] of %v", where, k, v)
			}
			v = l[k]
		}
	}
	return v
}

// truthy is Python's truth of a decoded JSON value.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case float64:
		return t != 0
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}
