package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

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
			attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", time.Since(start).Round(time.Microsecond)}
			if acc.actor != "" {
				attrs = append(attrs, "actor", acc.actor)
			}
			s.logger.Log(r.Context(), s.accessLevel, "request", attrs...)
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
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeProblem(w, r, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
			return
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
	return allow(http.MethodPost, requireJSON(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		if err := checkGraphQLRequest(body); err != nil {
			writeProblem(w, r, http.StatusBadRequest, err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		// A GraphQL answer is JSON, as every other answer of the tier
		// (writeJSON): the browser must not guess another type.
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(&graphqlStatusWriter{ResponseWriter: w}, r)
	})))
}

// checkGraphQLRequest checks the shape of a GraphQL-over-HTTP body. Its
// messages name the fault, never quote the body.
func checkGraphQLRequest(body []byte) error {
	// One pass over the top level: each key once, each value of its type.
	// Nothing is decoded further than its type needs.
	if !json.Valid(body) {
		return errors.New("request body is not a valid JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("request body is not a valid JSON object")
	}
	seen := map[string]bool{}
	hasQuery := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return errors.New("request body is not a valid JSON object")
		}
		key, _ := t.(string)
		if seen[key] {
			return fmt.Errorf("request body has the key %s more than once; which one counts is ambiguous", reference.Excerpt(key))
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return errors.New("request body is not a valid JSON object")
		}
		switch key {
		case "query":
			var query string
			if err := json.Unmarshal(v, &query); err != nil || strings.TrimSpace(query) == "" {
				return errors.New(`request body has no "query" string`)
			}
			hasQuery = true
		case "variables":
			if !null(v) && v[0] != '{' {
				return errors.New(`"variables" must be a JSON object`)
			}
		case "operationName":
			if !null(v) && v[0] != '"' {
				return errors.New(`"operationName" must be a string`)
			}
		case "extensions":
			if !null(v) && v[0] != '{' {
				return errors.New(`"extensions" must be a JSON object`)
			}
		}
	}
	if !hasQuery {
		return errors.New(`request body has no "query" string`)
	}
	return nil
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
