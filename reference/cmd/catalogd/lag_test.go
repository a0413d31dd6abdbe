package main

import (
	"strings"
	"testing"
	"time"
)

func TestLagFrom(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	l, err := lagFrom(env(nil))
	if err != nil || l.on() {
		t.Fatalf("unset: %+v, %v; want immediate", l, err)
	}
	l, err = lagFrom(env(map[string]string{"CATALOGD_POLICY_REFRESH": "120s", "CATALOGD_SEARCH_LAG": " 4s "}))
	if err != nil || l.policyRefresh != 120*time.Second || l.search != 4*time.Second || !l.on() {
		t.Fatalf("DataHub's defaults: %+v, %v", l, err)
	}
	for _, bad := range []string{"-1s", "soon", "120"} {
		_, err := lagFrom(env(map[string]string{"CATALOGD_POLICY_REFRESH": bad}))
		if err == nil || !strings.Contains(err.Error(), "CATALOGD_POLICY_REFRESH") || !strings.Contains(err.Error(), "2m0s") {
			t.Errorf("CATALOGD_POLICY_REFRESH=%q: %v, want an error naming it and DataHub's default", bad, err)
		}
	}
}

func TestPasswordCost(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CATALOGD_PASSWORD_COST" {
				return v
			}
			return ""
		}
	}
	if n, err := passwordCost(env("")); n != 0 || err != nil {
		t.Errorf("unset: %d, %v; want 0 (bcrypt's default)", n, err)
	}
	if n, err := passwordCost(env(" 4 ")); n != 4 || err != nil {
		t.Errorf("4: %d, %v", n, err)
	}
	for _, bad := range []string{"3", "32", "ten"} {
		if _, err := passwordCost(env(bad)); err == nil || !strings.Contains(err.Error(), "CATALOGD_PASSWORD_COST") {
			t.Errorf("%q: %v, want an error naming the variable", bad, err)
		}
	}
}
