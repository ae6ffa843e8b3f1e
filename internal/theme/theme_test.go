package theme

import (
	"math"
	"strings"
	"testing"
)

// The ratios are the published WCAG figures (WebAIM's contrast checker,
// the WCAG 2 understanding documents), not computed by this package.
func TestContrastKnownPairs(t *testing.T) {
	for _, tc := range []struct {
		fore, back string
		want       float64
	}{
		{"#000000", "#ffffff", 21},
		{"#ffffff", "#ffffff", 1},
		{"#777", "#fff", 4.48},
		{"#767676", "#ffffff", 4.54},
		{"#595959", "#ffffff", 7.0},
		{"#0000ff", "#ffffff", 8.59},
		{"#ff0000", "#ffffff", 4.0},
		{"#008000", "#ffffff", 5.14},
	} {
		f, ok1 := ParseColour(tc.fore)
		b, ok2 := ParseColour(tc.back)
		if !ok1 || !ok2 {
			t.Fatalf("ParseColour(%q, %q) failed", tc.fore, tc.back)
		}
		got := Contrast(f, b)
		if math.Abs(got-tc.want) > 0.01 {
			t.Errorf("Contrast(%s, %s) = %.3f, want %.2f", tc.fore, tc.back, got, tc.want)
		}
		if sym := Contrast(b, f); sym != got {
			t.Errorf("Contrast is not symmetric for %s, %s: %v and %v", tc.fore, tc.back, got, sym)
		}
	}
}

func TestRatioTextNeverRoundsUpAFailure(t *testing.T) {
	for _, tc := range []struct {
		ratio, need float64
		want        string
	}{{4.4999, 4.5, "4.49:1"}, {2.996, 3, "2.99:1"}, {4.478, 4.5, "4.48:1"}, {4.5, 4.5, "4.50:1"}, {21, 4.5, "21.00:1"}, {3.004, 3, "3.00:1"}} {
		if got := (Pair{Ratio: tc.ratio, Need: tc.need}).RatioText(); got != tc.want {
			t.Errorf("RatioText of %v (needs %v) = %q, want %q", tc.ratio, tc.need, got, tc.want)
		}
	}
}

func TestParseColour(t *testing.T) {
	for in, want := range map[string]string{"#ABCDEF": "#abcdef", "#abc": "#aabbcc", " #000000 ": "#000000"} {
		c, ok := ParseColour(in)
		if !ok || c.String() != want {
			t.Errorf("ParseColour(%q) = %v, %v; want %s", in, c, ok, want)
		}
	}
	for _, bad := range []string{"", "abcdef", "#abcd", "#ggg", "red", "#12345678", "#-12345"} {
		if _, ok := ParseColour(bad); ok {
			t.Errorf("ParseColour(%q) read it", bad)
		}
	}
}

func TestProblems(t *testing.T) {
	with := func(f func(*Theme)) Theme { th := Default(); f(&th); th.Normalize(); return th }
	for _, tc := range []struct {
		name  string
		theme Theme
		// want: each field with a problem, and words its problem must
		// hold; none: valid.
		want map[string][]string
	}{
		{"the default look", Default(), nil},
		{"a dark theme", with(func(t *Theme) { t.Background, t.Text, t.Primary = "#121212", "#f1f1f1", "#8ab4f8" }), nil},
		{"short colours", with(func(t *Theme) { t.Text = "#000" }), nil},
		{"a background image", with(func(t *Theme) { t.Image = "adatum-0123456789ab.jpg" }), nil},
		{"grey text", with(func(t *Theme) { t.Text = "#777777" }), map[string][]string{"contrast": {"Text on the background", "#777777 on #ffffff", "4.48:1", "4.50:1"}}},
		{"a pale primary", with(func(t *Theme) { t.Primary = "#9db0f0" }), map[string][]string{"contrast": {"Button labels", "Links", "Buttons, chosen answers", "3.00:1"}}},
		{"a primary good for controls but not text", with(func(t *Theme) { t.Primary = "#6f8ae6" }), map[string][]string{"contrast": {"Button labels", "Links"}}},
		{"a mid-grey background", with(func(t *Theme) { t.Background, t.Text, t.Primary = "#808080", "#000000", "#000000" }), map[string][]string{"contrast": {"Error messages on the background"}}},
		{"not a colour", with(func(t *Theme) { t.Primary = "blue" }), map[string][]string{"primary": {"#rrggbb"}}},
		{"no background", with(func(t *Theme) { t.Background = "" }), map[string][]string{"background": {"#rrggbb"}}},
		{"a font not offered", with(func(t *Theme) { t.Font = "Comic Sans" }), map[string][]string{"font": {"fonts offered"}}},
		{"corners not offered", with(func(t *Theme) { t.Corners = "bevel" }), map[string][]string{"corners": {"corner"}}},
		{"a logo place not offered", with(func(t *Theme) { t.Logo = "footer" }), map[string][]string{"logo": {"logo"}}},
		{"an image that is not an upload", with(func(t *Theme) { t.Image = `x.png") ; background: red` }), map[string][]string{"image": {"upload it again"}}},
		{"an svg image", with(func(t *Theme) { t.Image = "adatum-0123456789ab.svg" }), map[string][]string{"image": {"upload"}}},
	} {
		got := tc.theme.Problems()
		if len(got) != len(tc.want) {
			t.Errorf("%s: Problems() = %v, want fields %v", tc.name, got, tc.want)
			continue
		}
		for field, words := range tc.want {
			for _, w := range words {
				if !strings.Contains(got[field], w) {
					t.Errorf("%s: problem of %s = %q, want it to hold %q", tc.name, field, got[field], w)
				}
			}
		}
	}
}

func TestSpecRoundTrip(t *testing.T) {
	th := Default()
	th.Image = "adatum-0123456789ab.png"
	th.Font, th.Logo = "dejavu", "center"
	spec := th.Spec()
	if spec != "3557d6-ffffff-1d2330-dejavu-soft-center-adatum-0123456789ab.png" {
		t.Errorf("Spec() = %q", spec)
	}
	back, ok := ParseSpec(spec)
	if !ok || back != th {
		t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", spec, back, ok, th)
	}
	for _, bad := range []string{"", "3557d6-ffffff", "3557D6-ffffff-1d2330-system-soft-start", "fff-ffffff-1d2330-system-soft-start", strings.Repeat("a", 300)} {
		if _, ok := ParseSpec(bad); ok {
			t.Errorf("ParseSpec(%q) read it", bad)
		}
	}
}

func TestCSS(t *testing.T) {
	th := Default()
	th.Primary, th.Corners, th.Logo, th.Font, th.Image = "#0b5d1e", "square", "hidden", "dejavu", "adatum-0123456789ab.jpg"
	css := th.CSS(Page)
	for _, want := range []string{
		":root {", "--brand: #0b5d1e;", "--brand-ink: #ffffff;", "--ink: #1d2330;", "--radius: 0;", "--radius-small: 0;",
		`url("/theme/fonts/DejaVuSans.ttf")`, `--font: "DejaVu Sans Served"`, `url("/logos/adatum-0123456789ab.jpg")`,
		".tenant-logo { display: none; }", "color-scheme: light;",
		// Stars: not chosen as the fields' borders, chosen in the primary
		// colour (both pairs checked); the pictures' letterbox a tint.
		"--star: #777b83;", "--star-on: #0b5d1e;", "--picture-bg: #f1f2f3;",
	} {
		if !strings.Contains(css, want) {
			t.Errorf("CSS lacks %q:\n%s", want, css)
		}
	}
	if strings.Contains(css, ".theme-preview") {
		t.Errorf("the page's CSS names the preview:\n%s", css)
	}
	preview := th.CSS(Preview)
	if strings.Contains(preview, ":root") || strings.Contains(preview, "body {") || !strings.Contains(preview, ".theme-preview {") || !strings.Contains(preview, ".theme-preview .tenant-logo") {
		t.Errorf("the preview's CSS is not scoped to .theme-preview:\n%s", preview)
	}
	dark := Theme{Primary: "#8ab4f8", Background: "#121212", Text: "#f1f1f1", Font: "system", Corners: "soft", Logo: "start"}
	if css := dark.CSS(Page); !strings.Contains(css, "color-scheme: dark;") || !strings.Contains(css, "--danger: #ffb4ab;") {
		t.Errorf("a dark theme's CSS:\n%s", css)
	}
	if u := th.URL(Page); !strings.HasPrefix(u, "/theme/0b5d1e-ffffff-1d2330-dejavu-square-hidden-adatum-0123456789ab.jpg.css?v=") || th.URL(Preview) == u {
		t.Errorf("URL(Page) = %q, URL(Preview) = %q", u, th.URL(Preview))
	}
}
