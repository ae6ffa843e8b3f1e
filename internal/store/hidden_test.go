package store_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestHiddenFieldsStored: a survey's hidden fields and its prefill switch
// round-trip on both backends and survive an edit of the published
// survey; an answer's hidden values go through the answers queue (in a
// message, and spilled to a blob), its own blob and the segments, and an
// answer stored before them reads with none.
func TestHiddenFieldsStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Hidden")
		s.HiddenFields, s.Prefill = []string{"source", "panel_id"}, true
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.HiddenFields, []string{"source", "panel_id"}) || !got.Prefill {
			t.Fatalf("read %q, prefill %v", got.HiddenFields, got.Prefill)
		}
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Published); err != nil {
			t.Fatal(err)
		}
		got, _ = ss.Get(ctx, tenant, s.Slug)
		got.HiddenFields, got.Prefill = []string{"source"}, false
		if err := ss.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		if got, _ = ss.Get(ctx, tenant, s.Slug); !reflect.DeepEqual(got.HiddenFields, []string{"source"}) || got.Prefill {
			t.Fatalf("after an edit: %q, prefill %v", got.HiddenFields, got.Prefill)
		}

		as := store.NewSurveyAnswerStore(st)
		q := got.Questions[2] // a simple text
		small := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: tenant, Slug: s.Slug, CreatedOn: time.Now().UTC().Truncate(time.Millisecond),
			Answers: []survey.QuestionAnswer{{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: "short"}},
			Hidden:  map[string]string{"source": "news <letter> & \"more\""}}
		large := small
		large.ID = store.NewAnswerID(time.Now().Add(time.Millisecond))
		large.Answers = []survey.QuestionAnswer{{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: strings.Repeat("long ", 14000)}}
		if err := as.Enqueue(ctx, []survey.SurveyAnswer{small, large}); err != nil {
			t.Fatal(err)
		}
		questions := map[string]store.Question{q.ID: {Text: q.Text, Type: q.Type}}
		resolved := map[string]*survey.SurveyAnswer{}
		for len(resolved) < 2 {
			msgs, err := st.Dequeue(ctx, store.AnswersQueue, 10, time.Minute)
			if err != nil || len(msgs) == 0 {
				t.Fatalf("dequeue: %d %v", len(msgs), err)
			}
			for _, m := range msgs {
				var am store.AnswerMessage
				if err := json.Unmarshal(m.Data, &am); err != nil {
					t.Fatal(err)
				}
				pending, _ := am.Pending()
				for _, p := range pending {
					a, err := as.Resolve(ctx, p, questions)
					if err != nil {
						t.Fatal(err)
					}
					resolved[a.ID] = &a
				}
			}
		}
		for _, want := range []survey.SurveyAnswer{small, large} {
			a := resolved[want.ID]
			if a == nil || !reflect.DeepEqual(a.Hidden, want.Hidden) {
				t.Fatalf("resolved %s: %+v", want.ID, a)
			}
			if _, err := as.File(ctx, a, "m"); err != nil {
				t.Fatal(err)
			}
			back, err := as.Get(ctx, tenant, s.Slug, a.ID)
			if err != nil || !reflect.DeepEqual(back.Hidden, want.Hidden) {
				t.Fatalf("filed %s: %v %v", a.ID, back, err)
			}
		}
		old := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now().Add(2 * time.Millisecond)), Tenant: tenant, Slug: s.Slug, CreatedOn: small.CreatedOn, Answers: small.Answers}
		if _, err := as.File(ctx, &old, "m"); err != nil {
			t.Fatal(err)
		}
		ids := []string{small.ID, large.ID, old.ID}
		if _, err := as.AppendSegments(ctx, tenant, s.Slug, nil, 0, ids, resolved, nil); err != nil {
			t.Fatal(err)
		}
		var scanned []map[string]string
		if err := as.Scan(ctx, tenant, s.Slug, 0, func(_ int, a *survey.SurveyAnswer) error {
			scanned = append(scanned, a.Hidden)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want := []map[string]string{small.Hidden, large.Hidden, nil}; !reflect.DeepEqual(scanned, want) {
			t.Errorf("segments hold %q, want %q", scanned, want)
		}
	})
}
