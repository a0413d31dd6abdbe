package reference

import (
	"context"
	"slices"
	"strings"
)

// Authorizing an entity write before its body is held (issue 29): a write
// is checked first on what its URL and headers say (MayWrite), before any
// of its body is read, then entity by entity as the body names them
// (AuthorizeWrite), so that a caller is refused at the first entity they
// may not write, having made the service hold little. The service's write
// methods (IngestProposal, IngestProposals) check everything again.

// MayWrite refuses a write by a caller who could write no entity of
// entityType ("" for any type) under any active policy: such a write
// cannot succeed whatever its body holds. every says whether they may
// write every entity of the type (of every type, for ""): then the body's
// entities need no checking before they are read. The privileges are
// those writePrivileges names for an update, the widest: a user or a
// group by a platform privilege over users, any other entity by
// EDIT_ENTITY on it.
func (s *Service) MayWrite(ctx context.Context, entityType string) (every bool, err error) {
	caller, err := s.actor(ctx)
	if err != nil {
		return false, err
	}
	if caller.System {
		return true, nil
	}
	users, _ := writePrivileges(EntityCorpUser, writeUpdate)
	held, err := s.holds(ctx, caller, URN{}, users...)
	if err != nil {
		return false, err
	}
	mayUsers := slices.ContainsFunc(users, func(p string) bool { return held[p] })
	if _, platform := writePrivileges(entityType, writeUpdate); entityType != "" && platform {
		if mayUsers {
			return true, nil
		}
		return false, Errorf(EUNAUTHORIZED, "Unauthorized to write any %s entity: %s (platform privileges) is needed; the request's body was not read, and nothing was written", Truncate(entityType, 100), strings.Join(users, " or "))
	}
	policies, err := s.activePolicies(ctx)
	if err != nil {
		return false, err
	}
	some := false
	policies.naming(caller.URN, func(p Policy) {
		if p.State != PolicyActive || p.Type != PolicyMetadata || !p.appliesTo(caller.URN) || !slices.Contains(p.Privileges, PrivEditEntity) {
			return
		}
		some = some || p.coversSomeOf(entityType)
		every = every || p.coversEveryOf(entityType)
	})
	if entityType == "" {
		// A Rest.li write may name any entity: users, or anything else.
		some, every = some || mayUsers, every && mayUsers
	}
	if some {
		return every, nil
	}
	what := "any entity"
	if entityType != "" {
		what = "any " + Truncate(entityType, 100) + " entity"
	}
	return false, Errorf(EUNAUTHORIZED, "Unauthorized to write %s: EDIT_ENTITY on it is needed; the request's body was not read, and nothing was written", what)
}

// coversSomeOf says whether a METADATA policy covers some entity of
// entityType ("" for any), as covers judges one.
func (p Policy) coversSomeOf(entityType string) bool {
	r := p.Resources
	if r == nil || r.AllResources || entityType == "" {
		return true
	}
	if len(r.Resources) > 0 {
		return slices.ContainsFunc(r.Resources, func(raw string) bool {
			u, err := ParseURN(raw)
			return err == nil && u.EntityType == entityType
		})
	}
	if r.Type != "" {
		return r.Type == entityType
	}
	return true
}

// AuthorizeWrite refuses a write of the entity rawURN by a caller who
// could not write it (writePrivileges, for an update), or names no entity.
func (s *Service) AuthorizeWrite(ctx context.Context, rawURN string) error {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return err
	}
	caller, err := s.actor(ctx)
	if err != nil {
		return err
	}
	return s.requireWrite(ctx, caller, []URN{urn}, writeUpdate)
}

// coversEveryOf says whether a METADATA policy covers every entity of
// entityType ("" for every type).
func (p Policy) coversEveryOf(entityType string) bool {
	r := p.Resources
	if r == nil || r.AllResources {
		return true
	}
	return len(r.Resources) == 0 && (r.Type == "" || (entityType != "" && r.Type == entityType))
}
