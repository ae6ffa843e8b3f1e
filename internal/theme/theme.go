// Package theme is the look a tenant (or one of its surveys) gives its
// respondents' pages: three colours, a font from a short list, the corners'
// roundness, where the logo sits and a background image. It checks the
// contrast of every pair of colours the pages put together (WCAG 2 AA)
// and writes the stylesheet of a theme that passes: CSS custom properties
// over the site's own stylesheet, never CSS a tenant wrote. No I/O.
package theme

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Theme is a look of the respondents' pages. Colours are "#rrggbb".
type Theme struct {
	Primary    string `json:"primary"`
	Background string `json:"background"`
	Text       string `json:"text"`
	// Font is one of Fonts' keys; Corners one of Corners'; Logo one of
	// LogoPlaces'.
	Font    string `json:"font"`
	Corners string `json:"corners"`
	Logo    string `json:"logo"`
	// Image names the background image in the public logos container
	// (<tenant>-<hex>.<png|jpg>), "" for none.
	Image string `json:"image,omitempty"`
}

// Option is one choice of a theme's setting: its key, and how it reads.
type Option struct{ Key, Label string }

// Fonts are the fonts a theme may use: system font stacks, and DejaVu
// Sans, which the server serves (it is bundled for the PDF reports).
var Fonts = []Option{
	{"system", "System font (the usual look)"},
	{"serif", "Serif (Charter, Georgia and the like)"},
	{"humanist", "Humanist sans (Seravek, Calibri, Ubuntu and the like)"},
	{"mono", "Monospace"},
	{"dejavu", "DejaVu Sans (served with the survey)"},
}

// Corners are the roundness of cards, fields and buttons.
var Corners = []Option{
	{"square", "Square"},
	{"soft", "Slightly rounded (the usual look)"},
	{"round", "Round"},
}

// LogoPlaces are where the tenant's logo sits above a survey.
var LogoPlaces = []Option{
	{"start", "At the start of the line (the usual look)"},
	{"center", "Centred"},
	{"end", "At the end of the line"},
	{"hidden", "Not shown"},
}

// Default is the look of a survey without a theme.
func Default() Theme {
	return Theme{Primary: "#3557d6", Background: "#ffffff", Text: "#1d2330", Font: "system", Corners: "soft", Logo: "start"}
}

// imageName is a background image's blob name (store.LogoStore's names).
var imageName = regexp.MustCompile(`^[a-z0-9]{2,64}-[0-9a-f]{12}\.(png|jpg)$`)

// ValidImage reports whether name may be a theme's background image.
func ValidImage(name string) bool { return imageName.MatchString(name) }

// Normalize writes the colours as "#rrggbb" in lower case (a colour that
// does not read is left as it is, for Problems to name) and trims the
// keys.
func (t *Theme) Normalize() {
	for _, c := range []*string{&t.Primary, &t.Background, &t.Text} {
		*c = strings.TrimSpace(*c)
		if col, ok := ParseColour(*c); ok {
			*c = col.String()
		}
	}
	t.Font, t.Corners, t.Logo, t.Image = strings.TrimSpace(t.Font), strings.TrimSpace(t.Corners), strings.TrimSpace(t.Logo), strings.TrimSpace(t.Image)
}

func has(opts []Option, key string) bool {
	return slices.ContainsFunc(opts, func(o Option) bool { return o.Key == key })
}

// Problems says what is wrong with the theme, by field: primary,
// background, text, font, corners, logo, image, and contrast (every pair
// of colours that fails, by name, with its ratio and what it needs).
// None: the theme may be used.
func (t Theme) Problems() map[string]string {
	p := map[string]string{}
	for _, c := range []struct{ key, name, value string }{{"primary", "primary colour", t.Primary}, {"background", "background colour", t.Background}, {"text", "text colour", t.Text}} {
		if _, ok := ParseColour(c.value); !ok {
			p[c.key] = fmt.Sprintf("Give the %s as #rrggbb, such as #3557d6.", c.name)
		}
	}
	if !has(Fonts, t.Font) {
		p["font"] = "Choose one of the fonts offered."
	}
	if !has(Corners, t.Corners) {
		p["corners"] = "Choose one of the corner styles offered."
	}
	if !has(LogoPlaces, t.Logo) {
		p["logo"] = "Choose where the logo sits."
	}
	if t.Image != "" && !ValidImage(t.Image) {
		p["image"] = "The background image is not one uploaded here; upload it again."
	}
	if len(p) > 0 {
		return p
	}
	var failed []string
	for _, pr := range t.Pairs() {
		if !pr.OK() {
			failed = append(failed, pr.Problem())
		}
	}
	if len(failed) > 0 {
		p["contrast"] = strings.Join(failed, " ")
	}
	return p
}

// Pair is two colours the pages put together, and the contrast WCAG 2 AA
// asks of them: 4.5:1 for text, 3:1 for the edges of controls.
type Pair struct {
	Name       string
	Fore, Back Colour
	Ratio      float64
	Need       float64
}

// OK reports whether the pair has the contrast it needs (never rounded
// up: 4.49:1 fails 4.5:1).
func (p Pair) OK() bool { return p.Ratio >= p.Need }

// RatioText is the pair's ratio as "4.48:1" (a pair that fails is never
// rounded up to what it needs: 4.499 reads 4.49); NeedText what it needs.
func (p Pair) RatioText() string {
	if s := FormatRatio(p.Ratio); p.OK() || s != FormatRatio(p.Need) {
		return s
	}
	return strconv.FormatFloat(math.Floor(p.Ratio*100)/100, 'f', 2, 64) + ":1"
}
func (p Pair) NeedText() string { return FormatRatio(p.Need) }

// Problem is the sentence that names a failing pair.
func (p Pair) Problem() string {
	return fmt.Sprintf("%s: %s on %s has a contrast of %s; it needs at least %s.", p.Name, p.Fore, p.Back, p.RatioText(), p.NeedText())
}

// Error colours: the usual dark red, or a light red on dark backgrounds.
var (
	darkRed  = Colour{0xb4, 0x23, 0x18}
	lightRed = Colour{0xff, 0xb4, 0xab}
)

// palette is every colour the stylesheet sets, worked out from the
// theme's three.
type palette struct {
	primary, background, text Colour
	// danger is the error colour (whichever red reads better on the
	// background); fieldLine the border of fields (text mixed into the
	// background, or the text colour where that mix would be too faint);
	// line the faint lines between parts.
	danger, fieldLine, line Colour
	// letterbox is behind a picture choice's image where it does not
	// fill its cell: the background with a touch of the text colour
	// (decoration: the image and its label are what is read).
	letterbox Colour
	dark      bool
}

func (t Theme) palette() palette {
	p, _ := ParseColour(t.Primary)
	b, _ := ParseColour(t.Background)
	x, _ := ParseColour(t.Text)
	pl := palette{primary: p, background: b, text: x, danger: darkRed, line: mix(b, x, 0.15), letterbox: mix(b, x, 0.06), dark: b.Luminance() < 0.18}
	if Contrast(lightRed, b) > Contrast(darkRed, b) {
		pl.danger = lightRed
	}
	pl.fieldLine = mix(x, b, 0.4)
	if Contrast(pl.fieldLine, b) < 3 {
		pl.fieldLine = x
	}
	return pl
}

// Pairs are the pairs of colours the themed pages show, each with its
// contrast; the theme's colours must read (Problems checks them first).
func (t Theme) Pairs() []Pair {
	pl := t.palette()
	pair := func(name string, fore, back Colour, need float64) Pair {
		return Pair{Name: name, Fore: fore, Back: back, Ratio: Contrast(fore, back), Need: need}
	}
	return []Pair{
		pair("Text on the background", pl.text, pl.background, 4.5),
		pair("Button labels (the background colour) on primary buttons", pl.background, pl.primary, 4.5),
		pair("Links (the primary colour) on the background", pl.primary, pl.background, 4.5),
		pair("Buttons, chosen answers, chosen stars and the focus outline (the primary colour) against the background", pl.primary, pl.background, 3),
		pair("Error messages on the background", pl.danger, pl.background, 4.5),
		pair("Borders of fields and stars not chosen against the background", pl.fieldLine, pl.background, 3),
	}
}

// Spec is the theme written for a URL: its values joined by "-", colours
// without their "#": primary-background-text-font-corners-logo[-image].
func (t Theme) Spec() string {
	s := strings.Join([]string{strings.TrimPrefix(t.Primary, "#"), strings.TrimPrefix(t.Background, "#"), strings.TrimPrefix(t.Text, "#"), t.Font, t.Corners, t.Logo}, "-")
	if t.Image != "" {
		s += "-" + t.Image
	}
	return s
}

// ParseSpec reads a Spec back. It does not check the theme (Problems
// does).
func ParseSpec(s string) (Theme, bool) {
	parts := strings.SplitN(s, "-", 7)
	if len(s) > 200 || len(parts) < 6 {
		return Theme{}, false
	}
	t := Theme{Primary: "#" + parts[0], Background: "#" + parts[1], Text: "#" + parts[2], Font: parts[3], Corners: parts[4], Logo: parts[5]}
	if len(parts) == 7 {
		t.Image = parts[6]
	}
	for _, c := range []string{t.Primary, t.Background, t.Text} {
		if len(c) != 7 {
			return Theme{}, false
		}
	}
	t.Normalize()
	return t, t.Spec() == s
}

// Clone is a copy of t (nil for nil).
func (t *Theme) Clone() *Theme {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
