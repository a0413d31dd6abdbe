package reference

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/catalogspec/catalogspec/reference/skeleton"
)

// Native users, as DataHub has them (NativeUserService, InviteTokenService):
// someone holding MANAGE_USER_CREDENTIALS hands out an invite token, with
// which a new person signs up, choosing their password; the user is then a
// native user, with credentials of their own (corpUserCredentials), who
// signs in with that password and may be given reset tokens. A user made
// any other way (by ingestion) has no password and cannot sign in.

// Privileges over users (DataHub's "Manage Users & Groups" and "Update
// Users & Groups").
const (
	PrivManageUsersAndGroups = "MANAGE_USERS_AND_GROUPS"
	PrivUpdateUsersAndGroups = "UPDATE_USERS_AND_GROUPS"
)

// EntityInviteToken is the entity type of invite tokens; neither the entity
// paths nor ingestion show or write it.
const (
	EntityInviteToken = "inviteToken"
	AspectInviteToken = "inviteToken"
)

// maxNameBytes bounds a sign-up's full name and title, as a token's name.
const maxNameBytes = 256

// SignUpInput is what a new person sends to the frontend's /signUp: their
// email is their username, as in DataHub.
type SignUpInput struct {
	FullName, Email, Password, Title, InviteToken string
}

// errUserExists is the answer to a sign-up for a username that is taken,
// in DataHub's words (NativeUserService.createNativeUser).
var errUserExists = Errorf(ECONFLICT, "This user already exists! Cannot create a new user.")

// SignUp makes a native user from in, as DataHub's AuthServiceController
// and NativeUserService do: the invite token must be current; the user gets
// their info (full name, which is also the display name, email and title),
// an ACTIVE status and their password, all in one write, and only if no
// user of that name exists. No caller is needed: the invite token is the
// permission. The caller signs the new user in with SignIn.
func (s *Service) SignUp(ctx context.Context, in SignUpInput) (URN, error) {
	switch {
	case strings.TrimSpace(in.FullName) == "":
		return URN{}, Errorf(EBADREQUEST, "Full name must not be empty.")
	case strings.TrimSpace(in.Email) == "":
		return URN{}, Errorf(EBADREQUEST, "Email must not be empty.")
	case in.Password == "":
		return URN{}, Errorf(EBADREQUEST, "Password must not be empty.")
	case strings.TrimSpace(in.InviteToken) == "":
		return URN{}, Errorf(EBADREQUEST, "Invite token must not be empty.")
	case len(in.Password) > maxPasswordBytes:
		return URN{}, Errorf(EBADREQUEST, "Password must be at most %d bytes long.", maxPasswordBytes)
	case len(in.FullName) > maxNameBytes || len(in.Title) > maxNameBytes:
		return URN{}, Errorf(EBADREQUEST, "The full name and the title must be at most %d bytes long.", maxNameBytes)
	}
	urn, ok := usernameURN(in.Email)
	if !ok || in.Email != strings.TrimSpace(in.Email) {
		return URN{}, Errorf(EBADREQUEST, "Email %s cannot be a username.", Excerpt(in.Email))
	}
	valid, err := s.inviteTokenValid(ctx, in.InviteToken)
	if err != nil {
		return URN{}, err
	}
	if !valid {
		return URN{}, Errorf(EBADREQUEST, "The invite token is not valid: ask your administrator for a new invitation.")
	}
	if urn == RootUser || urn == SystemUser {
		return URN{}, errUserExists
	}
	if err := s.refuseLookalike(ctx, urn); err != nil {
		return URN{}, err
	}
	hash, err := s.hashPassword(in.Password)
	if err != nil {
		return URN{}, fmt.Errorf("hash password: %w", err)
	}
	system := Actor{URN: SystemUser, System: true}
	info := corpUserInfo{Active: true, DisplayName: in.FullName, FullName: in.FullName, Email: in.Email, Title: in.Title}
	status := map[string]any{"status": "ACTIVE", "lastModified": map[string]any{"actor": SystemUser.String(), "time": s.cfg.Now().UnixMilli()}}
	var aspects []Aspect
	for _, a := range []struct {
		name  string
		value any
	}{
		{AspectCorpUserKey, map[string]string{"username": urn.ID}},
		{AspectCorpUserInfo, info},
		{AspectCorpUserStatus, status},
		{AspectCorpUserCredentials, credentials{HashedPassword: string(hash)}},
	} {
		asp, err := s.newAspect(system, urn, a.name, a.value)
		if err != nil {
			return URN{}, err
		}
		aspects = append(aspects, asp)
	}
	if err := s.store.CreateEntity(ctx, aspects); err != nil {
		if ErrorCodeOf(err) == ECONFLICT {
			return URN{}, errUserExists
		}
		return URN{}, err
	}
	return urn, nil
}

// refuseLookalike refuses a sign-up under a name that reads as an existing
// user's (or the root or system user's) without being it: the same
// skeleton, by Unicode's confusables (UTS #39), as written or with case
// folded, so that "Datahub", "data\u200bhub" or "d\u0430tahub" is not
// taken for the root user. The name itself, when taken, is the conflict
// SignUp reports. (Two sign-ups of look-alike names at the same moment are
// not held apart: a sign-up needs an invitation, and each stays its own
// user, visibly.)
func (s *Service) refuseLookalike(ctx context.Context, urn URN) error {
	want := skeleton.Keys(urn.ID)
	reads := func(name string) bool {
		if name == urn.ID {
			return false
		}
		have := skeleton.Keys(name)
		return have[0] == want[0] || have[1] == want[1]
	}
	lookalike := reads(RootUser.ID) || reads(SystemUser.ID)
	if !lookalike {
		users, _, err := s.store.ListAspects(ctx, Filter{EntityType: EntityCorpUser, Aspect: AspectCorpUserKey})
		if err != nil {
			return err
		}
		for _, u := range users {
			if reads(u.URN.ID) {
				lookalike = true
				break
			}
		}
	}
	if lookalike {
		return Errorf(EBADREQUEST, "The username %s reads as the name of an existing user (the same letters in another case, or with invisible or look-alike characters): choose another.", Excerpt(urn.ID))
	}
	return nil
}

// inviteTokenAspect is an invite token as the store keeps it: sealed (it is
// shown again to whoever may read it, as DataHub's getInviteToken shows
// it), with the hash a sign-up is checked against.
type inviteTokenAspect struct {
	Sealed    string `json:"token"`
	TokenHash string `json:"tokenHash"`
	Role      string `json:"role,omitempty"`
}

// inviteTokenURN is where the current invite token of a role ("" for
// none) is kept: one per role, as DataHub keeps one.
func inviteTokenURN(role string) (URN, error) {
	if role == "" {
		return URN{EntityType: EntityInviteToken, ID: "default"}, nil
	}
	r, err := ParseURN(role)
	if err != nil {
		return URN{}, err
	}
	if r.EntityType != "dataHubRole" {
		return URN{}, Errorf(EBADREQUEST, "roleUrn must be a dataHubRole urn, not %s", Excerpt(role))
	}
	sum := sha256.Sum256([]byte(role))
	return URN{EntityType: EntityInviteToken, ID: "role-" + base64.RawURLEncoding.EncodeToString(sum[:])}, nil
}

// GetInviteToken returns the current invite token of the role ("" for
// none), making one when there is none, as DataHub's getInviteToken. The
// caller needs MANAGE_USER_CREDENTIALS.
func (s *Service) GetInviteToken(ctx context.Context, role string) (string, error) {
	urn, err := s.inviteTokenCall(ctx, role)
	if err != nil {
		return "", err
	}
	// Made when there is none; a request that loses the race to make it
	// reads the one the winner made.
	for range 3 {
		a, err := s.store.Aspect(ctx, urn, AspectInviteToken)
		if err == nil {
			return s.unsealInviteToken(ctx, a)
		}
		if !isNotFound(err) {
			return "", err
		}
		token, asp, err := s.newInviteToken(ctx, urn, role)
		if err != nil {
			return "", err
		}
		err = s.store.CreateEntity(ctx, []Aspect{asp})
		if err == nil {
			return token, nil
		}
		if ErrorCodeOf(err) != ECONFLICT {
			return "", err
		}
	}
	return "", fmt.Errorf("invite token %s: made by another request, yet not there to read", urn)
}

// CreateInviteToken makes a new invite token for the role ("" for none),
// as DataHub's createInviteToken. It replaces the one before, which signs
// no one up from then on (DataHub keeps the old one valid until a later
// call finds two). The caller needs MANAGE_USER_CREDENTIALS.
func (s *Service) CreateInviteToken(ctx context.Context, role string) (string, error) {
	urn, err := s.inviteTokenCall(ctx, role)
	if err != nil {
		return "", err
	}
	token, asp, err := s.newInviteToken(ctx, urn, role)
	if err != nil {
		return "", err
	}
	if err := s.store.UpsertAspect(ctx, asp); err != nil {
		return "", err
	}
	return token, nil
}

// inviteTokenCall checks the caller of an invite token operation and
// returns where the role's token is kept.
func (s *Service) inviteTokenCall(ctx context.Context, role string) (URN, error) {
	if _, err := s.require(ctx, URN{}, PrivManageUserCredentials); err != nil {
		return URN{}, err
	}
	return inviteTokenURN(role)
}

// newInviteToken makes a random invite token and the aspect that keeps it
// at urn.
func (s *Service) newInviteToken(ctx context.Context, urn URN, role string) (string, Aspect, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", Aspect{}, err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	sealed, err := s.sealInviteToken(ctx, urn, token)
	if err != nil {
		return "", Aspect{}, err
	}
	asp, err := s.newAspect(Actor{URN: SystemUser, System: true}, urn, AspectInviteToken, inviteTokenAspect{Sealed: sealed, TokenHash: secretHash(token), Role: role})
	if err != nil {
		return "", Aspect{}, err
	}
	if caller, ok := ActorFromContext(ctx); ok {
		asp.CreatedBy = caller.URN.String()
	}
	return token, asp, nil
}

// inviteTokenValid says whether token is an invite token now current.
func (s *Service) inviteTokenValid(ctx context.Context, token string) (bool, error) {
	found, _, err := s.store.ListAspects(ctx, Filter{
		EntityType: EntityInviteToken, Aspect: AspectInviteToken,
		Where: map[string][]string{"tokenHash": {secretHash(token)}}, Count: 1,
	})
	return len(found) > 0, err
}

// secretHash is the standard Base64 of the SHA-256 of a reset or invite
// token: what the store keeps to check one against.
func secretHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// inviteKey is the AES-256 key invite tokens are sealed with, generated once
// and kept by the store, so that every replica agrees.
func (s *Service) inviteKey(ctx context.Context) (cipher.AEAD, error) {
	key, err := s.store.Secret(ctx, "invite_token_key", func() ([]byte, error) {
		k := make([]byte, 32)
		_, err := rand.Read(k)
		return k, err
	})
	if err != nil {
		return nil, err
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("the stored invite token key has %d bytes, not 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealInviteToken encrypts token for the entity urn (which it is bound to).
func (s *Service) sealInviteToken(ctx context.Context, urn URN, token string) (string, error) {
	aead, err := s.inviteKey(ctx)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(token), []byte(urn.String()))), nil
}

// unsealInviteToken reads the token out of a stored invite token aspect.
func (s *Service) unsealInviteToken(ctx context.Context, a Aspect) (string, error) {
	var v inviteTokenAspect
	if err := json.Unmarshal(a.Value, &v); err != nil {
		return "", fmt.Errorf("decode invite token %s: %w", a.URN, err)
	}
	aead, err := s.inviteKey(ctx)
	if err != nil {
		return "", err
	}
	b, err := base64.StdEncoding.DecodeString(v.Sealed)
	if err != nil || len(b) < aead.NonceSize() {
		return "", fmt.Errorf("invite token %s is not sealed as expected", a.URN)
	}
	token, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], []byte(a.URN.String()))
	if err != nil {
		return "", fmt.Errorf("open invite token %s: %w", a.URN, err)
	}
	return string(token), nil
}

// ListUsers returns a page of users, newest first, and how many there are:
// those whose username holds query, in any case, when query is not empty.
// As DataHub's ListUsersResolver, anyone signed in may list them.
func (s *Service) ListUsers(ctx context.Context, start, count int, query string) ([]CorpUser, int, error) {
	if _, err := s.actor(ctx); err != nil {
		return nil, 0, err
	}
	start, count, err := page(start, count)
	if err != nil {
		return nil, 0, err
	}
	f := Filter{EntityType: EntityCorpUser, Aspect: AspectCorpUserKey, Start: start, Count: count, Search: true}
	if query = strings.TrimSpace(query); query != "" {
		if len(query) > 1024 {
			return nil, 0, Errorf(EBADREQUEST, "the query must be at most 1024 bytes long")
		}
		f.Contains = map[string]string{"username": query}
	}
	keys, total, err := s.store.ListAspects(Metered(ctx), f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]CorpUser, 0, len(keys))
	for _, k := range keys {
		u, err := s.user(ctx, k.URN)
		if err != nil {
			return nil, 0, err
		}
		if u != nil {
			out = append(out, *u)
		}
	}
	return out, total, nil
}

// RemoveUser removes the user at rawURN, every aspect of them (their
// password included), as DataHub's removeUser: the caller needs
// MANAGE_USERS_AND_GROUPS. Unlike DataHub's, the removal is final
// (removal.go): with the user go, at once and on every replica, the tokens
// that act as them, their sessions, the invite tokens they made and their
// name in every policy, so that whoever has the name later gets nothing of
// theirs. The root and the system user cannot be removed; a user who does
// not exist is NOT_FOUND (DataHub answers true).
func (s *Service) RemoveUser(ctx context.Context, rawURN string) error {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return err
	}
	if _, err := s.require(ctx, URN{}, PrivManageUsersAndGroups); err != nil {
		return err
	}
	if urn.EntityType != EntityCorpUser {
		return Errorf(EBADREQUEST, "%s is not a corpuser urn", urn)
	}
	if urn == RootUser || urn == SystemUser {
		return Errorf(EBADREQUEST, "%s cannot be removed: it is the service's root or system user", urn)
	}
	gone, err := s.store.RemoveUser(ctx, urn)
	if err != nil {
		return err
	}
	if !gone {
		return Errorf(ENOTFOUND, "no user %s", urn)
	}
	return nil
}
