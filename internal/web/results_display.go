package web

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// answerDisplay is what a kind's display partial
// (templates/kinds/<key>.display.html) is given to show one answer as
// people read it, on the answer page and in the answers table: a list
// for checkboxes, a small table for a grid, an ordered list for a
// ranking, links for files, a date in words.
type answerDisplay struct {
	Q survey.Question
	// Answer is the stored answer ("" for none), Text the answer as one
	// line (survey.AnswerText), Value the kind's typed value (its JSON
	// export's: a checkboxes' choices and other text, a ranking's list).
	Answer, Text string
	Value        any
	// Pairs are the kind's export columns with their cells, those
	// answered only: a grid's rows, a contact's parts.
	Pairs []displayPair
	// Files are the links to an upload's files.
	Files []fileLink
	// Compact: a cell of the answers table, not the answer page.
	Compact bool
}

// displayPair is one column of an answer and its cell.
type displayPair struct{ Label, Value string }

// kindDisplay shows question q's answer in a (of tenant) with its kind's
// display partial; compact for a cell of the answers table.
func (v *views) kindDisplay(tenant string, a *survey.SurveyAnswer, q survey.Question, compact bool) (template.HTML, error) {
	k, ok := survey.KindOf(q.Type)
	if !ok {
		return "", fmt.Errorf("web: question %s has no kind %q", q.ID, q.Type)
	}
	qa, _ := a.Answer(q.ID)
	if qa.Answer == "" || qa.Type != q.Type {
		if compact {
			return "", nil
		}
		return `<span class="muted">(no answer)</span>`, nil
	}
	d := answerDisplay{Q: q, Answer: qa.Answer, Text: survey.AnswerText(k, q, qa), Value: k.Value(q, qa), Compact: compact,
		Files: answerFiles(tenant, a, q)}
	cols, cells := k.Columns(q), k.Cells(q, qa)
	for i, c := range cells {
		if c != "" && i < len(cols) && cols[i] != "" {
			d.Pairs = append(d.Pairs, displayPair{Label: cols[i], Value: c})
		}
	}
	return v.kindPartial(k.Key()+".display.html", d)
}

// stars is a rating of n out of top as filled and empty stars.
func stars(n string, top int) string {
	var got int
	_, _ = fmt.Sscan(n, &got)
	got = min(max(got, 0), top)
	return strings.Repeat("★", got) + strings.Repeat("☆", top-got)
}

// longDate is a stored date (2006-01-02) in words: 14 March 2026.
func longDate(s string) string {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return d.Format("2 January 2006")
}

// chosen reports whether label is among a choice kind's typed value: the
// one label chosen, or a list of them.
func chosen(label string, value any) bool {
	switch v := value.(type) {
	case string:
		return v == label
	case []string:
		return slices.Contains(v, label)
	}
	return false
}
