package theme

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// fontStacks are the font-family of each font.
var fontStacks = map[string]string{
	"system":   `system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif`,
	"serif":    `Charter, "Bitstream Charter", "Sitka Text", Cambria, Georgia, "Times New Roman", serif`,
	"humanist": `Seravek, "Gill Sans Nova", Ubuntu, Calibri, "DejaVu Sans", source-sans-pro, sans-serif`,
	"mono":     `ui-monospace, "Cascadia Code", "Source Code Pro", Menlo, Consolas, "DejaVu Sans Mono", monospace`,
	"dejavu":   `"DejaVu Sans Served", "DejaVu Sans", Verdana, sans-serif`,
}

// FontFiles are the font files the "dejavu" font needs, served under
// /theme/fonts/.
var FontFiles = []string{"DejaVuSans.ttf", "DejaVuSans-Bold.ttf"}

// radii are the corners' radius of cards, and of fields and buttons.
var radii = map[string][2]string{
	"square": {"0", "0"},
	"soft":   {"10px", "8px"},
	"round":  {"20px", "14px"},
}

// Scope is where a stylesheet applies: to the whole page, or to a preview
// panel (.theme-preview) of the theme's settings.
type Scope int

const (
	Page Scope = iota
	Preview
)

// CSS is the stylesheet of a theme that has no Problems: custom
// properties the site's stylesheet (web/static/app.css) reads, and the
// few rules that place the logo and the background image. Every value in
// it is one the package chose or checked: nothing a tenant typed.
func (t Theme) CSS(scope Scope) string {
	pl := t.palette()
	root, in := ":root", ""
	if scope == Preview {
		root, in = ".theme-preview", ".theme-preview "
	}
	var b strings.Builder
	b.WriteString("/* A theme of Surveys: generated from checked settings. */\n")
	if t.Font == "dejavu" {
		b.WriteString(`@font-face { font-family: "DejaVu Sans Served"; src: url("/theme/fonts/DejaVuSans.ttf") format("truetype"); font-weight: 400; font-display: swap; }` + "\n")
		b.WriteString(`@font-face { font-family: "DejaVu Sans Served"; src: url("/theme/fonts/DejaVuSans-Bold.ttf") format("truetype"); font-weight: 700; font-display: swap; }` + "\n")
	}
	r := radii[t.Corners]
	scheme := "light"
	if pl.dark {
		scheme = "dark"
	}
	props := [][2]string{
		{"--brand", pl.primary.String()}, {"--brand-ink", pl.background.String()}, {"--brand-hover", pl.primary.String()}, {"--focus", pl.primary.String()},
		{"--ink", pl.text.String()}, {"--muted", pl.text.String()}, {"--bg", pl.background.String()}, {"--card", pl.background.String()},
		{"--line", pl.line.String()}, {"--field-line", pl.fieldLine.String()}, {"--field-bg", pl.background.String()}, {"--field-ink", pl.text.String()},
		{"--danger", pl.danger.String()}, {"--ok", pl.text.String()}, {"--alert-bg", pl.background.String()}, {"--notice-bg", pl.background.String()},
		{"--selected-bg", pl.background.String()}, {"--tag-required-ink", pl.text.String()}, {"--tag-required-bg", pl.background.String()}, {"--tag-optional-bg", pl.background.String()},
		{"--star", pl.fieldLine.String()}, {"--star-on", pl.primary.String()}, {"--picture-bg", pl.letterbox.String()},
		{"--radius", r[0]}, {"--radius-small", r[1]}, {"--font", fontStacks[t.Font]},
	}
	b.WriteString(root + " {\n")
	for _, p := range props {
		b.WriteString("  " + p[0] + ": " + p[1] + ";\n")
	}
	b.WriteString("  color-scheme: " + scheme + ";\n}\n")
	if t.Image != "" {
		image := `url("/logos/` + t.Image + `")`
		if scope == Preview {
			b.WriteString(`.theme-preview { background: var(--bg) ` + image + ` center / cover no-repeat; }` + "\n")
		} else {
			b.WriteString(`html { background: var(--bg) ` + image + ` center / cover no-repeat fixed; }` + "\n")
			b.WriteString("body { background: transparent; }\n")
		}
		// The content sits on the background colour, so that every pair
		// checked is the pair shown, whatever the image.
		b.WriteString(in + ".survey, " + in + ".error-page, " + in + ".powered-by { background: var(--card); border-radius: var(--radius); padding: 1rem 1.25rem; }\n")
	}
	switch t.Logo {
	case "center":
		b.WriteString(in + ".survey-head .tenant-logo { margin-inline: auto; object-position: center; }\n")
	case "end":
		b.WriteString(in + ".survey-head .tenant-logo { margin-inline: auto 0; object-position: right; }\n")
	case "hidden":
		b.WriteString(in + ".tenant-logo { display: none; }\n")
	}
	return b.String()
}

// Hash is a short hash of the theme's stylesheet, for its URL.
func Hash(css string) string {
	sum := sha256.Sum256([]byte(css))
	return hex.EncodeToString(sum[:])[:12]
}

// URL is where the theme's stylesheet is served: the theme spelled in
// the path, and the hash of the stylesheet this code writes of it, so
// that the URL may be cached for ever and a new release's stylesheet has
// a new one.
func (t Theme) URL(scope Scope) string {
	prefix := "/theme/"
	if scope == Preview {
		prefix = "/theme/preview/"
	}
	return prefix + t.Spec() + ".css?v=" + Hash(t.CSS(scope))
}
