// Package skeleton says when two strings read the same, by the skeleton of
// Unicode's Technical Standard #39 (Unicode Security Mechanisms, section 4,
// Confusable Detection): X and Y are confusable when their skeletons are
// equal, the skeleton being X in NFD, without its default-ignorable code
// points (zero-width spaces and joiners, soft hyphens, variation
// selectors...), each character replaced by its prototype in
// confusables.txt, in NFD again. confusables.txt here is Unicode's own
// (version in its header) with the mappings alone; gen.go makes it.
package skeleton

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

//go:embed confusables.txt
var data string

// prototypes maps a character to its prototype, read from data once.
var prototypes = sync.OnceValue(func() map[rune]string {
	m := make(map[rune]string, 6600)
	for line := range strings.Lines(data) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		src, proto, ok := strings.Cut(line, ";")
		r, err := strconv.ParseUint(src, 16, 32)
		if !ok || err != nil {
			panic("skeleton: confusables.txt: not a mapping: " + line)
		}
		var b strings.Builder
		for _, cp := range strings.Fields(proto) {
			p, err := strconv.ParseUint(cp, 16, 32)
			if err != nil {
				panic("skeleton: confusables.txt: not a code point: " + line)
			}
			b.WriteRune(rune(p))
		}
		m[rune(r)] = b.String()
	}
	return m
})

// Ignorable says whether r is a default-ignorable code point (Unicode's
// derived property Default_Ignorable_Code_Point): drawn as nothing.
func Ignorable(r rune) bool {
	switch {
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case r >= 0xFFF9 && r <= 0xFFFB, r >= 0x13430 && r <= 0x1343F:
		return false // format characters that are drawn
	case unicode.Is(unicode.Cf, r):
		return !unicode.Is(unicode.Prepended_Concatenation_Mark, r) && !unicode.Is(unicode.White_Space, r)
	}
	return false
}

// Of returns the skeleton of s.
func Of(s string) string {
	m := prototypes()
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if Ignorable(r) {
			continue
		}
		if p, ok := m[r]; ok {
			b.WriteString(p)
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFD.String(b.String())
}

// Keys are what s is compared by: its skeleton, and the skeleton of its
// case folding. Two names read the same when either key is equal.
func Keys(s string) [2]string {
	return [2]string{Of(s), Of(cases.Fold().String(s))}
}
