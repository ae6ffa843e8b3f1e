package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

// TestAPITheme: an admin token reads the organisation's theme (null: the
// usual look) and sets it, checked as the theme page checks it: a pair
// of colours that does not contrast enough is refused naming the pair
// and its ratio, a font not offered beside its field, an unknown field
// too, each saving nothing; the survey page takes the theme at once;
// null brings back the usual look; an editor's token is refused. A
// survey's own theme is in GET /api/v1/surveys/{slug}.
func TestAPITheme(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tokens := store.NewTokenStore(app.st)
	admin, err := tokens.CreateWithRole(ctx, "adatum", "theme", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	editor, err := tokens.CreateWithRole(ctx, "adatum", "editor", survey.Editor, 0)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, raw := app.api(t, "GET", "/api/v1/theme", admin, ""); code != 200 || raw != `{"theme":null}`+"\n" && raw != `{"theme":null}` {
		t.Fatalf("GET the usual look = %d %s", code, raw)
	}
	good := `{"theme":{"primary":"#0B5E3C","background":"#FFFFFF","text":"#1d2330","font":"serif","corners":"round","logo":"center"}}`
	code, v, raw := app.api(t, "PUT", "/api/v1/theme", admin, good)
	if th, _ := v["theme"].(map[string]any); code != 200 || th["primary"] != "#0b5e3c" || th["font"] != "serif" {
		t.Fatalf("PUT a good theme = %d %s", code, raw)
	}
	want := theme.Theme{Primary: "#0b5e3c", Background: "#ffffff", Text: "#1d2330", Font: "serif", Corners: "round", Logo: "center"}
	if code, _, page := app.do(t, "GET", "/survey/adatum/"+app.adatum.Slug, nil, nil); code != 200 || !strings.Contains(page, want.URL(theme.Page)) {
		t.Errorf("the survey page after PUT /theme = %d, lacks the theme's stylesheet %s", code, want.URL(theme.Page))
	}
	for _, tc := range []struct{ name, body, field, says string }{
		{"a pair that does not contrast", `{"theme":{"primary":"#ffff00","background":"#ffffff","text":"#1d2330","font":"system","corners":"soft","logo":"start"}}`,
			"theme.contrast", "Links (the primary colour) on the background: #ffff00 on #ffffff has a contrast of 1.07:1; it needs at least 4.50:1."},
		{"a font not offered", `{"theme":{"primary":"#0b5e3c","background":"#ffffff","text":"#1d2330","font":"comic","corners":"soft","logo":"start"}}`,
			"theme.font", "Choose one of the fonts offered."},
		{"another organisation's image", `{"theme":{"primary":"#0b5e3c","background":"#ffffff","text":"#1d2330","font":"system","corners":"soft","logo":"start","image":"fabrikam-0123456789ab.png"}}`,
			"theme.image", "another organisation's"},
	} {
		code, v, raw := app.api(t, "PUT", "/api/v1/theme", admin, tc.body)
		fields, _ := v["fields"].(map[string]any)
		if f, _ := fields[tc.field].(string); code != http.StatusUnprocessableEntity || !strings.Contains(f, tc.says) {
			t.Errorf("%s: %d %s; want 422 with %s saying %q", tc.name, code, raw, tc.field, tc.says)
		}
		if tc.field == "theme.contrast" && !strings.Contains(v["error"].(string), tc.says) {
			t.Errorf("%s: the message %q does not name the pair", tc.name, v["error"])
		}
	}
	if code, _, raw := app.api(t, "PUT", "/api/v1/theme", admin, `{"theme":{"primary":"#0b5e3c","css":"body{}"}}`); code != http.StatusUnprocessableEntity || !strings.Contains(raw, "css") {
		t.Errorf("an unknown field = %d %s", code, raw)
	}
	if code, v, raw := app.api(t, "GET", "/api/v1/theme", admin, ""); code != 200 || v["theme"].(map[string]any)["primary"] != "#0b5e3c" {
		t.Errorf("after the refusals the theme is %d %s; want the good one kept", code, raw)
	}
	for _, m := range []string{"GET", "PUT"} {
		if code, _, _ := app.api(t, m, "/api/v1/theme", editor, good); code != http.StatusForbidden {
			t.Errorf("%s /theme with an editor's token = %d, want 403", m, code)
		}
	}

	// A survey's own theme.
	sv, err := store.NewSurveyStore(app.st).Get(ctx, "adatum", app.adatum.Slug)
	if err != nil {
		t.Fatal(err)
	}
	own := theme.Theme{Primary: "#6b2d8f", Background: "#ffffff", Text: "#1d2330", Font: "mono", Corners: "square", Logo: "hidden"}
	sv.Theme = &own
	if err := store.NewSurveyStore(app.st).Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if code, v, raw := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug, admin, ""); code != 200 || v["theme"] == nil || v["theme"].(map[string]any)["primary"] != "#6b2d8f" {
		t.Errorf("GET the survey = %d %s; want its own theme", code, raw)
	}

	if code, _, raw := app.api(t, "PUT", "/api/v1/theme", admin, `{"theme":null}`); code != 200 || !strings.Contains(raw, `"theme":null`) {
		t.Fatalf("PUT null = %d %s", code, raw)
	}
	if tn, err := store.NewTenantStore(app.st).Get(ctx, "adatum"); err != nil || tn.Theme != nil {
		t.Errorf("after PUT null the tenant's theme is %+v, %v", tn.Theme, err)
	}
}
