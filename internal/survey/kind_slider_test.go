package survey

import (
	"reflect"
	"testing"
)

func TestSliderAnswer(t *testing.T) {
	q := Question{Text: "How warm?", Type: Slider, Min: "-10", Max: "30", Step: "5"}
	tests := []struct {
		name string
		in   Form
		want string
		prob string
	}{
		{"the range, ticked", Form{"slider": {"15"}, "set": {"1"}}, "15", ""},
		{"the bottom", Form{"slider": {"-10"}, "set": {"1"}}, "-10", ""},
		{"the top, written +030", Form{"slider": {"+030"}, "set": {"1"}}, "30", ""},
		{"the number itself", Value("25"), "25", ""},
		{"the number wins over the range", Form{"": {"5"}, "slider": {"30"}, "set": {"1"}}, "5", ""},
		{"the range untouched, not ticked", Form{"slider": {"10"}}, "", "Please set the slider to your answer and tick the box under it."},
		{"nothing", Form{}, "", "Please set the slider to your answer and tick the box under it."},
		{"off a step", Form{"slider": {"12"}, "set": {"1"}}, "", "Please choose a value from -10 to 30 in steps of 5."},
		{"below", Value("-15"), "", "Please choose a whole number from -10 to 30."},
		{"above", Value("35"), "", "Please choose a whole number from -10 to 30."},
		{"a fraction", Value("7.5"), "", "Please choose a whole number from -10 to 30."},
		{"a word", Form{"slider": {"warm"}, "set": {"1"}}, "", "Please choose a whole number from -10 to 30."},
	}
	for _, tc := range tests {
		got, problem := kindsAAnswer(t, q, tc.in)
		if got != tc.want || problem != tc.prob {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.name, got, problem, tc.want, tc.prob)
		}
	}
}

func TestSliderDefinition(t *testing.T) {
	tests := []struct {
		name           string
		min, max, step string
		want           map[string]string // problems by field
	}{
		{"defaults", "", "", "", nil},
		{"canonical", "+05", "0100", " 5 ", nil},
		{"negative", "-100", "100", "10", nil},
		{"201 positions", "0", "200", "1", nil},
		{"202 positions", "0", "201", "1", map[string]string{"step": "A slider has at most 201 positions: from 0 to 201 in steps of 1 makes 202. Take a larger step."}},
		{"min not whole", "0.5", "", "", map[string]string{"min": "Give the smallest value as a whole number from -1000000 to 1000000."}},
		{"max too large", "", "2000000", "100000", map[string]string{"max": "Give the largest value as a whole number from -1000000 to 1000000."}},
		{"step zero", "", "", "0", map[string]string{"step": "Give the step as a whole number of at least 1."}},
		{"step negative", "", "", "-5", map[string]string{"step": "Give the step as a whole number of at least 1."}},
		{"reversed", "10", "10", "", map[string]string{"max": "The largest value must be above the smallest (10)."}},
		{"steps not whole", "0", "10", "4", map[string]string{"step": "From 0 to 10 is not a whole number of steps of 4: change the step or the bounds."}},
	}
	for _, tc := range tests {
		errs := kindsAFields(Question{ID: "q1", Text: "Q", Type: Slider, Min: tc.min, Max: tc.max, Step: tc.step})
		got := map[string]string{}
		for _, f := range []string{"min", "max", "step"} {
			if m := errs["questions.0."+f]; m != "" {
				got[f] = m
			}
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: Slider, Min: "+05", Max: "0100", Step: " 5 "}, {ID: "q2", Text: "Q", Type: Slider}, {ID: "q3", Text: "Q", Type: Number, Step: "5"}}}
	s.Normalize()
	if q := s.Questions[0]; q.Min != "5" || q.Max != "100" || q.Step != "5" {
		t.Errorf("normalized %+v", q)
	}
	if q := s.Questions[1]; q.Min != "0" || q.Max != "100" || q.Step != "1" {
		t.Errorf("defaults %+v", q)
	}
	if s.Questions[2].Step != "" {
		t.Error("a number question keeps a step")
	}
}

// TestSliderChart: known answers give a known mean, median and bars.
func TestSliderChart(t *testing.T) {
	tests := []struct {
		name           string
		min, max, step string
		answers        []string
		mean, median   string
		labels         []string
		counts         []int64
	}{
		{"odd count", "0", "10", "5", []string{"0", "5", "10"}, "5", "5", []string{"0", "5", "10"}, []int64{1, 1, 1}},
		{"even count: the middle two's mean", "0", "10", "1", []string{"1", "2", "3", "10"}, "4", "2.5",
			[]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, []int64{0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1}},
		{"a repeating mean", "-10", "30", "5", []string{"-5", "10", "30"}, "11.67", "10",
			[]string{"-10", "-5", "0", "5", "10", "15", "20", "25", "30"}, []int64{0, 1, 0, 0, 1, 0, 0, 0, 1}},
		// 101 positions in bars of 6 (at most 20 bars).
		{"binned", "0", "100", "1", []string{"0", "5", "6", "100"}, "27.75", "5.5", nil, nil},
	}
	for _, tc := range tests {
		s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: Slider, Min: tc.min, Max: tc.max, Step: tc.step}}}
		s.Normalize()
		sum := NewSummary(s)
		for _, v := range tc.answers {
			sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Slider, Answer: v}}})
		}
		c := slider{}.Chart(&sum.Questions[0])
		want := []Figure{{"Mean", tc.mean}, {"Median", tc.median}}
		if !reflect.DeepEqual(c.Figures, want) {
			t.Errorf("%s: figures %v, want %v", tc.name, c.Figures, want)
		}
		if tc.labels != nil && (!reflect.DeepEqual(c.Labels, tc.labels) || !reflect.DeepEqual(c.Counts, tc.counts)) {
			t.Errorf("%s: bars %v %v, want %v %v", tc.name, c.Labels, c.Counts, tc.labels, tc.counts)
		}
		if tc.labels == nil {
			if len(c.Labels) > 20 || c.Labels[0] != "0–5" || c.Counts[0] != 2 || c.Counts[1] != 1 || c.Labels[len(c.Labels)-1] != "96–100" {
				t.Errorf("%s: bars %v %v", tc.name, c.Labels, c.Counts)
			}
		}
	}
}
