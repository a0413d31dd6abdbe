package runner

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

	// Another scenario's page is a fresh browser context: no cookie, no
	// storage, no request of the one before.
	p.Release()
	again, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if again == p || again.id == p.id {
		t.Fatalf("a page was used twice")
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
