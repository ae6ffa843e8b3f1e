package web

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// A respondent's path through a survey with logic: the pages of the
// sections their answers lead to (survey.PagePath), recomputed on every
// page from the answers sealed in the form, so "Page 2 of 3", Back and
// the last page follow the answers, and a state that was altered does not
// open (respond_pagestate.go). A page shows the questions whose condition holds
// on the earlier pages' answers; a question whose condition looks at an
// answer of the same page is shown with its condition in words, and the
// page's script (web/static/logic.js) shows or hides it as the respondent
// answers.

// route is a respondent's path: the indexes (in the survey's pages) of
// the pages on it, and the answers it keeps (nil for a survey without
// logic, whose path is every page).
type route struct {
	path []int
	kept map[string]survey.QuestionAnswer
}

// routeOf is the path of a respondent who gave values, their link having
// carried the values hidden of the survey's hidden fields, screened out of
// the quota cells screened on their way (respond_quota.go).
func routeOf(sv *survey.Survey, pages []survey.Page, values map[string]survey.Form, hidden map[string]string, screened survey.Screened) route {
	if !sv.HasLogic() {
		path := make([]int, len(pages))
		for i := range path {
			path[i] = i
		}
		return route{path: path}
	}
	kept := sv.DropHidden(sv.WithScreened(sv.GivenWith(values, hidden), screened))
	return route{path: sv.PagePath(pages, kept), kept: kept}
}

// at is where page i is on the path (from 0); -1 when it is not on it.
func (rt route) at(i int) int { return slices.Index(rt.path, i) }

// last reports whether page i is the last of the path.
func (rt route) last(i int) bool { return rt.path[len(rt.path)-1] == i }

// onPath is page i if it is on the path, else the last page of the path
// before it (the survey or the answers changed under the respondent), else
// the first.
func (rt route) onPath(i int) int {
	out := rt.path[0]
	for _, p := range rt.path {
		if p == i {
			return i
		}
		if p < i {
			out = p
		}
	}
	return out
}

// before is the page before page i on the path; i itself for the first.
func (rt route) before(i int) int {
	if k := rt.at(i); k > 0 {
		return rt.path[k-1]
	}
	return i
}

// after is the page after page i on the path; ok is false on the last.
func (rt route) after(i int) (next int, ok bool) {
	if k := rt.at(i); k >= 0 && k+1 < len(rt.path) {
		return rt.path[k+1], true
	}
	return i, false
}

// shows are the questions of qs (a page's) that the path shows, with the
// condition of those the page decides live, by question ID (nil when
// there are none).
func (rt route) shows(sv *survey.Survey, qs []survey.Question) ([]survey.Question, map[string]*liveQuestion) {
	if rt.kept == nil {
		return qs, nil
	}
	out := make([]survey.Question, 0, len(qs))
	var live map[string]*liveQuestion
	for _, q := range qs {
		show, decided := sv.PageShows(q, rt.kept)
		if !show {
			continue
		}
		out = append(out, q)
		if decided {
			if live == nil {
				live = map[string]*liveQuestion{}
			}
			live[q.ID] = liveOf(sv, q)
		}
	}
	return out, live
}

// liveQuestion is what a page says of a question it shows or hides as
// the respondent answers: the condition as the script reads it (Rule),
// and its rules and match, which the page says in words in the
// respondent's language (respondent.LiveHint), for a page without its
// script.
type liveQuestion struct {
	Rule  string
	rules []survey.Rule
	any   bool
}

// liveRule is a rule as logic.js reads it.
type liveRule struct {
	Question string   `json:"q"`
	Op       string   `json:"op"`
	Values   []string `json:"v,omitempty"`
}

// liveOf is the live condition of q: its rules on its own page (those on
// earlier pages did not decide it, survey.PageShows).
func liveOf(sv *survey.Survey, q survey.Question) *liveQuestion {
	c := q.ShowIf
	var rules []liveRule
	lq := &liveQuestion{any: c.Match == survey.MatchAny}
	for _, r := range c.Rules {
		if !sv.OnPage(q, r) {
			continue
		}
		rules = append(rules, liveRule{Question: r.Question, Op: r.Op, Values: r.Values})
		lq.rules = append(lq.rules, r)
	}
	raw, _ := json.Marshal(struct {
		Match string     `json:"match"`
		Rules []liveRule `json:"rules"`
	}{c.Match, rules})
	lq.Rule = string(raw)
	return lq
}

// LiveHint is the condition of a question the page shows or hides, in
// words in the respondent's language, the survey's texts and choices in
// its translation: Answer only if your answer to “Do you own a car?” is
// “Yes”.
func (p respondent) LiveHint(sv *survey.Survey, lq *liveQuestion) string {
	words := ""
	for i, r := range lq.rules {
		w := p.ruleWords(sv, r)
		switch {
		case i == 0:
			words = w
		case lq.any:
			words = p.T("%s or %s", words, w)
		default:
			words = p.T("%s and %s", words, w)
		}
	}
	return p.T("Answer only if %s.", words)
}

// ruleWords is a rule in words: your answer to “Do you own a car?” is
// “Yes”.
func (p respondent) ruleWords(sv *survey.Survey, r survey.Rule) string {
	text := r.Question
	if o, ok := sv.Question(r.Question); ok {
		// (What its text recalls shows as its fallback: the hint is the
		// same on every page.)
		text = sv.Pipe(p.QText(o), nil, nil)
	}
	text = "“" + text + "”"
	qt := p.Tr.Questions[r.Question]
	quoted := make([]string, len(r.Values))
	for i, v := range r.Values {
		quoted[i] = "“" + qt.Choice(v) + "”"
	}
	vs := strings.Join(quoted, ", ")
	switch r.Op {
	case survey.OpEquals:
		return p.T("your answer to %s is %s", text, vs)
	case survey.OpNotEquals:
		return p.T("your answer to %s is not %s", text, vs)
	case survey.OpOneOf:
		return p.T("your answer to %s is one of %s", text, vs)
	case survey.OpGreaterThan:
		return p.T("your answer to %s is more than %s", text, strings.Join(r.Values, ", "))
	case survey.OpLessThan:
		return p.T("your answer to %s is less than %s", text, strings.Join(r.Values, ", "))
	case survey.OpAnswered:
		return p.T("you answered %s", text)
	case survey.OpNotAnswered:
		return p.T("you did not answer %s", text)
	}
	return p.T("your answer to %s fits", text)
}
