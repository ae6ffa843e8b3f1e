package survey

import "testing"

func TestNPSAnswer(t *testing.T) {
	q := Question{Text: "How likely?", Type: NetPromoterScore}
	tests := []struct {
		in, want, prob string
	}{
		{"0", "0", ""},
		{"10", "10", ""},
		{" 09", "9", ""},
		{"", "", "Please choose a number from 0 to 10."},
		{"11", "", "Please choose a whole number from 0 to 10."},
		{"-1", "", "Please choose a whole number from 0 to 10."},
		{"7.5", "", "Please choose a whole number from 0 to 10."},
	}
	for _, tc := range tests {
		got, problem := kindsAAnswer(t, q, Value(tc.in))
		if got != tc.want || problem != tc.prob {
			t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.prob)
		}
	}
}

func TestNPSDefinition(t *testing.T) {
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: NetPromoterScore, Scale: 7, Min: "1"},
		{ID: "q2", Text: "Q", Type: NetPromoterScore, LowLabel: " Never ", HighLabel: "Surely"}}}
	s.Normalize()
	if q := s.Questions[0]; q.LowLabel != DefaultNPSLowLabel || q.HighLabel != DefaultNPSHighLabel || q.Scale != 0 || q.Min != "" {
		t.Errorf("defaults: %+v", q)
	}
	if q := s.Questions[1]; q.LowLabel != "Never" || q.HighLabel != "Surely" {
		t.Errorf("own labels: %+v", q)
	}
}

func TestNPSChart(t *testing.T) {
	tests := []struct {
		name   string
		counts map[string]int
		want   []Figure
	}{
		{"all promoters", map[string]int{"9": 2, "10": 3},
			[]Figure{{"NPS", "+100"}, {"Promoters (9–10)", "5 (100%)"}, {"Passives (7–8)", "0 (0%)"}, {"Detractors (0–6)", "0 (0%)"}}},
		{"all detractors", map[string]int{"0": 1, "6": 1},
			[]Figure{{"NPS", "-100"}, {"Promoters (9–10)", "0 (0%)"}, {"Passives (7–8)", "0 (0%)"}, {"Detractors (0–6)", "2 (100%)"}}},
		{"balanced", map[string]int{"10": 1, "8": 2, "3": 1},
			[]Figure{{"NPS", "0"}, {"Promoters (9–10)", "1 (25%)"}, {"Passives (7–8)", "2 (50%)"}, {"Detractors (0–6)", "1 (25%)"}}},
		// 5 promoters, 4 passives, 3 detractors of 12: 41.67% − 25% = 16.67 → +17.
		{"rounded", map[string]int{"9": 5, "7": 4, "5": 3},
			[]Figure{{"NPS", "+17"}, {"Promoters (9–10)", "5 (42%)"}, {"Passives (7–8)", "4 (33%)"}, {"Detractors (0–6)", "3 (25%)"}}},
		// 1 promoter, 7 detractors of 8: −75.
		{"negative", map[string]int{"10": 1, "0": 7},
			[]Figure{{"NPS", "-75"}, {"Promoters (9–10)", "1 (13%)"}, {"Passives (7–8)", "0 (0%)"}, {"Detractors (0–6)", "7 (88%)"}}},
		// 1 promoter, 2 detractors of 200 answers (197 passives): −0.5 → −1, away from zero.
		{"half away from zero", map[string]int{"9": 1, "8": 197, "6": 2},
			[]Figure{{"NPS", "-1"}, {"Promoters (9–10)", "1 (1%)"}, {"Passives (7–8)", "197 (99%)"}, {"Detractors (0–6)", "2 (1%)"}}},
	}
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: NetPromoterScore}}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sum := NewSummary(s)
			for v, n := range tc.counts {
				for ; n > 0; n-- {
					sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: NetPromoterScore, Answer: v}}})
				}
			}
			c := netPromoterScore{}.Chart(&sum.Questions[0])
			if got, want := mustJSON(t, c.Figures), mustJSON(t, tc.want); got != want {
				t.Errorf("figures %s, want %s", got, want)
			}
			if len(c.Labels) != 11 || c.Labels[0] != "0" || c.Labels[10] != "10" {
				t.Errorf("bars %q", c.Labels)
			}
		})
	}
	if c := (netPromoterScore{}).Chart(&NewSummary(s).Questions[0]); c.Figures != nil || len(c.Labels) != 11 {
		t.Errorf("empty chart %+v", c)
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct{ part, total, want int64 }{
		{0, 0, 0}, {1, 3, 33}, {2, 3, 67}, {1, 8, 13}, {-1, 8, -13}, {1, 200, 1}, {-1, 200, -1}, {3, 3, 100},
	} {
		if got := percent(tc.part, tc.total); got != tc.want {
			t.Errorf("percent(%d, %d) = %d, want %d", tc.part, tc.total, got, tc.want)
		}
	}
}
