package web_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/xml"
	"html"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crewjam/saml"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/web/oidctest"
)

// testIdP is a SAML identity provider run in the test (crewjam/saml's
// IdentityProvider, over https on loopback): it signs in whoever Session
// names, and serves the service provider metadata SP (as an admin
// registers the app at the provider).
type testIdP struct {
	srv  *httptest.Server
	base string
	idp  *saml.IdentityProvider

	mu      sync.Mutex
	sp      *saml.EntityDescriptor
	session *saml.Session
}

func newTestIdP(t *testing.T) *testIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Test IdP"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ti := &testIdP{srv: httptest.NewUnstartedServer(nil)}
	ti.base = "https://" + ti.srv.Listener.Addr().String()
	meta, _ := url.Parse(ti.base + "/metadata")
	sso, _ := url.Parse(ti.base + "/sso")
	ti.idp = &saml.IdentityProvider{Key: key, Signer: key, Certificate: cert, MetadataURL: *meta, SSOURL: *sso,
		ServiceProviderProvider: ti, SessionProvider: ti, Logger: log.New(io.Discard, "", 0),
		SignatureMethod: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"}
	ti.srv.Config.Handler = ti.idp.Handler()
	ti.srv.StartTLS()
	t.Cleanup(ti.srv.Close)
	return ti
}

func (ti *testIdP) GetServiceProvider(_ *http.Request, _ string) (*saml.EntityDescriptor, error) {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	if ti.sp == nil {
		return nil, saml.ErrUnknownServiceProvider
	}
	return ti.sp, nil
}

func (ti *testIdP) GetSession(http.ResponseWriter, *http.Request, *saml.IdpAuthnRequest) *saml.Session {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	s := *ti.session
	return &s
}

// as makes the provider sign in email, in groups.
func (ti *testIdP) as(email string, groups ...string) {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	ti.session = &saml.Session{ID: "s-" + email, CreateTime: time.Now(), ExpireTime: time.Now().Add(time.Hour), Index: "1",
		NameID: email, NameIDFormat: string(saml.EmailAddressNameIDFormat), UserEmail: email, Groups: groups}
}

// register gives the provider the app's service provider metadata, with
// change applied (nil: as published).
func (ti *testIdP) register(t *testing.T, app *testApp, tenant string, change func(*saml.EntityDescriptor)) {
	t.Helper()
	code, _, body := app.do(t, "GET", "/login/"+tenant+"/saml/metadata", nil, nil)
	if code != http.StatusOK {
		t.Fatalf("SP metadata = %d %s", code, body)
	}
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal([]byte(body), &ed); err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(&ed)
	}
	ti.mu.Lock()
	ti.sp = &ed
	ti.mu.Unlock()
}

// samlBrowser is a browser: a cookie jar, trusting the test providers'
// certificate, following no redirect.
func samlBrowser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Transport: oidctest.HTTPClient().Transport, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func browse(t *testing.T, b *http.Client, method, u string, form url.Values, header ...string) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(raw)
}

var (
	samlResponseRE = regexp.MustCompile(`name="SAMLResponse" value="([^"]+)"`)
	relayStateRE   = regexp.MustCompile(`name="RelayState" value="([^"]*)"`)
	formActionRE   = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
)

// startSAML starts a sign-in at the app in browser b and returns the form
// the provider's page would post to the app's ACS.
func startSAML(t *testing.T, app *testApp, ti *testIdP, b *http.Client, tenant string) (acs string, form url.Values) {
	t.Helper()
	code, h, body := browse(t, b, "GET", app.srv.URL+"/login/"+tenant+"/saml", nil)
	if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), ti.base+"/sso?") {
		t.Fatalf("start = %d to %q: %s", code, h.Get("Location"), body)
	}
	code, _, body = browse(t, b, "GET", h.Get("Location"), nil)
	m, rs, act := samlResponseRE.FindStringSubmatch(body), relayStateRE.FindStringSubmatch(body), formActionRE.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil || rs == nil || act == nil {
		t.Fatalf("provider's page = %d: %s", code, body)
	}
	return html.UnescapeString(act[1]), url.Values{"SAMLResponse": {html.UnescapeString(m[1])}, "RelayState": {html.UnescapeString(rs[1])}}
}

// editResponse changes the XML of the form's Response.
func editResponse(t *testing.T, form url.Values, edit func(string) string) url.Values {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
	if err != nil {
		t.Fatal(err)
	}
	out := url.Values{"RelayState": {form.Get("RelayState")}}
	edited := edit(string(raw))
	if edited == string(raw) {
		t.Fatal("the edit changed nothing")
	}
	out.Set("SAMLResponse", base64.StdEncoding.EncodeToString([]byte(edited)))
	return out
}

var signatureRE = regexp.MustCompile(`(?s)<(?:\w+:)?Signature\b.*?</(?:\w+:)?Signature>`)

// newSAMLApp is a test app with a public URL (its own), and an admin of
// Adatum, whose session cookie it returns.
func newSAMLApp(t *testing.T) (*testApp, map[string]string) {
	t.Helper()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.PublicURL = selfURL })
	return app, app.signedIn(t, "adatum", "ana@adatum.example")
}

// saveSAML posts the SAML settings form as the admin.
func saveSAML(t *testing.T, app *testApp, admin map[string]string, fields ...string) (int, string) {
	t.Helper()
	m := multipartForm{}
	for i := 0; i+1 < len(fields); i += 2 {
		m.fields = append(m.fields, [2]string{fields[i], fields[i+1]})
	}
	code, _, body := app.postForm(t, "/adatum/settings/saml", m, admin)
	return code, body
}

func roleOf(t *testing.T, app *testApp, tenant, email string) survey.Role {
	t.Helper()
	ms, err := store.NewUserStore(app.st).Members(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Email == email {
			return m.Role
		}
	}
	return ""
}

// TestSAMLSignIn: an admin imports a SAML provider's metadata by URL
// (fetched through the guarded outbound client, a local server allowed as
// the OIDC tests allow theirs), registers our metadata at the provider,
// and staff sign in through it: a full sign-in through the HTTP handlers
// makes a member with a session; the group gate refuses one outside the
// group; the role mapping gives admins and viewers their role; an
// unsigned or tampered assertion, one for another audience, and a
// replayed one are refused, each with no session and audited.
func TestSAMLSignIn(t *testing.T) {
	t.Parallel()
	app, admin := newSAMLApp(t)
	ti := newTestIdP(t)
	code, body := saveSAML(t, app, admin, "metadataUrl", ti.base+"/metadata", "groupAttribute", "eduPersonAffiliation", "groupValue", "staff",
		"adminGroup", "it-admins", "viewerGroup", "readers", "action", "save")
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d: %s", code, body)
	}
	code, _, body = app.do(t, "GET", "/adatum/settings/saml", nil, admin)
	if code != http.StatusOK || !strings.Contains(body, ti.base+"/metadata") || !strings.Contains(body, app.srv.URL+"/login/adatum/saml/acs") {
		t.Fatalf("settings page = %d: %s", code, body)
	}
	ti.register(t, app, "adatum", nil)
	if ti.sp.EntityID != app.srv.URL+"/login/adatum/saml/metadata" {
		t.Fatalf("entity ID %q", ti.sp.EntityID)
	}

	signIn := func(t *testing.T, b *http.Client, edit func(url.Values) url.Values) (int, http.Header, string) {
		t.Helper()
		acs, form := startSAML(t, app, ti, b, "adatum")
		if acs != app.srv.URL+"/login/adatum/saml/acs" {
			t.Fatalf("the provider posts to %q", acs)
		}
		if edit != nil {
			form = edit(form)
		}
		// As a browser posts the provider's form: from the provider's site.
		return browse(t, b, "POST", acs, form, "Origin", ti.base, "Sec-Fetch-Site", "cross-site")
	}
	sessionOf := func(b *http.Client) string {
		u, _ := url.Parse(app.srv.URL)
		for _, c := range b.Jar.Cookies(u) {
			if c.Name == "surveys_session" {
				return c.Value
			}
		}
		return ""
	}
	refused := func(t *testing.T, b *http.Client, code, want int, body, words string) {
		t.Helper()
		if code != want || !strings.Contains(body, words) {
			t.Fatalf("ACS = %d (want %d): %s", code, want, body)
		}
		if sessionOf(b) != "" {
			t.Fatal("a refused sign-in left a session")
		}
	}

	t.Run("sign-in", func(t *testing.T) {
		ti.as("sam@adatum.example", "staff")
		b := samlBrowser(t)
		code, h, body := signIn(t, b, nil)
		if code != http.StatusSeeOther || h.Get("Location") != "/adatum/surveys" || sessionOf(b) == "" {
			t.Fatalf("ACS = %d to %q: %s", code, h.Get("Location"), body)
		}
		code, _, body = browse(t, b, "GET", app.srv.URL+"/adatum/surveys", nil)
		if code != http.StatusOK || !strings.Contains(body, "sam@adatum.example") {
			t.Fatalf("dashboard = %d", code)
		}
		if r := roleOf(t, app, "adatum", "sam@adatum.example"); r != survey.ExternalRole {
			t.Fatalf("a new member in no mapped group is %q", r)
		}
		// The account has no password.
		if _, err := testUsers(app.st).Authenticate(context.Background(), "adatum", "sam@adatum.example", ""); survey.ErrorCode(err) != survey.EFORBIDDEN {
			t.Fatalf("password sign-in of a SAML account: %v", err)
		}
	})
	t.Run("role mapping", func(t *testing.T) {
		for _, c := range []struct {
			email  string
			groups []string
			want   survey.Role
			page   int // of the settings, an admin's page
		}{
			{"ivy@adatum.example", []string{"staff", "it-admins", "readers"}, survey.Admin, http.StatusOK},
			{"vic@adatum.example", []string{"readers", "staff"}, survey.Viewer, http.StatusForbidden},
		} {
			ti.as(c.email, c.groups...)
			b := samlBrowser(t)
			if code, _, body := signIn(t, b, nil); code != http.StatusSeeOther {
				t.Fatalf("%s: ACS = %d: %s", c.email, code, body)
			}
			if r := roleOf(t, app, "adatum", c.email); r != c.want {
				t.Fatalf("%s is %q, want %q", c.email, r, c.want)
			}
			if code, _, _ := browse(t, b, "GET", app.srv.URL+"/adatum/settings", nil); code != c.page {
				t.Fatalf("%s: settings = %d, want %d", c.email, code, c.page)
			}
		}
		// The mapping follows the provider: out of the admins' group, an
		// admin is mapped again at the next sign-in.
		ti.as("ivy@adatum.example", "staff", "readers")
		if code, _, body := signIn(t, samlBrowser(t), nil); code != http.StatusSeeOther {
			t.Fatalf("ACS = %d: %s", code, body)
		}
		if r := roleOf(t, app, "adatum", "ivy@adatum.example"); r != survey.Viewer {
			t.Fatalf("ivy is %q after leaving it-admins", r)
		}
	})
	t.Run("group gate", func(t *testing.T) {
		ti.as("sal@adatum.example", "sales")
		b := samlBrowser(t)
		code, _, body := signIn(t, b, nil)
		refused(t, b, code, http.StatusForbidden, body, "is not in the group staff")
		if r := roleOf(t, app, "adatum", "sal@adatum.example"); r != "" {
			t.Fatalf("a refused person became a member (%q)", r)
		}
	})
	// The provider encrypts assertions to the key our metadata gives; for
	// the next two, registered without it, they travel in the clear.
	plain := func(ed *saml.EntityDescriptor) {
		for i := range ed.SPSSODescriptors {
			var keep []saml.KeyDescriptor
			for _, k := range ed.SPSSODescriptors[i].KeyDescriptors {
				if k.Use != "encryption" {
					keep = append(keep, k)
				}
			}
			ed.SPSSODescriptors[i].KeyDescriptors = keep
		}
	}
	t.Run("encrypted assertion", func(t *testing.T) {
		ti.as("eve@adatum.example", "staff")
		b := samlBrowser(t)
		_, form := startSAML(t, app, ti, b, "adatum")
		raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
		if !strings.Contains(string(raw), "EncryptedAssertion") || strings.Contains(string(raw), "eve@adatum.example") {
			t.Fatalf("the assertion to our metadata's encryption key is not encrypted: %s", raw)
		}
	})
	ti.register(t, app, "adatum", plain)
	t.Run("unsigned assertion", func(t *testing.T) {
		ti.as("uma@adatum.example", "staff")
		b := samlBrowser(t)
		code, _, body := signIn(t, b, func(f url.Values) url.Values {
			return editResponse(t, f, func(x string) string { return signatureRE.ReplaceAllString(x, "") })
		})
		refused(t, b, code, http.StatusForbidden, body, "not signed by the provider")
	})
	t.Run("tampered assertion", func(t *testing.T) {
		ti.as("tom@adatum.example", "staff")
		b := samlBrowser(t)
		code, _, body := signIn(t, b, func(f url.Values) url.Values {
			return editResponse(t, f, func(x string) string { return strings.ReplaceAll(x, "tom@adatum.example", "ana@adatum.example") })
		})
		refused(t, b, code, http.StatusForbidden, body, "not signed by the provider")
	})
	ti.register(t, app, "adatum", nil)
	t.Run("wrong audience", func(t *testing.T) {
		ti.register(t, app, "adatum", func(ed *saml.EntityDescriptor) { ed.EntityID = "https://elsewhere.example/saml" })
		defer ti.register(t, app, "adatum", nil)
		ti.as("sam@adatum.example", "staff")
		b := samlBrowser(t)
		code, _, body := signIn(t, b, nil)
		refused(t, b, code, http.StatusForbidden, body, "meant for another service provider")
	})
	t.Run("replay", func(t *testing.T) {
		ti.as("sam@adatum.example", "staff")
		b := samlBrowser(t)
		acs, form := startSAML(t, app, ti, b, "adatum")
		// The browser's cookie, as an eavesdropper would copy it.
		u, _ := url.Parse(app.srv.URL + "/login/adatum/saml/acs")
		var cookie string
		for _, c := range b.Jar.Cookies(u) {
			if c.Name == "surveys_saml" {
				cookie = c.Name + "=" + c.Value
			}
		}
		if code, _, body := browse(t, b, "POST", acs, form); code != http.StatusSeeOther {
			t.Fatalf("first use = %d: %s", code, body)
		}
		// Again, with its cookie: the sign-in is spent.
		again := samlBrowser(t)
		req, _ := http.NewRequest("POST", acs, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Cookie", cookie)
		resp, err := again.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || sessionOf(again) != "" {
			t.Fatalf("replay with the cookie = %d", resp.StatusCode)
		}
		// In a browser of its own sign-in: that sign-in asked for another
		// request, and the assertion was used.
		other := samlBrowser(t)
		_, own := startSAML(t, app, ti, other, "adatum")
		form.Set("RelayState", own.Get("RelayState"))
		code, _, body := browse(t, other, "POST", acs, form)
		refused(t, other, code, http.StatusForbidden, body, "refused")
	})
	// Each refusal and sign-in is in the audit log.
	events, _, err := store.NewAuditStore(app.st).List(context.Background(), "adatum", survey.AuditFilter{}, "", 500)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range events {
		count[e.Action]++
	}
	if count[survey.AuditSignIn] < 5 || count[survey.AuditSignInFailed] < 5 || count[survey.AuditIdentity] != 1 || count[survey.AuditMemberRole] < 2 {
		t.Fatalf("audit log: %v", count)
	}
}

// TestSAMLSettings: the settings page refuses, beside the field and
// changing nothing, metadata it cannot use (not https, not answering,
// not SAML, a service provider's, no group), and a SAML provider while
// OpenID Connect is set up; it keeps the saved metadata and key when
// the metadata fields are left empty; it removes the provider; and the
// organisation form's sign-in goes to SAML.
func TestSAMLSettings(t *testing.T) {
	t.Parallel()
	app, admin := newSAMLApp(t)
	ti := newTestIdP(t)
	metaOf := func() string {
		code, _, body := browse(t, samlBrowser(t), "GET", ti.base+"/metadata", nil)
		if code != http.StatusOK {
			t.Fatalf("IdP metadata = %d", code)
		}
		return body
	}
	goodMeta := metaOf()
	ss := store.NewSAMLStore(app.st).WithSecrets(testBox)
	for _, c := range []struct {
		name   string
		fields []string
		words  string
	}{
		{"plain http", []string{"metadataUrl", "http://idp.example/metadata"}, "https only"},
		{"not answering a document", []string{"metadataUrl", ti.base + "/nothing-here"}, "did not answer with a document"},
		{"not SAML", []string{"metadataXml", "<html><body>hello</body></html>"}, "not SAML 2.0 metadata"},
		{"not XML", []string{"metadataXml", "{\"issuer\":\"x\"}"}, "not SAML 2.0 metadata"},
		{"a service provider's", []string{"metadataXml", `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example/"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"></SPSSODescriptor></EntityDescriptor>`}, "describes no identity provider"},
		{"no group", []string{"metadataXml", goodMeta, "groupAttribute", "groups"}, "Enter the group that may sign in"},
		{"no metadata", []string{"groupAttribute", "groups", "groupValue", "staff"}, "Give your identity provider"},
	} {
		fields := append([]string{"groupAttribute", "groups", "groupValue", "staff"}, c.fields...)
		if c.name == "no group" {
			fields = c.fields
		}
		code, body := saveSAML(t, app, admin, fields...)
		if code != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(body), c.words) {
			t.Errorf("%s: %d, want 422 with %q: %s", c.name, code, c.words, body)
		}
		if _, err := ss.Get(context.Background(), "adatum"); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("%s: saved anyway (%v)", c.name, err)
		}
	}
	// Pasted metadata is saved; the key with it.
	if code, body := saveSAML(t, app, admin, "metadataXml", goodMeta, "groupAttribute", "groups", "groupValue", "staff"); code != http.StatusSeeOther {
		t.Fatalf("save = %d: %s", code, body)
	}
	first, err := ss.Get(context.Background(), "adatum")
	if err != nil || first.EntityID != ti.base+"/metadata" || !strings.Contains(first.SPKey, "PRIVATE KEY") {
		t.Fatalf("saved %+v, %v", first, err)
	}
	// Saved again without metadata: the same metadata and key, a new group.
	if code, body := saveSAML(t, app, admin, "groupAttribute", "groups", "groupValue", "crew"); code != http.StatusSeeOther {
		t.Fatalf("save = %d: %s", code, body)
	}
	second, err := ss.Get(context.Background(), "adatum")
	if err != nil || second.Metadata != first.Metadata || second.SPKey != first.SPKey || second.GroupValue != "crew" {
		t.Fatalf("after a save without metadata: %+v, %v", second, err)
	}
	// The SP metadata carries our certificate and ACS.
	code, h, body := app.do(t, "GET", "/login/adatum/saml/metadata", nil, nil)
	if code != http.StatusOK || !strings.Contains(h.Get("Content-Type"), "samlmetadata+xml") || !strings.Contains(body, app.srv.URL+"/login/adatum/saml/acs") ||
		!strings.Contains(body, strings.Join(strings.Split(strings.TrimSpace(pemBody(second.SPCertificate)), "\n"), "")[:40]) {
		t.Fatalf("SP metadata = %d: %s", code, body)
	}
	// The organisation form's sign-in leads to SAML.
	if code, h, _ := app.do(t, "GET", "/login/adatum/oidc?next=/adatum/settings", nil, nil); code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login/adatum/saml?next=") {
		t.Fatalf("OIDC start of a SAML tenant = %d to %q", code, h.Get("Location"))
	}
	// OpenID Connect cannot be saved beside it; its page says so.
	if code, _, body := app.do(t, "GET", "/adatum/settings/identity", nil, admin); code != http.StatusOK || !strings.Contains(body, `id="uses-saml"`) {
		t.Fatalf("identity page with SAML = %d", code)
	}
	code, _, body = app.do(t, "POST", "/adatum/settings/identity", url.Values{"issuerUrl": {"https://login.example.com"}, "clientId": {"x"}, "claimType": {"groups"}, "claimValue": {"staff"}}, admin)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "remove it on the SAML page first") {
		t.Fatalf("OIDC beside SAML = %d: %s", code, body)
	}
	// Removed: nothing left, and its sign-in is gone.
	if code, body := saveSAML(t, app, admin, "action", "remove"); code != http.StatusSeeOther {
		t.Fatalf("remove = %d: %s", code, body)
	}
	if _, err := ss.Get(context.Background(), "adatum"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("after remove: %v", err)
	}
	for _, p := range []string{"/login/adatum/saml", "/login/adatum/saml/metadata"} {
		if code, _, _ := app.do(t, "GET", p, nil, nil); code != http.StatusNotFound {
			t.Fatalf("%s after remove = %d", p, code)
		}
	}
	// With OpenID Connect set up, SAML is refused.
	tn := app.tenant(t, "adatum")
	tn.IssuerURL, tn.ClientID, tn.ClaimType, tn.ClaimValue = "https://login.example.com", "x", "groups", "staff"
	if err := store.NewTenantStore(app.st).WithSecrets(testBox).Update(context.Background(), tn); err != nil {
		t.Fatal(err)
	}
	if code, body := saveSAML(t, app, admin, "metadataXml", goodMeta, "groupAttribute", "groups", "groupValue", "staff"); code != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(body), "OpenID Connect provider: remove it") {
		t.Fatalf("SAML beside OIDC = %d: %s", code, body)
	}
}

// pemBody is the base64 of a PEM block.
func pemBody(p string) string {
	lines := strings.Split(strings.TrimSpace(p), "\n")
	if len(lines) < 3 {
		return p
	}
	return strings.Join(lines[1:len(lines)-1], "\n")
}

// TestSAMLNeedsPublicURL: without a configured public URL there is no
// service provider (its entity ID and ACS would come from a request's
// Host): the page says so and nothing is saved.
func TestSAMLNeedsPublicURL(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	admin := app.signedIn(t, "adatum", "ana@adatum.example")
	code, _, body := app.do(t, "GET", "/adatum/settings/saml", nil, admin)
	if code != http.StatusOK || !strings.Contains(body, "SURVEYS_PUBLIC_URL") || strings.Contains(body, "saml-acs-url") {
		t.Fatalf("page = %d: %s", code, body)
	}
	code, body = saveSAML(t, app, admin, "metadataXml", "<x/>", "groupAttribute", "groups", "groupValue", "staff")
	if code != http.StatusUnprocessableEntity || !bytes.Contains([]byte(body), []byte("SURVEYS_PUBLIC_URL")) {
		t.Fatalf("save = %d: %s", code, body)
	}
}

// TestSAMLReplayAcrossInstances: two instances share the storage and the
// key of sign-in cookies. A Response used at one, posted again with its
// cookie at the other (whose memory has seen neither the request nor the
// assertion), is refused: the store remembers the assertion.
func TestSAMLReplayAcrossInstances(t *testing.T) {
	t.Parallel()
	st := backends.Local(t)
	key := testBox.Derive("oidc-sign-in")
	one := newTestAppOn(t, st, func(d *web.Deps) { d.PublicURL, d.SignInKey = selfURL, key })
	two := newTestAppOn(t, st, func(d *web.Deps) { d.PublicURL, d.SignInKey = one.srv.URL, key })
	admin := one.signedIn(t, "adatum", "ana@adatum.example")
	ti := newTestIdP(t)
	if code, body := saveSAML(t, one, admin, "metadataUrl", ti.base+"/metadata", "groupAttribute", "eduPersonAffiliation", "groupValue", "staff"); code != http.StatusSeeOther {
		t.Fatalf("save = %d: %s", code, body)
	}
	ti.register(t, one, "adatum", nil)
	ti.as("sam@adatum.example", "staff")
	b := samlBrowser(t)
	acs, form := startSAML(t, one, ti, b, "adatum")
	u, _ := url.Parse(acs)
	var cookie string
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == "surveys_saml" {
			cookie = c.Name + "=" + c.Value
		}
	}
	if code, _, body := browse(t, b, "POST", acs, form); code != http.StatusSeeOther {
		t.Fatalf("first use = %d: %s", code, body)
	}
	code, h, body := two.do(t, "POST", "/login/adatum/saml/acs", form, map[string]string{"Cookie": cookie})
	if code != http.StatusForbidden || !strings.Contains(body, "already used") || strings.Contains(h.Get("Set-Cookie"), "surveys_session=") {
		t.Fatalf("replay at the other instance = %d: %s", code, body)
	}
}
