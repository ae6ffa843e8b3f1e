package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestAPIQuestionSettings: every setting of a question has its JSON name,
// in and out; min and max take a number or a string and come out as a
// number when they are one.
func TestAPIQuestionSettings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     survey.Question
		out      string // "" for in itself
	}{
		{"every setting", `{"text":"Rate","type":"T","help":"h","optional":true,"possibleAnswers":["a","b"],"rows":["r"],"other":true,"shuffle":true,"min":1.5,"max":"10","integer":true,"format":"email","scale":7,"lowLabel":"lo","highLabel":"hi"}`,
			survey.Question{Text: "Rate", Type: "T", Help: "h", Optional: true, PossibleAnswers: []string{"a", "b"}, Rows: []string{"r"}, Other: true, Shuffle: true,
				Min: "1.5", Max: "10", Integer: true, Format: "email", Scale: 7, LowLabel: "lo", HighLabel: "hi"},
			`{"text":"Rate","type":"T","help":"h","optional":true,"possibleAnswers":["a","b"],"rows":["r"],"other":true,"shuffle":true,"min":1.5,"max":10,"integer":true,"format":"email","scale":7,"lowLabel":"lo","highLabel":"hi"}`},
		{"dates", `{"text":"When","type":"T","min":"2026-01-01","max":"2026-12-31"}`, survey.Question{Text: "When", Type: "T", Min: "2026-01-01", Max: "2026-12-31"}, ""},
		{"negative and exact", `{"text":"N","type":"T","min":-3,"max":12345678901234567890.5}`, survey.Question{Text: "N", Type: "T", Min: "-3", Max: "12345678901234567890.5"}, ""},
		{"null bounds", `{"text":"N","type":"T","min":null}`, survey.Question{Text: "N", Type: "T"}, `{"text":"N","type":"T"}`},
		{"nothing set", `{"text":"Say","type":"T"}`, survey.Question{Text: "Say", Type: "T"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var q jsonQuestion
			dec := json.NewDecoder(strings.NewReader(c.in))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&q); err != nil {
				t.Fatal(err)
			}
			if got := q.question(); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("in: got %+v\nwant %+v", got, c.want)
			}
			out, err := json.Marshal(jsonQuestionOf(c.want))
			if err != nil {
				t.Fatal(err)
			}
			want := c.out
			if want == "" {
				want = c.in
			}
			if string(out) != want {
				t.Errorf("out: %s\nwant %s", out, want)
			}
		})
	}
	for _, bad := range []string{`{"text":"N","type":"T","min":{}}`, `{"text":"N","type":"T","max":[1]}`, `{"text":"N","type":"T","min":true}`} {
		var q jsonQuestion
		if err := json.Unmarshal([]byte(bad), &q); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
