package survey_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// piped is a survey of three pages whose later texts recall earlier
// answers and a hidden field.
func piped() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Title: "Piped", State: survey.Draft, HiddenFields: []string{"source"},
		Sections: []survey.Section{{ID: "a"}, {ID: "b", Title: "About {{name}}"}, {ID: "c", Description: "Thanks, {{name|friend}}, from {{source|the web}}."}},
		Questions: []survey.Question{
			{ID: "name", Text: "Your name? (via {{source}})", Type: survey.ShortText, Section: "a"},
			{ID: "pet", Text: "Your pet?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Cat", "Dog"}, Section: "a"},
			{ID: "why", Text: "Why a {{pet|pet}}, {{name}}?", Help: "Tell us about your {{pet}}.", Type: survey.SimpleText, Section: "b"},
			{ID: "more", Text: "More about {{hidden:source}}?", Type: survey.SimpleText, Section: "c", Optional: true},
		}}
}

func TestPipingValid(t *testing.T) {
	s := piped()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestPipingRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(s *survey.Survey)
		key    string
	}{
		{"a later question", func(s *survey.Survey) { s.Questions[0].Text = "Before {{why}}?" }, "questions.0.text"},
		{"the same page", func(s *survey.Survey) { s.Questions[1].Help = "After {{name}}" }, "questions.1.help"},
		{"itself", func(s *survey.Survey) { s.Questions[2].Text = "Again {{why}}?" }, "questions.2.text"},
		{"an unknown question", func(s *survey.Survey) { s.Questions[2].Text = "{{q9|x}}?" }, "questions.2.text"},
		{"an undeclared hidden field", func(s *survey.Survey) { s.Questions[3].Text = "{{hidden:medium}}?" }, "questions.3.text"},
		{"a section on its own question", func(s *survey.Survey) { s.Sections[1].Title = "About {{why}}" }, "sections.1.title"},
		{"a hidden question", func(s *survey.Survey) {
			s.Questions[1].Hidden = true
			s.Questions[2].Text = "{{pet}}?"
			s.Questions[2].Help = ""
		}, "questions.2.text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := piped()
			c.change(s)
			s.Normalize()
			var e *survey.Error
			if err := s.Validate(); !errors.As(err, &e) || e.Fields[c.key] == "" {
				t.Fatalf("Validate = %v, want a problem at %s", err, c.key)
			}
		})
	}
	s := piped()
	s.HiddenFields = []string{"q3"}
	if p := s.Problems(); p["hiddenFields"] == "" {
		t.Error("a hidden field named as the designer names question 3")
	}
}

func TestPipe(t *testing.T) {
	s := piped()
	s.Normalize()
	given := s.GivenWith(map[string]survey.Form{"name": {"": {"<Ann>"}}, "pet": {"": {"Dog"}}}, nil)
	for _, c := range []struct {
		text   string
		hidden map[string]string
		want   string
	}{
		{"Why a {{pet|pet}}, {{name}}?", nil, "Why a Dog, <Ann>?"},
		{"{{ name | someone }} and {{why|no reason}}", nil, "<Ann> and no reason"},
		{"Via {{source|the web}} and {{hidden:source}}.", map[string]string{"source": "mail"}, "Via mail and mail."},
		{"Via {{source|the web}}{{hidden:source}}.", nil, "Via the web."},
		{"No references, {braces} and {{ broken", nil, "No references, {braces} and {{ broken"},
		{"{{unknown|kept fallback}}", nil, "kept fallback"},
	} {
		if got := s.Pipe(c.text, given, c.hidden); got != c.want {
			t.Errorf("Pipe(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestPipingRenamed: the store's new IDs follow the references, as the
// rules do, in the questions' texts and their translations.
func TestPipingRenamed(t *testing.T) {
	s := piped()
	s.Translations = map[string]survey.Translation{"fr": {Questions: map[string]survey.QuestionText{"why": {Text: "Pourquoi un {{pet|animal}} ?"}}}}
	s.RenameQuestions([]string{"v_000", "v_001", "v_002", "v_003"})
	if s.Questions[2].Text != "Why a {{v_001|pet}}, {{v_000}}?" || s.Questions[2].Help != "Tell us about your {{v_001}}." || s.Sections[1].Title != "About {{v_000}}" ||
		s.Questions[0].Text != "Your name? (via {{source}})" {
		t.Errorf("renamed: %q %q %q", s.Questions[2].Text, s.Questions[2].Help, s.Sections[1].Title)
	}
	if got := s.Translations["fr"].Questions["v_002"].Text; got != "Pourquoi un {{v_001|animal}} ?" {
		t.Errorf("translation: %q", got)
	}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}

// TestPipingThankYou: the thank-you message may recall any question and
// the hidden fields, and only what it recalls travels to its page.
func TestPipingThankYou(t *testing.T) {
	s := piped()
	s.ThankYou = "Thanks, {{name|friend}}, for your {{pet}} and {{source|nothing}}."
	s.Translations = map[string]survey.Translation{"fr": {ThankYou: "Merci pour {{why}}"}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	forms := map[string]survey.Form{"name": {"": {strings.Repeat("n", 300)}}, "pet": {"": {"Cat"}}}
	given := s.GivenWith(forms, map[string]string{"source": "mail"})
	got := s.Recalled(given, map[string]string{"source": "mail"})
	want := map[string]string{"name": strings.Repeat("n", survey.MaxRecalled-1) + "…", "pet": "Cat", "source": "mail"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Recalled = %q", got)
	}
	// The same of an answer's list of answers (the thank-you page's
	// address is made from one).
	var list []survey.QuestionAnswer
	for _, qa := range s.Given(forms) {
		list = append(list, qa)
	}
	if got := s.RecalledOf(list, map[string]string{"source": "mail"}); !reflect.DeepEqual(got, want) {
		t.Errorf("RecalledOf = %q", got)
	}
	if got := (&survey.Survey{Questions: s.Questions, ThankYou: "Thanks."}).RecalledOf(list, nil); got != nil {
		t.Errorf("a thank-you recalling nothing: RecalledOf = %q", got)
	}
	if got := survey.PipeRecalled(s.ThankYou, map[string]string{"pet": "Cat"}); got != "Thanks, friend, for your Cat and nothing." {
		t.Errorf("PipeRecalled = %q", got)
	}
	s.ThankYou = "Thanks for {{q9}}"
	if p := s.Problems(); p["thankYou"] == "" {
		t.Errorf("a thank-you naming no question: %v", p)
	}
}

// TestPipingQuizRecalled: a thank-you page that lists the quiz's
// questions (ShowCorrect) recalls what their texts name, and only when it
// lists them.
func TestPipingQuizRecalled(t *testing.T) {
	s := piped()
	s.Questions[2] = survey.Question{ID: "why", Text: "Is a {{pet|pet}} a mammal?", Type: survey.YesNo, Section: "b", Correct: []string{survey.AnswerYes}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	given := s.GivenWith(map[string]survey.Form{"name": {"": {"Ana"}}, "pet": {"": {"Dog"}}}, nil)
	if got := s.Recalled(given, nil); got != nil {
		t.Errorf("without the quiz's list, Recalled = %q", got)
	}
	s.ShowCorrect = true
	got := s.Recalled(given, nil)
	if want := map[string]string{"pet": "Dog"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with the quiz's list, Recalled = %q, want %q", got, want)
	}
	if text := survey.PipeRecalled(s.Questions[2].Text, got); text != "Is a Dog a mammal?" {
		t.Errorf("the listed question reads %q", text)
	}
}
