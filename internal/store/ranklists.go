package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// RankedSurvey is one row of a ranked list.
type RankedSurvey struct {
	Tenant, Slug, Title  string
	State                survey.State
	Answers, Views       int64
	PublishedOn, CloseOn time.Time
}

// ClosesAt is when the survey stops taking answers (zero: no close date).
func (r RankedSurvey) ClosesAt() time.Time {
	if r.CloseOn.IsZero() {
		return time.Time{}
	}
	return r.CloseOn.Add(24 * time.Hour)
}

// SurveyCounts are a survey's answers and views as the ranks know them.
type SurveyCounts struct{ Answers, Views int64 }

// TenantRanks are a tenant's lists, for its dashboard.
type TenantRanks struct {
	MostAnswered, MostViewed []RankedSurvey
	// Counts holds every ranked survey's counts, by slug.
	Counts map[string]SurveyCounts
}

// Tenant returns the first n rows of the tenant's most-answered and
// most-viewed lists, and every survey's counts: three queries of the
// tenant's partition, whatever the number of surveys.
func (rs *RankingStore) Tenant(ctx context.Context, tenant string, n int) (*TenantRanks, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	out := &TenantRanks{Counts: map[string]SurveyCounts{}}
	for _, l := range []struct {
		prefix string
		dst    *[]RankedSurvey
		views  bool
	}{{answersPrefix2, &out.MostAnswered, false}, {viewsPrefix, &out.MostViewed, true}} {
		page, err := rs.st.QueryPartition(ctx, RanksTable, tenant, storage.Query{RowKeyFrom: l.prefix, RowKeyTo: l.prefix[:1] + "`", Top: n})
		if err != nil {
			return nil, mapErr(err, "Survey ranks")
		}
		for _, e := range page.Entities {
			r := RankedSurvey{Tenant: tenant, Slug: e.String("Slug"), Title: e.String("Title"), State: survey.State(e.String("State"))}
			if l.views {
				r.Views = e.Int("Count")
			} else {
				r.Answers = e.Int("Count")
			}
			*l.dst = append(*l.dst, r)
		}
	}
	q := storage.Query{RowKeyFrom: pointerPrefix, RowKeyTo: "s`"}
	for {
		page, err := rs.st.QueryPartition(ctx, RanksTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "Survey ranks")
		}
		for _, e := range page.Entities {
			out.Counts[e.String("Slug")] = SurveyCounts{Answers: e.Int("Answers"), Views: e.Int("Views")}
		}
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// HomeLists are the public home page's lists.
type HomeLists struct {
	MostAnswered, Newest, ClosingSoon []RankedSurvey
}

// Home returns the first n surveys of each home page list: three scans of
// the first rows of PublicRanksTable. A survey caught mid-move by a crash
// may have two rows in a list; the one of the highest Seq is kept. Surveys
// past their close date are left out.
func (rs *RankingStore) Home(ctx context.Context, n int) (*HomeLists, error) {
	now := rs.now()
	out := &HomeLists{}
	var err error
	if out.MostAnswered, err = rs.homeList(ctx, homeAnswered, homeAnswered, n, now); err != nil {
		return nil, err
	}
	if out.Newest, err = rs.homeList(ctx, homeNewest, homeNewest, n, now); err != nil {
		return nil, err
	}
	// A survey takes answers until the end of its CloseOn day.
	from := homeClosing + fmt.Sprintf("%019d", ticks(now.Add(-24*time.Hour)))
	if out.ClosingSoon, err = rs.homeList(ctx, from, homeClosing, n, now); err != nil {
		return nil, err
	}
	return out, nil
}

// homeList reads list prefix from key from, keeping one row per survey.
func (rs *RankingStore) homeList(ctx context.Context, from, prefix string, n int, now time.Time) ([]RankedSurvey, error) {
	type row struct {
		r   RankedSurvey
		seq int64
	}
	var rows []row
	at := map[string]int{} // RowKey → index in rows
	q := storage.TableQuery{PartitionFrom: from, PartitionTo: string(rune(prefix[0] + 1)), Top: 2*n + 2}
	for {
		page, err := rs.st.QueryTable(ctx, PublicRanksTable, q)
		if err != nil {
			return nil, mapErr(err, "Home page list")
		}
		for _, e := range page.Entities {
			r := RankedSurvey{Tenant: e.String("Tenant"), Slug: e.String("Slug"), Title: e.String("Title"), State: survey.Published,
				Answers: e.Int("Answers"), PublishedOn: e.Time("PublishedOn"), CloseOn: e.Time("CloseOn")}
			if !r.CloseOn.IsZero() && !now.Before(r.ClosesAt()) {
				continue
			}
			seq := e.Int("Seq")
			if i, dup := at[e.RowKey]; dup {
				// Caught mid-move: the later write is the true one; it
				// takes the earlier row's place if it ranks higher.
				if seq > rows[i].seq {
					rows[i] = row{r, seq}
				}
				continue
			}
			at[e.RowKey] = len(rows)
			rows = append(rows, row{r, seq})
		}
		if len(rows) >= n || page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	out := make([]RankedSurvey, 0, min(n, len(rows)))
	for _, r := range rows {
		if len(out) == n {
			break
		}
		out = append(out, r.r)
	}
	return out, nil
}

// CachedHome serves the home page's lists from memory for a short time, so
// that a home page view costs three scans per TTL per instance at most.
type CachedHome struct {
	ranks *RankingStore
	ttl   time.Duration
	n     int

	mu      sync.Mutex
	lists   *HomeLists
	expires time.Time
}

// NewCachedHome returns a cache of the first n rows of each list.
func NewCachedHome(ranks *RankingStore, n int, ttl time.Duration) *CachedHome {
	return &CachedHome{ranks: ranks, ttl: ttl, n: n}
}

// Home returns the lists. Callers must not modify them.
func (c *CachedHome) Home(ctx context.Context) (*HomeLists, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lists != nil && time.Now().Before(c.expires) {
		return c.lists, nil
	}
	l, err := c.ranks.Home(ctx, c.n)
	if err != nil {
		return nil, err
	}
	c.lists, c.expires = l, time.Now().Add(c.ttl)
	return l, nil
}
