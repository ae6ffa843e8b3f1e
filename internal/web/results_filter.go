package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/surveys-dev/surveys/internal/survey"
)

// filterView is the filter of the analysis, answers and table pages: the
// filter read from the query, the problems beside its fields (a bad
// filter: the page is a 422 and shows no answers), and what its form
// offers.
type filterView struct {
	Filter survey.AnswerFilter
	// Form is what the query said, shown again in the form.
	Form   survey.AnswerFilter
	Errors map[string]string
	// Action is the page the form is sent to (GET).
	Action    string
	Questions []survey.Question
	// Hidden are the survey's hidden fields, which the filter may look
	// at like questions.
	Hidden []hiddenOption
	// Choices are the choices of the survey's questions, offered for the
	// answer (a datalist: any answer may be typed).
	Choices []string
	// Query is the filter as a query, "" when there is none.
	Query string
	// Partial offers complete or partial answers (a survey that keeps
	// partial answers).
	Partial bool
	// Picks are the answers the pickers offer, by question; sent the
	// pickers' values as the query said them (c=).
	Picks []pickGroup
	sent  []sentPick
	// Segments are the survey's saved segments (segmentsOf).
	Segments segmentsView
	// Keep are the page's own parameters, which the form carries on as
	// hidden inputs (the cross-tabulation's variables).
	Keep []keptParam
}

// sentPick is a picker's value the query sent, and its place among the
// query's c= (where its problem is).
type sentPick struct {
	Value string
	At    int
}

// pickGroup is a question whose answers the filter's pickers offer.
type pickGroup struct {
	Label   string
	Options []pickOption
}

// pickOption is one answer a picker offers: its c= value.
type pickOption struct{ Value, Label string }

// pickRow is one of the filter's pickers: its place, the value chosen
// and its problem.
type pickRow struct {
	N             int
	Chosen, Error string
	// Other: Chosen is none of the options (a link's, or a saved
	// segment's, condition on a typed answer), offered as it is.
	Other bool
}

// PickRows are the filter's pickers: three, or one per answer picked
// (at most survey.MaxFilterPicks).
func (f filterView) PickRows() []pickRow {
	rows := make([]pickRow, min(max(3, len(f.sent)+1), survey.MaxFilterPicks))
	for i := range rows {
		rows[i].N = i
		if i < len(f.sent) {
			rows[i].Chosen = f.sent[i].Value
			rows[i].Error = f.Errors["c."+strconv.Itoa(f.sent[i].At)]
			rows[i].Other = !slices.ContainsFunc(f.Picks, func(g pickGroup) bool {
				return slices.ContainsFunc(g.Options, func(o pickOption) bool { return o.Value == rows[i].Chosen })
			})
		}
	}
	return rows
}

// Active reports whether the page is filtered.
func (f filterView) Active() bool { return f.Filter.Active() }

// Invalid reports whether the filter has problems.
func (f filterView) Invalid() bool { return len(f.Errors) > 0 }

// With is a link to the page itself, with the filter's query and the
// given parameter added ("?page=3", "?a=Mobile+app&i=7&q=q2"): its links
// keep the filter.
func (f filterView) With(key string, value int) string {
	q := f.Filter.Values()
	q.Set(key, strconv.Itoa(value))
	return "?" + q.Encode()
}

// readFilter reads the request's filter for sv, for the page at action.
// A bad filter is no error here: the page shows its problems (422).
func readFilter(r *http.Request, sv *survey.Survey, action string) filterView {
	v := filterView{Action: action, Questions: sv.Questions}
	for _, n := range sv.HiddenFields {
		v.Hidden = append(v.Hidden, hiddenOption{Name: n, Ref: survey.HiddenRef(n)})
	}
	for _, q := range sv.Questions {
		for _, c := range q.PossibleAnswers {
			if !slices.Contains(v.Choices, c) {
				v.Choices = append(v.Choices, c)
			}
		}
	}
	for i, q := range sv.Questions {
		picks := survey.FilterPicks(q)
		if len(picks) == 0 {
			continue
		}
		g := pickGroup{Label: strconv.Itoa(i+1) + ". " + q.Text}
		for _, p := range picks {
			g.Options = append(g.Options, pickOption{Value: q.ID + "=" + p, Label: p})
		}
		v.Picks = append(v.Picks, g)
	}
	q := r.URL.Query()
	for i, c := range q["c"] {
		if c != "" {
			v.sent = append(v.sent, sentPick{Value: c, At: i})
		}
	}
	v.Form = survey.AnswerFilter{From: q.Get("from"), To: q.Get("to"), Question: q.Get("q"), Answer: q.Get("a"), Status: q.Get("status")}
	v.Partial = sv.KeepPartial > 0 || v.Form.Status != ""
	f, err := survey.ParseAnswerFilter(sv, q)
	var se *survey.Error
	if errors.As(err, &se) {
		v.Errors = se.Fields
		return v
	}
	v.Filter, v.Form, v.Query = f, f, f.Values().Encode()
	return v
}

// hiddenOption is a hidden field as the filter's select offers it: its
// name, and its reference (the value of q).
type hiddenOption struct{ Name, Ref string }

// filterStatus is the status of a page with filter v.
func (f filterView) status() int {
	if f.Invalid() {
		return http.StatusUnprocessableEntity
	}
	return http.StatusOK
}

// scanFiltered calls fn with each answer f picks, in the order of the
// survey's list: its number among those picked and its number among all
// the answers left (both from 0; the second is the answer's ?i= on the
// unfiltered browse page). It returns how many answers it read (those f
// leaves out included). One segment of answers is read at a time; fn's
// answer is only valid during the call.
func (s *Server) scanFiltered(ctx context.Context, tenant, slug string, f survey.AnswerFilter, fn func(n, of int, a *survey.SurveyAnswer) error) (int, error) {
	n := 0
	return s.reader.ScanFiltered(ctx, tenant, slug, f, func(of int, a *survey.SurveyAnswer) error {
		n++
		return fn(n-1, of, a)
	})
}

// filterOf is the filter of an export or an API request: a bad one is an
// EINVALID error, its problems by field and, for a page that has no form
// to show them beside, in its message.
func filterOf(r *http.Request, sv *survey.Survey) (survey.AnswerFilter, error) {
	return survey.AnswerFilterOf(sv, r.URL.Query())
}
