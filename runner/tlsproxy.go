package runner

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// A proxy that terminates TLS in front of an instance of the reference, as
// a deployment's load balancer does: it answers HTTPS on a loopback port
// with a certificate of its own (made at start, for 127.0.0.1 and
// localhost, trusted by the suite alone through Target.TLSRoots) and sends
// each request on over plain HTTP with X-Forwarded-For and
// X-Forwarded-Proto: https, which the instance believes because it trusts
// the proxy's address (CATALOGD_TRUSTED_PROXIES). The @cap:https-frontend
// scenarios reach the frontend through it.

// tlsProxy is a running proxy.
type tlsProxy struct {
	URL   string         // https://127.0.0.1:<port>, no trailing slash
	Roots *x509.CertPool // holds the proxy's certificate
	srv   *http.Server
}

// startTLSProxy starts a proxy to upstream (an http base URL).
func startTLSProxy(upstream string) (*tlsProxy, error) {
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("the TLS proxy's upstream %q: %w", upstream, err)
	}
	cert, roots, err := selfSignedCertificate()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the TLS proxy cannot listen: %w", err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			// X-Forwarded-For (the client), -Host and -Proto (https: the
			// request came over TLS), as a load balancer writes them.
			r.SetXForwarded()
		},
		// A request the instance does not answer is a 502 to the suite,
		// which says so; the proxy itself prints nothing.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	srv := &http.Server{
		Handler:           proxy,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
	}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	return &tlsProxy{URL: "https://" + ln.Addr().String(), Roots: roots, srv: srv}, nil
}

// stop stops the proxy.
func (p *tlsProxy) stop(ctx context.Context) error {
	if err := p.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// selfSignedCertificate makes a certificate for 127.0.0.1 and localhost,
// valid for two days, and a pool that trusts it.
func selfSignedCertificate() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "catalogspec TLS proxy"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(48 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots, nil
}
