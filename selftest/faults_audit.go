package selftest

import (
	"bytes"
	"html"
	"net/http"
	"regexp"
)

// The read-only audit's own faults (SPEC.md, The read-only audit): the
// rules it checks that no other scenario does, and a revoked token that
// works whatever it asks (revocation-not-honoured replays only answers
// the token had before). Its other scenarios restate rules the faults
// above break; TestAuditCatchesFaults runs the audit itself, with an
// ordinary user's token, against those too.
func init() {
	Faults = append(Faults, auditFaults...)
}

var auditFaults = []Fault{
	{
		Name:   "revoked-token-accepted",
		Trips:  []string{"auth-07", "audit-01"},
		Breaks: "a revoked token is still accepted, whatever it asks (it acts as someone who may do everything)",
		Request: func(s *State, x *Exchange) *Response {
			if _, revoked := s.Recall("revoked " + bearerToken(x)); revoked {
				x.Req.Header.Set("Authorization", s.AdminAuthorization())
			}
			return nil
		},
		Response: func(s *State, x *Exchange, r *Response) {
			learnTokens(s, x, r)
			if graphQLOp(x) == "revokeAccessToken" && bytes.Contains(r.Body, []byte(`"revokeAccessToken":true`)) {
				if id, _ := graphQLVars(x)["tokenId"].(string); id != "" {
					if raw, ok := s.Recall("raw-of-id " + id); ok {
						s.Remember("revoked "+string(raw), nil)
					}
				}
			}
		},
	},
	{
		Name:   "graphql-answers-sniffable",
		Trips:  []string{"audit-15"},
		Breaks: "GraphQL answers carry no X-Content-Type-Options: nosniff, so a browser may read one as HTML",
		Response: func(_ *State, x *Exchange, r *Response) {
			if isGraphQLPath(x.Req.URL.Path) {
				r.Header.Del("X-Content-Type-Options")
			}
		},
	},
	{
		Name:   "sign-in-page-frameable",
		Trips:  []string{"audit-16"},
		Breaks: "the sign-in page says nothing of framing (no X-Frame-Options, no frame-ancestors), so another site may frame it",
		Tier:   FrontendOnly,
		Response: func(_ *State, x *Exchange, r *Response) {
			if x.Req.URL.Path == "/login" {
				r.Header.Del("X-Frame-Options")
				r.Header.Del("Content-Security-Policy")
			}
		},
	},
	{
		Name:   "sign-in-cookie-scriptable",
		Trips:  []string{"audit-17"},
		Breaks: "the cookie the sign-in page sets (its form's CSRF binding) is not HttpOnly, so the page's scripts can read it",
		Tier:   FrontendOnly,
		Response: func(_ *State, x *Exchange, r *Response) {
			if x.Req.URL.Path != "/login" {
				return
			}
			cookies := r.Header.Values("Set-Cookie")
			r.Header.Del("Set-Cookie")
			for _, c := range cookies {
				r.Header.Add("Set-Cookie", httpOnly.ReplaceAllString(c, ""))
			}
		},
	},
	{
		Name:   "sign-in-page-keeps-next",
		Trips:  []string{"audit-18"},
		Breaks: "the sign-in page carries a link's next page as it came, another site included, for after signing in",
		Tier:   FrontendOnly,
		Response: func(_ *State, x *Exchange, r *Response) {
			next := x.Req.URL.Query().Get("next")
			if x.Req.Method != http.MethodGet || x.Req.URL.Path != "/login" || next == "" {
				return
			}
			r.Body = nextField.ReplaceAll(r.Body, []byte(`name="next" value="`+html.EscapeString(next)+`"`))
		},
	},
}

var nextField = regexp.MustCompile(`name="next" value="[^"]*"`)
