package web

import (
	"net/http"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// graphiqlBundles are the third-party files `make assets` copies from the
// npm packages (reference/web/npm) into static/vendor.
var graphiqlBundles = []string{
	"vendor/react.production.min.js",
	"vendor/react-dom.production.min.js",
	"vendor/graphiql.min.js",
	"vendor/graphiql.min.css",
}

// GraphiQL serves the GraphiQL explorer. Its requests go to /api/graphql on
// the page's own origin with the browser's credentials: on the frontend the
// session cookie, and whatever Authorization header the headers editor
// adds. The tier mounts it behind its authentication, as every API path.
func (p *Pages) GraphiQL() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := http.StatusOK
		if !p.graphiqlBuilt {
			// A catalogd built before `make assets` ran: say so, plainly.
			status = http.StatusServiceUnavailable
		}
		page := graphiqlPage{layout: layout{Title: "GraphiQL"}, Built: p.graphiqlBuilt}
		// Reached through the frontend by a signed-in browser, whose session
		// the frontend sent on as the bearer token: the page offers the
		// frontend's navigation and sign-out, as its other pages do.
		if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" && r.Header.Get("Authorization") == "Bearer "+c.Value {
			if a, ok := reference.ActorFromContext(r.Context()); ok {
				page.User, page.CSRF = a.URN.ID, p.csrfToken("session\x00"+c.Value)
			}
		}
		p.render(w, r, status, "graphiql", page)
	})
}

// Assets serves the embedded stylesheets and scripts under /assets/. They
// hold no secret and are the same for everyone, so they need no sign-in and
// may be cached.
func (p *Pages) Assets() http.Handler {
	files := http.StripPrefix("/assets/", http.FileServerFS(p.static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".md") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}
