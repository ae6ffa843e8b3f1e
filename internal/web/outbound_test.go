package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/web/oidctest"
)

// remoteSecret stands for what a server behind the firewall answers: it
// must never be shown on a page.
const remoteSecret = "ami-0123-INTERNAL-ONLY"

// guardedSite is the web server over app's store with an outbound client
// that allows only the ranges given (as the operator's --allow-private)
// and trusts the test servers' certificate; do posts the identity form as
// Ana, an editor of Adatum.
type guardedSite struct {
	url     string
	session string
	client  *http.Client
}

func newGuardedSite(t *testing.T, app *testApp, allow ...string) *guardedSite {
	t.Helper()
	var ps []netip.Prefix
	for _, a := range allow {
		ps = append(ps, netip.MustParsePrefix(a))
	}
	tenants, users := store.NewTenantStore(app.st).WithSecrets(testBox), testUsers(app.st)
	s, err := web.New(web.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tenants: tenants, Users: users,
		Public:         store.NewCachedSurveys(store.NewSurveyStore(app.st), tenants, time.Millisecond),
		TenantSettings: tenants, Outbound: outbound.New(outbound.Config{Allow: ps, RootCAs: oidctest.RootCAs(), MaxBody: web.ProviderMaxBody})})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	if _, err := users.Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil && survey.ErrorCode(err) != survey.ECONFLICT {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	return &guardedSite{url: srv.URL, session: ana.Value, client: app.client}
}

func (g *guardedSite) saveIssuer(t *testing.T, issuer string) (int, string) {
	t.Helper()
	f := url.Values{"issuerUrl": {issuer}, "clientId": {"adatum-client"}, "clientSecret": {"adatum-secret"}, "claimType": {"groups"}, "claimValue": {"surveys-staff"}}
	req, _ := http.NewRequest("POST", g.url+"/adatum/settings/identity", strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "surveys_session="+g.session)
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// fakeProvider is an https server on loopback serving a discovery document
// made by doc from its own URL (or whatever handler says), counting the
// connections it accepts.
type fakeProvider struct {
	*httptest.Server
	conns atomic.Int64
}

func newFakeProvider(t *testing.T, listen string, h func(self string) http.HandlerFunc) *fakeProvider {
	t.Helper()
	p := &fakeProvider{Server: httptest.NewUnstartedServer(nil)}
	if listen != "" {
		ln, err := net.Listen("tcp", listen)
		if err != nil {
			t.Fatal(err)
		}
		p.Listener.Close()
		p.Listener = ln
	}
	self := "https://" + p.Listener.Addr().String()
	p.Config.Handler = h(self)
	p.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			p.conns.Add(1)
		}
	}
	p.Config.ErrorLog = slog.NewLogLogger(slog.NewTextHandler(io.Discard, nil), slog.LevelError)
	p.StartTLS()
	t.Cleanup(p.Close)
	return p
}

// discovery is a provider's discovery document at self, with changes.
func discovery(self string, change func(map[string]any)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		doc := map[string]any{"issuer": self, "authorization_endpoint": self + "/auth", "token_endpoint": self + "/token",
			"jwks_uri": self + "/keys", "userinfo_endpoint": self + "/userinfo", "response_types_supported": []string{"code"},
			"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"}}
		if change != nil {
			change(doc)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}
}

// TestIdentityProviderSSRF: an issuer URL, or a discovery document, that
// points the server at a private or local address, at plain http, or that
// answers with something to read back, is refused (422) in this server's
// words, and nothing the remote server sent is shown.
func TestIdentityProviderSSRF(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum")

	t.Run("private and local addresses", func(t *testing.T) {
		g := newGuardedSite(t, app) // the operator allows no range
		for _, issuer := range []string{o.Issuer, "https://169.254.169.254/latest/meta-data", "https://10.1.2.3", "https://[::1]:8443", "https://0.0.0.0"} {
			code, body := g.saveIssuer(t, issuer)
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, "does not connect to private or local addresses") || !strings.Contains(body, `id="issuerUrl" name="issuerUrl"`) {
				t.Errorf("issuer %s: %d, want 422 saying private or local addresses are refused", issuer, code)
			}
		}
		if tn := savedTenant(t, app); tn.IssuerURL != "" {
			t.Fatalf("a refused issuer was saved: %s", tn.IssuerURL)
		}
	})

	g := newGuardedSite(t, app, "127.0.0.1/32") // loopback's 127.0.0.1 only
	inside := newFakeProvider(t, "127.0.0.2:0", func(self string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, remoteSecret) }
	})
	cases := []struct {
		name    string
		handler func(self string) http.HandlerFunc
		want    string
	}{
		{"a redirect to a loopback address not allowed", func(string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, inside.URL+"/latest/meta-data", http.StatusFound)
			}
		}, "does not connect to private or local addresses"},
		{"a redirect from https to http", func(self string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://"+strings.TrimPrefix(self, "https://")+"/x", http.StatusFound)
			}
		}, "No provider could be reached"},
		{"an http token endpoint", func(self string) http.HandlerFunc {
			return discovery(self, func(d map[string]any) { d["token_endpoint"] = "http://login.example.com/token" })
		}, "names an endpoint (token_endpoint) that is not https"},
		{"an http JWKS URL", func(self string) http.HandlerFunc {
			return discovery(self, func(d map[string]any) { d["jwks_uri"] = "http://169.254.169.254/keys" })
		}, "names an endpoint (jwks_uri) that is not https"},
		{"an http userinfo endpoint", func(self string) http.HandlerFunc {
			return discovery(self, func(d map[string]any) { d["userinfo_endpoint"] = "http://10.0.0.1/userinfo" })
		}, "names an endpoint (userinfo_endpoint) that is not https"},
		{"an http authorization endpoint", func(self string) http.HandlerFunc {
			return discovery(self, func(d map[string]any) { d["authorization_endpoint"] = "http://login.example.com/auth" })
		}, "names an endpoint (authorization_endpoint) that is not https"},
		{"an issuer that calls itself by what it read", func(self string) http.HandlerFunc {
			return discovery(self, func(d map[string]any) { d["issuer"] = "https://" + remoteSecret })
		}, "gives another issuer URL"},
		{"an error page", func(string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, remoteSecret, http.StatusInternalServerError)
			}
		}, "No OpenID Connect discovery document"},
		{"a body too large", func(self string) http.HandlerFunc {
			return discovery(self, func(d map[string]any) { d["padding"] = strings.Repeat(remoteSecret, 2<<20/len(remoteSecret)) })
		}, "No OpenID Connect discovery document"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakeProvider(t, "", tt.handler)
			code, body := g.saveIssuer(t, p.URL)
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, tt.want) {
				t.Fatalf("issuer %s: %d, want 422 with %q", p.URL, code, tt.want)
			}
			if strings.Contains(body, remoteSecret) {
				t.Fatal("the page shows what the remote server sent")
			}
			if tn := savedTenant(t, app); tn.IssuerURL != "" {
				t.Fatalf("a refused issuer was saved: %s", tn.IssuerURL)
			}
		})
	}
	if n := inside.conns.Load(); n != 0 {
		t.Fatalf("the server behind the redirect got %d connections", n)
	}
}

func savedTenant(t *testing.T, app *testApp) *survey.Tenant {
	t.Helper()
	tn, err := store.NewTenantStore(app.st).WithSecrets(testBox).Get(context.Background(), "adatum")
	if err != nil {
		t.Fatal(err)
	}
	return tn
}
