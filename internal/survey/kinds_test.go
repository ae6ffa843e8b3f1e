package survey_test

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// example is kind k's example question and a source of what a respondent
// may send to it, from package surveytest. A kind without one fails the
// test, so that no kind escapes the conformance and fuzz tests.
func example(t testing.TB, k survey.Kind) (survey.Question, func(*rand.Rand) survey.Form) {
	t.Helper()
	q, form, ok := surveytest.Lookup(k.Type())
	if !ok {
		t.Fatalf("kind %s has no example: give it one in internal/survey/surveytest/examples.go, for the conformance and fuzz tests of every kind", k.Type())
	}
	return q, form
}

// exampleSurvey is a published survey with kind k's example question,
// normalized as the store does.
func exampleSurvey(t testing.TB, k survey.Kind) (*survey.Survey, func(*rand.Rand) survey.Form) {
	t.Helper()
	q, form := example(t, k)
	q.ID = "q1"
	s := &survey.Survey{Tenant: "adatum", Slug: "kinds", Title: "Kinds", State: survey.Published, Questions: []survey.Question{q}}
	s.Normalize()
	return s, form
}

// TestKindConformance runs every registered kind through definition →
// validate → answers from form values → summaries merged in random orders
// and batches, equal to one sequential summary → chart → export cells,
// JSON values and SQL rows.
func TestKindConformance(t *testing.T) {
	if len(survey.Kinds()) == 0 {
		t.Fatal("no kind is registered")
	}
	key := regexp.MustCompile(`^[a-z]+$`)
	camel := regexp.MustCompile(`[a-z][A-Z]`)
	labels := map[string]bool{}
	for _, k := range survey.Kinds() {
		t.Run(string(k.Type()), func(t *testing.T) {
			if got, ok := survey.KindOf(k.Type()); !ok || got != k || !k.Type().Valid() {
				t.Fatalf("KindOf(%q) = %v, %v", k.Type(), got, ok)
			}
			// A name for people: not a stored name of several words run
			// together ("MultipleChoice"), and each kind's own.
			if !key.MatchString(k.Key()) || k.Label() == "" || camel.MatchString(k.Label()) || labels[k.Label()] {
				t.Errorf("key %q, label %q: want a lower-case key and a name of its own for people", k.Key(), k.Label())
			}
			labels[k.Label()] = true

			// Definition → validate.
			s, form := exampleSurvey(t, k)
			if err := s.Validate(); err != nil {
				t.Fatalf("the example definition is refused: %v", err)
			}
			again := *s
			again.Questions = append([]survey.Question(nil), s.Questions...)
			again.Normalize()
			if mustJSON(t, again) != mustJSON(t, s) {
				t.Errorf("Normalize is not idempotent: %s, then %s", mustJSON(t, s), mustJSON(t, again))
			}
			q := s.Questions[0]

			// A missing answer is refused beside a required question, and
			// left out of an optional one's answer.
			if _, err := survey.NewAnswer(s, map[string]survey.Form{}); survey.ErrorCode(err) != survey.EINVALID || err.(*survey.Error).Fields["q1"] == "" {
				t.Errorf("a missing answer: got %v, want EINVALID for q1", err)
			}
			optional := *s
			optional.Questions = []survey.Question{q}
			optional.Questions[0].Optional = true
			if a, err := survey.NewAnswer(&optional, map[string]survey.Form{"q1": {"": {" "}}}); err != nil || len(a.Answers) != 0 {
				t.Errorf("an optional question left blank: got %+v, %v; want no answer", a.Answers, err)
			}

			// Answers from form values; each stored answer's form gives it
			// back.
			r := rand.New(rand.NewPCG(1, uint64(len(k.Key()))))
			answers := make([]survey.SurveyAnswer, 300)
			for i := range answers {
				f := form(r)
				a, err := survey.NewAnswer(s, map[string]survey.Form{"q1": f})
				if err != nil {
					t.Fatalf("answer %d (%q) refused: %v", i, f, err)
				}
				answers[i] = a
				stored := a.Answers[0].Answer
				sent := survey.FormOf(s, &a)
				b, err := survey.NewAnswer(s, sent)
				if err != nil || b.Answers[0].Answer != stored {
					t.Fatalf("stored %q: its form %q gives %+v, %v", stored, sent["q1"], b.Answers, err)
				}
			}

			// One summary, answer after answer.
			seq := survey.NewSummary(s)
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
				var batches []*survey.SurveyAnswersSummary
				for i := 0; i < len(order); {
					n := 1 + r.IntN(60)
					b := survey.NewSummary(s)
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
			for _, qs := range []*survey.QuestionAnswersSummary{&seq.Questions[0], &survey.NewSummary(s).Questions[0]} {
				checkChart(t, k.Chart(qs))
			}

			// Exports: as many cells as columns for every answer and for
			// none; a JSON value; SQL rows with readable numbers and dates.
			cols := k.Columns(q)
			if len(cols) == 0 {
				t.Fatal("a kind exports at least one column")
			}
			if cells := k.Cells(q, survey.QuestionAnswer{}); len(cells) != len(cols) {
				t.Fatalf("a missing answer exports %d cells for %d columns", len(cells), len(cols))
			}
			types := k.CellTypes(q)
			if len(types) != len(cols) {
				t.Fatalf("%d cell types for %d columns", len(types), len(cols))
			}
			if v := k.Value(q, survey.QuestionAnswer{}); v != nil {
				t.Errorf("a missing answer's value is %v, want nil", v)
			}
			vars := k.StatVars(q)
			checkStatVars(t, vars)
			if cells := k.StatCells(q, survey.QuestionAnswer{}); len(cells) != len(vars) || strings.Join(cells, "") != "" {
				t.Fatalf("a missing answer's statistics cells are %q for %d variables, want all missing", cells, len(vars))
			}
			for _, a := range answers {
				qa := a.Answers[0]
				cells := k.Cells(q, qa)
				if len(cells) != len(cols) {
					t.Fatalf("answer %q exports %d cells for %d columns", qa.Answer, len(cells), len(cols))
				}
				// A typed column's cells are of its type (or empty).
				for i, c := range cells {
					if _, text := survey.TypedCell(types[i], c).(string); text && types[i] != survey.CellText {
						t.Fatalf("answer %q: cell %d %q is not of its column's type %d", qa.Answer, i, c, types[i])
					}
				}
				checkStatCells(t, qa, vars, k.StatCells(q, qa))
				if v := k.Value(q, qa); v == nil {
					t.Fatalf("answer %q has no JSON value", qa.Answer)
				} else if _, err := json.Marshal(v); err != nil {
					t.Fatalf("answer %q: %v", qa.Answer, err)
				}
				rows := k.SQLRows(q, qa)
				if len(rows) == 0 {
					t.Fatalf("answer %q has no SQL row", qa.Answer)
				}
				items := map[string]bool{}
				for _, row := range rows {
					checkSQLRow(t, qa, row)
					// The copy's key is (answer, question, item).
					if items[row.Item] {
						t.Fatalf("answer %q has two SQL rows of item %q", qa.Answer, row.Item)
					}
					items[row.Item] = true
				}
			}
		})
	}
}

// checkStatVars checks a question's variables for statistics packages:
// at least one, suffixes unique and of lower-case letters, digits and
// "_" ("" for the first only), codes unique and labelled.
func checkStatVars(t *testing.T, vars []survey.StatVar) {
	t.Helper()
	if len(vars) == 0 {
		t.Fatal("a kind has at least one variable for statistics packages")
	}
	suffixes := map[string]bool{}
	for i, v := range vars {
		if suffixes[v.Suffix] || (v.Suffix == "" && i > 0) || (v.Suffix != "" && v.Suffix[0] != '_') || strings.Trim(v.Suffix, "_abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			t.Fatalf("variable suffix %q: unique, \"\" only for the first, else \"_\" and [a-z0-9_]", v.Suffix)
		}
		suffixes[v.Suffix] = true
		if len(v.Values) > 0 && v.Type != survey.CellNumber {
			t.Fatalf("variable %q: only numbers have value labels", v.Suffix)
		}
		codes := map[int]bool{}
		for _, l := range v.Values {
			if codes[l.Code] || l.Label == "" {
				t.Fatalf("variable %q: code %d twice or unlabelled", v.Suffix, l.Code)
			}
			codes[l.Code] = true
		}
	}
}

// checkStatCells checks an answer's cells for statistics packages: one
// per variable, of its type, a coded variable's among its codes, and
// something given.
func checkStatCells(t *testing.T, qa survey.QuestionAnswer, vars []survey.StatVar, cells []string) {
	t.Helper()
	if len(cells) != len(vars) {
		t.Fatalf("answer %q: %d statistics cells for %d variables", qa.Answer, len(cells), len(vars))
	}
	if strings.Join(cells, "") == "" {
		t.Fatalf("answer %q: every statistics cell is missing", qa.Answer)
	}
	for i, c := range cells {
		v := vars[i]
		if _, text := survey.TypedCell(v.Type, c).(string); text && v.Type != survey.CellText {
			t.Fatalf("answer %q: statistics cell %d %q is not of its variable's type %d", qa.Answer, i, c, v.Type)
		}
		if v.Coded() && c != "" && !slices.ContainsFunc(v.Values, func(l survey.ValueLabel) bool { return strconv.Itoa(l.Code) == c }) {
			t.Fatalf("answer %q: statistics cell %d %q is none of its variable's codes", qa.Answer, i, c)
		}
	}
}

// checkChart checks a chart's shape: a count per label, rows alike.
func checkChart(t *testing.T, c survey.Chart) {
	t.Helper()
	if len(c.Labels) != len(c.Counts) {
		t.Errorf("chart %q has %d labels and %d counts", c.Title, len(c.Labels), len(c.Counts))
	}
	for _, row := range c.Rows {
		checkChart(t, row)
	}
}

// checkSQLRow checks that a row's number and date are what PostgreSQL
// reads as numeric and date.
func checkSQLRow(t *testing.T, qa survey.QuestionAnswer, row survey.SQLRow) {
	t.Helper()
	if row.Number != "" {
		if _, ok := new(big.Rat).SetString(row.Number); !ok || strings.ContainsAny(row.Number, "/eE") {
			t.Fatalf("answer %q: SQL number %q is not a decimal", qa.Answer, row.Number)
		}
	}
	if row.Date != "" {
		if _, err := time.Parse(time.DateOnly, row.Date); err != nil {
			t.Fatalf("answer %q: SQL date %q: %v", qa.Answer, row.Date, err)
		}
	}
	if !survey.IsCleanText(row.Text) || !survey.IsCleanLine(row.Item) || strings.Contains(row.Text, survey.OtherMark) {
		t.Fatalf("answer %q: SQL row %+v holds a control character", qa.Answer, row)
	}
}

// mustJSON is v in JSON (as stored_test.go's, for this external test).
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// roundTrip encodes a summary and decodes it as the summary store does.
func roundTrip(t *testing.T, sum *survey.SurveyAnswersSummary) *survey.SurveyAnswersSummary {
	t.Helper()
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var out survey.SurveyAnswersSummary
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	out.RestoreEmpty()
	return &out
}

// FuzzKindAnswer gives every kind's answer parsing any values: it never
// panics, refuses with EINVALID beside the question, and what it accepts
// is accepted again from its form as it is stored, and counts.
func FuzzKindAnswer(f *testing.F) {
	r := rand.New(rand.NewPCG(2, 3))
	for _, k := range survey.Kinds() {
		_, form := exampleSurvey(f, k)
		for i := 0; i < 5; i++ {
			fv := form(r)
			f.Add(fv.Get(""), fv.Get("other"), fv.Get("0"), fv.Get("1"))
		}
	}
	for _, v := range []string{"", " ", "0", "6", "-1", "1e3", "+3", "\x00", "\u202e5", "\xff", "Coffee\u200b", "2026-02-30", "1.5", "NaN", "Inf"} {
		f.Add(v, v, v, "")
	}
	f.Fuzz(func(t *testing.T, v, other, v0, v1 string) {
		for _, k := range survey.Kinds() {
			s, _ := exampleSurvey(t, k)
			q := s.Questions[0]
			in := survey.Form{"": {v, v1}, "other": {other}, "0": {v0}, "1": {v1}, "2": {v}}
			a, err := survey.NewAnswer(s, map[string]survey.Form{"q1": in})
			if err != nil {
				if e, ok := err.(*survey.Error); !ok || e.Code != survey.EINVALID || e.Fields["q1"] == "" {
					t.Fatalf("%s: %q refused with %v, want EINVALID beside q1", k.Type(), in, err)
				}
				continue
			}
			qa := a.Answers[0]
			b, err := survey.NewAnswer(s, survey.FormOf(s, &a))
			if err != nil || b.Answers[0].Answer != qa.Answer {
				t.Fatalf("%s: %q is stored as %q, which is then %+v, %v", k.Type(), in, qa.Answer, b.Answers, err)
			}
			sum := survey.NewSummary(s)
			sum.Add(a)
			if sum.Questions[0].Answered != 1 {
				t.Fatalf("%s: %q is not counted", k.Type(), in)
			}
			if len(k.Cells(q, qa)) != len(k.Columns(q)) || k.Value(q, qa) == nil {
				t.Fatalf("%s: %q exports badly", k.Type(), in)
			}
			for _, row := range k.SQLRows(q, qa) {
				checkSQLRow(t, qa, row)
			}
		}
	})
}

// FuzzDefinition gives every kind any settings: Normalize and Validate
// never panic, a refusal is EINVALID with each problem beside a field of
// the question, and a definition accepted is normalized for good and takes
// its kind's example answers or refuses them beside the question.
func FuzzDefinition(f *testing.F) {
	f.Add("Coffee\nTea", "Speed\nPrice", "1", "10", 5, "Low", "High", "email", true, true)
	f.Add("", "", "2026-01-01", "2025-01-01", 11, "", "", "phone", false, false)
	f.Add("a\na", "x", "-3.5", "abc", -1, "\x00", "\u202e", "url", true, false)
	f.Fuzz(func(t *testing.T, choices, rows, min, max string, scale int, low, high, format string, other, integer bool) {
		for _, k := range survey.Kinds() {
			q, form := example(t, k)
			q.ID = "q1"
			q.PossibleAnswers, q.Rows = strings.Split(choices, "\n"), strings.Split(rows, "\n")
			q.Min, q.Max, q.Scale, q.LowLabel, q.HighLabel, q.Format = min, max, scale, low, high, format
			q.Other, q.Integer, q.Shuffle = other, integer, other
			s := &survey.Survey{Tenant: "adatum", Slug: "kinds", Title: "Kinds", State: survey.Published, Questions: []survey.Question{q}}
			s.Normalize()
			err := s.Validate()
			if err != nil {
				e, ok := err.(*survey.Error)
				if !ok || e.Code != survey.EINVALID || len(e.Fields) == 0 {
					t.Fatalf("%s: refused with %v, want EINVALID with fields", k.Type(), err)
				}
				for field := range e.Fields {
					if !strings.HasPrefix(field, "questions.0.") {
						t.Fatalf("%s: a problem of %q, not of the question: %v", k.Type(), field, e.Fields)
					}
				}
				continue
			}
			before := mustJSON(t, s)
			s.Normalize()
			if mustJSON(t, s) != before {
				t.Fatalf("%s: Normalize is not idempotent", k.Type())
			}
			r := rand.New(rand.NewPCG(4, 5))
			sum := survey.NewSummary(s)
			for i := 0; i < 20; i++ {
				a, err := survey.NewAnswer(s, map[string]survey.Form{"q1": form(r)})
				if err != nil {
					if e, ok := err.(*survey.Error); !ok || e.Code != survey.EINVALID || e.Fields["q1"] == "" {
						t.Fatalf("%s: answer refused with %v", k.Type(), err)
					}
					continue
				}
				sum.Add(a)
				k.Cells(s.Questions[0], a.Answers[0])
				k.StatCells(s.Questions[0], a.Answers[0])
				k.SQLRows(s.Questions[0], a.Answers[0])
			}
			checkChart(t, k.Chart(&sum.Questions[0]))
		}
	})
}

// TestTypedCell: numbers and days become typed values; everything else,
// formula-like texts included, stays the text it is.
func TestTypedCell(t *testing.T) {
	day := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		t    survey.CellType
		cell string
		want any
	}{
		{survey.CellNumber, "", nil},
		{survey.CellNumber, "4", 4.0},
		{survey.CellNumber, "-12.5", -12.5},
		{survey.CellNumber, "0.25", 0.25},
		{survey.CellNumber, "1e3", "1e3"},
		{survey.CellNumber, "+4", "+4"},
		{survey.CellNumber, "Inf", "Inf"},
		{survey.CellNumber, "NaN", "NaN"},
		{survey.CellNumber, "4.", "4."},
		{survey.CellNumber, ".5", ".5"},
		{survey.CellNumber, "=1+1", "=1+1"},
		{survey.CellNumber, "1" + strings.Repeat("0", 400), "1" + strings.Repeat("0", 400)},
		{survey.CellDate, "2026-03-09", day},
		{survey.CellDate, "2026-3-9", "2026-3-9"},
		{survey.CellDate, "2026-02-30", "2026-02-30"},
		{survey.CellText, "42", "42"},
		{survey.CellText, "=HYPERLINK(\"http://x\")", "=HYPERLINK(\"http://x\")"},
		{survey.CellText, "@SUM(A1)", "@SUM(A1)"},
	}
	for _, c := range cases {
		if got := survey.TypedCell(c.t, c.cell); got != c.want {
			t.Errorf("TypedCell(%d, %q) = %#v, want %#v", c.t, c.cell, got, c.want)
		}
	}
}

// FuzzTypedCell: whatever the cell, TypedCell does not panic; a number it
// gives is finite and the cell is a plain decimal; a date writes back as
// the cell; anything else is the cell itself.
func FuzzTypedCell(f *testing.F) {
	for _, s := range []string{"", "4", "-12.5", "2026-03-09", "=1+1", "1e9", "0x10", "-", "-.5", "١٢"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cell string) {
		for _, ct := range []survey.CellType{survey.CellText, survey.CellNumber, survey.CellDate} {
			switch v := survey.TypedCell(ct, cell).(type) {
			case nil:
				if cell != "" {
					t.Fatalf("%q: nil", cell)
				}
			case float64:
				if ct != survey.CellNumber || math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(cell, "eE+xX") {
					t.Fatalf("%q as %d: number %v", cell, ct, v)
				}
			case time.Time:
				if ct != survey.CellDate || v.Format(time.DateOnly) != cell {
					t.Fatalf("%q as %d: date %v", cell, ct, v)
				}
			case string:
				if v != cell {
					t.Fatalf("%q as %d: text %q", cell, ct, v)
				}
			default:
				t.Fatalf("%q: %T", cell, v)
			}
		}
	})
}

// TestTakesFiles: the questions answered with files are those of the
// upload kind, and only those.
func TestTakesFiles(t *testing.T) {
	for _, k := range survey.Kinds() {
		want := k.Type() == survey.FileUpload
		if got := survey.TakesFiles(survey.Question{Type: k.Type()}); got != want {
			t.Errorf("TakesFiles(%s) = %v, want %v", k.Type(), got, want)
		}
	}
	if survey.TakesFiles(survey.Question{Type: "Unknown"}) {
		t.Error("TakesFiles of a type of no kind")
	}
}
