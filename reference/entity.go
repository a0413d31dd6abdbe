package reference

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
)

// Snapshot is an entity as the entity paths show it.
type Snapshot struct {
	Class   string // e.g. com.linkedin.metadata.snapshot.TagSnapshot
	URN     URN
	Aspects []SnapshotAspect
}

// SnapshotAspect is one aspect, keyed by its class.
type SnapshotAspect struct {
	Class string
	Value json.RawMessage
}

// Entity returns the entity at rawURN. The caller needs VIEW_ENTITY_PAGE,
// GET_ENTITY_PRIVILEGE, EDIT_ENTITY or DELETE_ENTITY on it, except for their
// own corpuser entity. Missing
// is ENOTFOUND, checked after the privilege so that a refusal says nothing of
// existence.
func (s *Service) Entity(ctx context.Context, rawURN string) (*Snapshot, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	caller, err := s.actor(ctx)
	if err != nil {
		return nil, err
	}
	if caller.URN != urn {
		// As DataHub's EntityResource: any privilege on the entity lets one
		// read it.
		if _, err := s.require(ctx, urn, PrivViewEntityPage, PrivGetEntity, PrivEditEntity, PrivDeleteEntity); err != nil {
			return nil, err
		}
	}
	spec := lookupEntity(urn.EntityType)
	if spec == nil {
		return nil, Errorf(ENOTFOUND, "no entity %s", urn)
	}
	aspects, err := s.store.Aspects(Metered(ctx), urn)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Class: spec.snapshot, URN: urn}
	for _, a := range aspects {
		if spec.shown(a.Name) {
			snap.Aspects = append(snap.Aspects, SnapshotAspect{Class: spec.className(a.Name), Value: a.Value})
		}
	}
	if len(snap.Aspects) == 0 {
		return nil, Errorf(ENOTFOUND, "no entity %s", urn)
	}
	return snap, nil
}

// IngestSnapshot writes an entity's aspects given as a snapshot, as
// DataHub's Rest.li EntityResource.ingest does for POST
// /entities?action=ingest (DataHub's SDK: emit_mce): class is the
// snapshot's full name, which must be the snapshot DataHub has for the
// URN's entity type, and each aspect is keyed by its record's full name.
// Every aspect is checked as a proposal of it would be; the caller must be
// allowed to create the entity (writePrivileges); all are written at once,
// with the entity's key. A snapshot of no aspects writes the key alone.
func (s *Service) IngestSnapshot(ctx context.Context, class, rawURN string, aspects []SnapshotAspect) error {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return err
	}
	spec := lookupEntity(urn.EntityType)
	if spec == nil || !spec.datahubSnapshot || spec.snapshot != class {
		return Errorf(EBADREQUEST, "%s is not the snapshot of %s's entity type", Excerpt(class), urn)
	}
	checked := make([]checkedProposal, 0, len(aspects))
	for i, a := range aspects {
		name, ok := spec.aspectOfClass(a.Class)
		if !ok {
			return inProposal(Errorf(EBADREQUEST, "%s is not an aspect of %s", Excerpt(a.Class), urn.EntityType), i, len(aspects))
		}
		c, err := checkProposal(Proposal{EntityType: urn.EntityType, EntityURN: urn.String(), ChangeType: "UPSERT", AspectName: name,
			Aspect: &GenericAspect{Value: string(a.Value), ContentType: "application/json"}})
		if err != nil {
			return inProposal(err, i, len(aspects))
		}
		checked = append(checked, c)
	}
	if why, refused := notIngestible[urn.EntityType]; refused {
		return Errorf(EBADREQUEST, "entity type %s cannot be ingested: %s", urn.EntityType, why)
	}
	if _, _, err := entityKey(urn); err != nil {
		return err
	}
	caller, err := s.actor(ctx)
	if err != nil {
		return err
	}
	if err := s.requireWrite(ctx, caller, []URN{urn}, writeCreate); err != nil {
		return err
	}
	if err := s.judgeUserStatusWrites(ctx, caller, checked); err != nil {
		return err
	}
	return s.write(ctx, caller, []URN{urn}, checked)
}

// Proposal is a metadata change proposal, as ingestProposal carries it.
type Proposal struct {
	EntityType string         `json:"entityType"`
	EntityURN  string         `json:"entityUrn"`
	ChangeType string         `json:"changeType"`
	AspectName string         `json:"aspectName"`
	Aspect     *GenericAspect `json:"aspect"`
}

// GenericAspect is an aspect serialised as JSON text inside a proposal.
type GenericAspect struct {
	Value       string `json:"value"`
	ContentType string `json:"contentType"`
}

// IngestProposal upserts one aspect, as IngestProposals writes a batch of
// one, and returns the entity's URN.
func (s *Service) IngestProposal(ctx context.Context, p Proposal) (URN, error) {
	if err := s.IngestProposals(ctx, []Proposal{p}); err != nil {
		return URN{}, err
	}
	urn, err := ParseURN(p.EntityURN)
	return urn, err
}

// checkedProposal is a proposal that may be written, once the caller may.
type checkedProposal struct {
	urn    URN
	aspect string
	value  json.RawMessage
	// A timeseries value's time and partition (TimeseriesValue).
	timeseries bool
	timestamp  int64
	partition  string
}

// checkProposal checks everything about a proposal but who sends it, as
// DataHub validates one (ValidationApiUtils.validateMCP, then the value
// against its record): an upsert of an aspect the entity type has in
// DataHub's entity registry, of an entity type ingestion may write here,
// whose URN fits the type's key and whose value is a JSON object of the
// aspect's schema. An entity type or aspect the registry does not have,
// or an entity type that is not the URN's, is a bad request (DataHub's
// Rest.li answers them 422, a ValidationException; the suite recommends
// 400, httpx-12 and ingest-09, and takes either at must level).
func checkProposal(p Proposal) (checkedProposal, error) {
	urn, err := ParseURN(p.EntityURN)
	if err != nil {
		return checkedProposal{}, err
	}
	if p.EntityType != "" && !strings.EqualFold(p.EntityType, urn.EntityType) {
		return checkedProposal{}, Errorf(EBADREQUEST, "URN entity type does not match MCP entity type. %s != %s", urn.EntityType, Excerpt(p.EntityType))
	}
	if p.ChangeType != "UPSERT" {
		return checkedProposal{}, Errorf(EBADREQUEST, "changeType must be UPSERT")
	}
	spec := lookupEntity(urn.EntityType)
	if spec == nil {
		return checkedProposal{}, unknownEntity(urn.EntityType)
	}
	if why, refused := notIngestible[urn.EntityType]; refused {
		return checkedProposal{}, Errorf(EBADREQUEST, "entity type %s cannot be ingested: %s", urn.EntityType, why)
	}
	if _, _, err := entityKey(urn); err != nil {
		return checkedProposal{}, err
	}
	if !aspectNameShape(p.AspectName) || !spec.has(p.AspectName) {
		return checkedProposal{}, unknownAspect(Truncate(p.AspectName, 100), urn.EntityType)
	}
	if hiddenAspects[p.AspectName] {
		return checkedProposal{}, Errorf(EBADREQUEST, "aspect %s of %s is not written through ingestion", p.AspectName, urn.EntityType)
	}
	if p.Aspect == nil {
		return checkedProposal{}, Errorf(EBADREQUEST, "aspect is missing")
	}
	if ct := p.Aspect.ContentType; ct != "" && ct != "application/json" {
		return checkedProposal{}, Errorf(EBADREQUEST, "aspect contentType must be application/json")
	}
	var value map[string]any
	if err := json.Unmarshal([]byte(p.Aspect.Value), &value); err != nil || value == nil {
		return checkedProposal{}, Errorf(EBADREQUEST, "aspect value must be a JSON object in a string")
	}
	if HoldsNUL(value) {
		return checkedProposal{}, Errorf(EBADREQUEST, "aspect value may not contain U+0000 (NUL) in any string or key")
	}
	if err := checkFieldTypes(p.AspectName, []byte(p.Aspect.Value)); err != nil {
		return checkedProposal{}, err
	}
	c := checkedProposal{urn: urn, aspect: p.AspectName, value: json.RawMessage(p.Aspect.Value)}
	if isTimeseries(p.AspectName) {
		c.timeseries = true
		if c.timestamp, c.partition, err = timeseriesKey(p.AspectName, c.value); err != nil {
			return checkedProposal{}, err
		}
	}
	return c, nil
}

// HoldsNUL says whether a decoded JSON value has U+0000 in a string or a
// key: JSON allows it, the store (and DataHub's) cannot keep it.
func HoldsNUL(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.ContainsRune(t, 0)
	case map[string]any:
		for k, e := range t {
			if strings.ContainsRune(k, 0) || HoldsNUL(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if HoldsNUL(e) {
				return true
			}
		}
	}
	return false
}

// aspectNameShape says whether name looks like a PDL aspect name: a letter,
// then letters and digits, at most 100 in all.
func aspectNameShape(name string) bool { return aspectName.MatchString(name) }

var aspectName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,99}$`)

// fieldTypes are the fields, with their types in the aspect's schema, of
// the aspects the reference reads back itself. A proposal that gives one
// of them a value of another type is refused with 422, as DataHub refuses
// a value that does not match the aspect's schema: stored, it would break every
// later read of the entity (a user whose info does not decode could not
// sign in, nor be shown).
var fieldTypes = map[string]reflect.Type{
	AspectCorpUserInfo:   reflect.TypeFor[corpUserInfo](),
	AspectCorpUserStatus: reflect.TypeFor[corpUserStatus](),
	AspectTagProperties:  reflect.TypeFor[tagProperties](),
	"datasetProperties": reflect.TypeFor[struct {
		Name             string            `json:"name"`
		Description      string            `json:"description"`
		CustomProperties map[string]string `json:"customProperties"`
	}](),
	"editableDatasetProperties": reflect.TypeFor[struct {
		Description string `json:"description"`
	}](),
}

// checkFieldTypes refuses a value of a known aspect whose fields do not
// have their schema's types. null stands for an absent optional field.
func checkFieldTypes(aspect string, value []byte) error {
	t, known := fieldTypes[aspect]
	if !known {
		return nil
	}
	err := json.Unmarshal(value, reflect.New(t).Interface())
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return Errorf(EUNPROCESSABLE, "aspect %s: field %q must be %s, not %s", aspect, typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	}
	if err != nil {
		return Errorf(EUNPROCESSABLE, "aspect %s: the value does not match its schema", aspect)
	}
	return nil
}

// jsonKind names a Go type as the JSON it decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	}
	return "a number"
}
