package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/internal/syncbuf"
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
		"bad no-expiry flag": {[]string{"catalogd", "token", "create", "--name", "x"}, map[string]string{"ACCESS_TOKEN_ALLOW_NO_EXPIRY": "sometimes"}, "ACCESS_TOKEN_ALLOW_NO_EXPIRY must be true or false"},
		"short signing key":  {[]string{"catalogd", "token", "create", "--name", "x"}, map[string]string{"DATAHUB_TOKEN_SERVICE_SIGNING_KEY": "short"}, "at least 32"},
		"unknown actor":      {[]string{"catalogd", "token", "create", "--name", "x", "--actor", "urn:li:corpuser:nobody"}, nil, "does not exist"},
		"bad duration":       {[]string{"catalogd", "token", "create", "--name", "x", "--duration", "FOREVER"}, nil, "ONE_HOUR, ONE_DAY"},
		"extra argument":     {[]string{"catalogd", "token", "create", "--name", "x", "extra"}, nil, `unexpected argument "extra"`},
		"serve extra":        {[]string{"catalogd", "serve", "now"}, nil, `unexpected argument "now"`},
		"bad log level":      {[]string{"catalogd", "serve", "--log-level", "verbose"}, nil, "debug, info, warn, error"},
		"actor not a user":   {[]string{"catalogd", "token", "create", "--name", "x", "--actor", "urn:li:tag:x"}, nil, "not a user URN"},
		"unknown flag":       {[]string{"catalogd", "token", "create", "--nmae", "x"}, nil, "flag provided but not defined"},
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

// TestFlagsAreCheckedBeforeAnyDatabase: a mistyped flag is reported at
// once, naming the valid values, without looking for a database (here
// there is none to find).
func TestFlagsAreCheckedBeforeAnyDatabase(t *testing.T) {
	noDB := func(k string) string {
		if k == "DATABASE_URL" {
			return "postgres://nobody@127.0.0.1:1/none?connect_timeout=30"
		}
		return ""
	}
	for _, args := range [][]string{
		{"catalogd", "token", "create", "--name", "x", "--duration", "FOREVER"},
		{"catalogd", "token", "create", "--name", "x", "--log-level", "loud"},
		{"catalogd", "serve", "--log-level", "verbose"},
	} {
		began := time.Now()
		var stdout, stderr strings.Builder
		err := run(context.Background(), args, noDB, &stdout, &stderr)
		if err == nil || strings.Contains(err.Error(), "postgres") || time.Since(began) > time.Second {
			t.Errorf("%v: err = %v after %s; want the flag refused at once", args[1:], err, time.Since(began))
		}
	}
}

// TestHelpAndVersion: -h and --help print the usage to stdout and succeed;
// serve's names the environment it reads; version names the version.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{
		{"catalogd", "serve", "--help"}, {"catalogd", "serve", "-h"},
		{"catalogd", "token", "create", "--help"}, {"catalogd", "help"}, {"catalogd", "version"},
	} {
		var stdout, stderr strings.Builder
		if err := run(context.Background(), args, env(nil), &stdout, &stderr); err != nil {
			t.Errorf("%v: %v", args[1:], err)
		}
		if stdout.Len() == 0 {
			t.Errorf("%v printed nothing on stdout", args[1:])
		}
	}
	var stdout strings.Builder
	_ = run(context.Background(), []string{"catalogd", "serve", "-h"}, env(nil), &stdout, io.Discard)
	for _, want := range []string{"-gms-addr", "DATABASE_URL", "CATALOGD_DB_TIMEOUT", "METADATA_SERVICE_AUTH_ENABLED"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("serve -h does not mention %s", want)
		}
	}
	stdout.Reset()
	_ = run(context.Background(), []string{"catalogd", "version"}, env(nil), &stdout, io.Discard)
	if !strings.HasPrefix(stdout.String(), "catalogd "+version) {
		t.Errorf("version printed %q", stdout.String())
	}
}

// TestServeAndFirstToken runs the program as an operator would: serve on
// free ports, mint the first token against the database, use it, stop. The
// --ready-file says what the "listening on" lines say, replaces a file
// left by an earlier run, and is gone once serve has stopped.
func TestServeAndFirstToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	serveLog := &syncbuf.Buffer{}
	readyFile := filepath.Join(t.TempDir(), "ready.json")
	stale := `{"gms":"http://127.0.0.1:1","frontend":"http://127.0.0.1:2","pid":1}`
	if err := os.WriteFile(readyFile, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- run(ctx, []string{"catalogd", "serve", "--gms-addr", "127.0.0.1:0", "--frontend-addr", "127.0.0.1:0", "--ready-file", readyFile}, env(nil), stdoutW, serveLog)
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
	var ready struct {
		GMS, Frontend string
		PID           int
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(readyFile)
		if err == nil && string(b) != stale {
			if err := json.Unmarshal(b, &ready); err != nil {
				t.Fatalf("--ready-file holds %q: %v", b, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("--ready-file not written within 5s of the listening lines (%v)", err)
		}
	}
	if ready.GMS != urls["gms"] || ready.Frontend != urls["frontend"] || ready.PID != os.Getpid() {
		t.Errorf("--ready-file says %+v; the listening lines say %v (pid %d)", ready, urls, os.Getpid())
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

	// GraphiQL on the metadata service, for a client with a token: the
	// page, and every script and stylesheet it names, from the service
	// itself and without a token (a browser sends none for them).
	req, _ := http.NewRequest("GET", urls["gms"]+"/api/graphiql", nil)
	req.Header.Set("Authorization", "Bearer "+raw)
	page, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 {
		t.Fatalf("GraphiQL at the metadata service: %d (GraphiQL's bundles are built by make assets): %.300s", page.StatusCode, body)
	}
	assets := regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`).FindAllStringSubmatch(string(body), -1)
	if len(assets) < 5 {
		t.Errorf("the GraphiQL page names %d assets, want its scripts and stylesheets: %s", len(assets), body)
	}
	for _, a := range assets {
		res, err := http.Get(urls["gms"] + a[1])
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("%s at the metadata service: %d", a[1], res.StatusCode)
		}
	}

	res, err := http.Get(urls["gms"] + "/entities/urn:li:corpuser:datahub?secret=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v on shutdown", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}
	if _, err := os.Stat(readyFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--ready-file is still there after serve stopped (%v)", err)
	}
	// One access-log line per request at info: the refused one too, with no
	// query values; the authenticated ones name their actor; no token.
	log := serveLog.String()
	if !strings.Contains(log, `level=INFO msg=request method=GET path=/entities/urn:li:corpuser:datahub status=401`) {
		t.Errorf("no access-log line for the refused request:\n%s", log)
	}
	if !strings.Contains(log, "status=200") || !strings.Contains(log, "actor=urn:li:corpuser:datahub") {
		t.Errorf("no access-log line naming the actor:\n%s", log)
	}
	if strings.Contains(log, raw) || strings.Contains(log, "secret=1") {
		t.Errorf("the log holds a token or a query value:\n%s", log)
	}
}

// TestNoExpirySettingReachesTheService: tokens that never expire are made
// unless ACCESS_TOKEN_ALLOW_NO_EXPIRY is false, as docs/catalogd.md says.
func TestNoExpirySettingReachesTheService(t *testing.T) {
	for value, want := range map[string]bool{"": true, " false ": false} {
		b, _, err := open(context.Background(), common{logLevel: "error"}, env(map[string]string{"ACCESS_TOKEN_ALLOW_NO_EXPIRY": value}), io.Discard, io.Discard, false)
		if err != nil {
			t.Fatalf("ACCESS_TOKEN_ALLOW_NO_EXPIRY=%q: %v", value, err)
		}
		if got := b.svc.AllowsNoExpiry(); got != want {
			t.Errorf("ACCESS_TOKEN_ALLOW_NO_EXPIRY=%q: AllowsNoExpiry() = %t, want %t", value, got, want)
		}
		b.close()
	}
}
