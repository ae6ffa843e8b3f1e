package survey

import (
	"strings"
	"testing"
)

func TestSlugify(t *testing.T) {
	tests := []struct{ title, want string }{
		{"Customer Satisfaction 2026", "customer-satisfaction-2026"},
		{"  Ünïcödé — Umfrage für Kunden!  ", "unicode-umfrage-fur-kunden"},
		{"😀🎉", "survey"},
		{"???", "survey"},
		{"", "survey"},
		{"日本語のアンケート", "ri-ben-yu-noanketo"},
		{strings.Repeat("very long words ", 20), "very-long-words-very-long-words-very-long-words"},
		{strings.Repeat("x", 100), strings.Repeat("x", MaxSlugLength)},
	}
	for _, tc := range tests {
		got := Slugify(tc.title)
		if got != tc.want {
			t.Errorf("Slugify(%q) = %q, want %q", tc.title, got, tc.want)
		}
		if !ValidSlug(got) {
			t.Errorf("Slugify(%q) = %q is not a valid slug", tc.title, got)
		}
	}
}

func FuzzSlugify(f *testing.F) {
	for _, s := range []string{"Customer Satisfaction", "😀", "a--b", "-x-", strings.Repeat("ab ", 40), "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		s := Slugify(title)
		if !ValidSlug(s) || len(s) > MaxSlugLength {
			t.Fatalf("Slugify(%q) = %q: not a valid slug", title, s)
		}
	})
}

func TestTenantKey(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Adatum", "adatum"},
		{"Fabrikam, Inc.", "fabrikaminc"},
		{"Contoso-Ltd", "contosoltd"},
		{"A", ""},
		{"😀", ""},
		{strings.Repeat("ab", 20), strings.Repeat("ab", 12)},
	}
	for _, tc := range tests {
		if got := TenantKey(tc.name); got != tc.want {
			t.Errorf("TenantKey(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	for key, ok := range map[string]bool{"adatum": true, "a1": true, "api": false, "a": false, "a-b": false, "Adatum": false, strings.Repeat("a", 25): false} {
		if err := ValidateTenantKey(key); (err == nil) != ok {
			t.Errorf("ValidateTenantKey(%q) = %v, want ok=%v", key, err, ok)
		}
	}
}

func validSurvey() *Survey {
	return &Survey{Tenant: "adatum", Title: "Feedback", State: Draft, Questions: []Question{
		{ID: "q1", Text: "Name a thing", Type: SimpleText},
		{ID: "q2", Text: "Pick one", Type: MultipleChoice, PossibleAnswers: []string{"Red", "Blue"}},
		{ID: "q3", Text: "Rate us", Type: FiveStars},
	}}
}

// forms is the forms of one value per question, by question ID, for the
// tests inside the package (the others have surveytest.Forms, which this
// package's own tests cannot import).
func forms(values map[string]string) map[string]Form {
	out := make(map[string]Form, len(values))
	for id, v := range values {
		out[id] = Value(v)
	}
	return out
}

func TestSurveyValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(s *Survey)
		field  string // "" when valid
	}{
		{"valid", func(s *Survey) {}, ""},
		{"no title", func(s *Survey) { s.Title = "  " }, "title"},
		{"long title", func(s *Survey) { s.Title = strings.Repeat("é", MaxTitleLength+1) }, "title"},
		{"no questions", func(s *Survey) { s.Questions = nil }, "questions"},
		{"too many questions", func(s *Survey) {
			for len(s.Questions) <= MaxQuestions {
				s.Questions = append(s.Questions, Question{Text: "q", Type: FiveStars})
			}
		}, "questions"},
		{"empty question", func(s *Survey) { s.Questions[0].Text = "" }, "questions.0.text"},
		{"unknown type", func(s *Survey) { s.Questions[0].Type = "Essay" }, "questions.0.type"},
		{"one choice", func(s *Survey) { s.Questions[1].PossibleAnswers = []string{"Red"} }, "questions.1.choices"},
		{"duplicate choice", func(s *Survey) { s.Questions[1].PossibleAnswers = []string{"Red", "Red"} }, "questions.1.choices"},
		{"bad state", func(s *Survey) { s.State = "archived" }, "state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := validSurvey()
			tc.change(s)
			err := s.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Code != EINVALID {
				t.Fatalf("Validate = %v, want an EINVALID *Error", err)
			}
			if e.Fields[tc.field] == "" {
				t.Errorf("no message for field %s in %v", tc.field, e.Fields)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	s := validSurvey()
	s.Title = "  Feedback  "
	s.Questions[1].PossibleAnswers = []string{" Red ", "", "Blue"}
	s.Questions[0].PossibleAnswers = []string{"stray"}
	s.Normalize()
	if s.Title != "Feedback" || strings.Join(s.Questions[1].PossibleAnswers, ",") != "Red,Blue" || s.Questions[0].PossibleAnswers != nil {
		t.Errorf("Normalize gave %+v", s)
	}
}

func TestNewAnswer(t *testing.T) {
	s := validSurvey()
	tests := []struct {
		name    string
		answers map[string]string
		bad     []string
	}{
		{"complete", map[string]string{"q1": "A thing", "q2": "Blue", "q3": "4"}, nil},
		{"missing all", map[string]string{}, []string{"q1", "q2", "q3"}},
		{"not offered", map[string]string{"q1": "x", "q2": "Green", "q3": "4"}, []string{"q2"}},
		{"stars out of range", map[string]string{"q1": "x", "q2": "Red", "q3": "6"}, []string{"q3"}},
		{"stars not a number", map[string]string{"q1": "x", "q2": "Red", "q3": "five"}, []string{"q3"}},
		{"text too long", map[string]string{"q1": strings.Repeat("a", MaxTextAnswerLength+1), "q2": "Red", "q3": "1"}, []string{"q1"}},
		{"blank text", map[string]string{"q1": "   ", "q2": "Red", "q3": "1"}, []string{"q1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAnswer(s, forms(tc.answers))
			if len(tc.bad) == 0 {
				if err != nil {
					t.Fatalf("NewAnswer: %v", err)
				}
				if len(a.Answers) != 3 || a.Answers[2].Answer != "4" || a.Tenant != "adatum" {
					t.Errorf("answer = %+v", a)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Code != EINVALID || len(e.Fields) != len(tc.bad) {
				t.Fatalf("NewAnswer = %v, want errors for %v", err, tc.bad)
			}
			for _, id := range tc.bad {
				if e.Fields[id] == "" {
					t.Errorf("no message for %s", id)
				}
			}
		})
	}
}

func FuzzNewAnswer(f *testing.F) {
	f.Add("A thing", "Blue", "4")
	f.Add("", "Green", "0")
	f.Add("\xff\xfe", "Red", " 5 ")
	s := validSurvey()
	f.Fuzz(func(t *testing.T, text, choice, stars string) {
		a, err := NewAnswer(s, forms(map[string]string{"q1": text, "q2": choice, "q3": stars}))
		if err != nil {
			if ErrorCode(err) != EINVALID {
				t.Fatalf("error %v is not EINVALID", err)
			}
			return
		}
		if a.Answers[1].Answer != "Red" && a.Answers[1].Answer != "Blue" {
			t.Fatalf("accepted choice %q", a.Answers[1].Answer)
		}
		if a.Answers[2].Answer < "1" || a.Answers[2].Answer > "5" || len(a.Answers[2].Answer) != 1 {
			t.Fatalf("accepted rating %q", a.Answers[2].Answer)
		}
	})
}

func FuzzTenantKey(f *testing.F) {
	for _, s := range []string{"Adatum", "a_b", "Fabrikam, Inc.", "😀x", strings.Repeat("Zz", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		k := TenantKey(name)
		if k != "" && !tenantKeyRE.MatchString(k) {
			t.Fatalf("TenantKey(%q) = %q: not a key", name, k)
		}
	})
}
