package survey

import (
	"math/rand/v2"
	"strconv"
)

// FiveStars is a rating from 1 to 5 stars, stored as "1" to "5"; its
// summary counts each rating, from which the mean is exact.
type fiveStars struct{}

func (fiveStars) Type() QuestionType { return FiveStars }
func (fiveStars) Key() string        { return "fivestars" }
func (fiveStars) Label() string      { return "Five stars" }

func (fiveStars) normalize(q *Question)                  { q.PossibleAnswers = nil }
func (fiveStars) validate(Question, string, fieldErrors) {}

func (fiveStars) answer(_ Question, v string) (string, string) {
	n, err := strconv.Atoi(v)
	switch {
	case v == "":
		return v, "Please give a rating from 1 to 5 stars."
	case err != nil || n < 1 || n > 5:
		return v, "A rating is from 1 to 5 stars."
	}
	return strconv.Itoa(n), ""
}

func (fiveStars) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Stars = &[5]int64{}
}

func (fiveStars) add(qs *QuestionAnswersSummary, answer string) {
	if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= 5 {
		qs.Stars[n-1]++
	}
}

func (fiveStars) merge(qs, o *QuestionAnswersSummary) {
	if o.Stars == nil {
		return
	}
	if qs.Stars == nil {
		qs.Stars = &[5]int64{}
	}
	for i, n := range o.Stars {
		qs.Stars[i] += n
	}
}

func (fiveStars) restore(qs *QuestionAnswersSummary) {
	if qs.Stars == nil {
		qs.Stars = &[5]int64{}
	}
}

func (fiveStars) Chart(qs *QuestionAnswersSummary) Chart {
	var c Chart
	if qs.Stars != nil {
		c.Labels, c.Counts = []string{"1 star", "2 stars", "3 stars", "4 stars", "5 stars"}, qs.Stars[:]
	}
	if n, _ := qs.StarCount(); n > 0 {
		c.Average, c.Averaged = qs.Average(), true
	}
	return c
}

func (fiveStars) ExportCells(qa QuestionAnswer) []string { return []string{qa.Answer} }

// CopyNumber is the 1–5 rating; NULL for anything else.
func (fiveStars) CopyNumber(qa QuestionAnswer) (int64, bool) {
	n, err := strconv.Atoi(qa.Answer)
	if err != nil || n < 1 || n > 5 {
		return 0, false
	}
	return int64(n), true
}

func (fiveStars) example() (Question, func(*rand.Rand) string) {
	return Question{Text: "How satisfied are you with our service?", Type: FiveStars}, func(r *rand.Rand) string {
		return []string{"1", "2", "3", "4", "5", " 05"}[r.IntN(6)]
	}
}
