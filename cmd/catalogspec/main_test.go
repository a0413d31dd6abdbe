package main

import (
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	noEnv := func(string) string { return "" }
	cases := []struct {
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{[]string{"version"}, 0, "(spec ", ""},
		{[]string{"list"}, 0, "token-01", ""},
		{[]string{"list", "--json"}, 0, `"level": "must"`, ""},
		{[]string{"--help"}, 0, "catalogspec run", ""},
		{[]string{"--help"}, 0, "catalogspec audit", ""},
		{[]string{"run", "--help"}, 0, "CATALOGSPEC_GMS_URL", ""},
		{[]string{"run", "--help"}, 0, "CATALOGSPEC_WAIT", ""},
		{[]string{"--help"}, 0, "catalogspec cleanup", ""},
		{[]string{"cleanup", "--help"}, 0, "A run that is alive is never touched", ""},
		{[]string{"cleanup"}, 2, "cleanup needs a target", ""},
		{[]string{"cleanup", "--tags", "@smoke"}, 2, "", "flag provided but not defined"},
		{[]string{"run", "--lease", "soon"}, 2, "CATALOGSPEC_LEASE", ""},
		{[]string{"audit", "--help"}, 0, "only the scenarios tagged\n@read-only", ""},
		{[]string{"audit", "-h"}, 0, "CATALOGSPEC_TOKEN", ""},
		{[]string{"audit"}, 2, "the read-only audit checks a deployment: set CATALOGSPEC_GMS_URL", ""},
		{[]string{"audit", "--admin-token-file", "x"}, 2, "", "flag provided but not defined: -admin-token-file"},
		{[]string{"audit", "--token-file", "/no/such/file", "--gms-url", "http://127.0.0.1:1"}, 2, "", "--token-file: open /no/such/file"},
		{[]string{"audit", "extra"}, 2, "", "catalogspec audit takes no arguments"},
		{[]string{"audit", "--tags", "@ui", "--gms-url", "http://127.0.0.1:1", "--frontend-url", "http://127.0.0.1:2"}, 2, "selects no scenario tagged @read-only", ""},
		{nil, 2, "", "Usage:"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"run", "extra"}, 2, "", "takes no arguments"},
		{[]string{"version", "x"}, 2, "", "takes no arguments"},
		{[]string{"run", "--fail-on", "often"}, 2, "want must, should or may", ""},
		{[]string{"run", "--tags", "@smok", "--gms-url", "http://127.0.0.1:1", "--frontend-url", "http://127.0.0.1:2"}, 2, "names @smok", ""},
	}
	for _, c := range cases {
		var out, errb strings.Builder
		code := run(c.args, &out, &errb, noEnv)
		if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errb.String(), c.err) {
			t.Errorf("catalogspec %q: exit %d (want %d)\nstdout: %s\nstderr: %s", c.args, code, c.code, out.String(), errb.String())
		}
	}
}
