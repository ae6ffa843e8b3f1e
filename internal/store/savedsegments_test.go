package store_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestSavedSegments: a survey's segments are saved, listed by name, read
// back with their filter, refused with a name taken or past the limit,
// deleted one by one and with their survey; another survey's and another
// tenant's are apart.
func TestSavedSegments(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		surveys, segs := store.NewSurveyStore(st), store.NewSavedSegmentStore(st)
		s, other := sample(key, "Segments"), sample(key, "Segments too")
		for _, sv := range []*survey.Survey{s, other} {
			if err := surveys.Create(ctx, sv); err != nil {
				t.Fatal(err)
			}
		}
		save := func(sv *survey.Survey, name string, v url.Values) (*survey.Segment, error) {
			f, err := survey.ParseAnswerFilter(sv, v)
			if err != nil {
				t.Fatal(err)
			}
			g, err := survey.NewSegment(sv, name, f, "ana@"+key+".example", time.Now())
			if err != nil {
				return nil, err
			}
			return g, segs.Create(ctx, g)
		}
		red, err := save(s, "Reds", url.Values{"q": {s.Questions[1].ID}, "a": {"Red"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := save(s, "  Happy reds ", url.Values{"c": {s.Questions[1].ID + "=Red", s.Questions[0].ID + "=5"}, "from": {"2026-01-01"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := save(other, "Reds", url.Values{"q": {other.Questions[1].ID}, "a": {"Red"}}); err != nil {
			t.Fatalf("another survey's segment of the same name: %v", err)
		}
		_, err = save(s, "REDS", url.Values{"status": {"complete"}})
		wantCode(t, "a name taken", err, survey.ECONFLICT)
		_, err = save(s, "", url.Values{"status": {"complete"}})
		wantCode(t, "no name", err, survey.EINVALID)
		_, err = save(s, "Everyone", url.Values{})
		wantCode(t, "no filter", err, survey.EINVALID)

		list, err := segs.List(ctx, key, s.Slug)
		if err != nil || len(list) != 2 || list[0].Name != "Happy reds" || list[1].Name != "Reds" {
			t.Fatalf("list = %+v, %v", list, err)
		}
		got, err := segs.Get(ctx, key, s.Slug, red.ID)
		if err != nil || got.Name != "Reds" || got.CreatedBy != "ana@"+key+".example" || got.CreatedOn.IsZero() {
			t.Fatalf("get = %+v, %v", got, err)
		}
		f, err := list[0].Filter(s)
		if err != nil || len(f.Picks) != 2 || f.From != "2026-01-01" {
			t.Fatalf("the saved filter reads back as %+v, %v", f, err)
		}
		for _, id := range []string{"", "nosuch", "ABCDEF012345", "../x", red.ID + "0"} {
			_, err := segs.Get(ctx, key, s.Slug, id)
			wantCode(t, "get "+id, err, survey.ENOTFOUND)
		}
		_, err = segs.Get(ctx, key, other.Slug, red.ID)
		wantCode(t, "another survey's ID", err, survey.ENOTFOUND)

		// At most MaxSegments.
		for i := len(list); i < survey.MaxSegments; i++ {
			if _, err := save(s, fmt.Sprintf("Segment %d", i), url.Values{"status": {"complete"}}); err != nil {
				t.Fatal(err)
			}
		}
		_, err = save(s, "One too many", url.Values{"status": {"complete"}})
		wantCode(t, "past the limit", err, survey.EINVALID)

		if err := segs.Delete(ctx, key, s.Slug, red.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "deleted again", segs.Delete(ctx, key, s.Slug, red.ID), survey.ENOTFOUND)
		// Deleting the survey deletes its segments, not the other's.
		if err := surveys.Delete(ctx, key, s.Slug); err != nil {
			t.Fatal(err)
		}
		if list, err := segs.List(ctx, key, s.Slug); err != nil || len(list) != 0 {
			t.Fatalf("segments of a deleted survey: %d, %v", len(list), err)
		}
		if list, err := segs.List(ctx, key, other.Slug); err != nil || len(list) != 1 {
			t.Fatalf("the other survey's segments: %d, %v", len(list), err)
		}
	})
}
