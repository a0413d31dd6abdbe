package steps

import (
	"context"
	"net/http"
	"slices"
)

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

// registerSteps registers every step of the suite. Each pattern is anchored.
func registerSteps(s stepRegistrar) {
	registerTokenRequestSteps(s)
	registerHTTPDetailSteps(s)
	registerTagRequestSteps(s)
	registerHostileSteps(s)
	registerReplicaSteps(s)
	registerUISteps(s)
	registerResetSteps(s)
	registerSecuritySteps(s)
	registerResetRuleSteps(s)
	registerSignInAPISteps(s)
	registerInvitationSteps(s)
	registerUserSteps(s)
	registerSDKSteps(s)
	s.Step(`^`+who+` asks the GraphQL endpoint to describe its schema$`, asksForSchema)
	s.Step(`^the answer describes a schema whose queries include me and tag$`, schemaDescribed)
	s.Step(`^`+who+` asks the GraphQL endpoint about the type (\w+), naming it in a variable$`, asksAboutType)
	s.Step(`^the answer names the type (\w+), with no errors$`, typeNamed)
	s.Step(`^`+who+` asks for a type nested (\d+) levels deep$`, asksNestedType)
	s.Step(`^`+who+` asks for (\d+) fields in one query$`, asksManyFields)
	s.Step(`^`+who+` asks for her manager, her manager's manager and so on, in a query nested (\d+) levels deep$`, asksNestedManagers)
	s.Step(`^the answer is a GraphQL error, without data$`, answeredWithErrorWithoutData)
	s.Step(`^the answer has data and no errors$`, answeredWithoutErrors)
	// People and their tokens.
	s.Step(`^`+who+` holds a personal access token$`, holdsToken)
	s.Step(`^`+who+` is a user$`, isAUser)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+`$`, asksWhoSheIs)
	s.Step(`^the answer names `+who+` as the signed-in user$`, answerNamesSignedInUser)
	s.Step(`^`+who+`'s token works$`, tokenWorks)
	s.Step(`^`+who+`'s token is refused$`, tokenIsRefused)
	s.Step(`^the answer says `+who+` may ([a-z ,]+), and nothing more$`, answerSaysMayExactly)
	s.Step(`^someone without a token checks the service's health$`, checksHealth)
	s.Step(`^the service says it is healthy$`, serviceIsHealthy)
	s.Step(`^`+who+` is a user known only by `+own+` user name$`, isUserKnownOnlyByName)
	s.Step(`^the administrator looks up `+who+` by `+own+` URN$`, adminLooksUpUser)
	s.Step(`^the administrator looks up a user by a malformed URN$`, adminLooksUpMalformedUser)
	s.Step(`^the answer shows `+who+`'s status as (ACTIVE|SUSPENDED)$`, answerShowsStatus)
	s.Step(`^the administrator looks up a user no one has made$`, adminLooksUpUnknownUser)
	s.Step(`^the answer shows no such user, without an error$`, answerShowsNoProfile)
	s.Step(`^the administrator looks up a user by the tag's URN$`, adminLooksUpUserByTagURN)
	s.Step(`^the answer is `+who+`'s user, with `+own+` display name and email$`, answerIsUser)
	s.Step(`^someone naming `+who+` in X-DataHub-Actor is rejected as unauthorized$`, namingSuspendedIsRefused)

	// Privileges.
	s.Step(`^`+who+` is granted `+priv+`$`, isGranted)
	s.Step(`^`+who+` is granted `+priv+` on a new dataset only$`, isGrantedOnNewDatasetOnly)
	s.Step(`^the administrator grants `+who+` `+priv+`$`, adminGrants)
	s.Step(`^`+who+` is granted `+priv+` on (that tag|another tag) only$`, isGrantedOnTagOnly)
	s.Step(`^`+who+` is granted `+priv+` on (datasets|tags)$`, isGrantedOnType)
	s.Step(`^the policy granting `+who+` `+priv+` (is set INACTIVE|is deleted|has been set INACTIVE|has been deleted)$`, grantingPolicyChanges)
	s.Step(`^the administrator has made a policy$`, adminHasMadeAPolicy)
	s.Step(`^`+who+` (creates a policy|updates the policy|deletes the policy|lists the policies)$`, doesToPolicies)
	s.Step(`^the policies show what `+who+` did$`, policiesShowWhatWasDone)
	s.Step(`^the administrator has made an INACTIVE policy granting `+who+` `+priv+`$`, adminMadeInactivePolicy)
	s.Step(`^a policy grants every user `+priv+`$`, policyGrantsEveryUser)
	s.Step(`^no policy lets every user (generate personal access tokens|read entities)$`, noPolicyLetsEveryUser)
	s.Step(`^`+who+` grants `+self+` every platform privilege with a new policy$`, grantsHerselfEverything)
	s.Step(`^the administrator creates an? (ACTIVE|INACTIVE|DRAFT) policy$`, adminCreatesPolicyInState)
	s.Step(`^the policy reads back as the administrator wrote it$`, policyReadsBackAsWritten)
	s.Step(`^the policy is listed as editable$`, policyListedAsEditable)
	s.Step(`^the administrator changes the policy$`, adminChangesThePolicy)
	s.Step(`^the starting policy (urn:li:dataHubPolicy:\S+) is listed as (editable|not editable)$`, startingPolicyListedEditable)
	s.Step(`^the administrator (updates|deletes) a policy that does not exist$`, adminWritesMissingPolicy)
	s.Step(`^either the update is refused and there is no such policy, or the policy now exists as sent$`, updateMadeItOrRefused)
	s.Step(`^the answer is the policy's URN or a refusal, and there is no such policy$`, deleteAnsweredURNOrRefused)
	s.Step(`^the administrator (updates|deletes) a policy by (a malformed URN|the tag's URN)$`, adminWritesPolicyByOtherURN)
	s.Step(`^the request is refused and the policies are as they were$`, requestRefusedChangingNothing)
	s.Step(`^the lookup is refused$`, requestRefusedChangingNothing)
	s.Step(`^the request is refused as a bad request and the policies(?: and the tag)? are as they were$`, refusedAsBadRequestChangingNothing)
	s.Step(`^the administrator has made two policies whose names share no word$`, adminMadeTwoPoliciesNamedApart)
	s.Step(`^the administrator lists the policies by the first one's word$`, listsPoliciesByFirstWord)
	s.Step(`^the list includes the first policy and not the second$`, listingFindsFirstOnly)
	s.Step(`^`+who+` is granted `+priv+` by a policy with (no resource filter|a resource filter that names nothing)$`, grantedByPolicyWith)
	s.Step(`^the administrator creates a policy that (.+)$`, adminCreatesBadPolicy)
	s.Step(`^the administrator changes the policy so that it (.+)$`, adminChangesPolicyBadly)
	s.Step(`^the administrator lists the policies from position (-?\d+)$`, adminListsPoliciesFrom)

	// Judging answers.
	s.Step(`^the answer has status (\d{3})$`, answerHasStatus)
	s.Step(`^the request is refused, not answered$`, requestRefusedNotAnswered)
	s.Step(`^`+who+` is rejected as unauthorized$`, isRejectedAsUnauthorized)
	s.Step(`^the request is refused as DataHub refuses a tag that exists$`, refusedAsExistingTag)
	s.Step(`^the answer is DataHub's "unauthorized" GraphQL error$`, answerIsUnauthorizedGraphQLError)

	// GraphQL over HTTP.
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` through the frontend's (GraphQL|v2 GraphQL) endpoint$`, asksWhoSheIsThroughFrontend)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+`, accepting (application/json|application/graphql-response\+json)$`, asksWhoSheIsAccepting)
	s.Step(`^the answer comes as (application/json|application/graphql-response\+json)$`, answerComesAs)
	s.Step(`^`+who+` sends a query to the GraphQL endpoint by (GET|PUT|PATCH|DELETE)$`, sendsQueryByMethod)
	s.Step(`^`+who+` sends a tag creation to the GraphQL endpoint by GET$`, sendsTagCreationByGET)
	s.Step(`^`+who+` sends a GraphQL request whose body is not valid JSON$`, sendsBodyNotJSON)
	s.Step(`^`+who+` sends a GraphQL request whose body has no query$`, sendsBodyWithoutQuery)
	s.Step(`^`+who+` sends a GraphQL request whose body has a second JSON object after the first$`, sendsTwoObjects)
	s.Step(`^`+who+` sends a GraphQL query declared as plain text$`, sendsQueryAsPlainText)
	s.Step(`^the answer says that only POST is allowed$`, answerAllowsOnlyPOST)
	s.Step(`^the answer does not repeat the body that was sent$`, answerDoesNotEcho)

	// Tags.
	s.Step(`^a tag exists$`, aTagExists)
	s.Step(`^`+who+` creates a tag$`, createsATag)
	s.Step(`^`+who+` has created a tag$`, hasCreatedATag)
	s.Step(`^`+who+` creates another tag with the same id$`, createsAnotherTagWithSameID)
	s.Step(`^`+who+` creates a tag with the new token$`, createsATagWithNewToken)
	s.Step(`^`+who+` can create a tag( at once)?$`, canCreateATag)
	s.Step(`^`+who+` (?:cannot|can no longer) create a tag( at once)?$`, cannotCreateATag)
	s.Step(`^`+who+` creates a tag, naming the administrator in X-DataHub-Actor$`, createsTagNamingAdmin)
	s.Step(`^`+who+` deletes the tag$`, deletesTheTag)
	s.Step(`^the answer is the URN of the tag$`, answerIsTagURN)
	s.Step(`^`+who+` reads a tag by (a malformed URN|a dataset's URN)$`, readsTagByOtherURN)
	s.Step(`^the answer is a GraphQL error saying the request is bad$`, answerIsBadRequestError)
	s.Step(`^`+who+` creates a tag without an id$`, createsATagWithoutID)
	s.Step(`^the answer is the URN of a tag with a random id$`, answerIsURNOfRandomTag)
	s.Step(`^the tag exists with its name and description$`, tagExistsWithNameAndDescription)
	s.Step(`^the tag reads back with its name and description through the `+tiers+` entity path$`, tagReadsBackThrough)
	s.Step(`^the tag does not exist$`, tagDoesNotExist)
	s.Step(`^the first tag is unchanged$`, firstTagIsUnchanged)

	// Authentication.
	s.Step(`^a request without a token reaches `+surfaces+`$`, requestWithoutTokenReaches)
	s.Step(`^the request is refused as unauthenticated$`, refusedAsUnauthenticated)
	s.Step(`^the answer challenges the caller for a Bearer token$`, answerChallengesForBearer)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+`, sending `+own+` token `+schemeNames+`$`, asksWhoSheIsSendingToken)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` through the (metadata service|frontend), naming the administrator in X-DataHub-Actor$`, asksWhoSheIsNamingAdmin)
	s.Step(`^the challenge says the token is invalid$`, challengeSaysTokenInvalid)
	s.Step(`^`+who+` asks who `+pronoun+` `+verbIs+` with `+badTokens+`$`, asksWhoSheIsWithBadToken)
	s.Step(`^the administrator revokes `+who+`'s token$`, adminRevokesToken)
	s.Step(`^the administrator suspends `+who+`$`, adminSuspends)
	s.Step(`^`+who+` reads the app configuration$`, readsAppConfig)
	s.Step(`^token authentication is reported as (enabled|disabled)$`, tokenAuthReportedAs)

	// Tokens.
	s.Step(`^`+who+` creates a personal access token for `+anyoneOf+`$`, createsTokenFor)
	s.Step(`^`+who+` has created a personal access token for `+anyoneOf+`$`, hasCreatedTokenFor)
	s.Step(`^the new token acts as `+who+`$`, newTokenActsAs)
	s.Step(`^the new token is refused$`, newTokenIsRefused)
	s.Step(`^the new token is described with `+who+` as its actor and `+who+` as its owner$`, newTokenIsDescribed)
	s.Step(`^the new token is a JWT signed with HS256 that names `+who+`$`, newTokenIsHS256JWT)
	s.Step(`^no token was created for `+who+`$`, noTokenCreatedFor)
	s.Step(`^the answer holds the raw token$`, answerHoldsRawToken)
	s.Step(`^the raw token appears in no token list and no token metadata$`, rawTokenAppearsNowhere)
	s.Step(`^`+who+` lists `+own+` own tokens$`, listsOwnTokens)
	s.Step(`^`+who+` lists tokens without saying whose$`, listsTokensWithoutSayingWhose)
	s.Step(`^`+who+` lists the tokens `+who+` owns$`, listsTokensOwnedBy)
	s.Step(`^the list includes the new token$`, listIncludesNewToken)
	s.Step(`^every token in the list is owned by `+who+`$`, everyTokenOwnedBy)
	s.Step(`^`+who+`'s own token list does not include the new token$`, ownListExcludesNewToken)
	s.Step(`^`+who+` revokes the new token$`, revokesNewToken)
	s.Step(`^`+who+` creates a personal access token for `+anyoneOf+` that lasts ([A-Z_]+)$`, createsTokenLasting)
	s.Step(`^`+who+` has created a personal access token for `+anyoneOf+` that lasts ([A-Z_]+)$`, hasCreatedTokenLasting)
	s.Step(`^`+who+` asks for a personal access token for `+anyoneOf+` that lasts ([A-Z_]+)$`, asksForTokenLasting)
	s.Step(`^either the new token has no expiry anywhere, or it was refused as a bad request and none was made$`, noExpiryAnywhereOrRefused)
	s.Step(`^the new token is described as expiring (\d+) (hours?|days?) after it was made$`, describedAsExpiring)
	s.Step(`^the new token's own expiry is the same$`, ownExpiryIsTheSame)
	s.Step(`^a day and an hour have passed$`, timePasses)
	s.Step(`^the new token is described with its name, description, actor, owner and dates in the answer, in `+own+` token list and in its metadata$`, describedEverywhere)
	s.Step(`^`+who+` reads the metadata of the new token$`, readsMetadataOfNewToken)
	s.Step(`^the metadata describes the new token with `+who+` as its actor and `+who+` as its owner$`, metadataDescribes)

	// Entity paths.
	s.Step(`^`+who+` reads the tag through the `+tiers+` entity path with a `+urnForms+` URN$`, readsTagThrough)
	s.Step(`^`+who+` reads `+who+`'s user entity through the `+tiers+` entity path with a `+urnForms+` URN$`, readsUserEntityThrough)
	s.Step(`^`+who+` reads `+own+` own user entity through the `+tiers+` entity path with a `+urnForms+` URN$`, readsOwnUserEntityThrough)
	s.Step(`^`+who+` reads the tag through both entity paths$`, readsTagThroughBothPaths)
	s.Step(`^`+who+` reads a tag that does not exist through the `+tiers+` entity path$`, readsMissingTagThrough)
	s.Step(`^`+who+` reads an entity by a malformed URN through the `+tiers+` entity path$`, readsMalformedURNThrough)
	s.Step(`^the answer is the tag's snapshot with its name and description$`, answerIsTagSnapshot)
	s.Step(`^the answer is `+who+`'s user snapshot$`, answerIsUserSnapshot)
	s.Step(`^both answers are the same$`, bothAnswersAreTheSame)
	s.Step(`^the answer explains itself in JSON with its status and a message$`, answerExplainsItself)
	s.Step(`^`+who+` is refused when `+pronoun+` reads? `+who+`'s user entity$`, isRefusedReadingUserEntity)

	// Ingestion.
	s.Step(`^`+who+` ingests a description for (a new dataset|that dataset|another new dataset)( through the frontend)?$`, ingestsDescription)
	s.Step(`^the ingestion is acknowledged$`, ingestionAcknowledged)
	s.Step(`^`+who+` has ingested a description for a new dataset$`, hasIngestedDescription)
	s.Step(`^`+who+` ingests another description for that dataset$`, ingestsAnotherDescription)
	s.Step(`^`+who+` ingests a description for a new dataset in a proposal `+malformationNames+`$`, ingestsMalformed)
	s.Step(`^the answer is a refusal of a bad request$`, refusedAsBadRequest)
	s.Step(`^`+who+` ingests the properties of a new tag$`, ingestsTagProperties)
	s.Step(`^the dataset's key aspect names its platform, name and origin$`, datasetKeyReadsBack)
	s.Step(`^the tag's key aspect names its id$`, tagKeyReadsBack)
	s.Step(`^the administrator ingests only the info of a new user$`, adminIngestsOnlyUserInfo)
	s.Step(`^the user's key aspect names their username$`, userKeyReadsBack)
	s.Step(`^`+who+` ingests the institutional memory of a new dataset$`, ingestsInstitutionalMemory)
	s.Step(`^the dataset's institutional memory reads back through the `+tiers+` entity path$`, institutionalMemoryReadsBack)
	s.Step(`^the dataset's description reads back through the `+tiers+` entity path$`, datasetDescriptionReadsBack)
	s.Step(`^nothing was stored for the dataset$`, nothingStoredForDataset)
	s.Step(`^`+who+` proposes to DELETE the dataset's description$`, sendsDeleteProposal)
	s.Step(`^the description is gone if the proposal was acknowledged, and still there if it was refused$`, deleteAnsweredTruthfully)

	// Authentication disabled.
	s.Step(`^the service runs with authentication disabled$`, serviceRunsWithAuthDisabled)
	s.Step(`^someone without a token asks who they are$`, someoneWithoutTokenAsksWhoTheyAre)
	s.Step(`^someone without a token creates a tag$`, someoneWithoutTokenCreatesTag)
	s.Step(`^someone without a token reads the server configuration$`, someoneReadsServerConfig)
	s.Step(`^the configuration says the server takes ingestion from DataHub's own clients$`, configTakesIngestion)
	s.Step(`^someone without a token reads the app configuration$`, someoneWithoutTokenReadsAppConfig)
	s.Step(`^the answer names the system actor as the signed-in user$`, answerNamesSystemActor)
	s.Step(`^someone naming `+who+` in X-DataHub-Actor asks who they are( through the frontend)?$`, someoneNamingAsksWhoTheyAre)
	s.Step(`^someone naming `+who+` in X-DataHub-Actor creates a tag$`, createsATag)
	s.Step(`^the answer does not name `+who+` as the signed-in user$`, answerDoesNotName)
}

// lastAnswer is the answer to the scenario's last attempt.
func (w *world) lastAnswer() (*answer, error) {
	if w.last == nil {
		return nil, w.fail("no request was made to judge")
	}
	return w.last, nil
}

// noEffect runs the attempt's read-back that it changed nothing.
func (w *world) noEffect(a *answer) error {
	if a.noEffect == nil {
		return w.fail("%s has no read-back to show it changed nothing (a defect of the step that made it)", a.what)
	}
	return a.noEffect()
}

// isNotFound tells whether a is a not-found answer: HTTP 404, or a GraphQL
// error with code 404 or type NOT_FOUND.
func isNotFound(a *answer) bool {
	if a.status == http.StatusNotFound {
		return true
	}
	g, err := a.decodeGraphQL()
	if err != nil || len(g.Errors) == 0 {
		return false
	}
	return g.Errors[0].code() == "404" || g.Errors[0].Extensions.Type == "NOT_FOUND"
}

// isServerError tells whether a is a GraphQL error with code 500 or type
// SERVER_ERROR.
func isServerError(a *answer) bool {
	g, err := a.decodeGraphQL()
	if err != nil || len(g.Errors) == 0 {
		return false
	}
	return g.Errors[0].code() == "500" || g.Errors[0].Extensions.Type == "SERVER_ERROR"
}

// graphQLRefusal reads the first error of a GraphQL answer that should be a
// refusal: one error at least, and every field of data null.
func (w *world) graphQLRefusal(a *answer, expected string) (graphQLError, error) {
	g, err := a.decodeGraphQL()
	if err != nil {
		return graphQLError{}, w.failed(err)
	}
	if len(g.Errors) == 0 {
		return graphQLError{}, w.fail("%s succeeded, expected %s", a.what, expected)
	}
	for field, v := range g.Data {
		if string(v) != "null" {
			return graphQLError{}, w.fail("%s was refused but data.%s is %s, expected null", a.what, field, v)
		}
	}
	return g.Errors[0], nil
}

// rejectedAsUnauthorized is SPEC.md, Authentication: HTTP 401 or 403, or a
// GraphQL error whose extensions.code is 401 or 403 (with the field null),
// and the attempt had no effect, read back.
func (w *world) rejectedAsUnauthorized(a *answer) error {
	switch a.status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return w.noEffect(a)
	case http.StatusOK:
	default:
		return w.fail("%s answered status %d, expected a rejection as unauthorized (401, 403, or a GraphQL error with code 401 or 403)", a.what, a.status)
	}
	e, err := w.graphQLRefusal(a, "a rejection as unauthorized")
	if err != nil {
		return err
	}
	if code := e.code(); !slices.Contains([]string{"401", "403"}, code) {
		return w.fail("%s failed with code %q (%q), expected 401 or 403", a.what, code, e.Message)
	}
	return w.noEffect(a)
}

// Steps.

func answerHasStatus(ctx context.Context, status int) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	a.resp.Status(status)
	if err := w.checkpoint(); err != nil {
		return err
	}
	if status >= 400 {
		return w.noEffect(a)
	}
	return nil
}

// requestRefusedNotAnswered: any 4xx or 5xx, and the request had no effect
// (read back where it names one). A refusal of a method DataHub does not
// serve is 405 or, for GET at /api/graphql, 500: the status is not the rule.
func requestRefusedNotAnswered(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.status < 400 || a.status > 599 {
		return w.fail("%s answered status %d, expected a refusal (4xx or 5xx)", a.what, a.status)
	}
	return w.noEffect(a)
}

func isRejectedAsUnauthorized(ctx context.Context, name string) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if a.caller != name {
		return w.fail("the last request was made by %s, not %s", a.caller, name)
	}
	return w.rejectedAsUnauthorized(a)
}

// tagExistsMessage is DataHub's message for a tag id used twice
// (CreateTagResolver).
const tagExistsMessage = "This Tag already exists!"

// refusedAsExistingTag checks DataHub's refusal of a tag id used twice: a
// GraphQL error with code 400, type BAD_REQUEST and DataHub's message, the
// field null, and the first tag as it was.
func refusedAsExistingTag(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	e, err := w.graphQLRefusal(a, "a refusal of a tag id used twice")
	if err != nil {
		return err
	}
	if e.code() != "400" || e.Extensions.Type != "BAD_REQUEST" || e.Message != tagExistsMessage {
		return w.fail("%s failed with code %q, type %q and message %q; expected 400, BAD_REQUEST and %q",
			a.what, e.code(), e.Extensions.Type, e.Message, tagExistsMessage)
	}
	return w.noEffect(a)
}

// unauthorizedMessage is the message DataHub gives a caller who lacks a
// privilege (SPEC.md, GraphQL over HTTP).
const unauthorizedMessage = "Unauthorized to perform this action. Please contact your DataHub administrator."

// answerIsUnauthorizedGraphQLError checks DataHub's exact shape of a refusal:
// the field null, errors[0] with DataHub's message and extensions
// {"code": 403, "type": "UNAUTHORIZED"}, and nothing changed.
func answerIsUnauthorizedGraphQLError(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	e, err := w.graphQLRefusal(a, "DataHub's unauthorized error")
	if err != nil {
		return err
	}
	if e.Message != unauthorizedMessage || e.code() != "403" || e.Extensions.Type != "UNAUTHORIZED" {
		return w.fail("%s failed with message %q, code %q and type %q; expected %q, 403 and UNAUTHORIZED",
			a.what, e.Message, e.code(), e.Extensions.Type, unauthorizedMessage)
	}
	return w.noEffect(a)
}
