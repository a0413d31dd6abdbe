package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// proxy forwards to the GMS at target: query string kept, Authorization
// forwarded as sent, a client's X-DataHub-Actor never forwarded, upstream
// status and body passed through, 502 when the GMS is down.
func (s *Server) proxy(target *url.URL) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.SetXForwarded()
			pr.Out.Header.Del("X-DataHub-Actor")
			// The GMS refuses a request it does not let in before reading
			// its body, and closes the connection (refuseBody). Were the
			// body on its way, the close would reset the connection and
			// the proxy would lose the refusal and answer 502; asked to
			// wait for "100 Continue", it sends the body only to a GMS
			// that reads it, and passes a refusal on as it is.
			if pr.Out.ContentLength != 0 {
				pr.Out.Header.Set("Expect", "100-continue")
			}
		},
		// The proxy passes an interim answer (the GMS's 100 Continue) on
		// with the headers the tier set so far, and then clears them: the
		// final answer gets again what the tier sets for every answer.
		ModifyResponse: func(res *http.Response) error {
			if c, _ := reference.ClientFromContext(res.Request.Context()); c.Secure {
				res.Header.Set("Strict-Transport-Security", hstsHeader)
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeProblem(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", tooBig.Limit))
				return
			}
			if errors.Is(err, context.DeadlineExceeded) {
				w.Header().Set("Retry-After", reference.RetryAfterSeconds)
				writeProblem(w, r, http.StatusServiceUnavailable, "the metadata service did not answer in time")
				return
			}
			s.logger.WarnContext(r.Context(), "upstream metadata service unreachable", "path", r.URL.Path, "error", err)
			writeProblem(w, r, http.StatusBadGateway, "the metadata service is unreachable")
		},
	}
}

// stripPrefix removes prefix from the path before next sees it.
func stripPrefix(prefix string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = strings.TrimPrefix(r.URL.Path, prefix)
		if r.URL.RawPath != "" {
			r2.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, prefix)
		}
		next.ServeHTTP(w, r2)
	})
}

// rewritePath replaces the path before next sees it.
func rewritePath(path string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = path, ""
		next.ServeHTTP(w, r2)
	})
}

// requireCredentials answers 401 at the frontend when auth is enabled and
// the request carries no credentials; the GMS judges those it does carry.
func (s *Server) requireCredentials(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refusedAmbiguous(w, r) {
			return
		}
		if s.svc.AuthEnabled() {
			if token, sent := bearer(r); token == "" {
				s.unauthenticated(w, r, sent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
