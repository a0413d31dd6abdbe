package reference

import "maps"

// The conditions a token listing takes, as DataHub's ListAccessTokensResolver
// passes its FacetFilterInputs to its search (ResolverUtils.buildFilter,
// then ESUtils): on the fields DataHubAccessTokenInfo makes searchable
// (name, actorUrn, ownerUrn, createdAt, expiresAt), with every condition of
// criteria.go. datahub-gc finds the expired tokens with expiresAt
// LESS_THAN now (ingestion/source/gc/datahub_gc.py, _get_expired_tokens); a
// token that never expires has no expiresAt, so no range matches it.

// tokenFields are the fields a token listing may filter on; true for those
// that hold numbers (epoch milliseconds).
var tokenFields = map[string]bool{"ownerUrn": false, "actorUrn": false, "name": false, "createdAt": true, "expiresAt": true}

// tokenCriteria checks a listing's filters and moves those on numbers
// into Criteria, where they compare as numbers.
func tokenCriteria(in ListAccessTokensInput) (ListAccessTokensInput, error) {
	for _, f := range []map[string][]string{in.Filters, in.Exclude} {
		for field := range f {
			if _, ok := tokenFields[field]; !ok {
				return in, Errorf(EBADREQUEST, "cannot filter access tokens by %q", Truncate(field, 50))
			}
		}
	}
	out := in
	out.Filters, out.Exclude = maps.Clone(in.Filters), maps.Clone(in.Exclude)
	out.Criteria = nil
	for _, negated := range []bool{false, true} {
		f := out.Filters
		if negated {
			f = out.Exclude
		}
		for field, values := range f {
			if tokenFields[field] {
				out.Criteria = append(out.Criteria, Criterion{Field: field, Condition: CondEqual, Values: values, Negated: negated})
				delete(f, field)
			}
		}
	}
	for _, c := range in.Criteria {
		numeric, ok := tokenFields[c.Field]
		if !ok {
			return in, Errorf(EBADREQUEST, "cannot filter access tokens by %q", Truncate(c.Field, 50))
		}
		c.Numeric = numeric
		out.Criteria = append(out.Criteria, c)
	}
	for i := range out.Criteria {
		out.Criteria[i].Numeric = tokenFields[out.Criteria[i].Field]
		if err := CheckCriterion(&out.Criteria[i]); err != nil {
			return in, err
		}
	}
	return out, nil
}
