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
		{ID: "d", Text: "Reach you", Type: survey.Contact, Parts: map[string]string{"name": "required", "email": "optional", "country": "optional"}},
	}, Language: "en", Translations: map[string]survey.Translation{"de": {Questions: map[string]survey.QuestionText{
		"b": {Text: "Einwilligung", Statement: "Ich stimme zu.\nWirklich."},
		"c": {LowLabel: "Kalt", HighLabel: "Heiß"},
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
	if got := raw.Questions[3]["parts"]; !reflect.DeepEqual(got, map[string]any{"name": "required", "email": "optional", "country": "optional"}) {
		t.Errorf("contact parts in JSON = %v", got)
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
}
