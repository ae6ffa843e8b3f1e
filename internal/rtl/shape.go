// Package rtl readies right-to-left text for a writer that neither
// shapes nor reorders it: the PDF report's (codeberg.org/go-pdf/fpdf) and
// the PNG charts' (golang.org/x/image/font) draw the characters of a
// string one after the other, left to right, each in its nominal glyph.
//
// Shape puts Arabic letters in the contextual forms of Unicode's Arabic
// Presentation Forms-B (isolated, final, initial, medial, as their
// neighbours join) and makes the mandatory lam-alef ligatures; Visual puts
// one line of shaped text in display order, by a simplified Unicode
// bidirectional algorithm; Wrap breaks logical text into lines by width.
// The order of use is: Shape, Wrap, then Visual on each line.
//
// Not handled: explicit embeddings, overrides and isolates (their
// controls are treated as neutrals), bracket pairs (rule N0: a bracket
// takes its direction from its neighbours like any other neutral), the
// letters of other Arabic-script languages past Persian's, and every
// other complex script.
package rtl

import "unicode"

// joining is a letter's Arabic joining type.
type joining uint8

const (
	nonJoining   joining = iota // U: joins neither side
	rightJoining                // R: joins the letter before it only
	dualJoining                 // D: joins both sides
	joinCausing                 // C: tatweel, ZWJ: makes both sides join
	transparent                 // T: marks, skipped for joining
)

// forms are a letter's presentation forms: isolated, final, initial,
// medial; a right-joining letter has no initial or medial one (0).
type forms [4]rune

const (
	isolated = iota
	final
	initial
	medial
)

// letters are the Arabic letters Shape gives forms, with their forms in
// Arabic Presentation Forms-B (U+FE80–U+FEF4) and, for Persian's and
// Urdu's own letters, in Forms-A.
var letters = map[rune]forms{
	0x0621: {0xFE80, 0, 0, 0}, // hamza (non-joining)
	0x0622: {0xFE81, 0xFE82, 0, 0},
	0x0623: {0xFE83, 0xFE84, 0, 0},
	0x0624: {0xFE85, 0xFE86, 0, 0},
	0x0625: {0xFE87, 0xFE88, 0, 0},
	0x0626: {0xFE89, 0xFE8A, 0xFE8B, 0xFE8C},
	0x0627: {0xFE8D, 0xFE8E, 0, 0},
	0x0628: {0xFE8F, 0xFE90, 0xFE91, 0xFE92},
	0x0629: {0xFE93, 0xFE94, 0, 0},
	0x062A: {0xFE95, 0xFE96, 0xFE97, 0xFE98},
	0x062B: {0xFE99, 0xFE9A, 0xFE9B, 0xFE9C},
	0x062C: {0xFE9D, 0xFE9E, 0xFE9F, 0xFEA0},
	0x062D: {0xFEA1, 0xFEA2, 0xFEA3, 0xFEA4},
	0x062E: {0xFEA5, 0xFEA6, 0xFEA7, 0xFEA8},
	0x062F: {0xFEA9, 0xFEAA, 0, 0},
	0x0630: {0xFEAB, 0xFEAC, 0, 0},
	0x0631: {0xFEAD, 0xFEAE, 0, 0},
	0x0632: {0xFEAF, 0xFEB0, 0, 0},
	0x0633: {0xFEB1, 0xFEB2, 0xFEB3, 0xFEB4},
	0x0634: {0xFEB5, 0xFEB6, 0xFEB7, 0xFEB8},
	0x0635: {0xFEB9, 0xFEBA, 0xFEBB, 0xFEBC},
	0x0636: {0xFEBD, 0xFEBE, 0xFEBF, 0xFEC0},
	0x0637: {0xFEC1, 0xFEC2, 0xFEC3, 0xFEC4},
	0x0638: {0xFEC5, 0xFEC6, 0xFEC7, 0xFEC8},
	0x0639: {0xFEC9, 0xFECA, 0xFECB, 0xFECC},
	0x063A: {0xFECD, 0xFECE, 0xFECF, 0xFED0},
	0x0641: {0xFED1, 0xFED2, 0xFED3, 0xFED4},
	0x0642: {0xFED5, 0xFED6, 0xFED7, 0xFED8},
	0x0643: {0xFED9, 0xFEDA, 0xFEDB, 0xFEDC},
	0x0644: {0xFEDD, 0xFEDE, 0xFEDF, 0xFEE0},
	0x0645: {0xFEE1, 0xFEE2, 0xFEE3, 0xFEE4},
	0x0646: {0xFEE5, 0xFEE6, 0xFEE7, 0xFEE8},
	0x0647: {0xFEE9, 0xFEEA, 0xFEEB, 0xFEEC},
	0x0648: {0xFEED, 0xFEEE, 0, 0},
	0x0649: {0xFEEF, 0xFEF0, 0, 0},
	0x064A: {0xFEF1, 0xFEF2, 0xFEF3, 0xFEF4},
	// Persian's letters, in Forms-A.
	0x067E: {0xFB56, 0xFB57, 0xFB58, 0xFB59}, // peh
	0x0686: {0xFB7A, 0xFB7B, 0xFB7C, 0xFB7D}, // tcheh
	0x0698: {0xFB8A, 0xFB8B, 0, 0},           // jeh
	0x06A9: {0xFB8E, 0xFB8F, 0xFB90, 0xFB91}, // keheh
	0x06AF: {0xFB92, 0xFB93, 0xFB94, 0xFB95}, // gaf
	0x06CC: {0xFBFC, 0xFBFD, 0xFBFE, 0xFBFF}, // farsi yeh
}

// lamAlef are the ligatures of lam with each alef: isolated, final.
var lamAlef = map[rune][2]rune{
	0x0622: {0xFEF5, 0xFEF6}, // with madda above
	0x0623: {0xFEF7, 0xFEF8}, // with hamza above
	0x0625: {0xFEF9, 0xFEFA}, // with hamza below
	0x0627: {0xFEFB, 0xFEFC},
}

const (
	lam     = 0x0644
	tatweel = 0x0640
	zwj     = 0x200D
)

// joiningOf is r's joining type.
func joiningOf(r rune) joining {
	if f, ok := letters[r]; ok {
		switch {
		case f[initial] != 0:
			return dualJoining
		case f[final] != 0:
			return rightJoining
		}
		return nonJoining
	}
	switch {
	case r == tatweel || r == zwj:
		return joinCausing
	case unicode.In(r, unicode.Mn, unicode.Me):
		return transparent
	}
	return nonJoining
}

// joinsAfter reports whether a letter of type j joins the letter after
// it; joinsBefore, the letter before it.
func joinsAfter(j joining) bool  { return j == dualJoining || j == joinCausing }
func joinsBefore(j joining) bool { return j == dualJoining || j == rightJoining || j == joinCausing }

// Has reports whether s holds a character written right to left
// (Hebrew, Arabic and the like), for which Visual changes the order.
func Has(s string) bool {
	for _, r := range s {
		if isRTL(r) {
			return true
		}
	}
	return false
}

// Shape is s, in logical order, with each Arabic letter in its form for
// its place: joined to the letter before it (final), after it (initial),
// both (medial) or neither (isolated); marks (harakat) are skipped when
// looking for neighbours and kept after their letter. Lam followed by an
// alef becomes their ligature, the marks between them after it. Tatweel,
// digits and the rest are kept. Text without Arabic letters is s itself.
func Shape(s string) string {
	if !hasArabic(s) {
		return s
	}
	in := []rune(s)
	types := make([]joining, len(in))
	for i, r := range in {
		types[i] = joiningOf(r)
	}
	// neighbour is the type of the first letter from i (excluded) in
	// direction step that is not transparent, with its index; nonJoining
	// and -1 when there is none.
	neighbour := func(i, step int) (joining, int) {
		for j := i + step; j >= 0 && j < len(in); j += step {
			if types[j] != transparent {
				return types[j], j
			}
		}
		return nonJoining, -1
	}
	out := make([]rune, 0, len(in))
	for i := 0; i < len(in); i++ {
		r := in[i]
		f, ok := letters[r]
		if !ok {
			out = append(out, r)
			continue
		}
		before, _ := neighbour(i, -1)
		after, next := neighbour(i, +1)
		joinedBefore := joinsAfter(before) && joinsBefore(types[i])
		if r == lam && next >= 0 {
			if lig, ok := lamAlef[in[next]]; ok {
				form := lig[0]
				if joinedBefore {
					form = lig[1]
				}
				out = append(out, form)
				out = append(out, in[i+1:next]...) // the lam's marks
				i = next
				continue
			}
		}
		joinedAfter := joinsAfter(types[i]) && joinsBefore(after)
		switch {
		case joinedBefore && joinedAfter:
			out = append(out, f[medial])
		case joinedBefore:
			out = append(out, f[final])
		case joinedAfter:
			out = append(out, f[initial])
		default:
			out = append(out, f[isolated])
		}
	}
	return string(out)
}

// hasArabic reports whether s holds a letter Shape gives forms.
func hasArabic(s string) bool {
	for _, r := range s {
		if _, ok := letters[r]; ok {
			return true
		}
	}
	return false
}
