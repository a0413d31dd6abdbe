package runner

import (
	"fmt"
	"strings"
	"time"
)

// The reference can be started lagging as DataHub does (catalogd's
// CATALOGD_POLICY_REFRESH and CATALOGD_SEARCH_LAG, for conformance testing
// only): policy changes take effect at the next periodic refresh, and the
// token, policy and user lists show a change only a while after it. A run
// against it shows that every step waits where DataHub makes it wait:
// `make test` runs the must-level scenarios against a reference refreshing
// every few seconds, `make bench` against DataHub's own defaults.

// DataHub's defaults: the authorizer refreshes its policies every
// POLICY_CACHE_REFRESH_INTERVAL_SECONDS (120); a write is searchable after
// the bulk processor's flush (ES_BULK_FLUSH_PERIOD, 1 s) and the index's
// refresh (ELASTICSEARCH_INDEX_BUILDER_REFRESH_INTERVAL_SECONDS, 3 s), 4 s at
// the longest (metadata-service/configuration/src/main/resources/
// application.yaml, datahub-project/datahub 7e93355).
const (
	dataHubPolicyRefresh = 120 * time.Second
	dataHubSearchLag     = 4 * time.Second
)

// SearchLag is how long a write may take to show in the target's search
// index: the reference's own lag when the harness started it (zero when
// immediate), else DataHub's default, but never more than a quarter of the
// propagation window: a target given a short window (an immediate one,
// such as `catalogd serve` checked with CATALOGSPEC_PROPAGATION_TIMEOUT=5s)
// is taken at its word, and waits of twice the lag still fit in it.
func (t *Target) SearchLag() time.Duration {
	if t.Reference {
		return t.Lag.Search
	}
	if t.Propagation > 0 {
		return min(dataHubSearchLag, t.Propagation/4)
	}
	return dataHubSearchLag
}

// referenceLag is how the harness starts the reference: zero is immediate.
type referenceLag struct {
	PolicyRefresh time.Duration `json:"policy_refresh_ns,omitempty"`
	Search        time.Duration `json:"search_lag_ns,omitempty"`
}

func (l referenceLag) on() bool { return l.PolicyRefresh > 0 || l.Search > 0 }

// parseReferenceLag reads CATALOGSPEC_REFERENCE_LAG: "" (immediate),
// "datahub" (DataHub's defaults), or "<policy refresh>[,<search lag>]" with
// the search lag DataHub's when left out, e.g. "3s,1s".
func parseReferenceLag(v string) (referenceLag, error) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "", "none", "0":
		return referenceLag{}, nil
	case "datahub":
		return referenceLag{PolicyRefresh: dataHubPolicyRefresh, Search: dataHubSearchLag}, nil
	}
	bad := fmt.Errorf("%s=%q: want datahub (a policy refresh every %s, a search lag of %s), or a policy refresh and a search lag such as 3s,1s", envReferenceLag, v, dataHubPolicyRefresh, dataHubSearchLag)
	refresh, search, hasSearch := strings.Cut(v, ",")
	l := referenceLag{Search: dataHubSearchLag}
	var err error
	if l.PolicyRefresh, err = time.ParseDuration(strings.TrimSpace(refresh)); err != nil || l.PolicyRefresh <= 0 {
		return referenceLag{}, bad
	}
	if hasSearch {
		if l.Search, err = time.ParseDuration(strings.TrimSpace(search)); err != nil || l.Search < 0 {
			return referenceLag{}, bad
		}
	}
	return l, nil
}

// env is what catalogd reads to lag so.
func (l referenceLag) env(env []string) []string {
	if !l.on() {
		return env
	}
	return withEnv(withEnv(env, "CATALOGD_POLICY_REFRESH", l.PolicyRefresh.String()), "CATALOGD_SEARCH_LAG", l.Search.String())
}

// window is the propagation window that fits: the reference's own when it
// is immediate; else a refresh after the search lag, and a quarter more (at
// least 5 s) for the polls to see it: 155 s with DataHub's defaults.
func (l referenceLag) window() time.Duration {
	if !l.on() {
		return referencePropagation
	}
	d := l.PolicyRefresh + l.Search
	return d + max(5*time.Second, d/4)
}
