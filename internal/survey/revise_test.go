package survey_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

func published() *survey.Survey {
	s := &survey.Survey{Tenant: "adatum", Slug: "lunch", Title: "Lunch", State: survey.Published, Questions: []survey.Question{
		{ID: "v1_000", Text: "Rate", Type: survey.FiveStars},
		{ID: "v1_001", Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
		{ID: "v1_002", Text: "Rate rows", Type: survey.Matrix, Rows: []string{"Speed", "Price"}, Scale: 5},
		{ID: "v1_003", Text: "Say", Type: survey.SimpleText, Optional: true},
	}}
	s.Normalize()
	return s
}

// summaryOf counts answers (question index → stored answer) to s.
func summaryOf(s *survey.Survey, answers ...map[int]string) *survey.SurveyAnswersSummary {
	sum := survey.NewSummary(s)
	for _, values := range answers {
		var a survey.SurveyAnswer
		for i, v := range values {
			q := s.Questions[i]
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
		}
		sum.Add(a)
	}
	return sum
}

func TestRevise(t *testing.T) {
	cur := published()
	sum := summaryOf(cur, map[int]string{0: "4", 1: "Red", 2: `{"Speed":"3"}`}, map[int]string{0: "5", 1: "Green"})
	edit := func(f func(s *survey.Survey)) *survey.Survey {
		s := *cur
		s.Questions = slices.Clone(cur.Questions)
		f(&s)
		return &s
	}
	for _, tc := range []struct {
		name  string
		next  *survey.Survey
		hides []string
		check func(t *testing.T, got *survey.Survey)
		field string // the refused field, if any
	}{
		{name: "wording", next: edit(func(s *survey.Survey) { s.Questions[0].Text = "Rate us" }), check: func(t *testing.T, got *survey.Survey) {
			if got.Questions[0].ID != "v1_000" || got.Questions[0].Text != "Rate us" || len(got.Questions) != 4 {
				t.Errorf("%+v", got.Questions)
			}
		}},
		{name: "answered choice hidden, unanswered dropped", next: edit(func(s *survey.Survey) { s.Questions[1].PossibleAnswers = []string{"Green", "Yellow"} }),
			hides: []string{"Choice “Red” of question “Pick”"}, check: func(t *testing.T, got *survey.Survey) {
				if q := got.Questions[1]; !slices.Equal(q.HiddenChoices, []string{"Red"}) || !slices.Equal(q.PossibleAnswers, []string{"Green", "Yellow"}) {
					t.Errorf("%+v", q)
				}
			}},
		{name: "answered row hidden", next: edit(func(s *survey.Survey) { s.Questions[2].Rows = []string{"Price", "Taste"} }),
			hides: []string{"Row “Speed” of question “Rate rows”"}, check: func(t *testing.T, got *survey.Survey) {
				if q := got.Questions[2]; !slices.Equal(q.HiddenRows, []string{"Speed"}) {
					t.Errorf("%+v", q)
				}
			}},
		{name: "answered question hidden, unanswered dropped, new one added", next: edit(func(s *survey.Survey) {
			s.Questions = []survey.Question{s.Questions[0], s.Questions[2], {ID: "v1_000", Text: "Twice the ID", Type: survey.SimpleText}, {ID: "forged", Text: "New", Type: survey.SimpleText}}
		}), hides: []string{"Question “Pick” (2 answers)"}, check: func(t *testing.T, got *survey.Survey) {
			ids := []string{}
			for _, q := range got.Questions {
				ids = append(ids, q.ID)
			}
			if strings.Join(ids, ",") != "v1_000,v1_002,,forged,v1_001" || !got.Questions[4].Hidden || got.Questions[2].Hidden {
				t.Errorf("%+v", got.Questions)
			}
		}},
		{name: "hidden by its box", next: edit(func(s *survey.Survey) { s.Questions[0].Hidden = true }), hides: []string{"Question “Rate” (2 answers)"}},
		{name: "kind of an answered question", next: edit(func(s *survey.Survey) { s.Questions[0].Type = survey.SimpleText }), field: "questions.0.type"},
		{name: "kind of an unanswered question", next: edit(func(s *survey.Survey) { s.Questions[3].Type = survey.FiveStars }), check: func(t *testing.T, got *survey.Survey) {
			if got.Questions[3].Type != survey.FiveStars || got.Questions[3].ID != "v1_003" {
				t.Errorf("%+v", got.Questions[3])
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev, err := survey.Revise(cur, tc.next, sum)
			if tc.field != "" {
				var e *survey.Error
				if !asError(err, &e) || e.Fields[tc.field] == "" {
					t.Fatalf("err = %v, want a problem of %s", err, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rev.Answers != 2 || !slices.Equal(rev.Hides, tc.hides) {
				t.Errorf("answers %d, hides %q, want %q", rev.Answers, rev.Hides, tc.hides)
			}
			if err := rev.Survey.Validate(); err != nil {
				t.Errorf("revised survey invalid: %v", err)
			}
			if tc.check != nil {
				tc.check(t, rev.Survey)
			}
		})
	}
}

func asError(err error, e **survey.Error) bool {
	v, ok := err.(*survey.Error)
	*e = v
	return ok
}

// TestEverything: the analysis and exports see hidden questions and
// choices, and what the summary counts that the survey no longer has.
func TestEverything(t *testing.T) {
	s := published()
	s.Questions[1].PossibleAnswers = []string{"Green"}
	s.Questions[1].HiddenChoices = []string{"Red"}
	s.Questions[3].Hidden = true
	sum := summaryOf(published(), map[int]string{1: "Blue"})
	sum.Add(survey.SurveyAnswer{Answers: []survey.QuestionAnswer{{QuestionID: "gone", QuestionText: "Gone", Type: survey.SimpleText, Answer: "hi"}}})
	all := s.Everything(sum)
	if q := all.Questions[1]; !slices.Equal(q.PossibleAnswers, []string{"Green", "Red", "Blue"}) {
		t.Errorf("choices = %q", q.PossibleAnswers)
	}
	if gone, ok := all.Question("gone"); !ok || !gone.Hidden || gone.Text != "Gone" {
		t.Errorf("a counted question the survey lacks: %+v", gone)
	}
	if len(s.Visible().Questions) != 3 || len(s.Questions[1].PossibleAnswers) != 1 {
		t.Errorf("Visible = %+v; Everything changed s", s.Visible().Questions)
	}
	if p := published(); p.Visible() != p {
		t.Error("Visible copied a survey with nothing hidden")
	}
}

func TestDuplicate(t *testing.T) {
	s := published()
	s.Questions[3].Hidden = true
	s.Questions[1].HiddenChoices = []string{"Purple"}
	s.Listed, s.Description, s.ThankYou = true, "About lunch", "Thanks!"
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s.CloseOn = now.AddDate(0, 0, -1).Truncate(24 * time.Hour)
	cp := s.Duplicate(now)
	if cp.Title != "Copy of Lunch" || cp.State != survey.Draft || !cp.Listed || cp.Description != s.Description || cp.ThankYou != s.ThankYou || !cp.CloseOn.IsZero() {
		t.Errorf("copy = %+v", cp)
	}
	if len(cp.Questions) != 3 || cp.Questions[0].ID != "q1" || cp.Questions[1].HiddenChoices != nil { // IDs for its rules, until Create numbers them
		t.Errorf("copy's questions = %+v", cp.Questions)
	}
	cp.Questions[1].PossibleAnswers[0] = "changed"
	if s.Questions[1].PossibleAnswers[0] != "Red" {
		t.Error("the copy shares its choices with the original")
	}
	s.Title = strings.Repeat("x", survey.MaxTitleLength)
	if n := len([]rune(s.Duplicate(now).Title)); n != survey.MaxTitleLength {
		t.Errorf("a long title's copy has %d characters", n)
	}
}

// FuzzRevise: whatever an edit does, a question or choice that has answers
// is never lost (it stays, hidden if taken off), and no question changes
// its ID or, once answered, its kind.
func FuzzRevise(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "Green\nYellow", uint8(0))
	f.Add([]byte{3, 3, 9}, "", uint8(5))
	f.Fuzz(func(t *testing.T, order []byte, choices string, kind uint8) {
		cur := published()
		sum := summaryOf(cur, map[int]string{0: "4", 1: "Red", 3: "hello"}, map[int]string{1: "Blue", 2: `{"Price":"2"}`})
		next := *cur
		next.Questions = nil
		for _, b := range order {
			q := survey.Question{ID: "new", Text: "New", Type: survey.SimpleText}
			if int(b) < len(cur.Questions) {
				q = cur.Questions[b]
			}
			next.Questions = append(next.Questions, q)
		}
		for i := range next.Questions {
			if next.Questions[i].Type == survey.MultipleChoice {
				next.Questions[i].PossibleAnswers = strings.Split(choices, "\n")
			}
		}
		if len(next.Questions) > 0 {
			kinds := survey.Kinds()
			next.Questions[0].Type = kinds[int(kind)%len(kinds)].Type()
		}
		rev, err := survey.Revise(cur, &next, sum)
		if err != nil {
			return
		}
		for _, qs := range sum.Questions {
			if qs.Answered == 0 {
				continue
			}
			q, ok := rev.Survey.Question(qs.QuestionID)
			if !ok {
				t.Fatalf("answered question %s lost", qs.QuestionID)
			}
			if q.Type != qs.Type {
				t.Fatalf("answered question %s changed its kind to %s", qs.QuestionID, q.Type)
			}
			for _, c := range qs.Choices {
				if c.Count > 0 && !slices.Contains(q.WithHidden().PossibleAnswers, c.Answer) {
					t.Fatalf("answered choice %q lost: %+v", c.Answer, q)
				}
			}
		}
	})
}
