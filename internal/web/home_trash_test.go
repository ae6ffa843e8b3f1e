package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestTrashPurged: a survey in the trash longer than survey.TrashDays is
// deleted for good when its tenant's dashboard is next shown; one trashed
// a day less is kept, and listed in the trash with its date.
func TestTrashPurged(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	for _, tc := range []struct {
		title string
		days  int
	}{{"Old trash", survey.TrashDays + 1}, {"Recent trash", survey.TrashDays - 1}} {
		s := &survey.Survey{Tenant: "adatum", Title: tc.title, Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}}
		if err := app.surveys.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := app.surveys.Trash(ctx, "adatum", s.Slug); err != nil {
			t.Fatal(err)
		}
		// Trashed tc.days ago.
		e, err := app.st.GetEntity(ctx, store.SurveysTable, "adatum", "adatum_"+s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		e.Properties["TrashedOn"] = time.Now().UTC().Add(-time.Duration(tc.days) * 24 * time.Hour)
		if _, err := app.st.UpdateEntity(ctx, store.SurveysTable, e, e.ETag); err != nil {
			t.Fatal(err)
		}
	}
	code, _, body := app.get(t, "/adatum/surveys", c)
	if code != 200 || !strings.Contains(body, "Recent trash") || strings.Contains(body, "Old trash") {
		t.Fatalf("dashboard = %d; want the recent trash listed and the old one gone", code)
	}
	for _, tc := range []struct {
		slug string
		kept bool
	}{{"old-trash", false}, {"recent-trash", true}} {
		_, err := app.surveys.Get(ctx, "adatum", tc.slug)
		if kept := err == nil; kept != tc.kept {
			t.Errorf("%s kept = %v (%v), want %v", tc.slug, kept, err, tc.kept)
		}
	}
}
