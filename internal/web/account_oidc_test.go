package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/web/oidctest"
)

// testBox seals the tenants' secrets in the test apps.
var testBox = func() *secret.Box {
	b, err := secret.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		panic(err)
	}
	return b
}()

// newTestOP starts a provider with one confidential web client per tenant
// ("<tenant>-client", secret "<tenant>-secret") whose redirect URL is the
// app's callback for that tenant.
func newTestOP(t testing.TB, app *testApp, tenants ...string) *oidctest.Provider {
	t.Helper()
	var clients []oidctest.Client
	for _, tn := range tenants {
		clients = append(clients, oidctest.Client{ID: tn + "-client", Secret: tn + "-secret", RedirectURL: app.srv.URL + "/login/" + tn + "/oidc/callback"})
	}
	return oidctest.New(t, clients...)
}

// useOP points a tenant at the provider, as its settings page would.
func (app *testApp) useOP(t testing.TB, o *oidctest.Provider, tenant, claimType, claimValue string) {
	t.Helper()
	ctx := context.Background()
	ts := store.NewTenantStore(app.st).WithSecrets(testBox)
	tn, err := ts.Get(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	tn.IssuerURL, tn.ClientID, tn.ClientSecret, tn.ClaimType, tn.ClaimValue = o.Issuer, tenant+"-client", tenant+"-secret", claimType, claimValue
	if err := ts.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
}

// session is the browser's session cookie at the app, or "".
func session(b *oidctest.Browser, app *testApp) string {
	return b.Cookie(app.srv.URL, "surveys_session")
}

func TestOIDCSignIn(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum")
	tests := []struct {
		name, claimType, claimValue, user string
		want                              int
		wantBody                          string
	}{
		{"a group in an array of the ID token", "groups", "surveys-staff", oidctest.StaffUser, http.StatusSeeOther, ""},
		{"the email from userinfo", "email", oidctest.StaffEmail, oidctest.StaffUser, http.StatusSeeOther, ""},
		{"a string claim with another value", "groups", "surveys-staff", oidctest.SalesUser, http.StatusForbidden, "does not have the claim groups = surveys-staff"},
		{"an array without the value", "groups", "admins", oidctest.StaffUser, http.StatusForbidden, "does not have the claim groups = admins"},
		{"a claim the account lacks", "department", "research", oidctest.StaffUser, http.StatusForbidden, "does not have the claim department = research"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app.useOP(t, o, "adatum", tt.claimType, tt.claimValue)
			b := oidctest.NewBrowser(false)
			code, h, body := b.SignIn(t, o, app.srv.URL, "adatum", tt.user)
			if code != tt.want || !strings.Contains(body, tt.wantBody) {
				t.Fatalf("callback = %d %s, want %d %q", code, body, tt.want, tt.wantBody)
			}
			if tt.want != http.StatusSeeOther {
				if session(b, app) != "" {
					t.Fatal("a refused sign-in left a session cookie")
				}
				if code, h, _ := b.FetchOnce(t, app.srv.URL+"/adatum/surveys"); code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
					t.Fatalf("dashboard after a refused sign-in = %d %s", code, h.Get("Location"))
				}
				return
			}
			if h.Get("Location") != "/adatum/surveys" || session(b, app) == "" {
				t.Fatalf("signed in to %q, session %q", h.Get("Location"), session(b, app))
			}
			code, _, body = b.Fetch(t, app.srv.URL+"/adatum/surveys")
			if code != http.StatusOK || !strings.Contains(body, oidctest.StaffEmail) || !strings.Contains(body, "Your surveys") {
				t.Fatalf("dashboard = %d", code)
			}
			// The callback serves once: replayed, with its cookie, it is 400.
			replay, _ := http.NewRequest("GET", b.Callback.String(), nil)
			replay.Header.Set("Cookie", "surveys_oidc="+b.Callback.Query().Get("state"))
			resp, err := http.DefaultClient.Do(replay)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("replayed callback = %d", resp.StatusCode)
			}
		})
	}
	// The account made for the provider's user has no password.
	if _, err := testUsers(app.st).Authenticate(context.Background(), "adatum", oidctest.StaffEmail, ""); survey.ErrorCode(err) != survey.EFORBIDDEN {
		t.Fatalf("password sign-in of an OIDC account: %v", err)
	}
}

func TestOIDCBadState(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum")
	app.useOP(t, o, "adatum", "groups", "surveys-staff")
	tamper := func(u *url.URL, state string) string {
		q := u.Query()
		q.Set("state", state)
		v := *u
		v.RawQuery = q.Encode()
		return v.String()
	}
	flip := func(s string) string { // a character of the random part
		i := len(s) - 10
		if s[i] == 'A' {
			return s[:i] + "B" + s[i+1:]
		}
		return s[:i] + "A" + s[i+1:]
	}
	tests := []struct {
		name string
		url  func(cb *url.URL) string
		// cookie, when not nil, gives the browser's state cookie from the
		// provider's state.
		cookie func(state string) string
	}{
		{"tampered state", func(cb *url.URL) string { return tamper(cb, flip(cb.Query().Get("state"))) }, nil},
		{"tampered state, in the cookie too", func(cb *url.URL) string { return tamper(cb, flip(cb.Query().Get("state"))) }, flip},
		{"no state", func(cb *url.URL) string { return tamper(cb, "") }, nil},
		{"another browser's state (cookie)", func(cb *url.URL) string { return cb.String() }, func(string) string { return "x" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := oidctest.NewBrowser(true)
			code, _, _ := b.SignIn(t, o, app.srv.URL, "adatum", oidctest.StaffUser)
			if code != http.StatusFound && code != http.StatusSeeOther {
				t.Fatalf("provider's redirect = %d", code)
			}
			if tt.cookie != nil {
				u, _ := url.Parse(app.srv.URL + "/login/adatum/oidc")
				b.Jar.SetCookies(u, []*http.Cookie{{Name: "surveys_oidc", Value: tt.cookie(b.Callback.Query().Get("state")), Path: "/login/adatum/oidc"}})
			}
			code, _, body := b.Fetch(t, tt.url(b.Callback))
			if code != http.StatusBadRequest || !strings.Contains(body, "Start again") {
				t.Fatalf("callback = %d %s", code, body)
			}
			if session(b, app) != "" {
				t.Fatal("a bad state left a session")
			}
		})
	}
}

// TestOIDCTenantIsolation: a sign-in started for Adatum cannot finish as
// Fabrikam, though both use one provider: the state is Adatum's.
func TestOIDCTenantIsolation(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum", "fabrikam")
	app.useOP(t, o, "adatum", "groups", "surveys-staff")
	app.useOP(t, o, "fabrikam", "groups", "surveys-staff")
	b := oidctest.NewBrowser(true)
	b.SignIn(t, o, app.srv.URL, "adatum", oidctest.StaffUser)
	// The browser takes Adatum's code and state to Fabrikam's callback,
	// with a state cookie for it too.
	cb := *b.Callback
	cb.Path = "/login/fabrikam/oidc/callback"
	u, _ := url.Parse(app.srv.URL + "/login/fabrikam/oidc")
	b.Jar.SetCookies(u, []*http.Cookie{{Name: "surveys_oidc", Value: cb.Query().Get("state"), Path: "/login/fabrikam/oidc"}})
	code, _, body := b.Fetch(t, cb.String())
	if code != http.StatusBadRequest {
		t.Fatalf("Adatum's callback at Fabrikam = %d %s", code, body)
	}
	if session(b, app) != "" {
		t.Fatal("Adatum's sign-in gave a session at Fabrikam")
	}
	// Fabrikam's own sign-in works, and gives a Fabrikam session only.
	f := oidctest.NewBrowser(false)
	if code, h, body := f.SignIn(t, o, app.srv.URL, "fabrikam", oidctest.StaffUser); code != http.StatusSeeOther || h.Get("Location") != "/fabrikam/surveys" {
		t.Fatalf("Fabrikam's sign-in = %d %s", code, body)
	}
	if code, _, _ := f.Fetch(t, app.srv.URL+"/adatum/surveys"); code != http.StatusForbidden {
		t.Fatalf("Fabrikam's OIDC session on Adatum's dashboard = %d", code)
	}
}

func TestOIDCNotConfigured(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	for _, path := range []string{"/login/fabrikam/oidc", "/login/fabrikam/oidc/callback?state=x&code=y", "/login/nosuchtenant/oidc", "/login/NotAKey!/oidc"} {
		if code, _, _ := app.do(t, "GET", path, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, code)
		}
	}
	// The login page offers the organisation form, and it leads there.
	code, _, body := app.do(t, "GET", "/login", nil, nil)
	if code != 200 || !strings.Contains(body, `action="/login/oidc"`) {
		t.Fatalf("login page = %d", code)
	}
	if code, h, _ := app.do(t, "GET", "/login/oidc?tenant=Fabrikam", nil, nil); code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login/fabrikam/oidc") {
		t.Fatalf("organisation form = %d %s", code, h.Get("Location"))
	}
}

// TestOIDCProviderErrors: what the provider says is shown plainly.
func TestOIDCProviderErrors(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum")

	t.Run("a wrong client secret", func(t *testing.T) {
		app.useOP(t, o, "adatum", "groups", "surveys-staff")
		ts := store.NewTenantStore(app.st).WithSecrets(testBox)
		tn, _ := ts.Get(context.Background(), "adatum")
		tn.ClientSecret = "not-the-secret"
		if err := ts.Update(context.Background(), tn); err != nil {
			t.Fatal(err)
		}
		b := oidctest.NewBrowser(false)
		code, _, body := b.SignIn(t, o, app.srv.URL, "adatum", oidctest.StaffUser)
		if code != http.StatusBadGateway || !strings.Contains(body, "refused the sign-in: invalid_client") {
			t.Fatalf("callback = %d %s", code, body)
		}
		if session(b, app) != "" {
			t.Fatal("a failed exchange left a session")
		}
	})
	t.Run("access denied at the provider", func(t *testing.T) {
		app.useOP(t, o, "adatum", "groups", "surveys-staff")
		b := oidctest.NewBrowser(true)
		b.SignIn(t, o, app.srv.URL, "adatum", oidctest.StaffUser)
		cb := *b.Callback
		cb.RawQuery = url.Values{"state": {cb.Query().Get("state")}, "error": {"access_denied"}, "error_description": {"The user said no"}}.Encode()
		code, _, body := b.Fetch(t, cb.String())
		if code != http.StatusForbidden || !strings.Contains(body, "ended the sign-in: access_denied (The user said no)") {
			t.Fatalf("callback = %d %s", code, body)
		}
	})
	t.Run("a provider that is gone", func(t *testing.T) {
		app.useOP(t, o, "adatum", "groups", "surveys-staff")
		ts := store.NewTenantStore(app.st).WithSecrets(testBox)
		tn, _ := ts.Get(context.Background(), "adatum")
		tn.IssuerURL = "https://127.0.0.1:1"
		if err := ts.Update(context.Background(), tn); err != nil {
			t.Fatal(err)
		}
		code, _, body := app.do(t, "GET", "/login/adatum/oidc", nil, nil)
		if code != http.StatusBadGateway || !strings.Contains(body, "could not be reached") {
			t.Fatalf("start = %d %s", code, body)
		}
	})
}

func TestIdentitySettings(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum")
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + ana.Value}
	tenants := store.NewTenantStore(app.st).WithSecrets(testBox)
	saved := func() *survey.Tenant {
		tn, err := tenants.Get(ctx, "adatum")
		if err != nil {
			t.Fatal(err)
		}
		return tn
	}

	code, _, body := app.do(t, "GET", "/adatum/settings/identity", nil, cookie)
	if code != 200 || !strings.Contains(body, app.srv.URL+"/login/adatum/oidc/callback") || strings.Contains(body, "keeps no secrets") {
		t.Fatalf("settings page = %d", code)
	}

	form := func(issuer, secret string) url.Values {
		return url.Values{"issuerUrl": {issuer}, "clientId": {"adatum-client"}, "clientSecret": {secret}, "claimType": {"groups"}, "claimValue": {"surveys-staff"}}
	}
	refused := []struct {
		name       string
		form       url.Values
		field, msg string
	}{
		{"unreachable issuer", form("https://127.0.0.1:1", "adatum-secret"), "issuerUrl", "No provider could be reached at https://127.0.0.1:1"},
		{"not a provider", form(app.srvTLSLike(t), "adatum-secret"), "issuerUrl", "No OpenID Connect discovery document"},
		{"issuer that calls itself otherwise", form(o.Issuer+"/", "adatum-secret"), "issuerUrl", "gives another issuer URL"},
		{"http issuer", form("http://login.example.com", "adatum-secret"), "issuerUrl", "must start with https://"},
		{"no claim value", func() url.Values { f := form(o.Issuer, "s"); f.Del("claimValue"); return f }(), "claimValue", "Enter the claim value."},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := app.do(t, "POST", "/adatum/settings/identity", tt.form, cookie)
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, tt.msg) || !strings.Contains(body, `id="`+tt.field+`" name="`+tt.field+`"`) {
				t.Fatalf("POST = %d, want 422 with %q", code, tt.msg)
			}
			if tn := saved(); tn.IssuerURL != "" || tn.ClientSecret != "" {
				t.Fatalf("a refused form saved %+v", tn)
			}
		})
	}

	// A good provider is saved, its secret sealed.
	code, h, _ := app.do(t, "POST", "/adatum/settings/identity", form(o.Issuer, "adatum-secret"), cookie)
	if code != http.StatusSeeOther || h.Get("Location") != "/adatum/settings/identity?saved=1" {
		t.Fatalf("save = %d %s", code, h.Get("Location"))
	}
	tn := saved()
	if tn.IssuerURL != o.Issuer || tn.ClientID != "adatum-client" || tn.ClientSecret != "adatum-secret" || tn.ClaimType != "groups" || tn.ClaimValue != "surveys-staff" {
		t.Fatalf("saved %+v", tn)
	}
	raw, err := app.st.GetBlob(ctx, store.TenantsContainer, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw.Data), "adatum-secret") || !strings.Contains(string(raw.Data), `"clientSecret":"v1:`) {
		t.Fatalf("the tenant blob holds the secret in the clear, or not at all: %s", raw.Data)
	}
	// The page never shows the secret; a blank secret keeps it.
	if _, _, body := app.do(t, "GET", "/adatum/settings/identity?saved=1", nil, cookie); strings.Contains(body, "adatum-secret") || !strings.Contains(body, "Leave blank to keep it") {
		t.Fatal("the settings page shows the secret, or not that one is kept")
	}
	f := form(o.Issuer, "")
	f.Set("claimValue", "everyone")
	if code, _, _ := app.do(t, "POST", "/adatum/settings/identity", f, cookie); code != http.StatusSeeOther {
		t.Fatalf("save with a blank secret = %d", code)
	}
	if tn := saved(); tn.ClientSecret != "adatum-secret" || tn.ClaimValue != "everyone" {
		t.Fatalf("after a blank secret: %+v", tn)
	}
	// The login page now offers the organisation's sign-in, which works.
	if _, _, body := app.do(t, "GET", "/login?next=/adatum/surveys", nil, nil); !strings.Contains(body, `href="/login/adatum/oidc?next=%2fadatum%2fsurveys"`) {
		t.Fatalf("login page without the organisation's sign-in: %s", body)
	}
	b := oidctest.NewBrowser(false)
	if code, h, body := b.SignIn(t, o, app.srv.URL, "adatum", oidctest.StaffUser); code != http.StatusSeeOther || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("sign-in after saving = %d %s", code, body)
	}

	// Removed: the fields are cleared and the sign-in is gone.
	if code, h, _ := app.do(t, "POST", "/adatum/settings/identity", url.Values{"action": {"remove"}}, cookie); code != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "removed=1") {
		t.Fatalf("remove = %d", code)
	}
	if tn := saved(); tn.IssuerURL != "" || tn.ClientSecret != "" || tn.ClaimType != "" {
		t.Fatalf("after remove: %+v", tn)
	}
	if code, _, _ := app.do(t, "GET", "/login/adatum/oidc", nil, nil); code != http.StatusNotFound {
		t.Fatalf("sign-in after remove = %d", code)
	}
}

// srvTLSLike is an https URL that answers, but not as a provider.
func (app *testApp) srvTLSLike(t testing.TB) string {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestIdentitySettingsWithoutKey: a server with no secret key says so, and
// refuses to save a client secret.
func TestIdentitySettingsWithoutKey(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum")
	ctx := context.Background()
	tenants, users := store.NewTenantStore(app.st), testUsers(app.st) // no box
	s, err := web.New(web.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tenants: tenants, Users: users,
		Public:         store.NewCachedSurveys(store.NewSurveyStore(app.st), tenants, time.Millisecond),
		TenantSettings: tenants, Outbound: oidctest.Outbound()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	if _, err := users.Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	do := func(method string, form url.Values) (int, string) {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, srv.URL+"/adatum/settings/identity", body)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Cookie", "surveys_session="+ana.Value)
		resp, err := app.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := do("GET", nil); code != 200 || !strings.Contains(body, "This server keeps no secrets") || !strings.Contains(body, "SURVEYS_SECRET_KEY") {
		t.Fatalf("settings page without a key = %d", code)
	}
	f := url.Values{"issuerUrl": {o.Issuer}, "clientId": {"adatum-client"}, "clientSecret": {"adatum-secret"}, "claimType": {"groups"}, "claimValue": {"surveys-staff"}}
	if code, body := do("POST", f); code != http.StatusUnprocessableEntity || !strings.Contains(body, "must set SURVEYS_SECRET_KEY") {
		t.Fatalf("saving a secret without a key = %d", code)
	}
	if tn, err := tenants.Get(ctx, "adatum"); err != nil || tn.IssuerURL != "" {
		t.Fatalf("saved without a key: %+v %v", tn, err)
	}
	// A public client (no secret) is saved.
	f.Del("clientSecret")
	if code, _ := do("POST", f); code != http.StatusSeeOther {
		t.Fatalf("saving a public client without a key = %d", code)
	}
}
