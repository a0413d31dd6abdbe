package steps

// Negated token filters (token_requests.feature): DataHub's own smoke test
// (smoke-test/tests/tokens/revokable_access_token_test.py) lists tokens
// leaving out those named "Test Session Token" with a FacetFilterInput
// {"field": "name", "condition": "EQUAL", "negated": true}. A negated
// owner filter must not pass for listing one's own tokens.

func registerTokenFilterSteps(s stepRegistrar) {
	s.Step(`^`+who+` has created a personal access token for `+self+` named "([^"]+)"$`, hasCreatedNamedToken)
	s.Step(`^`+who+` lists `+own+` own tokens, leaving out those named "([^"]+)"$`, listsOwnTokensExcept)
	s.Step(`^the list holds the token named "([^"]+)" and no other, and counts one$`, listHoldsOnlyNamed)
	s.Step(`^`+who+` lists the tokens whose owner is not `+who+`$`, listsTokensNotOwnedBy)
}
