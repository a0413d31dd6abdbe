package runner

import (
	"strings"
	"testing"
	"time"
)

func TestTallySummary(t *testing.T) {
	got := Tally{Removed: map[string]int{"users": 1, "datasets": 3, "policies": 1, "dataJob entities": 2},
		PutBack: []string{"the policy urn:li:dataHubPolicy:7 ACTIVE again"},
		Failed:  []string{"urn:li:tag:catalogspec-tag-x-1: status 500"}}.Summary()
	for _, want := range []string{"removed 1 user, 3 datasets, 0 tags, 1 policy, 0 tokens, 0 sessions, 2 dataJob entities",
		"put back 1 changed thing (the policy urn:li:dataHubPolicy:7 ACTIVE again)", "could NOT remove or put back 1: urn:li:tag:catalogspec-tag-x-1"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not say %q", got, want)
		}
	}
}

func TestHoldOptions(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	o, err := holdOptions(env(nil))
	if err != nil || o.Lease != DefaultLease || o.Wait != 0 {
		t.Errorf("defaults: %+v, %v; want a lease of %s and no wait", o, err, DefaultLease)
	}
	o, err = holdOptions(env(map[string]string{EnvLease: "2s", EnvWait: "10m"}))
	if err != nil || o.Lease != 2*time.Second || o.Wait != 10*time.Minute {
		t.Errorf("set: %+v, %v", o, err)
	}
	for _, bad := range []map[string]string{{EnvLease: "100ms"}, {EnvLease: "soon"}, {EnvWait: "-1s"}, {EnvWait: "forever"}} {
		if _, err := holdOptions(env(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
