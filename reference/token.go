package reference

import (
	"crypto/sha256"
	"encoding/base64"
	"time"
)

// Token durations (SPEC.md, Personal access tokens).
const (
	DurationOneHour     = "ONE_HOUR"
	DurationOneDay      = "ONE_DAY"
	DurationOneWeek     = "ONE_WEEK"
	DurationOneMonth    = "ONE_MONTH"
	DurationThreeMonths = "THREE_MONTHS"
	DurationSixMonths   = "SIX_MONTHS"
	DurationOneYear     = "ONE_YEAR"
	DurationNoExpiry    = "NO_EXPIRY"
)

const day = 24 * time.Hour

var durations = map[string]time.Duration{
	DurationOneHour:     time.Hour,
	DurationOneDay:      day,
	DurationOneWeek:     7 * day,
	DurationOneMonth:    30 * day,
	DurationThreeMonths: 90 * day,
	DurationSixMonths:   180 * day,
	DurationOneYear:     365 * day,
	DurationNoExpiry:    0,
}

// TokenLifetime returns how long a token of the named duration lives; zero
// means it never expires.
func TokenLifetime(name string) (time.Duration, error) {
	d, ok := durations[name]
	if !ok {
		return 0, Errorf(EBADREQUEST, "unknown token duration %q", Truncate(name, 50))
	}
	return d, nil
}

// TokenTypePersonal is the type of a personal access token, the only type
// of access token; a browser session's token is of TokenTypeSession.
const TokenTypePersonal = "PERSONAL"

// AccessTokenInfo is DataHub's dataHubAccessTokenInfo aspect, with the id.
// It never holds the raw token.
type AccessTokenInfo struct {
	ID          string `json:"-"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	ActorURN    string `json:"actorUrn"`
	OwnerURN    string `json:"ownerUrn"`
	CreatedAt   int64  `json:"createdAt"`
	ExpiresAt   *int64 `json:"expiresAt,omitempty"`
}

// URN is the token's entity URN.
func (t AccessTokenInfo) URN() URN { return URN{EntityType: EntityAccessToken, ID: t.ID} }

// Expired reports whether the token has expired at now.
func (t AccessTokenInfo) Expired(now time.Time) bool {
	return t.ExpiresAt != nil && now.UnixMilli() >= *t.ExpiresAt
}

// TokenID is the id under which a raw token is stored: the standard, padded
// Base64 of SHA-256 over the token's bytes followed by the salt's.
// Every request with a token asks it: the bytes are hashed from the
// stack, and the id is the one allocation.
func TokenID(raw string, salt []byte) string {
	var in [1024]byte
	sum := sha256.Sum256(append(append(in[:0], raw...), salt...))
	var out [44]byte // base64.StdEncoding.EncodedLen(sha256.Size)
	base64.StdEncoding.Encode(out[:], sum[:])
	return string(out[:])
}

// TokenClaims are what a personal access token asserts.
type TokenClaims struct {
	// Type is TokenTypePersonal (also when empty) or TokenTypeSession.
	Type      string
	ActorID   string // the username, not the URN
	JTI       string
	IssuedAt  time.Time
	ExpiresAt time.Time // zero for NO_EXPIRY
}

// TokenCodec signs and verifies personal access tokens. Verify rejects a bad
// signature, another key, any algorithm but HS256, a malformed token and an
// expired one.
type TokenCodec interface {
	Sign(c TokenClaims) (string, error)
	Verify(raw string) (TokenClaims, error)
}
