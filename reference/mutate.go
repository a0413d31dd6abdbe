package reference

import "encoding/json"

// What the Store offers the deletion, patch and search code beyond reading
// and writing aspects: a read-modify-write of some aspects in one
// transaction, and a lookup of the aspects that refer to an entity.

// AspectKey names one aspect of one entity.
type AspectKey struct {
	URN  URN
	Name string
}

// Change is what UpdateAspects writes: Upserts replace (or make) their
// aspects, Keys are made when missing and left alone otherwise (an
// entity's key aspect), Deletes are removed.
type Change struct {
	Upserts []Aspect
	Keys    []Aspect
	Deletes []AspectKey
	// Series are timeseries values written beside (replacing one of the
	// same entity, aspect, time and partition).
	Series []TimeseriesValue
}

// ReferenceProbe finds the aspects of one name whose value holds Contains
// (JSON containment, PostgreSQL's @>): {"tags": [{"tag": "<urn>"}]} finds
// the globalTags that hold the tag.
type ReferenceProbe struct {
	Aspect   string
	Contains json.RawMessage
}
