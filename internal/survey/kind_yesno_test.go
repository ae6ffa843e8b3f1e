package survey

import (
	"reflect"
	"testing"
)

func TestYesNoAnswer(t *testing.T) {
	q := Question{Text: "Again?", Type: YesNo}
	tests := []struct {
		in, want, prob string
	}{
		{"Yes", "Yes", ""},
		{"No", "No", ""},
		{" yes ", "Yes", ""},
		{"NO", "No", ""},
		{"", "", "Please answer yes or no."},
		{"Maybe", "", "Please answer yes or no."},
		{"1", "", "Please answer yes or no."},
		{"Ja", "", "Please answer yes or no."},
	}
	for _, tc := range tests {
		got, problem := kindsAAnswer(t, q, Value(tc.in))
		if got != tc.want || problem != tc.prob {
			t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.prob)
		}
	}
}

func TestYesNoSummary(t *testing.T) {
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Again?", Type: YesNo}}}
	s.Normalize()
	sum := NewSummary(s)
	for _, v := range []string{"Yes", "No", "Yes", "Yes"} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: YesNo, Answer: v}}})
	}
	c := yesNo{}.Chart(&sum.Questions[0])
	if want := []string{"Yes", "No"}; !reflect.DeepEqual(c.Labels, want) || !reflect.DeepEqual(c.Counts, []int64{3, 1}) {
		t.Errorf("chart %v %v, want %v [3 1]", c.Labels, c.Counts, want)
	}
	// An empty summary still names both bars, at zero.
	empty := NewSummary(s)
	if c := (yesNo{}).Chart(&empty.Questions[0]); !reflect.DeepEqual(c.Counts, []int64{0, 0}) {
		t.Errorf("empty chart counts %v", c.Counts)
	}
	q := s.Questions[0]
	for _, tc := range []struct {
		stored string
		value  any
	}{{"Yes", true}, {"No", false}} {
		qa := QuestionAnswer{Answer: tc.stored}
		if v := (yesNo{}).Value(q, qa); v != tc.value {
			t.Errorf("%s: value %v, want %v", tc.stored, v, tc.value)
		}
		if rows := (yesNo{}).SQLRows(q, qa); rows[0] != (SQLRow{Text: tc.stored}) {
			t.Errorf("%s: SQL row %+v", tc.stored, rows[0])
		}
	}
}
