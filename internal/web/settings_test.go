package web_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// postMultipart posts fields and an optional logo file as a browser does.
func (a *testApp) postMultipart(t *testing.T, path string, c *http.Cookie, fields map[string]string, logo []byte) (int, http.Header, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if logo != nil {
		fw, _ := mw.CreateFormFile("logo", "logo.png") // the name says PNG whatever the bytes are
		_, _ = fw.Write(logo)
	}
	_ = mw.Close()
	return a.send(t, "POST", path, &body, map[string]string{"Content-Type": mw.FormDataContentType(), "Cookie": c.Name + "=" + c.Value})
}

func signedIn(t *testing.T, app *testApp, tenant, email string) *http.Cookie {
	t.Helper()
	if _, err := testUsers(app.st).Add(context.Background(), tenant, email, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	code, c := app.signIn(t, tenant, email, "correct horse battery")
	if code != http.StatusSeeOther || c == nil {
		t.Fatalf("sign-in = %d", code)
	}
	return c
}

func testPNG(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 30, 12))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSettingsAndLogo: the display name and logo are changed on the
// settings page; the logo is checked from its bytes, stored in the public
// logos container, and shown on the tenant's survey page; a refused form
// changes nothing.
func TestSettingsAndLogo(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	c := signedIn(t, app, "adatum", "ana@adatum.example")
	tenants := store.NewTenantStore(app.st)
	before, _ := tenants.Get(ctx, "adatum")

	if code, _, body := app.get(t, "/adatum/settings", c); code != 200 || !strings.Contains(body, `name="logo"`) || !strings.Contains(body, "Adatum") {
		t.Fatalf("settings page = %d", code)
	}
	refused := []struct {
		name   string
		fields map[string]string
		logo   []byte
		says   string
	}{
		{"svg", map[string]string{"name": "Adatum", "plan": "Premium"}, []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), "SVG logos are not accepted"},
		{"html named logo.png", map[string]string{"name": "Adatum", "plan": "Premium"}, []byte("<html><script>alert(1)</script>"), "not a PNG or JPEG"},
		{"too large", map[string]string{"name": "Adatum", "plan": "Premium"}, append(testPNG(t), make([]byte, survey.MaxLogoBytes)...), "keep it under 512 KiB"},
		{"empty name", map[string]string{"name": "  ", "plan": "Premium"}, testPNG(t), "Give the tenant a name."},
	}
	images := app.images(t, "adatum")
	for _, tc := range refused {
		code, _, body := app.postMultipart(t, "/adatum/settings", c, tc.fields, tc.logo)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, tc.says) || !strings.Contains(body, `class="field-error"`) {
			t.Errorf("%s: %d, want 422 saying %q beside the field", tc.name, code, tc.says)
		}
	}
	after, _ := tenants.Get(ctx, "adatum")
	if *after != *before {
		t.Fatalf("a refused form changed the tenant: %+v → %+v", before, after)
	}
	if got := app.images(t, "adatum"); got != images {
		t.Fatalf("a refused logo was stored: %d images, %d before", got, images)
	}

	// A PNG, uploaded with a new name.
	code, h, _ := app.postMultipart(t, "/adatum/settings", c, map[string]string{"name": "Adatum Corporation", "plan": "Premium"}, testPNG(t))
	if code != http.StatusSeeOther || h.Get("Location") != "/adatum/settings?saved=1" {
		t.Fatalf("save = %d %q", code, h.Get("Location"))
	}
	tn, _ := tenants.Get(ctx, "adatum")
	if tn.Name != "Adatum Corporation" || !regexp.MustCompile(`^adatum-[0-9a-f]{12}\.png$`).MatchString(tn.Logo) {
		t.Fatalf("tenant after save = %+v", tn)
	}
	code, h, body := app.do(t, "GET", "/logos/"+tn.Logo, nil, nil)
	if code != 200 || h.Get("Content-Type") != "image/png" || h.Get("X-Content-Type-Options") != "nosniff" || !bytes.Equal([]byte(body), testPNG(t)) {
		t.Fatalf("GET the logo = %d %q", code, h.Get("Content-Type"))
	}
	app.pastCacheTTL()
	if code, _, body := app.do(t, "GET", app.path(), nil, nil); code != 200 || !strings.Contains(body, `src="/logos/`+tn.Logo+`"`) || !strings.Contains(body, "Adatum Corporation") {
		t.Fatalf("the survey page does not show the new logo and name (%d)", code)
	}

	// A second upload replaces the first, whose blob is removed.
	first := tn.Logo
	if code, _, _ := app.postMultipart(t, "/adatum/settings", c, map[string]string{"name": "Adatum Corporation", "plan": "Premium"}, testPNG(t)); code != http.StatusSeeOther {
		t.Fatalf("second upload = %d", code)
	}
	tn, _ = tenants.Get(ctx, "adatum")
	if tn.Logo == first {
		t.Fatal("a new upload kept the old name")
	}
	if code, _, _ := app.do(t, "GET", "/logos/"+first, nil, nil); code != http.StatusNotFound {
		t.Fatalf("the replaced logo still serves: %d", code)
	}
	// Remove it.
	if code, _, _ := app.postMultipart(t, "/adatum/settings", c, map[string]string{"name": "Adatum Corporation", "plan": "Premium", "removeLogo": "1"}, nil); code != http.StatusSeeOther {
		t.Fatalf("remove = %d", code)
	}
	if tn, _ = tenants.Get(ctx, "adatum"); tn.Logo != "" {
		t.Fatalf("logo after removal = %q", tn.Logo)
	}
	for _, p := range []string{"/logos/" + first, "/logos/nope", "/logos/..%2Ftenants%2Fadatum"} {
		if code, _, _ := app.do(t, "GET", p, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
	// Fabrikam's user cannot change Adatum's settings.
	fc := signedIn(t, app, "fabrikam", "fred@fabrikam.example")
	if code, _, _ := app.postMultipart(t, "/adatum/settings", fc, map[string]string{"name": "Pwned", "plan": "Premium"}, nil); code != http.StatusForbidden {
		t.Fatalf("Fabrikam posting Adatum's settings = %d", code)
	}
	if tn, _ = tenants.Get(ctx, "adatum"); tn.Name != "Adatum Corporation" {
		t.Fatalf("Fabrikam changed Adatum's name to %q", tn.Name)
	}
}
