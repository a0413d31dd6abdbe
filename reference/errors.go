// Package reference holds the domain of the reference metadata service:
// URNs, actors, privileges and policies, access tokens, the closed set of
// error codes, and the Service that applies the contract's rules. Transports
// (reference/graph, reference/httpapi) and storage (reference/postgres) live
// in packages of their own and depend on this one, never on each other.
package reference

import (
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// ErrorCode is one of a closed set of codes. Each transport maps them once:
// httpapi to an HTTP status, graph to GraphQL extensions.
type ErrorCode string

// The error codes. The string values are DataHub's GraphQL error types.
const (
	EBADREQUEST      ErrorCode = "BAD_REQUEST"
	EUNAUTHENTICATED ErrorCode = "UNAUTHENTICATED"
	EUNAUTHORIZED    ErrorCode = "UNAUTHORIZED"
	ENOTFOUND        ErrorCode = "NOT_FOUND"
	ECONFLICT        ErrorCode = "CONFLICT"
	EINTERNAL        ErrorCode = "SERVER_ERROR"
	// EUNAVAILABLE is not one of DataHub's types (DataHub answers a store
	// outage with SERVER_ERROR): the reference says "try again" instead, as
	// HTTP's 503 and Retry-After do.
	EUNAVAILABLE ErrorCode = "SERVICE_UNAVAILABLE"
	// EUNPROCESSABLE is a value that does not match its aspect's schema:
	// DataHub's ingestion answers its ValidationException with 422.
	EUNPROCESSABLE ErrorCode = "UNPROCESSABLE_ENTITY"
)

// Messages a client sees for codes whose wording DataHub fixes.
const (
	UnauthorizedMessage = "Unauthorized to perform this action. Please contact your DataHub administrator."
	InternalMessage     = "An unknown error occurred."
	UnavailableMessage  = "The service is temporarily unavailable: its database does not answer. Try again shortly."
)

// Error is an error meant for the client: its message is safe to show.
type Error struct {
	Code    ErrorCode
	Message string
	// RetryAfter, for ETOOMANYREQUESTS, is how long to wait before trying
	// again (RetryAfterOf).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with a formatted, client-safe message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// RetryAfterSeconds is the Retry-After every transport gives an
// EUNAVAILABLE answer.
const RetryAfterSeconds = "2"

// ErrUnavailable is the answer while the store does not answer.
var ErrUnavailable = &Error{Code: EUNAVAILABLE, Message: UnavailableMessage}

// ErrUnauthorized is the answer to a caller who lacks a privilege.
var ErrUnauthorized = &Error{Code: EUNAUTHORIZED, Message: UnauthorizedMessage}

// ErrorCodeOf returns the code of err, EINTERNAL for anything that is not an
// *Error, and "" for nil.
func ErrorCodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessageOf returns the client-safe message of err: the message of an
// *Error, and InternalMessage for anything else, whose text stays in the log.
func ErrorMessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return InternalMessage
}

// HTTPStatus maps an error code to its HTTP status, the one table for it.
func HTTPStatus(code ErrorCode) int {
	switch code {
	case EBADREQUEST:
		return 400
	case EUNAUTHENTICATED:
		return 401
	case EUNAUTHORIZED:
		return 403
	case ENOTFOUND:
		return 404
	case ECONFLICT:
		return 409
	case EUNPROCESSABLE:
		return 422
	case ETOOMANYREQUESTS:
		return 429
	case EUNAVAILABLE:
		return 503
	default:
		return 500
	}
}

// Excerpt quotes at most the first 40 characters of client input, escaped,
// for an error message: never the input whole.
func Excerpt(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return strconv.Quote(string(r[:max])) + fmt.Sprintf("… (%d bytes)", len(s))
}
