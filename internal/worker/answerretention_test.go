package worker_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// expiredDiff says how f's survey, whose answers gone were deleted or
// expired, differs from what it should be ("" if not): its summary equals
// a fresh recount (survey.Recount) of the other answers read from their
// blobs, it has deleted len(gone) answers in all, a scan gives the others
// once each in list order, the gone answers' blobs are gone, and no
// segment line holds a gone answer's content; the segments still end
// after the last answer, and the ranks count the others.
func (f *fixture) expiredDiff(gone []string) string {
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(f.st)
	got, _, err := store.NewSurveyAnswersSummaryStore(f.st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		return "summary: " + err.Error()
	}
	rc := survey.NewRecount(f.survey)
	listed, _, err := as.Page(ctx, f.survey.Tenant, f.survey.Slug, 0, 1000)
	if err != nil {
		return err.Error()
	}
	var wantOrder []string
	for _, id := range listed {
		a, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, id)
		if slices.Contains(gone, id) {
			if survey.ErrorCode(err) != survey.ENOTFOUND {
				return fmt.Sprintf("answer %s is gone: its blob is still there (%v)", id, err)
			}
			continue
		}
		if err != nil {
			return err.Error()
		}
		rc.Add(*a)
		wantOrder = append(wantOrder, id)
	}
	want := rc.Summary()
	if !reflect.DeepEqual(&got.SurveyAnswersSummary, want) {
		return fmt.Sprintf("summary has %d answers, a recount of the others %d", got.TotalAnswers, want.TotalAnswers)
	}
	if got.Len() != int64(len(f.ids)) || got.DeletedCount() != int64(len(gone)) {
		return fmt.Sprintf("summary covers %d positions with %d deleted, want %d and %d", got.Len(), got.DeletedCount(), len(f.ids), len(gone))
	}
	var scanned []string
	if err := as.Scan(ctx, f.survey.Tenant, f.survey.Slug, 0, func(_ int, a *survey.SurveyAnswer) error {
		scanned = append(scanned, a.ID)
		return nil
	}); err != nil {
		return err.Error()
	}
	if !slices.Equal(scanned, wantOrder) {
		return fmt.Sprintf("a scan gives %v, want %v", scanned, wantOrder)
	}
	if n, err := as.Segmented(ctx, f.survey.Tenant, f.survey.Slug); err != nil || n != len(f.ids) {
		return fmt.Sprintf("segments end at %d (%v), want %d", n, err, len(f.ids))
	}
	page, err := f.st.ListBlobs(ctx, store.SegmentContainer, storage.ListOptions{Prefix: f.survey.Tenant + "-" + f.survey.Slug + "/"})
	if err != nil {
		return err.Error()
	}
	for _, it := range page.Items {
		b, err := f.st.GetBlob(ctx, store.SegmentContainer, it.Name)
		if err != nil {
			return err.Error()
		}
		for _, line := range bytes.Split(b.Data, []byte("\n")) {
			for _, id := range gone {
				if bytes.Contains(line, []byte(id)) && !bytes.Contains(line, []byte(`"deleted":true`)) {
					return fmt.Sprintf("segment %s still holds answer %s", it.Name, id)
				}
			}
		}
	}
	return f.ranksDiff(want.TotalAnswers)
}

// listedOrder is the IDs of f's answers in list order, and each one's
// time.
func listedOrder(t *testing.T, f *fixture) ([]string, []time.Time) {
	t.Helper()
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(f.st)
	ids, _, err := as.Page(ctx, f.survey.Tenant, f.survey.Slug, 0, 1000)
	if err != nil || len(ids) != len(f.ids) {
		t.Fatalf("listed %d of %d answers: %v", len(ids), len(f.ids), err)
	}
	var at []time.Time
	for _, id := range ids {
		a, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, id)
		if err != nil {
			t.Fatal(err)
		}
		at = append(at, a.CreatedOn)
	}
	return ids, at
}

// TestExpireAnswers: of 9 answers, the second deleted by hand, expiring
// those made before the fifth removes the first four (three counted),
// exactly: the summary equals a recount of the others, scans, blobs and
// segments leave them out, the ranks say 4 (the seventh is deleted too);
// expiring again removes nothing; a new answer is counted as before; a
// deleted answer before the cut leaves Deleted (DeletedCount stays).
func TestExpireAnswers(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		f := newFixture(t, st, newTenant(), 9, 2)
		list(t, f)
		w := worker.New(st, testConfig, quiet, nil)
		drain(t, st, w)
		as := store.NewSurveyAnswerStore(st)
		ids, at := listedOrder(t, f)
		for _, id := range []string{ids[1], ids[6]} {
			if err := as.DeleteAnswer(ctx, f.survey, id); err != nil {
				t.Fatal(err)
			}
		}
		if !at[3].Before(at[4]) {
			t.Fatalf("answers 4 and 5 were made at %v and %v: not in order", at[3], at[4])
		}
		// A file under an answer that expires, and one under an answer
		// kept.
		ups := store.NewUploadStore(st)
		for _, id := range []string{ids[0], ids[5]} {
			if err := ups.Pending(ctx, f.survey.Tenant, f.survey.Slug, id); err != nil {
				t.Fatal(err)
			}
			if _, err := ups.Put(ctx, f.survey.Tenant, f.survey.Slug, store.NewUploadKey(id), strings.NewReader("file of "+id), "text/plain", 1<<20); err != nil {
				t.Fatal(err)
			}
		}
		n, err := as.ExpireAnswers(ctx, f.survey, at[4])
		if err != nil || n != 3 {
			t.Fatalf("expired %d, %v; want 3", n, err)
		}
		for i, want := range map[int]int{0: 0, 5: 1} {
			if files, err := ups.AnswerFiles(ctx, f.survey.Tenant, f.survey.Slug, ids[i]); err != nil || len(files) != want {
				t.Errorf("answer %d has %d files after the expiry (%v), want %d", i, len(files), err, want)
			}
		}
		gone := []string{ids[0], ids[1], ids[2], ids[3], ids[6]}
		if msg := f.expiredDiff(gone); msg != "" {
			t.Fatal(msg)
		}
		sum, _, _ := store.NewSurveyAnswersSummaryStore(st).Get(ctx, f.survey.Tenant, f.survey.Slug)
		if !slices.Equal(sum.Deleted, []string{ids[6]}) {
			t.Errorf("Deleted = %v, want only the deleted answer after the cut", sum.Deleted)
		}
		if n, err := as.ExpireAnswers(ctx, f.survey, at[4]); err != nil || n != 0 {
			t.Fatalf("expired again: %d, %v; want 0", n, err)
		}
		// Deleting an expired answer finds nothing; a later one works.
		if err := as.DeleteAnswer(ctx, f.survey, ids[2]); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("deleting an expired answer = %v, want not found", err)
		}
		if err := as.DeleteAnswer(ctx, f.survey, ids[7]); err != nil {
			t.Fatal(err)
		}
		gone = append(gone, ids[7])
		fresh := answerOf(t, f, 10)
		if err := as.Enqueue(ctx, []survey.SurveyAnswer{fresh}); err != nil {
			t.Fatal(err)
		}
		drain(t, st, w)
		f.ids = append(f.ids, fresh.ID)
		if msg := f.expiredDiff(gone); msg != "" {
			t.Fatal(msg)
		}
		// Everything expires: the summary counts nothing, and the last
		// segment stays for the next answers.
		n, err = as.ExpireAnswers(ctx, f.survey, time.Now().Add(time.Hour))
		if err != nil || n != 4 {
			t.Fatalf("expired all: %d, %v; want 4", n, err)
		}
		if msg := f.expiredDiff(allOf(t, f)); msg != "" {
			t.Fatal(msg)
		}
		all := allOf(t, f)
		later := answerOf(t, f, 11)
		if err := as.Enqueue(ctx, []survey.SurveyAnswer{later}); err != nil {
			t.Fatal(err)
		}
		drain(t, st, w)
		f.ids = append(f.ids, later.ID)
		if msg := f.expiredDiff(all); msg != "" {
			t.Fatal(msg)
		}
	})
}

// allOf is the IDs of f's answers in list order.
func allOf(t *testing.T, f *fixture) []string {
	t.Helper()
	ids, _, err := store.NewSurveyAnswerStore(f.st).Page(context.Background(), f.survey.Tenant, f.survey.Slug, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestExpireAnswersCrashBetweenEveryCall expires the first three of 7
// answers (one deleted by hand before), failing before and after each
// storage call in turn; the next pass (a restarted worker) finishes it,
// exactly: the summary equals a recount of the others, no blob or
// segment line of the expired ones is left, and the ranks say 3.
func TestExpireAnswersCrashBetweenEveryCall(t *testing.T) {
	t.Parallel() // its own embedded stores
	ctx := context.Background()
	type setup struct {
		f      *fixture
		ids    []string
		before time.Time
	}
	fixture := func(st storage.Storage) setup {
		f := newFixture(t, st, newTenant(), 7, 2)
		list(t, f)
		drainQuiet(st, worker.New(st, recoverConfig, quiet, nil))
		ids, at := listedOrder(t, f)
		if err := store.NewSurveyAnswerStore(st).DeleteAnswer(ctx, f.survey, ids[1]); err != nil {
			t.Fatal(err)
		}
		if !at[2].Before(at[3]) {
			t.Fatalf("answers 3 and 4 were made at %v and %v: not in order", at[2], at[3])
		}
		return setup{f, ids, at[3]}
	}
	clean := faulty.New(backends.Local(t))
	s := fixture(clean.Unwrap())
	if n, err := store.NewSurveyAnswerStore(clean).ExpireAnswers(ctx, s.f.survey, s.before); err != nil || n != 2 {
		t.Fatalf("expired %d, %v; want 2", n, err)
	}
	if msg := s.f.expiredDiff(s.ids[:3]); msg != "" {
		t.Fatal(msg)
	}
	total := clean.Calls()
	t.Logf("expiring 2 answers of 6 makes %d storage calls", total)

	everyCrash(t, total, func(n int64, after bool) []string {
		st := backends.Local(t)
		sx := fixture(st)
		crashing := faulty.At(st, n, after)
		_, _ = store.NewSurveyAnswerStore(crashing).ExpireAnswers(ctx, sx.f.survey, sx.before)
		// The next pass.
		if _, err := store.NewSurveyAnswerStore(st).ExpireAnswers(ctx, sx.f.survey, sx.before); err != nil {
			return []string{"the next pass: " + err.Error()}
		}
		if msg := sx.f.expiredDiff(sx.ids[:3]); msg != "" {
			return []string{msg}
		}
		return nil
	})
}

// TestAnswerRetention: the pass deletes the answers past each survey's
// rule (its own, or its tenant's default), keeps the young ones and those
// of a survey that keeps its answers, notes each survey's count in its
// tenant's audit log, and an idle pass makes a few storage calls only.
func TestAnswerRetention(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newFixture(t, st, newTenant(), 6, 2)
	drain(t, st, worker.New(st, testConfig, quiet, nil))
	ids, at := listedOrder(t, f)
	tenants := store.NewTenantStore(st)
	if err := tenants.Create(ctx, &survey.Tenant{Key: f.survey.Tenant, Name: "Retention", Plan: survey.Standard, RetainDays: 30}); err != nil {
		t.Fatal(err)
	}
	r := worker.NewAnswerRetention(st, worker.AnswerRetentionConfig{}, quiet)
	// 30 days after the fourth answer: the first four are older than the
	// tenant's 30 days... but the survey keeps its answers.
	r.SetClock(func() time.Time { return at[3].Add(30*24*time.Hour + time.Nanosecond) })
	if err := store.NewSurveyStore(st).SetPrivacy(ctx, f.survey.Tenant, f.survey.Slug, survey.KeepAnswers, false); err != nil {
		t.Fatal(err)
	}
	if n, err := r.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("a survey that keeps its answers lost %d (%v)", n, err)
	}
	// Its tenant's default.
	if err := store.NewSurveyStore(st).SetPrivacy(ctx, f.survey.Tenant, f.survey.Slug, 0, false); err != nil {
		t.Fatal(err)
	}
	if n, err := r.RunOnce(ctx); err != nil || n != 4 {
		t.Fatalf("the tenant's 30 days removed %d (%v), want 4", n, err)
	}
	if msg := f.expiredDiff(ids[:4]); msg != "" {
		t.Fatal(msg)
	}
	events, _, err := store.NewAuditStore(st).List(ctx, f.survey.Tenant, survey.AuditFilter{}, "", 10)
	if err != nil || len(events) != 1 || events[0].Action != survey.AuditAnswersExpired || events[0].Target != f.survey.Slug ||
		!strings.HasPrefix(events[0].Detail, "4 answers older than 30 days") || events[0].Actor != survey.AuditSystem {
		t.Fatalf("audit log: %+v, %v; want one event of 4 answers expired", events, err)
	}
	// The survey's own rule comes first: 31 days keeps the rest.
	if err := store.NewSurveyStore(st).SetPrivacy(ctx, f.survey.Tenant, f.survey.Slug, 31, false); err != nil {
		t.Fatal(err)
	}
	r.SetClock(func() time.Time { return at[5].Add(30*24*time.Hour + time.Nanosecond) })
	if n, err := r.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("the survey's 31 days removed %d (%v), want 0", n, err)
	}
	// An idle pass: a few calls for the tenant and the survey, not a
	// read of every answer.
	counted := counting.New(st)
	idle := worker.NewAnswerRetention(counted, worker.AnswerRetentionConfig{}, quiet)
	if n, err := idle.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("idle pass removed %d (%v)", n, err)
	}
	calls := counted.Total("")
	var ops []string
	for _, c := range counted.Snapshot() {
		if c.Calls > 0 {
			ops = append(ops, fmt.Sprintf("%s×%d", c.Op, c.Calls))
		}
	}
	t.Logf("an idle pass over 1 tenant and 1 survey with a rule: %d storage calls (%s)", calls, strings.Join(ops, ", "))
	if calls > 10 {
		t.Errorf("an idle pass made %d storage calls, want 10 at most", calls)
	}
}

// mergeFirst is a storage whose first write of a summary is preceded by
// before (a worker merging a batch meanwhile).
type mergeFirst struct {
	storage.Storage
	before func()
	done   bool
}

func (m *mergeFirst) PutBlob(ctx context.Context, container, name string, data []byte, o storage.PutOptions) (string, error) {
	if container == store.SummariesContainer && !m.done {
		m.done = true
		m.before()
	}
	return m.Storage.PutBlob(ctx, container, name, data, o)
}

// TestExpireAnswersBesideTheWorker: a batch merged between the expiry's
// read of the summary and its write makes the write fail (If-Match); the
// expiry reads again and removes the old answers once, and the new answer
// is counted once.
func TestExpireAnswersBesideTheWorker(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newFixture(t, st, newTenant(), 5, 2)
	w := worker.New(st, testConfig, quiet, nil)
	drain(t, st, w)
	ids, at := listedOrder(t, f)
	fresh := answerOf(t, f, 9)
	racing := &mergeFirst{Storage: st, before: func() {
		if err := store.NewSurveyAnswerStore(st).Enqueue(ctx, []survey.SurveyAnswer{fresh}); err != nil {
			t.Fatal(err)
		}
		drain(t, st, w)
	}}
	if !at[1].Before(at[2]) {
		t.Fatalf("answers 2 and 3 were made at %v and %v: not in order", at[1], at[2])
	}
	n, err := store.NewSurveyAnswerStore(racing).ExpireAnswers(ctx, f.survey, at[2])
	if err != nil || n != 2 || !racing.done {
		t.Fatalf("expired %d, %v (a merge meanwhile: %v); want 2", n, err, racing.done)
	}
	f.ids = append(f.ids, fresh.ID)
	if msg := f.expiredDiff(ids[:2]); msg != "" {
		t.Fatal(msg)
	}
}
