package survey

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CleanText returns the free text s (an answer of several lines) as it may
// be stored: without bytes that are not UTF-8, without control characters
// other than tab, newline and carriage return (NUL, the rest of C0, DEL and
// C1), and without the bidirectional overrides and isolates U+202A–U+202E
// and U+2066–U+2069, which can make a text read other than it is. Text
// that has none of them is returned unchanged. Storage and PostgreSQL copies
// rely on it: PostgreSQL refuses NUL and invalid UTF-8 in text.
func CleanText(s string) string { return clean(s, true) }

// CleanLine is CleanText for a text of one line (a title, a question, a
// possible answer, a name): tab, newline and carriage return become spaces.
func CleanLine(s string) string { return clean(s, false) }

// badRune reports whether r is dropped from text; lines says whether tab,
// newline and carriage return are kept.
func badRune(r rune, lines bool) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return !lines
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func clean(s string, lines bool) string {
	dirty := false
	for i, r := range s {
		if badRune(r, lines) || (r == utf8.RuneError && isInvalidAt(s, i)) {
			dirty = true
			break
		}
	}
	if !dirty {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == utf8.RuneError && isInvalidAt(s, i):
		case !lines && (r == '\t' || r == '\n' || r == '\r'):
			b.WriteByte(' ')
		case badRune(r, lines):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isInvalidAt reports whether the RuneError at s[i] stands for a byte that
// is not UTF-8 (rather than an encoded U+FFFD).
func isInvalidAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 1
}

// IsCleanText reports whether CleanText leaves s unchanged.
func IsCleanText(s string) bool { return CleanText(s) == s }

// IsCleanLine reports whether CleanLine leaves s unchanged.
func IsCleanLine(s string) bool { return CleanLine(s) == s }

// oneSpaced is s with each run of white space one space and none at its
// ends (its strings.Fields joined by spaces): s itself, made again by
// nothing, when it is so already, as a line typed into a form mostly is.
func oneSpaced(s string) string {
	space := true // at the start, as after a space: one there is too many
	for _, r := range s {
		if !unicode.IsSpace(r) {
			space = false
			continue
		}
		if r != ' ' || space {
			return strings.Join(strings.Fields(s), " ")
		}
		space = true
	}
	if space && s != "" {
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}
