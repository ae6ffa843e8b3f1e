package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// Consume records that the assertion id was accepted for tenant until
// expires, in SignInsTable (PK the tenant, RK "saml-<expiry>-<hash of the
// id>"), so that every instance refuses it again: ECONFLICT when it is
// already recorded. The same assertion always has the same expiry, so the
// key is the same; ordering by expiry lets each call delete a few rows that
// expired, which keeps the table to the assertions still valid.
func (ss *SAMLStore) Consume(ctx context.Context, tenant, id string, expires time.Time) error {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(id))
	rk := samlReplayPrefix + samlReplayTime(expires) + "-" + hex.EncodeToString(sum[:20])
	_, err := ss.st.InsertEntity(ctx, SignInsTable, storage.Entity{PartitionKey: tenant, RowKey: rk, Properties: map[string]any{"Expires": expires.UTC()}})
	if errors.Is(err, storage.ErrExists) {
		return survey.Errorf(survey.ECONFLICT, "This SAML assertion was already used.")
	}
	if err != nil {
		return mapErr(err, "SAML assertion")
	}
	ss.pruneReplays(ctx, tenant)
	return nil
}

const samlReplayPrefix = "saml-"

// samlReplayTime is t as a fixed-width, sortable key part.
func samlReplayTime(t time.Time) string { return fmt.Sprintf("%012d", max(t.Unix(), 0)) }

// maxPrune bounds the expired rows one Consume deletes.
const maxPrune = 20

// pruneReplays deletes some of tenant's expired assertion rows; a failure
// leaves them for the next call.
func (ss *SAMLStore) pruneReplays(ctx context.Context, tenant string) {
	page, err := ss.st.QueryPartition(ctx, SignInsTable, tenant, storage.Query{RowKeyFrom: samlReplayPrefix,
		RowKeyTo: samlReplayPrefix + samlReplayTime(ss.now()), Top: maxPrune})
	if err != nil {
		return
	}
	for _, e := range page.Entities {
		_ = ss.st.DeleteEntity(ctx, SignInsTable, tenant, e.RowKey, e.ETag)
	}
}
