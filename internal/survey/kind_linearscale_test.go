package survey

import (
	"strconv"
	"testing"
)

func TestLinearScaleAnswer(t *testing.T) {
	seven := Question{Text: "S", Type: LinearScale, Scale: 7}
	unset := Question{Text: "S", Type: LinearScale}
	tests := []struct {
		name       string
		q          Question
		in         string
		want, prob string
	}{
		{"the bottom", seven, "1", "1", ""},
		{"the top", seven, "7", "7", ""},
		{"a leading zero", seven, "07", "7", ""},
		{"nothing", seven, "", "", "Please choose a number on the scale."},
		{"zero", seven, "0", "", "Please choose a whole number from 1 to 7."},
		{"past the top", seven, "8", "", "Please choose a whole number from 1 to 7."},
		{"a fraction", seven, "2.5", "", "Please choose a whole number from 1 to 7."},
		{"default scale of 5", unset, "6", "", "Please choose a whole number from 1 to 5."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, problem := kindsAAnswer(t, tc.q, Value(tc.in))
			if got != tc.want || problem != tc.prob {
				t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.prob)
			}
		})
	}
}

func TestLinearScaleDefinition(t *testing.T) {
	long := "A label that is far too long to sit at the end of a scale on a phone"
	tests := []struct {
		name  string
		q     Question
		field string
		scale int
	}{
		{"unset is 5", Question{}, "", 5},
		{"two", Question{Scale: 2}, "", 2},
		{"ten", Question{Scale: 10}, "", 10},
		{"one", Question{Scale: 1}, ".scale", 1},
		{"eleven", Question{Scale: 11}, ".scale", 11},
		{"negative", Question{Scale: -3}, ".scale", -3},
		{"long label", Question{LowLabel: long}, ".labels", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Text, q.Type, q.ID = "Q", LinearScale, "q1"
			fields := kindsAFields(q)
			if tc.field == "" && fields != nil || tc.field != "" && fields["questions.0"+tc.field] == "" {
				t.Errorf("fields %v, want a problem of %q", fields, tc.field)
			}
			s := &Survey{Questions: []Question{q}}
			s.Normalize()
			if s.Questions[0].Scale != tc.scale {
				t.Errorf("scale %d, want %d", s.Questions[0].Scale, tc.scale)
			}
		})
	}
}

func TestLinearScaleChart(t *testing.T) {
	s := &Survey{Questions: []Question{{ID: "q1", Text: "S", Type: LinearScale, Scale: 4}}}
	sum := NewSummary(s)
	for _, v := range []string{"1", "4", "4", "2"} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: LinearScale, Answer: v}}})
	}
	c := linearScale{}.Chart(&sum.Questions[0])
	if got, want := mustJSON(t, c), mustJSON(t, Chart{Labels: []string{"1", "2", "3", "4"}, Counts: []int64{1, 1, 0, 2}, Average: 2.75, Averaged: true,
		Figures: []Figure{{"Mean", "2.75"}, {"Median", "3"}}}); got != want {
		t.Errorf("chart %s, want %s", got, want)
	}
	// A summary made from answers alone (no scale known) still orders
	// its points by number.
	sum = &SurveyAnswersSummary{}
	for _, v := range []string{"9", "2", "10"} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: LinearScale, Answer: v}}})
	}
	c = linearScale{}.Chart(&sum.Questions[0])
	if got, want := mustJSON(t, c.Labels), `["1","2","3","4","5","9","10"]`; got != want {
		t.Errorf("labels %s, want %s", got, want)
	}
	if c := (linearScale{}).Chart(&NewSummary(s).Questions[0]); c.Averaged || len(c.Labels) != 4 {
		t.Errorf("empty chart %+v", c)
	}
}

// TestMeanMedianFromCounts: a scale's and a rating's mean and median come
// from the counts per point alone, exactly.
func TestMeanMedianFromCounts(t *testing.T) {
	tests := []struct {
		name         string
		counts       []int64 // of the points 1 to len(counts)
		mean, median string
	}{
		{"one answer", []int64{0, 0, 1, 0, 0}, "3", "3"},
		{"odd count: the middle one", []int64{2, 0, 1, 0, 2}, "3", "3"},
		{"even count: the mean of the middle two", []int64{1, 1, 0, 2}, "2.75", "3"},
		{"even count, a half", []int64{1, 1, 0, 0, 0}, "1.5", "1.5"},
		{"skewed", []int64{0, 0, 0, 1, 9}, "4.9", "5"},
		// 1, 1 and 2: 4/3 = 1.333… → 1.33.
		{"rounded to two decimals", []int64{2, 1}, "1.33", "1"},
		// 1, 2 and 2: 5/3 = 1.666… → 1.67.
		{"rounded up", []int64{1, 2}, "1.67", "2"},
		{"ten points", []int64{0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, "9.5", "9.5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := []Figure{{"Mean", tc.mean}, {"Median", tc.median}}
			s := &Survey{Questions: []Question{{ID: "q1", Text: "S", Type: LinearScale, Scale: max(len(tc.counts), MinScale)}}}
			sum := NewSummary(s)
			for i, n := range tc.counts {
				for ; n > 0; n-- {
					sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: LinearScale, Answer: strconv.Itoa(i + 1)}}})
				}
			}
			if got := (linearScale{}).Chart(&sum.Questions[0]).Figures; mustJSON(t, got) != mustJSON(t, want) {
				t.Errorf("scale: %v, want %v", got, want)
			}
			if len(tc.counts) != 5 {
				return
			}
			stars := [5]int64(tc.counts)
			got := (fiveStars{}).Chart(&QuestionAnswersSummary{Stars: &stars}).Figures
			if mustJSON(t, got) != mustJSON(t, want[1:]) {
				t.Errorf("stars: %v, want %v", got, want[1:])
			}
		})
	}
	if c := (fiveStars{}).Chart(&QuestionAnswersSummary{Stars: &[5]int64{}}); c.Figures != nil || c.Averaged {
		t.Errorf("no ratings: %+v", c)
	}
}
