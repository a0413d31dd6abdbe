package hardening

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestTheRootAndSystemUsersAreNotAdministeredThroughIngestion replays the
// findings "administration through ingestion" and "root's password through
// a reset" (issue 29): no one, the root user included, suspends the root or
// the system user through any write path, removes either, or gets a reset
// token for the root user; root's token and password keep working.
func TestTheRootAndSystemUsersAreNotAdministeredThroughIngestion(t *testing.T) {
	db, _ := database(t, false)
	in := start(t, db)
	status, _ := json.Marshal(map[string]any{"status": "SUSPENDED", "lastModified": map[string]any{"time": 1, "actor": "urn:li:corpuser:datahub"}})
	for _, user := range []string{"urn:li:corpuser:datahub", "urn:li:corpuser:__datahub_system"} {
		proposal := map[string]any{"entityType": "corpuser", "entityUrn": user, "changeType": "UPSERT",
			"aspectName": "corpUserStatus", "aspect": map[string]any{"value": string(status), "contentType": "application/json"}}
		single, _ := json.Marshal(map[string]any{"proposal": proposal})
		batch, _ := json.Marshal(map[string]any{"proposals": []any{proposal}})
		openapi, _ := json.Marshal([]any{map[string]any{"urn": user, "corpUserStatus": map[string]any{"value": json.RawMessage(status)}}})
		for path, body := range map[string][]byte{
			"/aspects?action=ingestProposal":          single,
			"/aspects?action=ingestProposalBatch":     batch,
			"/openapi/v3/entity/corpuser?async=false": openapi,
		} {
			r := in.do(t, "POST", in.gms+path, in.admin, "application/json", body)
			if r.status != http.StatusBadRequest {
				t.Errorf("the root user suspending %s at %s: %d %.200s, want 400", user, path, r.status, r.body)
			}
		}
		r := in.graphql(t, in.admin, `mutation($u: String!) { removeUser(urn: $u) }`, map[string]any{"u": user})
		if !strings.Contains(r.body, `"errors"`) || strings.Contains(r.body, `"removeUser":true`) {
			t.Errorf("removing %s: %.300s, want refused", user, r.body)
		}
	}
	r := in.graphql(t, in.admin, `mutation { createNativeUserResetToken(input: {userUrn: "urn:li:corpuser:datahub"}) { resetToken } }`, nil)
	if !strings.Contains(r.body, `"errors"`) || strings.Contains(r.body, `"resetToken":"`) {
		t.Errorf("a reset token for the root user: %.300s, want refused", r.body)
	}
	if r := in.graphql(t, in.admin, `{ me { corpUser { urn } } }`, nil); r.status != 200 || !strings.Contains(r.body, "urn:li:corpuser:datahub") {
		t.Errorf("the root user's token afterwards: %d %.200s", r.status, r.body)
	}
	body, _ := json.Marshal(map[string]string{"username": "datahub", "password": "hardening-root-password"})
	if r := in.do(t, "POST", in.frontend+"/logIn", "", "application/json", body); r.status != 200 {
		t.Errorf("the root user signing in afterwards: %d %.200s", r.status, r.body)
	}
}

// TestATokenIsNoSessionCookie replays "a token pasted as the session
// cookie works on the pages": the pages, GraphiQL and the API behind the
// frontend answer a personal access token in the session cookie as no
// session at all.
func TestATokenIsNoSessionCookie(t *testing.T) {
	db, _ := database(t, false)
	in := start(t, db)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/settings/tokens", "/", "/api/graphiql", "/api/v2/graphql"} {
		req, err := http.NewRequest("GET", in.frontend+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Cookie", "PLAY_SESSION="+in.admin+"; actor=urn%3Ali%3Acorpuser%3Adatahub")
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("GET %s with the root user's token as the session cookie: 200, want no session (401 or a redirect to sign in)", path)
		}
	}
}
