package reference

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
)

// CreateAccessTokenInput is what a caller asks for.
type CreateAccessTokenInput struct {
	ActorURN    string
	Duration    string
	Name        string
	Description string
}

// DefaultMaxTokensPerUser is how many unexpired tokens one user may own
// unless the Config says otherwise: a page of the largest size lists them
// all.
const DefaultMaxTokensPerUser = 1000

// CreateAccessToken mints a personal access token. For yourself it needs
// GENERATE_PERSONAL_ACCESS_TOKENS or MANAGE_ACCESS_TOKENS; for anyone else
// MANAGE_ACCESS_TOKENS. The raw token is returned here and nowhere else.
// A caller without MANAGE_ACCESS_TOKENS owns at most MaxTokensPerUser
// tokens that have not expired; a manager, who may list and revoke any
// token, is not held to it.
func (s *Service) CreateAccessToken(ctx context.Context, in CreateAccessTokenInput) (string, AccessTokenInfo, error) {
	caller, err := s.actor(ctx)
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	if !s.cfg.AuthEnabled {
		// Anyone may call the API as anyone while authentication is off,
		// and a token made then works once it is on (or at once, on an
		// instance that shares the database with it on): making one takes
		// what the operator's `catalogd token create` takes, access to the
		// database.
		return "", AccessTokenInfo{}, Errorf(EUNAUTHORIZED, "With authentication off (METADATA_SERVICE_AUTH_ENABLED=false) no access token is made through the API: it would work once authentication is on. The operator mints one with `catalogd token create`.")
	}
	target, err := ParseURN(in.ActorURN)
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	privileges := []string{PrivManageAccessTokens}
	if target == caller.URN {
		privileges = append(privileges, PrivGenerateAccessTokens)
	}
	held, err := s.holds(ctx, caller, URN{}, privileges...)
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	if len(held) == 0 {
		return "", AccessTokenInfo{}, ErrUnauthorized
	}
	if in.Duration == DurationNoExpiry && s.cfg.RefuseNoExpiry {
		return "", AccessTokenInfo{}, Errorf(EBADREQUEST, "tokens that never expire (NO_EXPIRY) are not made here (ACCESS_TOKEN_ALLOW_NO_EXPIRY is false): choose a duration")
	}
	if !held[PrivManageAccessTokens] {
		if err := s.checkTokensOwned(ctx, caller.URN); err != nil {
			return "", AccessTokenInfo{}, err
		}
	}
	return s.mint(ctx, caller, target, in)
}

// checkTokensOwned refuses when owner owns MaxTokensPerUser tokens that
// have not expired. Expired ones are counted out (they are read only when
// the count of all reaches the limit), so that a job making short-lived
// tokens is never stopped by the ones it no longer uses.
func (s *Service) checkTokensOwned(ctx context.Context, owner URN) error {
	limit := s.cfg.MaxTokensPerUser
	if limit <= 0 {
		limit = DefaultMaxTokensPerUser
	}
	f := Filter{EntityType: EntityAccessToken, Aspect: AspectAccessTokenInfo, Where: map[string][]string{"ownerUrn": {owner.String()}}, Count: 1}
	_, total, err := s.store.ListAspects(ctx, f)
	if err != nil || total < limit {
		return err
	}
	f.Count = 0
	aspects, _, err := s.store.ListAspects(Metered(ctx), f)
	if err != nil {
		return err
	}
	now, live := s.cfg.Now(), 0
	for _, a := range aspects {
		t, err := decodeTokenInfo(a)
		if err != nil {
			return err
		}
		if !t.Expired(now) {
			live++
		}
	}
	if live >= limit {
		return Errorf(EBADREQUEST, "%s already owns %d access tokens that have not expired, the most one user may own (limit: CATALOGD_MAX_TOKENS_PER_USER); revoke some first", owner, limit)
	}
	return nil
}

// MintAccessToken creates a token for actorURN with no caller: the operator's
// way to the first token (`catalogd token create`), run against the database.
func (s *Service) MintAccessToken(ctx context.Context, in CreateAccessTokenInput) (string, AccessTokenInfo, error) {
	target, err := ParseURN(in.ActorURN)
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	return s.mint(ctx, Actor{URN: target}, target, in)
}

// maxTokenRecordBytes is about the most a token's record holds as stored
// JSON: a name of 256 bytes and a description of 2,048, each byte a
// control character JSON writes in six, its two URNs and dates.
const maxTokenRecordBytes = 16 << 10

func (s *Service) mint(ctx context.Context, owner Actor, target URN, in CreateAccessTokenInput) (string, AccessTokenInfo, error) {
	if in.Name == "" {
		return "", AccessTokenInfo{}, Errorf(EBADREQUEST, "token name must not be empty")
	}
	if len(in.Name) > 256 || len(in.Description) > 2048 {
		return "", AccessTokenInfo{}, Errorf(EBADREQUEST, "token name or description is too long")
	}
	lifetime, err := TokenLifetime(in.Duration)
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	u, err := s.user(ctx, target)
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	if u == nil {
		return "", AccessTokenInfo{}, Errorf(EBADREQUEST, "actor %s does not exist", target)
	}
	now := s.cfg.Now()
	claims := TokenClaims{ActorID: target.ID, JTI: uuid.NewString(), IssuedAt: now}
	info := AccessTokenInfo{
		Name: in.Name, Description: in.Description,
		ActorURN: target.String(), OwnerURN: owner.URN.String(),
		CreatedAt: now.UnixMilli(),
	}
	if lifetime > 0 {
		claims.ExpiresAt = now.Add(lifetime)
		exp := claims.ExpiresAt.UnixMilli()
		info.ExpiresAt = &exp
	}
	raw, err := s.cfg.Codec.Sign(claims)
	if err != nil {
		return "", AccessTokenInfo{}, fmt.Errorf("sign token: %w", err)
	}
	info.ID = TokenID(raw, s.cfg.Salt)
	key, err := s.newAspect(owner, info.URN(), AspectAccessTokenKey, map[string]string{"id": info.ID})
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	body, err := s.newAspect(owner, info.URN(), AspectAccessTokenInfo, info)
	if err != nil {
		return "", AccessTokenInfo{}, err
	}
	// Made only while the user exists: a removal of the user under way
	// either waits for it and ends it, or leaves no user to make it for.
	if err := s.store.CreateUserEntity(ctx, target, []Aspect{key, body}); err != nil {
		if isNotFound(err) {
			return "", AccessTokenInfo{}, Errorf(EBADREQUEST, "actor %s does not exist", target)
		}
		return "", AccessTokenInfo{}, err
	}
	return raw, info, nil
}

func (s *Service) tokenInfo(ctx context.Context, id string) (AccessTokenInfo, error) {
	version, keep := s.version(EntityAccessToken)
	if keep {
		if t, ok := s.tokens.get(id, version); ok {
			return t, nil
		}
	}
	a, err := s.store.Aspect(ctx, URN{EntityType: EntityAccessToken, ID: id}, AspectAccessTokenInfo)
	if err != nil {
		return AccessTokenInfo{}, err
	}
	t, err := decodeTokenInfo(a)
	if err == nil && keep {
		s.tokens.put(id, version, t)
	}
	return t, err
}

func decodeTokenInfo(a Aspect) (AccessTokenInfo, error) {
	var t AccessTokenInfo
	if err := json.Unmarshal(a.Value, &t); err != nil {
		return AccessTokenInfo{}, fmt.Errorf("decode token %s: %w", a.URN, err)
	}
	t.ID = a.URN.ID
	return t, nil
}

// ListAccessTokensInput pages and filters token listings: Filters keeps
// the tokens whose field has one of the values, Exclude leaves out those
// whose field has one of them (DataHub's negated filters).
type ListAccessTokensInput struct {
	Start, Count int
	Filters      map[string][]string
	Exclude      map[string][]string
	// Criteria are the filters with another condition than EQUAL or IN
	// (token_filters.go).
	Criteria []Criterion
}

// ListAccessTokens lists token metadata, newest first. A manager may list
// any; anyone else must filter ownerUrn to exactly themself. A filter that
// leaves out their own tokens is no such filter: unlike DataHub's
// ListAccessTokensResolver, which takes a negated ownerUrn filter naming
// the caller for one and so lists everyone else's tokens.
func (s *Service) ListAccessTokens(ctx context.Context, in ListAccessTokensInput) ([]AccessTokenInfo, int, error) {
	caller, err := s.actor(ctx)
	if err != nil {
		return nil, 0, err
	}
	in, err = tokenCriteria(in) // token_filters.go
	if err != nil {
		return nil, 0, err
	}
	held, err := s.holds(ctx, caller, URN{}, PrivManageAccessTokens, PrivGenerateAccessTokens)
	if err != nil {
		return nil, 0, err
	}
	if !held[PrivManageAccessTokens] {
		owners := in.Filters["ownerUrn"]
		if !held[PrivGenerateAccessTokens] || len(owners) != 1 || owners[0] != caller.URN.String() {
			return nil, 0, ErrUnauthorized
		}
	}
	start, count, err := page(in.Start, in.Count)
	if err != nil {
		return nil, 0, err
	}
	// A token record is bounded (its name and description), so a page's
	// bytes are known before it is read: held first, so that a request
	// the bound on bytes in flight cannot serve is refused before the
	// store does the work (issue 29).
	if err := Prepay(ctx, count*maxTokenRecordBytes); err != nil {
		return nil, 0, err
	}
	aspects, total, err := s.store.ListAspects(Metered(ctx), Filter{
		EntityType: EntityAccessToken, Aspect: AspectAccessTokenInfo,
		Where: in.Filters, Not: in.Exclude, Criteria: in.Criteria, Start: start, Count: count, Search: true, KeepGone: true,
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]AccessTokenInfo, 0, len(aspects))
	for i, a := range aspects {
		if a.Value == nil {
			// DataHub's ListAccessTokensResolver lists what its search
			// index holds and loads each token from the database; a token
			// revoked since loads as null, which its non-null list type
			// turns into a null answer with an error.
			return nil, 0, fmt.Errorf("the field at path '/listAccessTokens/tokens[%d]' was declared as a non null type, but the code involved in retrieving data has wrongly returned a null value: the search index still lists the token %s, revoked since (as DataHub's does for a while; CATALOGD_SEARCH_LAG)", i, a.URN.ID)
		}
		t, err := decodeTokenInfo(a)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, nil
}

// RevokeAccessToken deletes a token's record: the owner or a manager may.
// The token stops working on the next request.
func (s *Service) RevokeAccessToken(ctx context.Context, id string) error {
	caller, err := s.actor(ctx)
	if err != nil {
		return err
	}
	if id == "" {
		return Errorf(EBADREQUEST, "tokenId must not be empty")
	}
	manager, err := s.can(ctx, caller, URN{}, PrivManageAccessTokens)
	if err != nil {
		return err
	}
	info, err := s.tokenInfo(ctx, id)
	if isNotFound(err) {
		if manager {
			return Errorf(ENOTFOUND, "no access token with that id")
		}
		return ErrUnauthorized
	}
	if err != nil {
		return err
	}
	// DataHub's RevokeAccessTokenResolver: a manager, or the token's owner
	// (no privilege needed); the actor of a token someone else made may not.
	if !manager && info.OwnerURN != caller.URN.String() {
		return ErrUnauthorized
	}
	if _, err := s.store.DeleteEntity(ctx, info.URN()); err != nil {
		return err
	}
	return nil
}

// AccessTokenMetadata returns the metadata of a raw token: managers only.
func (s *Service) AccessTokenMetadata(ctx context.Context, raw string) (AccessTokenInfo, error) {
	if _, err := s.require(ctx, URN{}, PrivManageAccessTokens); err != nil {
		return AccessTokenInfo{}, err
	}
	if _, err := s.cfg.Codec.Verify(raw); err != nil {
		return AccessTokenInfo{}, Errorf(EBADREQUEST, "not a valid access token")
	}
	info, err := s.tokenInfo(ctx, TokenID(raw, s.cfg.Salt))
	if isNotFound(err) {
		return AccessTokenInfo{}, Errorf(ENOTFOUND, "no access token on record for that token")
	}
	return info, err
}

// page checks and defaults a start/count pair: 0 and 20, count at most 1000.
func page(start, count int) (int, int, error) {
	if start < 0 || count < 0 {
		return 0, 0, Errorf(EBADREQUEST, "start and count must not be negative")
	}
	if count == 0 {
		count = 20
	}
	if count > 1000 {
		return 0, 0, Errorf(EBADREQUEST, "count must be at most 1000")
	}
	return start, count, nil
}
