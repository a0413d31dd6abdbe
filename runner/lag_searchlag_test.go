package runner

import (
	"testing"
	"time"
)

// TestSearchLagFitsThePropagationWindow: a target by URL is given DataHub's
// search lag, but never more than a quarter of its propagation window, so
// that waits of twice the lag fit in it; the reference's own lag is its.
func TestSearchLagFitsThePropagationWindow(t *testing.T) {
	for _, c := range []struct {
		target Target
		want   time.Duration
	}{
		{Target{Propagation: 150 * time.Second}, 4 * time.Second},
		{Target{Propagation: 5 * time.Second}, 1250 * time.Millisecond},
		{Target{}, 4 * time.Second},
		{Target{Reference: true, Propagation: 5 * time.Second, Lag: referenceLag{Search: time.Second}}, time.Second},
		{Target{Reference: true, Propagation: 5 * time.Second}, 0},
	} {
		if got := c.target.SearchLag(); got != c.want {
			t.Errorf("reference %v, window %s, lag %s: SearchLag %s, want %s", c.target.Reference, c.target.Propagation, c.target.Lag.Search, got, c.want)
		}
	}
}
