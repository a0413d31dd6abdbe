package steps

// Fragments of step patterns.
const (
	who      = `([A-Z][a-z]+)`                // a person: "Ann", "Bob", "Mia"
	pronoun  = `(?:she|he|they)`              // who a person is
	own      = `(?:her|his|their)`            // what a person has
	self     = `(?:herself|himself|themself)` // for whom a person acts
	verbIs   = `(?:is|are)`                   // "she is", "they are"
	priv     = `([A-Z][A-Z_]+)`               // a privilege: "CREATE_TAGS"
	anyoneOf = `(herself|himself|themself|[A-Z][a-z]+)`
)

// stepRegistrar is where steps are registered: godog's ScenarioContext, or a
// recorder in the tests that check every feature step is defined.
type stepRegistrar interface {
	Step(expr, stepFunc any)
}

// stepFile is one file of steps and the function that registers them.
type stepFile struct {
	name     string // the file is steps/<name>.go
	register func(stepRegistrar)
}

// sharedSteps are the files of vocabulary several features share (doc.go).
var sharedSteps = []stepFile{
	{"people", registerPeopleSteps},
	{"privileges", registerPrivilegesSteps},
	{"things", registerThingsSteps},
	{"judging", registerJudgingSteps},
	{"pages", registerPagesSteps},
	{"sdk", registerSDKSteps},
}

// featureSteps are the files of one feature each, in the order of
// features/: steps/<name>.go holds the steps of features/<name>.feature.
var featureSteps = []stepFile{
	{"auth_disabled", registerAuthDisabledSteps},
	{"authentication", registerAuthenticationSteps},
	{"deleting_tags", registerDeletingTagsSteps},
	{"deletion", registerDeletionSteps},
	{"entity_paths", registerEntityPathsSteps},
	{"entity_registry", registerEntityRegistrySteps},
	{"graphiql", registerGraphiQLSteps},
	{"graphql_http", registerGraphQLHTTPSteps},
	{"hostile_requests", registerHostileRequestsSteps},
	{"http_details", registerHTTPDetailsSteps},
	{"ingestion", registerIngestionSteps},
	{"ingestion_runs", registerIngestionRunsSteps},
	{"invitations", registerInvitationsSteps},
	{"openapi", registerOpenAPISteps},
	{"password_reset", registerPasswordResetSteps},
	{"patching", registerPatchingSteps},
	{"policies", registerPoliciesSteps},
	{"read_only_audit", registerReadOnlyAuditSteps},
	{"replicas", registerReplicasSteps},
	{"restli", registerRestLiSteps},
	{"search", registerSearchSteps},
	{"sign_in_api", registerSignInAPISteps},
	{"signing_in", registerSigningInSteps},
	{"tag_requests", registerTagRequestsSteps},
	{"tags", registerTagsSteps},
	{"timeseries", registerTimeseriesSteps},
	{"token_filters", registerTokenFiltersSteps},
	{"token_lifetime", registerTokenLifetimeSteps},
	{"token_page", registerTokenPageSteps},
	{"token_requests", registerTokenRequestsSteps},
	{"tokens", registerTokensSteps},
	{"tokens_for_others", registerTokensForOthersSteps},
	{"users", registerUsersSteps},
	{"who_am_i", registerWhoAmISteps},
}

// registerSteps registers every step of the suite. Each pattern is anchored.
func registerSteps(s stepRegistrar) {
	for _, f := range sharedSteps {
		f.register(s)
	}
	for _, f := range featureSteps {
		f.register(s)
	}
}

// Steps.
