package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

func questions(n int) []survey.Question {
	qs := make([]survey.Question, n)
	for i := range qs {
		qs[i] = survey.Question{Text: "Question", Type: survey.SimpleText}
	}
	return qs
}

// TestPlanGuard: each plan limit is refused with a clear message, and a
// refused change stores nothing.
func TestPlanGuard(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		tenants, surveys := store.NewTenantStore(st), store.NewSurveyStore(st)
		g := store.NewPlanGuard(surveys, tenants)
		tn := &survey.Tenant{Key: key, Name: "Trial Co", Plan: survey.Trial}
		if err := tenants.Create(ctx, tn); err != nil {
			t.Fatal(err)
		}
		max := survey.Trial.Limits().QuestionsPerSurvey

		// Questions per survey: create and update.
		long := &survey.Survey{Tenant: key, Title: "Long", Questions: questions(max + 1)}
		err := g.Create(ctx, long)
		wantCode(t, "Create with too many questions", err, survey.EINVALID)
		if !strings.Contains(survey.ErrorMessage(err), "allows 10 questions") {
			t.Errorf("message %q does not say the limit", survey.ErrorMessage(err))
		}
		if list, _ := surveys.List(ctx, key); len(list) != 0 {
			t.Fatalf("a refused Create stored %d surveys", len(list))
		}
		first := &survey.Survey{Tenant: key, Title: "First", Questions: questions(max)}
		if err := g.Create(ctx, first); err != nil {
			t.Fatal(err)
		}
		first.Questions = questions(max + 1)
		wantCode(t, "Update with too many questions", g.Update(ctx, first), survey.EINVALID)
		if got, _ := surveys.Get(ctx, key, first.Slug); len(got.Questions) != max {
			t.Fatalf("a refused Update changed the questions to %d", len(got.Questions))
		}

		// Active surveys: the Trial plan publishes one at a time.
		if _, err := g.SetState(ctx, key, first.Slug, survey.Published); err != nil {
			t.Fatal(err)
		}
		second := &survey.Survey{Tenant: key, Title: "Second", Questions: questions(1), State: survey.Published}
		wantCode(t, "Create published over the limit", g.Create(ctx, second), survey.EFORBIDDEN)
		second.State = survey.Draft
		if err := g.Create(ctx, second); err != nil {
			t.Fatal(err)
		}
		_, err = g.SetState(ctx, key, second.Slug, survey.Published)
		wantCode(t, "Publish over the limit", err, survey.EFORBIDDEN)
		if got, _ := surveys.Get(ctx, key, second.Slug); got.State != survey.Draft {
			t.Fatalf("a refused publish left the survey %s", got.State)
		}
		if _, err := g.SetState(ctx, key, first.Slug, survey.Published); err != nil {
			t.Fatalf("publishing an already published survey: %v", err)
		}
		// Closing one frees the slot.
		if _, err := g.SetState(ctx, key, first.Slug, survey.Closed); err != nil {
			t.Fatal(err)
		}
		if _, err := g.SetState(ctx, key, second.Slug, survey.Published); err != nil {
			t.Fatalf("publish after closing the other: %v", err)
		}

		// A bigger plan lifts the limits.
		tn.Plan = survey.Premium
		if err := tenants.Update(ctx, tn); err != nil {
			t.Fatal(err)
		}
		if _, err := g.SetState(ctx, key, first.Slug, survey.Published); err != nil {
			t.Fatalf("Premium publish: %v", err)
		}

		// An ended trial publishes nothing; a suspended tenant neither.
		tn.Plan, tn.CreatedOn = survey.Trial, time.Now().AddDate(0, 0, -31)
		if err := tenants.Update(ctx, tn); err != nil {
			t.Fatal(err)
		}
		third := &survey.Survey{Tenant: key, Title: "Third", Questions: questions(1)}
		if err := g.Create(ctx, third); err != nil {
			t.Fatalf("a draft after the trial: %v", err)
		}
		_, err = g.SetState(ctx, key, third.Slug, survey.Published)
		wantCode(t, "Publish after the trial", err, survey.EFORBIDDEN)
		if !strings.Contains(survey.ErrorMessage(err), "trial ended") {
			t.Errorf("message %q does not say the trial ended", survey.ErrorMessage(err))
		}
		tn.Plan, tn.Suspended = survey.Premium, true
		if err := tenants.Update(ctx, tn); err != nil {
			t.Fatal(err)
		}
		_, err = g.SetState(ctx, key, third.Slug, survey.Published)
		wantCode(t, "Publish while suspended", err, survey.EFORBIDDEN)
	})
}
