package reference

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzURN: ParseURN never panics, and what it accepts is valid UTF-8 with
// no NUL and survives a round trip through String.
func FuzzURN(f *testing.F) {
	for _, s := range []string{
		"urn:li:tag:pii", "urn:li:corpuser:datahub", "urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)",
		"", "urn:li:", "urn:li:tag:", "urn:x:tag:a", "urn:li:tag:\xff\xfe", "urn:li:tag:a\x00b",
		"urn:li::x", "urn:li:ta-g:x", "urn:li:tag:" + strings.Repeat("x", 1100), "urn:li:tag:é",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURN(s)
		if err != nil {
			if ErrorCodeOf(err) != EBADREQUEST {
				t.Fatalf("ParseURN(%q): %v is not a bad request", s, err)
			}
			if msg := ErrorMessageOf(err); len(msg) > 400 {
				t.Fatalf("ParseURN(%q): the message is %d bytes long", s, len(msg))
			}
			return
		}
		if !utf8.ValidString(u.ID) || strings.ContainsRune(u.ID, 0) {
			t.Fatalf("ParseURN(%q) accepted an id that is not valid UTF-8 or holds NUL", s)
		}
		again, err := ParseURN(u.String())
		if err != nil || again != u {
			t.Fatalf("round trip of %q: %v, %v", s, again, err)
		}
	})
}

// FuzzAspectName: aspectNameShape admits only short identifiers, the only
// aspect names that reach the store.
func FuzzAspectName(f *testing.F) {
	for _, s := range []string{"datasetProperties", "a", "", "1a", "a-b", strings.Repeat("a", 101), "ünï"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !aspectNameShape(s) {
			return
		}
		if len(s) > 100 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
			t.Fatalf("aspectNameShape admitted %q", s)
		}
		for _, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				t.Fatalf("aspectNameShape admitted %q", s)
			}
		}
	})
}
