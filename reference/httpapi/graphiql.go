package httpapi

import "net/http"

// graphiql is the GraphiQL explorer of the pages (reference/web), or, for a
// server built without pages, a plain answer that there is none.
func (s *Server) graphiql() http.Handler {
	if s.pages != nil {
		return s.pages.GraphiQL()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, http.StatusNotImplemented, "this server has no GraphiQL explorer; POST GraphQL requests to /api/graphql")
	})
}
