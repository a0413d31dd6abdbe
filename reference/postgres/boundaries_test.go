package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

// Boundaries of the Service that no API reaches exactly, each from both
// sides (mutation testing found them unchecked).

// TestResetTokenWorksUntilItsLastMillisecond: a reset token made at T works
// at T+24h exactly (DataHub refuses it once the time is past its expiry),
// and a password of 72 bytes, bcrypt's limit, is taken.
func TestResetTokenWorksUntilItsLastMillisecond(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann := f.nativeUser(t, "first")
	made := f.now
	reset, err := f.svc.CreateNativeUserResetToken(root, ann.String())
	if err != nil {
		t.Fatal(err)
	}
	f.now = made.Add(24 * time.Hour)
	pw := strings.Repeat("p", 72)
	if err := f.svc.ResetNativeUserCredentials(ctx, ann.ID, pw, reset); err != nil {
		t.Fatalf("a reset token at its last millisecond, with a 72-byte password: %v", err)
	}
	if _, _, err := f.svc.SignIn(ctx, ann.ID, pw); err != nil {
		t.Errorf("signing in with the 72-byte password: %v", err)
	}
}

// TestMintNeedsAnActorURN: catalogd token create with an actor that is not
// a URN makes nothing.
func TestMintNeedsAnActorURN(t *testing.T) {
	f := newFixture(t)
	raw, _, err := f.svc.MintAccessToken(context.Background(), reference.CreateAccessTokenInput{ActorURN: "ann", Name: "t", Duration: "ONE_HOUR"})
	if reference.ErrorCodeOf(err) != reference.EBADREQUEST || raw != "" {
		t.Errorf("minting for %q: %q, %v; want BAD_REQUEST and no token", "ann", raw, err)
	}
}

// TestTokenListingsAreTwentyByDefault: a listing that gives no count has
// DataHub's default of 20.
func TestTokenListingsAreTwentyByDefault(t *testing.T) {
	f := newFixture(t)
	u := f.user(t)
	for range 21 {
		f.token(t, u, "ONE_HOUR")
	}
	list, total, err := f.svc.ListAccessTokens(root, reference.ListAccessTokensInput{Filters: map[string][]string{"actorUrn": {u.String()}}})
	if err != nil || len(list) != 20 || total != 21 {
		t.Errorf("21 tokens listed without a count: %d of %d, %v; want 20 of 21", len(list), total, err)
	}
}

// TestMeOfTheSystemIsActive: the system actor (authentication disabled,
// no actor named) is shown as an active user.
func TestMeOfTheSystemIsActive(t *testing.T) {
	f := newFixture(t)
	u, _, err := f.svc.Me(reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.SystemUser, System: true}))
	if err != nil || u == nil || !u.Active || u.URN != reference.SystemUser {
		t.Errorf("me as the system: %+v, %v; want the system user, active", u, err)
	}
}
