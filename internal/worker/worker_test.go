package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestMain runs Azurite (the Azure backend) and PostgreSQL (the transfer
// worker's target).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Run(func() int { return azuritetest.Run(m) }))
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// testConfig redelivers quickly, so that a restarted worker finds the
// messages a crashed one held.
var testConfig = worker.Config{Batch: 2, Visibility: time.Second, MaxAttempts: 5, MaxIdle: 50 * time.Millisecond}

// patientConfig is testConfig with a minute's visibility, for tests whose
// batches are large (long answers, many forms) and that need no message
// to come back: a batch bounded by one second of a busy machine's time
// may never finish, and poison its answers after MaxAttempts.
var patientConfig = func() worker.Config {
	c := testConfig
	c.Visibility = time.Minute
	return c
}()

// crashConfig is testConfig without the poison queue's limit: on a loaded
// machine (-race, many fixtures at once) a batch can outlast the short
// visibility timeout several times, and a message poisoned that way would
// hide what the crash tests look for.
var crashConfig = worker.Config{Batch: 2, Visibility: time.Second, MaxAttempts: 1000, MaxIdle: 50 * time.Millisecond}

// fixture is a survey with answers stored and enqueued.
type fixture struct {
	st     storage.Storage
	survey *survey.Survey
	ids    []string
	// rows are the rows each answer gives in a PostgreSQL copy.
	rows []int64
}

// sqlRows is the rows the first n answers give in a PostgreSQL copy.
func (f *fixture) sqlRows(n int) int64 {
	var sum int64
	for _, r := range f.rows[:n] {
		sum += r
	}
	return sum
}

// newFixture makes a survey and enqueues answers to it, perMessage to a
// message. After its first four questions the survey has one question of
// every kind (each kind's example), answered with the kind's example
// values. The answers at the places long are long: 13 text answers of
// 4,000 characters (the survey then has 12 more text questions), too
// large for a queue message, so they are spilled to blobs.
func newFixture(t *testing.T, st storage.Storage, tenant string, answers, perMessage int, long ...int) *fixture {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	s := &survey.Survey{Tenant: tenant, Title: "Worker test", State: survey.Published, HiddenFields: []string{"source", "panel_id"}, Questions: []survey.Question{
		{Text: "Rate", Type: survey.FiveStars},
		{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
		{Text: "Say", Type: survey.SimpleText},
		{Text: "Rate", Type: survey.FiveStars},
	}}
	var kindForms []func(*rand.Rand) survey.Form
	for _, k := range survey.Kinds() {
		q, form := surveytest.Example(k)
		s.Questions = append(s.Questions, surveytest.OfTenant(q, tenant))
		kindForms = append(kindForms, form)
	}
	kinds := len(kindForms)
	if len(long) > 0 {
		for i := range 12 {
			s.Questions = append(s.Questions, survey.Question{Text: fmt.Sprintf("Say more (%d)", i), Type: survey.SimpleText})
		}
	}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, survey: s}
	as := store.NewSurveyAnswerStore(st)
	var batch []survey.SurveyAnswer
	for i := 0; i < answers; i++ {
		values := map[string]string{
			s.Questions[0].ID: fmt.Sprint(i%5 + 1),
			s.Questions[1].ID: []string{"Red", "Green", "Blue"}[i%3],
			s.Questions[2].ID: fmt.Sprintf("answer number %d is great", i%4),
			s.Questions[3].ID: fmt.Sprint(5 - i%5),
		}
		for _, q := range s.Questions[4+kinds:] {
			values[q.ID] = fmt.Sprintf("more %d", i)
		}
		if slices.Contains(long, i) {
			for _, q := range s.Questions {
				if q.Type == survey.SimpleText {
					values[q.ID] = longText(i)
				}
			}
		}
		forms := surveytest.Forms(values)
		r := rand.New(rand.NewPCG(uint64(i), 1))
		for j, form := range kindForms {
			forms[s.Questions[4+j].ID] = form(r)
		}
		// Most answers carry hidden values (counted in the summary as
		// exactly as the questions).
		var hidden map[string]string
		if i%4 != 3 {
			hidden = map[string]string{"source": []string{"newsletter", "web", "<partner> & co"}[i%3], "panel_id": fmt.Sprint(i)}
		}
		a, err := survey.NewAnswerWith(s, forms, hidden)
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		f.ids = append(f.ids, a.ID)
		var rows int64
		for _, qa := range a.Answers {
			k, _ := survey.KindOf(qa.Type)
			q, _ := s.Question(qa.QuestionID)
			rows += int64(len(k.SQLRows(q, qa)))
		}
		rows += int64(len(a.Hidden)) // a row per hidden value (postgres.Transfer)
		f.rows = append(f.rows, rows)
		batch = append(batch, a)
		if len(batch) == perMessage || i == answers-1 {
			if err := as.Enqueue(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = nil
		}
	}
	return f
}

// longText is an answer of survey.MaxTextAnswerLength characters, few
// distinct words (so that summaries keep every word), with characters
// JSON escapes or stores in several bytes.
func longText(seed int) string {
	words := []string{"fast", "<slow>", "café", "naïve & kind", "reliable", "\"quoted\"", "support"}
	var b strings.Builder
	for i := seed; utf8.RuneCountInString(b.String()) < survey.MaxTextAnswerLength; i++ {
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
	}
	return string([]rune(b.String())[:survey.MaxTextAnswerLength-1]) + "!"
}

// recount summarises the stored answer blobs from scratch.
func (f *fixture) recount(t *testing.T) *survey.SurveyAnswersSummary {
	t.Helper()
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(f.st)
	sum := survey.NewSummary(f.survey)
	err := as.ListAll(ctx, f.survey.Tenant, f.survey.Slug, func(id string) error {
		a, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, id)
		if err != nil {
			return err
		}
		sum.Add(*a)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// check asserts the stored summary equals a recount and the answer list
// holds every answer once.
func (f *fixture) check(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	got, _, err := store.NewSurveyAnswersSummaryStore(f.st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		t.Fatalf("summary: %v", err)
	}
	want := f.recount(t)
	if want.TotalAnswers != int64(len(f.ids)) {
		t.Fatalf("recount has %d answers, stored %d", want.TotalAnswers, len(f.ids))
	}
	if !reflect.DeepEqual(&got.SurveyAnswersSummary, want) {
		t.Fatalf("summary differs from a recount:\n got %+v\nwant %+v", got.SurveyAnswersSummary, *want)
	}
	ids, total, err := store.NewSurveyAnswerStore(f.st).Page(ctx, f.survey.Tenant, f.survey.Slug, 0, 10*len(f.ids))
	if err != nil || total != len(f.ids) {
		t.Fatalf("answer list has %d entries (%v), want %d", total, err, len(f.ids))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("answer %s is listed twice", id)
		}
		seen[id] = true
	}
	if msg := f.segmentsDiffer(ids); msg != "" {
		t.Fatal(msg)
	}
}

// drain runs w until the answers queue is empty.
func drain(t *testing.T, st storage.Storage, w *worker.Worker) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		n, err := w.RunOnce(ctx)
		if err != nil {
			t.Logf("RunOnce: %v", err)
		}
		if n == 0 {
			left, err := st.ApproximateCount(ctx, store.AnswersQueue)
			if err != nil {
				t.Fatal(err)
			}
			if left == 0 {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Fatal("the queue did not drain")
}

func TestSummaries(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		f := newFixture(t, st, newTenant(), 23, 3)
		m := worker.NewMetrics()
		drain(t, st, worker.New(st, testConfig, quiet, m))
		f.check(t)
	})
}

// TestRedelivery delivers every message twice, as a queue may.
func TestRedelivery(t *testing.T) {
	st := backends.Local(t)
	f := newFixture(t, st, newTenant(), 10, 2)
	ctx := context.Background()
	// Every message goes on the queue twice more.
	var bodies [][]byte
	for {
		msgs, err := st.Dequeue(ctx, store.AnswersQueue, 32, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			bodies = append(bodies, m.Data)
			_ = st.DeleteMessage(ctx, store.AnswersQueue, m.ID, m.PopReceipt)
		}
	}
	for i := 0; i < 2; i++ {
		for _, b := range bodies {
			if _, err := st.Enqueue(ctx, store.AnswersQueue, b, storage.EnqueueOptions{TTL: -1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	drain(t, st, worker.New(st, testConfig, quiet, nil))
	f.check(t)
}

// TestCrashBetweenEveryCall kills the worker before and after each of its
// storage calls in turn, restarts it, and checks that the summary equals a
// recount from the answer blobs: nothing lost, nothing counted twice.
func TestCrashBetweenEveryCall(t *testing.T) {
	t.Parallel() // its own embedded stores
	// A clean run tells how many calls the worker makes.
	// Answers 1 and 4 are spilled to blobs: too large for a message.
	clean := faulty.New(backends.Local(t))
	f := newFixture(t, clean.Unwrap(), newTenant(), 7, 2, 1, 4)
	if n := spills(t, clean.Unwrap()); n != 2 {
		t.Fatalf("%d spilled answers, want 2", n)
	}
	drain(t, clean, worker.New(clean, patientConfig, quiet, nil))
	f.check(t)
	if n := spills(t, clean.Unwrap()); n != 0 {
		t.Fatalf("%d spilled answers left after the drain", n)
	}
	total := clean.Calls()
	if total < 10 {
		t.Fatalf("a clean run made only %d calls", total)
	}
	t.Logf("a clean run of 7 answers (2 spilled) in 4 messages makes %d storage calls", total)

	everyCrash(t, total, func(n int64, after bool) []string {
		st := backends.Local(t)
		fx := newFixture(t, st, newTenant(), 7, 2, 1, 4)
		crashing := faulty.At(st, n, after)
		// The first process runs until it "dies".
		w := worker.New(crashing, crashConfig, quiet, nil)
		for i := 0; i < 50 && crashing.Calls() < n+5; i++ {
			_, _ = w.RunOnce(context.Background())
		}
		// A new process, with nothing in memory, finishes the work.
		drainQuiet(st, worker.New(st, recoverConfig, quiet, nil))
		if msg := fx.diff(); msg != "" {
			poisoned, _ := st.ApproximateCount(context.Background(), worker.PoisonQueue)
			return []string{fmt.Sprintf("%s (%d poisoned)", msg, poisoned)}
		}
		return nil
	})
}

// everyCrash runs crash for each storage call 1…total of a clean run,
// failing before (after false) and after it, at once; crash says what it
// found wrong. Each failure is reported with the call it crashed at.
func everyCrash(t *testing.T, total int64, crash func(n int64, after bool) []string) {
	t.Helper()
	var wg sync.WaitGroup
	results := make(chan string, 4*total)
	for n := int64(1); n <= total; n++ {
		for _, after := range []bool{false, true} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, msg := range crash(n, after) {
					results <- fmt.Sprintf("crash at call %d (after=%v): %s", n, after, msg)
				}
			}()
		}
	}
	wg.Wait()
	close(results)
	for r := range results {
		t.Error(r)
	}
}

// spills counts the spilled answers waiting in st.
func spills(t *testing.T, st storage.Storage) int {
	t.Helper()
	page, err := st.ListBlobs(context.Background(), store.SpillContainer, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}

// spillsOf counts the spilled answers left of the answers ids (a spill is
// named by its answer's ID and a suffix).
func spillsOf(t *testing.T, st storage.Storage, ids []string) int {
	t.Helper()
	page, err := st.ListBlobs(context.Background(), store.SpillContainer, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range page.Items {
		for _, id := range ids {
			if strings.HasPrefix(it.Name, id+".") {
				n++
				break
			}
		}
	}
	return n
}

func drainQuiet(st storage.Storage, w *worker.Worker) {
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if n, _ := w.RunOnce(ctx); n == 0 {
			std, err1 := st.ApproximateCount(ctx, store.AnswersQueue)
			prem, err2 := st.ApproximateCount(ctx, store.PremiumAnswersQueue)
			if err1 == nil && err2 == nil && std+prem == 0 {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// diff says how the summary and list differ from a recount ("" if not).
func (f *fixture) diff() string {
	ctx := context.Background()
	got, _, err := store.NewSurveyAnswersSummaryStore(f.st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		return "summary: " + err.Error()
	}
	as := store.NewSurveyAnswerStore(f.st)
	want := survey.NewSummary(f.survey)
	for _, id := range f.ids {
		a, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, id)
		if err != nil {
			return err.Error()
		}
		want.Add(*a)
	}
	if !reflect.DeepEqual(&got.SurveyAnswersSummary, want) {
		return fmt.Sprintf("summary has %d answers, recount %d", got.TotalAnswers, want.TotalAnswers)
	}
	ids, total, err := as.Page(ctx, f.survey.Tenant, f.survey.Slug, 0, 1000)
	if err != nil || total != len(f.ids) || len(ids) != len(f.ids) {
		return fmt.Sprintf("answer list has %d entries, want %d (%v)", total, len(f.ids), err)
	}
	return f.segmentsDiffer(ids)
}

// segmentsDiffer says how the survey's segments differ from its answer
// list ("" if not): every listed answer, once, at its position, and whole.
func (f *fixture) segmentsDiffer(ids []string) string {
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(f.st)
	n, err := as.Segmented(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil || n != len(ids) {
		return fmt.Sprintf("segments hold %d answers, want %d (%v)", n, len(ids), err)
	}
	at := 0
	err = as.Scan(ctx, f.survey.Tenant, f.survey.Slug, 0, func(pos int, a *survey.SurveyAnswer) error {
		if pos != at || pos >= len(ids) || a.ID != ids[pos] {
			return fmt.Errorf("segment position %d holds answer %s, the list %v", pos, a.ID, ids[min(pos, len(ids)-1)])
		}
		blob, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, a.ID)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(blob, a) {
			return fmt.Errorf("segment position %d differs from its blob:\n%+v\n%+v", pos, a, blob)
		}
		at++
		return nil
	})
	if err != nil {
		return err.Error()
	}
	if at != len(ids) {
		return fmt.Sprintf("a scan gave %d answers, want %d", at, len(ids))
	}
	return ""
}

// TestWorkersTogether runs several workers on one survey on Azurite: ETags
// keep every answer counted once. Their batches get a minute
// (patientConfig): on a busy machine a batch that outlasted one second
// five times was poisoned, and its answers missed from the recount.
func TestWorkersTogether(t *testing.T) {
	st := backends.Azure(t)
	f := newFixture(t, st, newTenant(), 60, 2)
	m := worker.NewMetrics()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			drainQuiet(st, worker.New(st, patientConfig, quiet, m))
		}()
	}
	wg.Wait()
	f.check(t)
}

// TestPoison sends undecodable and always-failing messages to the poison
// queue with their reason, without stalling the others.
func TestPoison(t *testing.T) {
	// Not in parallel with the crash tests: its batches have a second
	// (testConfig), and on a busy machine one ran out of it, so that a
	// message failed for its deadline rather than for the refused summary.
	st := backends.Local(t)
	good := newFixture(t, st, newTenant(), 5, 5)
	ctx := context.Background()
	if _, err := st.Enqueue(ctx, store.AnswersQueue, []byte("not json"), storage.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	// Answers of a survey whose summary can never be written.
	broken := &survey.Survey{Tenant: "broken", Title: "Survey", State: survey.Published,
		Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}}
	if err := store.NewSurveyStore(st).Create(ctx, broken); err != nil {
		t.Fatal(err)
	}
	bad := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: "broken", Slug: broken.Slug}
	if err := store.NewSurveyAnswerStore(st).Enqueue(ctx, []survey.SurveyAnswer{bad}); err != nil {
		t.Fatal(err)
	}
	failing := &failSummary{Storage: st, blob: "broken-" + broken.Slug}
	drainQuiet(st, worker.New(failing, testConfig, quiet, nil))
	good.check(t)

	var reasons []string
	for {
		msgs, err := st.Dequeue(ctx, worker.PoisonQueue, 32, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			var p worker.PoisonMessage
			if err := json.Unmarshal(m.Data, &p); err != nil {
				t.Fatal(err)
			}
			reasons = append(reasons, p.Reason)
		}
	}
	joined := strings.Join(reasons, "\n")
	if len(reasons) != 2 || !strings.Contains(joined, "cannot decode") || !strings.Contains(joined, "summary refused") {
		t.Fatalf("poison reasons = %q", reasons)
	}
	if n, _ := st.ApproximateCount(ctx, store.AnswersQueue); n != 0 {
		t.Errorf("%d messages left on the answers queue", n)
	}
}

// failSummary refuses to write one summary blob.
type failSummary struct {
	storage.Storage
	blob string
}

func (f *failSummary) PutBlob(ctx context.Context, c, name string, data []byte, o storage.PutOptions) (string, error) {
	if c == store.SummariesContainer && name == f.blob {
		return "", errors.New("summary refused")
	}
	return f.Storage.PutBlob(ctx, c, name, data, o)
}

func newTenant() string { return fmt.Sprintf("w%d", time.Now().UnixNano()%1_000_000_000_000) }
