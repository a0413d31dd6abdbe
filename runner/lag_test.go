package runner

import (
	"strings"
	"testing"
	"time"
)

func TestReferenceLag(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   referenceLag
		window time.Duration
	}{
		{"", referenceLag{}, referencePropagation},
		{"datahub", referenceLag{PolicyRefresh: 120 * time.Second, Search: 4 * time.Second}, 155 * time.Second},
		{"3s,1s", referenceLag{PolicyRefresh: 3 * time.Second, Search: time.Second}, 9 * time.Second},
		{"3s", referenceLag{PolicyRefresh: 3 * time.Second, Search: 4 * time.Second}, 12 * time.Second},
		{" 2s , 0s ", referenceLag{PolicyRefresh: 2 * time.Second}, 7 * time.Second},
	} {
		got, err := parseReferenceLag(tc.in)
		if err != nil || got != tc.want || got.window() != tc.window {
			t.Errorf("%q: %+v (window %s), %v; want %+v (window %s)", tc.in, got, got.window(), err, tc.want, tc.window)
		}
	}
	for _, bad := range []string{"0s", "-3s", "3", "3s,soon", "3s,-1s", "fast"} {
		if _, err := parseReferenceLag(bad); err == nil || !strings.Contains(err.Error(), envReferenceLag) {
			t.Errorf("%q: %v, want an error naming %s", bad, err, envReferenceLag)
		}
	}
}
