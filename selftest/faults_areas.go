package selftest

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// The faults of issue 30's areas: reads of users over DataHub's SDK paths,
// deleting what does not exist, batches naming an aspect twice, invite
// tokens per role, what removeUser refuses, the sign-in throttle after a
// reset, the sign-in form's CSRF token and the Host check. Each is a
// mistake a real implementation makes, made from outside.
func init() {
	Faults = append(Faults, areaFaults...)
}

var areaFaults = []Fault{
	// ---- DataHub's SDK over Rest.li and OpenAPI (SPEC.md) ----
	{
		Name:   "own-user-rule-for-every-user",
		Trips:  []string{"restli-27", "restli-28", "openapi-25", "openapi-26"},
		Breaks: "on the SDK's read paths everyone may read every user entity, not only their own: the exception for one's own user is taken for the entity type",
		Response: func(s *State, x *Exchange, r *Response) {
			if r.Status == http.StatusForbidden && isSDKUserRead(x) {
				if esc, err := s.SendAs(x, s.AdminAuthorization()); err == nil {
					*r = *esc
				}
			}
		},
	},
	{
		Name:    "missing-entity-delete-not-found",
		Trips:   []string{"openapi-27", "openapi-28"},
		With:    []string{"openapi-21"},
		Breaks:  "an OpenAPI deletion of an entity that does not exist is answered 404, before the caller's privilege is checked, where DataHub acknowledges it",
		Request: deleteMissingNotFound,
	},
	{
		Name:    "batch-keeps-first-duplicate",
		Trips:   []string{"restli-29", "openapi-29"},
		With:    []string{"restli-12", "openapi-03"},
		Breaks:  "a batch naming the same aspect of an entity twice keeps the first value, where DataHub writes each over the one before and keeps the last",
		Request: keepFirstDuplicate,
	},

	// ---- Users and invitations (SPEC.md, Native users ...) ----
	{
		Name:   "invite-token-role-ignored",
		Trips:  []string{"invite-10", "invite-11"},
		With:   []string{"invite-01"},
		Breaks: "getInviteToken and createInviteToken ignore the role: every role shares the invite token of no role",
		Request: func(_ *State, x *Exchange) *Response {
			switch graphQLOp(x) {
			case "getInviteToken", "createInviteToken":
			default:
				return nil
			}
			var body map[string]any
			if json.Unmarshal(x.Body, &body) != nil {
				return nil
			}
			vars, _ := body["variables"].(map[string]any)
			if in, _ := vars["input"].(map[string]any); in != nil {
				delete(in, "roleUrn")
				x.Body, _ = json.Marshal(body)
			}
			return nil
		},
	},
	{
		Name:     "role-invite-old-kept",
		Trips:    []string{"invite-12"},
		With:     []string{"invite-10"},
		Breaks:   "a new invite token for a role leaves the role's invite token before it signing people up, as DataHub's does until a later read finds two",
		Request:  oldRoleInviteSignsUp,
		Response: rememberRoleInvites,
	},
	{
		Name:     "remove-user-removes-anything",
		Trips:    []string{"users-11", "users-12", "users-13"},
		With:     []string{"users-02"},
		Breaks:   "removeUser deletes whatever URN it is given and answers true, as DataHub's does: a tag, a user no one made, the system user (the root user is never tried then)",
		Response: removeAnything,
	},
	{
		Name:   "reset-keeps-throttle",
		Trips:  []string{"signapi-15"},
		With:   []string{"signapi-16", "reset-01"},
		Breaks: "a new password set with a reset token leaves the throttle on the user's sign-ins: once throttled, the user's sign-ins are refused until the window ends",
		Request: func(s *State, x *Exchange) *Response {
			if user := signInUser(x); user != "" {
				if _, throttled := s.Recall("throttled " + user); throttled {
					h := http.Header{"Content-Type": {"application/json"}, "Retry-After": {"300"}}
					return &Response{Status: http.StatusTooManyRequests, Header: h, Body: []byte(`{"message":"Too many failed sign-ins: try again later."}`)}
				}
			}
			return nil
		},
		Response: func(s *State, x *Exchange, r *Response) {
			if user := signInUser(x); user != "" && r.Status == http.StatusTooManyRequests {
				s.Remember("throttled "+user, nil)
			}
		},
	},

	// ---- Browser pages (SPEC.md) ----
	{
		Name:    "sign-in-csrf-unchecked",
		Trips:   []string{"signin-12"},
		With:    []string{"signin-09"},
		UI:      true,
		Breaks:  "the sign-in form is accepted whatever CSRF token it carries (the token is not bound to the browser, or not checked)",
		Tier:    FrontendOnly,
		Request: signInFormFilled,
	},

	// ---- Hostile requests (SPEC.md) ----
	{
		Name:   "host-prefix-accepted",
		Trips:  []string{"hostile-08"},
		With:   []string{"hostile-04"},
		Breaks: "a Host that begins with a name the service answers to (localhost., its own address followed by a dot) is taken for that name",
		Request: func(_ *State, x *Exchange) *Response {
			host := x.Req.Host
			name, port := host, ""
			if i := strings.LastIndex(host, ":"); i >= 0 {
				name, port = host[:i], host[i:]
			}
			own := x.upstream.Hostname()
			for _, allowed := range []string{"localhost", own} {
				if strings.HasPrefix(name, allowed+".") {
					x.Req.Host = allowed + port
				}
			}
			return nil
		},
	},
}

// sdkReadPath matches the paths of the SDK's reads of one entity, on
// either tier: the aspect path, the v2 entity path (one entity, or a
// batch), OpenAPI's entity, aspect and batchGet.
var sdkReadPath = regexp.MustCompile(`^(?:/api/gms)?/(?:aspects/|entitiesV2(?:/|$)|openapi/v3/entity/)`)

// isSDKUserRead says whether x is one of the SDK's reads of a user entity.
func isSDKUserRead(x *Exchange) bool {
	if !sdkReadPath.MatchString(x.Req.URL.Path) {
		return false
	}
	if x.Req.Method == http.MethodPost {
		return strings.Contains(x.Req.URL.Path, "/openapi/v3/entity/corpuser/batchGet")
	}
	uri, _ := url.PathUnescape(x.Req.URL.RequestURI())
	return x.Req.Method == http.MethodGet && strings.Contains(uri, "urn:li:corpuser:")
}

// deleteMissingNotFound answers an OpenAPI deletion of an entity that has
// no aspect stored (as the administrator reads it) with 404, whoever asks.
func deleteMissingNotFound(s *State, x *Exchange) *Response {
	p := strings.TrimPrefix(x.Req.URL.Path, "/api/gms")
	if x.Req.Method != http.MethodDelete || !strings.HasPrefix(p, "/openapi/v3/entity/") {
		return nil
	}
	read := &Exchange{Req: x.Req.Clone(x.Req.Context()), Frontend: x.Frontend, upstream: x.upstream}
	read.Req.Method = http.MethodGet
	read.Body = nil
	resp, err := s.SendAs(read, s.AdminAuthorization())
	if err != nil || resp.Status != http.StatusNotFound {
		return nil
	}
	return &Response{Status: http.StatusNotFound, Header: http.Header{"Content-Type": {"application/json"}},
		Body: []byte(`{"status":404,"error":"Not Found","message":"no such entity"}`)}
}

// keepFirstDuplicate rewrites a Rest.li batch, or an OpenAPI write, so
// that of the proposals naming the same aspect of the same entity only the
// first is sent.
func keepFirstDuplicate(_ *State, x *Exchange) *Response {
	if x.Req.Method != http.MethodPost {
		return nil
	}
	p := strings.TrimPrefix(x.Req.URL.Path, "/api/gms")
	seen := map[string]bool{}
	first := func(urn, aspect string) bool {
		k := urn + "\x00" + aspect
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	switch {
	case (p == "/aspects" || p == "/aspects/") && x.Req.URL.Query().Get("action") == "ingestProposalBatch":
		var body map[string]json.RawMessage
		var proposals []map[string]any
		if json.Unmarshal(x.Body, &body) != nil || json.Unmarshal(body["proposals"], &proposals) != nil {
			return nil
		}
		var kept []map[string]any
		for _, pr := range proposals {
			urn, _ := pr["entityUrn"].(string)
			aspect, _ := pr["aspectName"].(string)
			if first(urn, aspect) {
				kept = append(kept, pr)
			}
		}
		body["proposals"], _ = json.Marshal(kept)
		x.Body, _ = json.Marshal(body)
	case strings.HasPrefix(p, "/openapi/v3/entity/") && !strings.HasSuffix(p, "/batchGet"):
		var items []map[string]json.RawMessage
		if json.Unmarshal(x.Body, &items) != nil {
			return nil
		}
		for _, it := range items {
			var urn string
			_ = json.Unmarshal(it["urn"], &urn)
			for k := range it {
				if k != "urn" && !first(urn, k) {
					delete(it, k)
				}
			}
		}
		x.Body, _ = json.Marshal(items)
	}
	return nil
}

// removeAnything answers a removeUser refused for anything but a want of
// privilege with true, deleting a dataset or tag it names as DataHub's
// RemoveUserResolver would.
func removeAnything(s *State, x *Exchange, r *Response) {
	if graphQLOp(x) != "removeUser" || !bytes.Contains(r.Body, []byte(`"errors"`)) || hasErrorType(r.Body, "UNAUTHORIZED") {
		return
	}
	urn, _ := graphQLVars(x)["urn"].(string)
	if parts := strings.SplitN(urn, ":", 4); len(parts) == 4 && (parts[2] == "tag" || parts[2] == "dataset") {
		del := &Exchange{Req: x.Req.Clone(x.Req.Context()), Frontend: x.Frontend, upstream: x.upstream}
		path := "/openapi/v3/entity/" + parts[2] + "/" + url.PathEscape(urn)
		if x.Frontend {
			path = "/api/gms" + path
		}
		del.Req.Method = http.MethodDelete
		del.Req.URL = &url.URL{Path: path}
		del.Body = nil
		if resp, err := s.SendAs(del, s.AdminAuthorization()); err != nil || resp.Status >= 300 {
			return
		}
	}
	r.Status = http.StatusOK
	r.Header.Set("Content-Type", "application/json")
	r.Body = []byte(`{"data":{"removeUser":true}}`)
}

// signInFormFilled gives a sign-in form the CSRF token the sign-in page
// gives the same browser (and the cookie it binds it to, when the browser
// has none), as a server that does not check the token behaves.
func signInFormFilled(s *State, x *Exchange) *Response {
	if x.Req.Method != http.MethodPost || x.Req.URL.Path != "/login" {
		return nil
	}
	form, err := url.ParseQuery(string(x.Body))
	if err != nil {
		return nil
	}
	page := &Exchange{Req: x.Req.Clone(x.Req.Context()), Frontend: x.Frontend, upstream: x.upstream}
	page.Req.Method = http.MethodGet
	page.Req.Header.Del("Content-Type")
	page.Body = nil
	resp, err := s.Send(page)
	if err != nil || resp.Status != http.StatusOK {
		return nil
	}
	m := csrfField.FindSubmatch(resp.Body)
	if m == nil {
		return nil
	}
	form.Set("csrf_token", html.UnescapeString(string(m[1])))
	x.Body = []byte(form.Encode())
	for _, c := range (&http.Response{Header: resp.Header}).Cookies() {
		x.Req.AddCookie(c)
	}
	return nil
}

// signInUser is the username a sign-in at the frontend's sign-in API
// names, "" for any other request.
func signInUser(x *Exchange) string {
	if x.Req.Method != http.MethodPost || x.Req.URL.Path != "/logIn" {
		return ""
	}
	var in struct {
		Username string `json:"username"`
	}
	_ = json.Unmarshal(x.Body, &in)
	return in.Username
}

// rememberRoleInvites notes each invite token of a role the target answers
// (getInviteToken, createInviteToken with a roleUrn): the role's latest,
// and the one it replaced.
func rememberRoleInvites(s *State, x *Exchange, r *Response) {
	op := graphQLOp(x)
	if (op != "getInviteToken" && op != "createInviteToken") || r.Status != http.StatusOK {
		return
	}
	in, _ := graphQLVars(x)["input"].(map[string]any)
	role, _ := in["roleUrn"].(string)
	if role == "" {
		return
	}
	var out struct {
		Data map[string]*struct {
			InviteToken string `json:"inviteToken"`
		} `json:"data"`
	}
	if json.Unmarshal(r.Body, &out) != nil || out.Data[op] == nil || out.Data[op].InviteToken == "" {
		return
	}
	token := out.Data[op].InviteToken
	if before, ok := s.Recall("role invite latest " + role); ok && string(before) != token {
		s.Remember("role invite old "+string(before), []byte(role))
	}
	s.Remember("role invite latest "+role, []byte(token))
}

// oldRoleInviteSignsUp takes a sign-up with a role's replaced invite token
// for one with the role's latest.
func oldRoleInviteSignsUp(s *State, x *Exchange) *Response {
	if x.Req.Method != http.MethodPost || x.Req.URL.Path != "/signUp" {
		return nil
	}
	var body map[string]any
	if json.Unmarshal(x.Body, &body) != nil {
		return nil
	}
	token, _ := body["inviteToken"].(string)
	role, old := s.Recall("role invite old " + token)
	if token == "" || !old {
		return nil
	}
	if latest, ok := s.Recall("role invite latest " + string(role)); ok {
		body["inviteToken"] = string(latest)
		x.Body, _ = json.Marshal(body)
	}
	return nil
}
