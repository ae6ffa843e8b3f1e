package survey

import (
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func answer(text, choice, stars string) SurveyAnswer {
	a, err := NewAnswer(validSurvey(), forms(map[string]string{"q1": text, "q2": choice, "q3": stars}))
	if err != nil {
		panic(err)
	}
	return a
}

func TestSummaryAdd(t *testing.T) {
	sum := NewSummary(validSurvey())
	sum.Add(answer("The app is fast and the app is pretty", "Blue", "5"))
	sum.Add(answer("Fast!", "Blue", "4"))
	sum.Add(answer("slow at night", "Red", "4"))
	if sum.TotalAnswers != 3 {
		t.Fatalf("TotalAnswers = %d", sum.TotalAnswers)
	}
	q2 := sum.Questions[1]
	if !reflect.DeepEqual(q2.Choices, []ChoiceCount{{"Red", 1}, {"Blue", 2}}) {
		t.Errorf("choices = %v", q2.Choices)
	}
	q3 := sum.Questions[2]
	if count, total := q3.StarCount(); count != 3 || total != 13 || *q3.Stars != [5]int64{0, 0, 0, 2, 1} {
		t.Errorf("stars = %v count %d sum %d", *q3.Stars, count, total)
	}
	if avg := q3.Average(); avg != 13.0/3 {
		t.Errorf("average = %v", avg)
	}
	top := sum.Questions[0].TopWords(3)
	want := []WordCount{{"app", 2}, {"fast", 2}, {"night", 1}}
	if !reflect.DeepEqual(top, want) {
		t.Errorf("top words = %v, want %v", top, want)
	}
}

// Merging summaries gives the same counts as adding every answer to one:
// the average is exact, never a rounded mean merged again.
func TestSummaryMergeIsExact(t *testing.T) {
	answers := []SurveyAnswer{answer("a b c", "Red", "1"), answer("b c", "Blue", "2"), answer("c", "Red", "2"), answer("dd ee", "Blue", "5")}
	whole := NewSummary(validSurvey())
	for _, a := range answers {
		whole.Add(a)
	}
	merged := NewSummary(validSurvey())
	for _, a := range answers {
		part := NewSummary(validSurvey())
		part.Add(a)
		merged.Merge(part)
	}
	if !reflect.DeepEqual(whole, merged) {
		t.Errorf("merged %+v\nwhole  %+v", merged, whole)
	}
	if got := merged.Questions[2].Average(); got != 2.5 {
		t.Errorf("average = %v, want 2.5", got)
	}
}

// Two questions with the same text are kept apart: summaries merge by ID.
func TestSummaryByQuestionID(t *testing.T) {
	s := &Survey{Tenant: "adatum", Slug: "twins", Title: "Twins", State: Draft, Questions: []Question{
		{ID: "a", Text: "Rate it", Type: FiveStars},
		{ID: "b", Text: "Rate it", Type: FiveStars},
	}}
	a, err := NewAnswer(s, forms(map[string]string{"a": "1", "b": "5"}))
	if err != nil {
		t.Fatal(err)
	}
	sum := NewSummary(s)
	sum.Add(a)
	if sum.Questions[0].Average() != 1 || sum.Questions[1].Average() != 5 {
		t.Errorf("averages %v %v, want 1 and 5", sum.Questions[0].Average(), sum.Questions[1].Average())
	}
}

func TestWords(t *testing.T) {
	got := Words("The QUICK brown fox — isn't it quick? I'd say: 'très' rapide, 42x!")
	want := []string{"quick", "brown", "fox", "quick", "say", "très", "rapide", "42x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

// letters writes n in base 16 with the letters a–p: a word unique to n.
func letters(n int) string {
	b := []byte{}
	for {
		b = append(b, byte('a'+n%16))
		if n /= 16; n == 0 {
			return string(b)
		}
	}
}

// TestSummaryBounded: a summary stays small whatever respondents write.
// 2,000 answers of one unique 4,000-character word each count no word
// (longer than MaxWordLength); 3,000 answers of ten unique 40-character
// words each keep MaxSummaryWords of them, with the other uses counted in
// OtherWords.
func TestSummaryBounded(t *testing.T) {
	long := NewSummary(validSurvey())
	for i := range 2000 {
		w := letters(i)
		long.Add(answer(w+strings.Repeat("z", MaxTextAnswerLength-len(w)), "Red", "3"))
	}
	if b, _ := json.Marshal(long); len(b) > 2000 {
		t.Errorf("summary of 2,000 long words is %d bytes, want at most 2,000", len(b))
	}
	if long.Questions[0].Answered != 2000 || len(long.Questions[0].Words) != 0 {
		t.Errorf("answered %d, %d words counted", long.Questions[0].Answered, len(long.Questions[0].Words))
	}

	many := NewSummary(validSurvey())
	for i := range 3000 {
		var text []string
		for j := range 10 {
			w := letters(i*10 + j)
			text = append(text, w+strings.Repeat("z", MaxWordLength-len(w)))
		}
		many.Add(answer(strings.Join(text, " "), "Blue", "4"))
	}
	q := many.Questions[0]
	var kept int64
	for w, n := range q.Words {
		if n != 1 || len(w) != MaxWordLength {
			t.Fatalf("word %q counted %d", w, n)
		}
		kept += n
	}
	if len(q.Words) != MaxSummaryWords || kept+q.OtherWords != 30000 {
		t.Errorf("%d words kept, %d + %d other uses; want %d words and 30,000 uses", len(q.Words), kept, q.OtherWords, MaxSummaryWords)
	}
	if b, _ := json.Marshal(many); len(b) > 64000 {
		t.Errorf("summary of 30,000 distinct words is %d bytes, want at most 64,000", len(b))
	}
}

// TestSummaryMergeOrderIndependent: with more distinct words than a summary
// holds, adding the answers one by one, in any order, or merging summaries
// of any parts in any grouping gives the same summary, and its words have
// their exact counts.
func TestSummaryMergeOrderIndependent(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var answers []SurveyAnswer
	truth := map[string]int64{}
	for range 1200 {
		var text []string
		for range 1 + rnd.IntN(8) {
			text = append(text, "w"+letters(int(rnd.ExpFloat64()*800))) // a few common words, many rare ones
		}
		for _, w := range Words(strings.Join(text, " ")) {
			truth[w]++
		}
		answers = append(answers, answer(strings.Join(text, " "), []string{"Red", "Blue"}[rnd.IntN(2)], strconv.Itoa(1+rnd.IntN(5))))
	}
	if len(truth) <= MaxSummaryWords {
		t.Fatalf("only %d distinct words: the test needs more than %d", len(truth), MaxSummaryWords)
	}
	whole := NewSummary(validSurvey())
	for _, a := range answers {
		whole.Add(a)
	}
	q := whole.Questions[0]
	var kept, total int64
	for w, n := range q.Words {
		if n != truth[w] {
			t.Errorf("%q counted %d, used %d times", w, n, truth[w])
		}
		kept += n
	}
	for _, n := range truth {
		total += n
	}
	if len(q.Words) != MaxSummaryWords || kept+q.OtherWords != total {
		t.Fatalf("%d words, %d + %d other uses; want %d words, %d uses", len(q.Words), kept, q.OtherWords, MaxSummaryWords, total)
	}

	for round := range 5 {
		shuffled := append([]SurveyAnswer(nil), answers...)
		rnd.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		var parts []*SurveyAnswersSummary
		for len(shuffled) > 0 {
			n := min(1+rnd.IntN(300), len(shuffled))
			part := NewSummary(validSurvey())
			for _, a := range shuffled[:n] {
				part.Add(a)
			}
			parts = append(parts, part)
			shuffled = shuffled[n:]
		}
		// Merge random pairs until one is left: any grouping.
		for len(parts) > 1 {
			i := rnd.IntN(len(parts) - 1)
			parts[i].Merge(parts[i+1])
			parts = append(parts[:i+1], parts[i+2:]...)
		}
		got := NewSummary(validSurvey())
		got.Merge(parts[0])
		if !reflect.DeepEqual(whole, got) {
			t.Fatalf("round %d: merged summary differs from the whole: %d words, other %d; want %d, other %d",
				round, len(got.Questions[0].Words), got.Questions[0].OtherWords, len(q.Words), q.OtherWords)
		}
		// Batches of any size added with AddAll, as the worker does.
		batched := NewSummary(validSurvey())
		for rest := answers; len(rest) > 0; {
			n := min(rnd.IntN(40), len(rest))
			batched.AddAll(rest[:n])
			rest = rest[n:]
		}
		if !reflect.DeepEqual(whole, batched) {
			t.Fatalf("round %d: summary added in batches differs from the whole: %d words, other %d; want %d, other %d",
				round, len(batched.Questions[0].Words), batched.Questions[0].OtherWords, len(q.Words), q.OtherWords)
		}
	}
}

// wordRank is FNV-1a, as stored summaries were kept by it.
func TestWordRank(t *testing.T) {
	for _, w := range []string{"", "fast", "très", strings.Repeat("z", MaxWordLength)} {
		h := fnv.New64a()
		h.Write([]byte(w))
		if got := wordRank(w); got != h.Sum64() {
			t.Errorf("wordRank(%q) = %x, want %x", w, got, h.Sum64())
		}
	}
}
