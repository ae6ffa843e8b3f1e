package survey

import (
	"strings"
	"unicode"
)

// ChartWords is how many of a question's most used words its chart
// shows.
const ChartWords = 10

// MostUsedWords are the first n of words (most used first, as TopWords
// gives them) that say something in language lang (a tag of Languages;
// English for one it does not list): numbers (words of digits only) and
// the language's stop words are skipped. The summary's words are counted
// without English stop words whatever the language (Words); those of
// the survey's language are skipped here, when its chart is drawn, so
// that stored summaries need no change. At most len(words) are looked at:
// a summary holds at most MaxSummaryWords.
func MostUsedWords(words []WordCount, lang string, n int) []WordCount {
	stop := stopWordsOf[lang]
	if stop == nil {
		stop = stopWords
	}
	out := make([]WordCount, 0, min(n, len(words)))
	for _, w := range words {
		if len(out) == n {
			break
		}
		if stop[w.Word] || isNumber(w.Word) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// isNumber reports whether w is written with digits only (of any
// script: "2024", "٣").
func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// stopWordsOf are the stop words of each language of Languages: short
// lists of the words that say little alone (articles, pronouns,
// prepositions, conjunctions, common verbs' forms), case folded, as Words
// writes them. English's are those Words drops.
var stopWordsOf = map[string]map[string]bool{
	"en": stopWords,
	"fr": wordSet(`le la les un une des du de au aux et ou mais donc car ni que qui quoi dont où ce cet cette
		ces ça cela mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs je tu il elle on nous vous
		ils elles me te se lui en ne pas plus très trop bien est sont été être ai as avons avez ont avait
		était c'est j'ai n'est qu'il pour par sur dans avec sans sous chez entre comme aussi si tout tous
		toute toutes fait peu même alors encore`),
	"de": wordSet(`der die das den dem des ein eine einen einem einer eines und oder aber doch denn weil dass
		ich du er sie es wir ihr mich mir dich dir sich uns euch mein meine dein deine sein seine ihre unser
		nicht kein keine ist sind war waren bin bist hat haben habe hatte wird werden wurde sehr auch noch
		schon nur so wie als wenn mit von zu zum zur im in an am auf aus bei für über unter nach vor durch
		um bis man was wer hier da dort ja nein mehr viel gibt`),
	"es": wordSet(`el la los las un una unos unas de del al y o u e ni pero que qué quien como cómo cuando
		donde porque por para con sin sobre entre en a ante es son era fue ser estar está están estoy he ha
		han hay muy más mas también tan ya no sí si se me te le lo les nos mi mis tu tus su sus nuestro yo
		tú él ella ellos ellas este esta esto estos estas ese esa eso todo todos algo`),
	"nl": wordSet(`de het een en of maar want dus dat die dit deze wat wie waar hoe als dan ik jij je u hij
		zij ze wij we jullie mij me mijn jouw zijn haar ons onze hun is ben bent was waren heb hebt heeft
		hebben had wordt worden werd niet geen wel ook nog al zo zeer erg heel meer veel van in op aan met
		voor naar bij uit over door om tot te er hier daar`),
	"ar": wordSet(`في من إلى الى على عن مع هذا هذه ذلك تلك هو هي هم هن أنا انا نحن أنت انت ما لا لم لن إن أن ان
		كان كانت يكون قد كل بعض أو او ثم حتى التي الذي الذين هناك هنا جدا أيضا ايضا لكن بل عند كما
		وهو وهي ولا وفي ومن`),
}

func wordSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}
