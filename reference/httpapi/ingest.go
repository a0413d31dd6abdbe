package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/catalogspec/catalogspec/reference"
)

// handleIngestProposal serves POST /aspects?action=ingestProposal.
func (s *Server) handleIngestProposal(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readWrite(w, r, restliProposal, "")
	if !ok {
		return
	}
	p, err := decodeProposal(body)
	if err != nil {
		writeProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	urn, err := s.svc.IngestProposal(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"value": urn.String()})
}

// decodeProposal reads an ingestProposal body. Its messages name the fault,
// never quote the body.
func decodeProposal(body []byte) (reference.Proposal, error) {
	var req struct {
		Proposal *reference.Proposal `json:"proposal"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return reference.Proposal{}, errors.New("request body is not a valid ingestProposal JSON document")
	}
	if req.Proposal == nil {
		return reference.Proposal{}, errors.New(`request body has no "proposal"`)
	}
	return *req.Proposal, nil
}
