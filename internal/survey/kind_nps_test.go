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
	// part is the stack's part of a key: its count and rounded per cent.
	type part struct {
		n int64
		p int64
	}
	tests := []struct {
		name          string
		counts        map[string]int
		score         string
		pro, pas, det part
	}{
		{"all promoters", map[string]int{"9": 2, "10": 3}, "+100", part{5, 100}, part{0, 0}, part{0, 0}},
		{"all detractors", map[string]int{"0": 1, "6": 1}, "-100", part{0, 0}, part{0, 0}, part{2, 100}},
		{"balanced", map[string]int{"10": 1, "8": 2, "3": 1}, "0", part{1, 25}, part{2, 50}, part{1, 25}},
		// 5 promoters, 4 passives, 3 detractors of 12: 41.67% − 25% = 16.67 → +17.
		{"rounded", map[string]int{"9": 5, "7": 4, "5": 3}, "+17", part{5, 42}, part{4, 33}, part{3, 25}},
		// 1 promoter, 7 detractors of 8: −75; the parts 12.5% and 87.5% round away from zero.
		{"negative", map[string]int{"10": 1, "0": 7}, "-75", part{1, 13}, part{0, 0}, part{7, 88}},
		// 1 promoter, 2 detractors of 200 answers (197 passives): −0.5 → −1, away from zero.
		{"half away from zero", map[string]int{"9": 1, "8": 197, "6": 2}, "-1", part{1, 1}, part{197, 99}, part{2, 1}},
		// 2 promoters, 1 detractor of 3: 66.67% − 33.33% = 33.33 → +33.
		{"thirds", map[string]int{"9": 1, "10": 1, "0": 1}, "+33", part{2, 67}, part{0, 0}, part{1, 33}},
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
			if c.Score == nil || *c.Score != (Figure{"NPS", tc.score}) {
				t.Errorf("score %+v, want NPS %s", c.Score, tc.score)
			}
			want := []Part{
				{Key: "promoters", Label: "Promoters (9–10)", Count: tc.pro.n, Percent: tc.pro.p},
				{Key: "passives", Label: "Passives (7–8)", Count: tc.pas.n, Percent: tc.pas.p},
				{Key: "detractors", Label: "Detractors (0–6)", Count: tc.det.n, Percent: tc.det.p},
			}
			if got, want := mustJSON(t, c.Stack), mustJSON(t, want); got != want {
				t.Errorf("stack %s, want %s", got, want)
			}
			if len(c.Labels) != 11 || c.Labels[0] != "0" || c.Labels[10] != "10" {
				t.Errorf("points %q", c.Labels)
			}
		})
	}
	if c := (netPromoterScore{}).Chart(&NewSummary(s).Questions[0]); c.Score != nil || c.Stack != nil || len(c.Labels) != 11 {
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
