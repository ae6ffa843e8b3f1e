package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// planSurvey creates a published one-question survey and returns answers
// for it.
func planSurvey(t *testing.T, st storage.Storage, tenant string, n int) (*survey.Survey, []survey.SurveyAnswer) {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	s := &survey.Survey{Tenant: tenant, Title: "Plan test", State: survey.Published,
		Questions: []survey.Question{{Text: "Rate", Type: survey.FiveStars}}}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	var out []survey.SurveyAnswer
	for i := range n {
		a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{s.Questions[0].ID: fmt.Sprint(i%5 + 1)}))
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		out = append(out, a)
	}
	return s, out
}

func total(t *testing.T, st storage.Storage, s *survey.Survey) int64 {
	t.Helper()
	sum, _, err := store.NewSurveyAnswersSummaryStore(st).Get(context.Background(), s.Tenant, s.Slug)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return sum.TotalAnswers
}

// TestPremiumFirst: with the standard queue full, a Premium tenant's
// answers are summarised in the worker's next batch.
func TestPremiumFirst(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(st)
	std, stdAnswers := planSurvey(t, st, newTenant(), 40)
	prem, premAnswers := planSurvey(t, st, newTenant()+"p", 1)
	for _, a := range stdAnswers {
		if err := as.EnqueueFor(ctx, survey.Standard, []survey.SurveyAnswer{a}); err != nil {
			t.Fatal(err)
		}
	}
	if err := as.EnqueueFor(ctx, survey.Premium, premAnswers); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.ApproximateCount(ctx, store.PremiumAnswersQueue); n != 1 {
		t.Fatalf("premium queue holds %d messages, want 1", n)
	}
	w := worker.New(st, worker.Config{Batch: 8, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: 10 * time.Millisecond}, quiet, nil)
	if n, err := w.RunOnce(ctx); err != nil || n != 8 {
		t.Fatalf("RunOnce = %d, %v; want a batch of 8", n, err)
	}
	if got := total(t, st, prem); got != 1 {
		t.Fatalf("after one batch the Premium survey has %d answers, want 1", got)
	}
	if got := total(t, st, std); got != 7 {
		t.Fatalf("after one batch the Standard survey has %d answers, want 7 (the batch's rest)", got)
	}
	drainQuiet(st, w)
	if got := total(t, st, std); got != 40 {
		t.Fatalf("Standard survey has %d answers after draining, want 40", got)
	}
}

// TestAnswerLimitClosesSurvey: a survey that reaches its plan's answers
// limit is closed by the worker; answers already queued are all kept.
func TestAnswerLimitClosesSurvey(t *testing.T) {
	limit := survey.Trial.Limits().AnswersPerSurvey
	tests := []struct {
		name      string
		plan      survey.Plan
		answers   int
		wantState survey.State
	}{
		{"under the limit", survey.Trial, limit - 1, survey.Published},
		{"at the limit", survey.Trial, limit, survey.Closed},
		{"over it, in flight", survey.Trial, limit + 5, survey.Closed},
		{"no limit", survey.Premium, limit + 5, survey.Published},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := backends.Local(t)
			ctx := context.Background()
			s, answers := planSurvey(t, st, newTenant(), tt.answers)
			as := store.NewSurveyAnswerStore(st)
			for i := 0; i < len(answers); i += 10 {
				if err := as.EnqueueFor(ctx, tt.plan, answers[i:min(i+10, len(answers))]); err != nil {
					t.Fatal(err)
				}
			}
			w := worker.New(st, worker.DefaultConfig, quiet, nil)
			for {
				n, err := w.RunOnce(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
			}
			if got := total(t, st, s); got != int64(tt.answers) {
				t.Fatalf("summary counts %d answers, want all %d", got, tt.answers)
			}
			got, err := store.NewSurveyStore(st).Get(ctx, s.Tenant, s.Slug)
			if err != nil || got.State != tt.wantState {
				t.Fatalf("survey state = %v (%v), want %s", got.State, err, tt.wantState)
			}
		})
	}
}

// TestAnswersOfDeletedSurveyDropped: answers still queued when their
// survey is deleted are dropped, not filed into a container made anew.
func TestAnswersOfDeletedSurveyDropped(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		s, answers := planSurvey(t, st, newTenant(), 3)
		if err := store.NewSurveyAnswerStore(st).Enqueue(ctx, answers); err != nil {
			t.Fatal(err)
		}
		if err := store.NewSurveyStore(st).Delete(ctx, s.Tenant, s.Slug); err != nil {
			t.Fatal(err)
		}
		m := worker.NewMetrics()
		drainQuiet(st, worker.New(st, testConfig, quiet, m))
		if _, err := st.ListBlobs(ctx, store.AnswersContainer(s.Tenant, s.Slug), storage.ListOptions{}); err == nil {
			t.Fatal("the deleted survey's answers container exists again")
		}
		if _, _, err := store.NewSurveyAnswersSummaryStore(st).Get(ctx, s.Tenant, s.Slug); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("summary of the deleted survey: %v, want not found", err)
		}
	})
}

// TestStandardNotStarved: with both answers queues full, every batch takes
// some of each, Premium first, so a busy Premium queue never stops the
// standard one.
func TestStandardNotStarved(t *testing.T) {
	for _, batch := range []int{1, 2, 8, 32} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			st := backends.Local(t)
			ctx := context.Background()
			as := store.NewSurveyAnswerStore(st)
			const each = 40
			std, stdAnswers := planSurvey(t, st, newTenant(), each)
			prem, premAnswers := planSurvey(t, st, newTenant()+"p", each)
			for i := range each {
				if err := as.EnqueueFor(ctx, survey.Standard, stdAnswers[i:i+1]); err != nil {
					t.Fatal(err)
				}
				if err := as.EnqueueFor(ctx, survey.Premium, premAnswers[i:i+1]); err != nil {
					t.Fatal(err)
				}
			}
			w := worker.New(st, worker.Config{Batch: batch, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: 10 * time.Millisecond}, quiet, nil)
			var lastStd, lastPrem int64
			for pass := 1; lastStd < each && lastPrem < each; pass++ {
				if _, err := w.RunOnce(ctx); err != nil {
					t.Fatal(err)
				}
				s, p := total(t, st, std), total(t, st, prem)
				if batch == 1 {
					// One message a batch: the queues take turns.
					if pass%2 == 0 && s == lastStd {
						t.Fatalf("pass %d: no standard answer in two batches of 1 (standard %d, premium %d)", pass, s, p)
					}
				} else if s == lastStd || p == lastPrem {
					t.Fatalf("pass %d: standard %d → %d, premium %d → %d answers; want some of each", pass, lastStd, s, lastPrem, p)
				}
				if batch > 1 && p-lastPrem < s-lastStd {
					t.Fatalf("pass %d: premium took %d, standard %d: premium comes first", pass, p-lastPrem, s-lastStd)
				}
				lastStd, lastPrem = s, p
			}
			drainQuiet(st, w)
			if s, p := total(t, st, std), total(t, st, prem); s != each || p != each {
				t.Fatalf("after draining: standard %d, premium %d answers, want %d each", s, p, each)
			}
		})
	}
}
