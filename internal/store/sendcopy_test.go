package store_test

import (
	"context"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestSendCopyStored: a survey's "e-mail a copy of the answers" switch is
// off by default, round-trips on both backends, survives an edit of the
// published survey, and is kept by a duplicate.
func TestSendCopyStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		off := sample(tenant, "No copies")
		if err := ss.Create(ctx, off); err != nil {
			t.Fatal(err)
		}
		if got, err := ss.Get(ctx, tenant, off.Slug); err != nil || got.SendCopy {
			t.Fatalf("a survey by default: send copy %v, %v", got != nil && got.SendCopy, err)
		}
		s := sample(tenant, "Copies")
		s.SendCopy = true
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil || !got.SendCopy {
			t.Fatalf("read: send copy %v, %v", got != nil && got.SendCopy, err)
		}
		if !got.Duplicate(got.CreatedOn).SendCopy {
			t.Error("a duplicate lost the switch")
		}
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Published); err != nil {
			t.Fatal(err)
		}
		got, _ = ss.Get(ctx, tenant, s.Slug)
		got.SendCopy = false
		if err := ss.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		if got, _ = ss.Get(ctx, tenant, s.Slug); got.SendCopy {
			t.Fatal("after an edit that turned it off: still on")
		}
	})
}
