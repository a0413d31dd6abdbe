package jwt

import (
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/catalogspec/catalogspec/reference"
)

// signMap signs arbitrary header members and claims with the test key, so
// that only the codec's own checks can refuse the result.
func signMap(t testing.TB, header map[string]any, claims gojwt.MapClaims) string {
	t.Helper()
	tok := gojwt.NewWithClaims(gojwt.SigningMethodHS256, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	raw, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

var fuzzNow = time.Unix(1_700_000_000, 0)

func validClaims() gojwt.MapClaims {
	return gojwt.MapClaims{
		"actorType": "USER", "actorId": "ann", "type": "PERSONAL", "version": "2", "jti": "id-1", "sub": "ann",
		"iss": DefaultIssuer, "iat": fuzzNow.Unix(), "exp": fuzzNow.Add(time.Hour).Unix(),
	}
}

// TestVerifyRefusesShapes: what the JWT library lets through, the codec
// refuses, each signed with the right key.
func TestVerifyRefusesShapes(t *testing.T) {
	c := newCodec(t, fuzzNow)
	with := func(k string, v any) gojwt.MapClaims {
		cl := validClaims()
		cl[k] = v
		return cl
	}
	if _, err := c.Verify(signMap(t, nil, validClaims())); err != nil {
		t.Fatalf("the valid token is refused: %v", err)
	}
	cases := map[string]string{
		"a crit header":       signMap(t, map[string]any{"crit": []string{"exp"}}, validClaims()),
		"exp as a string":     signMap(t, nil, with("exp", "9999999999")),
		"iat as a string":     signMap(t, nil, with("iat", "1700000000")),
		"nbf as a string":     signMap(t, nil, with("nbf", "1600000000")),
		"actorId as a number": signMap(t, nil, with("actorId", 7)),
		"an HS512 signature": func() string {
			tok, _ := gojwt.NewWithClaims(gojwt.SigningMethodHS512, validClaims()).SignedString(key)
			return tok
		}(),
		"alg none": func() string {
			tok, _ := gojwt.NewWithClaims(gojwt.SigningMethodNone, validClaims()).SignedString(gojwt.UnsafeAllowNoneSignatureType)
			return tok
		}(),
		"another issuer":       signMap(t, nil, with("iss", "someone-else")),
		"expired":              signMap(t, nil, with("exp", fuzzNow.Add(-time.Second).Unix())),
		"a service token type": signMap(t, nil, with("type", "SERVICE")),
	}
	for name, raw := range cases {
		if _, err := c.Verify(raw); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzTokenVerify: Verify never panics, and what it accepts names an actor
// and an id, and signs again to the same claims.
func FuzzTokenVerify(f *testing.F) {
	c := newCodec(f, fuzzNow)
	valid := signMap(f, nil, validClaims())
	for _, s := range []string{
		valid, valid[:len(valid)-5], "", "a.b.c", "....", "eyJhbGciOiJub25lIn0.e30.",
		signMap(f, map[string]any{"crit": []string{"exp"}}, validClaims()),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		claims, err := c.Verify(raw)
		if err != nil {
			return
		}
		if claims.ActorID == "" || claims.JTI == "" {
			t.Fatalf("accepted %q with claims %+v", raw, claims)
		}
		again, err := c.Sign(reference.TokenClaims{ActorID: claims.ActorID, JTI: claims.JTI, IssuedAt: claims.IssuedAt, ExpiresAt: claims.ExpiresAt})
		if err != nil {
			t.Fatal(err)
		}
		back, err := c.Verify(again)
		if err != nil || back.ActorID != claims.ActorID || back.JTI != claims.JTI || !back.ExpiresAt.Equal(claims.ExpiresAt) {
			t.Fatalf("claims %+v signed again verify as %+v, %v", claims, back, err)
		}
	})
}
