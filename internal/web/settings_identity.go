package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

type identityPage struct {
	User                                       *store.Session
	Tenant                                     *survey.Tenant
	IssuerURL, ClientID, ClaimType, ClaimValue string
	HasSecret, KeepsSecrets, Saved, Removed    bool
	Configured                                 bool // a provider is saved
	UsesSAML                                   bool // a SAML provider is saved instead
	RedirectURL                                string
	Errors                                     map[string]string
	Message                                    string
}

func (s *Server) identityPageFor(r *http.Request, t *survey.Tenant) identityPage {
	redirect, _ := s.redirectURL(r, t.Key) // none at an address that is not a host name
	return identityPage{User: sessionFrom(r.Context()), Tenant: t, IssuerURL: t.IssuerURL, ClientID: t.ClientID,
		ClaimType: t.ClaimType, ClaimValue: t.ClaimValue, HasSecret: t.ClientSecret != "",
		KeepsSecrets: s.tenantSettings.KeepsSecrets(), RedirectURL: redirect, Configured: t.UsesOIDC()}
}

// showIdentity shows the tenant's identity-provider settings, with the
// redirect URL to register at the provider. The client secret is never
// shown.
func (s *Server) showIdentity(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tenants.Get(r.Context(), sessionFrom(r.Context()).Tenant)
	if err != nil {
		return err
	}
	page := s.identityPageFor(r, t)
	page.Saved, page.Removed = r.URL.Query().Get("saved") != "", r.URL.Query().Get("removed") != ""
	if s.saml != nil {
		p, err := s.samlSaved(r.Context(), t.Key)
		if err != nil {
			return err
		}
		page.UsesSAML = p != nil
	}
	s.render(w, r, http.StatusOK, "identity", page)
	return nil
}

// saveIdentity saves the identity provider once its discovery document
// answers (or removes it). A blank client secret keeps the one saved while
// the issuer and client id are unchanged. A
// problem is shown beside its field (422) and nothing is saved.
func (s *Server) saveIdentity(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	t, err := s.tenants.Get(r.Context(), sessionFrom(r.Context()).Tenant)
	if err != nil {
		return err
	}
	f := r.PostForm
	next := *t
	if f.Get("action") == "remove" {
		next.IssuerURL, next.ClientID, next.ClientSecret, next.ClaimType, next.ClaimValue = "", "", "", "", ""
	} else {
		next.IssuerURL = strings.TrimSpace(f.Get("issuerUrl"))
		next.ClientID = strings.TrimSpace(f.Get("clientId"))
		next.ClaimType = strings.TrimSpace(f.Get("claimType"))
		next.ClaimValue = strings.TrimSpace(f.Get("claimValue"))
		if secret := strings.TrimSpace(f.Get("clientSecret")); secret != "" {
			next.ClientSecret = secret
		}
	}
	page := s.identityPageFor(r, &next)
	page.HasSecret, page.Configured = t.ClientSecret != "", t.UsesOIDC()
	fail := func(fields map[string]string) error {
		page.Errors, page.Message = fields, "The identity provider was not saved; see each field."
		s.render(w, r, http.StatusUnprocessableEntity, "identity", page)
		return nil
	}
	// The saved secret goes only to the provider it was saved for: with
	// another issuer or client id it must be typed again (else anyone of
	// the tenant could have it sent to a provider of theirs).
	if f.Get("action") != "remove" && t.ClientSecret != "" && strings.TrimSpace(f.Get("clientSecret")) == "" &&
		(next.IssuerURL != t.IssuerURL || next.ClientID != t.ClientID) {
		return fail(map[string]string{"clientSecret": secretDestinationChanged})
	}
	if err := next.ValidateIdentityProvider(); err != nil {
		var e *survey.Error
		if errors.As(err, &e) && e.Fields != nil {
			return fail(e.Fields)
		}
		return err
	}
	if next.IssuerURL != "" && s.saml != nil {
		if p, err := s.samlSaved(r.Context(), t.Key); err != nil {
			return err
		} else if p != nil {
			return fail(map[string]string{"issuerUrl": "Your organisation signs in through a SAML identity provider: remove it on the SAML page first (one identity provider at a time)."})
		}
	}
	if next.ClientSecret != t.ClientSecret && !page.KeepsSecrets {
		return fail(map[string]string{"clientSecret": noKeyMessage})
	}
	if next.IssuerURL != "" {
		if _, err := s.oidc.discover(r.Context(), next.IssuerURL); err != nil {
			s.log.Info("identity provider refused on save", "tenant", t.Key, "issuer", next.IssuerURL, "err", err)
			return fail(map[string]string{"issuerUrl": discoveryProblem(next.IssuerURL, err)})
		}
	}
	if err := s.tenantSettings.Update(r.Context(), &next); err != nil {
		if survey.ErrorCode(err) == survey.EINVALID {
			return fail(map[string]string{"clientSecret": survey.ErrorMessage(err)})
		}
		return err
	}
	done := "saved"
	if next.IssuerURL == "" {
		done = "removed"
	}
	s.audit(r, survey.AuditIdentity, next.IssuerURL, done)
	http.Redirect(w, r, "/"+t.Key+"/settings/identity?"+done+"=1", http.StatusSeeOther)
	return nil
}

const secretDestinationChanged = "Enter the client secret again: the destination changed."

const noKeyMessage = "This server keeps no secrets: its operator must set SURVEYS_SECRET_KEY (or SURVEYS_SECRET_KEY_FILE) before a client secret can be saved. Leave it blank for a public client."
