package survey

import "math/rand/v2"

// Kind is one kind of question: everything the domain knows of it, in one
// file per kind (kind_*.go), reached through the registry below. Nothing
// else switches on a question's type. A kind is free of I/O and HTML: its
// input and chart are the partials templates/kinds/<Key>.input.html and
// templates/kinds/<Key>.chart.html.
//
// The unexported methods keep kinds inside this package, where the
// conformance test (kinds_test.go) runs every registered one.
type Kind interface {
	// Type is the kind's stored name, as surveys, answers and summaries
	// hold it ("FiveStars").
	Type() QuestionType
	// Key names the kind's partials: lower case, letters only.
	Key() string
	// Label is the kind's name for people ("Five stars").
	Label() string

	// Chart is what the analysis page shows of a question's summary.
	Chart(qs *QuestionAnswersSummary) Chart
	// ExportCells are the cells the kind adds to a CSV row for an answer
	// (the zero QuestionAnswer when the respondent has none), before any
	// escaping for spreadsheets.
	ExportCells(qa QuestionAnswer) []string
	// CopyNumber is the answer as the number the PostgreSQL copy stores in
	// its numeric column; false for NULL.
	CopyNumber(qa QuestionAnswer) (int64, bool)

	// normalize cleans a question's settings (its text is cleaned for
	// every kind by Survey.Normalize).
	normalize(q *Question)
	// validate adds the problems of a question's settings to f, under
	// key+".choices" and the like.
	validate(q Question, key string, f fieldErrors)
	// answer checks a respondent's value (cleaned of control characters
	// and trimmed) and returns the answer to store, or a message for the
	// respondent.
	answer(q Question, v string) (stored, problem string)
	// newSummary gives qs the empty counts of q (q has no settings when
	// the summary is made from an answer alone).
	newSummary(q Question, qs *QuestionAnswersSummary)
	// add counts one stored answer into qs.
	add(qs *QuestionAnswersSummary, answer string)
	// merge adds the counts of the kind's part of o into qs, exactly,
	// whatever the order and batching of merges.
	merge(qs, o *QuestionAnswersSummary)
	// restore gives back the empty counts a decoded summary's JSON omits.
	restore(qs *QuestionAnswersSummary)
	// example is a definition of the kind and a source of values a
	// respondent may send, for the conformance test.
	example() (q Question, value func(r *rand.Rand) string)
}

// Chart is what a kind's chart partial shows of a summary: bars (a label
// and a count each), a mean, and counted words.
type Chart struct {
	Labels []string
	Counts []int64
	// Average is the mean, when Averaged.
	Average  float64
	Averaged bool
	Words    []WordCount
	// OtherWords counts the uses of words past the summary's sample.
	OtherWords int64
}

// kinds lists every kind, in the order the designer offers them.
var kinds = []Kind{simpleText{}, multipleChoice{}, fiveStars{}}

var kindByType = func() map[QuestionType]Kind {
	m := make(map[QuestionType]Kind, len(kinds))
	for _, k := range kinds {
		if _, dup := m[k.Type()]; dup {
			panic("survey: kind " + string(k.Type()) + " registered twice")
		}
		m[k.Type()] = k
	}
	return m
}()

// KindOf returns the kind of question t names.
func KindOf(t QuestionType) (Kind, bool) {
	k, ok := kindByType[t]
	return k, ok
}

// Kinds returns every kind, in a stable order (the designer's).
func Kinds() []Kind {
	return append([]Kind(nil), kinds...)
}
