package web

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-chi/chi/v5"
	"golang.org/x/oauth2"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/survey"
)

// oidcCookie holds the state of a sign-in under way, so that the callback
// is honoured only in the browser that started it.
const oidcCookie = "surveys_oidc"

// providerTTL is how long a provider's discovery document is trusted
// before it is fetched again. (Its signing keys are refetched by go-oidc
// whenever a token names a key it does not know.)
const providerTTL = 15 * time.Minute

// providers caches the tenants' OpenID Connect providers by issuer URL.
// Every call to a provider (discovery, keys, tokens, userinfo) goes through
// the outbound client: guarded addresses, https, capped bodies.
type providers struct {
	client *outbound.Client
	cache  *lrucache.Cache[string, cachedProvider]
}

// cachedProvider is a provider and the size of its discovery document.
type cachedProvider struct {
	p    *oidc.Provider
	size int64
}

// Bounds of the providers kept: each is its discovery document (at most
// the outbound client's body cap) and a key set go-oidc fetches on use.
const (
	maxProviders      = 1000
	maxProviderBytes  = 64 << 20
	providerKeysBytes = ProviderMaxBody // what a provider's keys are counted as: at most one body
)

// ProviderMaxBody caps each response of an identity provider: a discovery
// document or a key set is a few KiB, and go-oidc keeps the key set it
// fetched for as long as the provider is cached.
const ProviderMaxBody = 64 << 10

func newProviders(c *outbound.Client) *providers {
	if c == nil {
		c = outbound.New(outbound.Config{MaxBody: ProviderMaxBody})
	}
	return &providers{client: c, cache: lrucache.New(maxProviders, maxProviderBytes, providerTTL,
		func(_ string, c cachedProvider) int64 { return c.size + providerKeysBytes })}
}

// ctx makes the outbound calls of go-oidc and oauth2 use the client.
func (ps *providers) ctx(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, ps.client.HTTP())
}

// get returns the provider of issuer, from the cache when fresh.
func (ps *providers) get(ctx context.Context, issuer string) (*oidc.Provider, error) {
	if c, ok := ps.cache.Get(issuer); ok {
		return c.p, nil
	}
	return ps.discover(ctx, issuer)
}

// errEndpoint is a discovery document naming an endpoint that is not
// https (or not in the operator's allowed ranges).
type errEndpoint struct{ name string }

func (e errEndpoint) Error() string {
	return "the discovery document's " + e.name + " is not an https URL"
}

// discover fetches issuer's discovery document now, checks that every
// endpoint it names is one the outbound client may call, and caches it.
func (ps *providers) discover(ctx context.Context, issuer string) (*oidc.Provider, error) {
	if err := ps.client.CheckURL(issuer); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(ps.ctx(ctx), issuer)
	if err != nil {
		return nil, err
	}
	var doc struct {
		JWKS string `json:"jwks_uri"`
	}
	var raw json.RawMessage
	if err := p.Claims(&raw); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	for _, e := range []struct{ name, url string }{
		{"authorization_endpoint", p.Endpoint().AuthURL},
		{"token_endpoint", p.Endpoint().TokenURL},
		{"jwks_uri", doc.JWKS},
		{"userinfo_endpoint", p.UserInfoEndpoint()},
	} {
		if e.url == "" && e.name == "userinfo_endpoint" {
			continue // optional
		}
		if ps.client.CheckURL(e.url) != nil {
			return nil, errEndpoint{e.name}
		}
	}
	ps.cache.Add(issuer, cachedProvider{p: p, size: int64(len(issuer) + len(raw))})
	return p, nil
}

// discoveryProblem says, for the settings page, why an issuer gave no
// provider, in words of this server's: never what the remote server sent
// (its body, the issuer it calls itself, where it redirected).
func discoveryProblem(issuer string, err error) string {
	var mismatch *oidc.IssuerMismatchError
	var endpoint errEndpoint
	var netErr net.Error
	switch {
	case errors.As(err, &endpoint):
		return "The provider's discovery document names an endpoint (" + endpoint.name + ") that is not https; this server calls identity providers over https only."
	case errors.Is(err, outbound.ErrAddressNotAllowed), errors.Is(err, outbound.ErrNotHTTPS), errors.Is(err, outbound.ErrRedirect), errors.Is(err, outbound.ErrBadURL):
		return "No provider could be reached at " + issuer + ": " + outbound.Problem(err) + ". Give your provider's public https issuer URL, or ask the server's operator to allow its network (SURVEYS_ALLOW_PRIVATE)."
	case errors.As(err, &mismatch):
		return "The provider at this URL gives another issuer URL in its discovery document; enter exactly the issuer URL your provider documents (check the path and a trailing slash)."
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "The provider did not answer in time at " + issuer + "."
	case errors.As(err, &netErr), strings.Contains(err.Error(), "dial"), strings.Contains(err.Error(), "certificate"):
		return "No provider could be reached at " + issuer + " (connection or TLS failed)."
	default:
		return "No OpenID Connect discovery document at " + strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration."
	}
}

// redirectURL is the absolute callback URL of a tenant's sign-in, to
// register at its provider: on the configured public URL, or else on the
// scheme and host of the request (https when it came over TLS).
func (s *Server) redirectURL(r *http.Request, tenant string) (string, error) {
	base, err := s.baseURL(r) // the public URL, or the request's checked Host
	if err != nil {
		return "", err
	}
	return base + "/login/" + tenant + "/oidc/callback", nil
}

func (s *Server) oauthConfig(r *http.Request, t *survey.Tenant, p *oidc.Provider) (*oauth2.Config, error) {
	redirect, err := s.redirectURL(r, t.Key)
	if err != nil {
		return nil, err
	}
	return &oauth2.Config{ClientID: t.ClientID, ClientSecret: t.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: redirect, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}, nil
}

// signInFailed renders a failed sign-in through a provider with its own
// status (400 for a bad state, 403 for a refusal, 502 for the provider's
// failure), and a plain message.
func (s *Server) signInFailed(w http.ResponseWriter, r *http.Request, status int, msg string) error {
	s.render(w, r, status, "error", errorPage{Title: "Sign-in failed", Message: msg})
	return nil
}

// oidcTenant returns the tenant of the URL, when it signs in through its
// own provider; 404 otherwise.
func (s *Server) oidcTenant(r *http.Request) (*survey.Tenant, error) {
	t, err := s.tenants.Get(r.Context(), chi.URLParam(r, "tenant"))
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, notFound("No such organisation.")
	}
	if err != nil {
		return nil, err
	}
	if !t.UsesOIDC() {
		return nil, notFound(t.Name + " does not sign in through its own identity provider; sign in with your email and password.")
	}
	if t.Suspended {
		return nil, survey.Errorf(survey.EFORBIDDEN, "%s is suspended; its staff cannot sign in.", t.Name)
	}
	return t, nil
}

// startOIDCFor sends the login page's "organisation" form to that
// organisation's sign-in.
func (s *Server) startOIDCFor(w http.ResponseWriter, r *http.Request) error {
	key := survey.TenantKey(r.URL.Query().Get("tenant"))
	if key == "" {
		return notFound("Enter your organisation's name.")
	}
	http.Redirect(w, r, "/login/"+key+"/oidc?next="+url.QueryEscape(safeNext(r.URL.Query().Get("next"))), http.StatusSeeOther)
	return nil
}

// startOIDC begins a sign-in through the tenant's provider: a state, a
// nonce and a PKCE verifier, sealed in a short-lived cookie bound to the
// tenant (account_oidcstate.go: nothing is written to storage), then a redirect to
// the provider.
func (s *Server) startOIDC(w http.ResponseWriter, r *http.Request) error {
	t, err := s.oidcTenant(r)
	if survey.ErrorCode(err) == survey.ENOTFOUND && s.saml != nil {
		// A tenant that signs in through SAML: its sign-in (account_saml.go).
		key := chi.URLParam(r, "tenant")
		if p, e := s.saml.Get(r.Context(), key); e == nil && p.Tenant == key {
			http.Redirect(w, r, "/login/"+key+"/saml?next="+url.QueryEscape(safeNext(r.URL.Query().Get("next"))), http.StatusSeeOther)
			return nil
		}
	}
	if err != nil {
		return err
	}
	p, err := s.oidc.get(r.Context(), t.IssuerURL)
	if err != nil {
		s.log.Warn("identity provider discovery failed", "tenant", t.Key, "issuer", t.IssuerURL, "err", err)
		return s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's identity provider ("+t.IssuerURL+") could not be reached. Try again later, or ask your administrator.")
	}
	next := tenantNext(t.Key, r.URL.Query().Get("next"))
	verifier := oauth2.GenerateVerifier()
	sealed, si, err := s.signIns.begin(t.Key, verifier, next)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: sealed, Path: "/login/" + t.Key + "/oidc", HttpOnly: true,
		Secure: s.secureCookies(r), SameSite: http.SameSiteLaxMode, MaxAge: int(signInTTL.Seconds())})
	conf, err := s.oauthConfig(r, t, p)
	if err != nil {
		return err
	}
	target := conf.AuthCodeURL(si.State, oidc.Nonce(si.Nonce), oauth2.S256ChallengeOption(verifier))
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

// tokenErrorCodes are the error codes of a token endpoint (RFC 6749,
// 5.2), the only part of its answer shown on a page.
var tokenErrorCodes = map[string]bool{"invalid_request": true, "invalid_client": true, "invalid_grant": true,
	"unauthorized_client": true, "unsupported_grant_type": true, "invalid_scope": true}

// oidcCallback finishes a sign-in: the state must be this browser's and
// this tenant's; the code is exchanged (with the PKCE verifier); the ID
// token is verified (signature, issuer, audience, expiry, nonce); the
// tenant's claim must grant access. Then the user gets the same session as
// a password sign-in. Each step that refuses the sign-in shows why
// (signInFailed) and says it is done.
func (s *Server) oidcCallback(w http.ResponseWriter, r *http.Request) error {
	t, err := s.oidcTenant(r)
	if err != nil {
		return err
	}
	si, code, done, err := s.callbackCode(w, r, t)
	if err != nil || done {
		return err
	}
	p, err := s.oidc.get(r.Context(), t.IssuerURL)
	if err != nil {
		s.log.Warn("identity provider discovery failed", "tenant", t.Key, "issuer", t.IssuerURL, "err", err)
		return s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's identity provider ("+t.IssuerURL+") could not be reached. Try again later.")
	}
	ctx, cancel := context.WithTimeout(s.oidc.ctx(r.Context()), 15*time.Second)
	defer cancel()
	tok, done, err := s.exchangeCode(ctx, w, r, t, p, si, code)
	if err != nil || done {
		return err
	}
	idt, done, err := s.verifyIDToken(ctx, w, r, t, p, si, tok)
	if err != nil || done {
		return err
	}
	claims, done, err := s.signInClaims(ctx, w, r, t, p, tok, idt)
	if err != nil || done {
		return err
	}
	email, done, err := s.grantedEmail(w, r, t, claims)
	if err != nil || done {
		return err
	}
	u, err := s.users.SignInExternal(r.Context(), t.Key, email, t.IssuerURL, idt.Subject)
	if survey.ErrorCode(err) == survey.EFORBIDDEN {
		s.auditAs(r, t.Key, email, survey.AuditSignInFailed, email, "identity provider: "+survey.ErrorMessage(err))
		return s.signInFailed(w, r, http.StatusForbidden, survey.ErrorMessage(err))
	}
	if err != nil {
		return err
	}
	token, err := s.users.NewSession(s.sessionContext(r, u.Tenant), u)
	if err != nil {
		return err
	}
	s.setSession(w, r, token)
	s.auditAs(r, t.Key, u.Email, survey.AuditSignIn, "", "identity provider")
	http.Redirect(w, r, tenantNext(t.Key, si.Next), http.StatusSeeOther)
	return nil
}

// callbackCode takes the sign-in the callback's state names, which must
// be this browser's (its cookie, cleared now) and t's, and returns the
// authorisation code the provider sent; a provider's error ends the
// sign-in with its standard code and description.
func (s *Server) callbackCode(w http.ResponseWriter, r *http.Request, t *survey.Tenant) (si signInState, code string, done bool, err error) {
	q := r.URL.Query()
	var sealed string
	if c, err := r.Cookie(oidcCookie); err == nil {
		sealed = c.Value
	}
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: "", Path: "/login/" + t.Key + "/oidc", HttpOnly: true, MaxAge: -1, SameSite: http.SameSiteLaxMode})
	si, err = s.signIns.take(t.Key, sealed, q.Get("state"))
	if err != nil {
		return si, "", true, s.signInFailed(w, r, http.StatusBadRequest, survey.ErrorMessage(err))
	}
	if e := q.Get("error"); e != "" {
		msg := "Your organisation's identity provider ended the sign-in: " + e
		if d := q.Get("error_description"); d != "" {
			msg += " (" + d + ")"
		}
		status := http.StatusBadGateway
		if e == "access_denied" {
			status = http.StatusForbidden
		}
		return si, "", true, s.signInFailed(w, r, status, msg+".")
	}
	code = q.Get("code")
	if code == "" {
		return si, "", true, s.signInFailed(w, r, http.StatusBadRequest, "The identity provider sent no authorisation code. Start again from the sign-in page.")
	}
	return si, code, false, nil
}

// exchangeCode exchanges code, with the sign-in's PKCE verifier, for the
// provider's tokens. A refusal shows the standard error code only, never
// the provider's own words.
func (s *Server) exchangeCode(ctx context.Context, w http.ResponseWriter, r *http.Request, t *survey.Tenant, p *oidc.Provider, si signInState, code string) (*oauth2.Token, bool, error) {
	conf, err := s.oauthConfig(r, t, p)
	if err != nil {
		return nil, false, err
	}
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(si.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && tokenErrorCodes[re.ErrorCode] {
			// Only the standard code: never the provider's own words.
			return nil, true, s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's identity provider refused the sign-in: "+re.ErrorCode+". Ask your administrator to check the client id and secret.")
		}
		s.log.Warn("identity provider code exchange failed", "tenant", t.Key, "err", err)
		return nil, true, s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's identity provider did not complete the sign-in. Try again later.")
	}
	return tok, false, nil
}

// verifyIDToken returns the ID token of tok, verified (signature, issuer,
// audience t's client, expiry), naming an account (its subject), and
// issued for this sign-in (its nonce, compared in constant time).
func (s *Server) verifyIDToken(ctx context.Context, w http.ResponseWriter, r *http.Request, t *survey.Tenant, p *oidc.Provider, si signInState, tok *oauth2.Token) (*oidc.IDToken, bool, error) {
	rawID, _ := tok.Extra("id_token").(string)
	if rawID == "" {
		return nil, true, s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's identity provider sent no ID token.")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: t.ClientID}).Verify(ctx, rawID)
	if err != nil {
		s.log.Warn("ID token refused", "tenant", t.Key, "err", err)
		return nil, true, s.signInFailed(w, r, http.StatusForbidden, "The ID token from your organisation's identity provider is not valid (signature, issuer, audience or expiry).")
	}
	if idt.Subject == "" {
		return nil, true, s.signInFailed(w, r, http.StatusForbidden, "The ID token from your organisation's identity provider names no account (no subject).")
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(si.Nonce)) != 1 {
		return nil, true, s.signInFailed(w, r, http.StatusForbidden, "The ID token from your organisation's identity provider was not issued for this sign-in (nonce).")
	}
	return idt, false, nil
}

// signInClaims returns the claims of the ID token idt, with those the
// provider's userinfo gives (for the same subject) when the ID token
// lacks t's claim or the email; the ID token's own win.
func (s *Server) signInClaims(ctx context.Context, w http.ResponseWriter, r *http.Request, t *survey.Tenant, p *oidc.Provider, tok *oauth2.Token, idt *oidc.IDToken) (map[string]any, bool, error) {
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return nil, true, s.signInFailed(w, r, http.StatusBadGateway, "The ID token's claims could not be read.")
	}
	// Providers often keep the email and group claims for the userinfo
	// endpoint: ask it for what the ID token lacks.
	if _, ok := claims[t.ClaimType]; (!ok || claims["email"] == nil) && p.UserInfoEndpoint() != "" {
		ui, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			s.log.Warn("userinfo failed", "tenant", t.Key, "err", err)
			return nil, true, s.signInFailed(w, r, http.StatusBadGateway, "Your organisation's identity provider did not give your account's details (userinfo).")
		}
		if ui.Subject != idt.Subject {
			return nil, true, s.signInFailed(w, r, http.StatusForbidden, "Your organisation's identity provider described another account than the one signed in.")
		}
		more := map[string]any{}
		if err := ui.Claims(&more); err == nil {
			for k, v := range more {
				if _, ok := claims[k]; !ok {
					claims[k] = v
				}
			}
		}
	}
	return claims, false, nil
}

// grantedEmail returns the account's email address from claims, when the
// claims grant access to t (its claim type and value), and the address is
// given and not marked unverified.
func (s *Server) grantedEmail(w http.ResponseWriter, r *http.Request, t *survey.Tenant, claims map[string]any) (string, bool, error) {
	email, _ := claims["email"].(string)
	if !survey.ClaimGrants(claims, t.ClaimType, t.ClaimValue) {
		who := "Your account"
		if email != "" {
			who = "Your account " + email
		}
		return "", true, s.signInFailed(w, r, http.StatusForbidden, who+" does not have the claim "+t.ClaimType+" = "+t.ClaimValue+" that "+t.Name+" requires to sign in here. Ask your administrator for access.")
	}
	if v, ok := claims["email_verified"]; ok && (v == false || v == "false") {
		return "", true, s.signInFailed(w, r, http.StatusForbidden, "Your organisation's account has an unverified email address ("+email+"); verify it at your identity provider first.")
	}
	if email == "" {
		return "", true, s.signInFailed(w, r, http.StatusForbidden, "Your organisation's identity provider gave no email address for your account; ask your administrator to release the email claim.")
	}
	return email, false, nil
}
