package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The entity reads and writes of DataHub's Rest.li resources (AspectResource,
// EntityV2Resource) and OpenAPI v3 (EntityController), which DataHub's SDK
// uses: one aspect, an entity's aspects by name, a batch of proposals
// written whole, and the deletion of an entity.

// EntityAspect is one aspect of an entity as these reads show it.
type EntityAspect struct {
	Name      string // e.g. datasetProperties
	Class     string // its record's full name, e.g. com.linkedin.dataset.DatasetProperties
	Value     json.RawMessage
	CreatedAt time.Time // zero for a key aspect derived from the URN
	CreatedBy string
}

// EntityAspects is an entity with the aspects a read asked for.
type EntityAspects struct {
	URN     URN
	Aspects []EntityAspect
}

// EntityRequest names an entity and the aspects wanted of it (none: all).
type EntityRequest struct {
	URN     string
	Aspects []string
}

// requireRead lets the caller read urn: their own user, or any of the
// privileges DataHub's resources check for READ (VIEW_ENTITY_PAGE,
// GET_ENTITY_PRIVILEGE, EDIT_ENTITY, DELETE_ENTITY).
func (s *Service) requireRead(ctx context.Context, urn URN) error {
	caller, err := s.actor(ctx)
	if err != nil {
		return err
	}
	if caller.URN == urn {
		return nil
	}
	_, err = s.require(ctx, urn, PrivViewEntityPage, PrivGetEntity, PrivEditEntity, PrivDeleteEntity)
	return err
}

// checkAspectNames refuses names that cannot be aspect names; names an
// entity does not have are merely not found.
func checkAspectNames(names []string) error {
	for _, n := range names {
		if !aspectNameShape(n) {
			return Errorf(EBADREQUEST, "%s is not an aspect name (a letter, then letters and digits)", Excerpt(n))
		}
	}
	return nil
}

// checkEntityType refuses a path's entity type that is not the URN's.
func checkEntityType(entityType string, urn URN) error {
	if entityType != urn.EntityType {
		return Errorf(EBADREQUEST, "%s is not an entity of type %s", urn, Excerpt(entityType))
	}
	return nil
}

// readAspects reads urn's stored aspects that the reads show, those named
// (all when names is nil); withKey adds the key aspect, derived from the
// URN, when none is among them (DataHub's alwaysIncludeKeyAspect).
func (s *Service) readAspects(ctx context.Context, urn URN, names []string, withKey bool) ([]EntityAspect, error) {
	spec := lookupEntity(urn.EntityType)
	if spec == nil {
		return nil, nil
	}
	stored, err := s.storedAspects(Metered(ctx), urn, names)
	if err != nil {
		return nil, err
	}
	var out []EntityAspect
	for _, a := range stored {
		if spec.shown(a.Name) && (names == nil || slices.Contains(names, a.Name)) {
			out = append(out, EntityAspect{Name: a.Name, Class: spec.className(a.Name), Value: a.Value, CreatedAt: a.CreatedAt, CreatedBy: a.CreatedBy})
		}
	}
	if !withKey {
		return out, nil
	}
	keyName, keyValue, err := entityKey(urn)
	if err != nil || slices.ContainsFunc(out, func(a EntityAspect) bool { return a.Name == keyName }) {
		// A URN that does not fit its type's key has no key to show.
		return out, nil
	}
	v, err := json.Marshal(keyValue)
	if err != nil {
		return nil, err
	}
	return append(out, EntityAspect{Name: keyName, Class: spec.className(keyName), Value: v}), nil
}

// storedAspects reads the aspects of urn named (all when names is nil):
// only those, so that one aspect of a large entity reads that aspect.
func (s *Service) storedAspects(ctx context.Context, urn URN, names []string) ([]Aspect, error) {
	if names == nil {
		return s.store.Aspects(ctx, urn)
	}
	var out []Aspect
	for _, name := range slices.Compact(slices.Sorted(slices.Values(names))) {
		a, err := s.store.Aspect(ctx, urn, name)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// ReadAspect returns one aspect of an entity, as DataHub's Rest.li
// AspectResource.get answers GET /aspects/{urn}?aspect=&version=: the
// latest (version 0), the only one kept. The caller needs a read
// privilege, checked before existence; an aspect not stored (or not one
// the reads show) is ENOTFOUND.
func (s *Service) ReadAspect(ctx context.Context, rawURN, aspect string, version int64) (*EntityAspect, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	if aspect == "" {
		return nil, Errorf(EBADREQUEST, "name the aspect to read: ?aspect=<name>&version=0")
	}
	if err := checkAspectNames([]string{aspect}); err != nil {
		return nil, err
	}
	if version < 0 {
		return nil, Errorf(EBADREQUEST, "version must be 0 (the latest) or more")
	}
	if err := s.requireRead(ctx, urn); err != nil {
		return nil, err
	}
	if version != 0 {
		return nil, Errorf(ENOTFOUND, "only the latest version (0) of an aspect is kept")
	}
	found, err := s.readAspects(ctx, urn, []string{aspect}, false)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, Errorf(ENOTFOUND, "%s has no aspect %s", urn, aspect)
	}
	return &found[0], nil
}

// EntityV2 returns an entity's aspects as DataHub's Rest.li
// EntityV2Resource.get answers GET /entitiesV2/{urn}: those named (all
// when names is nil), and with includeKey the key aspect even when the
// entity was never written, as DataHub answers it. An entity type the
// service does not know is ENOTFOUND.
func (s *Service) EntityV2(ctx context.Context, rawURN string, names []string, includeKey bool) (*EntityAspects, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	if err := checkAspectNames(names); err != nil {
		return nil, err
	}
	if err := s.requireRead(ctx, urn); err != nil {
		return nil, err
	}
	if lookupEntity(urn.EntityType) == nil {
		return nil, Errorf(ENOTFOUND, "no entity type %s", Excerpt(urn.EntityType))
	}
	found, err := s.readAspects(ctx, urn, names, includeKey)
	if err != nil {
		return nil, err
	}
	return &EntityAspects{URN: urn, Aspects: found}, nil
}

// EntitiesV2 returns entities as DataHub's Rest.li EntityV2Resource.batchGet
// answers GET /entitiesV2?ids=List(...) (`datahub migrate` reads containers
// so): the caller must be allowed to read every one (or gets nothing), and
// each is shown as EntityV2 shows it.
func (s *Service) EntitiesV2(ctx context.Context, rawURNs, names []string, includeKey bool) ([]EntityAspects, error) {
	// Rest.li's BATCH_GET takes a set of ids: each entity is read once.
	urns := make([]URN, 0, len(rawURNs))
	seen := make(map[URN]bool, len(rawURNs))
	for _, raw := range rawURNs {
		urn, err := ParseURN(raw)
		if err != nil {
			return nil, err
		}
		if !seen[urn] {
			seen[urn] = true
			urns = append(urns, urn)
		}
	}
	if err := checkAspectNames(names); err != nil {
		return nil, err
	}
	for _, urn := range urns {
		if err := s.requireRead(ctx, urn); err != nil {
			return nil, err
		}
	}
	out := make([]EntityAspects, 0, len(urns))
	for _, urn := range urns {
		if lookupEntity(urn.EntityType) == nil {
			continue
		}
		found, err := s.readAspects(ctx, urn, names, includeKey)
		if err != nil {
			return nil, err
		}
		out = append(out, EntityAspects{URN: urn, Aspects: found})
	}
	return out, nil
}

// EntityV3 returns an entity's stored aspects as DataHub's OpenAPI v3
// EntityController answers GET /openapi/v3/entity/{type}/{urn}[/{aspect}]:
// those named (all when names is nil); ENOTFOUND when there are none.
// entityType is the path's, which must be the URN's.
func (s *Service) EntityV3(ctx context.Context, entityType, rawURN string, names []string) (*EntityAspects, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	if err := checkEntityType(entityType, urn); err != nil {
		return nil, err
	}
	if err := checkAspectNames(names); err != nil {
		return nil, err
	}
	if err := s.requireRead(ctx, urn); err != nil {
		return nil, err
	}
	found, err := s.readAspects(ctx, urn, names, false)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, Errorf(ENOTFOUND, "%s has none of the aspects asked for", urn)
	}
	return &EntityAspects{URN: urn, Aspects: found}, nil
}

// EntitiesV3 returns entities' stored aspects as DataHub's OpenAPI v3
// EntityController answers POST /openapi/v3/entity/{type}/batchGet: the
// caller must be allowed to read every entity asked for (or gets nothing),
// and an entity with none of the aspects asked for is left out.
func (s *Service) EntitiesV3(ctx context.Context, entityType string, reqs []EntityRequest) ([]EntityAspects, error) {
	reqs = foldRequests(reqs)
	urns := make([]URN, len(reqs))
	for i, r := range reqs {
		urn, err := ParseURN(r.URN)
		if err != nil {
			return nil, err
		}
		if err := checkEntityType(entityType, urn); err != nil {
			return nil, err
		}
		if err := checkAspectNames(r.Aspects); err != nil {
			return nil, err
		}
		urns[i] = urn
	}
	for _, urn := range urns {
		if err := s.requireRead(ctx, urn); err != nil {
			return nil, err
		}
	}
	var out []EntityAspects
	for i, urn := range urns {
		names := reqs[i].Aspects
		if len(names) == 0 {
			names = nil
		}
		found, err := s.readAspects(ctx, urn, names, false)
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			out = append(out, EntityAspects{URN: urn, Aspects: found})
		}
	}
	return out, nil
}

// foldRequests names each entity once, in the order first named, as
// DataHub's batchGet reads its body into a map by URN
// (EntityController.toEntityVersionRequest, OpenAPI v3): with the aspects
// any of its mentions names, or all of them when its first names none. A
// body naming one entity a thousand times reads it once.
func foldRequests(reqs []EntityRequest) []EntityRequest {
	out := make([]EntityRequest, 0, len(reqs))
	at := make(map[string]int, len(reqs))
	for _, r := range reqs {
		i, seen := at[r.URN]
		if !seen {
			at[r.URN] = len(out)
			out = append(out, EntityRequest{URN: r.URN, Aspects: slices.Clip(slices.Clone(r.Aspects))})
			continue
		}
		if len(out[i].Aspects) == 0 {
			continue // all of them already
		}
		for _, a := range r.Aspects {
			if !slices.Contains(out[i].Aspects, a) {
				out[i].Aspects = append(out[i].Aspects, a)
			}
		}
	}
	return out
}

// IngestProposals writes a batch of proposals whole or not at all, as
// DataHub's AspectResource.ingestProposalBatch and OpenAPI v3's POST
// /openapi/v3/entity/{type} do: every proposal is checked (checkProposal),
// then the caller must be allowed to write every entity of the batch
// (writePrivileges), then all are written in one transaction, with the key
// aspect of each entity that has none. A later proposal for the same
// aspect of the same entity (for a timeseries aspect: the same time and
// partition) wins. Each aspect records the trace ctx carries (WithTrace).
func (s *Service) IngestProposals(ctx context.Context, ps []Proposal) error {
	if hasPatch(ps) { // service_patch.go
		return s.ingestWithPatches(ctx, ps)
	}
	checked := make([]checkedProposal, len(ps))
	for i, p := range ps {
		c, err := checkProposal(p)
		if err != nil {
			return inProposal(err, i, len(ps))
		}
		checked[i] = c
	}
	caller, err := s.actor(ctx)
	if err != nil {
		return err
	}
	var urns []URN
	distinct := make(map[URN]bool, len(checked))
	for _, c := range checked {
		if !distinct[c.urn] {
			distinct[c.urn] = true
			urns = append(urns, c.urn)
		}
	}
	if err := s.requireWrite(ctx, caller, urns, writeUpdate); err != nil {
		return err
	}
	if err := s.judgeUserStatusWrites(ctx, caller, checked); err != nil {
		return err
	}
	return s.write(ctx, caller, urns, checked)
}

// write stores checked proposals of the entities urns in one transaction,
// each entity's key aspect with them.
func (s *Service) write(ctx context.Context, caller Actor, urns []URN, checked []checkedProposal) error {
	now := s.cfg.Now().Truncate(time.Microsecond) // as the store keeps it
	trace := TraceFrom(ctx)
	var (
		upserts []Aspect
		series  []TimeseriesValue
	)
	at := map[[2]string]int{}
	seriesAt := map[timeseriesID]int{}
	for _, c := range checked {
		if c.timeseries {
			v := TimeseriesValue{URN: c.urn, Name: c.aspect, TimestampMillis: c.timestamp, Partition: c.partition,
				Value: c.value, CreatedAt: now, CreatedBy: caller.URN.String(), TraceID: trace}
			k := timeseriesID{c.urn.String(), c.aspect, c.timestamp, c.partition}
			if i, seen := seriesAt[k]; seen {
				series[i] = v
				continue
			}
			seriesAt[k] = len(series)
			series = append(series, v)
			continue
		}
		a := Aspect{URN: c.urn, Name: c.aspect, Value: c.value, CreatedAt: now, CreatedBy: caller.URN.String(), TraceID: trace}
		k := [2]string{c.urn.String(), c.aspect}
		if i, seen := at[k]; seen {
			upserts[i] = a
			continue
		}
		at[k] = len(upserts)
		upserts = append(upserts, a)
	}
	var keys []Aspect
	for _, urn := range urns {
		name, value, err := entityKey(urn)
		if err != nil {
			return err
		}
		if _, written := at[[2]string{urn.String(), name}]; written {
			continue
		}
		v, err := json.Marshal(value)
		if err != nil {
			return err
		}
		keys = append(keys, Aspect{URN: urn, Name: name, Value: v, CreatedAt: now, CreatedBy: caller.URN.String(), TraceID: trace})
	}
	if len(upserts) == 0 && len(series) == 0 && len(keys) == 0 {
		return nil
	}
	return s.store.WriteAspects(ctx, upserts, keys, series)
}

// timeseriesID is what tells one timeseries value from another.
type timeseriesID struct {
	urn, aspect string
	timestamp   int64
	partition   string
}

// writeOp is what a write does to an entity, which DataHub authorizes
// apart: ingesting a proposal updates it (ApiOperation.UPDATE), emitting a
// snapshot creates it (CREATE).
type writeOp int

const (
	writeUpdate writeOp = iota
	writeCreate
)

// writePrivileges are the privileges of which one lets its holder write an
// entity of the type, as DataHub's AuthUtil.lookupEntityAPIPrivilege says
// (PoliciesConfig.API_ENTITY_PRIVILEGE_MAP, limited to the privileges the
// reference knows): a user or a group needs a platform privilege over
// users (UPDATE_USERS_AND_GROUPS or MANAGE_USERS_AND_GROUPS to update one,
// MANAGE_USERS_AND_GROUPS to create one); any other entity EDIT_ENTITY on
// it (DataHub also takes CREATE_ENTITY to create one, and MANAGE_INGESTION
// or MANAGE_STRUCTURED_PROPERTIES for their own entities, which the
// reference does not know: it is the stricter).
func writePrivileges(entityType string, op writeOp) (privileges []string, platform bool) {
	switch entityType {
	case EntityCorpUser, "corpGroup":
		if op == writeCreate {
			return []string{PrivManageUsersAndGroups}, true
		}
		return []string{PrivManageUsersAndGroups, PrivUpdateUsersAndGroups}, true
	}
	return []string{PrivEditEntity}, false
}

// requireWrite refuses, before anything is written, a write of entities
// the caller may not write all of.
func (s *Service) requireWrite(ctx context.Context, caller Actor, urns []URN, op writeOp) error {
	for _, urn := range urns {
		privileges, platform := writePrivileges(urn.EntityType, op)
		resource := urn
		if platform {
			resource = URN{}
		}
		ok, err := s.can(ctx, caller, resource, privileges...)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(EUNAUTHORIZED, "Unauthorized to write %s: %s %s needed, and nothing was written", urn, strings.Join(privileges, " or "), privilegeScope(privileges, platform))
		}
	}
	return nil
}

func privilegeScope(privileges []string, platform bool) string {
	switch {
	case platform && len(privileges) > 1:
		return "(platform privileges) is"
	case platform:
		return "(a platform privilege) is"
	}
	return "on it is"
}

// inProposal says which proposal of a batch an error is about.
func inProposal(err error, i, n int) error {
	if n == 1 {
		return err
	}
	code := ErrorCodeOf(err)
	if code == EINTERNAL {
		return err
	}
	return Errorf(code, "proposal %d of %d: %s", i+1, n, ErrorMessageOf(err))
}

// DeleteEntity deletes an entity of any type with every aspect it has and
// its timeseries values, as DataHub's OpenAPI v3 DELETE
// /openapi/v3/entity/{type}/{urn} does (GenericEntitiesController
// .deleteEntity, EntityService.deleteUrn; DataHub's SDK sends it for a
// proposal to delete): the caller needs DELETE_ENTITY on it. Users,
// policies and tokens are removed by their own operations. Deleting what
// does not exist changes nothing and succeeds, as in DataHub.
func (s *Service) DeleteEntity(ctx context.Context, entityType, rawURN string) error {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return err
	}
	if err := checkEntityType(entityType, urn); err != nil {
		return err
	}
	switch urn.EntityType {
	case EntityPolicy, EntityAccessToken, EntityCorpUser:
		return Errorf(EBADREQUEST, "a %s is not deleted here: %s", urn.EntityType, deletedBy(urn.EntityType))
	}
	if _, err := s.require(ctx, urn, PrivDeleteEntity); err != nil {
		return err
	}
	_, err = s.store.DeleteEntity(ctx, urn)
	return err
}

// deletedBy says how an entity type that DeleteEntity refuses is removed.
func deletedBy(entityType string) string {
	switch entityType {
	case EntityPolicy:
		return "policies are deleted with deletePolicy"
	case EntityAccessToken:
		return "tokens are revoked with revokeAccessToken"
	case EntityCorpUser:
		return "users are not deleted through the entity endpoints"
	}
	return fmt.Sprintf("the service keeps no %s entities", strings.ToLower(entityType))
}
