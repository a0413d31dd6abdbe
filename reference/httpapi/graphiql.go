package httpapi

import "net/http"

// handleGraphiQL guards the GraphiQL explorer's path like every other API
// path. The explorer page itself (the GraphiQL explorer; not yet in SPEC.md) is not served yet: an
// authenticated caller is told so plainly rather than shown a page that does
// not work.
func (s *Server) handleGraphiQL(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, http.StatusNotImplemented, "the GraphiQL explorer is not served by this version of catalogd; POST GraphQL requests to /api/graphql")
}
