package survey

import (
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestMostUsedWords: the chart's words skip numbers and the stop words of
// the survey's language, keep the order they come in, and stop at n.
func TestMostUsedWords(t *testing.T) {
	counted := func(words ...string) []WordCount {
		out := make([]WordCount, len(words))
		for i, w := range words {
			out[i] = WordCount{Word: w, Count: int64(len(words) - i)}
		}
		return out
	}
	tests := []struct {
		name, lang string
		words      []string
		n          int
		want       []string
	}{
		{"English", "en", []string{"the", "2024", "checkout", "and", "fast", "42"}, 10, []string{"checkout", "fast"}},
		{"English when unset", "", []string{"would", "delivery", "100"}, 10, []string{"delivery"}},
		{"an unknown language: English's", "xx", []string{"were", "price"}, 10, []string{"price"}},
		{"French", "fr", []string{"les", "livraison", "très", "est", "2025", "rapide", "c'est", "nous"}, 10, []string{"livraison", "rapide"}},
		{"German", "de", []string{"die", "lieferung", "ist", "sehr", "schnell", "und", "3"}, 10, []string{"lieferung", "schnell"}},
		{"Spanish", "es", []string{"el", "envío", "muy", "rápido", "pero", "caro", "10"}, 10, []string{"envío", "rápido", "caro"}},
		{"Dutch", "nl", []string{"de", "levering", "was", "erg", "snel", "het", "12"}, 10, []string{"levering", "snel"}},
		{"Arabic, its own digits too", "ar", []string{"في", "التوصيل", "جدا", "سريع", "٣٠", "من"}, 10, []string{"التوصيل", "سريع"}},
		// Another language's stop words are words here: "die" is German's, not English's.
		{"only the survey's language", "en", []string{"die", "het", "les"}, 10, []string{"die", "het", "les"}},
		{"French's are not Spanish's", "es", []string{"ils", "son", "est"}, 10, []string{"ils", "est"}},
		{"not a number: letters and digits", "en", []string{"3rd", "mp3", "007"}, 10, []string{"3rd", "mp3"}},
		{"bounded", "en", []string{"a", "one", "two", "three", "four"}, 2, []string{"one", "two"}},
		{"none", "fr", nil, 10, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MostUsedWords(counted(tc.words...), tc.lang, tc.n)
			words := []string{}
			for _, w := range got {
				words = append(words, w.Word)
			}
			if !reflect.DeepEqual(words, tc.want) {
				t.Errorf("MostUsedWords(%q, %q) = %q, want %q", tc.words, tc.lang, words, tc.want)
			}
		})
	}
}

// TestStopWordsPerLanguage: every language a survey may be in has its
// list, written as Words writes words (lower case, letters and digits).
func TestStopWordsPerLanguage(t *testing.T) {
	for _, lang := range Languages() {
		list := stopWordsOf[lang]
		if len(list) < 20 {
			t.Errorf("%s: %d stop words", lang, len(list))
		}
		for w := range list {
			switch ws := Words(w); {
			case len(ws) == 1 && ws[0] == w: // a word as Words writes it
			case len(ws) == 0 && (stopWords[w] || utf8.RuneCountInString(w) < 2): // one Words drops
			default:
				t.Errorf("%s: stop word %q is not a word as Words writes them: %q", lang, w, ws)
			}
		}
	}
}
