package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// publish creates a published survey, listed or not.
func publish(t *testing.T, ss *store.SurveyStore, tenant, title string, listed bool, closeOn time.Time) *survey.Survey {
	t.Helper()
	s := sample(tenant, title)
	s.State, s.Listed, s.CloseOn = survey.Published, listed, closeOn
	if err := ss.Create(context.Background(), s); err != nil {
		t.Fatalf("Create %s: %v", title, err)
	}
	return s
}

// slugs lists the slugs of rs that belong to tenants.
func slugs(rs []store.RankedSurvey, tenants ...string) string {
	var out []string
	for _, r := range rs {
		for _, t := range tenants {
			if r.Tenant == t {
				out = append(out, r.Tenant+"/"+r.Slug)
			}
		}
	}
	return strings.Join(out, ",")
}

// homeRows returns, per home list prefix, the rows stored for a survey:
// the raw table, duplicates and all.
func homeRows(t *testing.T, st storage.Storage, tenant, slug string) map[string][]storage.Entity {
	t.Helper()
	out := map[string][]storage.Entity{}
	q := storage.TableQuery{}
	for {
		page, err := st.QueryTable(context.Background(), store.PublicRanksTable, q)
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		for _, e := range page.Entities {
			if e.RowKey == tenant+"_"+slug {
				out[e.PartitionKey[:1]] = append(out[e.PartitionKey[:1]], e)
			}
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// tenantRows returns the tenant's list rows (a_ and v_) of a survey.
func tenantRows(t *testing.T, st storage.Storage, tenant, slug string) map[string][]storage.Entity {
	t.Helper()
	page, err := st.QueryPartition(context.Background(), store.RanksTable, tenant, storage.Query{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]storage.Entity{}
	for _, e := range page.Entities {
		if e.String("Slug") == slug && !strings.HasPrefix(e.RowKey, "s_") {
			out[e.RowKey[:1]] = append(out[e.RowKey[:1]], e)
		}
	}
	return out
}

func TestTenantRanks(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss, rs := store.NewSurveyStore(st), store.NewRankingStore(st)
		other := newTenant()
		a := publish(t, ss, tenant, "Alpha", true, time.Time{})
		b := publish(t, ss, tenant, "Beta", false, time.Time{})
		c := publish(t, ss, tenant, "Gamma", true, time.Time{})
		draft := sample(tenant, "Draft")
		if err := ss.Create(ctx, draft); err != nil {
			t.Fatal(err)
		}
		theirs := publish(t, ss, other, "Theirs", true, time.Time{})
		for _, step := range []struct {
			s     *survey.Survey
			total int64
		}{{a, 3}, {b, 10}, {c, 1}, {a, 5}, {c, 12}, {a, 4 /* stale: ignored */}, {theirs, 100}} {
			if err := rs.SetAnswers(ctx, step.s.Tenant, step.s.Slug, step.total); err != nil {
				t.Fatal(err)
			}
		}
		if err := rs.AddViews(ctx, tenant, a.Slug, map[string]store.ViewCounts{"m1": {N: 40}, "m2": {N: 2}}); err != nil {
			t.Fatal(err)
		}
		// m2 again (a redelivery) and m3, new.
		if err := rs.AddViews(ctx, tenant, a.Slug, map[string]store.ViewCounts{"m2": {N: 2}, "m3": {N: 8}}); err != nil {
			t.Fatal(err)
		}
		if err := rs.AddViews(ctx, tenant, b.Slug, map[string]store.ViewCounts{"m1": {N: 20}}); err != nil {
			t.Fatal(err)
		}
		// The funnel: pages left, counted once per message like views.
		if err := rs.AddViews(ctx, tenant, a.Slug, map[string]store.ViewCounts{"f1": {Pages: []int64{5, 3}}, "m3": {N: 8, Pages: []int64{9}}}); err != nil {
			t.Fatal(err)
		}
		if err := rs.AddViews(ctx, tenant, a.Slug, map[string]store.ViewCounts{"f1": {Pages: []int64{5, 3}}, "f2": {Pages: []int64{1}}}); err != nil {
			t.Fatal(err)
		}
		if views, pages, err := rs.Funnel(ctx, tenant, a.Slug); err != nil || views != 50 || !slices.Equal(pages, []int64{6, 3}) {
			t.Fatalf("funnel = %d views, pages %v, %v; want 50, [6 3]", views, pages, err)
		}
		got, err := rs.Tenant(ctx, tenant, 5)
		if err != nil {
			t.Fatal(err)
		}
		if s := slugs(got.MostAnswered, tenant); s != tenant+"/"+c.Slug+","+tenant+"/"+b.Slug+","+tenant+"/"+a.Slug {
			t.Errorf("most answered = %s", s)
		}
		if got.MostAnswered[0].Answers != 12 {
			t.Errorf("top count = %d", got.MostAnswered[0].Answers)
		}
		if s := slugs(got.MostViewed[:2], tenant); s != tenant+"/"+a.Slug+","+tenant+"/"+b.Slug {
			t.Errorf("most viewed = %s", s)
		}
		if c := got.Counts[a.Slug]; c.Answers != 5 || c.Views != 50 {
			t.Errorf("counts of %s = %+v, want 5 answers, 50 views (m2 once)", a.Slug, c)
		}
		// Isolation: neither tenant's lists hold the other's surveys.
		for _, r := range append(got.MostAnswered, got.MostViewed...) {
			if r.Tenant != tenant || r.Slug == theirs.Slug {
				t.Errorf("%s's lists hold %s/%s", tenant, r.Tenant, r.Slug)
			}
		}
		if _, ok := got.Counts[draft.Slug]; !ok || len(got.MostAnswered) != 3 {
			t.Errorf("a draft is counted but on no list: %+v", got)
		}
		theirLists, err := rs.Tenant(ctx, other, 5)
		if err != nil {
			t.Fatal(err)
		}
		if s := slugs(theirLists.MostAnswered, other, tenant); s != other+"/"+theirs.Slug {
			t.Errorf("%s's most answered = %s", other, s)
		}
		// One row per list per survey, always.
		for _, s := range []*survey.Survey{a, b, c} {
			rows := tenantRows(t, st, tenant, s.Slug)
			if len(rows["a"]) != 1 || len(rows["v"]) != 1 {
				t.Errorf("%s has rows %v", s.Slug, rows)
			}
		}

		// Home page: listed and published only, most answered first.
		home, err := rs.Home(ctx, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if s := slugs(home.MostAnswered, tenant, other); s != other+"/"+theirs.Slug+","+tenant+"/"+c.Slug+","+tenant+"/"+a.Slug {
			t.Errorf("home most answered = %s", s)
		}

		// Closing keeps the tenant's rows, and takes the survey off the home page.
		if _, err := ss.SetState(ctx, tenant, c.Slug, survey.Closed); err != nil {
			t.Fatal(err)
		}
		if rows := homeRows(t, st, tenant, c.Slug); len(rows) != 0 {
			t.Errorf("closed survey has home rows %v", rows)
		}
		if rows := tenantRows(t, st, tenant, c.Slug); len(rows["a"]) != 1 || rows["a"][0].String("State") != "closed" {
			t.Errorf("closed survey's tenant rows %v", rows)
		}
		// Delete removes every row.
		if err := ss.Delete(ctx, tenant, a.Slug); err != nil {
			t.Fatal(err)
		}
		if rows := homeRows(t, st, tenant, a.Slug); len(rows) != 0 {
			t.Errorf("deleted survey has home rows %v", rows)
		}
		if rows := tenantRows(t, st, tenant, a.Slug); len(rows) != 0 {
			t.Errorf("deleted survey has tenant rows %v", rows)
		}
		got, _ = rs.Tenant(ctx, tenant, 5)
		if _, ok := got.Counts[a.Slug]; ok {
			t.Error("deleted survey is still counted")
		}
	})
}

func TestHomeLists(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss, rs := store.NewSurveyStore(st), store.NewRankingStore(st)
		today := time.Now().UTC().Truncate(24 * time.Hour)
		late := publish(t, ss, tenant, "Closes late", true, today.AddDate(0, 0, 30))
		soon := publish(t, ss, tenant, "Closes soon", true, today)
		never := publish(t, ss, tenant, "Never closes", true, time.Time{})
		hidden := publish(t, ss, tenant, "Unlisted", false, today)
		home, err := rs.Home(ctx, 1000)
		if err != nil {
			t.Fatal(err)
		}
		p := tenant + "/"
		if s := slugs(home.Newest, tenant); s != p+never.Slug+","+p+soon.Slug+","+p+late.Slug {
			t.Errorf("newest = %s", s)
		}
		if s := slugs(home.ClosingSoon, tenant); s != p+soon.Slug+","+p+late.Slug {
			t.Errorf("closing soon = %s", s)
		}
		_ = hidden
		// Unlisting a draft's copy, and a closed date passed.
		past := sample(tenant, "Past")
		past.State, past.Listed, past.CloseOn = survey.Published, true, today.AddDate(0, 0, -2)
		if err := ss.Create(ctx, past); err != nil {
			t.Fatal(err)
		}
		home, _ = rs.Home(ctx, 1000)
		for _, l := range [][]store.RankedSurvey{home.MostAnswered, home.Newest, home.ClosingSoon} {
			if strings.Contains(slugs(l, tenant), past.Slug) || strings.Contains(slugs(l, tenant), hidden.Slug) {
				t.Errorf("a past or unlisted survey is on the home page: %s", slugs(l, tenant))
			}
		}
	})
}

// TestMoveCrashBetweenEveryCall moves a listed survey on the home page's
// most-answered list (a move across two partitions) and kills the mover
// before and after each of its storage calls in turn. Right after the
// crash, a reader sees the survey exactly once (never missing, never
// twice); after one more pass by a new process (the messages of the batch
// delivered again), the table holds exactly one row for it, at the new
// count, and the tenant's lists are exact.
func TestMoveCrashBetweenEveryCall(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, _ string) {
		ctx := context.Background()
		// A clean move tells how many calls a move makes.
		probe := faulty.New(st)
		tenant := newTenant()
		s := publish(t, store.NewSurveyStore(st), tenant, "Moving", true, time.Now().UTC().AddDate(0, 0, 3))
		if err := store.NewRankingStore(st).SetAnswers(ctx, tenant, s.Slug, 3); err != nil {
			t.Fatal(err)
		}
		if err := store.NewRankingStore(probe).SetAnswers(ctx, tenant, s.Slug, 7); err != nil {
			t.Fatal(err)
		}
		total := probe.Calls()
		t.Logf("a move of a listed survey makes %d storage calls", total)
		if total < 4 {
			t.Fatalf("a move made only %d calls", total)
		}
		for n := int64(1); n <= total; n++ {
			for _, after := range []bool{false, true} {
				name := fmt.Sprintf("crash at call %d (after=%v)", n, after)
				tenant := newTenant()
				s := publish(t, store.NewSurveyStore(st), tenant, "Moving", true, time.Now().UTC().AddDate(0, 0, 3))
				if err := store.NewRankingStore(st).SetAnswers(ctx, tenant, s.Slug, 3); err != nil {
					t.Fatal(err)
				}
				c := faulty.At(st, n, after)
				if err := store.NewRankingStore(c).SetAnswers(ctx, tenant, s.Slug, 7); err == nil {
					t.Fatalf("%s: the move did not fail", name)
				}
				// Readers, meanwhile: the survey once, at 3 or 7.
				checkHome(t, name+", before repair", st, tenant, s.Slug, 3, 7)
				// The next pass, by a new process.
				if err := store.NewRankingStore(st).SetAnswers(ctx, tenant, s.Slug, 7); err != nil {
					t.Fatalf("%s: repair: %v", name, err)
				}
				checkHome(t, name+", after repair", st, tenant, s.Slug, 7, 7)
				rows := homeRows(t, st, tenant, s.Slug)
				if len(rows["a"]) != 1 || len(rows["n"]) != 1 || len(rows["c"]) != 1 || rows["a"][0].Int("Answers") != 7 {
					t.Errorf("%s: after one pass the home table holds %d/%d/%d rows (answers %v)", name,
						len(rows["a"]), len(rows["n"]), len(rows["c"]), rows["a"])
				}
				if tr := tenantRows(t, st, tenant, s.Slug); len(tr["a"]) != 1 || tr["a"][0].Int("Count") != 7 {
					t.Errorf("%s: tenant rows %v", name, tr)
				}
			}
		}
	})
}

// checkHome asserts a reader of the home page sees the survey exactly once
// on each list, with an answer count in [lo, hi].
func checkHome(t *testing.T, name string, st storage.Storage, tenant, slug string, lo, hi int64) {
	t.Helper()
	home, err := store.NewRankingStore(st).Home(context.Background(), 1000)
	if err != nil {
		t.Fatalf("%s: Home: %v", name, err)
	}
	for i, l := range [][]store.RankedSurvey{home.MostAnswered, home.Newest, home.ClosingSoon} {
		var seen []int64
		for _, r := range l {
			if r.Tenant == tenant && r.Slug == slug {
				seen = append(seen, r.Answers)
			}
		}
		if len(seen) != 1 {
			t.Errorf("%s: list %d shows the survey %d times", name, i, len(seen))
			continue
		}
		if i == 0 && (seen[0] < lo || seen[0] > hi) {
			t.Errorf("%s: most answered shows %d answers, want %d..%d", name, seen[0], lo, hi)
		}
	}
}

// TestLifecycleCrash closes and deletes a listed survey with a crash at
// every call; doing it again (the user retries) leaves no row behind.
func TestLifecycleCrash(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, _ string) {
		ctx := context.Background()
		for n := int64(1); n <= 12; n++ {
			tenant := newTenant()
			s := publish(t, store.NewSurveyStore(st), tenant, "Closing", true, time.Time{})
			c := faulty.At(st, n, false)
			_, _ = store.NewSurveyStore(c).SetState(ctx, tenant, s.Slug, survey.Closed)
			if _, err := store.NewSurveyStore(st).SetState(ctx, tenant, s.Slug, survey.Closed); err != nil {
				t.Fatalf("close again: %v", err)
			}
			if rows := homeRows(t, st, tenant, s.Slug); len(rows) != 0 {
				t.Errorf("crash at %d: a closed survey keeps home rows %v", n, rows)
			}
			c = faulty.At(st, n, false)
			_ = store.NewSurveyStore(c).Delete(ctx, tenant, s.Slug)
			if err := store.NewSurveyStore(st).Delete(ctx, tenant, s.Slug); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
				t.Fatalf("delete again: %v", err)
			}
			if rows := tenantRows(t, st, tenant, s.Slug); len(rows) != 0 {
				t.Errorf("crash at %d: a deleted survey keeps tenant rows %v", n, rows)
			}
			page, _ := st.QueryPartition(ctx, store.RanksTable, tenant, storage.Query{})
			if len(page.Entities) != 0 {
				var keys []string
				for _, e := range page.Entities {
					keys = append(keys, e.RowKey)
				}
				sort.Strings(keys)
				t.Errorf("crash at %d: rows left after delete: %v", n, keys)
			}
		}
	})
}

func TestViewCounter(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		vc := store.NewViewCounter(st, time.Hour)
		for i := 0; i < 1000; i++ {
			vc.Add(tenant, fmt.Sprintf("survey-%d", i%3))
		}
		if vc.Pending() != 1000 {
			t.Fatalf("pending = %d", vc.Pending())
		}
		if err := vc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		msgs, err := st.Dequeue(ctx, store.ViewsQueue, 32, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		mine := 0
		for _, m := range msgs {
			if strings.Contains(string(m.Data), tenant) {
				mine++
				total += int64(strings.Count(string(m.Data), `"n":`))
			}
			_ = st.DeleteMessage(ctx, store.ViewsQueue, m.ID, m.PopReceipt)
		}
		if mine != 1 || total != 3 || vc.Pending() != 0 {
			t.Errorf("%d messages with %d surveys (pending %d); want one message of 3 surveys", mine, total, vc.Pending())
		}
	})
}

// TestBackfill ranks surveys stored before ranks were kept, once.
func TestBackfill(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s := publish(t, store.NewSurveyStore(st), tenant, "Old survey", true, time.Time{})
		// As a store of before: no ranks.
		if err := store.NewRankingStore(st).Remove(ctx, tenant, s.Slug); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteBlob(ctx, store.SystemContainer, "ranks-backfilled", ""); err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Fatal(err)
		}
		rs := store.NewRankingStore(st)
		n, err := rs.Backfill(ctx, []*survey.Tenant{{Key: tenant}})
		if err != nil || n != 1 {
			t.Fatalf("Backfill = %d, %v; want 1 survey", n, err)
		}
		home, _ := rs.Home(ctx, 1000)
		if slugs(home.Newest, tenant) != tenant+"/"+s.Slug {
			t.Errorf("after the backfill, newest = %s", slugs(home.Newest, tenant))
		}
		if n, err := rs.Backfill(ctx, []*survey.Tenant{{Key: tenant}}); err != nil || n != 0 {
			t.Errorf("second Backfill = %d, %v; want nothing done", n, err)
		}
	})
}

// stalling holds the first home-row write until released.
type stalling struct {
	storage.Storage
	held, release chan struct{}
	once          atomic.Bool
}

func (s *stalling) UpsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	if table == store.PublicRanksTable && s.once.CompareAndSwap(false, true) {
		close(s.held)
		<-s.release
	}
	return s.Storage.UpsertEntity(ctx, table, e)
}

// TestStalledWriter moves a survey with one writer that stalls between its
// pointer write and its row write for the whole of another writer's move:
// its late row is taken away again, so one row remains, at the later count.
func TestStalledWriter(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s := publish(t, store.NewSurveyStore(st), tenant, "Raced", true, time.Now().UTC().AddDate(0, 0, 3))
		slow := &stalling{Storage: st, held: make(chan struct{}), release: make(chan struct{})}
		done := make(chan error, 1)
		go func() { done <- store.NewRankingStore(slow).SetAnswers(ctx, tenant, s.Slug, 5) }()
		<-slow.held
		if err := store.NewRankingStore(st).SetAnswers(ctx, tenant, s.Slug, 9); err != nil {
			t.Fatal(err)
		}
		close(slow.release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		rows := homeRows(t, st, tenant, s.Slug)
		if len(rows["a"]) != 1 || rows["a"][0].Int("Answers") != 9 || len(rows["n"]) != 1 {
			t.Fatalf("home rows after the race: %v", rows)
		}
		checkHome(t, "after the race", st, tenant, s.Slug, 9, 9)
	})
}

// TestKeptPointer: a store moves a survey again from the pointer it read
// back after its last move (one read fewer per move), and a pointer another
// writer changed meanwhile is read again, so nothing it wrote is lost: its
// count, title and views stay, and each list shows the survey once.
func TestKeptPointer(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s := publish(t, store.NewSurveyStore(st), tenant, "Kept", true, time.Now().UTC().AddDate(0, 0, 3))
		counted := faulty.New(st)
		a, b := store.NewRankingStore(counted), store.NewRankingStore(st)
		move := func(rs *store.RankingStore, total int64) int64 {
			t.Helper()
			before := counted.Calls()
			if err := rs.SetAnswers(ctx, tenant, s.Slug, total); err != nil {
				t.Fatalf("SetAnswers %d: %v", total, err)
			}
			return counted.Calls() - before
		}
		move(a, 3)
		// The pointer's transaction, the new home row, the old one's
		// delete, the pointer read back; no read first.
		if kept := move(a, 5); kept != 4 {
			t.Errorf("a move from the kept pointer made %d storage calls, want 4", kept)
		}
		move(store.NewRankingStore(counted), 7)
		// a's kept pointer is stale (at 5): the move to 7 was another's.
		check := func(name string, answers, views int64, title string) {
			t.Helper()
			checkHome(t, name, st, tenant, s.Slug, answers, answers)
			got, err := store.NewRankingStore(st).Tenant(ctx, tenant, 10)
			if err != nil {
				t.Fatal(err)
			}
			if c := got.Counts[s.Slug]; c.Answers != answers || c.Views != views {
				t.Errorf("%s: counts %+v, want %d answers, %d views", name, c, answers, views)
			}
			tr := tenantRows(t, st, tenant, s.Slug)
			if len(tr["a"]) != 1 || tr["a"][0].Int("Count") != answers || tr["a"][0].String("Title") != title {
				t.Errorf("%s: most-answered rows %v, want one at %d titled %q", name, tr["a"], answers, title)
			}
			rows := homeRows(t, st, tenant, s.Slug)
			if len(rows["a"]) != 1 || rows["a"][0].Int("Answers") != answers || rows["a"][0].String("Title") != title {
				t.Errorf("%s: home rows %v", name, rows["a"])
			}
		}
		move(a, 6) // older than the stored 7: nothing changes
		check("an older count from a stale pointer", 7, 0, "Kept")
		move(a, 9)
		check("a move from a stale pointer", 9, 0, "Kept")
		// Another writer renames the survey and adds views; a then moves
		// from its kept pointer, stale again.
		renamed := *s
		renamed.Title = "Renamed"
		if err := b.Sync(ctx, &renamed); err != nil {
			t.Fatal(err)
		}
		if err := b.AddViews(ctx, tenant, s.Slug, map[string]store.ViewCounts{"m1": {N: 4}}); err != nil {
			t.Fatal(err)
		}
		move(a, 12)
		check("after another's rename and views", 12, 4, "Renamed")
		// The survey deleted by another: a's kept pointer names a row that
		// is gone, and a late count brings nothing back.
		if err := b.Remove(ctx, tenant, s.Slug); err != nil {
			t.Fatal(err)
		}
		if err := store.NewSurveyStore(st).Delete(ctx, tenant, s.Slug); err != nil {
			t.Fatal(err)
		}
		move(a, 13)
		if rows := homeRows(t, st, tenant, s.Slug); len(rows) != 0 {
			t.Errorf("a deleted survey's home rows came back: %v", rows)
		}
		if tr := tenantRows(t, st, tenant, s.Slug); len(tr) != 0 {
			t.Errorf("a deleted survey's tenant rows came back: %v", tr)
		}
	})
}

// TestKeptPointerCrash fails each call of a move from a kept pointer in
// turn; the same store's next pass (the batch's messages delivered again
// to the same worker) reads the pointer again and repairs the move.
func TestKeptPointerCrash(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, _ string) {
		ctx := context.Background()
		for n := int64(1); n <= 4; n++ {
			for _, after := range []bool{false, true} {
				name := fmt.Sprintf("failure at call %d of the move (after=%v)", n, after)
				tenant := newTenant()
				s := publish(t, store.NewSurveyStore(st), tenant, "Moving", true, time.Now().UTC().AddDate(0, 0, 3))
				c := faulty.New(st)
				rs := store.NewRankingStore(c)
				if err := rs.SetAnswers(ctx, tenant, s.Slug, 3); err != nil {
					t.Fatal(err)
				}
				c.FailAt, c.After = c.Calls()+n, after
				if err := rs.SetAnswers(ctx, tenant, s.Slug, 7); err == nil {
					t.Fatalf("%s: the move did not fail", name)
				}
				checkHome(t, name+", before repair", st, tenant, s.Slug, 3, 7)
				c.FailAt = 0
				if err := rs.SetAnswers(ctx, tenant, s.Slug, 7); err != nil {
					t.Fatalf("%s: repair: %v", name, err)
				}
				checkHome(t, name+", after repair", st, tenant, s.Slug, 7, 7)
				rows := homeRows(t, st, tenant, s.Slug)
				if len(rows["a"]) != 1 || len(rows["n"]) != 1 || len(rows["c"]) != 1 || rows["a"][0].Int("Answers") != 7 {
					t.Errorf("%s: after one pass the home table holds %d/%d/%d rows (answers %v)", name,
						len(rows["a"]), len(rows["n"]), len(rows["c"]), rows["a"])
				}
				if tr := tenantRows(t, st, tenant, s.Slug); len(tr["a"]) != 1 || tr["a"][0].Int("Count") != 7 {
					t.Errorf("%s: tenant rows %v", name, tr)
				}
			}
		}
	})
}
