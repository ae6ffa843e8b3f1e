package store_test

import (
	"context"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestTranslationsStored: a survey's language and translations are saved
// with it on both backends, follow their questions through an edit of the
// draft (which numbers its questions afresh) and a duplicate, survive
// publishing, and a bad one is refused whole, nothing saved.
func TestTranslationsStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Colours")
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		pick := s.Questions[1].ID
		fr := survey.Translation{Title: "Couleurs", Questions: map[string]survey.QuestionText{
			pick: {Text: "Choisissez", Choices: map[string]string{"Red": "Rouge", "Blue": "Bleu", "Gone": "Parti"}},
		}}
		if err := ss.SetTranslations(ctx, tenant, s.Slug, "en", map[string]survey.Translation{"fr": fr, "de": {}}); err != nil {
			t.Fatal(err)
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		tr, ok := got.Translated("fr")
		if !ok || tr.Title != "Couleurs" || tr.Questions[pick].Text != "Choisissez" || tr.Questions[pick].Choice("Red") != "Rouge" || tr.Questions[pick].Choice("Green") != "Green" {
			t.Fatalf("translations %+v", got.Translations)
		}
		if _, ok := tr.Questions[pick].Choices["Gone"]; ok {
			t.Error("the translation of a choice the question does not have was kept")
		}
		if _, ok := got.Translations["de"]; ok {
			t.Error("an empty translation was kept")
		}
		// The designer's edit (no translations said) keeps them, on the
		// question's new ID.
		got.Translations, got.Title = nil, "Colours!"
		if err := ss.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		got, _ = ss.Get(ctx, tenant, s.Slug)
		if tr, _ := got.Translated("fr"); tr.Questions[got.Questions[1].ID].Text != "Choisissez" {
			t.Fatalf("after an edit: %+v (question %s)", got.Translations, got.Questions[1].ID)
		}
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Published); err != nil {
			t.Fatal(err)
		}
		cp := got.Duplicate(got.CreatedOn)
		if err := ss.Create(ctx, cp); err != nil {
			t.Fatal(err)
		}
		dup, _ := ss.Get(ctx, tenant, cp.Slug)
		if tr, _ := dup.Translated("fr"); tr.Questions[dup.Questions[1].ID].Choice("Blue") != "Bleu" {
			t.Errorf("duplicate: %+v", dup.Translations)
		}
		// Bad: an unknown language, a title too long.
		long := make([]rune, survey.MaxTitleLength+1)
		for i := range long {
			long[i] = 'x'
		}
		for _, bad := range []map[string]survey.Translation{{"xx": {Title: "X"}}, {"fr": {Title: string(long)}}} {
			err := ss.SetTranslations(ctx, tenant, s.Slug, "", bad)
			wantCode(t, "bad translation", err, survey.EINVALID)
		}
		if err := ss.SetTranslations(ctx, tenant, s.Slug, "zz", nil); survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("unknown language: %v", err)
		}
		again, _ := ss.Get(ctx, tenant, s.Slug)
		if tr, _ := again.Translated("fr"); tr.Title != "Couleurs" || again.State != survey.Published {
			t.Errorf("a refused change saved something: %+v", again.Translations)
		}
	})
}
