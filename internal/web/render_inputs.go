package web

import (
	"html/template"
	"slices"
	"strings"
	"time"
	"weak"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/survey"
)

// inputs keeps the inputs of the survey page's questions (their kind's
// partial, kindInput) rendered as they read unanswered: with no value
// and no problem, a question's input is the same for every respondent of
// the survey in a language, so that a page rendered again (after a Next,
// a Back, a problem elsewhere on it, a shuffle of other questions) costs
// a lookup per such question instead of its partial's actions (each an
// escaper called by reflection). What the cache serves is what the
// partial rendered, html/template's escaping included; the golden files
// of TestSurveyPageGolden check it byte for byte.
//
// An input is kept only when nothing in it is the respondent's own: no
// value sent, no problem shown, its choices in the designer's order (not
// shuffled) and none of its labels recalling an answer ({{…}}). The
// question's text and help, which may recall answers, are the page's,
// not the partial's. A preview, whose survey is made for the request, is
// never kept.
type inputs struct {
	cache *lrucache.Cache[inputKey, template.HTML]
}

// inputKey is a question's input in a survey value, in a language. The
// survey is the value the public cache holds (a new version, or the same
// read again after its TTL, is another value), held weakly: an entry
// does not keep a survey alive, and a survey made later at the same
// address is another key.
type inputKey struct {
	survey weak.Pointer[survey.Survey]
	lang   string
	id     string
}

// Bounds of the inputs kept: in entries and bytes, each at most
// inputTTL (the public cache reads a survey again every few seconds; its
// inputs are rendered again then).
const (
	maxInputs     = 20000
	maxInputBytes = 16 << 20
	inputTTL      = time.Minute
)

func newInputs() inputs {
	return inputs{cache: lrucache.New(maxInputs, maxInputBytes, inputTTL, func(k inputKey, h template.HTML) int64 {
		return int64(len(k.lang) + len(k.id) + len(h) + 64)
	})}
}

// inputKey is the key of the question's input, and whether it may be
// kept.
func (it questionItem) inputKey() (inputKey, bool) {
	if it.survey == (weak.Pointer[survey.Survey]{}) || len(it.Value) > 0 || it.Err != "" || it.Q.Shuffle ||
		(it.words.pipe != nil && labelsRecall(*it.Q, it.words.QT)) {
		return inputKey{}, false
	}
	return inputKey{survey: it.survey, lang: it.words.L.Tag(), id: it.Q.ID}, true
}

// labelsRecall reports whether a label of q's choices or rows, or of
// their translation qt, recalls an answer.
func labelsRecall(q survey.Question, qt survey.QuestionText) bool {
	pipes := func(l string) bool { return strings.Contains(l, "{{") }
	return slices.ContainsFunc(q.PossibleAnswers, func(c string) bool { return pipes(c) || pipes(qt.Choice(c)) }) ||
		slices.ContainsFunc(q.Rows, func(r string) bool { return pipes(r) || pipes(qt.Row(r)) })
}
