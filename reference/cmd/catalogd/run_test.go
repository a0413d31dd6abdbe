package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

var databaseURL string

func TestMain(m *testing.M) {
	ctx := context.Background()
	db, err := pgprovider.Provide(ctx, pgprovider.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need a PostgreSQL database:", err)
		os.Exit(1)
	}
	databaseURL = db.URL
	code := m.Run()
	_ = db.Close(ctx)
	os.Exit(code)
}

func env(extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		if k == "DATABASE_URL" {
			return databaseURL
		}
		return ""
	}
}

func TestRunRefusesBadInvocations(t *testing.T) {
	cases := map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"no command":         {[]string{"catalogd"}, nil, "no command"},
		"unknown command":    {[]string{"catalogd", "launch"}, nil, `unknown command "launch"`},
		"token without name": {[]string{"catalogd", "token", "create"}, nil, "--name is required"},
		"bad auth flag":      {[]string{"catalogd", "token", "create", "--name", "x"}, map[string]string{"METADATA_SERVICE_AUTH_ENABLED": "maybe"}, "METADATA_SERVICE_AUTH_ENABLED"},
		"short signing key":  {[]string{"catalogd", "token", "create", "--name", "x"}, map[string]string{"DATAHUB_TOKEN_SERVICE_SIGNING_KEY": "short"}, "at least 32"},
		"unknown actor":      {[]string{"catalogd", "token", "create", "--name", "x", "--actor", "urn:li:corpuser:nobody"}, nil, "does not exist"},
		"bad duration":       {[]string{"catalogd", "token", "create", "--name", "x", "--duration", "FOREVER"}, nil, "unknown token duration"},
	}
	for name, c := range cases {
		var stdout, stderr strings.Builder
		err := run(context.Background(), c.args, env(c.env), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
		if stdout.Len() > 0 && strings.Contains(stdout.String(), "eyJ") {
			t.Errorf("%s: printed a token although it failed", name)
		}
	}
}

// TestServeAndFirstToken runs the program as an operator would: serve on
// free ports, mint the first token against the database, use it, stop.
func TestServeAndFirstToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"catalogd", "serve", "--gms-addr", "127.0.0.1:0", "--frontend-addr", "127.0.0.1:0"}, env(nil), stdoutW, io.Discard)
		stdoutW.Close()
	}()
	urls := map[string]string{}
	sc := bufio.NewScanner(stdoutR)
	for len(urls) < 2 && sc.Scan() {
		line := sc.Text()
		for _, tier := range []string{"gms", "frontend"} {
			if rest, ok := strings.CutPrefix(line, "catalogd: "+tier+" listening on "); ok {
				urls[tier] = rest
			}
		}
	}
	go io.Copy(io.Discard, stdoutR) //nolint:errcheck // drain the rest
	if len(urls) < 2 {
		t.Fatalf("serve did not say where it listens: %v (%v)", urls, <-done)
	}

	var token, logs strings.Builder
	if err := run(context.Background(), []string{"catalogd", "token", "create", "--name", "first", "--duration", "ONE_HOUR"}, env(nil), &token, &logs); err != nil {
		t.Fatal(err)
	}
	raw := strings.TrimSpace(token.String())
	if strings.Count(raw, ".") != 2 || strings.ContainsAny(raw, " \n") {
		t.Fatalf("token create printed %q, want the token alone", raw)
	}
	if strings.Contains(logs.String(), raw) {
		t.Error("token create logged the token")
	}
	for _, base := range []string{urls["gms"], urls["frontend"] + "/api/gms"} {
		req, _ := http.NewRequest("GET", base+"/entities/urn:li:corpuser:datahub", nil)
		req.Header.Set("Authorization", "Bearer "+raw)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("%s with the first token: %d", base, res.StatusCode)
		}
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v on shutdown", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}
}
