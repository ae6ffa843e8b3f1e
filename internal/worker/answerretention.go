package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The answer retention pass deletes the answers past each survey's
// retention rule (Survey.RetentionDays: its own, or its tenant's
// default), once every Every, through store.SurveyAnswerStore.ExpireAnswers:
// exactly once and kept exact in summaries, tables and segments, whatever
// crashes, on any number of instances at once. An idle pass costs one
// query of the tenants, one of each tenant's surveys, and for each survey
// with a rule its row and questions, its summary, a listing of its
// segments and the segment where its answers start: never a read of
// every answer. Each survey that lost answers gets an audit event saying
// how many.

// AnswerRetentionConfig tunes the answer retention pass.
type AnswerRetentionConfig struct {
	// Every is the wait between passes.
	Every time.Duration
}

// DefaultAnswerRetentionConfig makes a pass every hour: an answer is
// deleted within an hour of its retention period's end.
var DefaultAnswerRetentionConfig = AnswerRetentionConfig{Every: time.Hour}

// AnswerRetention deletes answers past their survey's retention rule.
type AnswerRetention struct {
	tenants *store.TenantStore
	surveys *store.SurveyStore
	answers *store.SurveyAnswerStore
	audit   *store.AuditStore
	cfg     AnswerRetentionConfig
	log     *slog.Logger
	now     func() time.Time

	removed prometheus.Counter
}

// NewAnswerRetention returns the answer retention pass over st.
func NewAnswerRetention(st storage.Storage, cfg AnswerRetentionConfig, log *slog.Logger) *AnswerRetention {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultAnswerRetentionConfig.Every
	}
	return &AnswerRetention{tenants: store.NewTenantStore(st), surveys: store.NewSurveyStore(st), answers: store.NewSurveyAnswerStore(st),
		audit: store.NewAuditStore(st), cfg: cfg, log: log, now: time.Now,
		removed: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_answers_expired_total", Help: "Answers deleted after their survey's retention period."})}
}

// SetClock makes the pass read the time from now (tests).
func (a *AnswerRetention) SetClock(now func() time.Time) { a.now = now }

// Collectors are the pass's metrics.
func (a *AnswerRetention) Collectors() []prometheus.Collector {
	return []prometheus.Collector{a.removed}
}

// Run makes a pass every cfg.Every until ctx ends.
func (a *AnswerRetention) Run(ctx context.Context) error {
	return passEvery(ctx, a.log, "answer retention", a.cfg.Every, a.RunOnce)
}

// RunOnce deletes every survey's answers past its retention rule, and
// returns how many. A tenant or survey that fails is logged, and the
// others go on; the last failure is returned.
func (a *AnswerRetention) RunOnce(ctx context.Context) (int, error) {
	list, err := a.tenants.List(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var last error
	for _, t := range list {
		d, err := a.tenant(ctx, t)
		n += d
		if err != nil {
			if ctx.Err() != nil {
				return n, err
			}
			a.log.Warn("answer retention: a tenant", "tenant", t.Key, "err", err)
			last = err
		}
	}
	return n, last
}

// tenant makes the pass over one tenant's surveys.
func (a *AnswerRetention) tenant(ctx context.Context, t *survey.Tenant) (int, error) {
	surveys, err := a.surveys.List(ctx, t.Key)
	if err != nil {
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return 0, nil
		}
		return 0, err
	}
	n := 0
	var last error
	for _, sv := range surveys {
		days := sv.RetentionDays(t.RetainDays)
		if days == 0 || sv.State == survey.Draft || sv.Trashed() {
			continue // no rule; no answers; deleted soon
		}
		d, err := a.survey(ctx, t.Key, sv.Slug, days)
		n += d
		if err != nil {
			if ctx.Err() != nil {
				return n, err
			}
			a.log.Warn("answer retention: a survey", "tenant", t.Key, "survey", sv.Slug, "err", err)
			last = err
		}
	}
	return n, last
}

// survey deletes one survey's answers older than days, in as many calls
// as it takes, and notes how many in the tenant's audit log.
func (a *AnswerRetention) survey(ctx context.Context, tenant, slug string, days int) (int, error) {
	sv, err := a.surveys.Get(ctx, tenant, slug) // with its questions, to recount
	if err != nil {
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return 0, nil
		}
		return 0, err
	}
	before := a.now().Add(-time.Duration(days) * 24 * time.Hour)
	n := 0
	for {
		d, err := a.answers.ExpireAnswers(ctx, sv, before)
		n += d
		a.removed.Add(float64(d))
		if err != nil || d < store.MaxExpiredPerCall {
			if n > 0 {
				noun := "answers"
				if n == 1 {
					noun = "answer"
				}
				aerr := a.audit.Append(ctx, survey.AuditEvent{Tenant: tenant, At: a.now(), Actor: survey.AuditSystem, Action: survey.AuditAnswersExpired,
					Target: slug, Detail: fmt.Sprintf("%d %s older than %d days deleted", n, noun, days)})
				if aerr != nil && err == nil {
					err = aerr
				}
			}
			return n, err
		}
	}
}
