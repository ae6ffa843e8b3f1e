package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The audit retention pass deletes each tenant's audit events older
// than the operator's retention period (store.AuditStore.DeleteOlder):
// one query per tenant and a transaction per 100 events deleted, once
// every Every. Running it on several instances at once, or again after
// a crash, deletes nothing twice and nothing young.

// RetentionConfig tunes the audit retention pass.
type RetentionConfig struct {
	// Keep is how long an event is kept; 0 keeps them all (no pass).
	Keep time.Duration
	// Every is the wait between passes.
	Every time.Duration
}

// DefaultRetentionConfig keeps a year of events, with a pass every six
// hours.
var DefaultRetentionConfig = RetentionConfig{Keep: 365 * 24 * time.Hour, Every: 6 * time.Hour}

// AuditRetention deletes audit events past the retention period.
type AuditRetention struct {
	tenants *store.TenantStore
	audit   *store.AuditStore
	cfg     RetentionConfig
	log     *slog.Logger
	now     func() time.Time

	deleted prometheus.Counter
}

// NewAuditRetention returns the retention pass over st.
func NewAuditRetention(st storage.Storage, cfg RetentionConfig, log *slog.Logger) *AuditRetention {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultRetentionConfig.Every
	}
	return &AuditRetention{tenants: store.NewTenantStore(st), audit: store.NewAuditStore(st), cfg: cfg, log: log, now: time.Now,
		deleted: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_audit_events_expired_total", Help: "Audit events deleted after the retention period."})}
}

// Collectors are the pass's metrics.
func (a *AuditRetention) Collectors() []prometheus.Collector {
	return []prometheus.Collector{a.deleted}
}

// Run makes a pass every cfg.Every until ctx ends; with no retention
// period it waits for ctx alone.
func (a *AuditRetention) Run(ctx context.Context) error {
	if a.cfg.Keep <= 0 {
		<-ctx.Done()
		return nil
	}
	return passEvery(ctx, a.log, "audit retention", a.cfg.Every, a.RunOnce)
}

// passEvery runs pass at once, then every period until ctx ends; a
// failure is logged as what's, and the next pass comes all the same.
func passEvery(ctx context.Context, log *slog.Logger, what string, period time.Duration, pass func(context.Context) (int, error)) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if _, err := pass(ctx); err != nil && ctx.Err() == nil {
			log.Warn(what, "err", err)
		}
		t.Reset(period)
	}
}

// RunOnce deletes every tenant's events older than cfg.Keep, and returns
// how many. A tenant that fails is logged, and the others go on.
func (a *AuditRetention) RunOnce(ctx context.Context) (int, error) {
	if a.cfg.Keep <= 0 {
		return 0, nil
	}
	list, err := a.tenants.List(ctx)
	if err != nil {
		return 0, err
	}
	before, n := a.now().Add(-a.cfg.Keep), 0
	var last error
	for _, t := range list {
		d, err := a.audit.DeleteOlder(ctx, t.Key, before)
		n += d
		a.deleted.Add(float64(d))
		if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			if ctx.Err() != nil {
				return n, err
			}
			a.log.Warn("audit retention: a tenant", "tenant", t.Key, "err", err)
			last = err
		}
	}
	return n, last
}
