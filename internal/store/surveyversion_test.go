package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestUpdateNamesVersion: a survey read or saved carries its version and
// who saved it; an Update that names an older version is refused with who
// saved since, and changes nothing; one that names none is not checked.
func TestUpdateNamesVersion(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Versioned")
		s.EditedBy = "ana@example.com"
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		v1 := s.Version
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil || v1 == "" || got.Version != v1 || got.EditedBy != "ana@example.com" || got.EditedOn.IsZero() {
			t.Fatalf("created: version %q, read %+v, %v", v1, got, err)
		}
		bo := sample(tenant, "Versioned")
		bo.Slug, bo.Version, bo.EditedBy = s.Slug, v1, "bo@example.com"
		bo.Questions[0].Text = "Bo's"
		if err := ss.Update(ctx, bo); err != nil {
			t.Fatal(err)
		}
		if bo.Version == v1 || bo.Version == "" {
			t.Fatalf("saved: version %q after %q", bo.Version, v1)
		}
		ana := sample(tenant, "Versioned")
		ana.Slug, ana.Version, ana.EditedBy = s.Slug, v1, "ana@example.com"
		ana.Questions[0].Text = "Ana's"
		err = ss.Update(ctx, ana)
		if survey.ErrorCode(err) != survey.ECONFLICT || !strings.Contains(survey.ErrorMessage(err), "bo@example.com") {
			t.Fatalf("a stale update: %v", err)
		}
		if _, err := ss.Revision(ctx, ana); survey.ErrorCode(err) != survey.ECONFLICT {
			t.Fatalf("a stale revision: %v", err)
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.Questions[0].Text != "Bo's" || got.EditedBy != "bo@example.com" || got.Version != bo.Version {
			t.Fatalf("after the refused update: %+v", got)
		}
		// No version named (the API's PUT, an import): not checked.
		api := sample(tenant, "Versioned")
		api.Slug = s.Slug
		if err := ss.Update(ctx, api); err != nil {
			t.Fatal(err)
		}
	})
}
