package survey

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SurveyAnswersSummary is the running summary of a survey's answers.
// Summaries merge by question ID, never by question text.
type SurveyAnswersSummary struct {
	Tenant       string                   `json:"tenant"`
	Slug         string                   `json:"slug"`
	TotalAnswers int64                    `json:"totalAnswers"`
	Questions    []QuestionAnswersSummary `json:"questions"`
}

// QuestionAnswersSummary summarises the answers to one question.
type QuestionAnswersSummary struct {
	QuestionID   string       `json:"questionId"`
	QuestionText string       `json:"questionText"`
	Type         QuestionType `json:"type"`
	// Answered counts the answers to this question.
	Answered int64 `json:"answered"`
	// Choices counts each possible answer (MultipleChoice), in the order
	// the question offers them.
	Choices []ChoiceCount `json:"choices,omitempty"`
	// Stars counts ratings 1 to 5 (FiveStars) at Stars[0] to Stars[4].
	// The sum is derived from them exactly.
	Stars *[5]int64 `json:"stars,omitempty"`
	// Words counts the words of text answers (SimpleText), case folded,
	// stop words and words longer than MaxWordLength removed. It holds at
	// most MaxSummaryWords distinct words: see keepWords for which.
	Words map[string]int64 `json:"words,omitempty"`
	// OtherWords counts the uses of counted words that Words does not hold.
	OtherWords int64 `json:"otherWords,omitempty"`
}

// ChoiceCount is the count of one possible answer.
type ChoiceCount struct {
	Answer string `json:"answer"`
	Count  int64  `json:"count"`
}

// Bounds of a summary's words, so that a summary stays small whatever
// respondents write: a word longer than MaxWordLength characters is not
// counted, and a question's summary holds at most MaxSummaryWords distinct
// words (at most about 1,000 × 160 bytes of words per question).
const (
	MaxWordLength   = 40
	MaxSummaryWords = 1000
)

// NewSummary returns an empty summary of s.
func NewSummary(s *Survey) *SurveyAnswersSummary {
	sum := &SurveyAnswersSummary{Tenant: s.Tenant, Slug: s.Slug}
	for _, q := range s.Questions {
		qs := QuestionAnswersSummary{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type}
		if k, ok := KindOf(q.Type); ok {
			k.newSummary(q, &qs)
		}
		sum.Questions = append(sum.Questions, qs)
	}
	return sum
}

// question returns the summary of the question with the given ID, adding
// one from the answer when the summary has none.
func (sum *SurveyAnswersSummary) question(qa QuestionAnswer) *QuestionAnswersSummary {
	for i := range sum.Questions {
		if sum.Questions[i].QuestionID == qa.QuestionID {
			return &sum.Questions[i]
		}
	}
	qs := QuestionAnswersSummary{QuestionID: qa.QuestionID, QuestionText: qa.QuestionText, Type: qa.Type}
	if k, ok := KindOf(qa.Type); ok {
		k.newSummary(Question{ID: qa.QuestionID, Text: qa.QuestionText, Type: qa.Type}, &qs)
	}
	sum.Questions = append(sum.Questions, qs)
	return &sum.Questions[len(sum.Questions)-1]
}

// Add counts one answer into the summary.
func (sum *SurveyAnswersSummary) Add(a SurveyAnswer) {
	sum.TotalAnswers++
	for _, qa := range a.Answers {
		qs := sum.question(qa)
		qs.Answered++
		if k, ok := KindOf(qa.Type); ok {
			k.add(qs, qa.Answer)
		}
	}
}

// Merge adds the counts of other into sum, question by question ID.
func (sum *SurveyAnswersSummary) Merge(other *SurveyAnswersSummary) {
	sum.TotalAnswers += other.TotalAnswers
	for _, oq := range other.Questions {
		qs := sum.question(QuestionAnswer{QuestionID: oq.QuestionID, QuestionText: oq.QuestionText, Type: oq.Type})
		qs.Answered += oq.Answered
		// Each kind merges the part of the summary it owns, whatever the
		// question's type: a question whose type changed keeps every count.
		for _, k := range kinds {
			k.merge(qs, &oq)
		}
	}
}

// RestoreEmpty gives back the empty counts that a decoded summary's JSON
// omits (an empty count is omitted), so that merging an answer into a
// question that has none yet finds them.
func (sum *SurveyAnswersSummary) RestoreEmpty() {
	for i := range sum.Questions {
		if k, ok := KindOf(sum.Questions[i].Type); ok {
			k.restore(&sum.Questions[i])
		}
	}
}

// StarCount and StarSum are the exact count and sum of the ratings.
func (qs *QuestionAnswersSummary) StarCount() (count, sum int64) {
	if qs.Stars == nil {
		return 0, 0
	}
	for i, n := range qs.Stars {
		count += n
		sum += int64(i+1) * n
	}
	return count, sum
}

// Average is the mean rating, derived from the exact distribution; 0 when
// there is none.
func (qs *QuestionAnswersSummary) Average() float64 {
	count, sum := qs.StarCount()
	if count == 0 {
		return 0
	}
	return float64(sum) / float64(count)
}

// WordCount is a word and how often it was used.
type WordCount struct {
	Word  string
	Count int64
}

// TopWords returns the n most used words, most used first, ties by word.
func (qs *QuestionAnswersSummary) TopWords(n int) []WordCount {
	all := make([]WordCount, 0, len(qs.Words))
	for w, c := range qs.Words {
		all = append(all, WordCount{w, c})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Count != all[j].Count {
			return all[i].Count > all[j].Count
		}
		return all[i].Word < all[j].Word
	})
	if len(all) > n {
		all = all[:n]
	}
	return all
}

// keepWords bounds Words to MaxSummaryWords distinct words so that merges
// stay exact and independent of order and batching. Which words are held
// depends only on the set of distinct words ever counted, never on counts
// or on the order of answers: Words holds the MaxSummaryWords words that
// come first by (wordRank(word), word), with their exact counts, and
// OtherWords the uses of every other word. That set is a function of the
// answers alone: a word first by rank among all the words is first among
// the words of any part of the answers it appears in, so each part kept
// its exact count, and a merge (sum, then keep the first) gives the same
// counts as one summary of all the answers. Once a question has more than
// MaxSummaryWords distinct words, Words is thus a fixed, even sample of
// its vocabulary with exact counts, not its most used words.
func (qs *QuestionAnswersSummary) keepWords() {
	for w := range qs.Words {
		if len(w) > MaxWordLength && utf8.RuneCountInString(w) > MaxWordLength {
			// Not a word (kept by a summary written before the limit).
			delete(qs.Words, w)
		}
	}
	if len(qs.Words) <= MaxSummaryWords {
		return
	}
	all := make([]rankedWord, 0, len(qs.Words))
	for w := range qs.Words {
		all = append(all, rankedWord{wordRank(w), w})
	}
	// The words past the first MaxSummaryWords, in no order.
	selectFirst(all, MaxSummaryWords)
	for _, r := range all[MaxSummaryWords:] {
		qs.OtherWords += qs.Words[r.word]
		delete(qs.Words, r.word)
	}
}

// rankedWord is a word and its wordRank.
type rankedWord struct {
	rank uint64
	word string
}

func (a rankedWord) less(b rankedWord) bool {
	return a.rank < b.rank || a.rank == b.rank && a.word < b.word
}

// selectFirst reorders all so that its first k elements are the k least,
// in no order (quickselect: linear on average, as a summary is updated
// once per answer).
func selectFirst(all []rankedWord, k int) {
	lo, hi := 0, len(all)-1
	for lo < hi {
		pivot := all[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for all[i].less(pivot) {
				i++
			}
			for pivot.less(all[j]) {
				j--
			}
			if i <= j {
				all[i], all[j] = all[j], all[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// wordRank orders words for keepWords: the 64-bit FNV-1a hash of the
// word's bytes (as hash/fnv's New64a), fixed for good since stored
// summaries depend on it.
func wordRank(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return h
}

// Words splits a text answer into its counted words: case folded, letters
// and digits only, stop words, one-letter words and words longer than
// MaxWordLength characters removed.
func Words(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := fields[:0]
	for _, w := range fields {
		w = strings.Trim(w, "'")
		if n := utf8.RuneCountInString(w); n < 2 || n > MaxWordLength || stopWords[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are aren't as at
		be because been before being below between both but by can can't cannot could couldn't did didn't do
		does doesn't doing don't down during each few for from further had hadn't has hasn't have haven't
		having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've
		if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once
		only or other ought our ours ourselves out over own same shan't she she'd she'll she's should
		shouldn't so some such than that that's the their theirs them themselves then there there's these
		they they'd they'll they're they've this those through to too under until up very was wasn't we we'd
		we'll we're we've were weren't what what's when when's where where's which while who who's whom why
		why's with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
		also just really very much many get got will`) {
		m[w] = true
	}
	return m
}()
