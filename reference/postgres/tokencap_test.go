package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/jwt"
)

// TestTokensOneUserMayOwn: a user without MANAGE_ACCESS_TOKENS owns at
// most MaxTokensPerUser tokens that have not expired. The next is refused
// as a bad request naming the limit, and nothing is stored; an expired
// token, or a revoked one, makes room; a manager is not held to it.
func TestTokensOneUserMayOwn(t *testing.T) {
	codec, err := jwt.New([]byte(strings.Repeat("k", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{now: time.Now()}
	f.svc = reference.NewService(testDB, reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), Now: func() time.Time { return f.now }, MaxTokensPerUser: 3})
	if _, err := f.svc.Bootstrap(context.Background(), "root-password-for-tests"); err != nil {
		t.Fatal(err)
	}
	ann := f.user(t) // every user holds GENERATE_PERSONAL_ACCESS_TOKENS
	create := func(duration string) (reference.AccessTokenInfo, error) {
		_, info, err := f.svc.CreateAccessToken(as(ann), reference.CreateAccessTokenInput{ActorURN: ann.String(), Duration: duration, Name: "cap"})
		return info, err
	}
	owned := func() int {
		t.Helper()
		_, total, err := f.svc.ListAccessTokens(as(ann), reference.ListAccessTokensInput{Filters: map[string][]string{"ownerUrn": {ann.String()}}})
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	var day reference.AccessTokenInfo
	for i, d := range []string{reference.DurationOneHour, reference.DurationOneDay, reference.DurationNoExpiry} {
		info, err := create(d)
		if err != nil {
			t.Fatalf("token %d of 3: %v", i+1, err)
		}
		if d == reference.DurationOneDay {
			day = info
		}
	}
	_, err = create(reference.DurationOneDay)
	if reference.ErrorCodeOf(err) != reference.EBADREQUEST || !strings.Contains(err.Error(), "CATALOGD_MAX_TOKENS_PER_USER") {
		t.Fatalf("a fourth token: %v; want a bad request naming CATALOGD_MAX_TOKENS_PER_USER", err)
	}
	if n := owned(); n != 3 {
		t.Fatalf("after the refusal Ann owns %d tokens, want 3", n)
	}
	// Two hours on, the one-hour token has expired: it no longer counts.
	f.now = f.now.Add(2 * time.Hour)
	if _, err := create(reference.DurationOneHour); err != nil {
		t.Fatalf("with one token expired: %v", err)
	}
	if _, err := create(reference.DurationOneHour); reference.ErrorCodeOf(err) != reference.EBADREQUEST {
		t.Fatalf("a fifth record, three live: %v; want refused", err)
	}
	// Revoking a live one makes room.
	if err := f.svc.RevokeAccessToken(as(ann), day.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := create(reference.DurationOneHour); err != nil {
		t.Fatalf("after a revocation: %v", err)
	}
	// A manager is not held to it, for themself or for others.
	for i := 0; i < 4; i++ {
		if _, _, err := f.svc.CreateAccessToken(root, reference.CreateAccessTokenInput{ActorURN: reference.RootUser.String(), Duration: reference.DurationOneHour, Name: "cap-root"}); err != nil {
			t.Fatalf("the root user's token %d: %v", i+1, err)
		}
	}
}
