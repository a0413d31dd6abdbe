package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// A screenshot of a failing @ui step goes into the reports: the page is
// masked first, so that no token shown on it (a new token's field, GraphiQL's
// headers editor, any text) reaches the report; and each scenario's page is
// a fresh browser context, which holds nothing of another's.
func TestBrowserPagesAreMaskedAndFresh(t *testing.T) {
	path, err := findBrowser(os.Getenv)
	if err != nil {
		t.Fatalf("this test drives a browser, as the @ui scenarios do: %v", err)
	}
	const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2lnbmF0dXJl"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/read" {
			_, _ = w.Write([]byte(`<html><body>nothing set here</body></html>`))
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "kept", Value: "yes", Path: "/"})
		_, _ = w.Write([]byte(`<html><body><input id="t" value="` + token + `"><p id="p">Bearer ` + token + `</p>
			<script>localStorage.setItem("k", "v")</script></body></html>`))
	}))
	defer srv.Close()
	b := &Browser{path: path}
	defer b.close()
	p, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(srv.URL); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shot, err := p.Screenshot(dir, "masked")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 || filepath.Dir(shot) != dir {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	var html string
	if err := p.Eval(`document.getElementById("t").value + " " + document.documentElement.outerHTML`, &html); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, token) || !strings.Contains(html, "[masked]") {
		t.Errorf("the page still shows the token when its screenshot is taken:\n%s", html)
	}

	// Another scenario's page holds nothing of the one before: no cookie,
	// no storage, no request (browser_test's TestBrowserPageEmptied shows
	// an emptied page in detail).
	p.Release()
	again, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := again.Cookies(srv.URL); err != nil || len(cs) != 0 {
		t.Errorf("cookies in a fresh page: %v, %v", cs, err)
	}
	if n := len(again.Seen()); n != 0 {
		t.Errorf("a fresh page remembers %d requests", n)
	}
	if err := again.Navigate(srv.URL + "/read"); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := again.Eval(`String(localStorage.getItem("k"))`, &stored); err != nil {
		t.Fatal(err)
	}
	if stored != "null" {
		t.Errorf("local storage in a fresh page: k = %q", stored)
	}
}

// A page used by one scenario is emptied before another uses it: its
// document is gone (what its scripts wrote as it went is cleared too), and
// no cookie, local storage, IndexedDB, Cache Storage, HTTP cache or history
// of the scenario before is left. A page that wrote to its session storage
// (which lives as long as its tab, and no command clears) is not emptied:
// it is thrown away with its context.
func TestBrowserPageEmptied(t *testing.T) {
	path, err := findBrowser(os.Getenv)
	if err != nil {
		t.Fatalf("this test drives a browser, as the @ui scenarios do: %v", err)
	}
	var cssLoads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cached.css":
			cssLoads.Add(1)
			w.Header().Set("Cache-Control", "public, max-age=3600")
			w.Header().Set("Content-Type", "text/css")
			_, _ = w.Write([]byte(`body { color: black }`))
			return
		case "/read":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<html><head><link rel="stylesheet" href="/cached.css"></head><body>reading</body></html>`))
			return
		case "/first":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<html><body>first</body></html>`))
			return
		case "/session":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<html><body><script>sessionStorage.setItem("s", "v")</script></body></html>`))
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "kept", Value: "yes", Path: "/", HttpOnly: true})
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><head><link rel="stylesheet" href="/cached.css"></head><body><script>
			localStorage.setItem("k", "v");
			document.cookie = "script=yes; path=/";
			indexedDB.open("db", 1).onupgradeneeded = e => e.target.result.createObjectStore("s");
			caches.open("c").then(c => c.put("/x", new Response("x")));
			addEventListener("pagehide", () => { localStorage.setItem("late", "v"); document.cookie = "late=yes; path=/" });
		</script></body></html>`))
	}))
	defer srv.Close()
	b := &Browser{path: path}
	defer b.close()
	p, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	// A page the scenario left before its last, to be found in the
	// page's history.
	if err := p.Navigate(srv.URL + "/first"); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	// A cookie given to the browser for a site it never opened, as a step
	// gives a browser a session.
	const elsewhere = "http://elsewhere.test/"
	if err := p.Run(network.SetCookie("given", "yes").WithURL(elsewhere)); err != nil {
		t.Fatal(err)
	}
	var wrote bool
	if err := p.Eval(`new Promise(done => { const t = setInterval(async () => {
		const dbs = await indexedDB.databases(); const keys = await caches.keys();
		if (dbs.length && keys.length) { clearInterval(t); done(true) } }, 20) })`, &wrote); err != nil || !wrote {
		t.Fatalf("the page did not store what it should: %v", err)
	}
	if err := p.empty(); err != nil {
		t.Fatalf("emptying a page: %v", err)
	}
	if n := len(p.Seen()); n != 0 {
		t.Errorf("an emptied page remembers %d requests", n)
	}
	for _, u := range []string{srv.URL, elsewhere} {
		if cs, err := p.Cookies(u); err != nil || len(cs) != 0 {
			t.Errorf("cookies for %s in an emptied page: %v, %v", u, cs, err)
		}
	}
	if err := p.Navigate(srv.URL + "/read"); err != nil {
		t.Fatal(err)
	}
	var left string
	if err := p.Eval(`(async () => [document.cookie, String(localStorage.getItem("k")), String(localStorage.getItem("late")),
		(await indexedDB.databases()).length, (await caches.keys()).length].join(","))()`, &left); err != nil {
		t.Fatal(err)
	}
	if left != ",null,null,0,0" {
		t.Errorf("an emptied page holds what the scenario before left (cookies, local storage, what was stored as it went, IndexedDB, Cache Storage): %q", left)
	}
	if n := cssLoads.Load(); n != 2 {
		t.Errorf("the stylesheet was asked for %d times, not twice: the HTTP cache kept it", n)
	}
	var entries []*page.NavigationEntry
	if err := p.Run(chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		_, entries, err = page.GetNavigationHistory().Do(ctx)
		return err
	})); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.URL, srv.URL) && e.URL != srv.URL+"/read" {
			t.Errorf("an emptied page's history holds the page before: %v", e.URL)
		}
	}

	if err := p.Navigate(srv.URL + "/session"); err != nil {
		t.Fatal(err)
	}
	if err := p.empty(); err == nil || !strings.Contains(err.Error(), "session storage") {
		t.Errorf("a page that wrote to its session storage was emptied (%v): it must be thrown away", err)
	}
	p.Release()
}

// The headless shell is driven when it is there, chromium when it is not
// (a machine set up before .ci/run installed the shell), and
// CATALOGSPEC_BROWSER wins over both.
func TestFindBrowserPrefersTheHeadlessShell(t *testing.T) {
	dir := t.TempDir()
	put := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("PATH", dir)
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	chromium := put("chromium")
	if got, err := findBrowser(env(nil)); err != nil || got != chromium {
		t.Errorf("without the shell: %q, %v; want %s", got, err, chromium)
	}
	shell := put("chromium-headless-shell")
	if got, err := findBrowser(env(nil)); err != nil || got != shell {
		t.Errorf("with the shell: %q, %v; want %s", got, err, shell)
	}
	if got, err := findBrowser(env(map[string]string{EnvBrowser: "chromium"})); err != nil || got != chromium {
		t.Errorf("%s=chromium: %q, %v", EnvBrowser, got, err)
	}
	if err := os.Remove(chromium); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(shell); err != nil {
		t.Fatal(err)
	}
	if _, err := findBrowser(env(nil)); err == nil || !strings.Contains(err.Error(), "chromium-headless-shell") {
		t.Errorf("no browser: %v, want it to name what it looked for", err)
	}
}
