// Package jwt implements reference.TokenCodec with HS256 JSON Web Tokens in
// the shape of DataHub's personal access tokens.
package jwt

import (
	"errors"
	"fmt"
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
}

// New returns a codec for key. The key must be at least 32 bytes.
func New(key []byte, issuer string) (*Codec, error) {
	if len(key) < 32 {
		return nil, errors.New("jwt: signing key must be at least 32 bytes")
	}
	if issuer == "" {
		issuer = DefaultIssuer
	}
	return &Codec{key: append([]byte(nil), key...), issuer: issuer, now: time.Now}, nil
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
	cl := claims{
		ActorType: "USER",
		ActorID:   c.ActorID,
		Type:      reference.TokenTypePersonal,
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

// Verify checks raw and returns its claims.
func (k *Codec) Verify(raw string) (reference.TokenClaims, error) {
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
	if cl.ActorType != "USER" || cl.Type != reference.TokenTypePersonal || cl.ActorID == "" || cl.Subject != cl.ActorID {
		return reference.TokenClaims{}, errors.New("jwt: not a personal access token")
	}
	out := reference.TokenClaims{ActorID: cl.ActorID, JTI: cl.ID}
	if cl.IssuedAt != nil {
		out.IssuedAt = cl.IssuedAt.Time
	}
	if cl.ExpiresAt != nil {
		out.ExpiresAt = cl.ExpiresAt.Time
	}
	return out, nil
}
