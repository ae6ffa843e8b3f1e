package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// newListedFixture is newFixture with the survey listed on the home page.
func newListedFixture(t *testing.T, st storage.Storage, answers, perMessage int) *fixture {
	t.Helper()
	ctx := context.Background()
	f := newFixture(t, st, newTenant(), answers, perMessage)
	e, err := st.GetEntity(ctx, store.SurveysTable, f.survey.Tenant, f.survey.Tenant+"_"+f.survey.Slug)
	if err != nil {
		t.Fatal(err)
	}
	e.Properties["Listed"] = true
	if _, err := st.UpdateEntity(ctx, store.SurveysTable, e, e.ETag); err != nil {
		t.Fatal(err)
	}
	// Publishing again syncs the ranks: the survey is on the home page, at 0.
	if _, err := store.NewSurveyStore(st).SetState(ctx, f.survey.Tenant, f.survey.Slug, survey.Published); err != nil {
		t.Fatal(err)
	}
	f.survey.Listed = true
	return f
}

// rankDiff says how the ranks differ from the answers stored ("" if not):
// one row per list, on the home page and the tenant's, at the true count.
func (f *fixture) rankDiff(final bool) string {
	ctx := context.Background()
	tenant, slug := f.survey.Tenant, f.survey.Slug
	home, err := store.NewRankingStore(f.st).Home(ctx, 100)
	if err != nil {
		return err.Error()
	}
	seen := 0
	var count int64
	for _, r := range home.MostAnswered {
		if r.Tenant == tenant && r.Slug == slug {
			seen++
			count = r.Answers
		}
	}
	if seen != 1 {
		return fmt.Sprintf("the home page shows the survey %d times", seen)
	}
	if !final {
		return ""
	}
	if count != int64(len(f.ids)) {
		return fmt.Sprintf("the home page shows %d answers, want %d", count, len(f.ids))
	}
	// The raw table: exactly one row per list.
	rows := map[byte]int{}
	q := storage.TableQuery{}
	for {
		page, err := f.st.QueryTable(ctx, store.PublicRanksTable, q)
		if err != nil {
			return err.Error()
		}
		for _, e := range page.Entities {
			if e.RowKey == tenant+"_"+slug {
				rows[e.PartitionKey[0]]++
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	if rows['a'] != 1 || rows['n'] != 1 || len(rows) != 2 {
		return fmt.Sprintf("the home table holds rows %v, want one per list", rows)
	}
	tr, err := store.NewRankingStore(f.st).Tenant(ctx, tenant, 10)
	if err != nil {
		return err.Error()
	}
	if len(tr.MostAnswered) != 1 || tr.MostAnswered[0].Answers != int64(len(f.ids)) || tr.Counts[slug].Answers != int64(len(f.ids)) {
		return fmt.Sprintf("the tenant's lists are %+v", tr)
	}
	return ""
}

// recoverConfig is the restarted worker's: the crashed one's messages come
// back after testConfig's short visibility, but the new one holds them
// long enough, and tries often enough, that a slow machine (-race, many
// cases at once) does not time its batches out into the poison queue.
var recoverConfig = worker.Config{Batch: 2, Visibility: 20 * time.Second, MaxAttempts: 50, MaxIdle: 50 * time.Millisecond}

// TestRanksCrashBetweenEveryCall kills the answers worker before and after
// each of its storage calls, summaries and rank moves alike. Right after
// the crash the home page shows the survey once; after the next pass (a
// new process drains the queue), its rows are exact: one per list, at the
// summary's count.
func TestRanksCrashBetweenEveryCall(t *testing.T) {
	t.Parallel() // its own embedded stores
	clean := faulty.New(backends.Local(t))
	f := newListedFixture(t, clean.Unwrap(), 7, 2)
	drain(t, clean, worker.New(clean, patientConfig, quiet, nil))
	if msg := f.rankDiff(true); msg != "" {
		t.Fatal(msg)
	}
	total := clean.Calls()
	t.Logf("a clean run of 7 answers in 4 messages, ranks included, makes %d storage calls", total)

	everyCrash(t, total, func(n int64, after bool) []string {
		st := backends.Local(t)
		fx := newListedFixture(t, st, 7, 2)
		crashing := faulty.At(st, n, after)
		// crashConfig, as in TestCrashBetweenEveryCall: on a loaded
		// machine the 1 s visibility can run out several times
		// before the crash, and poisoning would hide what we test.
		w := worker.New(crashing, crashConfig, quiet, nil)
		for i := 0; i < 50 && crashing.Calls() < n+5; i++ {
			_, _ = w.RunOnce(context.Background())
		}
		var found []string
		if msg := fx.rankDiff(false); msg != "" {
			found = append(found, "before the next pass: "+msg)
		}
		drainQuiet(st, worker.New(st, recoverConfig, quiet, nil))
		if msg := fx.rankDiff(true); msg != "" {
			found = append(found, "after the next pass: "+msg)
		}
		if msg := fx.diff(); msg != "" {
			found = append(found, msg)
		}
		return found
	})
}

// TestRanksBothBackends files answers of a listed survey on each backend
// and checks its ranks.
func TestRanksBothBackends(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		f := newListedFixture(t, st, 9, 2)
		drain(t, st, worker.New(st, testConfig, quiet, nil))
		if msg := f.rankDiff(true); msg != "" {
			t.Fatal(msg)
		}
	})
}
