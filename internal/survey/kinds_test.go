package survey

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"testing"
)

// exampleSurvey is a published survey with kind k's example question,
// normalized as the store does.
func exampleSurvey(k Kind) (*Survey, func(*rand.Rand) string) {
	q, value := k.example()
	q.ID = "q1"
	s := &Survey{Tenant: "adatum", Slug: "kinds", Title: "Kinds", State: Published, Questions: []Question{q}}
	s.Normalize()
	return s, value
}

// TestKindConformance runs every registered kind through definition →
// validate → answers from form values → summaries merged in random orders
// and batches, equal to one sequential summary → export cells.
func TestKindConformance(t *testing.T) {
	if len(Kinds()) == 0 {
		t.Fatal("no kind is registered")
	}
	key := regexp.MustCompile(`^[a-z]+$`)
	for _, k := range Kinds() {
		t.Run(string(k.Type()), func(t *testing.T) {
			if got, ok := KindOf(k.Type()); !ok || got != k || !k.Type().Valid() {
				t.Fatalf("KindOf(%q) = %v, %v", k.Type(), got, ok)
			}
			if !key.MatchString(k.Key()) || k.Label() == "" || k.Label() == string(k.Type()) {
				t.Errorf("key %q, label %q: want a lower-case key and a name for people", k.Key(), k.Label())
			}

			// Definition → validate.
			s, value := exampleSurvey(k)
			if err := s.Validate(); err != nil {
				t.Fatalf("the example definition is refused: %v", err)
			}
			again := *s
			again.Questions = append([]Question(nil), s.Questions...)
			again.Normalize()
			if mustJSON(t, again) != mustJSON(t, s) {
				t.Errorf("Normalize is not idempotent: %s, then %s", mustJSON(t, s), mustJSON(t, again))
			}

			// A missing answer is refused beside its question.
			if _, err := NewAnswer(s, map[string]string{}); ErrorCode(err) != EINVALID || err.(*Error).Fields["q1"] == "" {
				t.Errorf("a missing answer: got %v, want EINVALID for q1", err)
			}

			// Answers from form values.
			r := rand.New(rand.NewPCG(1, uint64(len(k.Key()))))
			answers := make([]SurveyAnswer, 300)
			for i := range answers {
				a, err := NewAnswer(s, map[string]string{"q1": value(r)})
				if err != nil {
					t.Fatalf("answer %d refused: %v", i, err)
				}
				answers[i] = a
			}

			// One summary, answer after answer.
			seq := NewSummary(s)
			for _, a := range answers {
				seq.Add(a)
			}
			want := mustJSON(t, seq)
			if seq.TotalAnswers != int64(len(answers)) || seq.Questions[0].Answered != int64(len(answers)) {
				t.Fatalf("summary counts %d answers (%d to q1), want %d", seq.TotalAnswers, seq.Questions[0].Answered, len(answers))
			}

			// The same answers in random orders and batches, merged in
			// random orders, through a stored summary's JSON.
			for round := 0; round < 20; round++ {
				order := r.Perm(len(answers))
				var batches []*SurveyAnswersSummary
				for i := 0; i < len(order); {
					n := 1 + r.IntN(60)
					b := NewSummary(s)
					for ; n > 0 && i < len(order); n, i = n-1, i+1 {
						b.Add(answers[order[i]])
					}
					batches = append(batches, roundTrip(t, b))
				}
				r.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
				for len(batches) > 1 {
					i := r.IntN(len(batches) - 1)
					batches[i].Merge(batches[i+1])
					batches[i] = roundTrip(t, batches[i])
					batches = append(batches[:i+1], batches[i+2:]...)
				}
				if got := mustJSON(t, batches[0]); got != want {
					t.Fatalf("round %d: merged summary differs from the sequential one:\n got %s\nwant %s", round, got, want)
				}
			}

			// A chart of the summary, and of an empty one.
			for _, qs := range []*QuestionAnswersSummary{&seq.Questions[0], &NewSummary(s).Questions[0]} {
				if c := k.Chart(qs); len(c.Labels) != len(c.Counts) {
					t.Errorf("chart has %d labels and %d counts", len(c.Labels), len(c.Counts))
				}
			}

			// Export cells: as many for every answer as for none.
			n := len(k.ExportCells(QuestionAnswer{}))
			if n == 0 {
				t.Fatal("a kind exports at least one cell")
			}
			for _, a := range answers {
				if cells := k.ExportCells(a.Answers[0]); len(cells) != n {
					t.Fatalf("answer %q exports %d cells, a missing answer %d", a.Answers[0].Answer, len(cells), n)
				}
				k.CopyNumber(a.Answers[0])
			}
		})
	}
}

// roundTrip encodes a summary and decodes it as the summary store does.
func roundTrip(t *testing.T, sum *SurveyAnswersSummary) *SurveyAnswersSummary {
	t.Helper()
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var out SurveyAnswersSummary
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	out.RestoreEmpty()
	return &out
}

// FuzzKindAnswer gives every kind's answer parsing any value: it never
// panics, refuses with EINVALID beside the question, and what it accepts
// is accepted again as it is stored, and counts.
func FuzzKindAnswer(f *testing.F) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, k := range Kinds() {
		_, value := exampleSurvey(k)
		for i := 0; i < 5; i++ {
			f.Add(value(r))
		}
	}
	for _, v := range []string{"", " ", "0", "6", "-1", "1e3", "+3", "\x00", "\u202e5", "\xff", "Coffee\u200b"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, k := range Kinds() {
			s, _ := exampleSurvey(k)
			a, err := NewAnswer(s, map[string]string{"q1": v})
			if err != nil {
				if e, ok := err.(*Error); !ok || e.Code != EINVALID || e.Fields["q1"] == "" {
					t.Fatalf("%s: %q refused with %v, want EINVALID beside q1", k.Type(), v, err)
				}
				continue
			}
			stored := a.Answers[0].Answer
			b, err := NewAnswer(s, map[string]string{"q1": stored})
			if err != nil || b.Answers[0].Answer != stored {
				t.Fatalf("%s: %q is stored as %q, which is then %q, %v", k.Type(), v, stored, b.Answers[0].Answer, err)
			}
			sum := NewSummary(s)
			sum.Add(a)
			if sum.Questions[0].Answered != 1 {
				t.Fatalf("%s: %q is not counted", k.Type(), v)
			}
			k.ExportCells(a.Answers[0])
			k.CopyNumber(a.Answers[0])
		}
	})
}
