package survey

import (
	"slices"
	"testing"
)

// FuzzWords: Words' direct path for ASCII texts gives the words that
// splitting by Unicode letters and digits gives.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"", "The w12x, it's and Été", "Don't STOP 'quoted' words'' a b cd", "tab\tand\nnew-line_under score",
		"x" + string(make([]byte, 45)), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa c", "'' ' it''s 42 7", "\x7f\x00A1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, ok := asciiWords(s)
		if !ok {
			return
		}
		if want := unicodeWords(s); !slices.Equal(w, want) {
			t.Fatalf("asciiWords(%q) = %q, unicodeWords %q", s, w, want)
		}
	})
}
