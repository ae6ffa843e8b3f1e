package worker_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestAuditRetention: a pass deletes every tenant's events older than
// the period and keeps the younger; no period keeps everything.
func TestAuditRetention(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		if err := store.Init(ctx, st); err != nil {
			t.Fatal(err)
		}
		tenants, audit := store.NewTenantStore(st), store.NewAuditStore(st)
		now := time.Now()
		keys := []string{"ret" + strconv.FormatInt(now.UnixNano(), 36), "ret" + strconv.FormatInt(now.UnixNano()+1, 36)}
		for _, key := range keys {
			if err := tenants.Create(ctx, &survey.Tenant{Key: key, Name: key, Plan: survey.Standard}); err != nil {
				t.Fatal(err)
			}
			for _, age := range []time.Duration{400 * 24 * time.Hour, 366 * 24 * time.Hour, 364 * 24 * time.Hour, time.Hour} {
				if err := audit.Append(ctx, survey.AuditEvent{Tenant: key, At: now.Add(-age), Actor: "a@example.com", Action: survey.AuditSignIn}); err != nil {
					t.Fatal(err)
				}
			}
		}
		// (The storage may hold other tests' tenants: counts are at least.)
		if n, err := worker.NewAuditRetention(st, worker.RetentionConfig{}, nil).RunOnce(ctx); err != nil || n != 0 {
			t.Fatalf("no period: deleted %d, %v", n, err)
		}
		n, err := worker.NewAuditRetention(st, worker.DefaultRetentionConfig, nil).RunOnce(ctx)
		if err != nil || n < 4 {
			t.Fatalf("deleted %d, %v; want 4 at least", n, err)
		}
		for _, key := range keys {
			list, _, err := audit.List(ctx, key, survey.AuditFilter{}, "", 10)
			if err != nil || len(list) != 2 {
				t.Fatalf("%s keeps %d, %v; want 2", key, len(list), err)
			}
		}
	})
}
