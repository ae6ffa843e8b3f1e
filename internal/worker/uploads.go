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

// The upload sweeper deletes the files respondents sent that no stored
// answer claims (store/uploads.go): a respondent who left, a file sent
// again in its place, a second post of the same form, a request cut
// short. It goes by the pending markers the web writes before a file's
// first part: a marker older than Grace is settled by reading its answer
// and deleting every file under the answer's ID that the answer does not
// name, then the marker. Each step can be done again, so a crash anywhere
// leaves a marker that the next sweep settles.
//
// Grace is longer than a form's token lives (a day: a form older cannot
// be sent) plus Settle, so that any answer that may claim the files was
// acknowledged before the sweep. An acknowledged answer is on the answers
// queue until the worker files it: while the answers queues hold a
// message older than Settle (the worker is behind), or the poison queue
// holds any (an answer an operator may send again), the sweeper waits,
// so that it never deletes a file an answer still on its way names.

// SweepConfig tunes the upload sweeper.
type SweepConfig struct {
	// Grace is the age of a marker that may be settled; Settle is how far
	// behind the answers worker may be for a sweep to go ahead.
	Grace, Settle time.Duration
	// Every is the wait between sweeps; Batch the markers one settles.
	Every time.Duration
	Batch int
}

// DefaultSweepConfig: a day and an hour of grace (a form lives a day), a
// sweep every ten minutes.
var DefaultSweepConfig = SweepConfig{Grace: 25 * time.Hour, Settle: time.Hour, Every: 10 * time.Minute, Batch: 100}

// UploadSweeper deletes unclaimed uploads.
type UploadSweeper struct {
	st      storage.Storage
	uploads *store.UploadStore
	answers *store.SurveyAnswerStore
	cfg     SweepConfig
	log     *slog.Logger
	now     func() time.Time

	settled, deleted, held prometheus.Counter
}

// NewUploadSweeper returns an upload sweeper over st.
func NewUploadSweeper(st storage.Storage, cfg SweepConfig, log *slog.Logger) *UploadSweeper {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Batch <= 0 || cfg.Batch > storage.MaxListResults {
		cfg.Batch = DefaultSweepConfig.Batch
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultSweepConfig.Every
	}
	return &UploadSweeper{st: st, uploads: store.NewUploadStore(st), answers: store.NewSurveyAnswerStore(st), cfg: cfg, log: log, now: time.Now,
		settled: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_uploads_markers_settled_total", Help: "Pending upload markers settled by the upload sweeper."}),
		deleted: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_uploads_swept_bytes_total", Help: "Bytes of uploaded files no answer claims, deleted by the upload sweeper."}),
		held:    prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_uploads_sweeps_held_total", Help: "Sweeps held back because answers may still be on their way (the answers worker behind, or answers in the poison queue)."}),
	}
}

// Collectors are the sweeper's metrics.
func (u *UploadSweeper) Collectors() []prometheus.Collector {
	return []prometheus.Collector{u.settled, u.deleted, u.held}
}

// Run sweeps every cfg.Every until ctx ends.
func (u *UploadSweeper) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		for {
			n, err := u.RunOnce(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				u.log.Warn("upload sweep", "err", err)
			}
			if err != nil || n < u.cfg.Batch {
				break
			}
		}
		t.Reset(u.cfg.Every)
	}
}

// RunOnce settles up to cfg.Batch markers older than the grace, and
// returns how many it settled.
func (u *UploadSweeper) RunOnce(ctx context.Context) (int, error) {
	now := u.now()
	markers, err := u.uploads.PendingBefore(ctx, now.Add(-u.cfg.Grace), u.cfg.Batch)
	if err != nil || len(markers) == 0 {
		return 0, err
	}
	if behind, err := u.answersBehind(ctx, now); err != nil || behind {
		if behind {
			u.held.Inc()
		}
		return 0, err
	}
	for i, p := range markers {
		if err := u.settle(ctx, p); err != nil {
			return i, err
		}
		u.settled.Inc()
	}
	return len(markers), nil
}

// answersBehind reports whether an acknowledged answer may still be on
// its way to being filed: an answers queue's oldest visible message is
// older than Settle, or the poison queue holds one.
func (u *UploadSweeper) answersBehind(ctx context.Context, now time.Time) (bool, error) {
	for _, q := range append(store.AnswerQueues, PoisonQueue) {
		msgs, err := u.st.PeekMessages(ctx, q, 1)
		if err != nil {
			return false, err
		}
		if len(msgs) > 0 && (q == PoisonQueue || msgs[0].InsertedAt.Before(now.Add(-u.cfg.Settle))) {
			return true, nil
		}
	}
	return false, nil
}

// settle deletes the files of a marker's answer that the answer does not
// claim, gives their bytes back to the tenant, and deletes the marker.
func (u *UploadSweeper) settle(ctx context.Context, p store.PendingUpload) error {
	var claimed []string
	a, err := u.answers.Get(ctx, p.Tenant, p.Slug, p.ID)
	switch {
	case err == nil:
		claimed = store.Claimed(a)
	case survey.ErrorCode(err) != survey.ENOTFOUND:
		return err
	}
	freed, err := u.uploads.DeleteUnclaimed(ctx, p.Tenant, p.Slug, p.ID, claimed)
	if err != nil {
		return err
	}
	// A crash here leaves the bytes taken (the files are gone): the
	// quota errs on the safe side.
	if err := u.uploads.Release(ctx, p.Tenant, freed); err != nil {
		return err
	}
	u.deleted.Add(float64(freed))
	return u.uploads.Settled(ctx, p)
}
