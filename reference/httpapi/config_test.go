package httpapi_test

import (
	"encoding/json"
	"testing"
)

// TestConfigClaimsNoPatch: /config says patchCapable false, for the
// reference serves no JSON Patch: a client that believed it (DataHub's SDK
// asks supports_feature(PATCH_CAPABLE)) would send PATCH proposals, and
// the reference refuses them.
func TestConfigClaimsNoPatch(t *testing.T) {
	tr := start(t, true)
	r := do(t, "GET", tr.gms.URL+"/config", "", "", "")
	var cfg map[string]any
	if r.status != 200 || json.Unmarshal([]byte(r.body), &cfg) != nil {
		t.Fatalf("GET /config: %d %.300s", r.status, r.body)
	}
	if v, ok := cfg["patchCapable"]; !ok || v != false {
		t.Errorf(`/config "patchCapable": %v (present %t); want false`, v, ok)
	}
	patch := `{"proposal": {"entityType": "tag", "entityUrn": "urn:li:tag:patched", "changeType": "PATCH", "aspectName": "tagProperties",
		"aspect": {"value": "[{\"op\": \"add\", \"path\": \"/name\", \"value\": \"p\"}]", "contentType": "application/json-patch+json"}}}`
	if r := do(t, "POST", tr.gms.URL+"/aspects?action=ingestProposal", tr.rootToken, "application/json", patch); r.status != 400 {
		t.Errorf("a PATCH proposal: %d %.300s; want 400", r.status, r.body)
	}
}
