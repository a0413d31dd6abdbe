package runner

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The browser of the @ui scenarios: one headless Chromium per run, started
// as the run begins, and a fresh browser context (its own cookies, storage
// and cache, like a new private window) per person per scenario, thrown
// away when the scenario ends: nothing one scenario leaves in a browser can
// reach another. A new context costs Chromium a window and a renderer, so
// a few are made ahead, while the scenarios run, and each is used once.
//
//	| variable            | meaning                                   | default                    |
//	|---------------------|-------------------------------------------|----------------------------|
//	| CATALOGSPEC_BROWSER | the Chromium (or Chrome) to drive         | chromium, chromium-browser, google-chrome on PATH |
const EnvBrowser = "CATALOGSPEC_BROWSER"

// browserNames are looked for on PATH, in order.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// findBrowser returns the browser to drive, or why there is none.
func findBrowser(getenv func(string) string) (string, error) {
	if p := strings.TrimSpace(getenv(EnvBrowser)); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s=%q: %v", EnvBrowser, p, err)
		}
		return path, nil
	}
	for _, name := range browserNames {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("no Chromium or Chrome on PATH (looked for %s): install one (Debian: apt-get install chromium) or set %s", strings.Join(browserNames, ", "), EnvBrowser)
}

// UITimeout bounds each thing the suite asks the browser to do.
const UITimeout = 20 * time.Second

// Browser is the run's Chromium.
type Browser struct {
	path string
	dir  string // its profile directory, removed at the end

	once    sync.Once
	err     error
	ctx     context.Context // the browser's chromedp context
	cancel  context.CancelFunc
	stopped bool

	// spares are fresh pages made ahead, never used; making is how many
	// are being made now.
	spareMu sync.Mutex
	spares  []*Page
	making  int
	closed  sync.WaitGroup // pages being thrown away
}

// spareCount is how many fresh pages are kept made ahead.
const spareCount = 2

// start launches the browser, once.
func (b *Browser) start() error {
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "catalogspec-chromium-")
		if err != nil {
			b.err = err
			return
		}
		b.dir = dir
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(b.path),
			chromedp.UserDataDir(dir),
			chromedp.NoSandbox, // as root in CI; the pages are the suite's target, not the web
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-quic", true),
			// No proxy to look for: every page is the target's.
			chromedp.Flag("no-proxy-server", true),
			// chromedp's own list, and the omnibox popups that Chromium
			// (from about version 150) makes ahead for every window, as
			// WebUI pages of their own: two per browser context, which cost
			// more than the context itself (about 0.45 s of CPU against
			// 0.12 s for the rest, measured on two cores).
			chromedp.Flag("disable-features", "site-per-process,Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup"),
			chromedp.WindowSize(1280, 900),
		)
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(allocCtx)
		b.ctx, b.cancel = ctx, func() { cancel(); cancelAlloc() }
		// The first Run starts the browser, which lives as long as the
		// context of that Run: it must be the browser's own, not one
		// with a timeout.
		started := make(chan error, 1)
		go func() { started <- chromedp.Run(ctx) }()
		select {
		case err := <-started:
			if err != nil {
				b.err = fmt.Errorf("starting %s: %w", b.path, err)
			}
		case <-time.After(60 * time.Second):
			b.err = fmt.Errorf("starting %s: no answer within a minute", b.path)
		}
	})
	return b.err
}

// close stops the browser, if it was started.
func (b *Browser) close() {
	if b == nil || b.cancel == nil || b.stopped {
		return
	}
	b.spareMu.Lock()
	b.stopped = true
	b.spareMu.Unlock()
	b.closed.Wait()
	b.cancel()
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

// Page is one person's browser in a scenario: a browser context of
// its own with one page, and every request that page made.
type Page struct {
	ctx    context.Context
	cancel context.CancelFunc
	b      *Browser
	id     cdp.BrowserContextID

	mu       sync.Mutex
	requests []string      // URLs, in order
	loads    int           // documents loaded in the page's main frame
	loaded   chan struct{} // closed and replaced at each load
}

// NewPage returns a fresh page: a browser context of its own, never used,
// with one blank page. One made ahead when there is one; another is made
// ahead in its place.
func (b *Browser) NewPage() (*Page, error) {
	if err := b.start(); err != nil {
		return nil, err
	}
	b.spareMu.Lock()
	var p *Page
	if n := len(b.spares); n > 0 {
		p = b.spares[n-1]
		b.spares = b.spares[:n-1]
	}
	b.spareMu.Unlock()
	defer b.makeSpares()
	if p != nil {
		return p, nil
	}
	return b.makePage()
}

// makeSpares starts making fresh pages until spareCount are made or being
// made.
func (b *Browser) makeSpares() {
	b.spareMu.Lock()
	defer b.spareMu.Unlock()
	for !b.stopped && len(b.spares)+b.making < spareCount {
		b.making++
		b.closed.Add(1)
		go func() {
			defer b.closed.Done()
			p, err := b.makePage()
			b.spareMu.Lock()
			defer b.spareMu.Unlock()
			b.making--
			switch {
			case err != nil:
				// The next newPage makes its own, and says why it cannot.
			case b.stopped:
				go p.close()
			default:
				b.spares = append(b.spares, p)
			}
		}()
	}
}

// makePage opens a browser context with one blank page and attaches to it.
func (b *Browser) makePage() (*Page, error) {
	c := chromedp.FromContext(b.ctx)
	exec := cdp.WithExecutor(b.ctx, c.Browser)
	id, err := cdptarget.CreateBrowserContext().WithDisposeOnDetach(true).Do(exec)
	if err != nil {
		return nil, fmt.Errorf("opening a browser context: %w", err)
	}
	// A page in a new browser context needs a window of its own in
	// today's headless Chromium.
	tid, err := cdptarget.CreateTarget("about:blank").WithBrowserContextID(id).WithNewWindow(true).Do(exec)
	if err != nil {
		_ = cdptarget.DisposeBrowserContext(id).Do(exec)
		return nil, fmt.Errorf("opening a page: %w", err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(tid))
	p := &Page{ctx: ctx, cancel: cancel, b: b, id: id, loaded: make(chan struct{})}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			p.mu.Lock()
			p.requests = append(p.requests, e.Request.URL)
			p.mu.Unlock()
		case *page.EventLoadEventFired:
			p.mu.Lock()
			p.loads++
			close(p.loaded)
			p.loaded = make(chan struct{})
			p.mu.Unlock()
		}
	})
	// The first Run attaches to the page for as long as the context of
	// that Run lives: the page's own, not one with a timeout.
	// Every page behaves as the focused one: a page in a window in the
	// background is otherwise throttled to about a task a second.
	if err := chromedp.Run(ctx, network.Enable(), emulation.SetFocusEmulationEnabled(true)); err != nil {
		p.close()
		return nil, fmt.Errorf("attaching to the page: %w", err)
	}
	return p, nil
}

// Release throws the page and its browser context away, in the
// background: the scenario that used it is over.
func (p *Page) Release() {
	b := p.b
	b.spareMu.Lock()
	defer b.spareMu.Unlock()
	if b.stopped {
		p.cancel() // the browser goes, and its contexts with it
		return
	}
	b.closed.Add(1)
	go func() {
		defer b.closed.Done()
		p.close()
	}()
}

// close closes the page and throws its browser context away.
func (p *Page) close() {
	p.cancel()
	if p.b.ctx.Err() == nil {
		c := chromedp.FromContext(p.b.ctx)
		ctx, cancel := context.WithTimeout(p.b.ctx, 5*time.Second)
		defer cancel()
		_ = cdptarget.DisposeBrowserContext(p.id).Do(cdp.WithExecutor(ctx, c.Browser))
	}
}

// Run does actions on the page, within UITimeout.
func (p *Page) Run(actions ...chromedp.Action) error {
	ctx, cancel := context.WithTimeout(p.ctx, UITimeout)
	defer cancel()
	err := chromedp.Run(ctx, actions...)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the browser did not get there within %s", UITimeout)
	}
	return err
}

// Eval evaluates a JavaScript expression on the page into out, waiting
// for it when it is a promise.
func (p *Page) Eval(js string, out any) error {
	return p.Run(chromedp.Evaluate(js, out, func(e *runtime.EvaluateParams) *runtime.EvaluateParams {
		return e.WithAwaitPromise(true)
	}))
}

// Navigate loads u and waits for its page.
func (p *Page) Navigate(u string) error {
	return p.Run(chromedp.Navigate(u))
}

// Location is where the page is now.
func (p *Page) Location() (*url.URL, error) {
	var href string
	if err := p.Eval(`location.href`, &href); err != nil {
		return nil, err
	}
	return url.Parse(href)
}

// Status is the HTTP status of the page's last navigation.
func (p *Page) Status() (int, error) {
	var s int
	err := p.Eval(`(performance.getEntriesByType("navigation")[0] || {}).responseStatus || 0`, &s)
	return s, err
}

// LoadCount is how many documents the page has loaded so far.
func (p *Page) LoadCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loads
}

// WaitLoadAfter waits until the page has loaded a document after the
// first n.
func (p *Page) WaitLoadAfter(n int, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		loads, next := p.loads, p.loaded
		p.mu.Unlock()
		if loads > n {
			return true
		}
		select {
		case <-next:
		case <-deadline:
			return false
		case <-p.ctx.Done():
			return false
		}
	}
}

// Cookies are the browser context's cookies for u.
func (p *Page) Cookies(u string) ([]*network.Cookie, error) {
	var out []*network.Cookie
	err := p.Run(chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		out, err = network.GetCookies().WithURLs([]string{u}).Do(ctx)
		return err
	}))
	return out, err
}

// Seen returns the URLs of every request the page made.
func (p *Page) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// maskPageJS blanks every JWT the page shows (a new token in its field, a
// token in GraphiQL's headers editor) before a screenshot: a report never
// holds a token, in text or in pixels.
const maskPageJS = `(() => {
	const jwt = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
	document.querySelectorAll("input, textarea").forEach(e => {
		e.value = e.value.replace(jwt, "[masked]");
		if (e.hasAttribute("value")) e.setAttribute("value", e.getAttribute("value").replace(jwt, "[masked]"));
	});
	const walk = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) { n.nodeValue = n.nodeValue.replace(jwt, "[masked]") }
	return true
})()`

// Screenshot saves the page as it looks now, every token on it masked, into
// dir, named for the scenario, and returns its path.
func (p *Page) Screenshot(dir, name string) (string, error) {
	var png []byte
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.Evaluate(maskPageJS, new(bool))); err != nil {
		return "", fmt.Errorf("masking the page's tokens: %w", err)
	}
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		png, err = page.CaptureScreenshot().WithFormat(page.CaptureScreenshotFormatPng).Do(ctx)
		return err
	})); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".png")
	return path, os.WriteFile(path, png, 0o644)
}
