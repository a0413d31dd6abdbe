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
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The browser of the @ui scenarios: one headless Chromium per run, started
// as the run begins, and a browser context (its own cookies, storage and
// cache, like a new private window) with one page per person per scenario.
// Nothing one scenario leaves in a browser can reach another: when a
// scenario ends, its pages are emptied (the page leaves its document, so
// that the document's scripts are done, and the context's cookies, every
// origin's storage, the cache and the page's history are cleared) and kept
// for another scenario, or thrown away with their context when they cannot
// be emptied for certain (a page that wrote to its session storage, which
// lives as long as its tab, or that opened a dialog). Making a context and
// its page costs Chromium a window and a renderer, about three times what
// emptying one costs; a few are made ahead, while the scenarios run.
//
// Chromium's headless shell (chromium-headless-shell, Debian's package of
// the same name; chrome-headless-shell) is looked for first: the same
// engine (Blink, V8, the network stack and its cookies) without the
// browser's windows, tabs and history, it takes about half the CPU of
// `chromium --headless` for the same pages.
//
//	| variable            | meaning                                   | default                    |
//	|---------------------|-------------------------------------------|----------------------------|
//	| CATALOGSPEC_BROWSER | the Chromium (or Chrome) to drive         | chromium-headless-shell, chrome-headless-shell, chromium, chromium-browser, google-chrome on PATH |
const EnvBrowser = "CATALOGSPEC_BROWSER"

// browserNames are looked for on PATH, in order.
var browserNames = []string{"chromium-headless-shell", "chrome-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

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
	return "", fmt.Errorf("no Chromium or Chrome on PATH (looked for %s): install one (Debian: apt-get install chromium-headless-shell, or chromium) or set %s", strings.Join(browserNames, ", "), EnvBrowser)
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

	// spares are empty pages ready for a scenario: made ahead, or used
	// and emptied; making is how many are being made now.
	spareMu sync.Mutex
	spares  []*Page
	making  int
	closed  sync.WaitGroup // pages being made, emptied or thrown away

	profile *Profile // nil when off
}

// spareCount is how many empty pages are kept ready, made ahead when
// fewer are; maxSpares how many are kept at most: a page emptied when as
// many are ready is thrown away.
const (
	spareCount = 2
	maxSpares  = 6
)

// start launches the browser, once.
func (b *Browser) start() error {
	b.once.Do(func() {
		defer b.profile.Record("", true, "browser-start", "", time.Now())
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

	// Owner names the scenario using the page, for the profile.
	Owner string

	mu       sync.Mutex
	requests []string      // URLs, in order
	loads    int           // documents loaded in the page's main frame
	loaded   chan struct{} // closed and replaced at each load
	// kept says why the page cannot be emptied for another scenario ("" when
	// it can): something it holds that clearing would not reach.
	kept string
	// origins are the origins the page's requests went to since it was
	// last emptied.
	origins map[string]bool
}

// NewPage returns an empty page: a browser context of its own with one
// blank page, which holds nothing of any scenario's (made ahead, or used and
// emptied). One ready when there is one; another is made ahead in its
// place when fewer than spareCount are ready.
func (b *Browser) NewPage() (*Page, error) {
	defer b.profile.Record("", true, "context-taken", "", time.Now())
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
	defer b.profile.Record("", true, "context-made", "", time.Now())
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
	p := &Page{ctx: ctx, cancel: cancel, b: b, id: id, loaded: make(chan struct{}), origins: map[string]bool{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			p.mu.Lock()
			p.requests = append(p.requests, e.Request.URL)
			if u, err := url.Parse(e.Request.URL); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
				p.origins[u.Scheme+"://"+u.Host] = true
			}
			p.mu.Unlock()
		case *domstorage.EventDomStorageItemAdded:
			p.keep(e.StorageID, "the page wrote to its session storage")
		case *domstorage.EventDomStorageItemUpdated:
			p.keep(e.StorageID, "the page wrote to its session storage")
		case *page.EventJavascriptDialogOpening:
			p.mu.Lock()
			p.kept = "the page opened a dialog"
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
	// Writes to storage are watched (domstorage): a page that writes to
	// its session storage is not used again.
	if err := chromedp.Run(ctx, network.Enable(), domstorage.Enable(), css.Disable(), emulation.SetFocusEmulationEnabled(true)); err != nil {
		p.close()
		return nil, fmt.Errorf("attaching to the page: %w", err)
	}
	return p, nil
}

// keep marks the page as one not to use again when id is its session
// storage: that lives as long as the page's tab, and no command clears it.
func (p *Page) keep(id *domstorage.StorageID, why string) {
	if id != nil && id.IsLocalStorage {
		return // cleared with its origin's storage
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kept = why
}

// Release hands the page back: the scenario that used it is over. In the
// background it is emptied and kept for another scenario (empty), or
// thrown away with its browser context.
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
		began := time.Now()
		err := p.empty()
		why := ""
		if err != nil {
			why = err.Error()
		}
		b.profile.Record(p.Owner, true, "context-emptied", why, began)
		b.spareMu.Lock()
		keep := err == nil && !b.stopped && len(b.spares) < maxSpares
		if keep {
			p.Owner = ""
			b.spares = append(b.spares, p)
		}
		b.spareMu.Unlock()
		if !keep {
			p.close()
		}
	}()
}

// empty leaves the page's document and clears everything its browser
// context holds, or says why it cannot: then the page must be thrown away.
func (p *Page) empty() error {
	p.mu.Lock()
	kept := p.kept
	origins := make([]string, 0, len(p.origins))
	for o := range p.origins {
		origins = append(origins, o)
	}
	p.mu.Unlock()
	if kept != "" {
		return errors.New(kept)
	}
	ctx, cancel := context.WithTimeout(p.ctx, emptyTimeout)
	defer cancel()
	// The document goes first, so that nothing its scripts do as it goes
	// (storage written at pagehide) outlives the clearing. A navigation the
	// page makes itself stays in its renderer.
	before := p.LoadCount()
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.replace("about:blank"), true`, new(bool))); err != nil {
		return fmt.Errorf("leaving the page: %w", err)
	}
	if !p.WaitLoadAfter(before, emptyTimeout) {
		return errors.New("the page did not leave its document")
	}
	var href string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.href`, &href)); err != nil || href != "about:blank" {
		return fmt.Errorf("the page is at %q, not about:blank (%v)", href, err)
	}
	c := chromedp.FromContext(p.b.ctx)
	browser := cdp.WithExecutor(ctx, c.Browser)
	err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		if err := storage.ClearCookies().WithBrowserContextID(p.id).Do(browser); err != nil {
			return fmt.Errorf("clearing cookies: %w", err)
		}
		for _, o := range origins {
			if err := storage.ClearDataForOrigin(o, "all").Do(ctx); err != nil {
				return fmt.Errorf("clearing the storage of %s: %w", o, err)
			}
		}
		if err := network.ClearBrowserCache().Do(ctx); err != nil {
			return fmt.Errorf("clearing the cache: %w", err)
		}
		return page.ResetNavigationHistory().Do(ctx)
	}))
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kept != "" {
		return errors.New(p.kept) // written as it left
	}
	p.requests = nil
	p.origins = map[string]bool{}
	return nil
}

// emptyTimeout bounds emptying a page; one that takes longer is thrown
// away.
const emptyTimeout = 5 * time.Second

// close closes the page and throws its browser context away.
func (p *Page) close() {
	defer p.b.profile.Record(p.Owner, true, "context-closed", "", time.Now())
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
	return p.run("run", actions...)
}

func (p *Page) run(kind string, actions ...chromedp.Action) error {
	defer p.b.profile.Record(p.Owner, true, kind, "", time.Now())
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
	return p.run("eval", chromedp.Evaluate(js, out, func(e *runtime.EvaluateParams) *runtime.EvaluateParams {
		return e.WithAwaitPromise(true)
	}))
}

// Navigate loads u and waits for its page.
func (p *Page) Navigate(u string) error {
	return p.run("navigate", chromedp.Navigate(u))
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
	defer p.b.profile.Record(p.Owner, true, "wait-load", "", time.Now())
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
	defer p.b.profile.Record(p.Owner, true, "screenshot", "", time.Now())
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
