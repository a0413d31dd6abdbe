// Package jwt implements reference.TokenCodec with HS256 JSON Web Tokens in
// the shape of DataHub's personal access tokens.
package jwt

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/catalogspec/catalogspec/reference"
)

// DefaultIssuer is DataHub's token issuer.
const DefaultIssuer = "datahub-metadata-service"

// Codec signs and verifies tokens with one HS256 key.
type Codec struct {
	key    []byte
	issuer string
	now    func() time.Time
	// verified remembers the claims of tokens whose signature and shape
	// were checked, shared by the copies WithClock makes: a token is
	// verified once, and only its dates are checked on each use.
	verified *verifiedTokens
}

// verifiedTokens is a bounded memo of verified tokens. Only a token signed
// with the key gets in, so its size is bounded by the tokens in use; past
// maxVerified it starts over.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[string]reference.TokenClaims
}

const maxVerified = 10_000

func (v *verifiedTokens) get(raw string) (reference.TokenClaims, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.m[raw]
	return c, ok
}

func (v *verifiedTokens) put(raw string, c reference.TokenClaims) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.m) >= maxVerified {
		clear(v.m)
	}
	v.m[raw] = c
}

// New returns a codec for key. The key must be at least 32 bytes.
func New(key []byte, issuer string) (*Codec, error) {
	if len(key) < 32 {
		return nil, errors.New("jwt: signing key must be at least 32 bytes")
	}
	if issuer == "" {
		issuer = DefaultIssuer
	}
	return &Codec{key: append([]byte(nil), key...), issuer: issuer, now: time.Now, verified: &verifiedTokens{m: map[string]reference.TokenClaims{}}}, nil
}

// WithClock returns the codec with its clock replaced (checking expiry
// against now).
func (k *Codec) WithClock(now func() time.Time) *Codec {
	c := *k
	c.now = now
	return &c
}

type claims struct {
	ActorType string `json:"actorType"`
	ActorID   string `json:"actorId"`
	Type      string `json:"type"`
	Version   string `json:"version"`
	gojwt.RegisteredClaims
}

// Sign returns the compact serialisation of a token for c.
func (k *Codec) Sign(c reference.TokenClaims) (string, error) {
	typ := c.Type
	if typ == "" {
		typ = reference.TokenTypePersonal
	}
	cl := claims{
		ActorType: "USER",
		ActorID:   c.ActorID,
		Type:      typ,
		Version:   "2",
		RegisteredClaims: gojwt.RegisteredClaims{
			ID:       c.JTI,
			Subject:  c.ActorID,
			Issuer:   k.issuer,
			IssuedAt: gojwt.NewNumericDate(c.IssuedAt),
		},
	}
	if !c.ExpiresAt.IsZero() {
		cl.ExpiresAt = gojwt.NewNumericDate(c.ExpiresAt)
	}
	return gojwt.NewWithClaims(gojwt.SigningMethodHS256, cl).SignedString(k.key)
}

// Verify checks raw and returns its claims. A token verified before has
// only its dates checked again, against this codec's clock, as the JWT
// library checks them: expired from its exp on, not valid before its iat.
func (k *Codec) Verify(raw string) (reference.TokenClaims, error) {
	if c, ok := k.verified.get(raw); ok {
		now := k.now()
		if !c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt) {
			return reference.TokenClaims{}, fmt.Errorf("jwt: %w", gojwt.ErrTokenExpired)
		}
		if now.Before(c.IssuedAt) {
			return reference.TokenClaims{}, fmt.Errorf("jwt: %w", gojwt.ErrTokenUsedBeforeIssued)
		}
		return c, nil
	}
	var cl claims
	_, err := gojwt.ParseWithClaims(raw, &cl, func(*gojwt.Token) (any, error) { return k.key, nil },
		gojwt.WithValidMethods([]string{gojwt.SigningMethodHS256.Alg()}),
		gojwt.WithIssuer(k.issuer),
		gojwt.WithTimeFunc(k.now),
		gojwt.WithIssuedAt(),
	)
	if err != nil {
		return reference.TokenClaims{}, fmt.Errorf("jwt: %w", err)
	}
	if err := checkShape(raw); err != nil {
		return reference.TokenClaims{}, err
	}
	if cl.ActorType != "USER" || (cl.Type != reference.TokenTypePersonal && cl.Type != reference.TokenTypeSession) || cl.ActorID == "" || cl.Subject != cl.ActorID {
		return reference.TokenClaims{}, errors.New("jwt: not a personal access token or a session token")
	}
	out := reference.TokenClaims{Type: cl.Type, ActorID: cl.ActorID, JTI: cl.ID}
	if cl.IssuedAt != nil {
		out.IssuedAt = cl.IssuedAt.Time
	}
	if cl.ExpiresAt != nil {
		out.ExpiresAt = cl.ExpiresAt.Time
	}
	if cl.NotBefore == nil {
		k.verified.put(raw, out)
	}
	return out, nil
}

// checkShape refuses what the JWT library lets through: a header with
// "crit" (RFC 7515 4.1.11: extensions this codec does not understand must
// not be ignored) and date claims that are not JSON numbers (a string
// "exp" is not a NumericDate, RFC 7519 2).
func checkShape(raw string) error {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return errors.New("jwt: not a compact JWS")
	}
	var header map[string]json.RawMessage
	if err := decodeSegment(parts[0], &header); err != nil {
		return fmt.Errorf("jwt: header: %w", err)
	}
	if _, ok := header["crit"]; ok {
		return errors.New("jwt: the header names critical extensions (crit), which are not supported")
	}
	var payload map[string]json.RawMessage
	if err := decodeSegment(parts[1], &payload); err != nil {
		return fmt.Errorf("jwt: claims: %w", err)
	}
	for _, name := range []string{"exp", "iat", "nbf"} {
		v, ok := payload[name]
		if !ok {
			continue
		}
		var n json.Number
		if len(v) == 0 || v[0] == '"' || json.Unmarshal(v, &n) != nil {
			return fmt.Errorf("jwt: claim %s is not a number", name)
		}
	}
	for _, name := range []string{"actorType", "actorId", "type", "version", "jti", "sub", "iss"} {
		if v, ok := payload[name]; ok && (len(v) == 0 || v[0] != '"') {
			return fmt.Errorf("jwt: claim %s is not a string", name)
		}
	}
	return nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
