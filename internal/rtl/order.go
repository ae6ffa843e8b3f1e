package rtl

import (
	"slices"

	"golang.org/x/text/unicode/bidi"
)

// isRTL reports whether r is a strong right-to-left character.
func isRTL(r rune) bool {
	switch class(r) {
	case bidi.R, bidi.AL:
		return true
	}
	return false
}

// class is r's bidirectional class.
func class(r rune) bidi.Class {
	p, _ := bidi.LookupRune(r)
	return p.Class()
}

// mirrored are characters drawn mirrored right to left that are no
// paired brackets (those bidi.ReverseString mirrors).
var mirrored = map[rune]rune{
	'<': '>', '>': '<', '«': '»', '»': '«', '‹': '›', '›': '‹',
	'≤': '≥', '≥': '≤', '≪': '≫', '≫': '≪',
}

// mirror is r as drawn in a right-to-left run.
func mirror(r rune) rune {
	if m, ok := mirrored[r]; ok {
		return m
	}
	if p, _ := bidi.LookupRune(r); p.IsBracket() {
		return []rune(bidi.ReverseString(string(r)))[0]
	}
	return r
}

// Visual is line, one line of shaped text in logical order, in display
// order: the order in which a writer that sets characters left to right
// must be given them. rtl is the paragraph's base direction: right to
// left (an Arabic survey's text), else left to right.
//
// It follows the Unicode bidirectional algorithm (UAX #9) for a line
// without explicit embeddings: runs of right-to-left characters are
// reversed, runs of left-to-right text and numbers ("12.5%", Arabic-Indic
// digits) keep their order, neutrals (spaces, punctuation) take the
// direction of the text around them or else the base direction, a
// mark stays after its letter left to right and comes before it right
// to left (as it is drawn, see below), and brackets and the like are mirrored
// in right-to-left runs. Text without right-to-left characters in a
// left-to-right paragraph is line itself.
func Visual(line string, rtl bool) string {
	if !rtl && !Has(line) {
		return line
	}
	runes := []rune(line)
	levels := resolve(runes, rtl)
	// Units are a character and the marks after it, kept together in a
	// left-to-right run (a Latin letter's accent is drawn over the glyph
	// before it). In a right-to-left run each character is its own unit,
	// so that a mark comes before its letter: fonts for Arabic (DejaVu
	// Sans) draw a mark over the glyph after it.
	type unit struct {
		start, end int
		level      uint8
	}
	var units []unit
	for i, r := range runes {
		if len(units) > 0 && levels[i]%2 == 0 && class(r) == bidi.NSM {
			units[len(units)-1].end = i + 1
			continue
		}
		units = append(units, unit{i, i + 1, levels[i]})
	}
	// L2: from the highest level to the lowest odd one, reverse every
	// run of units at that level or higher.
	var high, lowOdd uint8 = 0, 255
	for _, u := range units {
		high = max(high, u.level)
		if u.level%2 == 1 {
			lowOdd = min(lowOdd, u.level)
		}
	}
	for lv := high; lv >= lowOdd && lv > 0; lv-- {
		for i := 0; i < len(units); {
			if units[i].level < lv {
				i++
				continue
			}
			j := i
			for j < len(units) && units[j].level >= lv {
				j++
			}
			slices.Reverse(units[i:j])
			i = j
		}
	}
	out := make([]rune, 0, len(runes))
	for _, u := range units {
		for k := u.start; k < u.end; k++ {
			r := runes[k]
			if u.level%2 == 1 {
				r = mirror(r)
			}
			out = append(out, r)
		}
	}
	return string(out)
}

// resolve is the embedding level of each of runes (rules W1–W7, N1–N2,
// I1–I2 and L1 of UAX #9), in a paragraph of base direction rtl.
func resolve(runes []rune, rtl bool) []uint8 {
	var base uint8
	sos := bidi.L
	if rtl {
		base, sos = 1, bidi.R
	}
	n := len(runes)
	orig := make([]bidi.Class, n)
	cls := make([]bidi.Class, n)
	for i, r := range runes {
		c := class(r)
		switch c {
		case bidi.L, bidi.R, bidi.AL, bidi.EN, bidi.ES, bidi.ET, bidi.AN, bidi.CS, bidi.NSM, bidi.B, bidi.S, bidi.WS:
		default:
			c = bidi.ON // other neutrals, and controls and formats, unhandled
		}
		orig[i], cls[i] = c, c
	}
	// W1: a mark takes the class of what it follows.
	for i := range cls {
		if cls[i] == bidi.NSM {
			if i == 0 {
				cls[i] = sos
			} else {
				cls[i] = cls[i-1]
			}
		}
	}
	// W2, W3: a European number after Arabic letters is an Arabic one;
	// Arabic letters are right to left.
	last := sos
	for i, c := range cls {
		switch c {
		case bidi.L, bidi.R, bidi.AL:
			last = c
		case bidi.EN:
			if last == bidi.AL {
				cls[i] = bidi.AN
			}
		}
	}
	for i, c := range cls {
		if c == bidi.AL {
			cls[i] = bidi.R
		}
	}
	// W4: one separator between two numbers of a kind joins them.
	for i := 1; i+1 < n; i++ {
		a, c, b := cls[i-1], cls[i], cls[i+1]
		switch {
		case c == bidi.ES && a == bidi.EN && b == bidi.EN:
			cls[i] = bidi.EN
		case c == bidi.CS && a == b && (a == bidi.EN || a == bidi.AN):
			cls[i] = a
		}
	}
	// W5: terminators (%, $) next to a European number are part of it.
	for i := 0; i < n; {
		if cls[i] != bidi.ET {
			i++
			continue
		}
		j := i
		for j < n && cls[j] == bidi.ET {
			j++
		}
		if (i > 0 && cls[i-1] == bidi.EN) || (j < n && cls[j] == bidi.EN) {
			for k := i; k < j; k++ {
				cls[k] = bidi.EN
			}
		}
		i = j
	}
	// W6: the other separators and terminators are neutral.
	for i, c := range cls {
		switch c {
		case bidi.ES, bidi.ET, bidi.CS:
			cls[i] = bidi.ON
		}
	}
	// W7: a European number in left-to-right text is left to right.
	last = sos
	for i, c := range cls {
		switch c {
		case bidi.L, bidi.R:
			last = c
		case bidi.EN:
			if last == bidi.L {
				cls[i] = bidi.L
			}
		}
	}
	// N1, N2: neutrals between text of one direction take it; others,
	// the base direction. Numbers count as right to left.
	strong := func(c bidi.Class) (bidi.Class, bool) {
		switch c {
		case bidi.L:
			return bidi.L, true
		case bidi.R, bidi.EN, bidi.AN:
			return bidi.R, true
		}
		return c, false
	}
	for i := 0; i < n; {
		if _, ok := strong(cls[i]); ok {
			i++
			continue
		}
		j := i
		for j < n {
			if _, ok := strong(cls[j]); ok {
				break
			}
			j++
		}
		before, after := sos, sos
		if i > 0 {
			before, _ = strong(cls[i-1])
		}
		if j < n {
			after, _ = strong(cls[j])
		}
		dir := sos
		if before == after {
			dir = before
		}
		for k := i; k < j; k++ {
			cls[k] = dir
		}
		i = j
	}
	// I1, I2: the levels.
	levels := make([]uint8, n)
	for i, c := range cls {
		lv := base
		switch {
		case base == 0 && c == bidi.R:
			lv = 1
		case base == 0 && (c == bidi.AN || c == bidi.EN):
			lv = 2
		case base == 1 && (c == bidi.L || c == bidi.EN || c == bidi.AN):
			lv = 2
		}
		levels[i] = lv
	}
	// L1: separators, and the blanks before them and at the line's end,
	// are at the base level.
	trailing := true
	for i := n - 1; i >= 0; i-- {
		switch orig[i] {
		case bidi.S, bidi.B:
			levels[i] = base
			trailing = true
		case bidi.WS:
			if trailing {
				levels[i] = base
			}
		default:
			trailing = false
		}
	}
	return levels
}
