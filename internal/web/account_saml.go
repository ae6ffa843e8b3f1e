package web

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/crewjam/saml"
	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/samlmeta"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SAML 2.0 sign-in, beside OpenID Connect (account_oidc.go): a tenant names its
// identity provider by its metadata (settings_saml.go); this server is the
// tenant's service provider, with a key and certificate of the tenant's,
// at an entity ID and ACS URL built from the configured public URL only.
// A sign-in starts here (the HTTP-Redirect binding), and the provider
// posts its Response to the ACS, where crewjam/saml checks it: signed by
// the provider's metadata's key (a Response or an Assertion without a
// signature is refused), Destination and Recipient our ACS URL, Audience
// our entity ID, NotBefore / NotOnOrAfter, InResponseTo the request this
// browser started (single use), and the assertion's ID never seen before.
// Then the tenant's group gate and role mapping, and a session as
// OpenID Connect gives.

// SAMLProviders keeps the tenants' SAML identity providers
// (store.SAMLStore).
type SAMLProviders interface {
	Get(ctx context.Context, tenant string) (*survey.SAMLProvider, error)
	Put(ctx context.Context, p *survey.SAMLProvider) error
	Delete(ctx context.Context, tenant string) error
	KeepsSecrets() bool
	// Consume records an assertion accepted for tenant until it expires,
	// for every instance; ECONFLICT when it already was.
	Consume(ctx context.Context, tenant, id string, expires time.Time) error
}

// tenantReplay is the replay cache of tenant's service provider: this
// process's bounded memory first, then the store, which every instance
// shares.
type tenantReplay struct {
	ctx    context.Context
	s      *Server
	tenant string
}

func (tr tenantReplay) Consume(id string, expires time.Time) error {
	if err := tr.s.samlReplay.Consume(tr.tenant+" "+id, expires); err != nil {
		return err
	}
	err := tr.s.saml.Consume(tr.ctx, tr.tenant, id, expires)
	if survey.ErrorCode(err) == survey.ECONFLICT {
		return saml.ErrAssertionReplayed
	}
	return err
}

// samlCookie holds the state of a SAML sign-in under way.
const samlCookie = "surveys_saml"

// samlState is what the cookie holds: sealed like an OIDC sign-in's, and
// bound to the tenant. State is the RelayState the provider sends back;
// RequestID is the AuthnRequest's ID, the only InResponseTo accepted.
type samlState struct {
	Tenant    string `json:"t"`
	State     string `json:"s"`
	RequestID string `json:"r"`
	Next      string `json:"x,omitempty"`
	Expires   int64  `json:"e"`
}

func samlAD(tenant string) string { return "saml-sign-in:" + tenant }

// The paths of a tenant's service provider.
func samlMetadataPath(tenant string) string { return "/login/" + tenant + "/saml/metadata" }
func samlACSPath(tenant string) string      { return "/login/" + tenant + "/saml/acs" }

// errNoSAMLPublicURL: a service provider's entity ID and ACS URL are built
// from the configured public URL, never from a request's Host.
var errNoSAMLPublicURL = survey.Errorf(survey.EINVALID, "SAML sign-in needs the server's public URL: its operator must set SURVEYS_PUBLIC_URL.")

// samlEndpoints are the entity ID (the metadata's URL) and the ACS URL of
// tenant's service provider.
func (s *Server) samlEndpoints(tenant string) (entityID, acs string, err error) {
	if s.publicURL == "" {
		return "", "", errNoSAMLPublicURL
	}
	return s.publicURL + samlMetadataPath(tenant), s.publicURL + samlACSPath(tenant), nil
}

// newSPKey makes a service provider's key and a self-signed certificate
// for it (RSA 2048, ten years), in PEM.
func newSPKey(tenant string, now time.Time) (keyPEM, certPEM string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", fmt.Errorf("web: SAML key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return "", "", fmt.Errorf("web: SAML serial: %w", err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "Surveys SAML service provider of " + tenant},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", fmt.Errorf("web: SAML certificate: %w", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})),
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), nil
}

// serviceProvider is tenant's service provider for the identity provider
// p names.
func (s *Server) serviceProvider(ctx context.Context, p *survey.SAMLProvider) (*saml.ServiceProvider, error) {
	idp, err := samlmeta.Parse([]byte(p.Metadata))
	if err != nil {
		return nil, err
	}
	entityID, acs, err := s.samlEndpoints(p.Tenant)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair([]byte(p.SPCertificate), []byte(p.SPKey))
	if err != nil {
		return nil, fmt.Errorf("web: SAML key of %s: %w", p.Tenant, err)
	}
	key, ok := pair.PrivateKey.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("web: SAML key of %s is not RSA", p.Tenant)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	meta, _ := url.Parse(entityID)
	acsURL, _ := url.Parse(acs)
	return &saml.ServiceProvider{
		EntityID: entityID, Key: key, Certificate: cert, MetadataURL: *meta, AcsURL: *acsURL,
		IDPMetadata: idp, AuthnNameIDFormat: saml.UnspecifiedNameIDFormat,
		AssertionConsumerServiceBindings: []string{saml.HTTPPostBinding},
		ReplayCache:                      tenantReplay{ctx: ctx, s: s, tenant: p.Tenant}, RejectSHA1Signatures: true,
		// No HTTPClient: nothing here calls the provider (no artifacts,
		// no SOAP); the ACS refuses an artifact before it is resolved.
	}, nil
}

// samlTenant returns the tenant of the URL and its SAML provider, when it
// signs in through one; 404 otherwise.
func (s *Server) samlTenant(r *http.Request) (*survey.Tenant, *survey.SAMLProvider, error) {
	if s.saml == nil {
		return nil, nil, notFound("SAML sign-in is not offered on this server.")
	}
	t, err := s.tenants.Get(r.Context(), chi.URLParam(r, "tenant"))
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, nil, notFound("No such organisation.")
	}
	if err != nil {
		return nil, nil, err
	}
	p, err := s.saml.Get(r.Context(), t.Key)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, nil, notFound(t.Name + " does not sign in through a SAML identity provider.")
	}
	if err != nil {
		return nil, nil, err
	}
	return t, p, nil
}

// samlMetadata publishes tenant's service provider metadata: its entity
// ID, ACS URL and certificate, to give the identity provider.
func (s *Server) samlMetadata(w http.ResponseWriter, r *http.Request) error {
	_, p, err := s.samlTenant(r)
	if err != nil {
		return err
	}
	sp, err := s.serviceProvider(r.Context(), p)
	if err != nil {
		return err
	}
	buf, err := xml.MarshalIndent(sp.Metadata(), "", "  ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/samlmetadata+xml")
	_, _ = w.Write(append([]byte(xml.Header), buf...))
	return nil
}

// startSAML begins a sign-in: an AuthnRequest whose ID and a RelayState
// are sealed in a short-lived cookie bound to the tenant (nothing is
// stored), then a redirect to the provider.
func (s *Server) startSAML(w http.ResponseWriter, r *http.Request) error {
	t, p, err := s.samlTenant(r)
	if err != nil {
		return err
	}
	if t.Suspended {
		return survey.Errorf(survey.EFORBIDDEN, "%s is suspended; its staff cannot sign in.", t.Name)
	}
	sp, err := s.serviceProvider(r.Context(), p)
	if err != nil {
		s.log.Error("SAML provider unusable", "tenant", t.Key, "err", err)
		return s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's SAML sign-in is not set up right; ask your administrator to import the identity provider's metadata again.")
	}
	req, err := sp.MakeAuthenticationRequest(samlmeta.SSOLocation(sp.IDPMetadata), saml.HTTPRedirectBinding, saml.HTTPPostBinding)
	if err != nil {
		return err
	}
	st := samlState{Tenant: t.Key, RequestID: req.ID, Next: tenantNext(t.Key, r.URL.Query().Get("next")), Expires: s.signIns.now().Add(signInTTL).Unix()}
	if len(st.Next) > maxStateNext {
		st.Next = ""
	}
	if st.State, err = randomString(); err != nil {
		return err
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	sealed, err := s.signIns.box.Seal(string(raw), samlAD(t.Key))
	if err != nil {
		return err
	}
	target, err := req.Redirect(st.State, sp)
	if err != nil {
		return err
	}
	// The provider's answer is a cross-site POST: the cookie must be
	// SameSite=None to come with it, which browsers take only with Secure
	// (so over plain http, in development, the sign-in must stay on one site).
	c := &http.Cookie{Name: samlCookie, Value: sealed, Path: "/login/" + t.Key + "/saml", HttpOnly: true,
		Secure: s.secureCookies(r), SameSite: http.SameSiteLaxMode, MaxAge: int(signInTTL.Seconds())}
	if c.Secure {
		c.SameSite = http.SameSiteNoneMode
	}
	http.SetCookie(w, c)
	http.Redirect(w, r, target.String(), http.StatusSeeOther)
	return nil
}

// takeSAMLState opens the cookie for tenant, checks that the provider
// sent back its RelayState, and marks it used.
func (s *Server) takeSAMLState(tenant, cookie, relay string) (samlState, error) {
	var st samlState
	if cookie == "" || relay == "" || len(cookie) > 4096 {
		return st, errBadSignIn
	}
	raw, err := s.signIns.box.Open(cookie, samlAD(tenant))
	if err != nil || json.Unmarshal([]byte(raw), &st) != nil {
		return samlState{}, errBadSignIn
	}
	now := s.signIns.now().Unix()
	if st.Tenant != tenant || st.State == "" || st.RequestID == "" || now > st.Expires || subtle.ConstantTimeCompare([]byte(st.State), []byte(relay)) != 1 {
		return samlState{}, errBadSignIn
	}
	if !s.signIns.use("saml:"+st.State, st.Expires, now) {
		return samlState{}, errBadSignIn
	}
	return st, nil
}

// maxSAMLForm bounds the ACS's form: a Response with its metadata-sized
// certificates, base64.
const maxSAMLForm = 512 << 10

// samlACS finishes a sign-in: the browser's own state (its cookie, cleared
// now, and the RelayState), then the provider's Response, checked by
// crewjam/saml against the request's ID, then the group gate, the
// account (made or linked as for OpenID Connect), the role mapping and a
// session. Each refusal is audited and shown (signInFailed).
func (s *Server) samlACS(w http.ResponseWriter, r *http.Request) error {
	t, p, err := s.samlTenant(r)
	if err != nil {
		return err
	}
	if t.Suspended {
		return survey.Errorf(survey.EFORBIDDEN, "%s is suspended; its staff cannot sign in.", t.Name)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSAMLForm)
	if err := r.ParseForm(); err != nil {
		return s.signInFailed(w, r, http.StatusBadRequest, "The identity provider's answer could not be read.")
	}
	var sealed string
	if c, err := r.Cookie(samlCookie); err == nil {
		sealed = c.Value
	}
	http.SetCookie(w, &http.Cookie{Name: samlCookie, Value: "", Path: "/login/" + t.Key + "/saml", HttpOnly: true, MaxAge: -1})
	st, err := s.takeSAMLState(t.Key, sealed, r.PostForm.Get("RelayState"))
	if err != nil {
		return s.signInFailed(w, r, http.StatusBadRequest, survey.ErrorMessage(err))
	}
	fail := func(status int, who, msg string) error {
		s.auditAs(r, t.Key, who, survey.AuditSignInFailed, who, "SAML: "+msg)
		return s.signInFailed(w, r, status, msg)
	}
	if r.PostForm.Get("SAMLart") != "" || r.PostForm.Get("SAMLResponse") == "" {
		return fail(http.StatusBadRequest, "", "The identity provider sent no SAML Response (this server takes the HTTP-POST binding only).")
	}
	sp, err := s.serviceProvider(r.Context(), p)
	if err != nil {
		s.log.Error("SAML provider unusable", "tenant", t.Key, "err", err)
		return s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's SAML sign-in is not set up right; ask your administrator to import the identity provider's metadata again.")
	}
	a, err := sp.ParseResponse(r, []string{st.RequestID})
	if err != nil {
		var ire *saml.InvalidResponseError
		detail := err
		if errors.As(err, &ire) && ire.PrivateErr != nil {
			detail = ire.PrivateErr
		}
		s.log.Warn("SAML response refused", "tenant", t.Key, "err", detail)
		return fail(http.StatusForbidden, "", samlProblem(detail))
	}
	attrs := samlAttributes(a)
	email := samlEmail(a, attrs)
	groups := attrs[p.GroupAttribute]
	if !p.Grants(groups) {
		who := "Your account"
		if email != "" {
			who = "Your account " + email
		}
		return fail(http.StatusForbidden, email, who+" is not in the group "+p.GroupValue+" (attribute "+p.GroupAttribute+") that "+t.Name+" requires to sign in here. Ask your administrator for access.")
	}
	if email == "" {
		return fail(http.StatusForbidden, "", "Your organisation's identity provider gave no email address for your account (as the NameID or an email attribute); ask your administrator to release it.")
	}
	subject := ""
	if a.Subject != nil && a.Subject.NameID != nil {
		subject = a.Subject.NameID.Value
	}
	u, err := s.users.SignInExternal(r.Context(), t.Key, email, p.EntityID, subject)
	if survey.ErrorCode(err) == survey.EFORBIDDEN {
		return fail(http.StatusForbidden, email, survey.ErrorMessage(err))
	}
	if err != nil {
		return err
	}
	if role := p.RoleFor(groups); role != "" && role != u.Role && s.members != nil {
		if err := s.members.SetRole(r.Context(), t.Key, u.Email, role); err != nil {
			// The last admin stays one: an admin of the tenant changes that.
			s.log.Warn("SAML role mapping not applied", "tenant", t.Key, "email", u.Email, "role", role, "err", err)
		} else {
			s.auditAs(r, t.Key, u.Email, survey.AuditMemberRole, u.Email, string(u.Role)+" → "+string(role)+" by the SAML identity provider's groups")
			u.Role = role
		}
	}
	token, err := s.users.NewSession(r.Context(), u)
	if err != nil {
		return err
	}
	s.setSession(w, r, token)
	s.auditAs(r, t.Key, u.Email, survey.AuditSignIn, "", "SAML identity provider")
	http.Redirect(w, r, tenantNext(t.Key, st.Next), http.StatusSeeOther)
	return nil
}

// samlProblem says why a Response was refused, in words of ours (never
// what the provider or the browser sent).
func samlProblem(err error) string {
	const pre = "Your organisation's identity provider's answer was refused: "
	switch {
	case errors.Is(err, saml.ErrAssertionReplayed):
		return pre + "it was already used. Start again from the sign-in page."
	case errors.Is(err, saml.ErrInvalidSignature), errors.Is(err, saml.ErrUntrustedCertificate), errors.Is(err, saml.ErrCertificateNotValidNow):
		return pre + "it is not signed by the provider's certificate in the imported metadata (assertions must be signed). Ask your administrator to import the metadata again."
	case strings.Contains(err.Error(), "signature element not present"):
		// crewjam/saml's error for no signature at all is unexported.
		return pre + "it is not signed by the provider (neither the Response nor the assertion is): this server accepts signed assertions only. Ask your administrator to have the provider sign them."
	case errors.Is(err, saml.ErrAudienceMismatch):
		return pre + "it is meant for another service provider (audience). Ask your administrator to check the Entity ID registered at the provider."
	case errors.Is(err, saml.ErrDestinationMismatch):
		return pre + "it is addressed to another URL (destination or recipient). Ask your administrator to check the reply (ACS) URL registered at the provider."
	case errors.Is(err, saml.ErrRequestIDMismatch):
		return pre + "it does not answer the sign-in started in this browser. Start again from the sign-in page."
	case errors.Is(err, saml.ErrExpired), errors.Is(err, saml.ErrNotYetValid):
		return pre + "it is expired or not yet valid. Start again; if it keeps happening, a clock is wrong."
	case errors.Is(err, saml.ErrIssuerMismatch):
		return pre + "it comes from another identity provider than the one imported."
	case errors.As(err, new(saml.ErrBadStatus)):
		return pre + "the provider did not sign you in."
	default:
		return pre + "it is not a valid SAML Response."
	}
}

// samlAttributes are the assertion's attributes' values, by Name and by
// FriendlyName.
func samlAttributes(a *saml.Assertion) map[string][]string {
	out := map[string][]string{}
	for _, st := range a.AttributeStatements {
		for _, at := range st.Attributes {
			for _, v := range at.Values {
				if v.Nil {
					continue
				}
				out[at.Name] = append(out[at.Name], v.Value)
				if at.FriendlyName != "" && at.FriendlyName != at.Name {
					out[at.FriendlyName] = append(out[at.FriendlyName], v.Value)
				}
			}
		}
	}
	return out
}

// samlEmailAttributes are the attributes that carry an e-mail address at
// the usual providers (Entra ID, Okta, ADFS, Shibboleth's mail).
var samlEmailAttributes = []string{"email", "mail", "emailaddress", "Email",
	"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress", "urn:oid:0.9.2342.19200300.100.1.3"}

// samlEmail is the person's address: the NameID when it is an address,
// else the first e-mail attribute.
func samlEmail(a *saml.Assertion, attrs map[string][]string) string {
	if a.Subject != nil && a.Subject.NameID != nil {
		if v := strings.TrimSpace(a.Subject.NameID.Value); survey.ValidEmail(survey.NormalizeEmail(v)) {
			return v
		}
	}
	for _, n := range samlEmailAttributes {
		for _, v := range attrs[n] {
			if v = strings.TrimSpace(v); survey.ValidEmail(survey.NormalizeEmail(v)) {
				return v
			}
		}
	}
	return ""
}

// replayCache remembers the IDs of the assertions accepted, each until it
// expires, so that none is accepted twice by this process without asking
// the store (which every instance shares; the request ID each answers is
// single use too, and sealed in the browser's cookie).
// It is bounded: full of assertions not yet expired, it refuses more
// rather than forget one.
type replayCache struct {
	now func() time.Time
	max int

	mu   sync.Mutex
	seen map[[32]byte]time.Time
}

// maxReplay bounds the assertion IDs remembered (about 100 bytes each).
const maxReplay = 100_000

func newReplayCache() *replayCache {
	return &replayCache{now: time.Now, max: maxReplay, seen: map[[32]byte]time.Time{}}
}

var errReplayFull = errors.New("web: too many SAML sign-ins at once")

// Consume records id until expires; saml.ErrAssertionReplayed when it is
// already recorded.
func (c *replayCache) Consume(id string, expires time.Time) error {
	h := sha256.Sum256([]byte(id))
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.seen[h]; ok && now.Before(e) {
		return saml.ErrAssertionReplayed
	}
	if len(c.seen) >= c.max {
		for k, e := range c.seen {
			if !now.Before(e) {
				delete(c.seen, k)
			}
		}
		if len(c.seen) >= c.max {
			return errReplayFull
		}
	}
	c.seen[h] = expires
	return nil
}
