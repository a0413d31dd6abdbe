package postgres

import (
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// TestFilterKeyTellsConditionsApart: the cache keys a listing by its
// conditions too, in any order: two token listings that differ only by a
// condition are never answered from each other's cached page.
func TestFilterKeyTellsConditionsApart(t *testing.T) {
	base := reference.Filter{EntityType: reference.EntityAccessToken, Aspect: reference.AspectAccessTokenInfo}
	lt := reference.Criterion{Field: "expiresAt", Condition: "LESS_THAN", Values: []string{"5"}, Numeric: true}
	gt := reference.Criterion{Field: "expiresAt", Condition: "GREATER_THAN", Values: []string{"5"}, Numeric: true}
	negated := lt
	negated.Negated = true
	name := reference.Criterion{Field: "name", Condition: "CONTAIN", Values: []string{"x"}}
	keys := map[string]string{}
	for label, cs := range map[string][]reference.Criterion{
		"none": nil, "less": {lt}, "greater": {gt}, "not less": {negated}, "less and name": {lt, name},
	} {
		f := base
		f.Criteria = cs
		k := filterKey(f)
		if other, ok := keys[k]; ok {
			t.Errorf("%s and %s share a cache key", label, other)
		}
		keys[k] = label
	}
	a, b := base, base
	a.Criteria, b.Criteria = []reference.Criterion{lt, name}, []reference.Criterion{name, lt}
	if filterKey(a) != filterKey(b) {
		t.Errorf("the same conditions in another order have another key")
	}
}
