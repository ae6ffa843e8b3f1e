package store_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

func smallPNG(t *testing.T) []byte {
	t.Helper()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return img.Bytes()
}

// TestSurveyThemeStored: a survey's own theme round-trips on both
// backends; one whose colours fail, or whose image is another tenant's,
// is refused naming the problem, and nothing changes; an edit that says
// nothing of the theme keeps it, a duplicate too; nil clears it.
func TestSurveyThemeStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Themed")
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.Theme != nil {
			t.Fatalf("a new survey has a theme: %+v", got.Theme)
		}
		bg, err := store.NewLogoStore(st).PutBackground(ctx, tenant, smallPNG(t))
		if err != nil || !strings.HasPrefix(bg, tenant+"-") {
			t.Fatalf("PutBackground = %q, %v", bg, err)
		}
		th := theme.Theme{Primary: "#8A1C7C", Background: "#fff", Text: "#111111", Font: "serif", Corners: "round", Logo: "hidden", Image: bg}
		if err := ss.SetTheme(ctx, tenant, s.Slug, &th); err != nil {
			t.Fatal(err)
		}
		want := theme.Theme{Primary: "#8a1c7c", Background: "#ffffff", Text: "#111111", Font: "serif", Corners: "round", Logo: "hidden", Image: bg}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil || got.Theme == nil || *got.Theme != want {
			t.Fatalf("read back %+v, %v; want %+v", got.Theme, err, want)
		}

		for _, bad := range []struct {
			name  string
			theme theme.Theme
			field string
			says  string
		}{
			{"grey text", theme.Theme{Primary: "#3557d6", Background: "#ffffff", Text: "#777777", Font: "system", Corners: "soft", Logo: "start"}, "theme.contrast", "Text on the background: #777777 on #ffffff has a contrast of 4.48:1"},
			{"another tenant's image", theme.Theme{Primary: "#3557d6", Background: "#ffffff", Text: "#1d2330", Font: "system", Corners: "soft", Logo: "start", Image: "other-0123456789ab.png"}, "theme.image", "another organisation's"},
		} {
			err := ss.SetTheme(ctx, tenant, s.Slug, &bad.theme)
			var e *survey.Error
			if !errors.As(err, &e) || e.Code != survey.EINVALID || !strings.Contains(e.Fields[bad.field], bad.says) {
				t.Errorf("%s: %v, want %s saying %q", bad.name, err, bad.field, bad.says)
			}
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.Theme == nil || *got.Theme != want {
			t.Fatalf("a refused theme changed the survey's: %+v", got.Theme)
		}

		// An edit that says nothing of the theme (the designer's) keeps it.
		edit := got.Duplicate(got.CreatedOn)
		if edit.Theme == nil || *edit.Theme != want {
			t.Errorf("a duplicate lost the theme: %+v", edit.Theme)
		}
		edit.Slug, edit.Title, edit.Theme, edit.Version = s.Slug, "Themed, edited", nil, ""
		if err := ss.Update(ctx, edit); err != nil {
			t.Fatal(err)
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.Theme == nil || *got.Theme != want || got.Title != "Themed, edited" {
			t.Fatalf("after an edit: theme %+v, title %q", got.Theme, got.Title)
		}
		if err := ss.SetTheme(ctx, tenant, s.Slug, nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.Theme != nil || len(got.Questions) != len(s.Questions) {
			t.Fatalf("after clearing: theme %+v, %d questions", got.Theme, len(got.Questions))
		}
		wantCode(t, "a theme of a survey not there", ss.SetTheme(ctx, tenant, "nope", nil), survey.ENOTFOUND)
	})
}

// TestDeleteTenantRemovesThemes: deleting a tenant removes its theme (with
// its record and its surveys' rows) and its background images; another
// tenant's stay.
func TestDeleteTenantRemovesThemes(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		other := newTenant()
		logos, tenants := store.NewLogoStore(st), store.NewTenantStore(st)
		images := map[string]string{}
		for _, k := range []string{key, other} {
			s, _, _ := tenantWithData(t, st, k)
			bg, err := logos.PutBackground(ctx, k, smallPNG(t))
			if err != nil {
				t.Fatal(err)
			}
			images[k] = bg
			tn, err := tenants.Get(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			tn.Theme = &theme.Theme{Primary: "#0b5d1e", Background: "#ffffff", Text: "#1a1a1a", Font: "dejavu", Corners: "soft", Logo: "center", Image: bg}
			if err := tenants.Update(ctx, tn); err != nil {
				t.Fatal(err)
			}
			own := *tn.Theme
			own.Primary = "#8a1c7c"
			if err := store.NewSurveyStore(st).SetTheme(ctx, k, s.Slug, &own); err != nil {
				t.Fatal(err)
			}
		}
		if tn, _ := tenants.Get(ctx, key); tn.Theme == nil || tn.Theme.Image != images[key] {
			t.Fatalf("the tenant's theme did not round-trip: %+v", tn.Theme)
		}
		if _, err := store.DeleteTenant(ctx, st, tenants, key); err != nil {
			t.Fatal(err)
		}
		if _, _, err := logos.Get(ctx, images[key]); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("the deleted tenant's background image: %v, want not found", err)
		}
		if _, _, err := logos.Get(ctx, images[other]); err != nil {
			t.Errorf("the other tenant's background image: %v", err)
		}
		if tn, err := tenants.Get(ctx, other); err != nil || tn.Theme == nil {
			t.Errorf("the other tenant's theme: %+v, %v", tn, err)
		}
		if list, _ := store.NewSurveyStore(st).List(ctx, key); len(list) != 0 {
			t.Errorf("the deleted tenant's surveys (and their themes) are left: %d", len(list))
		}
	})
}
