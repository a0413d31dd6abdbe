package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// SearchLag is a Store whose search-backed listings (Filter.Search) lag
// behind writes as DataHub's search index does, for conformance testing
// only: it shows that a suite polls where DataHub makes it wait. DataHub
// writes to its database at once and indexes the change afterwards: its
// bulk processor flushes every ES_BULK_FLUSH_PERIOD (1 s by default) and
// Elasticsearch makes what it indexed searchable every
// ELASTICSEARCH_INDEX_BUILDER_REFRESH_INTERVAL_SECONDS (3 s by default;
// metadata-service/configuration/src/main/resources/application.yaml).
// A list resolver asks the index which entities match, then reads each from
// the database: what a listed entity shows is current, whether it is listed
// is not. So here, on every instance sharing the database:
//
//   - an entity is listed once Lag has passed since its key aspect was
//     written (the time the store keeps with it);
//   - an entity deleted is listed for Lag more: its aspects are kept as a
//     tombstone in the store itself, so that every instance sees it, and
//     the listing counts it but has nothing to show for it (a nil Value with
//     Filter.KeepGone, else left out of the page);
//   - filters match what the store holds now (the index would match its
//     own, older copy for up to Lag after a change; no listing here filters
//     on a field that changes).
//
// Everything else passes through to the Store underneath.
type SearchLag struct {
	Store
	lag time.Duration
	now func() time.Time
	// built: what was made by then is indexed already (BuiltAt).
	built time.Time
}

// searchKeys are the entity types DataHub lists from its search index, each
// with its key aspect, written once when the entity is made: the time kept
// with it says when the entity entered the index.
var searchKeys = map[string]string{
	EntityAccessToken: AspectAccessTokenKey,
	EntityPolicy:      AspectPolicyKey,
	EntityCorpUser:    AspectCorpUserKey,
}

// Tombstones: an entity of a type no API reads or writes, one per deleted
// entity, whose one aspect holds what the entity held.
const (
	entityTombstone = "catalogdSearchTombstone"
	aspectTombstone = "searchTombstone"
)

type tombstone struct {
	EntityType string            `json:"entityType"`
	URN        string            `json:"urn"`
	MadeAt     int64             `json:"madeAt"`    // when it entered the index, epoch ms
	DeletedAt  int64             `json:"deletedAt"` // epoch ms
	Aspects    []tombstoneAspect `json:"aspects"`
}

type tombstoneAspect struct {
	Name      string          `json:"name"`
	Value     json.RawMessage `json:"value"`
	CreatedAt int64           `json:"createdAt"` // epoch ms
}

// NewSearchLag returns store with its search-backed listings lagging by lag
// (which must be positive), on the clock now (nil: time.Now).
func NewSearchLag(store Store, lag time.Duration, now func() time.Time) *SearchLag {
	if now == nil {
		now = time.Now
	}
	return &SearchLag{Store: store, lag: lag, now: now}
}

// BuiltAt says that the index holds whatever was made by t: an instance
// that starts builds its index from what the store holds (as DataHub's
// indices are rebuilt from its database), so the boot policies and whatever
// was made before it started are listed at once. Call it before serving.
func (s *SearchLag) BuiltAt(t time.Time) { s.built = t }

// indexed says whether something made at t is in the index by cut.
func (s *SearchLag) indexed(t, cut time.Time) bool { return !t.After(cut) || !t.After(s.built) }

// Version passes the store's versions on (Versioned), so that the Service
// keeps what it derives from them exactly as over the store itself.
func (s *SearchLag) Version(entityType string) (uint64, bool) {
	if v, ok := s.Store.(Versioned); ok {
		return v.Version(entityType)
	}
	return 0, false
}

// DeleteEntity deletes urn, keeping a tombstone of a search-backed entity
// first, so that listings go on showing it for the lag.
func (s *SearchLag) DeleteEntity(ctx context.Context, urn URN) (bool, error) {
	if err := s.keepTombstone(ctx, urn); err != nil {
		return false, err
	}
	return s.Store.DeleteEntity(ctx, urn)
}

// keepTombstone keeps what a search-backed entity holds, when it holds
// anything, as its tombstone.
func (s *SearchLag) keepTombstone(ctx context.Context, urn URN) error {
	key, indexed := searchKeys[urn.EntityType]
	if !indexed {
		// Every entity is in the index the search by filter reads
		// (searchlag_search.go).
		key, indexed = KeyAspectOf(urn.EntityType)
	}
	if !indexed {
		return nil
	}
	aspects, err := s.Store.Aspects(ctx, urn)
	if err != nil || len(aspects) == 0 {
		return err
	}
	t := tombstone{EntityType: urn.EntityType, URN: urn.String(), DeletedAt: s.now().UnixMilli()}
	for _, a := range aspects {
		t.Aspects = append(t.Aspects, tombstoneAspect{Name: a.Name, Value: a.Value, CreatedAt: a.CreatedAt.UnixMilli()})
	}
	t.MadeAt = madeAt(aspects, key).UnixMilli()
	value, err := json.Marshal(t)
	if err != nil {
		return err
	}
	stone := Aspect{URN: tombstoneURN(urn), Name: aspectTombstone, Value: value, CreatedAt: s.now(), CreatedBy: SystemUser.String()}
	return s.Store.UpsertAspect(ctx, stone)
}

// RemoveUser keeps tombstones of the user and of the tokens that act as
// them, as DeleteEntity does, then removes them all in the store's one
// transaction. (A tombstone for something the removal then finds gone is
// harmless: it lists what the index held.)
func (s *SearchLag) RemoveUser(ctx context.Context, user URN) (bool, error) {
	tokens, _, err := s.Store.ListAspects(ctx, Filter{EntityType: EntityAccessToken, Aspect: AspectAccessTokenInfo,
		Where: map[string][]string{"actorUrn": {user.String()}}})
	if err != nil {
		return false, err
	}
	gone := []URN{user}
	for _, t := range tokens {
		gone = append(gone, t.URN)
	}
	for _, urn := range gone {
		if err := s.keepTombstone(ctx, urn); err != nil {
			return false, err
		}
	}
	return s.Store.RemoveUser(ctx, user)
}

func tombstoneURN(urn URN) URN { return URN{EntityType: entityTombstone, ID: urn.String()} }

// madeAt is when an entity entered the index: when its key aspect was
// written (or, without one, its oldest aspect).
func madeAt(aspects []Aspect, key string) time.Time {
	var oldest time.Time
	for _, a := range aspects {
		if a.Name == key {
			return a.CreatedAt
		}
		if oldest.IsZero() || a.CreatedAt.Before(oldest) {
			oldest = a.CreatedAt
		}
	}
	return oldest
}

// ListAspects serves a search-backed listing as the index would show it
// now; any other listing from the store.
func (s *SearchLag) ListAspects(ctx context.Context, f Filter) ([]Aspect, int, error) {
	key, indexed := searchKeys[f.EntityType]
	if !f.Search || !indexed {
		f.Search, f.KeepGone = false, false
		return s.Store.ListAspects(ctx, f)
	}
	now := s.now()
	cut := now.Add(-s.lag) // what was made by then is indexed
	live, _, err := s.Store.ListAspects(ctx, Filter{EntityType: f.EntityType, Aspect: f.Aspect, Where: f.Where, Not: f.Not, Contains: f.Contains, Criteria: f.Criteria})
	if err != nil {
		return nil, 0, err
	}
	keys, _, err := s.Store.ListAspects(ctx, Filter{EntityType: f.EntityType, Aspect: key})
	if err != nil {
		return nil, 0, err
	}
	made := make(map[string]time.Time, len(keys))
	for _, k := range keys {
		made[k.URN.String()] = k.CreatedAt
	}
	var hits []Aspect
	for _, a := range live {
		at, ok := made[a.URN.String()]
		if !ok {
			at = a.CreatedAt
		}
		if s.indexed(at, cut) {
			hits = append(hits, a)
		}
	}
	gone, err := s.gone(ctx, f, cut, now)
	if err != nil {
		return nil, 0, err
	}
	hits = append(hits, gone...)
	// The store's order: newest first.
	slices.SortStableFunc(hits, func(a, b Aspect) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.URN.String(), b.URN.String())
	})
	total := len(hits)
	start := min(f.Start, total)
	end := total
	if f.Count > 0 {
		end = min(start+f.Count, total)
	}
	page := hits[start:end]
	if !f.KeepGone {
		page = slices.DeleteFunc(slices.Clone(page), func(a Aspect) bool { return a.Value == nil })
	}
	return page, total, nil
}

// gone are the entities of f's type deleted within the lag that the index
// still lists (made by cut) and that match f, each as its f.Aspect with a
// nil Value; tombstones past the lag are removed.
func (s *SearchLag) gone(ctx context.Context, f Filter, cut, now time.Time) ([]Aspect, error) {
	stones, _, err := s.Store.ListAspects(ctx, Filter{EntityType: entityTombstone, Aspect: aspectTombstone,
		Where: map[string][]string{"entityType": {f.EntityType}}})
	if err != nil {
		return nil, err
	}
	var out []Aspect
	for _, st := range stones {
		var t tombstone
		if err := json.Unmarshal(st.Value, &t); err != nil {
			return nil, fmt.Errorf("decode %s: %w", st.URN, err)
		}
		if time.UnixMilli(t.DeletedAt).Add(s.lag).Before(now) {
			if _, err := s.Store.DeleteEntity(ctx, st.URN); err != nil {
				return nil, err
			}
			continue
		}
		if !s.indexed(time.UnixMilli(t.MadeAt), cut) {
			continue // deleted before the index ever listed it
		}
		urn, err := ParseURN(t.URN)
		if err != nil {
			return nil, err
		}
		for _, a := range t.Aspects {
			if a.Name == f.Aspect && matches(a.Value, f) {
				out = append(out, Aspect{URN: urn, Name: a.Name, CreatedAt: time.UnixMilli(a.CreatedAt)})
			}
		}
	}
	return out, nil
}

// matches says whether value passes f's filter as the store applies it:
// for each field of Where one of its values at the top level, for each of
// Not none of them, for each of Contains a string holding the text in any
// case; values compared as text.
func matches(value json.RawMessage, f Filter) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(value, &m) != nil {
		return false
	}
	text := func(field string) (string, bool) {
		raw, ok := m[field]
		if !ok || string(raw) == "null" {
			return "", false
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
		return string(raw), true
	}
	for field, want := range f.Where {
		if t, ok := text(field); !ok || !slices.Contains(want, t) {
			return false
		}
	}
	for field, unwanted := range f.Not {
		if t, ok := text(field); ok && slices.Contains(unwanted, t) {
			return false
		}
	}
	for field, part := range f.Contains {
		if t, ok := text(field); !ok || !strings.Contains(strings.ToLower(t), strings.ToLower(part)) {
			return false
		}
	}
	for _, c := range f.Criteria {
		var values []string
		if t, ok := text(c.Field); ok {
			values = []string{t}
		}
		if !c.Matches(values) {
			return false
		}
	}
	return true
}
