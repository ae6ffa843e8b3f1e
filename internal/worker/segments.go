package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SegmentsMarker is the blob of store.SystemContainer that records that
// every survey of the storage account has its answer segments: the
// start-up pass of the segment builder is done.
const SegmentsMarker = "segments-built-v1"

// maxNeeded bounds the surveys waiting for the segment builder. A survey
// left out is told again at its next batch of answers (its segments are
// still behind), and the start-up pass covers every survey anyway.
const maxNeeded = 10_000

// Segments builds the answer segments of surveys answered before segments
// existed (store.SurveyAnswerStore.BuildSegments), once:
//   - at start-up, once per storage account, a pass over every survey of
//     every tenant builds those whose segments are behind their answer
//     list, then writes SegmentsMarker, so that later starts cost one read;
//     a pass cut short (a crash, a stop, a survey that kept failing) runs
//     again at the next start and carries on from the segments written;
//   - after that, the surveys the answers worker finds behind (its Behind,
//     set to Need) are built one at a time.
//
// It never polls: idle, it makes no storage call. A failed build is tried
// again after a growing wait.
type Segments struct {
	st      storage.Storage
	answers *store.SurveyAnswerStore
	surveys *store.SurveyStore
	tenants *store.TenantStore
	log     *slog.Logger
	now     func() time.Time
	wake    waker

	// retryBase is the wait after a survey's first failed build; it
	// doubles after each failure up to retryMax. A survey is given up
	// after maxAttempts failed builds (until it is needed again, or the
	// next start's pass).
	retryBase, retryMax time.Duration
	maxAttempts         int

	mu   sync.Mutex
	need map[string]*needed // by tenant/slug

	added, built, failed, dropped prometheus.Counter
	waiting                       prometheus.GaugeFunc
}

// needed is a survey waiting for the builder.
type needed struct {
	tenant, slug string
	attempts     int       // failed builds so far
	notBefore    time.Time // after a failure: the next try
}

// NewSegments returns a segment builder.
func NewSegments(st storage.Storage, log *slog.Logger) *Segments {
	if log == nil {
		log = slog.Default()
	}
	s := &Segments{st: st, answers: store.NewSurveyAnswerStore(st), surveys: store.NewSurveyStore(st), tenants: store.NewTenantStore(st),
		log: log, now: time.Now, wake: newWaker(), retryBase: time.Second, retryMax: time.Minute, maxAttempts: 8, need: map[string]*needed{},
		added:   prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_segments_answers_added_total", Help: "Answers put into segments by the segment builder (surveys answered before segments existed)."}),
		built:   prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_segments_surveys_built_total", Help: "Surveys whose segments the segment builder caught up with their answer list."}),
		failed:  prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_segments_errors_total", Help: "Failed segment builds and start-up pass listings (tried again later)."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_segments_needs_dropped_total", Help: "Surveys not queued for the segment builder: too many waiting."}),
	}
	s.waiting = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "surveys_segments_waiting", Help: "Surveys waiting for the segment builder."},
		func() float64 { s.mu.Lock(); defer s.mu.Unlock(); return float64(len(s.need)) })
	return s
}

// Collectors returns the segment builder's metrics, to register.
func (s *Segments) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.added, s.built, s.failed, s.dropped, s.waiting}
}

// Need asks for the segments of a survey to be built: its segments end
// before its answer list. It never blocks; when too many surveys wait, the
// survey is left out (it is told again at its next answers).
func (s *Segments) Need(tenant, slug string) {
	key := tenant + "/" + slug
	s.mu.Lock()
	_, ok := s.need[key]
	full := !ok && len(s.need) >= maxNeeded
	if !ok && !full {
		s.need[key] = &needed{tenant: tenant, slug: slug}
	}
	s.mu.Unlock()
	if full {
		s.dropped.Inc()
		return
	}
	s.wake.Wake()
}

// Run makes the start-up pass (unless the marker says it is done), then
// builds the surveys Need names, until ctx is done. A build under way when
// ctx ends is cut short: what it wrote is kept.
func (s *Segments) Run(ctx context.Context) error {
	s.pass(ctx)
	for ctx.Err() == nil {
		wait := s.serve(ctx)
		var t *time.Timer
		var timer <-chan time.Time
		if wait > 0 {
			t = time.NewTimer(wait) // a failed build's next try
			timer = t.C
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
	}
	return nil
}

// serve builds the surveys waiting and ready, and returns how long until
// the next one waiting is ready (0 when none waits).
func (s *Segments) serve(ctx context.Context) time.Duration {
	for ctx.Err() == nil {
		n, wait := s.next()
		if n == nil {
			return wait
		}
		if _, err := s.build(ctx, n.tenant, n.slug); err != nil && ctx.Err() == nil {
			s.retryLater(n, err)
		}
	}
	return 0
}

// next takes a survey that is ready to build, or says how long until one
// is (0 when none waits).
func (s *Segments) next() (*needed, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var wait time.Duration
	for key, n := range s.need {
		if d := n.notBefore.Sub(now); d > 0 {
			if wait == 0 || d < wait {
				wait = d
			}
			continue
		}
		delete(s.need, key)
		return n, 0
	}
	return nil, wait
}

// retryLater puts back a survey whose build failed (in place of a Need
// of it made meanwhile), to try after a growing wait; after maxAttempts it
// is given up until it is needed again.
func (s *Segments) retryLater(n *needed, err error) {
	key := n.tenant + "/" + n.slug
	n.attempts++
	s.mu.Lock()
	defer s.mu.Unlock()
	if n.attempts >= s.maxAttempts {
		delete(s.need, key)
		s.log.Error("segments: gave up building a survey's segments; its reads use single answers past them", "tenant", n.tenant, "survey", n.slug, "attempts", n.attempts, "err", err)
		return
	}
	n.notBefore = s.now().Add(s.backoff(n.attempts))
	s.need[key] = n
}

// backoff is the wait after the attempt-th failure.
func (s *Segments) backoff(attempt int) time.Duration {
	d := s.retryBase
	for i := 1; i < attempt && d < s.retryMax; i++ {
		d *= 2
	}
	return min(d, s.retryMax)
}

// build catches a survey's segments up with its answer list, and returns
// the number of answers it added.
func (s *Segments) build(ctx context.Context, tenant, slug string) (int, error) {
	n, err := s.answers.BuildSegments(ctx, tenant, slug)
	s.added.Add(float64(n))
	if err != nil {
		if ctx.Err() == nil {
			s.failed.Inc()
			s.log.Warn("segments: build failed", "tenant", tenant, "survey", slug, "added", n, "err", err)
		}
		return n, err
	}
	if n > 0 {
		s.built.Inc()
		s.log.Info("segments: built a survey's segments", "tenant", tenant, "survey", slug, "answers", n)
	}
	return n, nil
}

// pass builds the segments of every survey whose segments are behind its
// list, once per storage account: SegmentsMarker records that it is done.
// It is cut short when ctx ends; a survey that keeps failing is skipped
// and leaves the marker unwritten, so the next start tries it again.
// Between surveys it serves the surveys Need names.
func (s *Segments) pass(ctx context.Context) {
	var done bool
	if !s.retry(ctx, "read the marker", func() error {
		_, err := s.st.GetBlob(ctx, store.SystemContainer, SegmentsMarker)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		done = err == nil
		return err
	}) || done {
		return
	}
	s.log.Info("segments: building the segments of surveys answered before segments existed")
	var tenants []string
	if !s.retry(ctx, "list the tenants", func() (err error) { tenants, err = s.tenants.Keys(ctx); return err }) {
		return
	}
	checked, skipped, added := 0, 0, 0
	for _, tenant := range tenants {
		if survey.ValidateTenantKey(tenant) != nil {
			continue // not a tenant's record
		}
		var list []*survey.Survey
		if !s.retry(ctx, "list a tenant's surveys", func() (err error) { list, err = s.surveys.List(ctx, tenant); return err }) {
			return
		}
		for _, sv := range list {
			s.serve(ctx)
			n, ok := s.buildRetrying(ctx, tenant, sv.Slug)
			added += n
			if !ok {
				if ctx.Err() != nil {
					return
				}
				skipped++
			}
			checked++
		}
	}
	if skipped > 0 {
		s.log.Error("segments: the start-up pass skipped surveys that kept failing; the next start tries them again", "surveys", checked, "skipped", skipped)
		return
	}
	if !s.retry(ctx, "write the marker", func() error {
		_, err := s.st.PutBlob(ctx, store.SystemContainer, SegmentsMarker, []byte("built"), storage.PutOptions{ContentType: "text/plain"})
		return err
	}) {
		return
	}
	s.log.Info("segments: every survey has its segments", "surveys", checked, "answers", added)
}

// buildRetrying builds a survey's segments, trying again after a growing
// wait up to maxAttempts times. It returns the answers it added and
// whether the build finished.
func (s *Segments) buildRetrying(ctx context.Context, tenant, slug string) (int, bool) {
	added := 0
	for attempt := 1; ; attempt++ {
		n, err := s.build(ctx, tenant, slug)
		added += n
		if err == nil {
			return added, true
		}
		if attempt >= s.maxAttempts || !pause(ctx, s.backoff(attempt)) {
			return added, false
		}
	}
}

// retry runs f until it succeeds, after a growing wait between tries; it
// reports false when ctx ended first.
func (s *Segments) retry(ctx context.Context, what string, f func() error) bool {
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		s.failed.Inc()
		s.log.Warn("segments: start-up pass: cannot "+what, "attempt", attempt, "err", err)
		if !pause(ctx, s.backoff(attempt)) {
			return false
		}
	}
}
