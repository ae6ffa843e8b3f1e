package web_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
)

// themeForm is the theme page's form: use (own or inherit), the three
// colours, and the defaults for the rest unless kv says.
func themeForm(use, primary, background, text string, kv ...string) multipartForm {
	m := multipartForm{fields: [][2]string{{"use", use}, {"primary", primary}, {"background", background}, {"text", text}}}
	rest := map[string]string{"font": "system", "corners": "soft", "logo": "start", "do": "save"}
	for i := 0; i+1 < len(kv); i += 2 {
		rest[kv[i]] = kv[i+1]
	}
	for k, v := range rest {
		m.fields = append(m.fields, [2]string{k, v})
	}
	return m
}

var themeLinkRE = regexp.MustCompile(`<link rel="stylesheet" id="theme-css" href="([^"]+)">`)

// themeLink is the theme stylesheet a page links ("" for none).
func themeLink(body string) string {
	m := themeLinkRE.FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// TestTenantTheme: a theme whose colours fail is refused (422) naming the
// pair and its ratio, and nothing is stored; a good one, with a background
// image, is saved; the survey's pages link its stylesheet, which serves
// the theme's properties (cached for ever), and a failing theme's URL
// serves nothing.
func TestTenantTheme(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	admin := app.signedIn(t, "adatum", "ana@adatum.example")
	tenants := store.NewTenantStore(app.st)

	code, _, body := app.do(t, "GET", "/adatum/settings/theme", nil, admin)
	if code != http.StatusOK || !strings.Contains(body, `name="primary"`) || !strings.Contains(body, `id="theme-preview"`) || !strings.Contains(body, "Text on the background") {
		t.Fatalf("theme page = %d", code)
	}
	if code, _, body := app.do(t, "GET", app.path(), nil, nil); code != http.StatusOK || themeLink(body) != "" {
		t.Fatalf("an unthemed survey links a theme: %d %q", code, themeLink(body))
	}

	images := app.images(t, "adatum")
	refused := []struct {
		name string
		form multipartForm
		says []string
	}{
		{"grey text", themeForm("own", "#3557d6", "#ffffff", "#777777"), []string{"Text on the background", "#777777 on #ffffff", "4.48:1", "at least 4.50:1"}},
		{"a pale primary", themeForm("own", "#9db0f0", "#ffffff", "#1d2330"), []string{"Button labels (the background colour) on primary buttons", "Links (the primary colour) on the background", "#9db0f0 on #ffffff"}},
		{"a font not offered", themeForm("own", "#3557d6", "#ffffff", "#1d2330", "font", "Comic Sans"), []string{"Choose one of the fonts offered."}},
		{"not a colour", themeForm("own", "red", "#ffffff", "#1d2330"), []string{"Give the primary colour as #rrggbb"}},
	}
	for _, tc := range refused {
		tc.form.files = append(tc.form.files, formFile{field: "image", name: "bg.png", data: bytes.NewReader(testPNG(t))})
		code, _, body := app.postForm(t, "/adatum/settings/theme", tc.form, admin)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Nothing was saved") {
			t.Errorf("%s: %d, want 422 saying nothing was saved", tc.name, code)
		}
		for _, w := range tc.says {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page does not say %q", tc.name, w)
			}
		}
	}
	// An image that is not a PNG or JPEG, whatever its name says, or too
	// large: refused beside its field, nothing stored.
	for _, img := range []struct {
		data []byte
		says string
	}{{[]byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), "SVG images are not accepted"}, {append(testPNG(t), make([]byte, 600<<10)...), "keep it under 512 KiB"}} {
		f := themeForm("own", "#3557d6", "#ffffff", "#1d2330")
		f.files = append(f.files, formFile{field: "image", name: "bg.png", data: bytes.NewReader(img.data)})
		code, _, body := app.postForm(t, "/adatum/settings/theme", f, admin)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, img.says) || !strings.Contains(body, `id="image-error"`) {
			t.Errorf("background image: %d, want 422 saying %q beside the field", code, img.says)
		}
	}
	// The pair is named beside the colours too, and marked failing in the
	// table, in words.
	_, _, body = app.postForm(t, "/adatum/settings/theme", themeForm("own", "#3557d6", "#ffffff", "#777777"), admin)
	if !strings.Contains(body, `id="contrast-error"`) || !strings.Contains(body, `<tr class="pair-fails"><th scope="row">Text on the background</th>`) || !strings.Contains(body, "<strong>Fails</strong>") ||
		!strings.Contains(body, `<p id="contrast-verdict" role="status">1 pair fails: the theme cannot be saved as it is.</p>`) {
		t.Errorf("the refused page does not mark the pair that fails")
	}
	if tn, _ := tenants.Get(ctx, "adatum"); tn.Theme != nil {
		t.Fatalf("a refused theme was saved: %+v", tn.Theme)
	}
	if got := app.images(t, "adatum"); got != images {
		t.Fatalf("a refused theme's image was stored: %d images, %d before", got, images)
	}

	// Preview: shown, nothing saved.
	code, _, body = app.postForm(t, "/adatum/settings/theme", themeForm("own", "#0b5d1e", "#fffdf5", "#1a1a1a", "do", "preview", "font", "serif"), admin)
	if code != http.StatusOK || !strings.HasPrefix(themeLink(body), "/theme/preview/0b5d1e-fffdf5-1a1a1a-serif-soft-start.css?v=") || !strings.Contains(body, "nothing is saved yet") || !strings.Contains(body, "Every pair passes.") {
		t.Fatalf("preview = %d, links %q", code, themeLink(body))
	}
	if tn, _ := tenants.Get(ctx, "adatum"); tn.Theme != nil {
		t.Fatalf("a preview saved the theme: %+v", tn.Theme)
	}

	// Saved, with a background image.
	good := themeForm("own", "#0b5d1e", "#fffdf5", "#1a1a1a", "font", "dejavu", "corners", "round", "logo", "center")
	good.files = append(good.files, formFile{field: "image", name: "bg.png", data: bytes.NewReader(testPNG(t))})
	code, h, _ := app.postForm(t, "/adatum/settings/theme", good, admin)
	if code != http.StatusSeeOther || h.Get("Location") != "/adatum/settings/theme?saved=1" {
		t.Fatalf("save = %d %q", code, h.Get("Location"))
	}
	tn, _ := tenants.Get(ctx, "adatum")
	if tn.Theme == nil || tn.Theme.Primary != "#0b5d1e" || tn.Theme.Font != "dejavu" || !regexp.MustCompile(`^adatum-[0-9a-f]{12}\.png$`).MatchString(tn.Theme.Image) {
		t.Fatalf("tenant's theme after save = %+v", tn.Theme)
	}
	if code, _, _ := app.do(t, "GET", "/logos/"+tn.Theme.Image, nil, nil); code != http.StatusOK {
		t.Fatalf("the background image = %d", code)
	}

	app.pastCacheTTL()
	code, _, body = app.do(t, "GET", app.path(), nil, nil)
	css := themeLink(body)
	if code != http.StatusOK || !strings.HasPrefix(css, "/theme/0b5d1e-fffdf5-1a1a1a-dejavu-round-center-"+tn.Theme.Image+".css?v=") {
		t.Fatalf("the survey page = %d, links %q", code, css)
	}
	if strings.Index(body, "app.css") > strings.Index(body, `id="theme-css"`) {
		t.Error("the theme's stylesheet comes before the site's, which would undo it")
	}
	code, h, sheet := app.do(t, "GET", css, nil, nil)
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/css") || !strings.Contains(h.Get("Cache-Control"), "immutable") {
		t.Fatalf("GET %s = %d %q %q", css, code, h.Get("Content-Type"), h.Get("Cache-Control"))
	}
	for _, want := range []string{"--brand: #0b5d1e;", "--bg: #fffdf5;", "--ink: #1a1a1a;", "--radius: 20px;", `url("/theme/fonts/DejaVuSans.ttf")`,
		`url("/logos/` + tn.Theme.Image + `")`, ".survey-head .tenant-logo { margin-inline: auto;"} {
		if !strings.Contains(sheet, want) {
			t.Errorf("the stylesheet lacks %q:\n%s", want, sheet)
		}
	}
	if code, h, _ := app.do(t, "GET", "/theme/fonts/DejaVuSans.ttf", nil, nil); code != http.StatusOK || h.Get("Content-Type") != "font/ttf" {
		t.Errorf("the font = %d %q", code, h.Get("Content-Type"))
	}
	// The thank-you page and the embedded survey (asked for a frame) take
	// it too.
	if _, _, body := app.do(t, "GET", app.path()+"/thankyou", nil, nil); themeLink(body) != css {
		t.Errorf("the thank-you page links %q, want %q", themeLink(body), css)
	}
	if _, _, body := app.do(t, "GET", app.path(), nil, map[string]string{"Sec-Fetch-Dest": "iframe"}); themeLink(body) != css || !strings.Contains(body, `<body class="framed">`) {
		t.Errorf("the framed survey links %q, want %q", themeLink(body), css)
	}

	// A URL of the old release's stylesheet is served, not cached; a
	// failing theme's, or a made-up one's, is not served at all.
	if code, h, _ := app.do(t, "GET", strings.Split(css, "?")[0]+"?v=000000000000", nil, nil); code != http.StatusOK || h.Get("Cache-Control") != "no-cache" {
		t.Errorf("an old hash = %d %q", code, h.Get("Cache-Control"))
	}
	for _, p := range []string{"/theme/3557d6-ffffff-777777-system-soft-start.css", "/theme/3557d6-ffffff-1d2330-comic-soft-start.css", "/theme/nope.css",
		`/theme/3557d6-ffffff-1d2330-system-soft-start-x.png%22);background:red.css`, "/theme/fonts/passwd"} {
		if code, _, _ := app.do(t, "GET", p, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
	// The preview shows a failing theme (beside what fails), scoped to
	// the preview panel.
	if code, _, sheet := app.do(t, "GET", "/theme/preview/3557d6-ffffff-777777-system-soft-start.css", nil, nil); code != http.StatusOK || !strings.Contains(sheet, ".theme-preview {") || strings.Contains(sheet, ":root") {
		t.Errorf("the preview of a failing theme = %d:\n%s", code, sheet)
	}

	// Back to the usual look: the survey links no theme.
	if code, _, _ := app.postForm(t, "/adatum/settings/theme", themeForm("inherit", "#0b5d1e", "#fffdf5", "#1a1a1a"), admin); code != http.StatusSeeOther {
		t.Fatalf("back to the usual look = %d", code)
	}
	app.pastCacheTTL()
	if _, _, body := app.do(t, "GET", app.path(), nil, nil); themeLink(body) != "" {
		t.Errorf("the survey still links %q", themeLink(body))
	}
}

// TestSurveyThemeOverrides: a survey's own theme wins over its tenant's on
// its pages (and only its pages); a failing one is refused naming the
// pair; going back to the tenant's theme links the tenant's again; the
// designer's save keeps it.
func TestSurveyThemeOverrides(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	admin := app.signedIn(t, "adatum", "ana@adatum.example")
	slug := app.adatum.Slug
	other := app.create(t, "adatum", "Another poll", false, time.Time{})
	page := "/adatum/surveys/" + slug + "/theme"

	if code, _, _ := app.postForm(t, "/adatum/settings/theme", themeForm("own", "#0b5d1e", "#ffffff", "#1a1a1a"), admin); code != http.StatusSeeOther {
		t.Fatalf("tenant theme = %d", code)
	}
	code, _, body := app.do(t, "GET", page, nil, admin)
	if code != http.StatusOK || !strings.Contains(body, `value="#0b5d1e"`) || !strings.Contains(body, `value="inherit" checked`) {
		t.Fatalf("the survey's theme page = %d (want the tenant's colours, inherited)", code)
	}
	code, _, body = app.postForm(t, page, themeForm("own", "#ffffff", "#ffffff", "#000000"), admin)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Links (the primary colour) on the background: #ffffff on #ffffff has a contrast of 1.00:1; it needs at least 4.50:1.") {
		t.Fatalf("a failing survey theme = %d", code)
	}
	if sv, _ := store.NewSurveyStore(app.st).Get(ctx, "adatum", slug); sv.Theme != nil {
		t.Fatalf("a refused survey theme was saved: %+v", sv.Theme)
	}
	code, h, _ := app.postForm(t, page, themeForm("own", "#8a1c7c", "#ffffff", "#111111", "font", "mono", "corners", "square"), admin)
	if code != http.StatusSeeOther || h.Get("Location") != page+"?saved=1" {
		t.Fatalf("save the survey's theme = %d %q", code, h.Get("Location"))
	}
	app.pastCacheTTL()
	if _, _, body := app.do(t, "GET", app.path(), nil, nil); !strings.HasPrefix(themeLink(body), "/theme/8a1c7c-ffffff-111111-mono-square-start.css?v=") {
		t.Errorf("the survey links %q, want its own theme", themeLink(body))
	}
	if _, _, body := app.do(t, "GET", "/survey/adatum/"+other.Slug, nil, nil); !strings.HasPrefix(themeLink(body), "/theme/0b5d1e-ffffff-1a1a1a-system-soft-start.css?v=") {
		t.Errorf("another survey links %q, want the tenant's theme", themeLink(body))
	}

	// The designer's save (which says nothing of the theme) keeps it.
	sv, _ := store.NewSurveyStore(app.st).Get(ctx, "adatum", slug)
	sv.Theme = nil
	sv.Title = "Renamed"
	if err := store.NewSurveyStore(app.st).Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if sv, _ := store.NewSurveyStore(app.st).Get(ctx, "adatum", slug); sv.Theme == nil || sv.Theme.Primary != "#8a1c7c" || sv.Title != "Renamed" {
		t.Fatalf("an edit lost the survey's theme: %+v", sv.Theme)
	}

	// Back to the tenant's.
	if code, _, _ := app.postForm(t, page, themeForm("inherit", "#8a1c7c", "#ffffff", "#111111"), admin); code != http.StatusSeeOther {
		t.Fatalf("back to the tenant's theme = %d", code)
	}
	app.pastCacheTTL()
	if _, _, body := app.do(t, "GET", app.path(), nil, nil); !strings.HasPrefix(themeLink(body), "/theme/0b5d1e-ffffff-1a1a1a-system-soft-start.css?v=") {
		t.Errorf("the survey links %q, want the tenant's theme again", themeLink(body))
	}
}
