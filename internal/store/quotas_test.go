package store_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestQuotaCounts: many takes at once never pass a cell's limit (a
// conditional write each), a take of two cells is all or none, what is
// given back may be taken again, a deleted answer's cells come back once
// however often it is given, and the survey's deletion deletes the counts.
func TestQuotaCounts(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		qs := store.NewQuotaStore(st)
		slug := "quota"
		limits := map[string]int{"young": 10, "panel": 12}
		var wg sync.WaitGroup
		var mu sync.Mutex
		taken, full := 0, 0
		for range 25 {
			wg.Go(func() {
				f, err := qs.Take(ctx, tenant, slug, []string{"young"}, limits)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Error(err)
				case f == "":
					taken++
				case f == "young":
					full++
				default:
					t.Errorf("full %q", f)
				}
			})
		}
		wg.Wait()
		if taken != 10 || full != 15 {
			t.Errorf("%d taken, %d refused; want 10 and 15", taken, full)
		}
		// Two cells, one of them full: nothing taken.
		if f, err := qs.Take(ctx, tenant, slug, []string{"panel", "young"}, limits); err != nil || f != "young" {
			t.Errorf("take of a full and a free cell: %q, %v", f, err)
		}
		if c, err := qs.Counts(ctx, tenant, slug); err != nil || !reflect.DeepEqual(c, map[string]int{"young": 10}) {
			t.Errorf("counts %v, %v", c, err)
		}
		if err := qs.Give(ctx, tenant, slug, []string{"young"}); err != nil {
			t.Fatal(err)
		}
		if f, err := qs.Take(ctx, tenant, slug, []string{"panel", "young"}, limits); err != nil || f != "" {
			t.Errorf("take after a give: %q, %v", f, err)
		}
		a := &survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Quotas: []string{"panel", "young"}}
		for range 3 {
			if err := qs.GiveDeleted(ctx, tenant, slug, a); err != nil {
				t.Fatal(err)
			}
		}
		if c, _ := qs.Counts(ctx, tenant, slug); !reflect.DeepEqual(c, map[string]int{"young": 9}) {
			t.Errorf("counts after a deleted answer given three times: %v", c)
		}
		// Never below zero.
		if err := qs.Give(ctx, tenant, slug, []string{"panel", "panel"}); err != nil {
			t.Fatal(err)
		}
		if c, _ := qs.Counts(ctx, tenant, slug); c["panel"] != 0 {
			t.Errorf("counts %v", c)
		}
	})
}

// TestQuotaSkipCounts: cells whose quotas skip are taken while below
// their limits, each on its own, however many answers race for them:
// past it an answer is over quota in that cell (named, not taken) and
// still takes its other cells; a full cell that ends refuses it whole.
func TestQuotaSkipCounts(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		qs := store.NewQuotaStore(st)
		slug := "skip"
		limits := map[string]int{"women": 4, "panel": 30}
		skip := map[string]bool{"women": true}
		var wg sync.WaitGroup
		var mu sync.Mutex
		taken, over := 0, 0
		for range 20 {
			wg.Go(func() {
				f, o, err := qs.TakeCells(ctx, tenant, slug, []string{"women", "panel"}, limits, skip)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Error(err)
				case f != "":
					t.Errorf("full %q", f)
				case len(o) == 0:
					taken++
				case reflect.DeepEqual(o, []string{"women"}):
					over++
				default:
					t.Errorf("over %v", o)
				}
			})
		}
		wg.Wait()
		if taken != 4 || over != 16 {
			t.Errorf("%d taken, %d over quota; want 4 and 16", taken, over)
		}
		if c, _ := qs.Counts(ctx, tenant, slug); !reflect.DeepEqual(c, map[string]int{"women": 4, "panel": 20}) {
			t.Errorf("counts %v", c)
		}
		// Over quota in every cell: nothing written, nothing refused.
		if f, o, err := qs.TakeCells(ctx, tenant, slug, []string{"women"}, limits, skip); err != nil || f != "" || len(o) != 1 {
			t.Errorf("take of a full skip cell: %q %v %v", f, o, err)
		}
		// A full cell that ends: nothing taken, over or not.
		limits["panel"] = 20
		if f, _, err := qs.TakeCells(ctx, tenant, slug, []string{"women", "panel"}, limits, skip); err != nil || f != "panel" {
			t.Errorf("take with a full end cell: %q %v", f, err)
		}
		if c, _ := qs.Counts(ctx, tenant, slug); !reflect.DeepEqual(c, map[string]int{"women": 4, "panel": 20}) {
			t.Errorf("counts %v", c)
		}
	})
}

// TestQuotasStored: a survey's quotas round-trip with it, and an answer's
// cells go through the answers queue into the answer.
func TestQuotasStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Quotas")
		s.Quotas = []survey.Quota{{Name: "red", Limit: 3, Message: "Enough red.", If: survey.Condition{Rules: []survey.Rule{{Question: "c", Op: "equals", Values: []string{"Red"}}}}}}
		for i, id := range []string{"a", "c", "t", "b"} {
			s.Questions[i].ID = id
		}
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		want := []survey.Quota{{Name: "red", Limit: 3, Message: "Enough red.", Action: survey.QuotaEnd, If: survey.Condition{Match: "all", Rules: []survey.Rule{{Question: got.Questions[1].ID, Op: "equals", Values: []string{"Red"}}}}}}
		if !reflect.DeepEqual(got.Quotas, want) {
			t.Fatalf("quotas read %+v, want %+v", got.Quotas, want)
		}

		as := store.NewSurveyAnswerStore(st)
		q := got.Questions[1]
		a := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: tenant, Slug: s.Slug, CreatedOn: time.Now().UTC().Truncate(time.Millisecond),
			Answers: []survey.QuestionAnswer{{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: "Red"}}, Quotas: []string{"red"}, OverQuota: []string{"blue"}}
		if err := as.Enqueue(ctx, []survey.SurveyAnswer{a}); err != nil {
			t.Fatal(err)
		}
		msgs, err := st.Dequeue(ctx, store.AnswersQueue, 10, time.Minute)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("dequeue: %d %v", len(msgs), err)
		}
		var am store.AnswerMessage
		if err := json.Unmarshal(msgs[0].Data, &am); err != nil {
			t.Fatal(err)
		}
		pending, _ := am.Pending()
		r, err := as.Resolve(ctx, pending[0], map[string]store.Question{q.ID: {Text: q.Text, Type: q.Type}})
		if err != nil || !reflect.DeepEqual(r.Quotas, []string{"red"}) || !reflect.DeepEqual(r.OverQuota, []string{"blue"}) {
			t.Fatalf("resolved %+v, %v", r, err)
		}
		if _, err := store.NewQuotaStore(st).Take(ctx, tenant, s.Slug, []string{"red"}, map[string]int{"red": 3}); err != nil {
			t.Fatal(err)
		}
		if err := ss.Delete(ctx, tenant, s.Slug); err != nil {
			t.Fatal(err)
		}
		if c, err := store.NewQuotaStore(st).Counts(ctx, tenant, s.Slug); err != nil || len(c) != 0 {
			t.Errorf("counts after the survey's deletion: %v, %v", c, err)
		}
	})
}
