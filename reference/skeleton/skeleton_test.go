package skeleton

import "testing"

func TestSameSkeleton(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"datahub", "d\u0430tahub"},    // Cyrillic a
		{"datahub", "da\u200btahub"},   // zero-width space
		{"datahub", "data\u00adhub"},   // soft hyphen
		{"paypal", "p\u0430yp\u0430l"}, // two Cyrillic a
		{"admin", "\u0430dm\u0456n"},   // Cyrillic a and i
		{"alice", "a\u217Cice"},        // Roman numeral fifty for l
		{"bob", "b\u03BFb"},            // Greek omicron
		{"x", "x\uFE0F"},               // a variation selector
	} {
		if Of(c.a) != Of(c.b) {
			t.Errorf("%q and %q have the skeletons %q and %q, want one", c.a, c.b, Of(c.a), Of(c.b))
		}
	}
}

func TestDifferentSkeleton(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"datahub", "datahubs"},
		{"ann", "anne"},
		{"bob", "rob"},
	} {
		if Of(c.a) == Of(c.b) {
			t.Errorf("%q and %q share the skeleton %q", c.a, c.b, Of(c.a))
		}
	}
}

func TestKeysFoldCase(t *testing.T) {
	a, b := Keys("datahub"), Keys("Datahub")
	if a[0] == b[0] {
		t.Errorf("datahub and Datahub have one skeleton before folding: %q", a[0])
	}
	if a[1] != b[1] {
		t.Errorf("folded, datahub and Datahub have the skeletons %q and %q", a[1], b[1])
	}
	if Keys("DATAHUB")[1] != a[1] {
		t.Error("DATAHUB folds to another skeleton than datahub")
	}
}

func TestIgnorable(t *testing.T) {
	for _, r := range []rune{0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0xFE0F, 0x180E} {
		if !Ignorable(r) {
			t.Errorf("U+%04X is default-ignorable", r)
		}
	}
	for _, r := range []rune{'a', ' ', 0x0600, 0xFFFB, '\u0301'} {
		if Ignorable(r) {
			t.Errorf("U+%04X is not default-ignorable", r)
		}
	}
}
