package reference

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Proposals with changeType PATCH, on every write path (Rest.li's
// ingestProposal and ingestProposalBatch, OpenAPI v3's PATCH
// /openapi/v3/entity/{type}), as DataHub's SDK sends them from its patch
// builders (emitter/mcp_patch_builder.py, specific/*.py) and
// DataHubClient.entities.update: each patch applies to the aspect as it is
// when the batch is written (patch.go), in one transaction with the rest of
// the batch, so that two patches of one aspect sent at once both land.

// ChangePatch is the change type of a proposal that patches its aspect.
const ChangePatch = "PATCH"

// hasPatch says whether any proposal of the batch is a patch.
func hasPatch(ps []Proposal) bool {
	return slices.ContainsFunc(ps, func(p Proposal) bool { return p.ChangeType == ChangePatch })
}

// patchContentTypes are the content types a patch may come in: DataHub's
// SDK sends application/json-patch+json (JSON_PATCH_CONTENT_TYPE).
var patchContentTypes = []string{"", "application/json", "application/json-patch+json"}

// batchItem is one proposal of a batch, checked.
type batchItem struct {
	checked checkedProposal
	patch   *Patch // nil for an upsert
}

// checkPatchProposal checks a patch as checkProposal checks an upsert:
// the entity and aspect must be ones ingestion writes, and the patch must
// decode. A timeseries aspect takes no patch, as in DataHub
// (MCPItem.isValidChangeType).
func checkPatchProposal(p Proposal) (batchItem, error) {
	if p.Aspect == nil {
		return batchItem{}, Errorf(EBADREQUEST, "aspect is missing")
	}
	if !slices.Contains(patchContentTypes, p.Aspect.ContentType) {
		return batchItem{}, Errorf(EBADREQUEST, "a patch's contentType must be application/json-patch+json")
	}
	if isTimeseries(p.AspectName) {
		return batchItem{}, Errorf(EBADREQUEST, "ChangeType not supported: PATCH for aspect %s", p.AspectName)
	}
	as := p
	as.ChangeType = "UPSERT"
	as.Aspect = &GenericAspect{Value: "{}", ContentType: "application/json"}
	c, err := checkProposal(as)
	if err != nil {
		return batchItem{}, err
	}
	patch, err := DecodePatch([]byte(p.Aspect.Value))
	if err != nil {
		return batchItem{}, err
	}
	return batchItem{checked: c, patch: patch}, nil
}

// ingestWithPatches writes a batch holding patches: every proposal is
// checked, the caller must be allowed to write every entity
// (writePrivileges), then the
// proposals apply in order to the aspects as stored, all in one
// transaction, or nothing when any fails.
func (s *Service) ingestWithPatches(ctx context.Context, ps []Proposal) error {
	items := make([]batchItem, len(ps))
	for i, p := range ps {
		var err error
		if p.ChangeType == ChangePatch {
			items[i], err = checkPatchProposal(p)
		} else {
			items[i].checked, err = checkProposal(p)
		}
		if err != nil {
			return inProposal(err, i, len(ps))
		}
	}
	caller, err := s.actor(ctx)
	if err != nil {
		return err
	}
	now := s.cfg.Now().Truncate(time.Microsecond) // as the store keeps it
	by := caller.URN.String()
	trace := TraceFrom(ctx)
	var (
		urns   []URN
		keys   []AspectKey
		series []TimeseriesValue // the batch's timeseries values, written beside
	)
	for _, it := range items {
		if !slices.Contains(urns, it.checked.urn) {
			urns = append(urns, it.checked.urn)
		}
		if c := it.checked; c.timeseries {
			series = append(series, TimeseriesValue{URN: c.urn, Name: c.aspect, TimestampMillis: c.timestamp, Partition: c.partition,
				Value: c.value, CreatedAt: now, CreatedBy: by, TraceID: trace})
			continue
		}
		k := AspectKey{URN: it.checked.urn, Name: it.checked.aspect}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if err := s.requireWrite(ctx, caller, urns, writeUpdate); err != nil {
		return err
	}
	checked := make([]checkedProposal, len(items))
	for i, it := range items {
		checked[i] = it.checked
	}
	if err := s.judgeUserStatusWrites(ctx, caller, checked); err != nil {
		return err
	}
	return s.store.UpdateAspects(ctx, keys, func(current []Aspect) (Change, error) {
		values := map[AspectKey]json.RawMessage{}
		for _, a := range current {
			values[AspectKey{URN: a.URN, Name: a.Name}] = a.Value
		}
		for i, it := range items {
			if it.checked.timeseries {
				continue
			}
			k := AspectKey{URN: it.checked.urn, Name: it.checked.aspect}
			if it.patch == nil {
				values[k] = it.checked.value
				continue
			}
			v, err := ApplyPatch(k.Name, values[k], it.patch, now, by)
			if err != nil {
				return Change{}, inProposal(err, i, len(items))
			}
			// The patched aspect is checked as an upsert of it would be.
			p := ps[i]
			p.ChangeType, p.Aspect = "UPSERT", &GenericAspect{Value: string(v), ContentType: "application/json"}
			c, err := checkProposal(p)
			if err != nil {
				return Change{}, inProposal(err, i, len(items))
			}
			values[k] = c.value
		}
		c := Change{Series: series}
		for _, k := range keys {
			c.Upserts = append(c.Upserts, Aspect{URN: k.URN, Name: k.Name, Value: values[k], CreatedAt: now, CreatedBy: by, TraceID: trace})
		}
		for _, urn := range urns {
			name, value, err := entityKey(urn)
			if err != nil {
				return Change{}, err
			}
			if slices.Contains(keys, AspectKey{URN: urn, Name: name}) {
				continue
			}
			v, err := json.Marshal(value)
			if err != nil {
				return Change{}, err
			}
			c.Keys = append(c.Keys, Aspect{URN: urn, Name: name, Value: v, CreatedAt: now, CreatedBy: by, TraceID: trace})
		}
		return c, nil
	})
}
