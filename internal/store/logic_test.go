package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// logicSample is sectionedSample with logic: "Pick one" (q2) is asked only
// when the rating (q1) is above 3, "colours" only when q1 is answered, and
// after "intro" a rating of 1 goes to the end. Its questions' IDs are the
// ones its rules name until Create gives them their own.
func logicSample(tenant string) *survey.Survey {
	s := sectionedSample(tenant)
	for i := range s.Questions {
		s.Questions[i].ID = []string{"a", "b", "c", "d"}[i]
	}
	s.Questions[1].Section = "intro" // intro: a, b; s1: c, d
	s.Questions[1].ShowIf = &survey.Condition{Rules: []survey.Rule{{Question: "a", Op: survey.OpGreaterThan, Values: []string{"3"}}}}
	s.Sections[0].Jumps = []survey.Jump{{If: survey.Condition{Match: survey.MatchAny, Rules: []survey.Rule{{Question: "a", Op: survey.OpEquals, Values: []string{"1"}}}}, To: survey.JumpEnd}}
	s.Sections[1].ShowIf = &survey.Condition{Rules: []survey.Rule{{Question: "a", Op: survey.OpAnswered}}}
	return s
}

// TestLogicStored: a survey's conditions and jumps round-trip on both
// backends, their rules renamed to the IDs Create gives the questions;
// they survive an edit, closing and a duplicate; a rule on a question the
// edit removes is refused and nothing is saved.
func TestLogicStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := logicSample(tenant)
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		check := func(what string, got *survey.Survey) {
			t.Helper()
			q0 := got.Questions[0].ID
			if q0 == "a" {
				t.Fatalf("%s: the questions kept the IDs they came with", what)
			}
			sc := got.Questions[1].ShowIf
			if sc == nil || len(sc.Rules) != 1 || sc.Rules[0].Question != q0 || sc.Rules[0].Op != survey.OpGreaterThan || len(sc.Rules[0].Values) != 1 || sc.Rules[0].Values[0] != "3" || sc.Match != survey.MatchAll {
				t.Errorf("%s: question's condition %+v", what, sc)
			}
			if len(got.Sections) != 2 || len(got.Sections[0].Jumps) != 1 || got.Sections[0].Jumps[0].To != survey.JumpEnd ||
				got.Sections[0].Jumps[0].If.Match != survey.MatchAny || got.Sections[0].Jumps[0].If.Rules[0].Question != q0 {
				t.Errorf("%s: jumps %+v", what, got.Sections)
			}
			if c := got.Sections[1].ShowIf; c == nil || c.Rules[0].Question != q0 || c.Rules[0].Op != survey.OpAnswered {
				t.Errorf("%s: section's condition %+v", what, c)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("%s: %v", what, err)
			}
			// And it works: a rating of 1 ends the survey after intro.
			a := map[string]survey.QuestionAnswer{q0: {QuestionID: q0, Type: survey.FiveStars, Answer: "1"}}
			if p := got.Path(a); len(p) != 1 {
				t.Errorf("%s: path %v", what, p)
			}
		}
		check("created", s)
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		check("read", got)

		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Published); err != nil {
			t.Fatal(err)
		}
		got, _ = ss.Get(ctx, tenant, s.Slug)
		got.Title = "Paged, edited"
		if err := ss.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		got, _ = ss.Get(ctx, tenant, s.Slug)
		check("edited", got)
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Closed); err != nil {
			t.Fatal(err)
		}
		got, _ = ss.Get(ctx, tenant, s.Slug)
		check("closed", got)

		cp := got.Duplicate(got.CreatedOn)
		if err := ss.Create(ctx, cp); err != nil {
			t.Fatal(err)
		}
		dup, _ := ss.Get(ctx, tenant, cp.Slug)
		check("duplicate", dup)

		// Removing the question the rules look at is refused.
		dup.Questions = dup.Questions[1:]
		err = ss.Update(ctx, dup)
		var e *survey.Error
		if !errors.As(err, &e) || e.Fields["questions.0.showIf.rules.0.question"] == "" {
			t.Fatalf("a rule on a removed question: %v", err)
		}
		again, _ := ss.Get(ctx, tenant, cp.Slug)
		check("after the refused edit", again)
	})
}
