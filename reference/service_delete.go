package reference

import (
	"context"
	"encoding/json"
	"slices"
)

// Hard deletion as DataHub's SDK and CLI ask for it: Rest.li's
// POST /entities?action=delete (DataHubGraph.hard_delete_entity, `datahub
// delete --hard`) and POST /entities?action=deleteReferences
// (delete_references_to_urn), answered as DataHub's EntityResource.delete
// and deleteReferencesTo (metadata-service/restli-servlet-impl) and its
// DeleteEntityService and DeleteEntityUtils (metadata-service/services) do
// at commit 7e93355. Both need DELETE_ENTITY on the entity.

// DeleteResult is DataHub's DeleteEntityResponse: the rows (aspects)
// deleted, of which TimeseriesRows were timeseries aspects.
type DeleteResult struct {
	URN            string
	Rows           int
	TimeseriesRows int
}

// HardDelete deletes an entity with every aspect it has, or, with aspect
// named, the values of one of its timeseries aspects whose timestampMillis
// is within [start, end] (either bound may be nil). Deleting what does not
// exist deletes nothing and succeeds, as in DataHub. The root user, the
// policies and the access tokens are deleted only by their own operations
// (removeUser refuses the root; deletePolicy needs MANAGE_POLICIES;
// revokeAccessToken the owner or a manager).
func (s *Service) HardDelete(ctx context.Context, rawURN string, aspect *string, start, end *int64) (*DeleteResult, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	if _, err := s.require(ctx, urn, PrivDeleteEntity); err != nil {
		return nil, Errorf(EUNAUTHORIZED, "User is unauthorized to delete entity: %s", Truncate(urn.String(), 200))
	}
	switch {
	case urn == RootUser, urn == SystemUser:
		return nil, Errorf(EBADREQUEST, "%s cannot be deleted: it is the service's root or system user", urn)
	case urn.EntityType == EntityPolicy, urn.EntityType == EntityAccessToken:
		return nil, Errorf(EBADREQUEST, "a %s is not deleted here: %s", urn.EntityType, deletedBy(urn.EntityType))
	}
	out := &DeleteResult{URN: urn.String()}
	if aspect != nil {
		if !isTimeseries(*aspect) {
			return nil, Errorf(EBADREQUEST, "Not supported for non-timeseries aspect %s.", Truncate(*aspect, 100))
		}
		n, err := s.store.DeleteTimeseries(ctx, urn, *aspect, start, end)
		out.TimeseriesRows = n
		return out, err
	}
	stored, err := s.store.Aspects(ctx, urn)
	if err != nil {
		return nil, err
	}
	series, err := s.store.CountTimeseries(ctx, urn)
	if err != nil {
		return nil, err
	}
	out.Rows, out.TimeseriesRows = len(stored), series
	if len(stored) == 0 && series == 0 {
		return out, nil
	}
	if urn.EntityType == EntityCorpUser {
		// A user's removal is final, however it is asked for (removal.go):
		// their tokens, sessions, invite tokens and policy names go too.
		if _, err := s.store.RemoveUser(ctx, urn); err != nil {
			return nil, err
		}
		return out, nil
	}
	if _, err := s.store.DeleteEntity(ctx, urn); err != nil {
		return nil, err
	}
	return out, nil
}

// relationship is a field of an aspect that refers to another entity: a
// relationship of DataHub's graph (its @Relationship annotations in
// metadata-models/src/main/pegasus, at commit 7e93355). path leads from
// the aspect to the URN, "*" standing for each element of a list.
type relationship struct {
	name    string
	aspect  string
	path    []string
	targets []string // the entity types it refers to; nil: any
	// optional says the URN's own field may be removed from its record;
	// otherwise the record goes (DeleteEntityUtils).
	optional bool
}

var relationships = []relationship{
	{name: "TaggedWith", aspect: "globalTags", path: []string{"tags", "*", "tag"}, targets: []string{"tag"}},
	{name: "TermedWith", aspect: "glossaryTerms", path: []string{"terms", "*", "urn"}, targets: []string{"glossaryTerm"}},
	{name: "OwnedBy", aspect: "ownership", path: []string{"owners", "*", "owner"}, targets: []string{"corpuser", "corpGroup"}},
	{name: "ownershipType", aspect: "ownership", path: []string{"owners", "*", "typeUrn"}, targets: []string{"ownershipType"}, optional: true},
	{name: "DownstreamOf", aspect: "upstreamLineage", path: []string{"upstreams", "*", "dataset"}, targets: []string{"dataset"}},
	{name: "IsPartOf", aspect: "container", path: []string{"container"}, targets: []string{"container"}},
	{name: "AssociatedWith", aspect: "domains", path: []string{"domains", "*"}, targets: []string{"domain"}},
	{name: "SiblingOf", aspect: "siblings", path: []string{"siblings", "*"}},
	{name: "EditableSchemaFieldTaggedWith", aspect: "editableSchemaMetadata", path: []string{"editableSchemaFieldInfo", "*", "globalTags", "tags", "*", "tag"}, targets: []string{"tag"}},
	{name: "EditableSchemaFieldWithGlossaryTerm", aspect: "editableSchemaMetadata", path: []string{"editableSchemaFieldInfo", "*", "glossaryTerms", "terms", "*", "urn"}, targets: []string{"glossaryTerm"}},
	{name: "SchemaFieldTaggedWith", aspect: "schemaMetadata", path: []string{"fields", "*", "globalTags", "tags", "*", "tag"}, targets: []string{"tag"}},
	{name: "SchemaFieldWithGlossaryTerm", aspect: "schemaMetadata", path: []string{"fields", "*", "glossaryTerms", "terms", "*", "urn"}, targets: []string{"glossaryTerm"}},
}

// containment is the JSON that an aspect holding urn at path contains.
func containment(path []string, urn string) any {
	if len(path) == 0 {
		return urn
	}
	inner := containment(path[1:], urn)
	if path[0] == "*" {
		return []any{inner}
	}
	return map[string]any{path[0]: inner}
}

// RelatedAspect is one aspect that refers to the entity (DataHub's
// RelatedAspect).
type RelatedAspect struct {
	Entity       string `json:"entity"`
	Aspect       string `json:"aspect"`
	Relationship string `json:"relationship"`
}

// ReferencesResult is DataHub's DeleteReferencesResponse: how many
// references there were (one per entity and relationship), and a sample of
// at most ten of the aspects that held them.
type ReferencesResult struct {
	Total          int
	RelatedAspects []RelatedAspect
}

// maxReferences bounds the aspects one deleteReferences looks at.
const maxReferences = 100_000

// DeleteReferences removes every reference to the entity from the aspects
// of other entities, as DataHub's DeleteEntityService.deleteReferencesTo
// does: a reference inside a list goes with its element (a tag from an
// entity's tags, an owner from its owners), a reference that is an
// aspect's required field takes the aspect with it (an entity's
// container), an optional field goes alone. The entity itself stays. With
// dryRun nothing changes and the answer says what would. It needs
// DELETE_ENTITY on the entity, as in DataHub; the aspects changed are
// written by the system, as DataHub writes them.
func (s *Service) DeleteReferences(ctx context.Context, rawURN string, dryRun bool) (*ReferencesResult, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	if _, err := s.require(ctx, urn, PrivDeleteEntity); err != nil {
		return nil, Errorf(EUNAUTHORIZED, "User is unauthorized to delete entity %s", Truncate(urn.String(), 200))
	}
	target := urn.String()
	var (
		probes []ReferenceProbe
		rels   []relationship
	)
	for _, r := range relationships {
		if r.targets != nil && !slices.Contains(r.targets, urn.EntityType) {
			continue
		}
		b, err := json.Marshal(containment(r.path, target))
		if err != nil {
			return nil, err
		}
		probes = append(probes, ReferenceProbe{Aspect: r.aspect, Contains: b})
		rels = append(rels, r)
	}
	out := &ReferencesResult{RelatedAspects: []RelatedAspect{}}
	if len(probes) == 0 {
		return out, nil
	}
	found, err := s.store.ReferencingAspects(ctx, probes, maxReferences)
	if err != nil {
		return nil, err
	}
	edges := map[[2]string]bool{}
	for _, a := range found {
		if a.URN == urn {
			continue
		}
		for _, r := range rels {
			if r.aspect != a.Name || !refersTo(a.Value, r.path, target) {
				continue
			}
			edges[[2]string{a.URN.String(), r.name}] = true
			if len(out.RelatedAspects) < 10 {
				out.RelatedAspects = append(out.RelatedAspects, RelatedAspect{Entity: a.URN.String(), Aspect: a.Name, Relationship: r.name})
			}
		}
	}
	out.Total = len(edges)
	if dryRun {
		return out, nil
	}
	now := s.cfg.Now()
	for _, a := range found {
		if a.URN == urn {
			continue
		}
		key := AspectKey{URN: a.URN, Name: a.Name}
		err := s.store.UpdateAspects(ctx, []AspectKey{key}, func(current []Aspect) (Change, error) {
			var c Change
			for _, cur := range current {
				v, gone, changed := withoutReferences(cur.Value, cur.Name, target)
				switch {
				case gone:
					c.Deletes = append(c.Deletes, key)
				case changed:
					c.Upserts = append(c.Upserts, Aspect{URN: cur.URN, Name: cur.Name, Value: v, CreatedAt: now, CreatedBy: SystemUser.String()})
				}
			}
			return c, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// refersTo says whether value holds target at path.
func refersTo(value json.RawMessage, path []string, target string) bool {
	var v any
	if json.Unmarshal(value, &v) != nil {
		return false
	}
	return slices.Contains(walkSearchPath(v, path, false), target)
}

// withoutReferences removes target from every relationship of the aspect
// (DeleteEntityUtils.getAspectWithReferenceRemoved): gone says the aspect
// itself goes, changed that it is another value.
func withoutReferences(value json.RawMessage, aspect, target string) (json.RawMessage, bool, bool) {
	doc, err := decodeOrdered(value)
	if err != nil {
		return nil, false, false
	}
	changed := false
	for _, r := range relationships {
		if r.aspect != aspect {
			continue
		}
		next, remove, did := removeReference(doc, r.path, target, r.optional)
		if remove {
			return nil, true, true
		}
		doc, changed = next, changed || did
	}
	if !changed {
		return value, false, false
	}
	b, err := encodeOrdered(doc)
	if err != nil {
		return nil, false, false
	}
	return b, false, true
}

// removeReference removes target at path from v: remove says v itself
// must go (its required field was the reference), did that something
// changed. A reference in a list takes its element; an optional field
// goes alone; a required field takes its record.
func removeReference(v any, path []string, target string, optional bool) (any, bool, bool) {
	if len(path) == 0 {
		s, ok := v.(string)
		return v, ok && s == target, false
	}
	switch node := v.(type) {
	case []any:
		if path[0] != "*" {
			return v, false, false
		}
		kept := make([]any, 0, len(node))
		did := false
		for _, e := range node {
			ne, remove, changed := removeReference(e, path[1:], target, optional)
			if remove {
				did = true
				continue
			}
			did = did || changed
			kept = append(kept, ne)
		}
		return kept, false, did
	case *object:
		if path[0] == "*" {
			return v, false, false
		}
		e, ok := node.get(path[0])
		if !ok {
			return v, false, false
		}
		ne, remove, changed := removeReference(e, path[1:], target, optional)
		if remove {
			if len(path) == 1 && optional {
				node.remove(path[0])
				return node, false, true
			}
			return v, true, true
		}
		if changed {
			node.set(path[0], ne)
		}
		return node, false, changed
	}
	return v, false, false
}
