package runner

import (
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestMask(t *testing.T) {
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"actorId": "ann", "type": "PERSONAL"}).SignedString([]byte("a key of at least thirty-two bytes!"))
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "ann"}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in string
		gone     []string // must not survive masking
		kept     []string // must survive masking
	}{
		{
			name: "JWT in a JSON body",
			in:   `{"data":{"createAccessToken":{"accessToken":"` + tok + `","metadata":{"id":"abc"}}}}`,
			gone: []string{tok, strings.Split(tok, ".")[2]},
			kept: []string{`"accessToken":"` + maskedText + `"`, `"id":"abc"`},
		},
		{
			name: "unsigned JWT in a URL",
			in:   "GET /api/graphql?token=" + unsigned + "&x=1 HTTP/1.1",
			gone: []string{unsigned},
			kept: []string{"&x=1 HTTP/1.1"},
		},
		{
			name: "Authorization header in an HTTP dump",
			in:   "POST /api/graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-jwt-secret\r\nContent-Type: application/json\r\n\r\n{}",
			gone: []string{"not-a-jwt-secret"},
			kept: []string{"Authorization: Bearer " + maskedText + "\r\n", "Content-Type: application/json"},
		},
		{
			name: "Authorization header without a scheme",
			in:   "authorization: opaque-credential-123\n",
			gone: []string{"opaque-credential-123"},
			kept: []string{"authorization: " + maskedText},
		},
		{
			name: "Authorization header as a Go map prints it",
			in:   "map[Authorization:[Bearer " + tok + "] Accept:[*/*]]",
			gone: []string{tok},
			kept: []string{"Accept:[*/*]"},
		},
		{
			name: "Authorization header in JSON",
			in:   `{"Authorization": "Bearer hunter2-secret", "X": "y"}`,
			gone: []string{"hunter2-secret"},
			kept: []string{`"X": "y"`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := Mask(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Errorf("mask kept %q in:\n%s", g, out)
				}
			}
			for _, k := range c.kept {
				if !strings.Contains(out, k) {
					t.Errorf("mask lost %q:\n%s", k, out)
				}
			}
		})
	}
}

func TestMaskKnownSecrets(t *testing.T) {
	out := Mask("the token is s3cr3t-opaque-token, twice: s3cr3t-opaque-token", "s3cr3t-opaque-token")
	if strings.Contains(out, "s3cr3t") {
		t.Errorf("mask kept a known secret: %s", out)
	}
}

func TestMaskLogLine(t *testing.T) {
	line := "catalogd: generated a password for the root user urn:li:corpuser:datahub; it is shown this once: Zm9vYmFyYmF6"
	if out := maskLogLine(line); strings.Contains(out, "Zm9vYmFyYmF6") {
		t.Errorf("maskLogLine kept the password: %s", out)
	}
}
