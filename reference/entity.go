package reference

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
)

// entitySpec says how an entity type is shown on the entity paths and what
// ingestion may write to it.
type entitySpec struct {
	snapshot string            // com.linkedin.metadata.snapshot.<X>Snapshot
	aspects  map[string]string // aspect name -> fully qualified class
	// ingestible is false for entities only GraphQL may write.
	ingestible bool
}

var entities = map[string]entitySpec{
	EntityCorpUser: {snapshot: "CorpUserSnapshot", ingestible: true, aspects: datahubAspects[EntityCorpUser]},
	EntityTag:      {snapshot: "TagSnapshot", ingestible: true, aspects: datahubAspects[EntityTag]},
	EntityDataset:  {snapshot: "DatasetSnapshot", ingestible: true, aspects: datahubAspects[EntityDataset]},
	EntityPolicy: {snapshot: "DataHubPolicySnapshot", aspects: map[string]string{
		AspectPolicyKey:  "com.linkedin.metadata.key.DataHubPolicyKey",
		AspectPolicyInfo: "com.linkedin.policy.DataHubPolicyInfo",
	}},
	EntityAccessToken: {snapshot: "DataHubAccessTokenSnapshot", aspects: map[string]string{
		AspectAccessTokenKey:  "com.linkedin.metadata.key.DataHubAccessTokenKey",
		AspectAccessTokenInfo: "com.linkedin.access.token.DataHubAccessTokenInfo",
	}},
}

// className returns the fully qualified class of an aspect of the entity
// type, "" for one it does not have or that is never shown (credentials).
func (e entitySpec) className(aspect string) string {
	if hiddenAspects[aspect] {
		return ""
	}
	return e.aspects[aspect]
}

// shown says whether the entity reads show the aspect: one of the entity's,
// neither hidden nor a timeseries aspect.
func (e entitySpec) shown(aspect string) bool {
	return e.className(aspect) != "" && !timeseriesAspects[aspect]
}

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
	spec, known := entities[urn.EntityType]
	if !known {
		return nil, Errorf(ENOTFOUND, "no entity %s", urn)
	}
	aspects, err := s.store.Aspects(ctx, urn)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Class: "com.linkedin.metadata.snapshot." + spec.snapshot, URN: urn}
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

// IngestProposal upserts one aspect: the caller needs EDIT_ENTITY on the
// entity. Policies and tokens cannot be written this way.
func (s *Service) IngestProposal(ctx context.Context, p Proposal) (URN, error) {
	if p.ChangeType == ChangePatch { // service_patch.go
		urn, err := ParseURN(p.EntityURN)
		if err != nil {
			return URN{}, err
		}
		return urn, s.ingestWithPatches(ctx, []Proposal{p})
	}
	c, err := checkProposal(p)
	if err != nil {
		return URN{}, err
	}
	caller, err := s.require(ctx, c.urn, PrivEditEntity)
	if err != nil {
		return URN{}, err
	}
	if err := s.judgeUserStatusWrites(ctx, caller, []checkedProposal{c}); err != nil {
		return URN{}, err
	}
	urn := c.urn
	a := Aspect{URN: urn, Name: c.aspect, Value: c.value, CreatedAt: s.cfg.Now(), CreatedBy: caller.URN.String()}
	keyName, keyValue, hasKey := keyAspect(urn)
	if !hasKey || keyName == a.Name {
		if err := s.store.UpsertAspect(ctx, a); err != nil {
			return URN{}, err
		}
		return urn, nil
	}
	// As DataHub does, the first aspect of an entity brings its key aspect
	// with it, in one transaction: an entity exists while its key does.
	key, err := s.newAspect(caller, urn, keyName, keyValue)
	if err != nil {
		return URN{}, err
	}
	err = s.store.CreateEntity(ctx, []Aspect{key, a})
	if ErrorCodeOf(err) == ECONFLICT {
		err = s.store.UpsertAspect(ctx, a)
	}
	if err != nil {
		return URN{}, err
	}
	return urn, nil
}

// checkedProposal is a proposal that may be written, once the caller may.
type checkedProposal struct {
	urn    URN
	aspect string
	value  json.RawMessage
}

// checkProposal checks everything about a proposal but who sends it: an
// upsert of an aspect of an ingestible entity, whose value is a JSON object
// of the aspect's schema.
func checkProposal(p Proposal) (checkedProposal, error) {
	urn, err := ParseURN(p.EntityURN)
	if err != nil {
		return checkedProposal{}, err
	}
	if p.EntityType != "" && !strings.EqualFold(p.EntityType, urn.EntityType) {
		return checkedProposal{}, Errorf(EBADREQUEST, "entityType %q does not match the urn's %q", Truncate(p.EntityType, 50), urn.EntityType)
	}
	if p.ChangeType != "UPSERT" {
		return checkedProposal{}, Errorf(EBADREQUEST, "changeType must be UPSERT")
	}
	spec, known := entities[urn.EntityType]
	if !known || !spec.ingestible {
		return checkedProposal{}, Errorf(EBADREQUEST, "entity type %q cannot be ingested", urn.EntityType)
	}
	if urn.EntityType == EntityDataset && !datasetID.MatchString(urn.ID) {
		return checkedProposal{}, Errorf(EBADREQUEST, "a dataset urn has the form urn:li:dataset:(urn:li:dataPlatform:<platform>,<name>,<origin>), not %s", Excerpt(urn.String()))
	}
	if !aspectNameShape(p.AspectName) || spec.className(p.AspectName) == "" {
		return checkedProposal{}, Errorf(EBADREQUEST, "aspect %q is not an aspect of %s", Truncate(p.AspectName, 100), urn.EntityType)
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
	return checkedProposal{urn: urn, aspect: p.AspectName, value: json.RawMessage(p.Aspect.Value)}, nil
}

// keyAspect is the key aspect of an ingestible entity, derived from its
// URN; false for an entity type without one here.
func keyAspect(urn URN) (string, any, bool) {
	switch urn.EntityType {
	case EntityCorpUser:
		return AspectCorpUserKey, map[string]string{"username": urn.ID}, true
	case EntityTag:
		return AspectTagKey, map[string]string{"name": urn.ID}, true
	case EntityDataset:
		m := datasetID.FindStringSubmatch(urn.ID)
		if m == nil {
			return "", nil, false
		}
		return "datasetKey", map[string]string{"platform": m[1], "name": m[2], "origin": m[3]}, true
	}
	return "", nil, false
}

// datasetID is the id of a dataset URN: (<platform urn>,<name>,<origin>).
var datasetID = regexp.MustCompile(`^\((urn:li:dataPlatform:[^,()]+),([^()]+),([A-Z_]+)\)$`)

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
