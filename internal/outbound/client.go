package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Defaults of a Client.
const (
	DefaultTimeout      = 10 * time.Second // a whole request, redirects and body included
	DefaultMaxBody      = 1 << 20          // 1 MiB
	DefaultMaxRedirects = 3
)

// Why a request was refused. The errors a Client returns wrap one of these
// (or a network error); Problem turns any of them into words for a page.
var (
	ErrNotHTTPS = errors.New("outbound: not an https URL")
	ErrRedirect = errors.New("outbound: redirect refused")
	ErrTooLarge = errors.New("outbound: response too large")
	ErrBadURL   = errors.New("outbound: not a usable URL")
	// ErrNumericHost: the host is an IPv4 address in a form other than
	// four decimal numbers (2130706433, 0x7f.1, 0177.0.0.1, 127.1).
	ErrNumericHost = errors.New("outbound: an IPv4 address not written as four decimal numbers")
	errNoPlainTLS  = errors.New("outbound: plain http to an address the operator did not allow")
)

// Config configures a Client.
type Config struct {
	// Allow are the non-global ranges the operator allows (besides every
	// globally routable address). Plain http is allowed to these only.
	Allow []netip.Prefix
	// RootCAs, when set, replaces the system's roots (a test's provider).
	RootCAs *x509.CertPool
	// Timeout bounds a whole request; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxBody caps a response's body in bytes; 0 is DefaultMaxBody.
	MaxBody int64
	// MaxRedirects is how many redirects a request follows; 0 is
	// DefaultMaxRedirects, -1 none.
	MaxRedirects int
	// Resolver, when set, resolves the names dialled (the operator's DNS
	// server, or a test's); nil is the system's. The guard checks the
	// addresses it gives, as any other.
	Resolver *net.Resolver
}

// Client is the one HTTP client for URLs that tenants name. It dials only
// addresses its Guard allows (checked on the address dialled, so DNS
// rebinding cannot pass), speaks https to the rest of the world and plain
// http only to the operator's ranges, follows a few redirects (each hop
// dialled through the same guard, never from https down to http), never
// goes through an environment proxy, times out, and caps every response
// body.
type Client struct {
	guard   Guard
	client  *http.Client
	maxBody int64
	// open is for GetOpen: plain http to any address the guard allows.
	open *http.Client
}

// New returns a Client.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	g := Guard{Allow: append([]netip.Prefix(nil), cfg.Allow...)}
	c := &Client{guard: g, maxBody: cfg.MaxBody}
	tlsTransport := newTransport(g.Control, cfg.RootCAs, cfg.Resolver)
	rt := &roundTripper{
		tls:     tlsTransport,
		plain:   newTransport(g.ControlAllowedOnly, cfg.RootCAs, cfg.Resolver),
		maxBody: cfg.MaxBody,
		plainOK: len(g.Allow) > 0,
	}
	maxRedirects := max(cfg.MaxRedirects, 0)
	checkRedirect := func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects: %w", maxRedirects, ErrRedirect)
		}
		if prev := via[len(via)-1].URL; prev.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("from https to %s: %w", req.URL.Scheme, ErrRedirect)
		}
		return nil
	}
	c.client = &http.Client{Transport: rt, Timeout: cfg.Timeout, CheckRedirect: checkRedirect}
	c.open = &http.Client{Timeout: cfg.Timeout, CheckRedirect: checkRedirect, Transport: &roundTripper{
		tls: tlsTransport, plain: newTransport(g.Control, cfg.RootCAs, cfg.Resolver), maxBody: min(cfg.MaxBody, MaxOpenBody), plainOK: true, plainAny: true}}
	return c
}

// MaxOpenBody caps the body of a GetOpen response.
const MaxOpenBody = 4 << 10

// GetOpen GETs a URL that carries nothing secret and asks for nothing
// secret (a token a tenant publishes to prove it holds a domain): unlike
// the client's other requests, it may speak plain http to any address the
// guard allows, since there is nothing to overhear. Every other rule
// holds: the address dialled is checked, redirects are few and never
// from https down to http, the whole request times out, and the body is
// capped at MaxOpenBody.
func (c *Client) GetOpen(ctx context.Context, rawURL string) ([]byte, int, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, 0, ErrBadURL
	}
	if LooseIPv4(u.Hostname()) {
		return nil, 0, ErrNumericHost
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, 0, ErrBadURL
	}
	resp, err := c.open.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, resp.StatusCode, err
	}
	return body, resp.StatusCode, nil
}

func newTransport(control func(string, string, syscall.RawConn) error, roots *x509.CertPool, resolver *net.Resolver) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: control, Resolver: resolver}
	return &http.Transport{
		Proxy:                  nil, // a proxy would dial the target unchecked
		DialContext:            d.DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    5 * time.Second,
		ResponseHeaderTimeout:  DefaultTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        60 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
}

// HTTP is the client as an *http.Client, for libraries that take one
// (go-oidc and oauth2 through their contexts). Every request it sends goes
// through the guard.
func (c *Client) HTTP() *http.Client { return c.client }

// Guard is the address guard of the client.
func (c *Client) Guard() Guard { return c.guard }

// CheckURL checks a URL a tenant (or a document a tenant's server sent)
// names, before it is used: an absolute https URL with a host and no
// credentials; plain http only when its host is an address in one of the
// operator's ranges. (The address an https URL's name resolves to is
// checked when it is dialled.)
func (c *Client) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ErrBadURL
	}
	if LooseIPv4(u.Hostname()) {
		return ErrNumericHost
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && c.guard.InAllowed(a) {
			return nil
		}
	}
	return ErrNotHTTPS
}

// LooseIPv4 reports whether host is an IPv4 address in a form that
// resolvers take (inet_aton: one to four parts, each decimal, octal with
// a leading 0 or hex with 0x, the last filling the bytes left) but that
// is not four plain decimal numbers: 2130706433, 0x7f.1, 0177.0.0.1,
// 127.1, 127.0.0.1. (a trailing dot). Such a host names an address that a
// check of the URL, reading it as a name, would not see; the dial guard
// refuses it too, later.
func LooseIPv4(host string) bool {
	if host == "" {
		return false
	}
	h := strings.TrimSuffix(host, ".")
	parts := strings.Split(h, ".")
	if h == "" || len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		digits, hex := p, false
		if len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') {
			digits, hex = p[2:], true
		} else if p == "" {
			return false
		}
		for _, c := range digits {
			ok := c >= '0' && c <= '9' || hex && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
			if !ok {
				return false
			}
		}
	}
	a, err := netip.ParseAddr(host)
	return err != nil || !a.Is4()
}

type roundTripper struct {
	tls, plain http.RoundTripper
	maxBody    int64
	plainOK    bool
	// plainAny: plain http goes wherever the guard allows (GetOpen).
	plainAny bool
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	switch {
	case req.URL.Scheme == "https":
		resp, err = rt.tls.RoundTrip(req)
	case req.URL.Scheme == "http" && rt.plainOK:
		resp, err = rt.plain.RoundTrip(req)
		if errors.Is(err, ErrAddressNotAllowed) && !rt.plainAny {
			err = fmt.Errorf("%w: %w", ErrNotHTTPS, errNoPlainTLS)
		}
	default:
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrNotHTTPS
	}
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > rt.maxBody {
		resp.Body.Close()
		return nil, ErrTooLarge
	}
	resp.Body = &cappedBody{rc: resp.Body, left: rt.maxBody}
	return resp, nil
}

// cappedBody reads up to left bytes, and fails with ErrTooLarge when the
// body has more.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// Problem says in a few plain words why a request failed, for a page. It
// never repeats what the remote server sent, nor the URL it redirected to.
func Problem(err error) string {
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrAddressNotAllowed):
		return "this server does not connect to private or local addresses"
	case errors.Is(err, ErrNotHTTPS):
		return "this server calls such URLs over https only"
	case errors.Is(err, ErrRedirect):
		return "it redirected elsewhere, which this server does not follow"
	case errors.Is(err, ErrTooLarge):
		return "its answer was too large"
	case errors.Is(err, ErrBadURL):
		return "the URL is not a usable https URL"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "it did not answer in time"
	default:
		return "the connection or TLS failed"
	}
}
