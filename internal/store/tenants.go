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

// TenantStore keeps each tenant as a JSON blob, tenants/<key>. The tenant's
// secrets (its OIDC client secret and SQL password) are sealed with the
// store's secret.Box inside the blob, bound to the tenant and the field.
type TenantStore struct {
	st      storage.Storage
	now     func() time.Time
	secrets *secret.Box
}

// NewTenantStore returns a TenantStore over st. Without WithSecrets it
// stores and reads tenants that have no secrets, and refuses the others.
func NewTenantStore(st storage.Storage) *TenantStore {
	return &TenantStore{st: st, now: time.Now}
}

// WithSecrets sets the box that seals and opens tenants' secrets.
func (ts *TenantStore) WithSecrets(b *secret.Box) *TenantStore {
	ts.secrets = b
	return ts
}

// KeepsSecrets reports whether the store can seal secrets: without a key,
// a tenant's client secret or SQL password cannot be saved.
func (ts *TenantStore) KeepsSecrets() bool { return ts.secrets != nil }

// storedTenant is the blob's shape: the tenant, and its secrets sealed.
type storedTenant struct {
	*survey.Tenant
	Secrets map[string]string `json:"secrets,omitempty"`
}

// secretFields names each secret field of a Tenant, as it is sealed.
func secretFields(t *survey.Tenant) map[string]*string {
	return map[string]*string{"clientSecret": &t.ClientSecret, "sqlPassword": &t.SQLPassword}
}

func (ts *TenantStore) decode(key string, data []byte) (*survey.Tenant, error) {
	st := storedTenant{Tenant: &survey.Tenant{}}
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("store: decode tenant %s: %w", key, err)
	}
	fields := secretFields(st.Tenant)
	for name, sealed := range st.Secrets {
		dst, ok := fields[name]
		if !ok {
			continue
		}
		v, err := ts.secrets.Open(sealed, key+"/"+name)
		if err != nil {
			return nil, fmt.Errorf("store: tenant %s's %s: %w", key, name, err)
		}
		*dst = v
	}
	return st.Tenant, nil
}

func (ts *TenantStore) encode(t *survey.Tenant) ([]byte, error) {
	st := storedTenant{Tenant: t}
	for name, v := range secretFields(t) {
		if *v == "" {
			continue
		}
		sealed, err := ts.secrets.Seal(*v, t.Key+"/"+name)
		if errors.Is(err, secret.ErrNoKey) {
			return nil, survey.Errorf(survey.EINVALID, "This server keeps no secrets: its operator must set SURVEYS_SECRET_KEY before a client secret or password can be saved.")
		}
		if err != nil {
			return nil, err
		}
		if st.Secrets == nil {
			st.Secrets = map[string]string{}
		}
		st.Secrets[name] = sealed
	}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("store: encode tenant: %w", err)
	}
	return data, nil
}

// CheckSecrets opens every tenant's secrets, so that a server started
// without its key (or with the wrong one) stops at start-up with a clear
// error instead of failing later on one tenant's page.
func (ts *TenantStore) CheckSecrets(ctx context.Context) error {
	_, err := ts.List(ctx)
	return err
}

// Get returns a tenant.
func (ts *TenantStore) Get(ctx context.Context, key string) (*survey.Tenant, error) {
	if survey.ValidateTenantKey(key) != nil {
		return nil, survey.Errorf(survey.ENOTFOUND, "Tenant not found.")
	}
	b, err := ts.st.GetBlob(ctx, TenantsContainer, key)
	if err != nil {
		return nil, mapErr(err, "Tenant")
	}
	return ts.decode(key, b.Data)
}

// Create stores a new tenant; ECONFLICT when the key is taken.
func (ts *TenantStore) Create(ctx context.Context, t *survey.Tenant) error {
	if t.CreatedOn.IsZero() {
		t.CreatedOn = ts.now().UTC()
	}
	return ts.put(ctx, t, storage.PutOptions{IfNoneMatch: storage.ETagAny})
}

// Update replaces an existing tenant.
func (ts *TenantStore) Update(ctx context.Context, t *survey.Tenant) error {
	return ts.put(ctx, t, storage.PutOptions{IfMatch: storage.ETagAny})
}

func (ts *TenantStore) put(ctx context.Context, t *survey.Tenant, o storage.PutOptions) error {
	t.Normalize()
	if err := t.Validate(); err != nil {
		return err
	}
	data, err := ts.encode(t)
	if err != nil {
		return err
	}
	o.ContentType = "application/json"
	if _, err := ts.st.PutBlob(ctx, TenantsContainer, t.Key, data, o); err != nil {
		if o.IfMatch != "" && isPrecondition(err) {
			return survey.Errorf(survey.ENOTFOUND, "Tenant not found.")
		}
		if o.IfNoneMatch != "" && isPrecondition(err) {
			return survey.Errorf(survey.ECONFLICT, "The name %q is taken; choose another.", t.Key)
		}
		return mapErr(err, "Tenant")
	}
	return nil
}

// List returns every tenant, in key order.
func (ts *TenantStore) List(ctx context.Context) ([]*survey.Tenant, error) {
	var out []*survey.Tenant
	err := eachBlob(ctx, ts.st, TenantsContainer, "", "Tenants", func(it storage.BlobItem) error {
		t, err := ts.Get(ctx, it.Name)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// Keys returns every tenant's key, in order, without reading the tenants:
// one listing per 5,000 tenants, and no secret to open.
func (ts *TenantStore) Keys(ctx context.Context) ([]string, error) {
	var out []string
	err := eachBlob(ctx, ts.st, TenantsContainer, "", "Tenants", func(it storage.BlobItem) error {
		out = append(out, it.Name)
		return nil
	})
	return out, err
}

// Delete removes a tenant's record. (Its surveys are removed by the caller,
// through SurveyStore.Delete.)
func (ts *TenantStore) Delete(ctx context.Context, key string) error {
	return mapErr(ts.st.DeleteBlob(ctx, TenantsContainer, key, ""), "Tenant")
}
