package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph"
	"github.com/catalogspec/catalogspec/reference/postgres"
)

// limits are the bounds that keep one client from holding the service:
// each from an environment variable, with a default no real client
// reaches. docs/catalogd.md lists them.
type limits struct {
	dbTimeout       time.Duration // CATALOGD_DB_TIMEOUT: one call to the database
	requestTimeout  time.Duration // CATALOGD_REQUEST_TIMEOUT: one request, end to end
	readTimeout     time.Duration // CATALOGD_READ_TIMEOUT: reading one request, body included
	idleTimeout     time.Duration // CATALOGD_IDLE_TIMEOUT: a kept-alive connection between requests
	maxHeaderBytes  int           // CATALOGD_MAX_HEADER_BYTES
	graphql         graph.Limits  // CATALOGD_GRAPHQL_MAX_{TOKENS,FIELDS,DEPTH,SAME_NAME,SPREADS,FRAGMENTS,ERRORS,COST,RESPONSE_BYTES}
	cache           bool          // CATALOGD_CACHE: keep users, tokens and policies in memory
	sessionTTL      time.Duration // CATALOGD_SESSION_TTL: how long a browser session lasts
	tokensPerUser   int           // CATALOGD_MAX_TOKENS_PER_USER: unexpired tokens one user may own
	sessionsPerUser int           // CATALOGD_MAX_SESSIONS_PER_USER: sessions one user holds at once
	readBytes       int           // CATALOGD_MAX_READ_BYTES: stored metadata one request reads
	bytesInFlight   int           // CATALOGD_MAX_BYTES_IN_FLIGHT: what the requests in flight hold
	// CATALOGD_SIGNIN_MAX_FAILURES_PER_USER, _PER_CLIENT, CATALOGD_SIGNIN_FAILURE_WINDOW
	throttle reference.ThrottleConfig
}

// readHeaderTimeout bounds the request line and headers: no client needs
// more, and a slow one holds a connection without saying who it is.
const readHeaderTimeout = 10 * time.Second

func limitsFrom(getenv func(string) string) (limits, error) {
	l := limits{
		dbTimeout:       postgres.DefaultQueryTimeout,
		requestTimeout:  30 * time.Second,
		readTimeout:     30 * time.Second,
		idleTimeout:     120 * time.Second,
		maxHeaderBytes:  64 << 10,
		graphql:         graph.DefaultLimits,
		cache:           true,
		sessionTTL:      reference.DefaultSessionLifetime,
		tokensPerUser:   reference.DefaultMaxTokensPerUser,
		sessionsPerUser: reference.DefaultMaxSessionsPerUser,
		readBytes:       reference.DefaultMaxReadBytes,
		bytesInFlight:   reference.DefaultMaxBytesInFlight,
		throttle: reference.ThrottleConfig{
			MaxFailuresPerUser:   reference.DefaultMaxFailuresPerUser,
			MaxFailuresPerClient: reference.DefaultMaxFailuresPerClient,
			Window:               reference.DefaultFailureWindow,
		},
	}
	durations := []struct {
		name string
		to   *time.Duration
	}{
		{"CATALOGD_DB_TIMEOUT", &l.dbTimeout},
		{"CATALOGD_REQUEST_TIMEOUT", &l.requestTimeout},
		{"CATALOGD_READ_TIMEOUT", &l.readTimeout},
		{"CATALOGD_IDLE_TIMEOUT", &l.idleTimeout},
		{"CATALOGD_SESSION_TTL", &l.sessionTTL},
		{"CATALOGD_SIGNIN_FAILURE_WINDOW", &l.throttle.Window},
	}
	for _, d := range durations {
		v := strings.TrimSpace(getenv(d.name))
		if v == "" {
			continue
		}
		parsed, err := time.ParseDuration(v)
		if err != nil || parsed <= 0 {
			return limits{}, fmt.Errorf("%s must be a positive duration such as 5s or 500ms, not %q", d.name, v)
		}
		*d.to = parsed
	}
	counts := []struct {
		name string
		to   *int
	}{
		{"CATALOGD_MAX_HEADER_BYTES", &l.maxHeaderBytes},
		{"CATALOGD_GRAPHQL_MAX_TOKENS", &l.graphql.Tokens},
		{"CATALOGD_GRAPHQL_MAX_FIELDS", &l.graphql.Fields},
		{"CATALOGD_GRAPHQL_MAX_DEPTH", &l.graphql.Depth},
		{"CATALOGD_GRAPHQL_MAX_SAME_NAME", &l.graphql.SameName},
		{"CATALOGD_GRAPHQL_MAX_SPREADS", &l.graphql.Spreads},
		{"CATALOGD_GRAPHQL_MAX_FRAGMENTS", &l.graphql.Fragments},
		{"CATALOGD_GRAPHQL_MAX_COST", &l.graphql.Cost},
		{"CATALOGD_GRAPHQL_MAX_RESPONSE_BYTES", &l.graphql.ResponseBytes},
		{"CATALOGD_MAX_TOKENS_PER_USER", &l.tokensPerUser},
		{"CATALOGD_MAX_SESSIONS_PER_USER", &l.sessionsPerUser},
		{"CATALOGD_SIGNIN_MAX_FAILURES_PER_USER", &l.throttle.MaxFailuresPerUser},
		{"CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT", &l.throttle.MaxFailuresPerClient},
		{"CATALOGD_GRAPHQL_MAX_ERRORS", &l.graphql.Errors},
		{"CATALOGD_MAX_READ_BYTES", &l.readBytes},
		{"CATALOGD_MAX_BYTES_IN_FLIGHT", &l.bytesInFlight},
	}
	if v := strings.TrimSpace(getenv("CATALOGD_CACHE")); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return limits{}, fmt.Errorf("CATALOGD_CACHE must be true or false, not %q", v)
		}
		l.cache = on
	}
	if v := strings.TrimSpace(getenv("CATALOGD_GRAPHQL_INTROSPECTION")); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return limits{}, fmt.Errorf("CATALOGD_GRAPHQL_INTROSPECTION must be true or false, not %q", v)
		}
		l.graphql.NoIntrospection = !on
	}
	for _, c := range counts {
		v := strings.TrimSpace(getenv(c.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return limits{}, fmt.Errorf("%s must be a positive whole number, not %q", c.name, v)
		}
		*c.to = n
	}
	return l, nil
}

// server returns an http.Server for h with every timeout set: a client that
// sends slowly, or not at all, loses its connection. Writing may take the
// request's own deadline and a little more.
func (l limits) server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(readHeaderTimeout, l.readTimeout),
		ReadTimeout:       l.readTimeout,
		WriteTimeout:      l.requestTimeout + 5*time.Second,
		IdleTimeout:       l.idleTimeout,
		MaxHeaderBytes:    l.maxHeaderBytes,
	}
}
