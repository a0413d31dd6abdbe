package reference

import "context"

// Removal is final (SPEC.md, Users). A user's credentials are bound to the
// user they were made for, not to the name: removing a user ends, in one
// transaction that every replica sees at once, the user's aspects (their
// password and any reset token with them), every access token that acts
// as them, every session of theirs, every invite token they made, and
// their name in every policy. Whoever later has the name (a sign-up, an
// ingestion of any of its aspects) starts with nothing of theirs. A token
// or a session is only ever made while its user exists, and a removal
// waits for one being made (and the other way round), so none can slip in
// between.

// UserStore keeps what is bound to a user's existence. Store
// implementations provide it.
type UserStore interface {
	// RemoveUser removes, in one transaction, every aspect of user, every
	// access token entity whose dataHubAccessTokenInfo names user as its
	// actorUrn, every session of user, every invite token entity user made
	// (its aspect's CreatedBy), and user's URN from the actors.users of
	// every policy; false, and nothing changed, when user had no aspect.
	RemoveUser(ctx context.Context, user URN) (bool, error)
	// CreateUserEntity is CreateEntity while the user's key aspect
	// (corpUserKey) exists: ENOTFOUND, and nothing written, when it does
	// not. A RemoveUser of that user waits for it, or it for the removal.
	CreateUserEntity(ctx context.Context, user URN, aspects []Aspect) error
	// ReplaceAspectIf replaces the aspect a.Name of a.URN only while its
	// value's top-level field is the string want: false, and nothing
	// written, when it is not (or there is no such aspect). Of requests
	// that race with the same want, one replaces it.
	ReplaceAspectIf(ctx context.Context, a Aspect, field, want string) (bool, error)
}
