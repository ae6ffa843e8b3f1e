package survey_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

func sectioned() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Title: "Lunch", State: survey.Draft,
		Sections: []survey.Section{{ID: "about", Title: "About you"}, {Title: "Food", Description: "What you ate", Shuffle: true}, {ID: "last", Title: "Last"}},
		Questions: []survey.Question{
			{Text: "Name", Type: survey.SimpleText, Section: "about"},
			{Text: "Rate", Type: survey.FiveStars, Section: "s1"},
			{Text: "Last words", Type: survey.SimpleText, Section: "last"},
			{Text: "Age", Type: survey.SimpleText},
		}}
}

func TestSectionsNormalize(t *testing.T) {
	s := sectioned()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	// The second section had no ID: it gets the first free one.
	if s.Sections[1].ID != "s1" {
		t.Errorf("sections %+v", s.Sections)
	}
	var got []string
	for _, q := range s.Questions {
		got = append(got, q.Text+"@"+q.Section)
	}
	// Questions are ordered by section; "" is the first.
	if want := "Name@about,Age@about,Rate@s1,Last words@last"; strings.Join(got, ",") != want {
		t.Errorf("questions %s, want %s", strings.Join(got, ","), want)
	}
	pages := s.Pages()
	if len(pages) != 3 || pages[1].Section.Title != "Food" || !pages[1].Section.Shuffle || pages[1].First != 2 || len(pages[0].Questions) != 2 {
		t.Errorf("pages %+v", pages)
	}
}

func TestSectionsNone(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sections []survey.Section
	}{
		{"none", nil},
		{"one blank section is none", []survey.Section{{ID: "s4"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &survey.Survey{Tenant: "adatum", Title: "T", State: survey.Draft, Sections: tc.sections,
				Questions: []survey.Question{{Text: "Q", Type: survey.SimpleText, Section: "s4"}}}
			s.Normalize()
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.Sections != nil || s.Questions[0].Section != "" {
				t.Errorf("%+v %+v", s.Sections, s.Questions)
			}
			if p := s.Pages(); len(p) != 1 || len(p[0].Questions) != 1 {
				t.Errorf("pages %+v", p)
			}
		})
	}
}

func TestSectionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(s *survey.Survey)
		field string
	}{
		{"empty section", func(s *survey.Survey) { s.Questions = s.Questions[:3]; s.Questions[2].Section = "about" }, "sections.2"},
		{"only hidden questions", func(s *survey.Survey) { s.Questions[2].Hidden = true }, "sections.2"},
		{"unknown section", func(s *survey.Survey) { s.Questions[1].Section = "nowhere" }, "questions.3.section"},
		{"the end's ID", func(s *survey.Survey) {
			for i := range s.Questions {
				if s.Questions[i].Section == s.Sections[1].ID {
					s.Questions[i].Section = survey.JumpEnd
				}
			}
			s.Sections[1].ID = survey.JumpEnd
		}, "sections.1.id"},
		{"long title", func(s *survey.Survey) { s.Sections[0].Title = strings.Repeat("x", survey.MaxTitleLength+1) }, "sections.0.title"},
		{"long description", func(s *survey.Survey) { s.Sections[0].Description = strings.Repeat("x", survey.MaxDescriptionLength+1) }, "sections.0.description"},
		{"too many", func(s *survey.Survey) {
			for range survey.MaxSections {
				s.Sections = append(s.Sections, survey.Section{Title: "More"})
			}
		}, "sections"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sectioned()
			tc.edit(s)
			s.Normalize()
			var e *survey.Error
			if err := s.Validate(); !errors.As(err, &e) || e.Fields[tc.field] == "" {
				t.Fatalf("got %v, want a problem of %s", err, tc.field)
			}
		})
	}
	// Validate without Normalize: duplicate and bad IDs.
	s := sectioned()
	s.Normalize()
	s.Sections[1].ID = "about"
	s.Sections[2].ID = "Bad ID"
	var e *survey.Error
	if err := s.Validate(); !errors.As(err, &e) || e.Fields["sections.1.id"] == "" || e.Fields["sections.2.id"] == "" {
		t.Errorf("got %v", err)
	}
}

func TestSectionsSurviveReviseAndDuplicate(t *testing.T) {
	cur := sectioned()
	cur.Normalize()
	for i := range cur.Questions {
		cur.Questions[i].ID = "v1_00" + string(rune('0'+i))
	}
	cur.State = survey.Published
	sum := survey.NewSummary(cur)
	sum.Add(survey.SurveyAnswer{Answers: []survey.QuestionAnswer{{QuestionID: cur.Questions[2].ID, QuestionText: "Rate", Type: survey.FiveStars, Answer: "4"}}})
	// The edit drops the second section and its answered question.
	next := *cur
	next.Sections = []survey.Section{cur.Sections[0], cur.Sections[2]}
	next.Questions = []survey.Question{cur.Questions[0], cur.Questions[1], cur.Questions[3]}
	rev, err := survey.Revise(cur, &next, sum)
	if err != nil {
		t.Fatal(err)
	}
	got := rev.Survey
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(got.Sections) != 2 || got.Sections[1].ID != "last" || got.Questions[2].Section != "last" {
		t.Errorf("sections %+v questions %+v", got.Sections, got.Questions)
	}
	if h := got.Questions[3]; !h.Hidden || h.Text != "Rate" {
		t.Errorf("hidden %+v", h)
	}
	if p := got.Visible().Pages(); len(p) != 2 || len(p[1].Questions) != 1 {
		t.Errorf("pages %+v", p)
	}
	cp := got.Duplicate(time.Now())
	cp.Normalize()
	if err := cp.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(cp.Sections) != 2 || cp.Sections[0].ID != "about" || cp.Questions[2].Section != "last" || len(cp.Questions) != 3 {
		t.Errorf("duplicate %+v %+v", cp.Sections, cp.Questions)
	}
	cp.Sections[0].Title = "changed"
	if got.Sections[0].Title == "changed" {
		t.Error("the duplicate shares its sections")
	}
}
