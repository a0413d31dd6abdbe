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
	"strings"
	"time"
)

// Expected says, for each fault, which scenarios must notice it: at least
// one scenario whose name contains one of the strings must fail while the
// fault is active. Short, distinctive parts of the names, so that a reworded
// scenario still matches; keep this table in step with features/ (the
// selftest fails on a string that matches no scenario at all).
var Expected = map[string][]string{
	// GraphQL over HTTP
	"graphql-get-executes":      {"A tag creation sent by GET does not happen", "A query sent by GET is refused"},
	"graphql-405-without-allow": {"says that only POST is allowed"},
	"graphql-any-content-type":  {"A body that is not declared as JSON is refused"},
	"graphql-400-echoes-body":   {"refused without being echoed"},
	"graphql-accept-ignored":    {"application/graphql-response+json to a client that asks"},
	"graphql-untyped-answer":    {"A query is answered as application/json"},
	"authz-error-as-http-403":   {"A call refused for want of a privilege is answered as a GraphQL error"},
	"authz-error-as-500":        {"A call refused for want of a privilege is answered as a GraphQL error", "cannot create a tag"},
	// Authentication
	"anonymous-as-root":         {"A request without a token is refused at"},
	"unauthenticated-as-200":    {"A request without a token is refused at", "A request with a"},
	"no-bearer-challenge":       {"challenges the caller for a Bearer token", "says the token is invalid"},
	"challenge-without-error":   {"says the token is invalid"},
	"401-body-not-json":         {"challenges the caller for a Bearer token"},
	"bearer-case-sensitive":     {"The Bearer scheme may be written in lower case"},
	"any-scheme-accepted":       {"A valid token sent"},
	"alg-none-accepted":         {"A request with an unsigned token is refused"},
	"signature-not-checked":     {"A request with a token signed with another key is refused"},
	"revocation-not-honoured":   {"A revoked token is refused", "revokes their own token and it stops working", "A manager revokes a token someone else owns"},
	"suspension-not-honoured":   {"The token of a suspended user is refused"},
	"actor-header-honoured":     {"naming someone else in X-DataHub-Actor still acts as itself through the metadata service", "naming an administrator in X-DataHub-Actor gains no privilege"},
	"frontend-service-identity": {"The frontend answers queries on its", "still acts as itself through the frontend"},
	"health-needs-token":        {"The health check answers without a token"},
	"app-config-says-auth-off":  {"The service says token authentication is on"},
	"me-overstates-privileges":  {"is told what it allows, and nothing more"},
	// Tokens
	"expiry-a-day-late":          {"token expires 1 hour after it is made", "token expires 1 day after it is made", "A new token is described as it was asked for"},
	"raw-token-listed":           {"The raw token is shown only in the answer that creates it"},
	"token-for-others-escalates": {"cannot create one for someone else", "cannot create a token for another user"},
	"list-tokens-escalates":      {"Listing someone else's tokens is refused", "Listing tokens without saying whose is refused"},
	"revoke-escalates":           {"Someone cannot revoke a token someone else owns", "The user a manager made a token for cannot revoke it"},
	"token-metadata-escalates":   {"cannot read a token's metadata"},
	// Policies and tags
	"policy-escalates":         {"A token cannot do what its user may not do", "is refused when she"},
	"policy-cache-lags":        {"works with an existing token at once", "takes the privilege away at once"},
	"create-tag-escalates":     {"Someone granted neither privilege cannot create a tag", "cannot create a tag"},
	"tag-answer-not-urn":       {"Someone granted CREATE_TAGS creates a tag", "Someone granted MANAGE_TAGS creates a tag"},
	"duplicate-tag-overwrites": {"A tag id can be used only once"},
	// Entity paths and ingestion
	"entity-cached-stale":     {"Ingesting an aspect again replaces it"},
	"missing-entity-found":    {"An entity that does not exist is not found"},
	"percent-encoding-kept":   {"with a percent-encoded URN"},
	"entity-refusal-not-json": {"Someone not allowed to read entities is refused through"},
	"ingest-escalates":        {"cannot ingest"},
	"config-nocode-boolean":   {"Ingestion clients can check the server without a token"},
}

// Faults are the mistakes the suite must catch, one rule of SPEC.md
// each, in the order they run.
var Faults = []Fault{
	// ---- GraphQL over HTTP (SPEC.md, GraphQL over HTTP) ----
	{
		Name:   "graphql-get-executes",
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
		Breaks: "a 405 from the GraphQL endpoint does not say in Allow that only POST is allowed",
		Response: func(_ *State, x *Exchange, r *Response) {
			if r.Status == http.StatusMethodNotAllowed {
				r.Header.Del("Allow")
			}
		},
	},
	{
		Name:   "graphql-any-content-type",
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
		Breaks: "a client asking for application/graphql-response+json is answered application/json",
		Response: func(_ *State, x *Exchange, r *Response) {
			if isGraphQLPath(x.Req.URL.Path) && strings.Contains(x.Req.Header.Get("Accept"), "application/graphql-response+json") {
				r.Header.Set("Content-Type", "application/json")
			}
		},
	},
	{
		Name:   "graphql-untyped-answer",
		Breaks: "GraphQL answers carry no JSON Content-Type (the server lets it be sniffed as text/plain)",
		Response: func(_ *State, x *Exchange, r *Response) {
			if isGraphQLPath(x.Req.URL.Path) && r.Status == http.StatusOK {
				r.Header.Set("Content-Type", "text/plain; charset=utf-8")
			}
		},
	},
	{
		Name:   "authz-error-as-http-403",
		Breaks: "a call refused for want of a privilege is answered with HTTP 403 instead of 200 and a GraphQL error",
		Response: func(_ *State, x *Exchange, r *Response) {
			if graphQLOp(x) != "" && r.Status == http.StatusOK && hasErrorType(r.Body, "UNAUTHORIZED") {
				r.Status = http.StatusForbidden
			}
		},
	},
	{
		Name:   "authz-error-as-500",
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
		Breaks: "a 401 carries no WWW-Authenticate challenge (RFC 6750 section 3)",
		Response: func(_ *State, _ *Exchange, r *Response) {
			if r.Status == http.StatusUnauthorized {
				r.Header.Del("WWW-Authenticate")
			}
		},
	},
	{
		Name:   "challenge-without-error",
		Breaks: `the 401 for a bad token does not say error="invalid_token" in its challenge`,
		Response: func(_ *State, _ *Exchange, r *Response) {
			if c := r.Header.Get("WWW-Authenticate"); c != "" {
				r.Header.Set("WWW-Authenticate", challengeError.ReplaceAllString(c, ""))
			}
		},
	},
	{
		Name:   "401-body-not-json",
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
		Breaks: `a token whose header says alg "none" is believed without a signature`,
		Request: func(s *State, x *Exchange) *Response {
			return acceptForged(s, x, func(alg string) bool { return strings.EqualFold(alg, "none") })
		},
		Response: learnTokens,
	},
	{
		Name:   "signature-not-checked",
		Breaks: "a token's claims are believed without checking its signature",
		Request: func(s *State, x *Exchange) *Response {
			return acceptForged(s, x, func(string) bool { return true })
		},
		Response: learnTokens,
	},
	{
		Name:   "revocation-not-honoured",
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
		Breaks:   "a createAccessToken refused for want of a privilege is carried out anyway, with the server's own authority",
		Response: escalateGraphQL("createAccessToken"),
	},
	{
		Name:     "list-tokens-escalates",
		Breaks:   "a listAccessTokens refused for want of a privilege is answered anyway",
		Response: escalateGraphQL("listAccessTokens"),
	},
	{
		Name:     "revoke-escalates",
		Breaks:   "a revokeAccessToken refused for want of a privilege is carried out anyway",
		Response: escalateGraphQL("revokeAccessToken"),
	},
	{
		Name:     "token-metadata-escalates",
		Breaks:   "getAccessTokenMetadata answers anyone, not only managers",
		Response: escalateGraphQL("getAccessTokenMetadata"),
	},

	// ---- Policies and tags (SPEC.md, Policies; Tags) ----
	{
		Name:     "policy-escalates",
		Breaks:   "policy mutations refused for want of MANAGE_POLICIES are carried out anyway",
		Response: escalateGraphQL("createPolicy", "updatePolicy", "deletePolicy"),
	},
	{
		Name:     "policy-cache-lags",
		Breaks:   "authorization decisions are cached per token for a second, so a policy change does not show on the next request",
		Request:  policyCacheRequest,
		Response: policyCacheResponse,
	},
	{
		Name:     "create-tag-escalates",
		Breaks:   "a createTag refused for want of CREATE_TAGS or MANAGE_TAGS is carried out anyway (a privilege escalation)",
		Response: escalateGraphQL("createTag"),
	},
	{
		Name:   "tag-answer-not-urn",
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
		Breaks:   "createTag with an id already used overwrites the stored tag (an upsert) instead of refusing",
		Response: duplicateTagOverwrites,
	},

	// ---- Entity paths and ingestion (SPEC.md, Entity paths; Ingestion) ----
	{
		Name:   "entity-cached-stale",
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
		Breaks: `/config answers "noCode": true, a boolean, where DataHub's clients expect the string "true"`,
		Response: func(_ *State, x *Exchange, r *Response) {
			if strings.HasSuffix(x.Req.URL.Path, "/config") {
				r.Body = noCodeString.ReplaceAll(r.Body, []byte(`"noCode":true`))
			}
		},
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
