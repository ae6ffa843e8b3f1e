package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/postgres"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TransferConfig tunes the transfer worker.
type TransferConfig struct {
	// Visibility hides a request while it runs; the worker renews it every
	// third of it, so a long copy is never delivered twice at once.
	Visibility time.Duration
	// MaxAttempts is how many times a request is tried before it goes to
	// the poison queue.
	MaxAttempts int
	// RetryBase is the wait after the first failure; it doubles after each
	// failure, up to RetryMax.
	RetryBase, RetryMax time.Duration
	// MaxIdle is the longest pause between polls of an empty queue.
	MaxIdle time.Duration
	// Concurrency is how many copies Run makes at once (0 means 1), at most
	// one per tenant, so that one tenant's slow or unreachable database
	// holds back no other tenant's copy.
	Concurrency int
	// BusyWait is how long a request waits, put back unattempted, when its
	// tenant has another copy under way in this worker (0 means MaxIdle).
	BusyWait time.Duration
}

// DefaultTransferConfig is the configuration of surveys serve: four copies
// at once, one per tenant; tries after 30 s, 1, 2 and 4 minutes, then
// gives up. An idle queue is polled every 30 s; a copy requested on this
// instance wakes it at once (Wake).
var DefaultTransferConfig = TransferConfig{Visibility: time.Minute, MaxAttempts: 5, RetryBase: 30 * time.Second, RetryMax: 15 * time.Minute, MaxIdle: 30 * time.Second,
	Concurrency: 4, BusyWait: 15 * time.Second}

// backoff is the wait after the attempt-th failure.
func (c TransferConfig) backoff(attempt int) time.Duration {
	d := c.RetryBase
	for i := 1; i < attempt && d < c.RetryMax; i++ {
		d *= 2
	}
	return min(d, c.RetryMax)
}

// Transfers drains the transfers queue: each request copies one survey's
// answers into its tenant's PostgreSQL database (the SurveySqlStore), and
// the survey's transfer status says how it went. A request that fails is
// tried again later (the message comes back after a growing wait); after
// MaxAttempts it goes to the transfers poison queue with the reason.
type Transfers struct {
	st      storage.Storage
	tenants *store.TenantStore
	surveys *store.SurveyStore
	answers *store.SurveyAnswerStore
	status  *store.SurveyTransferStore
	sql     *postgres.SurveySQLStore
	cfg     TransferConfig
	log     *slog.Logger
	now     func() time.Time

	done, failed, poisoned prometheus.Counter
	lag                    *lag
	wake                   waker

	mu   sync.Mutex
	busy map[string]bool // tenants with a copy under way

	// Alert, when set, is told of each copy that failed for good.
	Alert TransferAlert
}

// TransferAlert is told once when a copy gives up (AdminMail).
type TransferAlert interface {
	TransferGaveUp(ctx context.Context, tenant, slug, title, reason string)
}

// NewTransfers returns a transfer worker. tenants must open the tenants'
// secrets (the SQL password).
func NewTransfers(st storage.Storage, tenants *store.TenantStore, sql *postgres.SurveySQLStore, cfg TransferConfig, log *slog.Logger) *Transfers {
	if log == nil {
		log = slog.Default()
	}
	return &Transfers{st: st, tenants: tenants, surveys: store.NewSurveyStore(st), answers: store.NewSurveyAnswerStore(st),
		status: store.NewSurveyTransferStore(st), sql: sql, cfg: cfg, log: log, now: time.Now, busy: map[string]bool{}, wake: newWaker(),
		done:     prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_transfers_done_total", Help: "Transfers of answers to subscribers' databases that succeeded."}),
		failed:   prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_transfers_failed_total", Help: "Transfer attempts that failed (tried again, or poisoned)."}),
		poisoned: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_transfers_poison_messages_total", Help: "Transfer requests moved to the poison queue."}),
		lag:      newLag("transfers"),
	}
}

// Collectors returns the transfer worker's metrics, to register.
func (t *Transfers) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{t.done, t.failed, t.poisoned}, t.lag.collectors()...)
}

// Run drains the queue until ctx is done, making up to Concurrency copies
// at once and at most one per tenant. Copies under way when ctx ends are
// stopped (their transactions rolled back) and their requests made
// visible again for another worker; Run returns once they have.
func (t *Transfers) Run(ctx context.Context) error {
	slots := make(chan struct{}, max(t.cfg.Concurrency, 1))
	var wg sync.WaitGroup
	defer wg.Wait()
	return poll(ctx, func() (int, error) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return 0, nil
		}
		m, ok, err := t.take(ctx)
		if err != nil || !ok {
			<-slots
			return 0, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if err := t.handle(ctx, m); err != nil {
				t.log.Warn("transfer worker: request failed", "err", err)
			}
		}()
		return 1, nil
	}, t.cfg.MaxIdle, t.wake, 0, t.log, "transfer worker: request failed")
}

// Wake makes Run take the queue now: this instance queued a copy. It
// never blocks.
func (t *Transfers) Wake() { t.wake.Wake() }

// RunOnce takes one transfer request and handles it. It returns the number
// of requests taken (0 or 1).
func (t *Transfers) RunOnce(ctx context.Context) (int, error) {
	m, ok, err := t.take(ctx)
	if err != nil || !ok {
		return 0, err
	}
	return 1, t.handle(ctx, m)
}

// take dequeues one request; ok is false when none waits.
func (t *Transfers) take(ctx context.Context) (m storage.Message, ok bool, err error) {
	msgs, err := t.st.Dequeue(ctx, store.TransfersQueue, 1, t.cfg.Visibility)
	if err != nil {
		if ctx.Err() != nil {
			return m, false, nil
		}
		return m, false, err
	}
	t.lag.took(store.TransfersQueue, msgs, t.now())
	if len(msgs) == 0 {
		t.lag.progressed() // none waiting
		return m, false, nil
	}
	return msgs[0], true, nil
}

// handle runs one delivery of a request: puts it back unattempted while
// its tenant has another copy under way, gives it up after MaxAttempts,
// drops it when its survey is gone, or copies.
func (t *Transfers) handle(ctx context.Context, m storage.Message) error {
	// A request done (or failed, to be tried again, or put back).
	defer t.lag.progressed()
	// Bookkeeping outlives a shutdown; the copy itself does not.
	bctx := context.WithoutCancel(ctx)
	var req store.TransferRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		return t.poison(bctx, m, "cannot decode the message: "+err.Error())
	}
	st := t.statusOf(bctx, req)
	if !t.claim(req.Tenant) {
		return t.putBack(bctx, m, st)
	}
	defer t.release(req.Tenant)
	attempt := int(m.DequeueCount) // a put-back is a new message: never an attempt
	if attempt > t.cfg.MaxAttempts {
		// Earlier deliveries ended without a word (a crash mid-copy).
		reason := fmt.Sprintf("failed %d deliveries; last error: %s", attempt-1, st.Error)
		t.setStatus(bctx, st, func(s *store.TransferStatus) { s.State, s.RetryAt = store.TransferGaveUp, time.Time{} })
		return t.poison(bctx, m, reason)
	}

	tenant, err := t.tenants.Get(bctx, req.Tenant)
	if err == nil {
		var sv *survey.Survey
		if sv, err = t.surveys.Get(bctx, req.Tenant, req.Slug); err == nil {
			return t.transfer(ctx, m, tenant, sv, st, attempt)
		}
	}
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		t.log.Info("transfer worker: dropping the request of a deleted tenant or survey", "tenant", req.Tenant, "slug", req.Slug, "id", m.ID)
		return t.delete(bctx, m.ID, m.PopReceipt)
	}
	return fmt.Errorf("transfer worker: %s/%s: %w", req.Tenant, req.Slug, err) // delivered again
}

// claim marks tenant's copy under way; false when one already is.
func (t *Transfers) claim(tenant string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy[tenant] {
		return false
	}
	t.busy[tenant] = true
	return true
}

func (t *Transfers) release(tenant string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.busy, tenant)
}

// putBack puts a request of a tenant whose other copy is under way back
// on the queue, for BusyWait: as a new message, so that the delivery
// costs it no attempt whatever happens to its status. (A crash between
// the two calls leaves the request twice; the copies replace each other.)
func (t *Transfers) putBack(ctx context.Context, m storage.Message, st *store.TransferStatus) error {
	wait := t.cfg.BusyWait
	if wait <= 0 {
		wait = t.cfg.MaxIdle
	}
	if _, err := t.st.Enqueue(ctx, store.TransfersQueue, m.Data, storage.EnqueueOptions{Delay: wait}); err != nil {
		return fmt.Errorf("transfer worker: put back %s: %w", m.ID, err)
	}
	t.setStatus(ctx, st, func(s *store.TransferStatus) { s.Deferred++ })
	return t.delete(ctx, m.ID, m.PopReceipt)
}

// transfer runs one attempt of a request.
func (t *Transfers) transfer(ctx context.Context, m storage.Message, tenant *survey.Tenant, sv *survey.Survey, st *store.TransferStatus, attempt int) error {
	bctx := context.WithoutCancel(ctx)
	if tenant.SQLConnection == "" {
		t.setStatus(bctx, st, func(s *store.TransferStatus) {
			s.State, s.Error, s.FinishedOn = store.TransferGaveUp, "This subscription has no database: save one in Settings › Your database, then request the transfer again.", t.now().UTC()
		})
		t.log.Info("transfer worker: no database configured", "tenant", tenant.Key, "slug", sv.Slug)
		return t.delete(bctx, m.ID, m.PopReceipt)
	}
	t.setStatus(bctx, st, func(s *store.TransferStatus) {
		s.State, s.StartedOn, s.Attempt, s.MaxAttempts, s.RetryAt = store.TransferRunning, t.now().UTC(), attempt, t.cfg.MaxAttempts, time.Time{}
	})

	// Keep the request hidden while the copy runs.
	hb := newHeartbeat(m.PopReceipt)
	hbCtx, stopHB := context.WithCancel(bctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t.keepHidden(hbCtx, m.ID, hb)
	}()
	db := postgres.Database{Connection: tenant.SQLConnection, Password: tenant.SQLPassword}
	res, err := t.sql.Transfer(ctx, db, sv, func(yield func(*survey.SurveyAnswer) error) error {
		// In the order of the survey's list, a segment of answers at a time.
		return t.answers.Scan(ctx, sv.Tenant, sv.Slug, 0, func(_ int, a *survey.SurveyAnswer) error {
			return yield(a)
		})
	})
	stopHB()
	wg.Wait()
	receipt := hb.get()

	switch {
	case err == nil:
		t.done.Inc()
		t.log.Info("transfer worker: done", "tenant", sv.Tenant, "slug", sv.Slug, "answers", res.Answers, "rows", res.Rows, "duration", res.Duration)
		t.setStatus(bctx, st, func(s *store.TransferStatus) {
			s.State, s.FinishedOn, s.Answers, s.Rows, s.Duration, s.Error = store.TransferDone, t.now().UTC(), res.Answers, res.Rows, res.Duration, ""
		})
		return t.delete(bctx, m.ID, receipt)
	case ctx.Err() != nil:
		// Shutting down: another worker (or this one, restarted) takes it.
		t.setStatus(bctx, st, func(s *store.TransferStatus) { s.State = store.TransferRequested })
		_, verr := t.st.UpdateVisibility(bctx, store.TransfersQueue, m.ID, receipt, 0)
		return verr
	}
	t.failed.Inc()
	msg := postgres.Message(err)
	t.log.Warn("transfer worker: attempt failed", "tenant", sv.Tenant, "slug", sv.Slug, "attempt", attempt, "err", err)
	if attempt >= t.cfg.MaxAttempts {
		t.setStatus(bctx, st, func(s *store.TransferStatus) {
			s.State, s.Error, s.FinishedOn = store.TransferGaveUp, msg, t.now().UTC()
		})
		m.PopReceipt = receipt
		if t.Alert != nil {
			t.Alert.TransferGaveUp(bctx, sv.Tenant, sv.Slug, sv.Title, msg)
		}
		return t.poison(bctx, m, fmt.Sprintf("failed %d attempts; last error: %s", attempt, msg))
	}
	wait := t.cfg.backoff(attempt)
	t.setStatus(bctx, st, func(s *store.TransferStatus) {
		s.State, s.Error, s.FinishedOn, s.RetryAt = store.TransferFailed, msg, t.now().UTC(), t.now().UTC().Add(wait)
	})
	if _, err := t.st.UpdateVisibility(bctx, store.TransfersQueue, m.ID, receipt, wait); err != nil {
		return fmt.Errorf("transfer worker: put back %s: %w", m.ID, err)
	}
	return nil
}

// heartbeat holds a message's latest pop receipt.
type heartbeat struct {
	mu      sync.Mutex
	receipt string
}

func newHeartbeat(r string) *heartbeat { return &heartbeat{receipt: r} }

func (h *heartbeat) get() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.receipt
}

// keepHidden renews the message's visibility every third of it until ctx
// ends.
func (t *Transfers) keepHidden(ctx context.Context, id string, h *heartbeat) {
	tick := time.NewTicker(max(t.cfg.Visibility/3, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		h.mu.Lock()
		r, err := t.st.UpdateVisibility(context.WithoutCancel(ctx), store.TransfersQueue, id, h.receipt, t.cfg.Visibility)
		if err == nil {
			h.receipt = r
		}
		h.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			t.log.Warn("transfer worker: cannot keep the request hidden", "id", id, "err", err)
		}
	}
}

// statusOf returns the survey's status to update: the stored one when it
// is this request's, or a new one.
func (t *Transfers) statusOf(ctx context.Context, req store.TransferRequest) *store.TransferStatus {
	st, err := t.status.Status(ctx, req.Tenant, req.Slug)
	if err != nil || st == nil {
		st = &store.TransferStatus{Tenant: req.Tenant, Slug: req.Slug, State: store.TransferRequested}
	}
	if st.RequestedOn.IsZero() || st.RequestedOn.Before(req.RequestedOn) {
		st.RequestedOn = req.RequestedOn
	}
	return st
}

// setStatus changes and writes the status; a failure to write it is
// logged, not fatal: the transfer itself is what matters.
func (t *Transfers) setStatus(ctx context.Context, st *store.TransferStatus, change func(*store.TransferStatus)) {
	change(st)
	if err := t.status.SetStatus(ctx, st); err != nil {
		t.log.Warn("transfer worker: cannot write the status", "tenant", st.Tenant, "slug", st.Slug, "err", err)
	}
}

func (t *Transfers) delete(ctx context.Context, id, receipt string) error {
	if err := t.st.DeleteMessage(ctx, store.TransfersQueue, id, receipt); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("transfer worker: delete request %s: %w", id, err)
	}
	return nil
}

// poison moves a request to the transfers poison queue with the reason,
// then deletes it. If the move fails the request stays, to come back.
func (t *Transfers) poison(ctx context.Context, m storage.Message, reason string) error {
	t.log.Error("transfer worker: poison request", "id", m.ID, "dequeueCount", m.DequeueCount, "reason", reason)
	data, err := json.Marshal(PoisonMessage{MessageID: m.ID, Queue: store.TransfersQueue, Reason: reason, Data: m.Data, PoisonOn: t.now().UTC()})
	if err != nil {
		return err
	}
	if _, err := t.st.Enqueue(ctx, store.TransfersPoisonQueue, data, storage.EnqueueOptions{TTL: -1}); err != nil {
		return fmt.Errorf("transfer worker: move %s to the poison queue: %w", m.ID, err)
	}
	t.poisoned.Inc()
	return t.delete(ctx, m.ID, m.PopReceipt)
}
