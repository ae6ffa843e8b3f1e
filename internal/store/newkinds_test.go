package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestNewKindsSettingsStored: the settings of the consent, slider and
// contact kinds and a short text's pattern, and the translations of their
// texts, are read back as saved, from either backend.
func TestNewKindsSettingsStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		surveys := store.NewSurveyStore(st)
		s := &survey.Survey{Tenant: tenant, Title: "New kinds", State: survey.Draft, Questions: []survey.Question{
			{Text: "Again?", Type: survey.YesNo},
			{Text: "Consent", Type: survey.Consent, Statement: "I agree.\nTruly."},
			{Text: "Warm?", Type: survey.Slider, Min: "-10", Max: "30", Step: "5", LowLabel: "Cold", HighLabel: "Hot"},
			{Text: "Reach you", Type: survey.Contact, Parts: map[string]string{"name": "required", "phone": "optional"}},
			{Text: "Member number", Type: survey.ShortText, Pattern: `[A-Z]{2}\d{6}`, PatternMessage: "Two capitals, six digits."},
			{Text: "Colours", Type: survey.PictureChoice, Multiple: true, Max: "2", Pictures: []survey.Picture{
				{Label: "Red", Alt: "A red door", Image: tenant + "-0a1b2c3d4e5f.png"}, {Label: "Green", Alt: "A green door", Image: tenant + "-00000000beef.jpg"}}},
		}}
		if err := surveys.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := surveys.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		want := []survey.Question{
			{Type: survey.YesNo},
			{Type: survey.Consent, Statement: "I agree.\nTruly."},
			{Type: survey.Slider, Min: "-10", Max: "30", Step: "5", LowLabel: "Cold", HighLabel: "Hot"},
			{Type: survey.Contact, Parts: map[string]string{"name": "required", "phone": "optional"}},
			{Type: survey.ShortText, Pattern: `[A-Z]{2}\d{6}`, PatternMessage: "Two capitals, six digits."},
			{Type: survey.PictureChoice, Multiple: true, Max: "2", Pictures: []survey.Picture{
				{Label: "Red", Alt: "A red door", Image: tenant + "-0a1b2c3d4e5f.png"}, {Label: "Green", Alt: "A green door", Image: tenant + "-00000000beef.jpg"}}},
		}
		for i, q := range got.Questions {
			w := want[i]
			if q.Type != w.Type || q.Statement != w.Statement || q.Min != w.Min || q.Max != w.Max || q.Step != w.Step ||
				q.LowLabel != w.LowLabel || !reflect.DeepEqual(q.Parts, w.Parts) || q.Pattern != w.Pattern || q.PatternMessage != w.PatternMessage ||
				!reflect.DeepEqual(q.Pictures, w.Pictures) || q.Multiple != w.Multiple {
				t.Errorf("question %d read back as %+v, want %+v", i, q, w)
			}
		}
		got.Translations = map[string]survey.Translation{"de": {Questions: map[string]survey.QuestionText{
			got.Questions[1].ID: {Statement: "Ich stimme zu."},
			got.Questions[4].ID: {PatternMessage: "Zwei Großbuchstaben, sechs Ziffern."},
			got.Questions[5].ID: {Choices: map[string]string{"Red": "Rot"}, Alts: map[string]string{"Green": "Eine grüne Tür"}},
		}}}
		if err := surveys.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		again, err := surveys.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		de := again.Translations["de"].Questions
		if de[again.Questions[1].ID].Statement != "Ich stimme zu." || de[again.Questions[4].ID].PatternMessage != "Zwei Großbuchstaben, sechs Ziffern." ||
			de[again.Questions[5].ID].Choice("Red") != "Rot" || de[again.Questions[5].ID].Alt("Green", "") != "Eine grüne Tür" {
			t.Errorf("translations read back as %+v", again.Translations)
		}
	})
}
