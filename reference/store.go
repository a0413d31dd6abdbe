package reference

import (
	"context"
	"encoding/json"
	"time"
)

// Aspect is one named piece of an entity's metadata, stored as JSON.
type Aspect struct {
	URN       URN
	Name      string
	Value     json.RawMessage
	CreatedAt time.Time
	CreatedBy string
	// TraceID is the trace of the ingestion that wrote it (TraceFrom), ""
	// for an aspect written otherwise.
	TraceID string
}

// TimeseriesValue is one value of a timeseries aspect. An entity keeps
// every value of each of its timeseries aspects; a value written again for
// the same time and partition (Partition) replaces the one before.
type TimeseriesValue struct {
	URN             URN
	Name            string
	TimestampMillis int64
	// Partition is the value's eventGranularity, messageId and
	// partitionSpec as canonical JSON, "" when it has none: with the time,
	// what tells one value from another, as in DataHub.
	Partition string
	Value     json.RawMessage
	CreatedAt time.Time
	CreatedBy string
	TraceID   string
}

// TimeseriesQuery selects values of one timeseries aspect of one entity.
type TimeseriesQuery struct {
	URN    URN
	Aspect string
	// Start and End bound timestampMillis, both included, when not nil.
	Start, End *int64
	// Filter keeps the values that meet every criterion of any one of its
	// conjunctions; none keeps all. A criterion's field is a top-level
	// field of the value (timestampMillis among them); its condition
	// EQUAL, EXISTS or a comparison with a number (Values[0]).
	Filter [][]Criterion
	// Ascending lists the oldest value first; by default the latest is.
	Ascending bool
	// Limit is how many values at most (it must be positive).
	Limit int
	// TraceID, when set, keeps only the values that ingestion wrote with it.
	TraceID string
}

// Filter selects aspects of one name whose JSON value has, for each field
// of Where, one of the given string values at its top level; for each
// field of Not, none of them (a value without the field has none); and for
// each field of Contains, a string holding the given text, in any case.
type Filter struct {
	EntityType string
	Aspect     string
	Where      map[string][]string
	Not        map[string][]string
	Contains   map[string]string
	Start      int
	Count      int
	// Criteria are conditions beyond these (DataHub's filter conditions:
	// ranges, prefixes, existence...), all of which must hold
	// (criteria.go).
	Criteria []Criterion
	// Search marks a listing that DataHub serves from its search index,
	// which lags behind writes (a token, policy or user list). A Store that
	// models the lag (SearchLag) lists an entity only once the lag has
	// passed since it was made, and goes on listing one deleted within the
	// lag; other Stores list what is there now. Joining a new search-backed
	// listing to the lag is setting this field (and, for an entity type
	// not in searchKeys, naming its key aspect there).
	Search bool
	// KeepGone, with Search, lists an entity the index still holds and the
	// store no longer does with a nil Value, for a caller that answers as
	// DataHub's resolver does when it meets one; without it such entities
	// are left out of the page (still counted in the total), as DataHub's
	// policy and user lists leave them out.
	KeepGone bool
}

// Store keeps aspects. Implementations translate their own errors: a unique
// violation becomes ECONFLICT, a missing row ENOTFOUND.
type Store interface {
	// Aspects returns every aspect of urn, none when the entity does not exist.
	Aspects(ctx context.Context, urn URN) ([]Aspect, error)
	// Aspect returns one aspect; ENOTFOUND when it does not exist.
	Aspect(ctx context.Context, urn URN, name string) (Aspect, error)
	// CreateEntity writes the aspects of a new entity in one transaction;
	// ECONFLICT, and nothing written, when any of them exists already.
	CreateEntity(ctx context.Context, aspects []Aspect) error
	// UpsertAspect writes an aspect, replacing one of the same name.
	UpsertAspect(ctx context.Context, a Aspect) error
	// WriteAspects writes, in one transaction, every aspect of upserts
	// (replacing one of the same name), every aspect of keys that does not
	// exist yet, and every timeseries value of series (replacing one of
	// the same entity, aspect, time and partition): all of them, or nothing
	// when any fails. No two upserts name the same aspect of the same
	// entity, no two values of series the same time and partition.
	WriteAspects(ctx context.Context, upserts, keys []Aspect, series []TimeseriesValue) error
	// TimeseriesValues returns the values q selects, latest first unless
	// q.Ascending.
	TimeseriesValues(ctx context.Context, q TimeseriesQuery) ([]TimeseriesValue, error)
	// DeleteTimeseries removes urn's values of the timeseries aspect whose
	// time is within start and end (both included; nil: unbounded), and
	// says how many it removed.
	DeleteTimeseries(ctx context.Context, urn URN, aspect string, start, end *int64) (int, error)
	// CountTimeseries says how many timeseries values urn has.
	CountTimeseries(ctx context.Context, urn URN) (int, error)
	// ReplaceAspect replaces an existing aspect; ENOTFOUND when there is none.
	ReplaceAspect(ctx context.Context, a Aspect) error
	// DeleteEntity removes every aspect of urn, its timeseries values
	// included; false when there were none.
	DeleteEntity(ctx context.Context, urn URN) (bool, error)
	// ListAspects returns the aspects that match f, newest first, and how
	// many match in all.
	ListAspects(ctx context.Context, f Filter) ([]Aspect, int, error)
	// Secret returns the named secret, generating and storing it on first
	// use; every replica sharing the database gets the same value.
	Secret(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error)
	// UpdateAspects reads the named aspects (those stored) and writes what
	// change makes of them, in one transaction that no other UpdateAspects
	// of the same aspects overlaps, stored or not (mutate.go).
	UpdateAspects(ctx context.Context, keys []AspectKey, change func(current []Aspect) (Change, error)) error
	// ReferencingAspects returns the aspects that hold what one of the
	// probes looks for, at most limit of them, in URN order (mutate.go).
	ReferencingAspects(ctx context.Context, probes []ReferenceProbe, limit int) ([]Aspect, error)
	// SearchEntities pages through the entities that match q, in URN
	// order (search.go).
	SearchEntities(ctx context.Context, q SearchQuery) (SearchPage, error)
	// SessionStore keeps browser sessions (session.go).
	SessionStore
	// UserStore keeps what is bound to a user's existence (removal.go).
	UserStore
}
