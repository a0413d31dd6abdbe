package selftest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Faults are the mistakes the suite must catch, one rule of SPEC.md
// each, in the order they run. Each names by id the scenarios that must
// catch it (Trips, the ids of SPEC.md's rule rows); TestFaultTable fails on
// an id no scenario has.
var Faults = []Fault{
	// ---- GraphQL over HTTP (SPEC.md, GraphQL over HTTP) ----
	{
		Name:   "graphql-get-executes",
		Trips:  []string{"http-06", "http-08", "http-21"},
		Breaks: "the GraphQL endpoint runs a request sent by GET, mutations included, instead of answering 405",
		Request: func(_ *State, x *Exchange) *Response {
			if x.Req.Method != http.MethodGet || !isGraphQLPath(x.Req.URL.Path) {
				return nil
			}
			q := x.Req.URL.Query()
			body := map[string]any{"query": q.Get("query")}
			if v := q.Get("variables"); v != "" && json.Valid([]byte(v)) {
				body["variables"] = json.RawMessage(v)
			}
			if op := q.Get("operationName"); op != "" {
				body["operationName"] = op
			}
			x.Body, _ = json.Marshal(body)
			x.Req.Method = http.MethodPost
			x.Req.URL.RawQuery = ""
			x.Req.Header.Set("Content-Type", "application/json")
			return nil
		},
	},
	{
		Name:   "graphql-405-without-allow",
		Trips:  []string{"http-07"},
		Breaks: "a 405 from the GraphQL endpoint does not say in Allow that only POST is allowed",
		Response: func(_ *State, x *Exchange, r *Response) {
			if r.Status == http.StatusMethodNotAllowed {
				r.Header.Del("Allow")
			}
		},
	},
	{
		Name:   "graphql-any-content-type",
		Trips:  []string{"http-11"},
		Breaks: "a GraphQL body declared as something other than JSON is parsed as JSON anyway (no 415)",
		Request: func(_ *State, x *Exchange) *Response {
			if x.Req.Method == http.MethodPost && isGraphQLPath(x.Req.URL.Path) {
				x.Req.Header.Set("Content-Type", "application/json")
			}
			return nil
		},
	},
	{
		Name:   "graphql-400-echoes-body",
		Trips:  []string{"http-09", "http-10", "http-15"},
		Breaks: "a GraphQL body refused with 400 is quoted back in the error message",
		Response: func(_ *State, x *Exchange, r *Response) {
			if r.Status == http.StatusBadRequest && isGraphQLPath(x.Req.URL.Path) {
				r.Body, _ = json.Marshal(map[string]any{"status": 400, "error": "Bad Request",
					"message": "cannot read the GraphQL request " + string(x.Body), "path": x.Req.URL.Path})
				r.Header.Set("Content-Type", "application/json")
			}
		},
	},
	{
		Name:   "graphql-accept-ignored",
		Trips:  []string{"http-04"},
		Breaks: "a client asking for application/graphql-response+json is answered application/json",
		Response: func(_ *State, x *Exchange, r *Response) {
			if isGraphQLPath(x.Req.URL.Path) && strings.Contains(x.Req.Header.Get("Accept"), "application/graphql-response+json") {
				r.Header.Set("Content-Type", "application/json")
			}
		},
	},
	{
		Name:   "graphql-untyped-answer",
		Trips:  []string{"http-03"},
		Breaks: "GraphQL answers carry no JSON Content-Type (the server lets it be sniffed as text/plain)",
		Response: func(_ *State, x *Exchange, r *Response) {
			if isGraphQLPath(x.Req.URL.Path) && r.Status == http.StatusOK {
				r.Header.Set("Content-Type", "text/plain; charset=utf-8")
			}
		},
	},
	{
		Name:   "authz-error-as-http-403",
		Trips:  []string{"http-12"},
		Breaks: "a call refused for want of a privilege is answered with HTTP 403 instead of 200 and a GraphQL error",
		Response: func(_ *State, x *Exchange, r *Response) {
			if graphQLOp(x) != "" && r.Status == http.StatusOK && hasErrorType(r.Body, "UNAUTHORIZED") {
				r.Status = http.StatusForbidden
			}
		},
	},
	{
		Name:   "authz-error-as-500",
		Trips:  []string{"http-12", "tag-06", "tag-07"},
		Breaks: "a call refused for want of a privilege is reported as an unknown server error, not code 403 UNAUTHORIZED",
		Response: func(_ *State, x *Exchange, r *Response) {
			if graphQLOp(x) == "" {
				return
			}
			editJSON(r, func(v map[string]any) {
				errs, _ := v["errors"].([]any)
				for _, e := range errs {
					em, _ := e.(map[string]any)
					if ext := dig(em, "extensions"); ext != nil && ext["type"] == "UNAUTHORIZED" {
						em["message"] = "An unknown error occurred."
						ext["code"], ext["type"] = 500, "SERVER_ERROR"
					}
				}
			})
		},
	},

	// ---- Authentication (SPEC.md, Authentication) ----
	{
		Name:   "anonymous-as-root",
		Trips:  []string{"auth-01"},
		Breaks: "a request without a token is served as the root user instead of refused with 401",
		Request: func(s *State, x *Exchange) *Response {
			if guarded(x.Req.URL.Path) && x.Req.Header.Get("Authorization") == "" {
				x.Req.Header.Set("Authorization", s.AdminAuthorization())
			}
			return nil
		},
	},
	{
		Name:   "unauthenticated-as-200",
		Trips:  []string{"auth-01", "auth-03"},
		Breaks: "a request without a valid token is answered 200 with an error in the body instead of 401",
		Response: func(_ *State, _ *Exchange, r *Response) {
			if r.Status != http.StatusUnauthorized {
				return
			}
			r.Status = http.StatusOK
			r.Header.Del("WWW-Authenticate")
			r.Header.Set("Content-Type", "application/json")
			r.Body = []byte(`{"data":null,"errors":[{"message":"Unauthorized","extensions":{"code":401,"type":"UNAUTHENTICATED"}}]}`)
		},
	},
	{
		Name:   "no-bearer-challenge",
		Trips:  []string{"auth-02", "auth-04"},
		Breaks: "a 401 carries no WWW-Authenticate challenge (RFC 6750 section 3)",
		Response: func(_ *State, _ *Exchange, r *Response) {
			if r.Status == http.StatusUnauthorized {
				r.Header.Del("WWW-Authenticate")
			}
		},
	},
	{
		Name:   "challenge-without-error",
		Trips:  []string{"auth-04"},
		Breaks: `the 401 for a bad token does not say error="invalid_token" in its challenge`,
		Response: func(_ *State, _ *Exchange, r *Response) {
			if c := r.Header.Get("WWW-Authenticate"); c != "" {
				r.Header.Set("WWW-Authenticate", challengeError.ReplaceAllString(c, ""))
			}
		},
	},
	{
		Name:   "401-body-not-json",
		Trips:  []string{"auth-02"},
		Breaks: "a 401 has a plain-text body instead of the JSON body saying status 401",
		Response: func(_ *State, _ *Exchange, r *Response) {
			if r.Status == http.StatusUnauthorized {
				r.Header.Set("Content-Type", "text/plain; charset=utf-8")
				r.Body = []byte("Unauthorized\n")
			}
		},
	},
	{
		Name:   "bearer-case-sensitive",
		Trips:  []string{"auth-06"},
		Breaks: `the scheme is matched case-sensitively: "bearer <token>" is not recognised (RFC 9110 section 11.1)`,
		Request: func(_ *State, x *Exchange) *Response {
			h := x.Req.Header.Get("Authorization")
			if !strings.HasPrefix(h, "Bearer ") && strings.HasPrefix(strings.ToLower(h), "bearer ") {
				x.Req.Header.Del("Authorization")
			}
			return nil
		},
	},
	{
		Name:   "any-scheme-accepted",
		Trips:  []string{"auth-05"},
		Breaks: "the token is taken from Authorization whatever its scheme (Basic, Token, none)",
		Request: func(_ *State, x *Exchange) *Response {
			h := x.Req.Header.Get("Authorization")
			if f := strings.Fields(h); len(f) > 0 && !strings.EqualFold(f[0], "Bearer") {
				x.Req.Header.Set("Authorization", "Bearer "+f[len(f)-1])
			}
			return nil
		},
	},
	{
		Name:   "alg-none-accepted",
		Trips:  []string{"auth-03"},
		Breaks: `a token whose header says alg "none" is believed without a signature`,
		Request: func(s *State, x *Exchange) *Response {
			return acceptForged(s, x, func(alg string) bool { return strings.EqualFold(alg, "none") })
		},
		Response: learnTokens,
	},
	{
		Name:   "signature-not-checked",
		Trips:  []string{"auth-03"},
		Breaks: "a token's claims are believed without checking its signature",
		Request: func(s *State, x *Exchange) *Response {
			return acceptForged(s, x, func(string) bool { return true })
		},
		Response: learnTokens,
	},
	{
		Name:   "revocation-not-honoured",
		Trips:  []string{"auth-07", "others-07", "token-19", "tokreq-14"},
		Breaks: "a revoked token keeps working: what a token may do is cached and not dropped on revocation",
		Response: func(s *State, x *Exchange, r *Response) {
			learnTokens(s, x, r)
			if graphQLOp(x) == "revokeAccessToken" && bytes.Contains(r.Body, []byte(`"revokeAccessToken":true`)) {
				if id, _ := graphQLVars(x)["tokenId"].(string); id != "" {
					if raw, ok := s.Recall("raw-of-id " + id); ok {
						s.Remember("revoked "+string(raw), nil)
					}
				}
			}
			replayWhenRefused(s, x, r, func(token string) bool {
				_, revoked := s.Recall("revoked " + token)
				return revoked
			})
		},
	},
	{
		Name:   "suspension-not-honoured",
		Trips:  []string{"auth-08"},
		Breaks: "a suspended user's token keeps working: the user's status is not checked when a token is used",
		Response: func(s *State, x *Exchange, r *Response) {
			if isIngestPath(x.Req.URL.Path) && r.Status == http.StatusOK {
				var p proposal
				if json.Unmarshal(x.Body, &p) == nil && p.Proposal.AspectName == "corpUserStatus" &&
					strings.Contains(p.Proposal.Aspect.Value, "SUSPENDED") {
					s.Remember("suspended "+p.Proposal.EntityURN, nil)
				}
			}
			replayWhenRefused(s, x, r, func(token string) bool {
				sub, _ := jwtClaims(token)["sub"].(string)
				_, suspended := s.Recall("suspended urn:li:corpuser:" + sub)
				return sub != "" && suspended
			})
		},
	},
	{
		Name:   "actor-header-honoured",
		Trips:  []string{"auth-09", "auth-10"},
		Breaks: "with authentication on, the metadata service lets X-DataHub-Actor choose whom a request runs as",
		Tier:   GMSOnly,
		Request: func(s *State, x *Exchange) *Response {
			if x.Req.Header.Get("X-DataHub-Actor") == "urn:li:corpuser:datahub" && x.Req.Header.Get("Authorization") != "" {
				x.Req.Header.Set("Authorization", s.AdminAuthorization())
			}
			return nil
		},
	},
	{
		Name:   "frontend-service-identity",
		Trips:  []string{"auth-09", "http-05"},
		Breaks: "the frontend calls the metadata service with its own credentials instead of passing the caller's on",
		Tier:   FrontendOnly,
		Request: func(s *State, x *Exchange) *Response {
			if strings.HasPrefix(x.Req.URL.Path, "/api/") && x.Req.Header.Get("Authorization") != "" {
				x.Req.Header.Set("Authorization", s.AdminAuthorization())
			}
			return nil
		},
	},
	{
		Name:   "health-needs-token",
		Trips:  []string{"me-02"},
		Breaks: "/health asks for a token like the API paths instead of staying open",
		Request: func(_ *State, x *Exchange) *Response {
			if x.Req.URL.Path != "/health" || x.Req.Header.Get("Authorization") != "" {
				return nil
			}
			h := http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {`Bearer realm="datahub"`}}
			return &Response{Status: http.StatusUnauthorized, Header: h,
				Body: []byte(`{"status":401,"error":"Unauthorized","path":"/health"}`)}
		},
	},
	{
		Name:   "app-config-says-auth-off",
		Trips:  []string{"auth-11"},
		Breaks: "appConfig reports tokenAuthEnabled false while authentication is on",
		Response: func(_ *State, x *Exchange, r *Response) {
			if graphQLOp(x) == "appConfig" {
				editJSON(r, func(v map[string]any) {
					if a := dig(v, "data", "appConfig", "authConfig"); a != nil {
						a["tokenAuthEnabled"] = false
					}
				})
			}
		},
	},
	{
		Name:   "me-overstates-privileges",
		Trips:  []string{"me-01"},
		Breaks: "me reports manageTokens for anyone who may generate tokens (the two privileges confused)",
		Response: func(_ *State, x *Exchange, r *Response) {
			if graphQLOp(x) == "me" {
				editJSON(r, func(v map[string]any) {
					if p := dig(v, "data", "me", "platformPrivileges"); p != nil && p["generatePersonalAccessTokens"] == true {
						p["manageTokens"] = true
					}
				})
			}
		},
	},

	// ---- Tokens (SPEC.md, Personal access tokens) ----
	{
		Name:   "expiry-a-day-late",
		Trips:  []string{"life-01", "token-12"},
		Breaks: "a new token is described as expiring a day later than its duration says",
		Response: func(_ *State, x *Exchange, r *Response) {
			if graphQLOp(x) == "createAccessToken" {
				editJSON(r, func(v map[string]any) {
					m := dig(v, "data", "createAccessToken", "metadata")
					if e, ok := m["expiresAt"].(float64); ok {
						m["expiresAt"] = e + float64(24*time.Hour/time.Millisecond)
					}
				})
			}
		},
	},
	{
		Name:   "raw-token-listed",
		Trips:  []string{"token-15"},
		Breaks: "the raw token is kept and shown again, in token lists and token metadata",
		Response: func(s *State, x *Exchange, r *Response) {
			learnTokens(s, x, r)
			switch graphQLOp(x) {
			case "listAccessTokens", "getAccessTokenMetadata":
			default:
				return
			}
			editJSON(r, func(v map[string]any) {
				var metas []map[string]any
				if l := dig(v, "data", "listAccessTokens"); l != nil {
					for _, t := range asList(l["tokens"]) {
						metas = append(metas, t)
					}
				}
				if m := dig(v, "data", "getAccessTokenMetadata"); m != nil {
					metas = append(metas, m)
				}
				for _, m := range metas {
					id, _ := m["id"].(string)
					if raw, ok := s.Recall("raw-of-id " + id); ok {
						m["description"] = string(raw)
					}
				}
			})
		},
	},
	{
		Name:     "token-for-others-escalates",
		Trips:    []string{"others-03", "others-04", "token-14"},
		Breaks:   "a createAccessToken refused for want of a privilege is carried out anyway, with the server's own authority",
		Response: escalateGraphQL("createAccessToken"),
	},
	{
		Name:     "list-tokens-escalates",
		Trips:    []string{"token-17", "token-18"},
		Breaks:   "a listAccessTokens refused for want of a privilege is answered anyway",
		Response: escalateGraphQL("listAccessTokens"),
	},
	{
		Name:     "revoke-escalates",
		Trips:    []string{"others-08", "token-20"},
		Breaks:   "a revokeAccessToken refused for want of a privilege is carried out anyway",
		Response: escalateGraphQL("revokeAccessToken"),
	},
	{
		Name:     "token-metadata-escalates",
		Trips:    []string{"token-23"},
		Breaks:   "getAccessTokenMetadata answers anyone, not only managers",
		Response: escalateGraphQL("getAccessTokenMetadata"),
	},

	// ---- Policies and tags (SPEC.md, Policies; Tags) ----
	{
		Name:     "policy-escalates",
		Trips:    []string{"others-09", "policy-02", "token-02"},
		Breaks:   "policy mutations refused for want of MANAGE_POLICIES are carried out anyway",
		Response: escalateGraphQL("createPolicy", "updatePolicy", "deletePolicy"),
	},
	{
		Name:     "policy-cache-lags",
		Trips:    []string{"token-04", "token-06", "token-08"},
		Breaks:   "authorization decisions are cached per token for a second, so a policy change does not show on the next request",
		Request:  policyCacheRequest,
		Response: policyCacheResponse,
	},
	{
		Name:     "create-tag-escalates",
		Trips:    []string{"tag-06", "tag-07"},
		Breaks:   "a createTag refused for want of CREATE_TAGS or MANAGE_TAGS is carried out anyway (a privilege escalation)",
		Response: escalateGraphQL("createTag"),
	},
	{
		Name:   "tag-answer-not-urn",
		Trips:  []string{"tag-01", "tag-02"},
		Breaks: "createTag answers the new tag's id instead of its URN",
		Response: func(_ *State, x *Exchange, r *Response) {
			if graphQLOp(x) == "createTag" {
				editJSON(r, func(v map[string]any) {
					if d := dig(v, "data"); d != nil {
						if u, ok := d["createTag"].(string); ok {
							d["createTag"] = strings.TrimPrefix(u, "urn:li:tag:")
						}
					}
				})
			}
		},
	},
	{
		Name:     "duplicate-tag-overwrites",
		Trips:    []string{"tag-05"},
		Breaks:   "createTag with an id already used overwrites the stored tag (an upsert) instead of refusing",
		Response: duplicateTagOverwrites,
	},

	// ---- Entity paths and ingestion (SPEC.md, Entity paths; Ingestion) ----
	{
		Name:   "entity-cached-stale",
		Trips:  []string{"ingest-02"},
		Breaks: "an entity path answers from a copy cached at the first read, so a later write does not show",
		Response: func(s *State, x *Exchange, r *Response) {
			if x.Req.Method != http.MethodGet || !isEntityPath(x.Req.URL.Path) || r.Status != http.StatusOK {
				return
			}
			key := "entity " + x.Req.Header.Get("Authorization") + " " + x.Req.URL.String()
			if cached, ok := s.Recall(key); ok {
				r.Body = cached
				return
			}
			s.Remember(key, r.Body)
		},
	},
	{
		Name:   "missing-entity-found",
		Trips:  []string{"entity-04"},
		Breaks: "an entity never written is answered 200 with its key aspect alone instead of 404",
		Response: func(_ *State, x *Exchange, r *Response) {
			if r.Status != http.StatusNotFound || !isEntityPath(x.Req.URL.Path) {
				return
			}
			urn := entityURN(x.Req.URL.Path)
			parts := strings.SplitN(urn, ":", 4)
			if len(parts) < 4 {
				return
			}
			kind := map[string]string{"tag": "Tag", "corpuser": "CorpUser", "dataset": "Dataset"}[parts[2]]
			if kind == "" {
				return
			}
			key := map[string]any{"com.linkedin.metadata.key." + kind + "Key": map[string]any{"name": parts[3]}}
			r.Body, _ = json.Marshal(map[string]any{"value": map[string]any{
				"com.linkedin.metadata.snapshot." + kind + "Snapshot": map[string]any{"urn": urn, "aspects": []any{key}}}})
			r.Status = http.StatusOK
			r.Header.Set("Content-Type", "application/json")
		},
	},
	{
		Name:   "percent-encoding-kept",
		Trips:  []string{"entity-01", "entity-02"},
		Breaks: "an entity path does not percent-decode the URN, so urn%3Ali%3A... is looked up as written",
		Request: func(_ *State, x *Exchange) *Response {
			u := x.Req.URL
			if isEntityPath(u.Path) && strings.Contains(u.RawPath, "%") {
				u.Path = u.RawPath
				u.RawPath = strings.ReplaceAll(u.RawPath, "%", "%25")
			}
			return nil
		},
	},
	{
		Name:   "entity-refusal-not-json",
		Trips:  []string{"entity-06", "restli-05", "restli-11"},
		Breaks: "an entity path's 403 has a plain-text body instead of JSON with its status and a message",
		Response: func(_ *State, x *Exchange, r *Response) {
			if r.Status == http.StatusForbidden && isEntityPath(x.Req.URL.Path) {
				r.Header.Set("Content-Type", "text/plain; charset=utf-8")
				r.Body = []byte("Forbidden\n")
			}
		},
	},
	{
		Name:   "ingest-escalates",
		Trips:  []string{"ingest-05", "ingest-10", "ingest-11", "ingest-12", "ingest-13"},
		Breaks: "a proposal refused for want of EDIT_ENTITY is stored anyway, with the server's own authority",
		Response: func(s *State, x *Exchange, r *Response) {
			if r.Status == http.StatusForbidden && isIngestPath(x.Req.URL.Path) {
				if esc, err := s.SendAs(x, s.AdminAuthorization()); err == nil {
					*r = *esc
				}
			}
		},
	},
	{
		Name:   "config-nocode-boolean",
		Trips:  []string{"ingest-14"},
		Breaks: `/config answers "noCode": true, a boolean, where DataHub's clients expect the string "true"`,
		Response: func(_ *State, x *Exchange, r *Response) {
			if strings.HasSuffix(x.Req.URL.Path, "/config") {
				r.Body = noCodeString.ReplaceAll(r.Body, []byte(`"noCode":true`))
			}
		},
	},
	{
		Name:   "timeseries-read-escalates",
		Trips:  []string{"series-08", "series-09"},
		Breaks: "a timeseries read refused for want of a timeseries privilege is answered anyway, with the server's own authority",
		Response: func(s *State, x *Exchange, r *Response) {
			if r.Status == http.StatusForbidden && x.Req.URL.Query().Get("action") == "getTimeseriesAspectValues" {
				if esc, err := s.SendAs(x, s.AdminAuthorization()); err == nil {
					*r = *esc
				}
			}
		},
	},
	{
		Name:   "timeseries-oldest-first",
		Trips:  []string{"series-01", "series-02"},
		Breaks: "timeseries values are answered oldest first, where DataHub's SDK and CLI take the first as the latest",
		Response: func(_ *State, x *Exchange, r *Response) {
			if x.Req.URL.Query().Get("action") != "getTimeseriesAspectValues" || r.Status != http.StatusOK {
				return
			}
			var body map[string]map[string]json.RawMessage
			var values []json.RawMessage
			if json.Unmarshal(r.Body, &body) != nil || json.Unmarshal(body["value"]["values"], &values) != nil {
				return
			}
			slices.Reverse(values)
			body["value"]["values"], _ = json.Marshal(values)
			r.Body, _ = json.Marshal(body)
		},
	},
	{
		Name:     "write-untraced",
		Trips:    []string{"runs-06"},
		Breaks:   "a write is answered without the traceparent header DataHub's SDK waits on",
		Response: func(_ *State, _ *Exchange, r *Response) { r.Header.Del("Traceparent") },
	},
}

var (
	challengeError = regexp.MustCompile(`,\s*error(_description)?="[^"]*"`)
	noCodeString   = regexp.MustCompile(`"noCode"\s*:\s*"true"`)
	operationName  = regexp.MustCompile(`\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)`)
	commentLine    = regexp.MustCompile(`(?m)^\s*#.*$`)
)

// ---- Recognising requests ----

func isGraphQLPath(p string) bool {
	return p == "/api/graphql" || p == "/api/v2/graphql" || p == "/api/gms/api/graphql"
}

func isEntityPath(p string) bool {
	return strings.HasPrefix(p, "/entities/") || strings.HasPrefix(p, "/api/gms/entities/")
}

func isIngestPath(p string) bool {
	return p == "/aspects" || p == "/api/gms/aspects"
}

// guarded tells whether p is a path that needs a token.
func guarded(p string) bool {
	return isGraphQLPath(p) || isEntityPath(p) || isIngestPath(p) || strings.HasSuffix(p, "/api/graphiql")
}

// entityURN is the URN an entity path names.
func entityURN(p string) string {
	if i := strings.Index(p, "/entities/"); i >= 0 {
		return p[i+len("/entities/"):]
	}
	return ""
}

// graphQLRequest decodes the body of a GraphQL POST; ok is false for any
// other request.
func graphQLRequest(x *Exchange) (query string, vars map[string]any, ok bool) {
	if x.Req.Method != http.MethodPost || !isGraphQLPath(x.Req.URL.Path) {
		return "", nil, false
	}
	var body struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if json.Unmarshal(x.Body, &body) != nil {
		return "", nil, false
	}
	return body.Query, body.Variables, true
}

// graphQLOp is the name of the operation a GraphQL POST carries, "" for
// any other request.
func graphQLOp(x *Exchange) string {
	q, _, ok := graphQLRequest(x)
	if !ok {
		return ""
	}
	if m := operationName.FindStringSubmatch(commentLine.ReplaceAllString(q, "")); m != nil {
		return m[1]
	}
	return ""
}

func graphQLVars(x *Exchange) map[string]any {
	_, v, _ := graphQLRequest(x)
	return v
}

// bearerToken is the token of the request's Authorization header.
func bearerToken(x *Exchange) string {
	scheme, tok, ok := strings.Cut(x.Req.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// jwtPart decodes the i-th part of a JWT (0 header, 1 claims).
func jwtPart(token string, i int) map[string]any {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[i], "="))
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func jwtClaims(token string) map[string]any { return jwtPart(token, 1) }

// proposal is the part of an ingestion request the faults read.
type proposal struct {
	Proposal struct {
		EntityURN  string `json:"entityUrn"`
		AspectName string `json:"aspectName"`
		Aspect     struct {
			Value string `json:"value"`
		} `json:"aspect"`
	} `json:"proposal"`
}

// ---- Reading and rewriting answers ----

// dig walks a decoded JSON object down the keys; nil when a step is missing.
func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		if m == nil {
			return nil
		}
		m, _ = m[k].(map[string]any)
	}
	return m
}

func asList(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// editJSON rewrites a JSON answer in place; any other answer is left alone.
func editJSON(r *Response, edit func(map[string]any)) {
	var v map[string]any
	if json.Unmarshal(r.Body, &v) != nil {
		return
	}
	edit(v)
	if b, err := json.Marshal(v); err == nil {
		r.Body = b
	}
}

// hasErrorType tells whether a GraphQL answer holds an error of the type.
func hasErrorType(body []byte, typ string) bool {
	var v struct {
		Errors []struct {
			Extensions struct {
				Type string `json:"type"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	for _, e := range v.Errors {
		if e.Extensions.Type == typ {
			return true
		}
	}
	return false
}

// ---- Behaviours shared by several faults ----

// escalateGraphQL answers a GraphQL call of one of ops that was refused as
// UNAUTHORIZED by carrying it out again with the administrator's token.
func escalateGraphQL(ops ...string) func(*State, *Exchange, *Response) {
	return func(s *State, x *Exchange, r *Response) {
		op := graphQLOp(x)
		for _, o := range ops {
			if op == o && hasErrorType(r.Body, "UNAUTHORIZED") {
				if esc, err := s.SendAs(x, s.AdminAuthorization()); err == nil {
					*r = *esc
				}
				return
			}
		}
	}
}

// learnTokens keeps the raw tokens createAccessToken answers, by id and by
// jti, for faults that later misuse them.
func learnTokens(s *State, x *Exchange, r *Response) {
	if graphQLOp(x) != "createAccessToken" || r.Status != http.StatusOK {
		return
	}
	var v struct {
		Data struct {
			CreateAccessToken *struct {
				AccessToken string `json:"accessToken"`
				Metadata    struct {
					ID string `json:"id"`
				} `json:"metadata"`
			} `json:"createAccessToken"`
		} `json:"data"`
	}
	if json.Unmarshal(r.Body, &v) != nil || v.Data.CreateAccessToken == nil {
		return
	}
	t := v.Data.CreateAccessToken
	s.Remember("raw-of-id "+t.Metadata.ID, []byte(t.AccessToken))
	if jti, _ := jwtClaims(t.AccessToken)["jti"].(string); jti != "" {
		s.Remember("raw-of-jti "+jti, []byte(t.AccessToken))
	}
}

// acceptForged stands for a server that believes a token's claims: a JWT
// whose signature is not the one issued (and whose alg suits), but whose
// jti names a real token, is replaced by that real token.
func acceptForged(s *State, x *Exchange, algSuits func(string) bool) *Response {
	tok := bearerToken(x)
	claims := jwtClaims(tok)
	jti, _ := claims["jti"].(string)
	if jti == "" {
		return nil
	}
	alg, _ := jwtPart(tok, 0)["alg"].(string)
	real, ok := s.Recall("raw-of-jti " + jti)
	if ok && string(real) != tok && algSuits(alg) {
		x.Req.Header.Set("Authorization", "Bearer "+string(real))
	}
	return nil
}

// replayWhenRefused remembers every 200 answer by token and request, and
// answers a 401 or 403 to a token that stale(token) with the answer it got
// the last time it asked the same.
func replayWhenRefused(s *State, x *Exchange, r *Response, stale func(token string) bool) {
	tok := bearerToken(x)
	if tok == "" {
		return
	}
	sum := sha256.Sum256(x.Body)
	key := "answer " + tok + " " + x.Req.Method + " " + x.Req.URL.RequestURI() + " " + hex.EncodeToString(sum[:])
	switch {
	case r.Status == http.StatusOK:
		s.Remember(key, r.Body)
	case r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden:
		if cached, ok := s.Recall(key); ok && stale(tok) {
			r.Status, r.Body = http.StatusOK, cached
			r.Header.Del("WWW-Authenticate")
			r.Header.Set("Content-Type", "application/json")
		}
	}
}

// policyCacheTTL is how long policy-cache-lags keeps a decision: well under
// the suite's propagation window, so only the "at once" scenarios notice.
const policyCacheTTL = time.Second

// policyCacheRequest answers a createTag from a refusal cached less than
// policyCacheTTL ago for the same token.
func policyCacheRequest(s *State, x *Exchange) *Response {
	if graphQLOp(x) != "createTag" {
		return nil
	}
	auth := x.Req.Header.Get("Authorization")
	if age, ok := s.Since("refused " + auth); ok && age < policyCacheTTL {
		if body, ok := s.Recall("refusal " + auth); ok {
			return &Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
		}
	}
	return nil
}

// policyCacheResponse notes each createTag decision, and carries a refused
// createTag out anyway when the same token was allowed one less than
// policyCacheTTL ago.
func policyCacheResponse(s *State, x *Exchange, r *Response) {
	if graphQLOp(x) != "createTag" || r.Status != http.StatusOK {
		return
	}
	auth := x.Req.Header.Get("Authorization")
	if !hasErrorType(r.Body, "UNAUTHORIZED") {
		if !bytes.Contains(r.Body, []byte(`"errors"`)) {
			s.Mark("allowed " + auth)
		}
		return
	}
	if age, ok := s.Since("allowed " + auth); ok && age < policyCacheTTL {
		if esc, err := s.SendAs(x, s.AdminAuthorization()); err == nil {
			*r = *esc
		}
		return
	}
	s.Mark("refused " + auth)
	s.Remember("refusal "+auth, r.Body)
}

// duplicateTagOverwrites answers a createTag refused because the id is
// taken by writing the tag's properties over the stored ones, as an upsert
// would, and answering the URN.
func duplicateTagOverwrites(s *State, x *Exchange, r *Response) {
	if graphQLOp(x) != "createTag" || !bytes.Contains(r.Body, []byte("already exists")) {
		return
	}
	in, _ := graphQLVars(x)["input"].(map[string]any)
	id, _ := in["id"].(string)
	if id == "" {
		return
	}
	urn := "urn:li:tag:" + id
	props, _ := json.Marshal(map[string]any{"name": in["name"], "description": in["description"]})
	body, _ := json.Marshal(map[string]any{"proposal": map[string]any{
		"entityType": "tag", "entityUrn": urn, "changeType": "UPSERT", "aspectName": "tagProperties",
		"aspect": map[string]any{"value": string(props), "contentType": "application/json"}}})
	ingest := &Exchange{Req: x.Req.Clone(x.Req.Context()), Body: body, Frontend: x.Frontend, upstream: x.upstream}
	path := "/aspects"
	if x.Frontend {
		path = "/api/gms/aspects"
	}
	ingest.Req.Method = http.MethodPost
	ingest.Req.URL = &url.URL{Path: path, RawQuery: "action=ingestProposal"}
	ingest.Req.Header.Set("Content-Type", "application/json")
	ingest.Req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	resp, err := s.SendAs(ingest, s.AdminAuthorization())
	if err != nil || resp.Status != http.StatusOK {
		return
	}
	r.Body, _ = json.Marshal(map[string]any{"data": map[string]any{"createTag": urn}})
}
