// Package httpapi serves the reference's two HTTP tiers: the metadata
// service (GMS) and the frontend that proxies to it. This file is the whole
// surface of both.
package httpapi

import (
	"net/http"
	"net/url"
)

// GMS returns the metadata service's handler.
func (s *Server) GMS() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/graphql", s.authenticate(graphqlOverHTTP(s.graphql)))
	mux.Handle("/api/graphiql", s.authenticate(allow(http.MethodGet, s.graphiql())))
	mux.Handle("/entities", s.authenticate(allow(http.MethodPost, s.entityActions())))
	mux.Handle("/entities/{urn...}", s.authenticate(allow(http.MethodGet, http.HandlerFunc(s.handleEntity))))
	actions := s.ingestActions()
	mux.Handle("/aspects", s.authenticate(allow(http.MethodPost, actions)))
	mux.Handle("/aspects/{urn...}", s.authenticate(s.handleAspects(actions)))
	mux.Handle("/entitiesV2", s.authenticate(allow(http.MethodGet, http.HandlerFunc(s.handleEntitiesV2))))
	mux.Handle("/entitiesV2/{urn...}", s.authenticate(allow(http.MethodGet, http.HandlerFunc(s.handleEntityV2))))
	mux.Handle("/openapi/v3/entity/{entityType}", s.authenticate(byMethod(map[string]http.Handler{
		http.MethodPost:  requireJSON(s.traced(s.handleOpenAPIWrite)),
		http.MethodPatch: requireJSONOrPatch(http.HandlerFunc(s.handleOpenAPIPatch)),
	})))
	mux.Handle("/openapi/v3/entity/{entityType}/batchGet", s.authenticate(allow(http.MethodPost, requireJSON(http.HandlerFunc(s.handleOpenAPIBatchGet)))))
	mux.Handle("/openapi/v3/entity/{entityType}/{urn...}", s.authenticate(http.HandlerFunc(s.handleOpenAPIEntity)))
	mux.Handle("/openapi/v1/trace/write/{traceId}", s.authenticate(allow(http.MethodPost, requireJSON(http.HandlerFunc(s.handleTrace)))))
	mux.Handle("GET /config", http.HandlerFunc(s.handleConfig))
	mux.Handle("GET /health", http.HandlerFunc(s.handleHealth))
	if s.pages != nil {
		mux.Handle("GET /assets/", s.pages.Assets())
	}
	mux.Handle("/", http.HandlerFunc(s.handleNotFound))
	return s.common(mux)
}

// Frontend returns the frontend's handler, proxying to the GMS at gms.
func (s *Server) Frontend(gms *url.URL) http.Handler {
	proxy := s.proxy(gms)
	// A signed-in browser's session cookie stands for its bearer token.
	session := func(h http.Handler) http.Handler { return h }
	if s.pages != nil {
		session = s.pages.WithSession
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v2/graphql", session(s.requireCredentials(rewritePath("/api/graphql", proxy))))
	mux.Handle("/api/gms/", session(s.requireCredentials(stripPrefix("/api/gms", proxy))))
	mux.Handle("/api/", session(s.requireCredentials(proxy)))
	mux.Handle("GET /health", http.HandlerFunc(s.handleHealth))
	// DataHub's frontend answers its health check at /admin too; its smoke
	// tests ask there (smoke-test/tests/utils.py wait_for_healthcheck_util).
	mux.Handle("GET /admin", http.HandlerFunc(s.handleHealth))
	if s.pages != nil {
		// Sign-in, sign-out, Settings > Access Tokens, their assets.
		s.pages.Mount(mux)
	}
	mux.Handle("/", http.HandlerFunc(s.handleNotFound))
	return s.common(mux)
}
