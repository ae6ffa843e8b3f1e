package chartdraw

import (
	"sync"

	"github.com/surveys-dev/surveys/internal/rtl"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/surveys-dev/surveys/internal/fonts"
)

// parsed are the embedded fonts, regular and bold, parsed once.
var parsed = sync.OnceValues(func() ([2]*opentype.Font, error) {
	var out [2]*opentype.Font
	for i, b := range [][]byte{fonts.Regular, fonts.Bold} {
		f, err := opentype.Parse(b)
		if err != nil {
			return out, err
		}
		out[i] = f
	}
	return out, nil
})

// measurer makes the faces of one drawing (a face is not safe for
// concurrent use), one per size and weight.
type measurer struct {
	fonts [2]*opentype.Font
	faces map[faceKey]font.Face
}

type faceKey struct {
	size float64
	bold bool
}

func newMeasurer() (*measurer, error) {
	fs, err := parsed()
	if err != nil {
		return nil, err
	}
	return &measurer{fonts: fs, faces: map[faceKey]font.Face{}}, nil
}

// face is the face of size (pixels) and weight.
func (m *measurer) face(size float64, bold bool) font.Face {
	k := faceKey{size, bold}
	if f, ok := m.faces[k]; ok {
		return f
	}
	i := 0
	if bold {
		i = 1
	}
	f, err := opentype.NewFace(m.fonts[i], &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		// Only a size of zero or less fails; the sizes are constants.
		panic(err)
	}
	m.faces[k] = f
	return f
}

// width is s's width in pixels, its Arabic letters joined as they are
// drawn (rtl.Shape).
func (m *measurer) width(s string, size float64, bold bool) float64 {
	return fixedFloat(font.MeasureString(m.face(size, bold), rtl.Shape(s)))
}

func fixedFloat(x fixed.Int26_6) float64 { return float64(x) / 64 }

// fit is s, cut short with "…" to fit width w.
func (m *measurer) fit(s string, size float64, bold bool, w float64) string {
	r := []rune(s)
	cut := len(r) > maxRune
	if cut {
		r = r[:maxRune]
	}
	if !cut && m.width(s, size, bold) <= w {
		return s
	}
	// The longest prefix that fits with its "…", found by halves.
	lo, hi := 0, len(r)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.width(string(r[:mid])+"…", size, bold) <= w {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(r[:lo]) + "…"
}

// wrap is s broken between words into lines of width w, at most lines of
// them (the last cut short when s is longer).
func (m *measurer) wrap(s string, size float64, bold bool, w float64, lines int) []string {
	var out []string
	var line []rune
	words := []rune(s)
	if len(words) > maxRune*lines {
		words = words[:maxRune*lines]
	}
	for _, word := range splitWords(string(words)) {
		next := string(line) + word
		if len(line) > 0 && m.width(next, size, bold) > w {
			out = append(out, string(line))
			line = []rune(trimLeft(word))
			continue
		}
		line = []rune(next)
	}
	if len(line) > 0 || len(out) == 0 {
		out = append(out, string(line))
	}
	if len(out) > lines {
		out = out[:lines]
		out[lines-1] += " …"
	}
	for i := range out {
		out[i] = m.fit(out[i], size, bold, w)
	}
	return out
}

// splitWords is s in words, each with the spaces before it.
func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] != ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

func trimLeft(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	return s
}
