package web

import (
	"bytes"
	"fmt"
	"html/template"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"weak"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/survey"
)

// inputs keeps the inputs of the survey page's questions (their kind's
// partial, kindInput) rendered as they read unanswered, and the questions
// up to their inputs (questionHead): a question's input with no value is
// the same for every respondent of the survey in a language, so that a
// page rendered again (after a Next, a Back, a problem, a shuffle) costs a
// lookup per such question instead of its partial's actions (each an
// escaper called by reflection). What the cache serves is what the
// templates rendered, html/template's escaping included; the golden files
// of TestSurveyPageGolden check it byte for byte.
//
// An input is kept only when nothing in it is the respondent's own: no
// value sent and none of its labels recalling an answer ({{…}}); with a
// problem shown beside it (a required question left unanswered) or not,
// apart. The question's text and help, which may recall answers, are in
// its head, kept only when they recall none and no problem shows. A
// question whose choices are shuffled for each respondent is kept in
// parts (keptInput), put together in the respondent's order. A preview,
// whose survey is made for the request, is never kept.
type inputs struct {
	cache *lrucache.Cache[inputKey, *keptInput]
}

// keptInput is a question's input rendered once.
type keptInput struct {
	whole template.HTML
	// head, choices and tail are whole in parts, for a question whose
	// choices are shuffled: its input is head, then each choice's part
	// (choices, in the designer's order) in the respondent's order, then
	// tail. For a question's head whose texts are piped, choices are the
	// parts around them (assembleHead).
	head, tail string
	choices    []string
	// perRequest: the question's choices are shuffled, but its partial's
	// output is not its choices' parts one after the other (cutInput); it
	// is rendered for each respondent.
	perRequest bool
}

// html is the input as one respondent sees it: whole, or its parts in a
// new order.
func (k *keptInput) html() template.HTML {
	if k.choices == nil {
		return k.whole
	}
	return k.inOrder(rand.Perm(len(k.choices)))
}

// inOrder is the input of a shuffled question with its choices in order
// (indexes of the designer's order).
func (k *keptInput) inOrder(order []int) template.HTML {
	var b strings.Builder
	b.Grow(len(k.whole))
	b.WriteString(k.head)
	for _, i := range order {
		b.WriteString(k.choices[i])
	}
	b.WriteString(k.tail)
	return template.HTML(b.String())
}

func (k *keptInput) size() int {
	n := len(k.whole) + len(k.head) + len(k.tail)
	for _, c := range k.choices {
		n += len(c) + 16
	}
	return n
}

// questionHead is the question up to its input (partials/question.html),
// kept: a question that shows no problem (HeadKept; the page renders the
// others itself) reads the same for every respondent who sees it with
// that number, in that language, live or not, but for its texts when they
// recall answers: those are kept in parts around them (keepHead).
func (v *views) questionHead(it questionItem) (template.HTML, error) {
	if !it.HeadKept {
		return "", fmt.Errorf("web: the head of question %s is not to be kept", it.Q.ID)
	}
	key := inputKey{survey: it.survey, lang: it.words.L.Tag(), id: it.Q.ID, head: true, num: it.Num, live: it.Live != nil}
	if it.piped {
		key.piped, key.helped = true, it.Help != ""
	}
	in, ok := v.inputs.cache.Get(key)
	if !ok {
		var err error
		if in, err = v.keepHead(it); err != nil {
			return "", err
		}
		v.inputs.cache.Add(key, in)
	}
	if !it.piped {
		return in.whole, nil
	}
	if in.perRequest {
		return v.renderHead(it)
	}
	return assembleHead(in.choices, it)
}

// assembleHead is a piped head from its parts, kept around its texts:
// parts[0], the text, parts[1], and, when its help shows, the help and
// parts[2].
func assembleHead(parts []string, it questionItem) (template.HTML, error) {
	buf := renderBufs.Get().(*bytes.Buffer)
	defer putRenderBuf(buf)
	buf.WriteString(parts[0])
	texts := []string{it.Text, it.Help}
	for i, p := range parts[1:] {
		if _, err := htmlText.WriteString(buf, texts[i]); err != nil {
			return "", err
		}
		buf.WriteString(p)
	}
	return template.HTML(buf.String()), nil
}

// htmlText escapes a text as html/template does in HTML text (its
// htmlEscaper); keepHead checks that the partial escapes its texts so.
var htmlText = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// Stand-ins for a piped head's texts, which no escaper changes.
const (
	textMark = "qt7c1d0e5a9b2f4q"
	helpMark = "qh3e8a6f1c0d7b5q"
)

// renderHead renders a question's head.
func (v *views) renderHead(it questionItem) (template.HTML, error) {
	return executeHTML(v.parts, "question-head", it)
}

// keepHead renders a question's head to keep: whole, or, when its texts
// are piped, in parts around them (assembleHead). The parts are kept only
// when each stand-in is in the head once, in its place, and two sets of
// texts, one with every character HTML escapes, read as the partial
// renders them; else the head is rendered for each respondent
// (perRequest).
func (v *views) keepHead(it questionItem) (*keptInput, error) {
	if !it.piped {
		h, err := v.renderHead(it)
		return &keptInput{whole: h}, err
	}
	marked := it
	marked.Text, marked.Help = textMark, ""
	if it.Help != "" {
		marked.Help = helpMark
	}
	h, err := v.renderHead(marked)
	if err != nil {
		return nil, err
	}
	k := &keptInput{perRequest: true}
	parts := strings.Split(string(h), textMark)
	if len(parts) != 2 {
		return k, nil
	}
	if it.Help != "" {
		rest := strings.Split(parts[1], helpMark)
		if len(rest) != 2 {
			return k, nil
		}
		parts = []string{parts[0], rest[0], rest[1]}
	}
	for _, texts := range [][2]string{{`<b>"Tom" & 'Jo'</b> a+b`, "c < d > e \x00 +"}, {"plain", "words"}} {
		probe := it
		probe.Text = texts[0]
		if it.Help != "" {
			probe.Help = texts[1]
		}
		want, err := v.renderHead(probe)
		if err != nil {
			return nil, err
		}
		if got, err := assembleHead(parts, probe); err != nil || got != want {
			return k, err
		}
	}
	return &keptInput{choices: parts}, nil
}

// keepInput renders the question's input to keep: whole, in the
// designer's order, and, when its choices are shuffled, in parts.
func (v *views) keepInput(it questionItem) (*keptInput, error) {
	choices := it.Q.PossibleAnswers
	whole, err := v.renderInput(it, choices)
	if err != nil {
		return nil, err
	}
	k := &keptInput{whole: whole}
	if !it.Q.Shuffle || len(choices) < 2 {
		return k, nil
	}
	if k.head, k.choices, k.tail, err = v.cutInput(it); err != nil {
		return nil, err
	}
	k.perRequest = k.choices == nil
	return k, nil
}

// cutInput cuts a question's input into the part before its choices, a
// part per choice and the part after, from its partial's output with no
// choice and with each choice alone: the head is what all of them begin
// with, the tail what they end with. The parts are kept only when they
// make the input, choice after choice, in the designer's order and in the
// reverse order, as the partial renders it (nil choices otherwise): a
// partial whose choices read the same wherever they stand.
func (v *views) cutInput(it questionItem) (head string, parts []string, tail string, err error) {
	choices := it.Q.PossibleAnswers
	none, err := v.renderInput(it, []string{})
	if err != nil {
		return "", nil, "", err
	}
	alone := make([]string, len(choices))
	for i, c := range choices {
		h, err := v.renderInput(it, []string{c})
		if err != nil {
			return "", nil, "", err
		}
		alone[i] = string(h)
	}
	head = string(none)
	for _, a := range alone {
		head = head[:commonPrefix(head, a)]
	}
	tail = string(none)[len(head):]
	for _, a := range alone {
		tail = tail[len(tail)-commonSuffix(tail, a[len(head):]):]
	}
	parts = make([]string, len(alone))
	for i, a := range alone {
		parts[i] = a[len(head) : len(a)-len(tail)]
	}
	reversed := slices.Clone(choices)
	slices.Reverse(reversed)
	for _, order := range [][]string{choices, reversed} {
		want, err := v.renderInput(it, order)
		if err != nil {
			return "", nil, "", err
		}
		var b strings.Builder
		b.WriteString(head)
		for _, c := range order {
			b.WriteString(parts[slices.Index(choices, c)])
		}
		b.WriteString(tail)
		if b.String() != string(want) {
			return "", nil, "", nil
		}
	}
	return head, parts, tail, nil
}

// commonPrefix and commonSuffix are the lengths of what a and b begin
// and end with alike.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
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
	// invalid: the input of a question left unanswered that shows a
	// problem (marked aria-invalid, described by the problem: whatever
	// the problem says, which the input does not show).
	invalid bool
	// head is the question up to its input (question-head), numbered
	// num, rather than its input; live, shown as the respondent answers
	// (its condition and hint: whether a question is live may depend on
	// the respondent's answers of earlier pages, survey.PageShows).
	head bool
	num  int
	live bool
	// piped: a head whose texts recall answers, kept around them
	// (pipedHead); helped, whether its help shows (a piped help may come
	// out empty, and then shows not).
	piped, helped bool
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
	return inputs{cache: lrucache.New(maxInputs, maxInputBytes, inputTTL, func(k inputKey, in *keptInput) int64 {
		return int64(len(k.lang) + len(k.id) + in.size() + 64)
	})}
}

// inputKey is the key of the question's input, and whether it may be
// kept.
func (it questionItem) inputKey() (inputKey, bool) {
	if it.survey == (weak.Pointer[survey.Survey]{}) || len(it.Value) > 0 ||
		(it.words.pipe != nil && labelsRecall(*it.Q, it.words.QT)) {
		return inputKey{}, false
	}
	return inputKey{survey: it.survey, lang: it.words.L.Tag(), id: it.Q.ID, invalid: it.Err != ""}, true
}

// labelsRecall reports whether a label of q's choices or rows, or of
// their translation qt, recalls an answer.
func labelsRecall(q survey.Question, qt survey.QuestionText) bool {
	pipes := func(l string) bool { return strings.Contains(l, "{{") }
	return slices.ContainsFunc(q.PossibleAnswers, func(c string) bool { return pipes(c) || pipes(qt.Choice(c)) }) ||
		slices.ContainsFunc(q.Rows, func(r string) bool { return pipes(r) || pipes(qt.Row(r)) })
}
