package survey

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestRecount: a Recount of answers whose texts use six times more
// distinct words than a summary keeps gives the summary that adding them
// one at a time gives (Add bounds the words at every answer), in any
// order.
func TestRecount(t *testing.T) {
	sv := validSurvey()
	r := rand.New(rand.NewPCG(7, 8))
	var answers []SurveyAnswer
	for range 4000 {
		var words []string
		for range 1 + r.IntN(8) {
			words = append(words, "w"+strconv.FormatInt(int64(r.IntN(6*MaxSummaryWords)), 36)+"x")
		}
		answers = append(answers, answer(strings.Join(words, " "), []string{"Red", "Blue"}[r.IntN(2)], strconv.Itoa(1+r.IntN(5))))
	}
	want := NewSummary(sv)
	for _, a := range answers {
		want.Add(a)
	}
	if len(want.Questions[0].Words) != MaxSummaryWords || want.Questions[0].OtherWords == 0 {
		t.Fatalf("the texts use %d words (%d others): the test needs more than a summary keeps", len(want.Questions[0].Words), want.Questions[0].OtherWords)
	}
	for range 3 {
		rc := NewRecount(sv)
		for _, a := range answers {
			rc.Add(a)
		}
		if got := rc.Summary(); !reflect.DeepEqual(got, want) {
			t.Fatalf("the recount differs: %d words, %d others; want %d, %d", len(got.Questions[0].Words), got.Questions[0].OtherWords, len(want.Questions[0].Words), want.Questions[0].OtherWords)
		}
		r.Shuffle(len(answers), func(i, j int) { answers[i], answers[j] = answers[j], answers[i] })
		want = NewSummary(sv)
		for _, a := range answers {
			want.Add(a)
		}
	}
}
