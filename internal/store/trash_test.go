package store_test

import (
	"context"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestTrash: a trashed survey keeps everything, leaves the home page's
// lists, cannot be published, and comes back as it was when restored;
// trashing or restoring twice changes nothing.
func TestTrash(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		ranks := store.NewRankingStore(st)
		s := sample(tenant, "Trash me")
		s.Listed, s.State = true, survey.Published
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		listed := func() bool {
			t.Helper()
			home, err := ranks.Home(ctx, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range home.Newest {
				if r.Tenant == tenant && r.Slug == s.Slug {
					return true
				}
			}
			return false
		}
		if !listed() {
			t.Fatal("a listed published survey is not on the home page")
		}
		for range 2 {
			if err := ss.Trash(ctx, tenant, s.Slug); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil || !got.Trashed() || got.State != survey.Published || len(got.Questions) != 4 {
			t.Fatalf("trashed survey = %+v, %v", got, err)
		}
		if got.PurgeOn().Sub(got.TrashedOn).Hours() != 24*survey.TrashDays {
			t.Errorf("purged %v after trashing", got.PurgeOn().Sub(got.TrashedOn))
		}
		if listed() {
			t.Error("a trashed survey is on the home page")
		}
		_, err = ss.SetState(ctx, tenant, s.Slug, survey.Closed)
		wantCode(t, "close a trashed survey", err, survey.ECONFLICT)
		for range 2 {
			if err := ss.Restore(ctx, tenant, s.Slug); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := ss.Get(ctx, tenant, s.Slug); err != nil || got.Trashed() || got.State != survey.Published || !got.Listed {
			t.Fatalf("restored survey = %+v, %v", got, err)
		}
		if !listed() {
			t.Error("a restored survey is not back on the home page")
		}
		wantCode(t, "trash a missing survey", ss.Trash(ctx, tenant, "no-such-survey"), survey.ENOTFOUND)
	})
}
