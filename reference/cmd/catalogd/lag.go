package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// lag is the lagging mode, for conformance testing only, as the clock offset
// is: catalogd then lets policy changes and search-backed listings lag as
// DataHub does, so that a suite shown to pass against it is shown to wait
// where DataHub makes it wait. Unset, both are immediate.
type lag struct {
	// policyRefresh (CATALOGD_POLICY_REFRESH): requests are judged on the
	// active policies as read at a refresh every this long, as DataHub's
	// authorizer does (POLICY_CACHE_REFRESH_INTERVAL_SECONDS, 120 by default).
	policyRefresh time.Duration
	// search (CATALOGD_SEARCH_LAG): token, policy and user listings show an
	// entity this long after it is made, and go on showing one this long
	// after it is deleted, as DataHub's search index does (its bulk flush
	// every 1 s and index refresh every 3 s by default).
	search time.Duration
}

// DataHub's defaults (metadata-service/configuration/src/main/resources/
// application.yaml at datahub-project/datahub 7e93355): the authorizer's
// cacheRefreshIntervalSecs ${POLICY_CACHE_REFRESH_INTERVAL_SECONDS:120};
// the search index's bulk flushPeriod ${ES_BULK_FLUSH_PERIOD:1} and index
// refreshIntervalSeconds ${ELASTICSEARCH_INDEX_BUILDER_REFRESH_INTERVAL_SECONDS:3},
// a change being searchable after both at the longest.
const (
	DataHubPolicyRefresh = 120 * time.Second
	DataHubSearchLag     = 4 * time.Second
)

func lagFrom(getenv func(string) string) (lag, error) {
	var l lag
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{
		{"CATALOGD_POLICY_REFRESH", &l.policyRefresh},
		{"CATALOGD_SEARCH_LAG", &l.search},
	} {
		v := strings.TrimSpace(getenv(d.name))
		if v == "" {
			continue
		}
		parsed, err := time.ParseDuration(v)
		if err != nil || parsed < 0 {
			return lag{}, fmt.Errorf("%s must be a duration of zero or more, such as %s (DataHub's default), not %q", d.name, map[string]time.Duration{
				"CATALOGD_POLICY_REFRESH": DataHubPolicyRefresh, "CATALOGD_SEARCH_LAG": DataHubSearchLag}[d.name], v)
		}
		*d.to = parsed
	}
	return l, nil
}

func (l lag) on() bool { return l.policyRefresh > 0 || l.search > 0 }

// passwordCost reads CATALOGD_PASSWORD_COST, the bcrypt cost of the
// passwords catalogd stores: for conformance testing only, where a run
// sets and checks some 200 passwords (the harness starts the reference at
// bcrypt's least cost). Unset: bcrypt's default (0 here).
func passwordCost(getenv func(string) string) (int, error) {
	v := strings.TrimSpace(getenv("CATALOGD_PASSWORD_COST"))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < bcrypt.MinCost || n > bcrypt.MaxCost {
		return 0, fmt.Errorf("CATALOGD_PASSWORD_COST must be a bcrypt cost from %d to %d (default %d), not %q", bcrypt.MinCost, bcrypt.MaxCost, bcrypt.DefaultCost, v)
	}
	return n, nil
}
