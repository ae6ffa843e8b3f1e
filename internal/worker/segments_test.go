package worker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// oldTenant stores a tenant's record (the start-up pass lists tenants), in
// a storage it prepares.
func oldTenant(t *testing.T, st storage.Storage) string {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	key := newTenant()
	if err := store.NewTenantStore(st).Create(ctx, &survey.Tenant{Key: key, Name: "Tenant " + key, Plan: survey.Standard}); err != nil {
		t.Fatal(err)
	}
	return key
}

// oldSurvey makes a survey of tenant answered n times before segments
// existed: its answers filed as blobs, listed, and counted in its summary,
// with no segment. The answers are made with store APIs, as the worker of
// that time did.
func oldSurvey(t *testing.T, st storage.Storage, tenant, title string, n int) *fixture {
	t.Helper()
	ctx := context.Background()
	s := &survey.Survey{Tenant: tenant, Title: title, State: survey.Published, Questions: []survey.Question{
		{Text: "Rate", Type: survey.FiveStars},
		{Text: "Say", Type: survey.SimpleText},
	}}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, survey: s}
	as := store.NewSurveyAnswerStore(st)
	sum := &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s)}
	for i := range n {
		a := textAnswer(t, s, func(q int) string {
			if q == 0 {
				return fmt.Sprint(i%5 + 1)
			}
			return fmt.Sprintf("old answer %d", i)
		})
		if _, err := as.File(ctx, &a, fmt.Sprintf("old-%d", i)); err != nil {
			t.Fatal(err)
		}
		sum.Add(a)
		f.ids = append(f.ids, a.ID)
	}
	for pos := 0; pos < n; pos += store.ListChunkSize {
		if _, err := as.AppendAt(ctx, tenant, s.Slug, nil, pos, f.ids[pos:min(pos+store.ListChunkSize, n)]); err != nil {
			t.Fatal(err)
		}
	}
	if n > 0 {
		if _, err := store.NewSurveyAnswersSummaryStore(st).Put(ctx, sum, ""); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := as.Segmented(ctx, tenant, s.Slug); got != 0 || err != nil {
		t.Fatalf("an old survey has %d answers in segments (%v)", got, err)
	}
	return f
}

// exact says how a survey's summary, list and segments differ from its
// answers ("" if not); a survey without answers has neither summary nor
// segments.
func (f *fixture) exact() string {
	if len(f.ids) > 0 {
		return f.diff()
	}
	n, err := store.NewSurveyAnswerStore(f.st).Segmented(context.Background(), f.survey.Tenant, f.survey.Slug)
	if n != 0 || err != nil {
		return fmt.Sprintf("a survey without answers has %d in segments (%v)", n, err)
	}
	return ""
}

// resetMarker deletes the start-up pass's marker now and after the test:
// the Azure backend's account is shared by the package's tests.
func resetMarker(t *testing.T, st storage.Storage) {
	t.Helper()
	del := func() {
		err := st.DeleteBlob(context.Background(), store.SystemContainer, worker.SegmentsMarker, "")
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Fatal(err)
		}
	}
	del()
	t.Cleanup(del)
}

func hasMarker(t *testing.T, st storage.Storage) bool {
	t.Helper()
	_, err := st.GetBlob(context.Background(), store.SystemContainer, worker.SegmentsMarker)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// oldAccount is an account with surveys of every shape the pass meets:
// answered before segments (over one page of the list as a build reads
// it, and a few answers), without answers, a tenant without surveys, and
// and, if fresh, a survey answered since segments exist (by the worker).
func oldAccount(t *testing.T, st storage.Storage, many int, fresh bool) []*fixture {
	t.Helper()
	a := oldTenant(t, st)
	_ = oldTenant(t, st) // no survey
	fixtures := []*fixture{
		oldSurvey(t, st, a, "Many", many),
		oldSurvey(t, st, a, "Few", 3),
		oldSurvey(t, st, a, "None", 0),
	}
	if !fresh {
		return fixtures
	}
	f := newFixture(t, st, oldTenant(t, st), 5, 2)
	drainQuiet(st, worker.New(st, testConfig, quiet, nil))
	return append(fixtures, f)
}

// TestSegmentsStartUpPass: the start-up pass builds the segments of every
// survey answered before segments existed, position by position as its
// list, then writes the marker.
func TestSegmentsStartUpPass(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		fixtures := oldAccount(t, st, 230, true)
		resetMarker(t, st)
		sb := worker.NewSegments(st, quiet)
		worker.SegmentsPass(sb, context.Background())
		for _, f := range fixtures {
			if msg := f.exact(); msg != "" {
				t.Errorf("%s: %s", f.survey.Slug, msg)
			}
		}
		if !hasMarker(t, st) {
			t.Fatal("no marker after the pass")
		}
	})
}

// readsAnswer reports whether a call read one answer's blob.
func readsAnswer(c faulty.Call) bool {
	return c.Service == "blob" && c.Kind == "get" && strings.HasPrefix(c.Target, "surveyanswers-")
}

// TestSegmentsCrashBetweenEveryCall kills the start-up pass before and
// after each of its storage calls in turn, starts it again, and checks
// that every survey's segments hold its list exactly: nothing missing,
// nothing twice. Of the reads of single answers, which write nothing and
// are alike, every tenth is a crash point.
func TestSegmentsCrashBetweenEveryCall(t *testing.T) {
	t.Parallel() // its own embedded stores
	st := backends.Local(t)
	fixtures := oldAccount(t, st, 105, false)
	clean := faulty.New(st)
	worker.SegmentsPass(worker.NewSegments(clean, quiet), context.Background())
	for _, f := range fixtures {
		if msg := f.exact(); msg != "" {
			t.Fatalf("a clean pass: %s: %s", f.survey.Slug, msg)
		}
	}
	total, ops := clean.Calls(), clean.Ops()
	if total < 20 || !hasMarker(t, st) {
		t.Fatalf("a clean pass made %d calls (marker: %v)", total, hasMarker(t, st))
	}
	t.Logf("a clean pass over 3 surveys of 108 answers before segments makes %d storage calls", total)

	results := make(chan string, 2*total)
	slots := make(chan struct{}, 4)
	var wg sync.WaitGroup
	points := 0
	for n := int64(1); n <= total; n++ {
		if readsAnswer(ops[n-1]) && n%10 != 0 {
			continue
		}
		points++
		for _, after := range []bool{false, true} {
			wg.Add(1)
			slots <- struct{}{}
			go func() {
				defer func() { <-slots; wg.Done() }()
				st := backends.Local(t)
				fixtures := oldAccount(t, st, 105, false)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				crashing := faulty.At(st, n, after)
				crashing.OnDeath = cancel
				sb := worker.NewSegments(crashing, quiet)
				worker.SetSegmentsRetry(sb, time.Millisecond, time.Millisecond, 3)
				worker.SegmentsPass(sb, ctx)
				if ctx.Err() == nil {
					results <- fmt.Sprintf("crash at call %d (after=%v): the pass did not stop", n, after)
					return
				}
				// A new process, with nothing in memory, finishes the pass.
				worker.SegmentsPass(worker.NewSegments(st, quiet), context.Background())
				for _, f := range fixtures {
					if msg := f.exact(); msg != "" {
						results <- fmt.Sprintf("crash at call %d (after=%v): %s: %s", n, after, f.survey.Slug, msg)
					}
				}
				if _, err := st.GetBlob(context.Background(), store.SystemContainer, worker.SegmentsMarker); err != nil {
					results <- fmt.Sprintf("crash at call %d (after=%v): no marker after the second pass: %v", n, after, err)
				}
			}()
		}
	}
	wg.Wait()
	close(results)
	for r := range results {
		t.Error(r)
	}
	t.Logf("crashed before and after %d of the %d calls", points, total)
}

// TestSegmentsPassSkipsFailingSurvey: a survey whose build keeps failing
// is skipped after its tries; the others are built, and the marker is not
// written, so that the next start tries again and finishes.
func TestSegmentsPassSkipsFailingSurvey(t *testing.T) {
	st := backends.Local(t)
	tenant := oldTenant(t, st)
	broken := oldSurvey(t, st, tenant, "Broken", 4)
	good := oldSurvey(t, st, tenant, "Good", 4)
	failing := &refuseAnswer{Storage: st, container: store.AnswersContainer(tenant, broken.survey.Slug), id: broken.ids[2]}
	sb := worker.NewSegments(failing, quiet)
	worker.SetSegmentsRetry(sb, time.Millisecond, time.Millisecond, 3)
	worker.SegmentsPass(sb, context.Background())
	if failing.refused.Load() != 3 {
		t.Fatalf("the broken survey was tried %d times, want 3", failing.refused.Load())
	}
	if msg := good.exact(); msg != "" {
		t.Fatal(msg)
	}
	// A build writes a page of the list at once: nothing of it here.
	if n, err := store.NewSurveyAnswerStore(st).Segmented(context.Background(), tenant, broken.survey.Slug); n != 0 || err != nil {
		t.Fatalf("the broken survey has %d answers in segments (%v), want none", n, err)
	}
	if hasMarker(t, st) {
		t.Fatal("the marker was written though a survey was skipped")
	}
	worker.SegmentsPass(worker.NewSegments(st, quiet), context.Background())
	if msg := broken.exact(); msg != "" {
		t.Fatal(msg)
	}
	if !hasMarker(t, st) {
		t.Fatal("no marker after the second pass")
	}
}

// refuseAnswer fails every read of one answer blob.
type refuseAnswer struct {
	storage.Storage
	container, id string
	refused       atomic.Int64
}

func (r *refuseAnswer) GetBlob(ctx context.Context, c, name string) (storage.Blob, error) {
	if c == r.container && name == r.id {
		r.refused.Add(1)
		return storage.Blob{}, errors.New("refused")
	}
	return r.Storage.GetBlob(ctx, c, name)
}

// TestSegmentsMarker: once the marker exists, a start costs one storage
// call, and an idle builder makes none.
func TestSegmentsMarker(t *testing.T) {
	st := backends.Local(t)
	fixtures := oldAccount(t, st, 30, true)
	worker.SegmentsPass(worker.NewSegments(st, quiet), context.Background())
	for _, f := range fixtures {
		if msg := f.exact(); msg != "" {
			t.Fatal(msg)
		}
	}
	c := counting.New(st)
	sb := worker.NewSegments(c, quiet)
	worker.SegmentsPass(sb, context.Background())
	if n := c.Total(""); n > 2 {
		t.Fatalf("a pass after the marker made %d storage calls: %v", n, c.Snapshot())
	}
	t.Logf("a start after the marker: %d storage call(s)", c.Total(""))
	// Run: the marker's read, then nothing until a survey is needed.
	c = counting.New(st)
	sb = worker.NewSegments(c, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sb.Run(ctx) }()
	waitFor(t, "the marker's read", func() bool { return c.Total("") >= 1 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := c.Total(""); n > 2 {
		t.Fatalf("Run made %d storage calls with nothing to build: %v", n, c.Snapshot())
	}
	// The metrics register beside the answers worker's.
	reg := prometheus.NewRegistry()
	reg.MustRegister(sb.Collectors()...)
	reg.MustRegister(worker.NewMetrics().Collectors()...)
}

// waitFor waits until cond holds (a minute at most).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hookSegments runs hook once, before the first segment write through it.
type hookSegments struct {
	storage.Storage
	once sync.Once
	hook func()
}

func (h *hookSegments) PutBlob(ctx context.Context, c, name string, data []byte, o storage.PutOptions) (string, error) {
	if c == store.SegmentContainer {
		h.once.Do(h.hook)
	}
	return h.Storage.PutBlob(ctx, c, name, data, o)
}

// TestSegmentsBehindWorker: answers arrive for a survey answered before
// segments (the start-up pass done, or running elsewhere): the answers
// worker finds its segments behind and tells the builder (Behind → Need),
// which builds them while the worker goes on appending (a second worker
// takes a batch just before the builder's first segment write); in the
// end the segments hold every answer, old and new, once, in list order.
func TestSegmentsBehindWorker(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		f := oldSurvey(t, st, oldTenant(t, st), "Old", 150)
		resetMarker(t, st)
		if _, err := st.PutBlob(ctx, store.SystemContainer, worker.SegmentsMarker, []byte("built"), storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		// New answers on the queue, two to a message.
		as := store.NewSurveyAnswerStore(st)
		for i := range 5 {
			var batch []survey.SurveyAnswer
			for j := range 2 {
				a := textAnswer(t, f.survey, func(q int) string {
					if q == 0 {
						return "4"
					}
					return fmt.Sprintf("new answer %d", 2*i+j)
				})
				batch = append(batch, a)
				f.ids = append(f.ids, a.ID)
			}
			if err := as.Enqueue(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		// Both workers' batches must succeed, and none needs a message back:
		// a minute for each (one second ran out on a busy clean-clone run).
		other := worker.New(st, patientConfig, quiet, nil) // another process's worker
		hooked := make(chan struct{})
		sb := worker.NewSegments(&hookSegments{Storage: st, hook: func() {
			defer close(hooked)
			if n, err := other.RunOnce(ctx); n == 0 || err != nil {
				t.Errorf("the other worker's batch: %d messages, %v", n, err)
			}
		}}, quiet)
		other.Behind = sb.Need
		w := worker.New(st, patientConfig, quiet, nil)
		w.Behind = sb.Need
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- sb.Run(runCtx) }()
		// A batch finds the segments behind: the builder starts, and
		// before its first write the other worker takes a batch.
		if n, err := w.RunOnce(ctx); n == 0 || err != nil {
			t.Fatalf("the first batch: %d messages, %v", n, err)
		}
		<-hooked
		drain(t, st, w)
		waitFor(t, "the segments to hold every answer", func() bool {
			n, err := as.Segmented(ctx, f.survey.Tenant, f.survey.Slug)
			return err == nil && n == len(f.ids) && worker.SegmentsWaiting(sb) == 0
		})
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		f.check(t)
	})
}

// builderMetric reads a counter or gauge of the builder by name.
func builderMetric(t *testing.T, sb *worker.Segments, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(sb.Collectors()...)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			m := f.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestSegmentsNeedBounded: Need never blocks, and keeps at most 10,000
// surveys waiting (the others are told again at their next answers).
func TestSegmentsNeedBounded(t *testing.T) {
	sb := worker.NewSegments(backends.Local(t), quiet)
	for i := range 10_001 {
		sb.Need("tenant", fmt.Sprintf("survey-%d", i))
	}
	sb.Need("tenant", "survey-0") // waiting already
	if n := worker.SegmentsWaiting(sb); n != 10_000 {
		t.Fatalf("%d surveys waiting, want 10000", n)
	}
	if n := builderMetric(t, sb, "surveys_segments_needs_dropped_total"); n != 1 {
		t.Fatalf("%v needs dropped, want 1", n)
	}
	if n := builderMetric(t, sb, "surveys_segments_waiting"); n != 10_000 {
		t.Fatalf("the waiting gauge is %v", n)
	}
}

// refuseFirst fails the first reads of one answer blob.
type refuseFirst struct {
	storage.Storage
	container, id string
	left          atomic.Int64
}

func (r *refuseFirst) GetBlob(ctx context.Context, c, name string) (storage.Blob, error) {
	if c == r.container && name == r.id && r.left.Add(-1) >= 0 {
		return storage.Blob{}, errors.New("refused")
	}
	return r.Storage.GetBlob(ctx, c, name)
}

// TestSegmentsNeedRetries: a needed survey whose build fails is tried
// again after a wait, until it is built.
func TestSegmentsNeedRetries(t *testing.T) {
	st := backends.Local(t)
	f := oldSurvey(t, st, oldTenant(t, st), "Flaky", 40)
	ctx := context.Background()
	if _, err := st.PutBlob(ctx, store.SystemContainer, worker.SegmentsMarker, []byte("built"), storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	flaky := &refuseFirst{Storage: st, container: store.AnswersContainer(f.survey.Tenant, f.survey.Slug), id: f.ids[7]}
	flaky.left.Store(3)
	sb := worker.NewSegments(flaky, quiet)
	worker.SetSegmentsRetry(sb, time.Millisecond, 4*time.Millisecond, 5)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sb.Run(runCtx) }()
	sb.Need(f.survey.Tenant, f.survey.Slug)
	as := store.NewSurveyAnswerStore(st)
	waitFor(t, "the flaky survey's segments", func() bool {
		n, err := as.Segmented(ctx, f.survey.Tenant, f.survey.Slug)
		return err == nil && n == len(f.ids)
	})
	// The build is counted just after its last write.
	waitFor(t, "the build counted", func() bool { return builderMetric(t, sb, "surveys_segments_surveys_built_total") == 1 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if msg := f.exact(); msg != "" {
		t.Fatal(msg)
	}
	if n := builderMetric(t, sb, "surveys_segments_errors_total"); n != 3 {
		t.Fatalf("%v errors counted, want 3", n)
	}
	if n := builderMetric(t, sb, "surveys_segments_answers_added_total"); n != 40 {
		t.Fatalf("%v answers added, want 40", n)
	}
	if n := builderMetric(t, sb, "surveys_segments_surveys_built_total"); n != 1 {
		t.Fatalf("%v surveys built, want 1", n)
	}
}
