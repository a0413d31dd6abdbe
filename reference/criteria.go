package reference

import (
	"math/big"
	"strings"
)

// Filter conditions, as DataHub's search applies a Criterion
// (metadata-io/.../search/utils/ESUtils.java,
// getQueryBuilderFromCriterionForSingleField, at commit 7e93355): EQUAL and
// IN match any of the values exactly, IEQUAL in any case; CONTAIN,
// START_WITH and END_WITH match any of the values as a part, a prefix or a
// suffix, in any case; EXISTS matches a field that has a value; the ranges
// compare a number with the first value. A negated criterion matches what
// the criterion does not, a document without the field included.

// The conditions (DataHub's FilterOperator).
const (
	CondEqual          = "EQUAL"
	CondIEqual         = "IEQUAL"
	CondIn             = "IN"
	CondContain        = "CONTAIN"
	CondStartWith      = "START_WITH"
	CondEndWith        = "END_WITH"
	CondExists         = "EXISTS"
	CondGreaterThan    = "GREATER_THAN"
	CondGreaterOrEqual = "GREATER_THAN_OR_EQUAL_TO"
	CondLessThan       = "LESS_THAN"
	CondLessOrEqual    = "LESS_THAN_OR_EQUAL_TO"
	CondDescendants    = "DESCENDANTS_INCL"
	CondAncestors      = "ANCESTORS_INCL"
	CondRelated        = "RELATED_INCL"
)

// Criterion is one condition on one field of a document.
type Criterion struct {
	Field     string
	Condition string // one of the Cond... constants; "" is EQUAL
	Values    []string
	Negated   bool
	// Numeric says the field holds numbers: equality and the ranges
	// compare numbers.
	Numeric bool
}

// IsRange says whether a condition compares with a bound.
func IsRange(cond string) bool {
	switch cond {
	case CondGreaterThan, CondGreaterOrEqual, CondLessThan, CondLessOrEqual:
		return true
	}
	return false
}

// CheckCriterion refuses a criterion the search cannot apply: an unknown
// condition, one that needs values and has none, a number that is not one.
// The hierarchical conditions (DESCENDANTS_INCL, ANCESTORS_INCL,
// RELATED_INCL) match as EQUAL on a field that is not a hierarchy, as in
// DataHub; they are taken so.
func CheckCriterion(c *Criterion) error {
	switch c.Condition {
	case "", CondEqual, CondIn, CondDescendants, CondAncestors, CondRelated:
		c.Condition = CondEqual
	case CondIEqual, CondContain, CondStartWith, CondEndWith, CondExists,
		CondGreaterThan, CondGreaterOrEqual, CondLessThan, CondLessOrEqual:
	default:
		return Errorf(EBADREQUEST, "unsupported filter condition %s", Excerpt(c.Condition))
	}
	if c.Condition == CondExists {
		return nil
	}
	if len(c.Values) == 0 {
		return Errorf(EBADREQUEST, "the filter on %s with %s needs a value", Excerpt(c.Field), c.Condition)
	}
	if c.Numeric && (c.Condition == CondEqual || IsRange(c.Condition)) {
		for _, v := range c.Values {
			if _, ok := new(big.Rat).SetString(strings.TrimSpace(v)); !ok {
				return Errorf(EBADREQUEST, "the filter on %s compares numbers: %s is not one", Excerpt(c.Field), Excerpt(v))
			}
		}
	}
	return nil
}

// Matches says whether a field holding values (none: the field is absent)
// passes the criterion.
func (c Criterion) Matches(values []string) bool {
	hit := false
	for _, v := range values {
		if c.matchesOne(v) {
			hit = true
			break
		}
	}
	return hit != c.Negated
}

func (c Criterion) matchesOne(v string) bool {
	switch c.Condition {
	case CondExists:
		return true
	case CondIEqual:
		for _, want := range c.Values {
			if strings.EqualFold(v, strings.TrimSpace(want)) {
				return true
			}
		}
	case CondContain, CondStartWith, CondEndWith:
		lv := strings.ToLower(v)
		for _, want := range c.Values {
			w := strings.ToLower(strings.TrimSpace(want))
			switch {
			case c.Condition == CondContain && strings.Contains(lv, w),
				c.Condition == CondStartWith && strings.HasPrefix(lv, w),
				c.Condition == CondEndWith && strings.HasSuffix(lv, w):
				return true
			}
		}
	case CondGreaterThan, CondGreaterOrEqual, CondLessThan, CondLessOrEqual:
		n, ok := new(big.Rat).SetString(v)
		bound, ok2 := new(big.Rat).SetString(strings.TrimSpace(c.Values[0]))
		if !ok || !ok2 {
			return false
		}
		cmp := n.Cmp(bound)
		switch c.Condition {
		case CondGreaterThan:
			return cmp > 0
		case CondGreaterOrEqual:
			return cmp >= 0
		case CondLessThan:
			return cmp < 0
		default:
			return cmp <= 0
		}
	default: // EQUAL
		for _, want := range c.Values {
			if c.Numeric {
				n, ok := new(big.Rat).SetString(v)
				w, ok2 := new(big.Rat).SetString(strings.TrimSpace(want))
				if ok && ok2 && n.Cmp(w) == 0 {
					return true
				}
				continue
			}
			if v == want {
				return true
			}
		}
	}
	return false
}
