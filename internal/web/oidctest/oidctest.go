// Package oidctest runs a real OpenID Connect provider for tests: ZITADEL's
// op package with its example storage and login form, on an httptest TLS
// server (discovery, JWKS, signed ID tokens, the code flow with PKCE,
// userinfo), and drives a person's browser through its login form.
//
//	p := oidctest.New(t, oidctest.Client{ID: "adatum-client", Secret: "adatum-secret",
//		RedirectURL: appURL + "/login/adatum/oidc/callback"})
//	b := oidctest.NewBrowser(false)
//	code, h, body := b.SignIn(t, p, appURL, "adatum", oidctest.StaffUser)
//
// The app under test must call the provider with Outbound, the guarded
// client that trusts the certificate of httptest's TLS servers and allows
// loopback (as an operator's --allow-private would).
package oidctest

import (
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	exstorage "github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/surveys-dev/surveys/internal/outbound"
)

// The provider's accounts (from ZITADEL's example storage), all with the
// password Password. StaffUser is in the group "surveys-staff" (the groups
// claim is an array); SalesUser is in "sales" (the claim is a string).
const (
	Password   = "verysecure"
	StaffUser  = "test-user@127.0.0.1" // id1
	StaffEmail = "test-user@zitadel.ch"
	SalesUser  = "test-user2" // id2, email test-user2@zitadel.ch
)

// groups is the groups claim the provider adds to its users' ID tokens,
// by subject.
var groups = map[string]any{"id1": []string{"everyone", "surveys-staff"}, "id2": "sales"}

// groupsStorage is ZITADEL's example storage, with the groups claim in the
// ID tokens.
type groupsStorage struct{ *exstorage.Storage }

func (s groupsStorage) SetUserinfoFromRequest(ctx context.Context, ui *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	if err := s.Storage.SetUserinfoFromRequest(ctx, ui, req, scopes); err != nil {
		return err
	}
	if g, ok := groups[req.GetSubject()]; ok {
		ui.AppendClaims("groups", g)
	}
	return nil
}

// HTTPClient is a client for calls to the providers of this package: it
// trusts the certificate of httptest's TLS servers (one for all of them).
// Give it to the app under test as its client for identity providers.
var HTTPClient = sync.OnceValue(func() *http.Client {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	c := srv.Client()
	c.Timeout = 10 * time.Second
	return c
})

// RootCAs trusts the certificate of httptest's TLS servers.
func RootCAs() *x509.CertPool {
	return HTTPClient().Transport.(*http.Transport).TLSClientConfig.RootCAs
}

// Loopback are the ranges the test providers are on, to allow.
var Loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// Outbound is the app's guarded client for the providers of this package:
// it allows loopback and trusts their certificate.
func Outbound() *outbound.Client {
	return outbound.New(outbound.Config{Allow: Loopback, RootCAs: RootCAs()})
}

// Client is a confidential web client registered at the provider.
type Client struct {
	ID, Secret string
	// RedirectURL is the only URL the provider sends the browser back to:
	// the app's callback.
	RedirectURL string
}

// Provider is a running provider.
type Provider struct {
	// Issuer is the provider's issuer URL (https://127.0.0.1:port).
	Issuer string
}

// New starts a provider with the clients, and stops it when the test ends.
func New(t testing.TB, clients ...Client) *Provider {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	issuer := "https://" + srv.Listener.Addr().String()
	cs := map[string]*exstorage.Client{}
	for _, c := range clients {
		wc := exstorage.WebClient(c.ID, c.Secret, c.RedirectURL)
		cs[wc.GetID()] = wc
	}
	st := groupsStorage{exstorage.NewStorageWithClients(exstorage.NewUserStore(issuer), cs)}
	srv.Config.Handler = exampleop.SetupServer(issuer, st, nil, false)
	srv.Config.ErrorLog = slog.NewLogLogger(slog.NewTextHandler(io.Discard, nil), slog.LevelError)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &Provider{Issuer: issuer}
}

// Browser is a person's browser: a cookie jar, following redirects, up to
// the app's answer to the provider's callback (which it does not follow).
type Browser struct {
	*http.Client
	// Callback is the callback URL the provider last sent the browser to.
	Callback *url.URL
}

// NewBrowser returns a browser; stopBeforeCallback makes it stop at the
// provider's redirect to the callback, without going there.
func NewBrowser(stopBeforeCallback bool) *Browser {
	jar, _ := cookiejar.New(nil)
	b := &Browser{}
	b.Client = &http.Client{Jar: jar, Transport: HTTPClient().Transport, Timeout: 20 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if strings.HasSuffix(req.URL.Path, "/oidc/callback") {
				b.Callback = req.URL
				if stopBeforeCallback {
					return http.ErrUseLastResponse
				}
			}
			if strings.HasSuffix(via[len(via)-1].URL.Path, "/oidc/callback") || len(via) > 10 {
				return http.ErrUseLastResponse
			}
			return nil
		}}
	return b
}

// Fetch gets u, following redirects as the browser does, and returns the
// last answer.
func (b *Browser) Fetch(t testing.TB, u string) (int, http.Header, string) {
	t.Helper()
	return b.fetch(t, b.Client, u)
}

// FetchOnce gets u without following a redirect.
func (b *Browser) FetchOnce(t testing.TB, u string) (int, http.Header, string) {
	t.Helper()
	c := *b.Client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return b.fetch(t, &c, u)
}

func (b *Browser) fetch(t testing.TB, c *http.Client, u string) (int, http.Header, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// Cookie is the value of the browser's cookie name for site, or "".
func (b *Browser) Cookie(site, name string) string {
	u, err := url.Parse(site)
	if err != nil {
		return ""
	}
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

var formID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// SignIn starts the sign-in of tenant at the app (GET
// appURL/login/{tenant}/oidc), signs in at the provider's login form as
// username, and returns the app's answer to the callback (or, for a
// browser that stops before it, the provider's redirect to it).
func (b *Browser) SignIn(t testing.TB, p *Provider, appURL, tenant, username string) (int, http.Header, string) {
	t.Helper()
	code, _, body := b.Fetch(t, appURL+"/login/"+tenant+"/oidc")
	m := formID.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("the provider's login form: %d %s", code, body)
	}
	resp, err := b.PostForm(p.Issuer+"/login/username", url.Values{"id": {m[1]}, "username": {username}, "password": {Password}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if b.Callback == nil {
		t.Fatalf("the provider never sent the browser back: %d %s", resp.StatusCode, out)
	}
	return resp.StatusCode, resp.Header, string(out)
}
