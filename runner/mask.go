package runner

import (
	"regexp"
	"strings"
)

// The masking that keeps tokens out of everything the suite prints or
// writes: its console, its reports, the reference's logs.

const maskedText = "[masked]"

var (
	// JWTShape matches anything that looks like a JWT, signed or not.
	JWTShape = regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)
	// authorizationValue matches the value of an Authorization header as an
	// HTTP dump, a JSON object or a Go map prints it; group 1 is the name and
	// separator, group 2 the scheme (kept), group 3 the credentials.
	authorizationValue = regexp.MustCompile(`(?i)(authorization["']?[ \t]*[:=][ \t]*[\["']*)((?:bearer|basic)[ \t]+)?([^"'\]\r\n]*)`)
)

// Mask hides credentials in s: the value of any Authorization header, every
// JWT-shaped string, and each of the given secrets wherever it appears.
func Mask(s string, secrets ...string) string {
	s = authorizationValue.ReplaceAllStringFunc(s, func(m string) string {
		g := authorizationValue.FindStringSubmatch(m)
		if g[3] == "" {
			return m
		}
		return g[1] + g[2] + maskedText
	})
	s = JWTShape.ReplaceAllString(s, maskedText)
	for _, secret := range secrets {
		if len(secret) >= 8 {
			s = strings.ReplaceAll(s, secret, maskedText)
		}
	}
	return s
}
