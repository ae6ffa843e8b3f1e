package survey

import (
	"math/big"
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
	// Hidden counts the values of the hidden fields the answers carried,
	// by field name (hidden.go), and those of the score and variables,
	// by reference (var:<name>, scoring.go); absent from summaries
	// without any.
	Hidden map[string]*HiddenSummary `json:"hidden,omitempty"`
	// Partial counts the partial answers kept (partial.go): apart from
	// TotalAnswers, and merged into no question's counts.
	Partial int64 `json:"partial,omitempty"`
}

// HiddenSummary counts the values of one hidden field: Answered the
// answers that carried one, Values each value, at most
// MaxSummaryHiddenValues of them (a fixed sample with exact counts, as
// words are: see keepWords), OtherValues the answers whose value Values
// does not hold.
type HiddenSummary struct {
	Answered    int64            `json:"answered"`
	Values      map[string]int64 `json:"values,omitempty"`
	OtherValues int64            `json:"otherValues,omitempty"`
}

// MaxSummaryHiddenValues bounds the distinct values a summary counts of
// each hidden field: the link's values are anyone's to choose.
const MaxSummaryHiddenValues = 200

// hidden is the summary of hidden field name, made when missing.
func (sum *SurveyAnswersSummary) hidden(name string) *HiddenSummary {
	if sum.Hidden == nil {
		sum.Hidden = map[string]*HiddenSummary{}
	}
	h := sum.Hidden[name]
	if h == nil {
		h = &HiddenSummary{}
		sum.Hidden[name] = h
	}
	if h.Values == nil {
		h.Values = map[string]int64{}
	}
	return h
}

// TopValues are the n values of h counted most (ties in the values'
// order), with their counts.
func (h *HiddenSummary) TopValues(n int) []ChoiceCount {
	out := make([]ChoiceCount, 0, len(h.Values))
	for v, c := range h.Values {
		out = append(out, ChoiceCount{Answer: v, Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Answer < out[j].Answer
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// QuestionAnswersSummary summarises the answers to one question. It is made
// of parts, each used by the kinds that need it and merged the same way
// whatever the kind (Merge): exactly, with integer counts, in any order.
type QuestionAnswersSummary struct {
	QuestionID   string       `json:"questionId"`
	QuestionText string       `json:"questionText"`
	Type         QuestionType `json:"type"`
	// Answered counts the answers to this question (an optional question
	// left unanswered is not counted).
	Answered int64 `json:"answered"`
	// Choices counts each possible answer, in the order the question
	// offers them (choice questions, scales).
	Choices []ChoiceCount `json:"choices,omitempty"`
	// Other counts the answers "Other (please specify)"; their texts'
	// words are counted in Words.
	Other int64 `json:"other,omitempty"`
	// Stars counts ratings 1 to 5 (FiveStars) at Stars[0] to Stars[4].
	// The sum is derived from them exactly.
	Stars *[5]int64 `json:"stars,omitempty"`
	// Words counts the words of text answers (SimpleText), case folded,
	// stop words and words longer than MaxWordLength removed. It holds at
	// most MaxSummaryWords distinct words: see keepWords for which.
	Words map[string]int64 `json:"words,omitempty"`
	// OtherWords counts the uses of counted words that Words does not hold.
	OtherWords int64 `json:"otherWords,omitempty"`
	// Numbers summarises numbers; Dates, dates.
	Numbers *NumberSummary `json:"numbers,omitempty"`
	Dates   *DateSummary   `json:"dates,omitempty"`
	// Rows counts each row's answers (a matrix), in the question's order.
	Rows []RowCount `json:"rows,omitempty"`
	// Ranks sums the positions given to each item (a ranking).
	Ranks []RankSum `json:"ranks,omitempty"`

	// wordSlack is how many words past MaxSummaryWords Words (and
	// Numbers.Values) may hold before they are bounded (a Recount's; 0:
	// at every answer).
	wordSlack int
}

// NumberSummary is the exact summary of numbers: their count, least and
// greatest, exact sum (a fraction, as math/big.Rat writes it) and the
// count of each distinct value, at most MaxSummaryWords of them (the same
// fixed sample as words: see keepWords), with OtherValues counting the
// rest.
type NumberSummary struct {
	Count       int64            `json:"count"`
	Min         string           `json:"min,omitempty"`
	Max         string           `json:"max,omitempty"`
	Sum         string           `json:"sum"`
	Values      map[string]int64 `json:"values,omitempty"`
	OtherValues int64            `json:"otherValues,omitempty"`

	// recount holds a Recount's running sum, least and greatest as
	// numbers: Sum is written from it once, at the end (flush), not at
	// every answer (nil outside a Recount).
	recount *numberRecount
}

// numberRecount is what a Recount keeps of a NumberSummary between its
// answers, so as not to read Sum, Min and Max again and write Sum at
// each: the exact sum, the least and greatest (valid when Min and Max
// are set), and one number read.
type numberRecount struct {
	sum, min, max, v big.Rat
}

// DateSummary is the summary of dates (YYYY-MM-DD): the earliest, the
// latest and the count per month (YYYY-MM).
type DateSummary struct {
	Earliest string           `json:"earliest,omitempty"`
	Latest   string           `json:"latest,omitempty"`
	Months   map[string]int64 `json:"months,omitempty"`
}

// RowCount counts the answers to one row of a matrix.
type RowCount struct {
	Row     string        `json:"row"`
	Choices []ChoiceCount `json:"choices"`
}

// RankSum is the sum of the positions (from 1) given to one item of a
// ranking, how many answers ranked it, and how many ranked it first.
type RankSum struct {
	Item  string `json:"item"`
	Count int64  `json:"count"`
	Sum   int64  `json:"sum"`
	First int64  `json:"first,omitempty"`
}

// Average is the mean position of the item, 0 when none.
func (r RankSum) Average() float64 {
	if r.Count == 0 {
		return 0
	}
	return float64(r.Sum) / float64(r.Count)
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
	if a.Partial {
		// Counted apart: no complete count moves (partial.go).
		sum.Partial++
		return
	}
	sum.TotalAnswers++
	for _, qa := range a.Answers {
		if qa.Answer == "" {
			continue // not answered: an optional question
		}
		qs := sum.question(qa)
		qs.Answered++
		if k, ok := KindOf(qa.Type); ok {
			k.add(qs, qa.Answer)
		}
	}
	for name, v := range a.Hidden {
		h := sum.hidden(name)
		h.Answered++
		h.Values[v]++
		h.OtherValues += keepFirst(h.Values, MaxSummaryHiddenValues)
	}
	// The score's and variables' values are counted as a hidden field's
	// are, under their references (var:<name>): their distribution and
	// mean on the analysis page.
	for name, v := range a.Values {
		h := sum.hidden(VarRef(name))
		h.Answered++
		h.Values[v]++
		h.OtherValues += keepFirst(h.Values, MaxSummaryHiddenValues)
	}
}

// AddAll counts answers into the summary, as Add does each in turn: they
// are added to a summary of their own, which is then merged (an exact
// merge: see keepWords). A question holding MaxSummaryWords words or
// values is thus bounded once for all the answers, not once per answer,
// which would cost a pass over its words for each (the worker's merge of
// a batch).
func (sum *SurveyAnswersSummary) AddAll(answers []SurveyAnswer) {
	switch len(answers) {
	case 0:
		return
	case 1:
		sum.Add(answers[0])
		return
	}
	var part SurveyAnswersSummary
	for _, a := range answers {
		part.Add(a)
	}
	sum.Merge(&part)
}

// Merge adds the counts of other into sum, question by question ID, part
// by part: whatever a question's kind, so a question whose type changed
// keeps every count.
func (sum *SurveyAnswersSummary) Merge(other *SurveyAnswersSummary) {
	sum.TotalAnswers += other.TotalAnswers
	sum.Partial += other.Partial
	for _, oq := range other.Questions {
		qs := sum.question(QuestionAnswer{QuestionID: oq.QuestionID, QuestionText: oq.QuestionText, Type: oq.Type})
		qs.merge(&oq)
	}
	for name, oh := range other.Hidden {
		h := sum.hidden(name)
		h.Answered += oh.Answered
		h.OtherValues += oh.OtherValues
		for v, n := range oh.Values {
			h.Values[v] += n
		}
		h.OtherValues += keepFirst(h.Values, MaxSummaryHiddenValues)
	}
}

// merge adds o's counts to qs.
func (qs *QuestionAnswersSummary) merge(o *QuestionAnswersSummary) {
	qs.Answered += o.Answered
	qs.Choices = mergeChoices(qs.Choices, o.Choices)
	qs.Other += o.Other
	if o.Stars != nil {
		if qs.Stars == nil {
			qs.Stars = &[5]int64{}
		}
		for i, n := range o.Stars {
			qs.Stars[i] += n
		}
	}
	if len(o.Words) > 0 || o.OtherWords > 0 {
		if qs.Words == nil {
			qs.Words = map[string]int64{}
		}
		for w, n := range o.Words {
			qs.Words[w] += n
		}
		qs.OtherWords += o.OtherWords
		qs.keepWords()
	}
	if o.Numbers != nil {
		if qs.Numbers == nil {
			qs.Numbers = &NumberSummary{}
		}
		qs.Numbers.merge(o.Numbers)
	}
	if o.Dates != nil {
		if qs.Dates == nil {
			qs.Dates = &DateSummary{}
		}
		qs.Dates.merge(o.Dates)
	}
	for _, or := range o.Rows {
		found := false
		for i := range qs.Rows {
			if qs.Rows[i].Row == or.Row {
				qs.Rows[i].Choices = mergeChoices(qs.Rows[i].Choices, or.Choices)
				found = true
				break
			}
		}
		if !found {
			qs.Rows = append(qs.Rows, RowCount{Row: or.Row, Choices: mergeChoices(nil, or.Choices)})
		}
	}
	for _, or := range o.Ranks {
		found := false
		for i := range qs.Ranks {
			if qs.Ranks[i].Item == or.Item {
				qs.Ranks[i].Count += or.Count
				qs.Ranks[i].Sum += or.Sum
				qs.Ranks[i].First += or.First
				found = true
				break
			}
		}
		if !found {
			qs.Ranks = append(qs.Ranks, or)
		}
	}
}

// mergeChoices adds the counts of o to those of cs, by answer; answers cs
// lacks are added at its end, in o's order.
func mergeChoices(cs, o []ChoiceCount) []ChoiceCount {
	for _, oc := range o {
		found := false
		for i := range cs {
			if cs[i].Answer == oc.Answer {
				cs[i].Count += oc.Count
				found = true
				break
			}
		}
		if !found {
			cs = append(cs, oc)
		}
	}
	return cs
}

// addChoice counts one answer into cs, adding it at the end when cs lacks
// it.
func addChoice(cs []ChoiceCount, answer string) []ChoiceCount {
	for i := range cs {
		if cs[i].Answer == answer {
			cs[i].Count++
			return cs
		}
	}
	return append(cs, ChoiceCount{Answer: answer, Count: 1})
}

// addWords counts the words of text. Words gives none longer than
// MaxWordLength, so only the bound on their number is kept here.
func (qs *QuestionAnswersSummary) addWords(text string) {
	if qs.Words == nil {
		qs.Words = map[string]int64{}
	}
	for _, w := range Words(text) {
		qs.Words[w]++
	}
	if len(qs.Words) > MaxSummaryWords+qs.wordSlack {
		qs.OtherWords += keepFirst(qs.Words, MaxSummaryWords)
	}
}

// Recount counts answers into a new summary, one after another (a
// filtered analysis, a report), and gives the summary Add would have
// made of them. It bounds the words of text answers (keepWords) and the
// values of numbers when they are recountSlack more than a summary keeps,
// and at the end, rather than at every answer (and writes the numbers'
// exact sum once, at the end): the same words are kept with the same counts, since a
// summary keeps the words that come first by a fixed rank, so a word
// bounded off at one answer would be at every later one.
type Recount struct{ sum *SurveyAnswersSummary }

// recountSlack is how many words past MaxSummaryWords a Recount's
// question holds before they are bounded.
const recountSlack = 3 * MaxSummaryWords

// NewRecount starts a recount of answers to s.
func NewRecount(s *Survey) *Recount {
	sum := NewSummary(s)
	for i := range sum.Questions {
		sum.Questions[i].wordSlack = recountSlack
	}
	return &Recount{sum}
}

// Add counts one answer (SurveyAnswersSummary.Add).
func (r *Recount) Add(a SurveyAnswer) { r.sum.Add(a) }

// Summary is the summary of the answers counted: r counts no more.
func (r *Recount) Summary() *SurveyAnswersSummary {
	for i := range r.sum.Questions {
		qs := &r.sum.Questions[i]
		qs.OtherWords += keepFirst(qs.Words, MaxSummaryWords)
		if qs.Numbers != nil {
			qs.Numbers.flush()
		}
		qs.wordSlack = 0
	}
	return r.sum
}

// MergeRecounts is the summary of the answers parts counted, part after
// part: each part the answers after those of the part before it (a
// survey's answers counted on several cores, a run of segments each).
// It is the summary one Recount of all of them, in that order, gives:
// Merge is exact (see keepWords), and merging in order keeps the order
// in which the answers first gave a choice, a matrix's row, a ranking's
// item or a question the survey no longer has, and the first of equal
// least or greatest numbers. The parts count no more.
func MergeRecounts(parts []*Recount) *SurveyAnswersSummary {
	sum := parts[0].Summary()
	for _, p := range parts[1:] {
		sum.Merge(p.Summary())
	}
	return sum
}

// RestoreEmpty gives back the empty counts that a decoded summary's JSON
// omits (an empty count is omitted), so that merging an answer into a
// question that has none yet finds them: those of an empty summary of the
// question's kind.
func (sum *SurveyAnswersSummary) RestoreEmpty() {
	for i := range sum.Questions {
		qs := &sum.Questions[i]
		k, ok := KindOf(qs.Type)
		if !ok {
			continue
		}
		var empty QuestionAnswersSummary
		k.newSummary(Question{ID: qs.QuestionID, Text: qs.QuestionText, Type: qs.Type}, &empty)
		if qs.Stars == nil {
			qs.Stars = empty.Stars
		}
		if qs.Words == nil {
			qs.Words = empty.Words
		}
		if qs.Numbers == nil {
			qs.Numbers = empty.Numbers
		}
		if qs.Numbers != nil && qs.Numbers.Values == nil {
			qs.Numbers.Values = map[string]int64{}
		}
		if qs.Dates == nil {
			qs.Dates = empty.Dates
		}
		if qs.Dates != nil && qs.Dates.Months == nil {
			qs.Dates.Months = map[string]int64{}
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
	qs.OtherWords += keepFirst(qs.Words, MaxSummaryWords)
}

// keepFirst bounds m to its max keys that come first by (wordRank(key),
// key), as keepWords explains, and returns the sum of the counts it drops.
func keepFirst(m map[string]int64, max int) (dropped int64) {
	if len(m) <= max {
		return 0
	}
	all := make([]rankedWord, 0, len(m))
	for w := range m {
		all = append(all, rankedWord{wordRank(w), w})
	}
	// The keys past the first max, in no order.
	selectFirst(all, max)
	for _, r := range all[max:] {
		dropped += m[r.word]
		delete(m, r.word)
	}
	return dropped
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
	if w, ok := asciiWords(text); ok {
		return w
	}
	return unicodeWords(text)
}

// asciiWords is Words for a text all in ASCII (most answers), without
// decoding runes: there, a letter or digit is [A-Za-z0-9] and lower case
// is ASCII's. ok is false for a text that is not all ASCII.
func asciiWords(text string) (_ []string, ok bool) {
	upper := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf {
			return nil, false
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if upper {
		text = strings.ToLower(text)
	}
	var out []string
	for i := 0; i < len(text); {
		for i < len(text) && !asciiWordByte(text[i]) {
			i++
		}
		j := i
		for j < len(text) && asciiWordByte(text[j]) {
			j++
		}
		if w := strings.Trim(text[i:j], "'"); len(w) >= 2 && len(w) <= MaxWordLength && !stopWords[w] {
			out = append(out, w)
		}
		i = j
	}
	return out, true
}

// asciiWordByte reports whether c, lower case ASCII, is part of a word.
func asciiWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '\''
}

// unicodeWords is Words for any text.
func unicodeWords(text string) []string {
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

// add counts the number v (a decimal that big.Rat reads). slack is how
// many values past MaxSummaryWords Values may hold before they are
// bounded: a Recount's, which also keeps the sum as a number between
// answers (flush writes Sum); 0 bounds them at every answer.
func (ns *NumberSummary) add(v string, slack int) {
	if slack > 0 {
		ns.recountAdd(v, slack)
		return
	}
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return
	}
	ns.Count++
	if ns.Min == "" || r.Cmp(rat(ns.Min)) < 0 {
		ns.Min = v
	}
	if ns.Max == "" || r.Cmp(rat(ns.Max)) > 0 {
		ns.Max = v
	}
	ns.Sum = new(big.Rat).Add(rat(ns.Sum), r).RatString()
	if ns.Values == nil {
		ns.Values = map[string]int64{}
	}
	ns.Values[v]++
	ns.OtherValues += keepFirst(ns.Values, MaxSummaryWords)
}

// recountAdd is add for a Recount: the same counts, Min, Max and Values,
// with Sum left to flush and Values bounded past slack more values.
func (ns *NumberSummary) recountAdd(v string, slack int) {
	rc := ns.recount
	if rc == nil {
		rc = &numberRecount{}
		rc.sum.Set(rat(ns.Sum))
		if ns.Min != "" {
			rc.min.Set(rat(ns.Min))
		}
		if ns.Max != "" {
			rc.max.Set(rat(ns.Max))
		}
		ns.recount = rc
	}
	r, ok := rc.v.SetString(v)
	if !ok {
		return
	}
	ns.Count++
	if ns.Min == "" || r.Cmp(&rc.min) < 0 {
		ns.Min = v
		rc.min.Set(r)
	}
	if ns.Max == "" || r.Cmp(&rc.max) > 0 {
		ns.Max = v
		rc.max.Set(r)
	}
	rc.sum.Add(&rc.sum, r)
	if ns.Values == nil {
		ns.Values = map[string]int64{}
	}
	ns.Values[v]++
	if len(ns.Values) > MaxSummaryWords+slack {
		ns.OtherValues += keepFirst(ns.Values, MaxSummaryWords)
	}
}

// flush ends a Recount's counting: Sum written, Values bounded.
func (ns *NumberSummary) flush() {
	if ns.recount != nil {
		ns.Sum = ns.recount.sum.RatString()
		ns.recount = nil
	}
	ns.OtherValues += keepFirst(ns.Values, MaxSummaryWords)
}

func (ns *NumberSummary) merge(o *NumberSummary) {
	ns.Count += o.Count
	if o.Min != "" && (ns.Min == "" || rat(o.Min).Cmp(rat(ns.Min)) < 0) {
		ns.Min = o.Min
	}
	if o.Max != "" && (ns.Max == "" || rat(o.Max).Cmp(rat(ns.Max)) > 0) {
		ns.Max = o.Max
	}
	ns.Sum = new(big.Rat).Add(rat(ns.Sum), rat(o.Sum)).RatString()
	if ns.Values == nil {
		ns.Values = map[string]int64{}
	}
	for v, n := range o.Values {
		ns.Values[v] += n
	}
	ns.OtherValues += o.OtherValues + keepFirst(ns.Values, MaxSummaryWords)
}

// Mean is the exact mean as a fraction, nil when there is no number.
func (ns *NumberSummary) Mean() *big.Rat {
	if ns == nil || ns.Count == 0 {
		return nil
	}
	return new(big.Rat).Quo(rat(ns.Sum), new(big.Rat).SetInt64(ns.Count))
}

// rat reads a number a summary wrote; 0 for "" (or anything unreadable).
func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return new(big.Rat)
	}
	return r
}

// add counts the date d (YYYY-MM-DD; such dates order as text).
func (ds *DateSummary) add(d string) {
	if len(d) != len("2006-01-02") {
		return
	}
	if ds.Earliest == "" || d < ds.Earliest {
		ds.Earliest = d
	}
	if d > ds.Latest {
		ds.Latest = d
	}
	if ds.Months == nil {
		ds.Months = map[string]int64{}
	}
	ds.Months[d[:7]]++
}

func (ds *DateSummary) merge(o *DateSummary) {
	if o.Earliest != "" && (ds.Earliest == "" || o.Earliest < ds.Earliest) {
		ds.Earliest = o.Earliest
	}
	if o.Latest > ds.Latest {
		ds.Latest = o.Latest
	}
	if ds.Months == nil {
		ds.Months = map[string]int64{}
	}
	for m, n := range o.Months {
		ds.Months[m] += n
	}
}
