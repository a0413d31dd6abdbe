package jwt

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/catalogspec/catalogspec/reference"
)

var key = []byte("0123456789abcdef0123456789abcdef")

func newCodec(t testing.TB, now time.Time) *Codec {
	t.Helper()
	c, err := New(key, "")
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return now }
	return c
}

func TestSignCarriesDataHubClaims(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newCodec(t, now)
	raw, err := c.Sign(reference.TokenClaims{ActorID: "ann", JTI: "id-1", IssuedAt: now, ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		t.Fatalf("not a compact JWT: %d parts", len(parts))
	}
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	if !strings.Contains(string(header), `"alg":"HS256"`) {
		t.Errorf("header = %s, want alg HS256", header)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var got map[string]any
	if err := json.Unmarshal(payload, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"actorType": "USER", "actorId": "ann", "type": "PERSONAL", "version": "2",
		"jti": "id-1", "sub": "ann", "iss": "datahub-metadata-service", "exp": float64(now.Add(time.Hour).Unix()),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("claim %s = %v, want %v", k, got[k], v)
		}
	}
	claims, err := c.Verify(raw)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if claims.ActorID != "ann" || claims.JTI != "id-1" || !claims.ExpiresAt.Equal(now.Add(time.Hour)) || claims.Type != reference.TokenTypePersonal {
		t.Errorf("claims = %+v", claims)
	}
}

// A browser session's token is the same JWT with type SESSION, and says so
// when verified: the service looks it up among sessions, not tokens.
func TestSessionTokenKeepsItsType(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newCodec(t, now)
	raw, err := c.Sign(reference.TokenClaims{Type: reference.TokenTypeSession, ActorID: "ann", JTI: "s-1", IssuedAt: now, ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[1])
	if !strings.Contains(string(payload), `"type":"SESSION"`) {
		t.Errorf("session token claims = %s, want type SESSION", payload)
	}
	for range 2 { // verified, then remembered
		claims, err := c.Verify(raw)
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if claims.Type != reference.TokenTypeSession {
			t.Errorf("verified type = %q, want SESSION", claims.Type)
		}
	}
}

func TestNoExpiryHasNoExp(t *testing.T) {
	now := time.Now()
	c := newCodec(t, now)
	raw, err := c.Sign(reference.TokenClaims{ActorID: "ann", JTI: "x", IssuedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[1])
	if strings.Contains(string(payload), `"exp"`) {
		t.Errorf("NO_EXPIRY token has exp: %s", payload)
	}
	if _, err := c.Verify(raw); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

func TestVerifyRejects(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newCodec(t, now)
	good := gojwt.MapClaims{"actorType": "USER", "actorId": "ann", "type": "PERSONAL", "version": "2", "jti": "j", "sub": "ann", "iss": DefaultIssuer, "exp": now.Add(time.Hour).Unix()}
	sign := func(method gojwt.SigningMethod, k any, claims gojwt.MapClaims) string {
		s, err := gojwt.NewWithClaims(method, claims).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	with := func(k string, v any) gojwt.MapClaims {
		m := gojwt.MapClaims{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	valid := sign(gojwt.SigningMethodHS256, key, good)
	if _, err := c.Verify(valid); err != nil {
		t.Fatalf("control token rejected: %v", err)
	}
	cases := map[string]string{
		"other key":      sign(gojwt.SigningMethodHS256, []byte("another-key-another-key-another-k"), good),
		"alg none":       sign(gojwt.SigningMethodNone, gojwt.UnsafeAllowNoneSignatureType, good),
		"HS512":          sign(gojwt.SigningMethodHS512, key, good),
		"expired":        sign(gojwt.SigningMethodHS256, key, with("exp", now.Add(-time.Second).Unix())),
		"other issuer":   sign(gojwt.SigningMethodHS256, key, with("iss", "someone-else")),
		"not personal":   sign(gojwt.SigningMethodHS256, key, with("type", "SERVICE")),
		"sub mismatch":   sign(gojwt.SigningMethodHS256, key, with("sub", "bob")),
		"malformed":      "not.a.token",
		"empty":          "",
		"tampered claim": valid[:strings.LastIndex(valid, ".")-2] + "xx" + valid[strings.LastIndex(valid, "."):],
	}
	for name, raw := range cases {
		if _, err := c.Verify(raw); err == nil {
			t.Errorf("%s: Verify accepted it", name)
		}
	}
}

func TestNewRefusesShortKey(t *testing.T) {
	if _, err := New([]byte("short"), ""); err == nil {
		t.Error("New accepted a 5-byte key")
	}
}

// TestVerifiedTokensStillExpire: a token verified once is remembered, but
// its dates are checked on every use, by each clock: refused from its exp
// on, and before its iat, exactly as the first verification would.
func TestVerifiedTokensStillExpire(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newCodec(t, now)
	raw, err := c.Sign(reference.TokenClaims{ActorID: "ann", JTI: "j", IssuedAt: now, ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := c.Verify(raw); err != nil {
			t.Fatalf("use %d: %v", i+1, err)
		}
	}
	for _, tc := range []struct {
		at   time.Time
		want error
	}{
		{now.Add(time.Hour - time.Second), nil},
		{now.Add(time.Hour), gojwt.ErrTokenExpired},
		{now.Add(2 * time.Hour), gojwt.ErrTokenExpired},
		{now.Add(-time.Second), gojwt.ErrTokenUsedBeforeIssued},
		{now, nil},
	} {
		_, err := c.WithClock(func() time.Time { return tc.at }).Verify(raw)
		if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("at %s: %v, want %v", tc.at.Sub(now), err, tc.want)
		}
	}
	forever, err := c.Sign(reference.TokenClaims{ActorID: "ann", JTI: "k", IssuedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{now, now.Add(100 * 365 * 24 * time.Hour)} {
		if _, err := c.WithClock(func() time.Time { return at }).Verify(forever); err != nil {
			t.Errorf("a token without expiry at %s: %v", at.Sub(now), err)
		}
	}
}
