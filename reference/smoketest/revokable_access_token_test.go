package smoketest

import (
	"net/http"
	"slices"
	"testing"
)

// DataHub's token smoke test, smoke-test/tests/tokens/revokable_access_token_test.py
// ("rev" below), with the helpers it calls: tests/tokens/token_utils.py
// ("token_utils"), tests/utils.py ("utils"), tests/consistency_utils.py
// ("consistency_utils"), conftest.py, and the SDK's
// metadata-ingestion/src/datahub/cli/cli_utils.py ("cli_utils"), which
// utils.login_as calls. pytest runs its fixtures and tests in this order:
// the session's auth_session (conftest.py:44-49), the class's
// custom_user_setup (rev:32-105), then for each test in the file's order
// access_token_setup (rev:108-133) around it; the teardowns in reverse.

// getInviteTokenDoc is the document of revokable_access_token_test.py, line 43, character for character.
const getInviteTokenDoc = `query getInviteToken($input: GetInviteTokenInput!) {
            getInviteToken(input: $input){
              inviteToken
            }
        }`

// createAccessTokenDoc is the document of revokable_access_token_test.py, line 417, character for character.
const createAccessTokenDoc = `mutation createAccessToken($input: CreateAccessTokenInput!) {
            createAccessToken(input: $input) {
              accessToken
              metadata {
                id
                actorUrn
                ownerUrn
                name
                description
              }
            }
        }`

// listAccessTokensDoc is the document of revokable_access_token_test.py, line 454, character for character.
const listAccessTokensDoc = `query listAccessTokens($input: ListAccessTokenInput!) {
            listAccessTokens(input: $input) {
              start
              count
              total
              tokens {
                urn
                id
                actorUrn
                ownerUrn
              }
            }
        }`

// revokeAccessTokenDoc is the document of revokable_access_token_test.py, line 478, character for character.
const revokeAccessTokenDoc = `mutation revokeAccessToken($tokenId: String!) {
            revokeAccessToken(tokenId: $tokenId)
        }`

// getAccessTokenMetadataDoc is the document of revokable_access_token_test.py, line 492, character for character.
const getAccessTokenMetadataDoc = `
        query getAccessTokenMetadata($token: String!) {
            getAccessTokenMetadata(token: $token) {
                id
                ownerUrn
                actorUrn
            }
        }`

// removeUserDoc is the document of token_utils.py, line 17, character for character.
const removeUserDoc = `mutation removeUser($urn: String!) {
            removeUser(urn: $urn)
        }`

// listUsersDoc is the document of token_utils.py, line 37, character for character.
const listUsersDoc = `query listUsers($input: ListUsersInput!) {
            listUsers(input: $input) {
              start
              count
              total
              users {
                username
              }
            }
        }`

// sessionTokenDoc is the document of utils.py, line 436, character for character.
const sessionTokenDoc = `mutation createAccessToken($input: CreateAccessTokenInput!) {
                createAccessToken(input: $input) {
                  accessToken
                  metadata {
                    id
                  }
                }
            }`

// sessionRevokeDoc is the document of utils.py, line 467, character for character.
const sessionRevokeDoc = `mutation revokeAccessToken($tokenId: String!) {
                revokeAccessToken(tokenId: $tokenId)
            }`

// smoke is the run's state: the URLs and the admin's credentials, as
// utils.get_frontend_url, utils.get_gms_url and
// utils.get_admin_credentials give them.
type smoke struct {
	t                     *testing.T
	frontend, gms         string
	adminUser, adminPass  string
	gmsToken, gmsTokenID  string // conftest.py:47, DATAHUB_GMS_TOKEN
	authExcludeFilter     obj    // rev:22-29
	adminUserURN, userURN string
}

// loginAs is utils.login_as (utils:34-37), that is cli_utils.
// get_frontend_session_login_as (cli_utils:358-368): a new session, a
// POST /logIn of a body built by string concatenation, raise_for_status.
func (s *smoke) loginAs(username, password string) *session {
	s.t.Helper()
	sess := newSession(s.t)
	data := `{"username":"` + username + `", "password":"` + password + `"}`
	a := sess.do("cli_utils:366 (login_as, utils:35)", http.MethodPost, s.frontend+"/logIn", []byte(data), map[string]string{"Content-Type": "application/json"})
	a.raiseForStatus(s.t)
	return sess
}

// waitForWritesToSync is consistency_utils.wait_for_writes_to_sync
// (consistency_utils:76-140): it asks GMS for its Kafka consumers' lag
// (consistency_utils:43, with the session token conftest.py:47 put in
// DATAHUB_GMS_TOKEN) and, when that fails, as it does on a service without
// Kafka, falls back to a sleep. The request is sent; the sleeps are left
// out: catalogd has nothing to wait for.
func (s *smoke) waitForWritesToSync() {
	s.t.Helper()
	sess := newSession(s.t) // requests.get, no session
	a := sess.do("consistency_utils:43 (wait_for_writes_to_sync)", http.MethodGet, s.gms+"/openapi/operations/kafka/mcp/consumer/offsets?skipCache=true", nil, map[string]string{"Authorization": "Bearer " + s.gmsToken})
	if a.status < 400 {
		s.t.Logf("%s: HTTP %d: the lag would be read from it", a.where, a.status)
	}
}

// graphql is session.post(f"{get_frontend_url()}/api/v2/graphql", json=body),
// raise_for_status, response.json().
func (s *smoke) graphql(sess *session, where string, body obj) map[string]any {
	s.t.Helper()
	a := sess.postJSON(where, s.frontend+"/api/v2/graphql", body)
	a.raiseForStatus(s.t)
	return a.json(s.t)
}

// removeUser is token_utils.removeUser (token_utils:14-26).
func (s *smoke) removeUser(sess *session, urn, where string) map[string]any {
	return s.graphql(sess, "token_utils:23 (removeUser, "+where+")", obj{{"query", removeUserDoc}, {"variables", obj{{"urn", urn}}}})
}

// listUsers is token_utils.listUsers (token_utils:29-53).
func (s *smoke) listUsers(sess *session, where string) map[string]any {
	return s.graphql(sess, "token_utils:50 (listUsers, "+where+")", obj{{"query", listUsersDoc}, {"variables", obj{{"input", obj{{"start", 0}, {"count", 20}}}}}})
}

// generateAccessTokenV2 is rev's generateAccessToken_v2 (rev:414-441).
func (s *smoke) generateAccessTokenV2(sess *session, actorURN, where string) map[string]any {
	return s.graphql(sess, "rev:439 (generateAccessToken_v2, "+where+")", obj{{"query", createAccessTokenDoc}, {"variables", obj{{"input", obj{
		{"type", "PERSONAL"}, {"actorUrn", actorURN}, {"duration", "ONE_HOUR"}, {"name", "my token"},
	}}}}})
}

// listAccessTokens is rev's listAccessTokens (rev:444-472).
func (s *smoke) listAccessTokens(sess *session, filters []any, where string) map[string]any {
	input := obj{{"start", 0}, {"count", 20}}
	if len(filters) > 0 {
		input = append(input, field{"filters", filters})
	}
	return s.graphql(sess, "rev:470 (listAccessTokens, "+where+")", obj{{"query", listAccessTokensDoc}, {"variables", obj{{"input", input}}}})
}

// revokeAccessToken is rev's revokeAccessToken (rev:475-487).
func (s *smoke) revokeAccessToken(sess *session, tokenID, where string) map[string]any {
	return s.graphql(sess, "rev:484 (revokeAccessToken, "+where+")", obj{{"query", revokeAccessTokenDoc}, {"variables", obj{{"tokenId", tokenID}}}})
}

// getAccessTokenMetadata is rev's getAccessTokenMetadata (rev:490-505).
func (s *smoke) getAccessTokenMetadata(sess *session, token, where string) map[string]any {
	return s.graphql(sess, "rev:502 (getAccessTokenMetadata, "+where+")", obj{{"query", getAccessTokenMetadataDoc}, {"variables", obj{{"token", token}}}})
}

// ownedBy is the user's own token filters with the exclusion, rev:270-273.
func (s *smoke) ownedBy(urn string) []any {
	return []any{obj{{"field", "ownerUrn"}, {"values", []any{urn}}}, s.authExcludeFilter}
}

// The smoke test's assertions.

func (s *smoke) require(ok bool, where, format string, args ...any) {
	s.t.Helper()
	if !ok {
		s.t.Fatalf(where+": assert fails: "+format, args...)
	}
}

// tokens is res_data["data"]["listAccessTokens"]["tokens"].
func (s *smoke) tokens(res map[string]any, where string) []any {
	s.t.Helper()
	s.require(truthy(res), where, "res_data is empty")
	s.require(truthy(at(s.t, where, res, "data")), where, "res_data[\"data\"] is %v", res["data"])
	s.require(at(s.t, where, res, "data", "listAccessTokens", "total") != nil, where, "total is None")
	l, _ := at(s.t, where, res, "data", "listAccessTokens", "tokens").([]any)
	return l
}

// usernames are the users of a listUsers answer, as dicts: the smoke
// test asks whether {"username": "user"} is among them.
func (s *smoke) hasUser(res map[string]any, username, where string) bool {
	s.t.Helper()
	s.require(truthy(at(s.t, where, res, "data")), where, "res_data[\"data\"] is %v", res["data"])
	s.require(truthy(at(s.t, where, res, "data", "listUsers")), where, "listUsers is %v", at(s.t, where, res, "data", "listUsers"))
	users, _ := at(s.t, where, res, "data", "listUsers", "users").([]any)
	return slices.ContainsFunc(users, func(u any) bool {
		m, ok := u.(map[string]any)
		return ok && len(m) == 1 && m["username"] == username
	})
}

// accessTokenSetup is the fixture around each test (rev:108-133); it
// returns the teardown.
func (s *smoke) accessTokenSetup(test string) func() {
	s.t.Helper()
	where := "access_token_setup before " + test
	adminSession := s.loginAs(s.adminUser, s.adminPass) // rev:111
	res := s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:113, "+where)
	s.require(truthy(res) && truthy(res["data"]), "rev:114-115", "no data: %v", res)
	if tokens := s.tokens(res, "rev:117"); len(tokens) > 0 {
		for _, m := range tokens {
			s.revokeAccessToken(adminSession, at(s.t, "rev:119", m, "id").(string), "rev:119, "+where)
		}
		s.waitForWritesToSync() // rev:120
	}
	res = s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:123, "+where)
	s.require(at(s.t, "rev:124", res, "data", "listAccessTokens", "total") == 0.0, "rev:124", "total is %v, want 0", at(s.t, "rev:124", res, "data", "listAccessTokens", "total"))
	s.require(!truthy(at(s.t, "rev:125", res, "data", "listAccessTokens", "tokens")), "rev:125", "tokens is %v, want none", res)
	return func() {
		s.t.Helper()
		where := "access_token_setup after " + test
		res := s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:130, "+where)
		for _, m := range s.tokens(res, "rev:131") {
			s.revokeAccessToken(adminSession, at(s.t, "rev:132", m, "id").(string), "rev:132, "+where)
		}
		s.waitForWritesToSync() // rev:133
	}
}

// TestRevokableAccessTokenSmokeTest runs DataHub's token smoke test
// against catalogd's frontend: sign in, invite, sign up, list users,
// create, list and revoke tokens as the admin and as the new user, remove
// the user.
func TestRevokableAccessTokenSmokeTest(t *testing.T) {
	tg := start(t)
	s := &smoke{t: t, frontend: tg.frontend, gms: tg.gms, adminUser: "datahub", adminPass: tg.adminPassword}
	s.adminUserURN, s.userURN = "urn:li:corpuser:"+s.adminUser, "urn:li:corpuser:user"
	s.authExcludeFilter = obj{{"field", "name"}, {"condition", "EQUAL"}, {"negated", true}, {"values", []any{"Test Session Token"}}}

	// The session fixture auth_session (conftest.py:39-49).
	// wait_for_healthcheck_util(requests) (utils:163-165), by check_endpoint (utils:170).
	for _, u := range []string{s.frontend + "/admin", s.gms + "/health"} {
		a := newSession(t).do("utils:170 (check_endpoint, utils:164-165)", http.MethodGet, u, nil, nil)
		s.require(a.status == 200, a.where, "%s is Not reachable, status_code: %d", u, a.status)
	}
	// TestSessionWrapper(get_frontend_session()) (conftest.py:41; utils:29-31, 367-374).
	upstream := s.loginAs(s.adminUser, s.adminPass)
	actorURN := upstream.cookie(s.frontend, "actor") // utils:434
	a := upstream.postJSON("utils:455 (_generate_gms_token)", s.frontend+"/api/v2/graphql", obj{{"query", sessionTokenDoc}, {"variables", obj{{"input", obj{
		{"type", "PERSONAL"}, {"actorUrn", actorURN}, {"duration", "ONE_DAY"}, {"name", "Test Session Token"}, {"description", "Token generated for smoke-tests"},
	}}}}})
	a.raiseForStatus(t)
	res := a.json(t)
	s.gmsTokenID = at(t, "utils:461", res, "data", "createAccessToken", "metadata", "id").(string)
	s.gmsToken = at(t, "utils:462", res, "data", "createAccessToken", "accessToken").(string)
	// Not an assertion of the smoke test, but what it relies on: the token
	// it makes is for the user the actor cookie names.
	s.require(actorURN == s.adminUserURN, "utils:434", "the actor cookie is %q, want %q", actorURN, s.adminUserURN)

	// The class fixture custom_user_setup (rev:32-105).
	adminSession := s.loginAs(s.adminUser, s.adminPass) // rev:35
	res = s.removeUser(adminSession, s.userURN, "rev:37")
	s.require(truthy(res), "rev:38", "res_data is empty")
	_, hasError := res["error"]
	s.require(!hasError, "rev:39", "\"error\" in res_data: %v", res)
	invite := adminSession.postJSON("rev:51-53", s.frontend+"/api/v2/graphql", obj{{"query", getInviteTokenDoc}, {"variables", obj{{"input", obj{}}}}})
	invite.raiseForStatus(t) // rev:54
	res = invite.json(t)
	s.require(truthy(res) && truthy(res["data"]), "rev:57-58", "no data: %v", res)
	inviteToken, _ := at(t, "rev:59", res, "data", "getInviteToken", "inviteToken").(string)
	s.require(inviteToken != "", "rev:60", "invite_token is None")
	signUp := adminSession.postJSON("rev:72-74", s.frontend+"/signUp", obj{
		{"fullName", "Test User"}, {"email", "user"}, {"password", "user"}, {"title", "Date Engineer"}, {"inviteToken", inviteToken},
	})
	signUp.raiseForStatus(t) // rev:75
	s.waitForWritesToSync()  // rev:79
	// Not an assertion of the smoke test, but what its comment (rev:81)
	// says: the sign-up signs the new user in, in the admin's session.
	s.require(adminSession.cookie(s.frontend, "actor") == s.userURN, "rev:81", "signUp did not override the session cookie to the new user")
	adminSession = s.loginAs(s.adminUser, s.adminPass) // rev:82-83
	s.require(s.hasUser(s.listUsers(adminSession, "rev:86"), "user", "rev:87-89"), "rev:89", "{\"username\": \"user\"} not in users")

	for _, test := range []struct {
		name string
		run  func(*smoke)
	}{
		{"test_admin_can_create_list_and_revoke_tokens", (*smoke).adminCanCreateListAndRevokeTokens},
		{"test_admin_can_create_and_revoke_tokens_for_other_user", (*smoke).adminCanCreateAndRevokeTokensForOtherUser},
		{"test_non_admin_can_create_list_revoke_tokens", (*smoke).nonAdminCanCreateListRevokeTokens},
		{"test_admin_can_manage_tokens_generated_by_other_user", (*smoke).adminCanManageTokensGeneratedByOtherUser},
		{"test_non_admin_can_not_generate_tokens_for_others", (*smoke).nonAdminCanNotGenerateTokensForOthers},
	} {
		teardown := s.accessTokenSetup(test.name)
		test.run(s)
		teardown()
	}

	// custom_user_setup's teardown (rev:93-105).
	res = s.removeUser(adminSession, s.userURN, "rev:94")
	s.require(truthy(res) && truthy(res["data"]), "rev:95-96", "no data: %v", res)
	s.require(at(t, "rev:97", res, "data", "removeUser") == true, "rev:97", "removeUser is %v, want True", res["data"])
	s.waitForWritesToSync() // rev:99
	s.require(!s.hasUser(s.listUsers(adminSession, "rev:102"), "user", "rev:103-105"), "rev:105", "{\"username\": \"user\"} still in users")

	// auth_session.destroy() (conftest.py:49; utils:464-479).
	a = upstream.postJSON("utils:473 (destroy)", s.frontend+"/api/v2/graphql", obj{{"query", sessionRevokeDoc}, {"variables", obj{{"tokenId", s.gmsTokenID}}}})
	a.raiseForStatus(t) // utils:476
	s.require(at(t, "utils:473", a.json(t), "data", "revokeAccessToken") == true, "utils:473", "the session token was not revoked")
}

// rev:136-193.
func (s *smoke) adminCanCreateListAndRevokeTokens() {
	t := s.t
	adminSession := s.loginAs(s.adminUser, s.adminPass) // rev:137
	tokens := s.tokens(s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:141"), "rev:142-144")
	s.require(len(tokens) == 0, "rev:145", "%d tokens, want 0", len(tokens))
	res := s.generateAccessTokenV2(adminSession, s.adminUserURN, "rev:148")
	s.require(truthy(res) && truthy(res["data"]) && truthy(at(t, "rev:151", res, "data", "createAccessToken")), "rev:149-151", "no token: %v", res)
	s.require(truthy(at(t, "rev:152", res, "data", "createAccessToken", "accessToken")), "rev:152", "no accessToken")
	s.require(at(t, "rev:154", res, "data", "createAccessToken", "metadata", "actorUrn") == s.adminUserURN, "rev:153-155", "actorUrn is %v", at(t, "rev:154", res, "data", "createAccessToken", "metadata", "actorUrn"))
	accessToken := at(t, "rev:156", res, "data", "createAccessToken", "accessToken").(string)
	adminTokenID := at(t, "rev:157", res, "data", "createAccessToken", "metadata", "id").(string)
	s.waitForWritesToSync() // rev:159

	res = s.getAccessTokenMetadata(adminSession, accessToken, "rev:161")
	s.require(truthy(res) && truthy(res["data"]) && truthy(at(t, "rev:164", res, "data", "getAccessTokenMetadata")), "rev:162-164", "no metadata: %v", res)
	s.require(at(t, "rev:165", res, "data", "getAccessTokenMetadata", "ownerUrn") == s.adminUserURN, "rev:165", "ownerUrn")
	s.require(at(t, "rev:166", res, "data", "getAccessTokenMetadata", "actorUrn") == s.adminUserURN, "rev:166", "actorUrn")

	tokens = s.tokens(s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:169"), "rev:170-172")
	s.require(len(tokens) == 1, "rev:173", "%d tokens, want 1", len(tokens))
	s.require(at(t, "rev:175", tokens, 0, "actorUrn") == s.adminUserURN, "rev:174-176", "actorUrn")
	s.require(at(t, "rev:178", tokens, 0, "ownerUrn") == s.adminUserURN, "rev:177-179", "ownerUrn")

	res = s.revokeAccessToken(adminSession, adminTokenID, "rev:182")
	s.require(truthy(res) && truthy(res["data"]) && at(t, "rev:186", res, "data", "revokeAccessToken") == true, "rev:183-186", "revokeAccessToken: %v", res)

	tokens = s.tokens(s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:189"), "rev:190-192")
	s.require(len(tokens) == 0, "rev:193", "%d tokens, want 0", len(tokens))
}

// rev:196-247.
func (s *smoke) adminCanCreateAndRevokeTokensForOtherUser() {
	t := s.t
	adminSession := s.loginAs(s.adminUser, s.adminPass) // rev:197
	tokens := s.tokens(s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:200"), "rev:201-203")
	s.require(len(tokens) == 0, "rev:204", "%d tokens, want 0", len(tokens))
	res := s.generateAccessTokenV2(adminSession, s.userURN, "rev:207")
	s.require(truthy(res) && truthy(res["data"]) && truthy(at(t, "rev:210", res, "data", "createAccessToken")), "rev:208-210", "no token: %v", res)
	s.require(truthy(at(t, "rev:211", res, "data", "createAccessToken", "accessToken")), "rev:211", "no accessToken")
	s.require(at(t, "rev:213", res, "data", "createAccessToken", "metadata", "actorUrn") == s.userURN, "rev:212-215", "actorUrn")
	userTokenID := at(t, "rev:216", res, "data", "createAccessToken", "metadata", "id").(string)
	s.waitForWritesToSync() // rev:218

	tokens = s.tokens(s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:221"), "rev:222-224")
	s.require(len(tokens) == 1, "rev:225", "%d tokens, want 1", len(tokens))
	s.require(at(t, "rev:227", tokens, 0, "actorUrn") == s.userURN, "rev:226-229", "actorUrn")
	s.require(at(t, "rev:231", tokens, 0, "ownerUrn") == s.adminUserURN, "rev:230-233", "ownerUrn")

	res = s.revokeAccessToken(adminSession, userTokenID, "rev:236")
	s.require(truthy(res) && truthy(res["data"]) && at(t, "rev:240", res, "data", "revokeAccessToken") == true, "rev:237-240", "revokeAccessToken: %v", res)

	tokens = s.tokens(s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:243"), "rev:244-246")
	s.require(len(tokens) == 0, "rev:247", "%d tokens, want 0", len(tokens))
}

// rev:250-307.
func (s *smoke) nonAdminCanCreateListRevokeTokens() {
	t := s.t
	userSession := s.loginAs("user", "user") // rev:251
	res := s.generateAccessTokenV2(userSession, s.userURN, "rev:254")
	s.require(truthy(res) && truthy(res["data"]) && truthy(at(t, "rev:257", res, "data", "createAccessToken")), "rev:255-257", "no token: %v", res)
	s.require(truthy(at(t, "rev:258", res, "data", "createAccessToken", "accessToken")), "rev:258", "no accessToken")
	s.require(at(t, "rev:260", res, "data", "createAccessToken", "metadata", "actorUrn") == s.userURN, "rev:259-262", "actorUrn")
	userTokenID := at(t, "rev:263", res, "data", "createAccessToken", "metadata", "id").(string)
	s.waitForWritesToSync() // rev:265

	tokens := s.tokens(s.listAccessTokens(userSession, s.ownedBy(s.userURN), "rev:268-274"), "rev:275-277")
	s.require(len(tokens) == 1, "rev:278", "%d tokens, want 1", len(tokens))
	s.require(at(t, "rev:280", tokens, 0, "actorUrn") == s.userURN, "rev:279-282", "actorUrn")
	s.require(at(t, "rev:284", tokens, 0, "ownerUrn") == s.userURN, "rev:283-286", "ownerUrn")
	s.require(at(t, "rev:287", tokens, 0, "id") == userTokenID, "rev:287", "id")

	res = s.revokeAccessToken(userSession, userTokenID, "rev:290")
	s.require(truthy(res) && truthy(res["data"]) && at(t, "rev:294", res, "data", "revokeAccessToken") == true, "rev:291-294", "revokeAccessToken: %v", res)

	tokens = s.tokens(s.listAccessTokens(userSession, s.ownedBy(s.userURN), "rev:297-303"), "rev:304-306")
	s.require(len(tokens) == 0, "rev:307", "%d tokens, want 0", len(tokens))
}

// rev:310-399.
func (s *smoke) adminCanManageTokensGeneratedByOtherUser() {
	t := s.t
	adminSession := s.loginAs(s.adminUser, s.adminPass) // rev:311
	tokens := s.tokens(s.listAccessTokens(adminSession, []any{s.authExcludeFilter}, "rev:314"), "rev:315-317")
	s.require(len(tokens) == 0, "rev:318", "%d tokens, want 0", len(tokens))

	userSession := s.loginAs("user", "user") // rev:320-321
	res := s.generateAccessTokenV2(userSession, s.userURN, "rev:322")
	s.require(truthy(res) && truthy(res["data"]) && truthy(at(t, "rev:325", res, "data", "createAccessToken")), "rev:323-325", "no token: %v", res)
	s.require(truthy(at(t, "rev:326", res, "data", "createAccessToken", "accessToken")), "rev:326", "no accessToken")
	s.require(at(t, "rev:328", res, "data", "createAccessToken", "metadata", "actorUrn") == s.userURN, "rev:327-330", "actorUrn")
	s.require(at(t, "rev:332", res, "data", "createAccessToken", "metadata", "ownerUrn") == s.userURN, "rev:331-334", "ownerUrn")
	userTokenID := at(t, "rev:335", res, "data", "createAccessToken", "metadata", "id").(string)
	s.waitForWritesToSync() // rev:337

	adminSession = s.loginAs(s.adminUser, s.adminPass) // rev:340-341
	tokens = s.tokens(s.listAccessTokens(adminSession, s.ownedBy(s.userURN), "rev:342-348"), "rev:349-351")
	s.require(len(tokens) == 1, "rev:352", "%d tokens, want 1", len(tokens))
	s.require(at(t, "rev:354", tokens, 0, "actorUrn") == s.userURN, "rev:353-356", "actorUrn")
	s.require(at(t, "rev:358", tokens, 0, "ownerUrn") == s.userURN, "rev:357-360", "ownerUrn")
	s.require(at(t, "rev:361", tokens, 0, "id") == userTokenID, "rev:361", "id")

	adminSession = s.loginAs(s.adminUser, s.adminPass) // rev:364-365
	res = s.revokeAccessToken(adminSession, userTokenID, "rev:366")
	s.require(truthy(res) && truthy(res["data"]) && at(t, "rev:370", res, "data", "revokeAccessToken") == true, "rev:367-370", "revokeAccessToken: %v", res)

	userSession = s.loginAs("user", "user") // rev:373-374
	tokens = s.tokens(s.listAccessTokens(userSession, s.ownedBy(s.userURN), "rev:375-381"), "rev:382-384")
	s.require(len(tokens) == 0, "rev:385", "%d tokens, want 0", len(tokens))

	adminSession = s.loginAs(s.adminUser, s.adminPass) // rev:388
	tokens = s.tokens(s.listAccessTokens(adminSession, s.ownedBy(s.userURN), "rev:389-395"), "rev:396-398")
	s.require(len(tokens) == 0, "rev:399", "%d tokens, want 0", len(tokens))
}

// rev:402-411.
func (s *smoke) nonAdminCanNotGenerateTokensForOthers() {
	t := s.t
	userSession := s.loginAs("user", "user") // rev:403
	res := s.generateAccessTokenV2(userSession, s.adminUserURN, "rev:405")
	s.require(truthy(res), "rev:406", "res_data is empty")
	s.require(truthy(at(t, "rev:407", res, "errors")), "rev:407", "no errors: %v", res)
	s.require(at(t, "rev:409", res, "errors", 0, "message") == "Unauthorized to perform this action. Please contact your DataHub administrator.", "rev:408-411", "message is %v", at(t, "rev:409", res, "errors", 0, "message"))
}
