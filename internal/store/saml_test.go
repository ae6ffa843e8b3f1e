package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// testSAMLProvider is a provider's settings as the settings page saves
// them (the key and metadata are stand-ins: the store does not parse them).
func testSAMLProvider(tenant string) *survey.SAMLProvider {
	return &survey.SAMLProvider{Tenant: tenant, Metadata: `<EntityDescriptor entityID="https://idp.` + tenant + `.example/"/>`,
		EntityID: "https://idp." + tenant + ".example/", GroupAttribute: "groups", GroupValue: "staff", AdminGroup: "it",
		SPKey: "-----BEGIN PRIVATE KEY-----\nsecret-key-of-" + tenant + "\n-----END PRIVATE KEY-----\n", SPCertificate: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}
}

func TestSAMLStore(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		ss := store.NewSAMLStore(st).WithSecrets(testSecrets(t))
		if _, err := ss.Get(ctx, key); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("Get before Put: %v", err)
		}
		p := testSAMLProvider(key)
		if err := ss.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		got, err := ss.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if got.SPKey != p.SPKey || got.Metadata != p.Metadata || got.EntityID != p.EntityID || got.GroupValue != "staff" || got.AdminGroup != "it" || got.UpdatedOn.IsZero() {
			t.Fatalf("got %+v", got)
		}
		// The key is sealed at rest.
		raw, err := st.GetBlob(ctx, store.SAMLContainer, key)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw.Data), "secret-key-of-") {
			t.Fatalf("the service provider's key is stored in the clear: %s", raw.Data)
		}
		// Another tenant's name opens nothing.
		if _, err := ss.Get(ctx, newTenant()); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("another tenant: %v", err)
		}
		// Bad settings change nothing.
		bad := testSAMLProvider(key)
		bad.GroupValue = ""
		if err := ss.Put(ctx, bad); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("Put without a group: %v", err)
		}
		// Without a key to seal with, nothing is saved.
		if err := store.NewSAMLStore(st).Put(ctx, testSAMLProvider(key)); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("Put without secrets: %v", err)
		}
		if got, err := ss.Get(ctx, key); err != nil || got.GroupValue != "staff" {
			t.Fatalf("after refused puts: %+v %v", got, err)
		}
		if err := ss.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.Get(ctx, key); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("Get after Delete: %v", err)
		}
		if err := ss.Delete(ctx, key); err != nil {
			t.Fatalf("Delete of none: %v", err)
		}
	})
}

// TestSAMLConsume: an assertion ID is accepted once per tenant, on any
// instance (the store is shared); another tenant's same ID is its own;
// expired rows are deleted by later calls.
func TestSAMLConsume(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		now := time.Now()
		one, two := store.NewSAMLStore(st), store.NewSAMLStore(st) // two instances
		exp := now.Add(5 * time.Minute)
		if err := one.Consume(ctx, key, "id-1", exp); err != nil {
			t.Fatal(err)
		}
		if err := two.Consume(ctx, key, "id-1", exp); survey.ErrorCode(err) != survey.ECONFLICT {
			t.Fatalf("replay on another instance: %v", err)
		}
		if err := two.Consume(ctx, newTenant(), "id-1", exp); err != nil {
			t.Fatalf("another tenant's: %v", err)
		}
		// Two that have expired, then a call that prunes them.
		for _, id := range []string{"old-1", "old-2"} {
			if err := one.Consume(ctx, key, id, now.Add(-time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		if err := one.Consume(ctx, key, "id-2", exp); err != nil {
			t.Fatal(err)
		}
		page, err := st.QueryPartition(ctx, store.SignInsTable, key, storage.Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entities) != 2 {
			t.Fatalf("%d rows kept, want the 2 live assertions", len(page.Entities))
		}
	})
}
