package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A Rest.li resource serves the actions it has, each by ?action=, and
// refuses any other with 400, naming exactly the ones it serves.
func TestRestliActionsServeTheirOwnAndNameThem(t *testing.T) {
	h := restliActions(map[string]http.Handler{
		"ingestProposal": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) }),
		"getTimeseriesAspectValues": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNonAuthoritativeInfo)
		}),
	})
	for action, want := range map[string]int{"ingestProposal": http.StatusAccepted, "getTimeseriesAspectValues": http.StatusNonAuthoritativeInfo} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/aspects?action="+action, nil))
		if rec.Code != want {
			t.Errorf("action=%s: %d, want its handler's %d", action, rec.Code, want)
		}
	}
	for _, action := range []string{"ingestproposal", "", "delete"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/aspects?action="+action, nil))
		var body struct{ Message string }
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		const msg = "unsupported action: only action=getTimeseriesAspectValues, action=ingestProposal are served here"
		if rec.Code != http.StatusBadRequest || body.Message != msg {
			t.Errorf("action=%q: %d %q, want 400 %q", action, rec.Code, body.Message, msg)
		}
	}
}
