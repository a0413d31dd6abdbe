package reference

import (
	"strings"
	"unicode/utf8"
)

// Entity types the reference knows by name.
const (
	EntityCorpUser    = "corpuser"
	EntityTag         = "tag"
	EntityPolicy      = "dataHubPolicy"
	EntityAccessToken = "dataHubAccessToken"
	EntityDataset     = "dataset"
)

// URN identifies an entity: urn:li:<entityType>:<id>.
type URN struct {
	EntityType string
	ID         string
}

// ParseURN parses s, rejecting anything not of the form urn:li:<type>:<id>.
func ParseURN(s string) (URN, error) {
	if !utf8.ValidString(s) {
		return URN{}, Errorf(EBADREQUEST, "invalid urn %s: it is not valid UTF-8", Excerpt(s))
	}
	rest, ok := strings.CutPrefix(s, "urn:li:")
	if !ok {
		return URN{}, Errorf(EBADREQUEST, "invalid urn %s: it must start with urn:li:", Excerpt(s))
	}
	typ, id, ok := strings.Cut(rest, ":")
	if !ok || typ == "" || id == "" {
		return URN{}, Errorf(EBADREQUEST, "invalid urn %s: it must have the form urn:li:<entityType>:<id>", Excerpt(s))
	}
	for _, r := range typ {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return URN{}, Errorf(EBADREQUEST, "invalid urn %s: bad entity type", Excerpt(s))
		}
	}
	if strings.ContainsAny(id, "\x00\n\r\t") || len(s) > 1024 {
		return URN{}, Errorf(EBADREQUEST, "invalid urn %s", Excerpt(s))
	}
	return URN{EntityType: typ, ID: id}, nil
}

func (u URN) String() string { return "urn:li:" + u.EntityType + ":" + u.ID }

// IsZero reports whether u is the zero URN.
func (u URN) IsZero() bool { return u.EntityType == "" && u.ID == "" }

// UserURN is the URN of the user with the given username.
func UserURN(username string) URN { return URN{EntityType: EntityCorpUser, ID: username} }

// Well-known actors.
var (
	RootUser   = UserURN("datahub")
	SystemUser = UserURN("__datahub_system")
)

// Truncate shortens client input for an error message to at most n bytes
// and "…", cut at a character boundary: a message quotes a short prefix,
// never the input whole.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
