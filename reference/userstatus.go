package reference

import "context"

// A user's status (corpUserStatus: ACTIVE or SUSPENDED) is administration,
// not metadata: suspending a user ends every token and session of theirs,
// and reinstating one gives them back. DataHub's own operation for it,
// updateUserStatus (UpdateUserStatusResolver), asks for
// MANAGE_USERS_AND_GROUPS; its ingestion asks only for EDIT_ENTITY on the
// user, so that anyone who may edit a user's profile may lock them out, or
// bring a suspended user back. Here a write of corpUserStatus, on any
// write path (Rest.li ingestProposal and ingestProposalBatch, OpenAPI v3),
// needs MANAGE_USERS_AND_GROUPS besides EDIT_ENTITY; and the status of the
// root user and of the system user is never written through ingestion:
// the root user holds every privilege and is the operator's way back in,
// and the system user is the service itself (DataHub: "system cannot be
// disabled", ActorContext.isActive).

// judgeUserStatusWrites refuses the status writes among checked that the
// caller may not make: the whole batch, before anything is written.
func (s *Service) judgeUserStatusWrites(ctx context.Context, caller Actor, checked []checkedProposal) error {
	for _, c := range checked {
		if c.urn.EntityType != EntityCorpUser || c.aspect != AspectCorpUserStatus {
			continue
		}
		if c.urn == RootUser || c.urn == SystemUser {
			return Errorf(EBADREQUEST, "the status of %s is not changed through ingestion: it is the service's root or system user, which no one suspends", c.urn)
		}
		ok, err := s.can(ctx, caller, URN{}, PrivManageUsersAndGroups)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(EUNAUTHORIZED, "Unauthorized to change the status of %s: suspending or reinstating a user needs MANAGE_USERS_AND_GROUPS besides EDIT_ENTITY, and nothing was written", c.urn)
		}
	}
	return nil
}
