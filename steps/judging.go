package steps

import (
	"context"
	"net/http"
	"slices"
)

// registerJudgingSteps registers the steps of how an answer is judged,
// which several features share.
func registerJudgingSteps(s stepRegistrar) {
	s.Step(`^the answer has status (\d{3})$`, answerHasStatus)
	s.Step(`^`+who+` is rejected as unauthorized$`, isRejectedAsUnauthorized)
	s.Step(`^the answer is a GraphQL error saying the request is bad$`, answerIsBadRequestError)
}

// lastAnswer is the answer to the scenario's last attempt.
func (w *world) lastAnswer() (*answer, error) {
	if w.last == nil {
		return nil, w.fail("no request was made to judge")
	}
	return w.last, nil
}

// okAnswerOfTheDataset is the last answer, which must be a 200, and the
// dataset the scenario talks about. why, when given, says what a client
// makes of any other status.
func (w *world) okAnswerOfTheDataset(why string) (*answer, *datasetRecord, error) {
	a, err := w.lastAnswer()
	if err != nil {
		return nil, nil, err
	}
	d, err := w.theDataset()
	if err != nil {
		return nil, nil, err
	}
	if a.status != http.StatusOK {
		if why != "" {
			why = " (" + why + ")"
		}
		return nil, nil, w.fail("%s answered status %d, expected 200%s", a.what, a.status, why)
	}
	return a, d, nil
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

func answerIsBadRequestError(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	e, err := w.graphQLRefusal(a, "a refusal as a bad request")
	if err != nil {
		return err
	}
	if e.code() != "400" {
		return w.fail("%s failed with code %q and type %q (%q), expected 400 BAD_REQUEST", a.what, e.code(), e.Extensions.Type, e.Message)
	}
	return nil
}

// refusedAsBadRequestChangingNothing: a GraphQL error saying the request is
// bad, and the request changed nothing, read back.
func refusedAsBadRequestChangingNothing(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	if err := answerIsBadRequestError(ctx); err != nil {
		return err
	}
	return w.noEffect(a)
}
