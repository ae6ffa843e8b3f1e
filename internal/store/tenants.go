package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TenantStore keeps each tenant as a JSON blob, tenants/<key>.
type TenantStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewTenantStore returns a TenantStore over st.
func NewTenantStore(st storage.Storage) *TenantStore {
	return &TenantStore{st: st, now: time.Now}
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
	var t survey.Tenant
	if err := json.Unmarshal(b.Data, &t); err != nil {
		return nil, fmt.Errorf("store: decode tenant %s: %w", key, err)
	}
	return &t, nil
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
	if err := t.Validate(); err != nil {
		return err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("store: encode tenant: %w", err)
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
	o := storage.ListOptions{}
	for {
		page, err := ts.st.ListBlobs(ctx, TenantsContainer, o)
		if err != nil {
			return nil, mapErr(err, "Tenants")
		}
		for _, it := range page.Items {
			t, err := ts.Get(ctx, it.Name)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		if page.NextMarker == "" {
			return out, nil
		}
		o.Marker = page.NextMarker
	}
}

// Delete removes a tenant's record. (Its surveys are removed by the caller,
// through SurveyStore.Delete.)
func (ts *TenantStore) Delete(ctx context.Context, key string) error {
	return mapErr(ts.st.DeleteBlob(ctx, TenantsContainer, key, ""), "Tenant")
}
