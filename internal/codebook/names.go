package codebook

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxName is the longest variable name SPSS takes, in bytes.
const MaxName = 64

// reserved are the words neither SPSS (its reserved keywords) nor R (its
// reserved words, which read.csv would rename) take as a variable's name,
// in lower case: a name is compared without its case, as SPSS does.
var reserved = map[string]bool{
	"all": true, "and": true, "by": true, "eq": true, "ge": true, "gt": true, "le": true, "lt": true,
	"ne": true, "not": true, "or": true, "to": true, "with": true,
	"if": true, "else": true, "repeat": true, "while": true, "function": true, "for": true, "in": true,
	"next": true, "break": true, "true": true, "false": true, "null": true, "inf": true, "nan": true,
	"na": true, "na_integer_": true, "na_real_": true, "na_complex_": true, "na_character_": true,
}

// letters are the Latin letters that no accent makes, in ASCII.
var letters = map[rune]string{
	'ß': "ss", 'æ': "ae", 'Æ': "AE", 'œ': "oe", 'Œ': "OE", 'ø': "o", 'Ø': "O",
	'đ': "d", 'Đ': "D", 'ł': "l", 'Ł': "L", 'þ': "th", 'Þ': "TH", 'ð': "d", 'Ð': "D",
}

// Sanitize makes s a valid variable name for SPSS and R: ASCII letters,
// digits and "_" (a letter with an accent loses it, ß is ss, ø o and
// the like, anything else
// becomes "_", and runs of "_" one), beginning with a letter ("v" is put
// before a name that would begin with a digit, "v_" before a reserved
// word), not ending with "_", at most MaxName bytes, "v" when nothing is
// left.
func Sanitize(s string) string {
	var b strings.Builder
	under := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// An accent, taken off its letter.
		case letters[r] != "":
			b.WriteString(letters[r])
			under = false
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
			under = false
		case !under:
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.Trim(b.String(), "_")
	switch {
	case out == "":
		return "v"
	case out[0] >= '0' && out[0] <= '9':
		out = "v" + out
	case reserved[strings.ToLower(out)]:
		out = "v_" + out
	}
	return trimName(out, MaxName)
}

// trimName cuts a name of ASCII to at most n bytes, with no "_" at its end.
func trimName(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.TrimRight(s, "_")
}

// namer gives unique names: SPSS takes "Q1" and "q1" for the same.
type namer map[string]bool

// name is Sanitize(s), or, when that is taken, that with "_2", "_3" … (cut
// to stay within MaxName), marked taken.
func (n namer) name(s string) string {
	base := Sanitize(s)
	out := base
	for i := 2; n[strings.ToLower(out)] || reserved[strings.ToLower(out)]; i++ {
		suffix := "_" + strconv.Itoa(i)
		out = trimName(base, MaxName-len(suffix)) + suffix
	}
	n[strings.ToLower(out)] = true
	return out
}
