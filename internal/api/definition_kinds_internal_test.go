package api

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDefinitionNewKinds: the settings of the yes/no, consent, slider and
// contact kinds and a short text's pattern, and the translations of their
// texts, come back whole from a definition's export and import, and the
// JSON names them as the OpenAPI document does.
func TestDefinitionNewKinds(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Slug: "kinds", Title: "New kinds", State: survey.Published, Questions: []survey.Question{
		{ID: "a", Text: "Again?", Type: survey.YesNo},
		{ID: "b", Text: "Consent", Type: survey.Consent, Statement: "I agree.\nTruly."},
		{ID: "c", Text: "Warm?", Type: survey.Slider, Min: "-10", Max: "30", Step: "5", LowLabel: "Cold", HighLabel: "Hot"},
		{ID: "e", Text: "Member number", Type: survey.ShortText, Pattern: `[A-Z]{2}\d{6}`, PatternMessage: "Two capitals, six digits."},
		{ID: "d", Text: "Reach you", Type: survey.Contact, Parts: map[string]string{"name": "required", "email": "optional", "country": "optional"}},
		{ID: "f", Text: "Colours", Type: survey.PictureChoice, Multiple: true, Min: "1", Pictures: []survey.Picture{
			{Label: "Red", Alt: "A red door", Image: "adatum-0a1b2c3d4e5f.png"}, {Label: "Green", Alt: "A green door", Image: "adatum-00000000beef.jpg"}}},
	}, Language: "en", Translations: map[string]survey.Translation{"de": {Questions: map[string]survey.QuestionText{
		"b": {Text: "Einwilligung", Statement: "Ich stimme zu.\nWirklich."},
		"c": {LowLabel: "Kalt", HighLabel: "Heiß"},
		"e": {PatternMessage: "Zwei Großbuchstaben, sechs Ziffern."},
		"f": {Choices: map[string]string{"Red": "Rot"}, Alts: map[string]string{"Red": "Eine rote Tür"}},
	}}}}
	sv.Normalize()
	if err := sv.Validate(); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(DefinitionOf(sv))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Questions []map[string]any `json:"questions"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if got := raw.Questions[1]["statement"]; got != "I agree.\nTruly." {
		t.Errorf("statement in JSON = %v", got)
	}
	if got := raw.Questions[2]["step"]; got != 5.0 || raw.Questions[2]["min"] != -10.0 {
		t.Errorf("slider in JSON: step %v, min %v; want numbers", got, raw.Questions[2]["min"])
	}
	if got := raw.Questions[3]; got["pattern"] != `[A-Z]{2}\d{6}` || got["patternMessage"] != "Two capitals, six digits." {
		t.Errorf("pattern in JSON = %v", got)
	}
	if got := raw.Questions[4]["parts"]; !reflect.DeepEqual(got, map[string]any{"name": "required", "email": "optional", "country": "optional"}) {
		t.Errorf("contact parts in JSON = %v", got)
	}
	if got := raw.Questions[5]; got["multiple"] != true || !reflect.DeepEqual(got["pictures"], []any{
		map[string]any{"label": "Red", "alt": "A red door", "image": "adatum-0a1b2c3d4e5f.png"},
		map[string]any{"label": "Green", "alt": "A green door", "image": "adatum-00000000beef.jpg"}}) {
		t.Errorf("pictures in JSON = %v", got)
	}
	// Imported by another tenant: its images are not that tenant's.
	if _, err := ParseDefinition("fabrikam", data); err == nil || err.(*survey.Error).Fields["questions.5.pictures.0.image"] == "" {
		t.Errorf("Adatum's pictures imported by Fabrikam: %v", err)
	}
	back, err := ParseDefinition("adatum", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Questions) != len(sv.Questions) {
		t.Fatalf("%d questions back, want %d", len(back.Questions), len(sv.Questions))
	}
	for i, q := range back.Questions {
		want := sv.Questions[i]
		want.ID = q.ID
		if !reflect.DeepEqual(q, want) {
			t.Errorf("question %d back as %+v, want %+v", i, q, want)
		}
	}
	if got := back.Translations["de"].Questions[back.Questions[1].ID].Statement; got != "Ich stimme zu.\nWirklich." {
		t.Errorf("translated statement back as %q", got)
	}
	if got := back.Translations["de"].Questions[back.Questions[2].ID]; got.LowLabel != "Kalt" || got.HighLabel != "Heiß" {
		t.Errorf("translated slider labels back as %+v", got)
	}
	if got := back.Translations["de"].Questions[back.Questions[3].ID].PatternMessage; got != "Zwei Großbuchstaben, sechs Ziffern." {
		t.Errorf("translated pattern message back as %q", got)
	}
	if got := back.Translations["de"].Questions[back.Questions[5].ID]; got.Alt("Red", "") != "Eine rote Tür" || got.Choice("Red") != "Rot" {
		t.Errorf("translated picture back as %+v", got)
	}
	// A definition whose pattern is not RE2 is refused beside it.
	bad := []byte(`{"format":"surveys.definition/1","title":"T","questions":[{"text":"Q","type":"ShortText","pattern":"(a)\\1","patternMessage":"m"}]}`)
	if _, err := ParseDefinition("adatum", bad); err == nil || err.(*survey.Error).Fields["questions.0.pattern"] == "" {
		t.Errorf("a pattern with a backreference: %v", err)
	}
}
