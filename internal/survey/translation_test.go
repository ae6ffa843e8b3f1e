package survey

import (
	"strings"
	"testing"
)

func TestTranslations(t *testing.T) {
	base := func() *Survey {
		return &Survey{Title: "Poll", State: Draft, Sections: []Section{{ID: "s0", Title: "Start"}}, Questions: []Question{
			{ID: "a", Text: "Pick", Type: MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Section: "s0"},
			{ID: "b", Text: "Rate", Type: LinearScale, Scale: 5, LowLabel: "Low", Section: "s0"},
		}}
	}
	tests := []struct {
		name  string
		tr    map[string]Translation
		lang  string
		field string // the problem expected, "" for none
		check func(t *testing.T, s *Survey)
	}{
		{"cleaned, stale texts dropped", map[string]Translation{"fr": {Title: "  Sondage ", Sections: map[string]SectionText{"s0": {Title: "Début"}, "gone": {Title: "X"}},
			Questions: map[string]QuestionText{"a": {Choices: map[string]string{"Yes": "Oui", "Maybe": "Peut-être", "No": " "}}, "b": {HighLabel: "Haut", LowLabel: "Bas"}, "zz": {Text: "?"}}}}, "", "",
			func(t *testing.T, s *Survey) {
				fr := s.Translations["fr"]
				if fr.Title != "Sondage" || len(fr.Sections) != 1 || len(fr.Questions) != 2 || len(fr.Questions["a"].Choices) != 1 || fr.Questions["b"].HighLabel != "" || fr.Questions["b"].LowLabel != "Bas" {
					t.Errorf("%+v", fr)
				}
			}},
		{"empty and own-language translations dropped", map[string]Translation{"de": {}, "en": {Title: "Poll!"}}, "", "", func(t *testing.T, s *Survey) {
			if s.Translations != nil {
				t.Errorf("%+v", s.Translations)
			}
		}},
		{"unknown language", map[string]Translation{"xx": {Title: "X"}}, "", "translations.xx", nil},
		{"unknown own language", nil, "klingon", "language", nil},
		{"too long", map[string]Translation{"fr": {Questions: map[string]QuestionText{"a": {Text: strings.Repeat("x", MaxQuestionLength+1)}}}}, "", "translations.fr.questions.a.text", nil},
		{"two choices the same", map[string]Translation{"fr": {Questions: map[string]QuestionText{"a": {Choices: map[string]string{"Yes": "No"}}}}}, "", "translations.fr.questions.a.choices.1", nil},
		{"direction overrides", map[string]Translation{"ar": {Title: "a\u202eb"}}, "", "", func(t *testing.T, s *Survey) {
			if s.Translations["ar"].Title != "ab" {
				t.Errorf("%q", s.Translations["ar"].Title)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			s.Translations, s.Language = tc.tr, tc.lang
			s.Normalize()
			err := s.Validate()
			var fields map[string]string
			if e, ok := err.(*Error); ok {
				fields = e.Fields
			}
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.field != "" && fields[tc.field] == "":
				t.Fatalf("Validate: %v, want a problem at %s", err, tc.field)
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
	// Renamed questions take their translations along; a copy shares none.
	s := base()
	s.Translations = map[string]Translation{"fr": {Questions: map[string]QuestionText{"a": {Text: "Choisir"}}}}
	cp := s.Duplicate(s.CreatedOn)
	if cp.Translations["fr"].Questions["q1"].Text != "Choisir" || s.Translations["fr"].Questions["a"].Text != "Choisir" {
		t.Errorf("duplicate %+v, original %+v", cp.Translations, s.Translations)
	}
	if tr, ok := cp.Translated("fr"); !ok || tr.Questions["q1"].Choice("Yes") != "Yes" {
		t.Error("Translated")
	}
}
