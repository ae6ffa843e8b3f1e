package web

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/surveys-dev/surveys/internal/survey"
)

// tableView is how the answers table shows the answers the filter picks:
// which questions' columns (all, or those the column picker chose) and in
// which order (oldest first, as they arrived, or newest first). It rides
// in the query beside the filter (?col=q2&col=q5&order=newest), so that a
// page of the table can be shared and its pager keeps it.
type tableView struct {
	// Columns are the questions shown; Chosen lists every question
	// with whether it is shown, for the picker.
	Columns []survey.Question
	Chosen  []chosenColumn
	// Picked: the picker chose some columns (not all).
	Picked bool
	// Newest: newest first.
	Newest bool
	filter url.Values
	cols   []string
}

// chosenColumn is a question as the column picker offers it.
type chosenColumn struct {
	Q     survey.Question
	Shown bool
}

// readTableView reads the table's columns and order from r's query; an
// unknown question is left out, and none known shows them all.
func readTableView(r *http.Request, sv *survey.Survey, f filterView) tableView {
	q := r.URL.Query()
	v := tableView{Newest: q.Get("order") == "newest", filter: f.Filter.Values()}
	want := q["col"]
	for _, qu := range sv.Questions {
		if slices.Contains(want, qu.ID) {
			v.Columns = append(v.Columns, qu)
			v.cols = append(v.cols, qu.ID)
		}
	}
	if len(v.Columns) == 0 || len(v.Columns) == len(sv.Questions) {
		v.Columns, v.cols = sv.Questions, nil
	}
	v.Picked = v.cols != nil
	for _, qu := range sv.Questions {
		v.Chosen = append(v.Chosen, chosenColumn{Q: qu, Shown: !v.Picked || slices.Contains(v.cols, qu.ID)})
	}
	return v
}

// query is the filter's query with the view's columns and order.
func (v tableView) query() url.Values {
	out := url.Values{}
	for k, vs := range v.filter {
		out[k] = slices.Clone(vs)
	}
	if v.cols != nil {
		out["col"] = slices.Clone(v.cols)
	}
	if v.Newest {
		out.Set("order", "newest")
	}
	return out
}

// Page is a link to page n of the table as it is shown.
func (v tableView) Page(n int) string {
	q := v.query()
	q.Set("page", strconv.Itoa(n))
	return "?" + q.Encode()
}

// Order is a link to the table's first page in the given order ("newest"
// or "oldest"), its filter and columns kept.
func (v tableView) Order(order string) string {
	q := v.query()
	q.Del("order")
	if order == "newest" {
		q.Set("order", "newest")
	}
	return "?" + q.Encode()
}

// AllColumns is a link to the table's first page with every question's
// column, its filter and order kept.
func (v tableView) AllColumns() string {
	q := v.query()
	q.Del("col")
	return "?" + q.Encode()
}

// Kept is the filter's and order's parameters, which the column picker's
// form carries as hidden inputs.
func (v tableView) Kept() []keptParam {
	q := v.query()
	q.Del("col")
	var out []keptParam
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, val := range q[k] {
			out = append(out, keptParam{Name: k, Value: val})
		}
	}
	return out
}

// keptParam is one query parameter a form carries on.
type keptParam struct{ Name, Value string }
