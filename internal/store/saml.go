package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SAMLContainer holds each tenant's SAML identity provider as a JSON blob
// named by the tenant's key, with the service provider's private key
// sealed inside (bound to the tenant), as TenantStore seals the OIDC
// client secret. It is apart from the tenant's record, which every page
// reads, because an identity provider's metadata runs to many KiB.
const SAMLContainer = "samlproviders"

// SAMLStore keeps the tenants' SAML identity providers.
type SAMLStore struct {
	st      storage.Storage
	now     func() time.Time
	secrets *secret.Box
}

// NewSAMLStore returns a SAMLStore over st; without WithSecrets it keeps
// no provider (the service provider's key is a secret).
func NewSAMLStore(st storage.Storage) *SAMLStore { return &SAMLStore{st: st, now: time.Now} }

// WithSecrets sets the box that seals and opens the service providers'
// keys.
func (ss *SAMLStore) WithSecrets(b *secret.Box) *SAMLStore {
	ss.secrets = b
	return ss
}

// KeepsSecrets reports whether the store can seal a key.
func (ss *SAMLStore) KeepsSecrets() bool { return ss.secrets != nil }

type storedSAML struct {
	*survey.SAMLProvider
	SealedKey string `json:"spKey"`
}

func samlKeyAD(tenant string) string { return tenant + "/samlKey" }

// Get returns the tenant's SAML identity provider; ENOTFOUND when it has
// none.
func (ss *SAMLStore) Get(ctx context.Context, tenant string) (*survey.SAMLProvider, error) {
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, survey.Errorf(survey.ENOTFOUND, "No SAML identity provider.")
	}
	b, err := ss.st.GetBlob(ctx, SAMLContainer, tenant)
	if err != nil {
		return nil, mapErr(err, "SAML identity provider")
	}
	s := storedSAML{SAMLProvider: &survey.SAMLProvider{}}
	if err := json.Unmarshal(b.Data, &s); err != nil {
		return nil, fmt.Errorf("store: decode SAML provider %s: %w", tenant, err)
	}
	if s.Tenant != tenant {
		return nil, fmt.Errorf("store: SAML provider %s names tenant %q", tenant, s.Tenant)
	}
	if s.SealedKey != "" {
		if s.SPKey, err = ss.secrets.Open(s.SealedKey, samlKeyAD(tenant)); err != nil {
			return nil, fmt.Errorf("store: SAML provider %s's key: %w", tenant, err)
		}
	}
	return s.SAMLProvider, nil
}

// Put saves the tenant's SAML identity provider, sealing its key.
func (ss *SAMLStore) Put(ctx context.Context, p *survey.SAMLProvider) error {
	if err := survey.ValidateTenantKey(p.Tenant); err != nil {
		return err
	}
	if err := p.ValidateSAML(); err != nil {
		return err
	}
	if p.SPKey == "" || p.SPCertificate == "" {
		return survey.Errorf(survey.EINVALID, "The service provider has no key and certificate.")
	}
	sealed, err := ss.secrets.Seal(p.SPKey, samlKeyAD(p.Tenant))
	if errors.Is(err, secret.ErrNoKey) {
		return survey.Errorf(survey.EINVALID, "This server keeps no secrets: its operator must set SURVEYS_SECRET_KEY before a SAML identity provider can be saved.")
	}
	if err != nil {
		return err
	}
	p.UpdatedOn = ss.now().UTC()
	data, err := json.Marshal(storedSAML{SAMLProvider: p, SealedKey: sealed})
	if err != nil {
		return fmt.Errorf("store: encode SAML provider: %w", err)
	}
	if _, err := ss.st.PutBlob(ctx, SAMLContainer, p.Tenant, data, storage.PutOptions{ContentType: "application/json"}); err != nil {
		return mapErr(err, "SAML identity provider")
	}
	return nil
}

// Delete removes the tenant's SAML identity provider and its key; none is
// not an error.
func (ss *SAMLStore) Delete(ctx context.Context, tenant string) error {
	if survey.ValidateTenantKey(tenant) != nil {
		return nil
	}
	if err := ss.st.DeleteBlob(ctx, SAMLContainer, tenant, ""); err != nil && !isNotFound(err) {
		return mapErr(err, "SAML identity provider")
	}
	return nil
}
