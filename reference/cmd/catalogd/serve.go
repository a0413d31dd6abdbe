package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/reference/graph"
	"github.com/catalogspec/catalogspec/reference/httpapi"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
	"github.com/catalogspec/catalogspec/reference/web"
)

// defaultGCPercent is serve's GOGC unless the environment sets one, and
// busyGCPercent its GOGC while requests hold megabytes (issue 29): a 15 MB
// write of 9,500 aspects peaked at 309 MB resident at 400, at some 120 MB
// at 50.
const (
	defaultGCPercent = 400
	busyGCPercent    = 50
)

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("catalogd serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		c            common
		gmsAddr      string
		frontendAddr string
		accessLog    bool
		readyFile    string
	)
	c.register(fs)
	fs.StringVar(&gmsAddr, "gms-addr", "127.0.0.1:8080", "address of the metadata service (GMS)")
	fs.StringVar(&frontendAddr, "frontend-addr", "127.0.0.1:9002", "address of the frontend")
	fs.StringVar(&c.postgres, "postgres", "local", "without DATABASE_URL: local (a cluster in --data-dir, kept) or container (a throw-away one, needs Docker)")
	fs.BoolVar(&accessLog, "access-log", true, "log one line per request at info (method, path, status, duration, actor); false logs them at debug")
	fs.StringVar(&readyFile, "ready-file", "", "for programs that start catalogd: once both tiers listen, write their base URLs to this file\nas one JSON object, {\"gms\": URL, \"frontend\": URL, \"pid\": N} (written whole or not at all;\nremoved at exit). The \"listening on\" lines on stdout are for people and may change")
	if err := parse(fs, args, "Runs the metadata service (GMS) and the frontend until interrupted.", serveEnvironment, stdout, stderr); err != nil {
		return err
	}
	if err := checkLogLevel(c.logLevel); err != nil {
		return err
	}
	if c.postgres != "local" && c.postgres != "container" {
		return fmt.Errorf("bad --postgres %q: use local or container", c.postgres)
	}
	if readyFile != "" {
		// A file left by an earlier run must not be taken for this one's.
		if err := os.Remove(readyFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--ready-file: %w", err)
		}
	}
	b, logger, err := open(ctx, c, getenv, stdout, stderr, true)
	if err != nil {
		return err
	}
	if getenv("GOGC") == "" {
		// The live heap is small (what is cached, and requests in flight)
		// and requests allocate quickly: at Go's default of 100 the
		// collector runs thousands of times a second under load and costs
		// a third of each request. A heap up to five times the live one is
		// a small price; GOGC set in the environment wins.
		debug.SetGCPercent(defaultGCPercent)
	}
	lim := b.limits
	defer b.close()
	go b.svc.RefreshPolicies(ctx) // with CATALOGD_POLICY_REFRESH only

	gmsLn, err := net.Listen("tcp", gmsAddr)
	if err != nil {
		return fmt.Errorf("gms: %w", err)
	}
	frontLn, err := net.Listen("tcp", frontendAddr)
	if err != nil {
		gmsLn.Close()
		return fmt.Errorf("frontend: %w", err)
	}
	gmsURL := &url.URL{Scheme: "http", Host: gmsLn.Addr().String()}
	api := httpapi.NewServer(b.svc, graph.NewHandler(b.svc, version, logger, lim.graphql), b.db.Ping, version, logger)
	api.SetRequestTimeout(lim.requestTimeout)
	api.SetMemoryLimits(int64(lim.bytesInFlight), int64(lim.readBytes))
	if getenv("GOGC") == "" {
		// While any request holds more than its first MiB (the bound on
		// bytes in flight is in use), what such requests leave behind is
		// collected eagerly; the everyday requests never get there.
		api.Memory().OnHolding(func(holding bool) {
			if holding {
				debug.SetGCPercent(busyGCPercent)
			} else {
				debug.SetGCPercent(defaultGCPercent)
			}
		})
	}
	public, proxies, err := publicSettings(getenv)
	if err != nil {
		return err
	}
	api.SetPublicURL(public)
	api.SetTrustedProxies(proxies)
	hosts := allowedHosts(getenv, gmsAddr, frontendAddr)
	if public != nil {
		hosts = append(hosts, public.Hostname())
	}
	api.SetAllowedHosts(hosts)
	csrfKey, err := b.db.Secret(ctx, "csrf_key", nil)
	if err != nil {
		return err
	}
	pages, err := web.New(b.svc, csrfKey, logger)
	if err != nil {
		return err
	}
	api.SetPages(pages)
	if !accessLog {
		api.SetAccessLogLevel(slog.LevelDebug)
	}
	servers := []*http.Server{lim.server(api.GMS()), lim.server(api.Frontend(gmsURL))}
	listeners := []net.Listener{gmsLn, frontLn}
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	fmt.Fprintf(stdout, "catalogd: gms listening on %s\n", gmsURL)
	fmt.Fprintf(stdout, "catalogd: frontend listening on http://%s\n", frontLn.Addr())
	if readyFile != "" {
		if err := writeReady(readyFile, ready{GMS: gmsURL.String(), Frontend: "http://" + frontLn.Addr().String(), PID: os.Getpid()}); err != nil {
			return err
		}
		defer os.Remove(readyFile)
	}
	logger.Info("catalogd started", "gms", gmsURL.String(), "frontend", "http://"+frontLn.Addr().String(),
		"auth_enabled", b.svc.AuthEnabled(), "database", b.provided.Source)
	if b.provided.Source == pgprovider.SourceLocal {
		// A local cluster's URL holds no password: show it so that an operator
		// can run 'catalogd token create' against the running service.
		logger.Info("local database", "DATABASE_URL", b.provided.URL)
	}

	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.Shutdown(shutdownCtx)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("catalogd stopped")
	return nil
}

// allowedHosts are the names serve answers to besides its addresses and
// localhost: CATALOGD_ALLOWED_HOSTS (comma-separated; ".example.com" for a
// domain and the names under it, "*" for any), the names in --gms-addr and
// --frontend-addr, and this machine's host name (no other site can make
// its own name resolve to this machine's).
func allowedHosts(getenv func(string) string, addrs ...string) []string {
	names := strings.Split(getenv("CATALOGD_ALLOWED_HOSTS"), ",")
	for _, a := range addrs {
		if host, _, err := net.SplitHostPort(a); err == nil && host != "" {
			names = append(names, host)
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		names = append(names, h)
	}
	return names
}

// publicSettings reads how people reach the service: CATALOGD_PUBLIC_URL,
// the frontend's URL as they use it (https there makes cookies Secure and
// answers carry Strict-Transport-Security), and CATALOGD_TRUSTED_PROXIES,
// the addresses (IPs or CIDR prefixes, comma-separated) of the proxies in
// front of catalogd whose X-Forwarded-For and X-Forwarded-Proto it
// believes.
func publicSettings(getenv func(string) string) (*url.URL, []netip.Prefix, error) {
	var public *url.URL
	if v := strings.TrimSpace(getenv("CATALOGD_PUBLIC_URL")); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, nil, fmt.Errorf("CATALOGD_PUBLIC_URL must be an http or https URL such as https://catalog.example.com, not %q", v)
		}
		public = u
	}
	var proxies []netip.Prefix
	for _, v := range strings.Split(getenv("CATALOGD_TRUSTED_PROXIES"), ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, nil, fmt.Errorf("CATALOGD_TRUSTED_PROXIES must list IP addresses or CIDR prefixes such as 10.0.0.0/8, separated by commas; %q is neither", v)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		proxies = append(proxies, p.Masked())
	}
	return public, proxies, nil
}

// ready is what --ready-file holds once serve listens.
type ready struct {
	GMS      string `json:"gms"`
	Frontend string `json:"frontend"`
	PID      int    `json:"pid"`
}

// writeReady writes r to path whole or not at all: to a temporary file
// beside it, renamed into place, so that a program polling for path never
// reads half of it.
func writeReady(path string, r ready) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("--ready-file: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("--ready-file: %w", err)
	}
	return nil
}
