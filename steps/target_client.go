package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// targetClient is the administrator at one deployment, outside any
// scenario: what keeps the run's journal and lock (journal.go) and removes
// what the run made (trace.go). Its requests are not a scenario's, so they
// are in no scenario's report; its errors say what was sent and answered.
type targetClient struct {
	where string // "the target", "the auth-disabled deployment": for messages
	gms   string
	token string // "" at a deployment with authentication off
	http  *http.Client
	docs  *documents
}

func newTargetClient(where, gms, token string, docs *documents) *targetClient {
	return &targetClient{where: where, gms: gms, token: token, docs: docs, http: &http.Client{Timeout: 30 * time.Second}}
}

// remoteError is a request the target answered with an error.
type remoteError struct {
	what   string // what was asked
	status int
	code   string // GraphQL extensions.code, "" for none
	typ    string // GraphQL extensions.type
	msg    string
}

func (e *remoteError) Error() string {
	if e.code != "" || e.typ != "" {
		return fmt.Sprintf("%s: %q (code %s, type %s)", e.what, e.msg, e.code, e.typ)
	}
	return fmt.Sprintf("%s: status %d: %s", e.what, e.status, e.msg)
}

// notFound says whether the error says that what was asked about is not
// there.
func (e *remoteError) notFound() bool {
	return e.status == http.StatusNotFound || e.code == "404" || e.typ == "NOT_FOUND"
}

// isGone says whether err is the target saying that a thing is not there.
func isGone(err error) bool {
	re, ok := err.(*remoteError)
	return ok && re.notFound()
}

// do sends one request and reads the whole answer.
func (c *targetClient) do(ctx context.Context, method, u string, body []byte, headers map[string]string) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return 0, nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s at %s: %v", method, req.URL.Path, c.where, plainError(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, b, err
}

// graphql sends a document and decodes data.field into out (when out is
// not nil); a GraphQL error is a *remoteError.
func (c *targetClient) graphql(ctx context.Context, what, doc string, vars map[string]any, field string, out any) error {
	body, err := json.Marshal(graphQLRequest{Query: doc, Variables: vars})
	if err != nil {
		return err
	}
	status, b, err := c.do(ctx, http.MethodPost, c.gms+"/api/graphql", body, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	var g graphQLAnswer
	if err := json.Unmarshal(b, &g); err != nil {
		return &remoteError{what: what, status: status, msg: truncate(string(b))}
	}
	if len(g.Errors) > 0 {
		e := g.Errors[0]
		return &remoteError{what: what, status: status, code: e.code(), typ: e.Extensions.Type, msg: e.Message}
	}
	if status != http.StatusOK {
		return &remoteError{what: what, status: status, msg: truncate(string(b))}
	}
	if out == nil {
		return nil
	}
	raw, ok := g.Data[field]
	if !ok {
		return &remoteError{what: what, status: status, msg: "the answer has no data." + field}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: data.%s is not as expected: %v", what, field, err)
	}
	return nil
}

// tagText is what the journal keeps in a tag: its name and description.
type tagText struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// readTag reads a tag's properties; nil when the tag has none (there is no
// such tag: DataHub answers a tag never written with its key alone).
func (c *targetClient) readTag(ctx context.Context, urn string) (*tagText, error) {
	var t *struct {
		Properties *struct {
			Name        string  `json:"name"`
			Description *string `json:"description"`
		} `json:"properties"`
	}
	if err := c.graphql(ctx, "reading the tag "+urn, c.docs.tag, map[string]any{"urn": urn}, "tag", &t); err != nil {
		if isGone(err) {
			return nil, nil
		}
		return nil, err
	}
	if t == nil || t.Properties == nil {
		return nil, nil
	}
	out := &tagText{Name: t.Properties.Name}
	if t.Properties.Description != nil {
		out.Description = *t.Properties.Description
	}
	return out, nil
}

// createTag makes a tag with the id, which DataHub's createTag refuses when
// the id is taken: the lock's create-if-absent.
func (c *targetClient) createTag(ctx context.Context, id string, text tagText) error {
	return c.graphql(ctx, "creating the tag "+id, c.docs.createTag, map[string]any{"input": map[string]any{
		"id": id, "name": text.Name, "description": text.Description}}, "createTag", nil)
}

// writeTag writes a tag's properties whether or not it exists, as an
// ingestion proposal (an upsert).
func (c *targetClient) writeTag(ctx context.Context, urn string, text tagText) error {
	value, _ := json.Marshal(text)
	body, _ := json.Marshal(proposal{Proposal: proposalBody{EntityType: "tag", EntityURN: urn, ChangeType: "UPSERT", AspectName: "tagProperties",
		Aspect: aspectValue{Value: string(value), ContentType: "application/json"}}})
	status, b, err := c.do(ctx, http.MethodPost, c.gms+"/aspects?action=ingestProposal", body, restliHeaders)
	if err != nil {
		return fmt.Errorf("writing the tag %s: %w", urn, err)
	}
	if status >= 300 {
		return &remoteError{what: "writing the tag " + urn, status: status, msg: truncate(string(b))}
	}
	return nil
}

// tagsNamed finds the tags whose name is exactly name, by a search for it
// (scrollAcrossEntities over tags, as DataHub's SDK searches), each read
// back to check its name: a search matches words, not whole names. On a
// target whose search index lags, a tag made a moment ago may not be found
// yet; the next run or cleanup finds it then.
func (c *targetClient) tagsNamed(ctx context.Context, name string) ([]string, error) {
	var out []string
	scrollID := ""
	for page := 0; page == 0 || scrollID != ""; page++ {
		if page >= 20 {
			return out, fmt.Errorf("searching for the tags named %q at %s: more than 20 pages", name, c.where)
		}
		var res struct {
			NextScrollID  *string `json:"nextScrollId"`
			SearchResults []struct {
				Entity struct {
					URN string `json:"urn"`
				} `json:"entity"`
			} `json:"searchResults"`
		}
		vars := map[string]any{"types": []string{"TAG"}, "query": name, "batchSize": 100, "skipCache": true, "includeSoftDeleted": true}
		if scrollID != "" {
			vars["scrollId"] = scrollID
		}
		if err := c.graphql(ctx, fmt.Sprintf("searching for the tags named %q", name), sdkclient.ScrollURNsQuery, vars, "scrollAcrossEntities", &res); err != nil {
			return out, err
		}
		for _, r := range res.SearchResults {
			t, err := c.readTag(ctx, r.Entity.URN)
			if err != nil {
				return out, err
			}
			if t != nil && t.Name == name {
				out = append(out, r.Entity.URN)
			}
		}
		scrollID = ""
		if res.NextScrollID != nil {
			scrollID = *res.NextScrollID
		}
	}
	return out, nil
}

// deleteTag deletes a tag; removed says whether the target had it.
func (c *targetClient) deleteTag(ctx context.Context, urn string) (removed bool, err error) {
	err = c.graphql(ctx, "deleting the tag "+urn, c.docs.deleteTag, map[string]any{"urn": urn}, "", nil)
	if isGone(err) {
		return false, nil
	}
	return err == nil, err
}

// tokensActingAs lists the tokens that act as any of the users, as a
// manager lists them (listAccessTokens filtered on actorUrn, a few users
// at a time).
func (c *targetClient) tokensActingAs(ctx context.Context, users []string) ([]tokenMetadata, error) {
	var out []tokenMetadata
	for len(users) > 0 {
		batch := users[:min(len(users), 50)]
		users = users[len(batch):]
		for start := 0; start < 100000; {
			var l *tokenList
			err := c.graphql(ctx, "listing the tokens of the run's users", c.docs.listAccessTokens, map[string]any{"input": map[string]any{
				"start": start, "count": 100, "filters": []tokenFilter{{Field: "actorUrn", Values: batch}}}}, "listAccessTokens", &l)
			if err != nil {
				return nil, err
			}
			if l == nil {
				return nil, fmt.Errorf("listing the tokens of the run's users: listAccessTokens is null")
			}
			out = append(out, l.Tokens...)
			start += len(l.Tokens)
			if len(l.Tokens) == 0 || start >= l.Total {
				break
			}
		}
	}
	return out, nil
}

// revoke revokes a token; removed says whether the target had it. DataHub
// answers a token gone already with an error of its own.
func (c *targetClient) revoke(ctx context.Context, id string) (removed bool, err error) {
	err = c.graphql(ctx, "revoking the token "+id, c.docs.revokeAccessToken, map[string]any{"tokenId": id}, "", nil)
	if re, ok := err.(*remoteError); ok && (re.notFound() || re.code == "500" || re.typ == "SERVER_ERROR") {
		return false, nil
	}
	return err == nil, err
}

// removeUser removes the user; removed says whether the target had them.
// The tokens that act as them are revoked apart (trace.sweepTokens):
// DataHub's removeUser leaves them.
func (c *targetClient) removeUser(ctx context.Context, urn string) (removed bool, err error) {
	err = c.graphql(ctx, "removing the user "+urn, c.docs.removeUser, map[string]any{"urn": urn}, "", nil)
	if isGone(err) {
		return false, nil
	}
	return err == nil, err
}

// deleteEntity hard-deletes an entity through OpenAPI v3's DELETE
// /openapi/v3/entity/{type}/{urn} (GenericEntitiesController.deleteEntity,
// which calls EntityService.deleteUrn); removed says whether the target had
// it: its entity path answered a snapshot with more than its key aspect.
// The deletion is sent whatever that read answered; a URN the target
// refuses as malformed (400, 422) names nothing it could hold.
func (c *targetClient) deleteEntity(ctx context.Context, entityType, urn string) (removed bool, err error) {
	status, b, err := c.do(ctx, http.MethodGet, c.gms+"/entities/"+url.PathEscape(urn), nil, nil)
	if err != nil {
		return false, err
	}
	had := status == http.StatusOK && moreThanKey(b)
	status, b, err = c.do(ctx, http.MethodDelete, c.gms+"/openapi/v3/entity/"+entityType+"/"+url.PathEscape(urn), nil, nil)
	if err != nil {
		return false, err
	}
	switch {
	case status < 300:
		return had, nil
	case status == http.StatusNotFound || status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		return false, nil
	}
	return false, &remoteError{what: "deleting " + urn + " (DELETE /openapi/v3/entity/" + entityType + ")", status: status, msg: truncate(string(b))}
}

// aspectNames says whether the entity's aspect, read as DataHub's SDK
// reads one (GET /aspects/{urn}?aspect=...&version=0), holds the text
// name; false when the entity or the aspect is not there.
func (c *targetClient) aspectNames(ctx context.Context, urn, aspect, name string) (bool, error) {
	if aspect == "" {
		return false, fmt.Errorf("no aspect of %s names what made it", urn)
	}
	status, b, err := c.do(ctx, http.MethodGet, c.gms+"/aspects/"+url.PathEscape(urn)+"?aspect="+url.QueryEscape(aspect)+"&version=0", nil, map[string]string{"X-RestLi-Protocol-Version": "2.0.0"})
	if err != nil {
		return false, err
	}
	switch {
	case status == http.StatusNotFound:
		return false, nil
	case status != http.StatusOK:
		return false, &remoteError{what: "reading " + aspect + " of " + urn, status: status, msg: truncate(string(b))}
	}
	return bytes.Contains(b, []byte(name)), nil
}

// moreThanKey says whether an entity path's answer shows an aspect beside
// the entity's key (DataHub answers any URN with its key aspect).
func moreThanKey(body []byte) bool {
	var v struct {
		Value map[string]struct {
			Aspects []map[string]json.RawMessage `json:"aspects"`
		} `json:"value"`
	}
	if json.Unmarshal(body, &v) != nil {
		return true // not a snapshot: say it was there
	}
	for _, s := range v.Value {
		for _, a := range s.Aspects {
			for class := range a {
				if !strings.Contains(class, ".key.") {
					return true
				}
			}
		}
	}
	return false
}

// policies lists every policy.
func (c *targetClient) policies(ctx context.Context) ([]policyView, error) {
	const pageSize = 100
	var all []policyView
	for start := 0; start < 100*pageSize; {
		var page *policyPage
		if err := c.graphql(ctx, "listing the policies", c.docs.listPolicies, map[string]any{"input": map[string]any{"start": start, "count": pageSize}}, "listPolicies", &page); err != nil {
			return nil, err
		}
		if page == nil {
			return nil, fmt.Errorf("listing the policies: listPolicies is null")
		}
		all = append(all, page.Policies...)
		start += len(page.Policies)
		if len(page.Policies) == 0 || start >= page.Total {
			break
		}
	}
	return all, nil
}

// deletePolicy deletes a policy; removed says whether the target had it.
func (c *targetClient) deletePolicy(ctx context.Context, urn string) (removed bool, err error) {
	err = c.graphql(ctx, "deleting the policy "+urn, c.docs.deletePolicy, map[string]any{"urn": urn}, "", nil)
	if isGone(err) {
		return false, nil
	}
	return err == nil, err
}

// updatePolicy writes a policy.
func (c *targetClient) updatePolicy(ctx context.Context, urn string, in policyInput) error {
	return c.graphql(ctx, "updating the policy "+urn, c.docs.updatePolicy, map[string]any{"urn": urn, "input": in}, "", nil)
}

// logOut ends a session at the frontend (GET /logOut, as DataHub's web app
// signs out), through hc (the target's client: over HTTPS it trusts what
// the target's TLS proxy presents).
func logOut(ctx context.Context, hc *http.Client, frontend string, cookies string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, frontend+"/logOut", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Cookie", cookies)
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("signing out at %s/logOut: %v", frontend, plainError(err))
	}
	_ = resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fmt.Errorf("signing out at %s/logOut: status %d", frontend, resp.StatusCode)
	}
	return nil
}

// sessionLive says whether the session cookie still signs someone in at
// the frontend (its GraphQL endpoint answers `me`), asked through hc.
func sessionLive(ctx context.Context, hc *http.Client, frontend, cookie, me string) (bool, error) {
	body, _ := json.Marshal(graphQLRequest{Query: me})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, frontend+"/api/v2/graphql", bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", cookie)
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return false, fmt.Errorf("asking whether a session is live at %s: %v", frontend, plainError(err))
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}
