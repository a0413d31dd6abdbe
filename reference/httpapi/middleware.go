package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/catalogspec/catalogspec/reference"
)

// maxBody bounds every request body but an ingestion's.
const maxBody = 1 << 20

// ingestBody bounds the body of an ingestion request (POST /aspects,
// /entities (emit_mce) and /openapi/v3/entity/..., on either tier):
// DataHub's own limit of 16,000,000 bytes, under which DataHub's SDK
// sizes its batches (15 MiB of proposals, and the JSON around them). A
// smaller limit would refuse what DataHub's SDK sends.
const ingestBody = 16_000_000

// bodyLimit is the bound of r's body.
func bodyLimit(r *http.Request) int64 {
	if r.Method != http.MethodPost && r.Method != http.MethodPatch {
		return maxBody
	}
	p := strings.TrimPrefix(r.URL.Path, "/api/gms")
	if strings.HasSuffix(p, "/batchGet") {
		// A read, whose body names entities: a MiB names 15,000.
		return maxBody
	}
	switch {
	case p == "/aspects" || p == "/aspects/":
		// Only what ingests: an action that reads (getTimeseriesAspectValues)
		// names what it reads in a MiB.
		if a := r.URL.Query().Get("action"); a == "ingestProposal" || a == "ingestProposalBatch" {
			return ingestBody
		}
	case p == "/entities":
		if r.URL.Query().Get("action") == "ingest" {
			return ingestBody
		}
	case strings.HasPrefix(p, "/openapi/v3/entity/"):
		return ingestBody
	}
	return maxBody
}

// common wraps a tier: panics become a 500 with no detail (logged with the
// stack), bodies are bounded, each request runs under the request deadline,
// and each is logged in one access-log line (method, path without the query,
// status, duration, actor; never a credential).
func (s *Server) common(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		acc := &access{}
		// The request's account of the memory it holds (reference's
		// memory.go), given back when it ends.
		s.memory.Init(&acc.memory, s.maxReadBytes)
		defer acc.memory.Close()
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.logger.ErrorContext(r.Context(), "panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if !rec.wrote {
					writeProblem(rec, r, http.StatusInternalServerError, reference.InternalMessage)
				}
			}
			// The access log: the same line as Log with pairs would
			// write, without boxing them or looking up the caller (the
			// line names no source), and nothing when it is off.
			if !s.logger.Enabled(r.Context(), s.accessLevel) {
				return
			}
			line := slog.NewRecord(time.Now(), s.accessLevel, "request", 0)
			line.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", rec.status), slog.Duration("duration", time.Since(start).Round(time.Microsecond)))
			if acc.actor != "" {
				line.AddAttrs(slog.String("actor", acc.actor))
			}
			_ = s.logger.Handler().Handle(r.Context(), line)
		}()
		if s.checkHost(rec, r) {
			return
		}
		client := s.clientOf(r)
		if client.Secure {
			rec.Header().Set("Strict-Transport-Security", hstsHeader)
		}
		r.Body = http.MaxBytesReader(rec, r.Body, bodyLimit(r))
		ctx := reference.NewContextWithMemory(reference.NewContextWithClient(r.Context(), client), &acc.memory)
		ctx, cancel := context.WithTimeout(context.WithValue(ctx, accessKey{}, acc), s.requestTimeout)
		defer cancel()
		next.ServeHTTP(rec, r.WithContext(ctx))
	})
}

// access is what the access log says of a request besides its line: who
// made it, once authenticate knows (never the token); and the request's
// account of its memory, kept here to cost no allocation of its own.
type access struct {
	actor  string
	memory reference.Memory
}

type accessKey struct{}

type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// authenticate puts the request's actor in its context, or answers 401
// before anything runs. With auth disabled a request without a token runs
// as the system actor, or as the user X-DataHub-Actor names.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var (
			actor reference.Actor
			err   error
		)
		if refusedAmbiguous(w, r) {
			return
		}
		if s.svc.AuthEnabled() {
			token, sent := bearer(r)
			if token == "" {
				s.unauthenticated(w, r, sent)
				return
			}
			actor, err = s.svc.Authenticate(r.Context(), token)
		} else {
			actor, err = s.svc.ActorFor(r.Context(), r.Header.Get("X-DataHub-Actor"))
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if acc, ok := r.Context().Value(accessKey{}).(*access); ok {
			acc.actor = actor.URN.String()
		}
		next.ServeHTTP(w, r.WithContext(reference.NewContextWithActor(r.Context(), actor)))
	})
}

// allow answers 405 with an Allow header to any other method.
func allow(method string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeProblem(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed here; use %s", r.Method, method))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireJSON answers 415 unless the body is application/json (any charset).
func requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The usual header as it is, or else parsed (parameters, case).
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
				writeProblem(w, r, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// readBody reads a bounded body, answering 413 or 400 itself on failure.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeProblem(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", tooBig.Limit))
		} else {
			writeProblem(w, r, http.StatusBadRequest, "request body could not be read")
		}
		return nil, false
	}
	return body, true
}

// graphqlOverHTTP holds the transport rules of SPEC.md, GraphQL over HTTP, in front
// of gqlgen: POST only (405 and Allow: POST, so a mutation sent by GET never
// runs), application/json only (415), a JSON body with a query (400, never
// echoing the body back).
func graphqlOverHTTP(next http.Handler) http.Handler {
	documents, _ := next.(documentServer)
	return allow(http.MethodPost, requireJSON(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		req, err := parseGraphQLRequest(body)
		if err != nil {
			writeProblem(w, r, http.StatusBadRequest, err.Error())
			return
		}
		// A GraphQL answer is JSON, as every other answer of the tier
		// (writeJSON): the browser must not guess another type.
		w.Header().Set("X-Content-Type-Options", "nosniff")
		sw := &graphqlStatusWriter{ResponseWriter: w}
		if documents != nil {
			documents.ServeDocument(sw, r, body, req.query, req.operationName, !req.variables && !req.folded)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(sw, r)
	})))
}

// documentServer is a GraphQL handler that takes the request as
// graphqlOverHTTP read it (reference/graph's Handler), so that the body is
// decoded once for a document whose answer is planned.
type documentServer interface {
	ServeDocument(w http.ResponseWriter, r *http.Request, body []byte, query, operationName string, noVariables bool)
}

// graphqlRequest is what a GraphQL-over-HTTP body asks.
type graphqlRequest struct {
	query, operationName string
	variables            bool // variables other than null or {}
	// folded: a key spelled otherwise than the four above that
	// encoding/json, and so gqlgen, reads as one of them ("Query",
	// "operationname", "variableſ"): what gqlgen runs may then differ from
	// what this reads, so only gqlgen may answer.
	folded bool
}

// checkGraphQLRequest checks the shape of a GraphQL-over-HTTP body. Its
// messages name the fault, never quote the body.
func checkGraphQLRequest(body []byte) error {
	_, err := parseGraphQLRequest(body)
	return err
}

// parseGraphQLRequest checks the shape of a GraphQL-over-HTTP body and
// returns what it asks, in one pass over its top level: each key once, each
// value of its type, nothing decoded further than its type needs. Its
// messages name the fault, never quote the body.
func parseGraphQLRequest(body []byte) (graphqlRequest, error) {
	var req graphqlRequest
	if !json.Valid(body) {
		return req, errNotJSONObject
	}
	// body is valid JSON from here on: the scan need not check it.
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return req, errNotJSONObject
	}
	i = skipSpace(body, i+1)
	var seenKeys [8][]byte
	seen := seenKeys[:0]
	hasQuery := false
	for body[i] != '}' {
		keyEnd := skipValue(body, i)
		key, err := unquoteBytes(body[i:keyEnd])
		if err != nil {
			return req, errNotJSONObject
		}
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return req, fmt.Errorf("request body has the key %s more than once; which one counts is ambiguous", reference.Excerpt(string(key)))
			}
		}
		seen = append(seen, key)
		i = skipSpace(body, keyEnd)
		i = skipSpace(body, i+1) // the colon
		end := skipValue(body, i)
		v := body[i:end]
		switch string(key) {
		case "query":
			query, err := unquoteBytes(v)
			if err != nil || len(bytes.TrimSpace(query)) == 0 {
				return req, errNoQuery
			}
			req.query, hasQuery = string(query), true
		case "variables":
			if !null(v) && v[0] != '{' {
				return req, errVariablesNotObject
			}
			req.variables = !null(v) && skipSpace(v, 1) != len(v)-1
		case "operationName":
			if !null(v) && v[0] != '"' {
				return req, errOperationNameNotString
			}
			if !null(v) {
				name, _ := unquoteBytes(v)
				req.operationName = string(name)
			}
		case "extensions":
			if !null(v) && v[0] != '{' {
				return req, errExtensionsNotObject
			}
		default:
			for _, k := range graphqlRequestKeys {
				if bytes.EqualFold(key, k) {
					req.folded = true
				}
			}
		}
		i = skipSpace(body, end)
		if body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	if !hasQuery {
		return req, errNoQuery
	}
	return req, nil
}

var graphqlRequestKeys = [][]byte{[]byte("query"), []byte("variables"), []byte("operationName"), []byte("extensions")}

var (
	errNotJSONObject          = errors.New("request body is not a valid JSON object")
	errNoQuery                = errors.New(`request body has no "query" string`)
	errVariablesNotObject     = errors.New(`"variables" must be a JSON object`)
	errOperationNameNotString = errors.New(`"operationName" must be a string`)
	errExtensionsNotObject    = errors.New(`"extensions" must be a JSON object`)
)

// skipSpace returns the index of the first byte at or after i of valid
// JSON b that is not white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value that starts at i in
// valid JSON b.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; ; i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default: // a number, true, false or null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}

// unquoteBytes decodes a JSON string as encoding/json does (invalid UTF-8
// as U+FFFD); a string without escapes and of valid UTF-8 is returned as it
// is in v, uncopied.
func unquoteBytes(v []byte) ([]byte, error) {
	if len(v) < 2 || v[0] != '"' {
		return nil, errors.New("not a string")
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return []byte(s), err
}

// null says whether a JSON value (as json.Decoder gives it: no leading
// space) is null.
func null(v json.RawMessage) bool { return string(v) == "null" }

// graphqlStatusWriter gives a document that does not validate the status
// GraphQL over HTTP asks for: 200 for application/json (the errors are in the
// body, as DataHub does), 400 for application/graphql-response+json. gqlgen
// answers 422 for both; it already picks the media type from Accept.
type graphqlStatusWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *graphqlStatusWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if code == http.StatusUnprocessableEntity {
		code = http.StatusOK
		if mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type")); mt == "application/graphql-response+json" {
			code = http.StatusBadRequest
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *graphqlStatusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}
