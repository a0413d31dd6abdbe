package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The search by filter and the references to an entity lag as DataHub's
// search and graph indices do (searchlag.go): an entity is found once the
// lag has passed since its key aspect was written, and goes on being found
// for the lag after its deletion (its tombstone's aspects make its search
// document); a reference is found once the lag has passed since the aspect
// that holds it was written.

// madeBy is when what the index holds now was made by.
func (s *SearchLag) madeBy(now time.Time) time.Time {
	cut := now.Add(-s.lag)
	if s.built.After(cut) {
		return s.built
	}
	return cut
}

// SearchEntities answers from what the index would hold now.
func (s *SearchLag) SearchEntities(ctx context.Context, q SearchQuery) (SearchPage, error) {
	now := s.now()
	by := s.madeBy(now)
	if q.MadeBy.IsZero() || by.Before(q.MadeBy) {
		q.MadeBy = by
	}
	live, err := s.Store.SearchEntities(ctx, q)
	if err != nil {
		return SearchPage{}, err
	}
	stones, _, err := s.Store.ListAspects(ctx, Filter{EntityType: entityTombstone, Aspect: aspectTombstone,
		Where: map[string][]string{"entityType": q.Types}})
	if err != nil {
		return SearchPage{}, err
	}
	var gone []SearchHit
	total := live.Total
	for _, st := range stones {
		var t tombstone
		if err := json.Unmarshal(st.Value, &t); err != nil {
			return SearchPage{}, fmt.Errorf("decode %s: %w", st.URN, err)
		}
		if time.UnixMilli(t.DeletedAt).Add(s.lag).Before(now) {
			if _, err := s.Store.DeleteEntity(ctx, st.URN); err != nil {
				return SearchPage{}, err
			}
			continue
		}
		madeAt := time.UnixMilli(t.MadeAt)
		if madeAt.After(q.MadeBy) {
			continue // deleted before the index ever held it
		}
		urn, err := ParseURN(t.URN)
		if err != nil {
			return SearchPage{}, err
		}
		aspects := map[string]json.RawMessage{}
		for _, a := range t.Aspects {
			aspects[a.Name] = a.Value
		}
		if !MatchesSearch(SearchDocument(urn, q.Keys[urn.EntityType], aspects), q) {
			continue
		}
		total++
		if urn.String() > q.After {
			gone = append(gone, SearchHit{URN: urn, MadeAt: madeAt})
		}
	}
	if live.More && len(live.Hits) > 0 {
		// What comes after the live page's last hit comes in a later page.
		last := live.Hits[len(live.Hits)-1].URN.String()
		gone = slices.DeleteFunc(gone, func(h SearchHit) bool { return h.URN.String() > last })
	}
	hits := append(slices.Clone(live.Hits), gone...)
	slices.SortFunc(hits, func(a, b SearchHit) int { return strings.Compare(a.URN.String(), b.URN.String()) })
	hits = slices.CompactFunc(hits, func(a, b SearchHit) bool { return a.URN == b.URN })
	page := SearchPage{Hits: hits, Total: total, More: live.More}
	if q.Count > 0 && len(hits) > q.Count {
		page.Hits, page.More = hits[:q.Count], true
	}
	return page, nil
}

// ReferencingAspects finds the references the graph index holds now: in
// aspects written at least the lag ago.
func (s *SearchLag) ReferencingAspects(ctx context.Context, probes []ReferenceProbe, limit int) ([]Aspect, error) {
	found, err := s.Store.ReferencingAspects(ctx, probes, limit)
	if err != nil {
		return nil, err
	}
	by := s.madeBy(s.now())
	return slices.DeleteFunc(found, func(a Aspect) bool { return a.CreatedAt.After(by) }), nil
}
