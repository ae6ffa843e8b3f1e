package survey

import "strconv"

// Integer is any integer type a count can have.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Count is n and a noun, in the plural unless n is 1: "0 answers",
// "1 answer", "2 answers". Every count shown to people goes through it
// (the pages through their plural template function).
func Count[N Integer](n N, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, noun)
}

// Noun is noun in the plural unless n is 1, for a count shown apart from
// its noun ("<strong>2</strong> answers").
func Noun[N Integer](n N, noun string) string {
	if n == 1 {
		return noun
	}
	return pluralOf(noun)
}

// irregular are the plurals our wording uses that no rule below makes.
var irregular = map[string]string{"is": "are", "was": "were", "has": "have", "person": "people", "this": "these"}

// pluralOf is the English plural of noun.
func pluralOf(noun string) string {
	if p, ok := irregular[noun]; ok {
		return p
	}
	n := len(noun)
	switch {
	case n == 0:
		return noun
	case n > 1 && noun[n-1] == 'y' && !isVowel(noun[n-2]):
		return noun[:n-1] + "ies" // entity, entities
	case hasAnySuffix(noun, "s", "x", "z", "ch", "sh"):
		return noun + "es"
	}
	return noun + "s"
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if len(s) >= len(x) && s[len(s)-len(x):] == x {
			return true
		}
	}
	return false
}
