package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/catalogspec/catalogspec/reference"
)

// complexityLimit is DataHub's default (GRAPHQL_QUERY_COMPLEXITY_LIMIT,
// 2000): a query DataHub serves is served here too.
const complexityLimit = 2000

// Handler is the GraphQL handler: gqlgen, with catalogd's limits and
// budgets, and a plan for each document that has one (plan.go).
type Handler struct {
	srv      *handler.Server
	resolver ResolverRoot
	plans    *plans
	maxBytes int
	// noPlans sends every request through gqlgen (tests compare the two).
	noPlans bool
}

// typeNameFields names __typename on every type, for the complexity limit
// to count nothing for it, as DataHub's does: graphql-java's complexity
// calculation (QueryComplexityCalculator.calculateComplexity) answers 0
// for a field that isTypeNameIntrospectionField. gqlgen counts a field
// that is ignored nothing, its key the type it is selected on and its name.
func typeNameFields(s *ast.Schema) map[string]struct{} {
	m := make(map[string]struct{}, len(s.Types))
	for name := range s.Types {
		m[name+".__typename"] = struct{}{}
	}
	return m
}

// NewHandler returns the GraphQL handler: POST only, with the contract's
// error shape. The caller puts the actor in the request context first.
func NewHandler(svc *reference.Service, version string, logger *slog.Logger, limits Limits) *Handler {
	return newHandler(&Resolver{Service: svc, Version: version}, logger, limits)
}

// newHandler is NewHandler with resolvers of the caller's (tests give
// their own, to compare a plan's answers with gqlgen's).
func newHandler(resolver ResolverRoot, logger *slog.Logger, limits Limits) *Handler {
	es := NewExecutableSchema(Config{Resolvers: resolver})
	srv := handler.New(es)
	srv.AddTransport(transport.POST{})
	l := limits.withDefaults()
	h := &Handler{srv: srv, resolver: resolver, plans: newPlans(), maxBytes: l.ResponseBytes}
	// Outermost: a document answered without an error gets its plan.
	srv.Use(planRecorder{h.plans})
	// Documents are parsed and validated once: clients send the same few.
	srv.SetQueryCache(newDocumentCache[*ast.QueryDocument]())
	srv.Use(limitsExtension{limits: l, accepted: newDocumentCache[struct{}]()})
	if !limits.NoIntrospection {
		// DataHub serves introspection; GraphiQL and code generators need it.
		srv.Use(extension.Introspection{})
	}
	srv.Use(extension.FixedComplexityLimit(complexityLimit, complexity.WithIgnoreFields(typeNameFields(es.Schema()))))
	srv.Use(&budgetExtension{maxCost: l.Cost, maxBytes: l.ResponseBytes})
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		return presentError(ctx, err, logger)
	})
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		logger.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		return errors.New("panic in resolver")
	})
	return h
}

// ServeHTTP serves a GraphQL request through gqlgen.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	flag := new(atomic.Bool)
	h.srv.ServeHTTP(&unavailableWriter{ResponseWriter: w, flag: flag}, r.WithContext(context.WithValue(r.Context(), unavailableKey{}, flag)))
}

// ServeDocument serves a request whose body the transport has read and
// checked: body, holding query and operationName, and variables unless
// noVariables. A document with a plan is answered by it; anything else,
// and whatever the plan cannot answer, by gqlgen.
func (h *Handler) ServeDocument(w http.ResponseWriter, r *http.Request, body []byte, query, operationName string, noVariables bool) {
	// gqlgen's POST transport refuses a request asking for an upgrade.
	if noVariables && !h.noPlans && r.Header.Get("Upgrade") == "" {
		if p := h.plans.get(operationName, query); p != nil && h.serveByPlan(w, r, p) {
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	h.ServeHTTP(w, r)
}

// unavailableKey marks, in a request's context, that a resolver found the
// store unavailable: the response is then a 503 with Retry-After, as the
// other API paths answer, rather than a 200 carrying a SERVER_ERROR.
type unavailableKey struct{}

func markUnavailable(ctx context.Context) {
	if flag, ok := ctx.Value(unavailableKey{}).(*atomic.Bool); ok {
		flag.Store(true)
	}
}

type unavailableWriter struct {
	http.ResponseWriter
	flag  *atomic.Bool
	wrote bool
}

func (w *unavailableWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if w.flag.Load() {
		w.Header().Set("Retry-After", reference.RetryAfterSeconds)
		code = http.StatusServiceUnavailable
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *unavailableWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// presentError maps domain errors to GraphQL errors once: the message the
// client may see and extensions {code, type}. Unknown errors are logged and
// shown as "An unknown error occurred.".
func presentError(ctx context.Context, err error, logger *slog.Logger) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var domain *reference.Error
	switch {
	case errors.As(err, &domain):
	case len(gqlErr.Path) == 0 || gqlErr.Path[0] == ast.PathName("variable"):
		// Not from a resolver: a parse or validation error, or a variable
		// that does not fit its type (a field or an enum value it does not
		// have), the client's own.
		if where := gqlErr.Path.String(); where != "" && !strings.Contains(gqlErr.Message, where) {
			gqlErr.Message += " at " + where
		}
		gqlErr.Extensions = map[string]any{"code": 400, "type": string(reference.EBADREQUEST)}
		return gqlErr
	default:
		logger.ErrorContext(ctx, "graphql resolver failed", "path", gqlErr.Path.String(), "error", err)
		domain = &reference.Error{Code: reference.EINTERNAL}
	}
	if domain.Code == reference.EUNAVAILABLE {
		logger.WarnContext(ctx, "graphql resolver: database unavailable", "path", gqlErr.Path.String(), "error", err)
		markUnavailable(ctx)
	}
	if domain.Code == reference.EINTERNAL {
		domain = &reference.Error{Code: reference.EINTERNAL, Message: reference.InternalMessage}
	}
	gqlErr.Message = domain.Message
	gqlErr.Extensions = map[string]any{"code": reference.HTTPStatus(domain.Code), "type": string(domain.Code)}
	return gqlErr
}
