package rtl

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/image/font/sfnt"

	"github.com/surveys-dev/surveys/internal/fonts"
)

// TestShape: words of known shapes, in presentation forms.
func TestShape(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"salam: lam-alef joined to seen, meem alone after alef", "سلام", "\uFEB3\uFEFC\uFEE1"},
		{"la: the isolated ligature", "لا", "\uFEFB"},
		{"muhammad: initial, medial, medial, final", "محمد", "\uFEE3\uFEA4\uFEE4\uFEAA"},
		{"muhammad with harakat: marks skipped for joining, kept after their letter", "مُحَمَّد", "\uFEE3\u064F\uFEA4\u064E\uFEE4\u064E\u0651\uFEAA"},
		{"la with a fatha between lam and alef", "لَا", "\uFEFB\u064E"},
		{"kalam", "كلام", "\uFEDB\uFEFC\uFEE1"},
		{"bayt", "بيت", "\uFE91\uFEF4\uFE96"},
		{"dar: right-joining letters join nothing after them", "دار", "\uFEA9\uFE8D\uFEAD"},
		{"madrasa: teh marbuta final", "مدرسة", "\uFEE3\uFEAA\uFEAD\uFEB3\uFE94"},
		{"shay: hamza does not join", "شيء", "\uFEB7\uFEF2\uFE80"},
		{"ila: alef maksura final", "إلى", "\uFE87\uFEDF\uFEF0"},
		{"al-ijabat: lam-alef with hamza below, isolated", "الإجابات", "\uFE8D\uFEF9\uFE9F\uFE8E\uFE91\uFE8E\uFE95"},
		{"lam-alef with madda, final", "ملآن", "\uFEE3\uFEF6\uFEE5"},
		{"tatweel joins both sides", "ـبـ", "\u0640\uFE92\u0640"},
		{"two words", "كل يوم", "\uFEDB\uFEDE \uFEF3\uFEEE\uFEE1"},
		{"Persian peh and farsi yeh", "پی", "\uFB58\uFBFD"},
		{"Arabic-Indic digits kept", "١٢٣", "١٢٣"},
		{"Latin kept", "Café 12.5%", "Café 12.5%"},
		{"Latin between Arabic", "بABب", "\uFE8FAB\uFE8F"},
		{"empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Shape(c.in); got != c.want {
				t.Errorf("Shape(%q) = %+q, want %+q", c.in, got, c.want)
			}
		})
	}
}

// TestVisual: lines in display order, base direction right to left
// (rtl) or left to right. Unshaped letters make the order plain to read.
func TestVisual(t *testing.T) {
	for _, c := range []struct {
		name, in string
		rtl      bool
		want     string
	}{
		{"Latin, left to right: itself", "Hello, world (1)", false, "Hello, world (1)"},
		{"Arabic reversed", "مرحبا", true, "ابحرم"},
		{"shaped Arabic reversed", Shape("سلام"), true, "\uFEE1\uFEFC\uFEB3"},
		{"Arabic in a left-to-right paragraph", "Hello مرحبا world", false, "Hello ابحرم world"},
		{"Latin word keeps its order", "مرحبا Bob", true, "Bob ابحرم"},
		{"two Arabic words", "كل يوم", true, "موي لك"},
		{"number after Arabic: an Arabic number, percent outside", "السعر 12.5% اليوم", true, "مويلا %12.5 رعسلا"},
		{"Latin and a number in an RTL paragraph keep their order", "abc 12.5%", true, "abc 12.5%"},
		{"numbers keep their order among Arabic words", "الصفحة 1 من 3", true, "3 نم 1 ةحفصلا"},
		{"Arabic-Indic digits", "عدد ١٢٣ فقط", true, "طقف ١٢٣ ددع"},
		{"question number", "1. ما", true, "ام .1"},
		{"question number, left to right", "1. ما", false, "1. ام"},
		{"brackets mirrored in a right-to-left run", "(مرحبا)", true, "(ابحرم)"},
		{"guillemets mirrored", "«نعم»", true, "«معن»"},
		{"brackets left alone at the base level", "a (مرحبا) b", false, "a (ابحرم) b"},
		{"marks come before their letter right to left", Shape("مُحَمَّد"), true, "\uFEAA\u0651\u064E\uFEE4\u064E\uFEA4\u064F\uFEE3"},
		{"Latin with a combining accent in Arabic: after its letter", "ب e\u0301", true, "e\u0301 ب"},
		{"a mark that starts a line", "\u064Eب", true, "ب\u064E"},
		{"mixed Latin phrase with numbers inside Arabic", "نسخة Go 1.22 جديدة", true, "ةديدج Go 1.22 ةخسن"},
		{"Hebrew reversed, unshaped", "שלום 2", true, "2 םולש"},
		{"trailing space at the base level", "abc ", true, " abc"},
		{"empty", "", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Visual(c.in, c.rtl); got != c.want {
				t.Errorf("Visual(%q, %v) = %q, want %q", c.in, c.rtl, got, c.want)
			}
		})
	}
}

// TestWrap: lines break at spaces by width, a long word where it must,
// never between a letter and its mark.
func TestWrap(t *testing.T) {
	width := func(s string) float64 { // one per character, marks none
		n := 0
		for _, r := range s {
			if !strings.ContainsRune("\u064E\u0651", r) {
				n++
			}
		}
		return float64(n)
	}
	for _, c := range []struct {
		in   string
		w    float64
		want []string
	}{
		{"", 10, []string{""}},
		{"one two three", 20, []string{"one two three"}},
		{"one two three", 8, []string{"one two", "three"}},
		{"one two three", 3, []string{"one", "two", "thr", "ee"}},
		{"abcdefgh ij", 3, []string{"abc", "def", "gh", "ij"}},
		{"مَّا", 1, []string{"مَّ", "ا"}},
		{"a\nb", 10, []string{"a", "b"}},
		{"\u064Eab", 1, []string{"\u064Ea", "b"}},
		{strings.Repeat("x", 20000), 10, slices.Repeat([]string{strings.Repeat("x", 10)}, 2000)},
	} {
		if got := Wrap(c.in, c.w, width); !slices.Equal(got, c.want) {
			t.Errorf("Wrap(%q, %v) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// TestGlyphs: DejaVu Sans, the report's font, regular and bold, draws
// every form Shape emits.
func TestGlyphs(t *testing.T) {
	var emitted []rune
	for _, f := range letters {
		for _, r := range f {
			if r != 0 {
				emitted = append(emitted, r)
			}
		}
	}
	for _, l := range lamAlef {
		emitted = append(emitted, l[:]...)
	}
	emitted = append(emitted, tatweel)
	for _, b := range [][]byte{fonts.Regular, fonts.Bold} {
		f, err := sfnt.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		var buf sfnt.Buffer
		for _, r := range emitted {
			if i, err := f.GlyphIndex(&buf, r); err != nil || i == 0 {
				t.Errorf("the font has no glyph for U+%04X", r)
			}
		}
	}
}

// base is s with presentation forms back in their letters (a ligature
// in its two) and mirrored characters in one of each pair, sorted: the
// letters s holds, whatever their forms and order.
func base(s string) []rune {
	back := map[rune][]rune{}
	for r, f := range letters {
		for _, p := range f {
			if p != 0 {
				back[p] = []rune{r}
			}
		}
	}
	for alef, l := range lamAlef {
		back[l[0]], back[l[1]] = []rune{lam, alef}, []rune{lam, alef}
	}
	var out []rune
	for _, r := range s {
		if b, ok := back[r]; ok {
			out = append(out, b...)
			continue
		}
		out = append(out, min(r, mirror(r)))
	}
	slices.Sort(out)
	return out
}

// FuzzShapeVisual: shaping and ordering never panic, keep every letter
// (a ligature counting as its two), emit only what the font draws, and
// leave text without right-to-left characters alone left to right.
func FuzzShapeVisual(f *testing.F) {
	for _, s := range []string{"سلام", "لَا", "مُحَمَّد 12.5% (abc)", "«نعم» ١٢٣", "ـلـ", "\u064Eل", "a (b) c", "\u202Eابc\u2066", "\xff"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	font, err := sfnt.Parse(fonts.Regular)
	if err != nil {
		f.Fatal(err)
	}
	var buf sfnt.Buffer
	f.Fuzz(func(t *testing.T, s string, rtl bool) {
		shaped := Shape(s)
		out := Visual(shaped, rtl)
		if !utf8.ValidString(out) && utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		if got, want := base(out), base(s); !slices.Equal(got, want) {
			t.Fatalf("letters of %q: %q, want %q", s, string(got), string(want))
		}
		if !rtl && !Has(s) && out != s {
			t.Fatalf("left-to-right %q became %q", s, out)
		}
		count := func(s string) float64 { return float64(utf8.RuneCountInString(s)) }
		lines := Wrap(shaped, 10, count)
		if len(lines) == 0 {
			t.Fatal("no lines")
		}
		if strip := func(s string) string { return strings.NewReplacer(" ", "", "\n", "").Replace(s) }; strip(strings.Join(lines, "")) != strip(shaped) {
			t.Fatalf("wrapping %q lost characters: %q", shaped, lines)
		}
		for _, l := range lines {
			if count(l) > 10 && len(clusters(l)) > 1 {
				t.Fatalf("line %q of %q is too wide", l, shaped)
			}
		}
		in := map[rune]bool{}
		for _, r := range s {
			in[r] = true
		}
		for _, r := range out {
			if in[r] || (r < 0xFB50 || r > 0xFEFF) {
				continue
			}
			if i, err := font.GlyphIndex(&buf, r); err != nil || i == 0 {
				t.Fatalf("emitted U+%04X, which the font does not draw", r)
			}
		}
	})
}
