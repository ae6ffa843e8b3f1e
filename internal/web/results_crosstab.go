package web

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// crosstabPage is the cross-tabulation of two variables of a survey
// (?row=&col=, each a survey.CrossVariable's Ref), of the answers the
// page's filter picks.
type crosstabPage struct {
	// Role is the signed-in member's: it hides what they may not do.
	Role   survey.Role
	Tenant string
	Survey *survey.Survey
	Filter filterView
	// Variables are those the selects offer; Row, Col and Show what the
	// query chose; Errors the problems beside the fields ("row", "col",
	// "show").
	Variables []survey.CrossVariable
	// Segments are the survey's saved segments as variables, offered
	// apart.
	Segments []survey.CrossVariable
	Row, Col string
	Show     string
	Errors   map[string]string
	Table    *crosstabView
	// Of counts the answers read (those the filter left out too).
	Of int
	// Partial: the survey keeps partial answers, which the table counts
	// only when the filter picks partial answers or a variable is the
	// status.
	Partial, WithPartial bool
	// CSV is the table's download; Analysis the analysis page, both
	// with the filter.
	CSV, Analysis string
}

// crossShows are the figures the table may show in its cells.
var crossShows = []struct{ Value, Label string }{
	{"counts", "Counts"}, {"row", "Row percentages"}, {"col", "Column percentages"},
}

// MaxValues is how many values of a hidden field or a variable the
// table shows apart.
func (crosstabPage) MaxValues() int { return survey.MaxCrossCategories - 1 }

// Shows are the choices of the page's "show" select.
func (crosstabPage) Shows() []struct{ Value, Label string } { return crossShows }

// crosstabView is a CrossTable as the page and the CSV show it: each
// cell's figure for people.
type crosstabView struct {
	*survey.CrossTable
	Caption string
	// Head is the columns' labels; Body the rows, each its label, its
	// cells and its total; Foot the columns' totals and the whole's.
	Head []string
	Body []crossRow
	Foot crossRow
	// Statistic and P are the test's for people.
	Statistic, P string
	// Significant: p below 0.05.
	Significant bool
}

// crossRow is one row of the table as shown.
type crossRow struct {
	Label string
	Cells []string
	Total string
}

// crossShow is the table's figures: the counts, or each cell's share of
// its row's answers or of its column's.
func newCrosstabView(t *survey.CrossTable, show string) *crosstabView {
	v := &crosstabView{CrossTable: t, Head: t.Cols}
	what := "counts"
	pct := func(n, of int64) string {
		if of == 0 {
			return "–"
		}
		return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
	}
	count := func(n int64) string { return strconv.FormatInt(n, 10) }
	for i, label := range t.Rows {
		r := crossRow{Label: label}
		for j, n := range t.Counts[i] {
			switch show {
			case "row":
				r.Cells = append(r.Cells, pct(n, t.RowTotals[i]))
			case "col":
				r.Cells = append(r.Cells, pct(n, t.ColTotals[j]))
			default:
				r.Cells = append(r.Cells, count(n))
			}
		}
		switch show {
		case "row":
			r.Total = pct(t.RowTotals[i], t.RowTotals[i])
		case "col":
			r.Total = pct(t.RowTotals[i], t.Total)
		default:
			r.Total = count(t.RowTotals[i])
		}
		v.Body = append(v.Body, r)
	}
	v.Foot = crossRow{Label: "Total"}
	for _, n := range t.ColTotals {
		switch show {
		case "row":
			v.Foot.Cells = append(v.Foot.Cells, pct(n, t.Total))
		case "col":
			v.Foot.Cells = append(v.Foot.Cells, pct(n, n))
		default:
			v.Foot.Cells = append(v.Foot.Cells, count(n))
		}
	}
	v.Foot.Total = count(t.Total)
	switch show {
	case "row":
		what, v.Foot.Total = "row percentages", pct(t.Total, t.Total)
	case "col":
		what, v.Foot.Total = "column percentages", pct(t.Total, t.Total)
	}
	v.Caption = fmt.Sprintf("%s (rows) by %s (columns): %s of %s", t.Row.Label, t.Col.Label, what, survey.Count(t.Total, "answer"))
	if t.Test.Valid {
		v.Statistic = strconv.FormatFloat(t.Test.Statistic, 'f', 2, 64)
		v.P, v.Significant = formatP(t.Test.P), t.Test.P < 0.05
	}
	return v
}

// formatP is a p-value for people: four decimals, or "< 0.0001".
func formatP(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return "= " + strconv.FormatFloat(p, 'f', 4, 64)
}

// crossSegments are a survey's saved segments as variables of a
// cross-tabulation (Vars), and the problem of each whose filter no longer
// reads on the survey, by reference (Broken).
type crossSegments struct {
	Vars   []survey.CrossVariable
	Broken map[string]string
}

// crossSegmentsOf are survey sv's saved segments as variables: one
// listing, whatever the answers.
func (s *Server) crossSegmentsOf(ctx context.Context, sv *survey.Survey) (crossSegments, error) {
	out := crossSegments{Broken: map[string]string{}}
	if s.segments == nil {
		return out, nil
	}
	list, err := s.segments.List(ctx, sv.Tenant, sv.Slug)
	if err != nil {
		return out, err
	}
	for _, g := range list {
		v, err := survey.SegmentVariable(sv, g)
		if err != nil {
			out.Broken[survey.SegmentRef(g.ID)] = "The segment “" + g.Name + "” no longer fits this survey (a question it names is gone): choose another."
			continue
		}
		out.Vars = append(out.Vars, v)
	}
	return out, nil
}

// noSuchSegment is the problem of a reference to a saved segment the
// survey does not have.
const noSuchSegment = "This survey has no saved segment with this ID: choose one offered (the survey’s segments list them)."

// variable is the variable ref names: a saved segment's, or one of sv's;
// problem says what is wrong when none.
func (g crossSegments) variable(sv *survey.Survey, ref string) (v survey.CrossVariable, problem string) {
	if _, ok := survey.SegmentOfRef(ref); ok {
		for _, v := range g.Vars {
			if v.Ref == ref {
				return v, ""
			}
		}
		if p, ok := g.Broken[ref]; ok {
			return v, p
		}
		return v, noSuchSegment
	}
	if v, ok := sv.CrossVariable(ref); ok {
		return v, ""
	}
	return v, "This survey has no such question, hidden field or variable to count answers by: choose one offered."
}

// readCrosstab reads the page's variables and figures from the query: a
// variable sv (or its saved segments, segs) does not have, or the same
// twice, is a problem beside its field. Neither given is no problem: the
// page offers the selects only.
func readCrosstab(q url.Values, sv *survey.Survey, segs crossSegments) (row, col survey.CrossVariable, show string, errs map[string]string) {
	errs = map[string]string{}
	rowRef, colRef := q.Get("row"), q.Get("col")
	show = q.Get("show")
	switch show {
	case "", "counts":
		show = "counts"
	case "row", "col":
	default:
		errs["show"] = "Show counts, row percentages or column percentages."
	}
	if rowRef == "" && colRef == "" {
		return row, col, show, errs
	}
	pick := func(ref, field, which string) survey.CrossVariable {
		if ref == "" {
			errs[field] = "Choose the variable of the " + which + "."
			return survey.CrossVariable{}
		}
		v, problem := segs.variable(sv, ref)
		if problem != "" {
			errs[field] = problem
		}
		return v
	}
	row, col = pick(rowRef, "row", "rows"), pick(colRef, "col", "columns")
	if rowRef != "" && rowRef == colRef && errs["col"] == "" {
		errs["col"] = "Choose another variable than the rows’."
	}
	return row, col, show, errs
}

// crosstab shows the cross-tabulation of two variables of the survey
// (?row=&col=&show=), of the answers the filter picks, with the
// chi-square test of their independence.
func (s *Server) crosstab(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.crossSurvey(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	base := "/" + tenant + "/surveys/" + slug + "/crosstab"
	q := r.URL.Query()
	page := crosstabPage{Role: roleOf(r), Tenant: tenant, Survey: sv, Filter: readFilter(r, sv, base), Variables: sv.CrossVariables(),
		Row: q.Get("row"), Col: q.Get("col"), Partial: sv.KeepPartial > 0}
	segs, err := s.crossSegmentsOf(r.Context(), sv)
	if err != nil {
		return err
	}
	page.Segments = segs.Vars
	var row, col survey.CrossVariable
	row, col, page.Show, page.Errors = readCrosstab(q, sv, segs)
	if (row.Ref == survey.StatusRef || col.Ref == survey.StatusRef) && sv.KeepPartial == 0 {
		// Asked of a survey that keeps none (or no longer does): offered
		// too, so that the select shows what the table counts by.
		status, _ := sv.CrossVariable(survey.StatusRef)
		page.Variables = append(page.Variables, status)
	}
	for _, k := range []string{"row", "col", "show"} {
		if v := q.Get(k); v != "" {
			page.Filter.Keep = append(page.Filter.Keep, keptParam{Name: k, Value: v})
		}
	}
	page.Analysis = "/" + tenant + "/surveys/" + slug + "/analyze"
	if page.Filter.Active() {
		page.Analysis += "?" + page.Filter.Query
	}
	status := page.Filter.status()
	if len(page.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	}
	if status == http.StatusOK && page.Row != "" {
		var t *survey.CrossTable
		t, page.Of, page.WithPartial, err = s.crossTable(r.Context(), sv, row, col, page.Filter.Filter)
		if err != nil {
			return err
		}
		page.Table = newCrosstabView(t, page.Show)
		csvQuery := page.Filter.Filter.Values()
		csvQuery.Set("row", row.Ref)
		csvQuery.Set("col", col.Ref)
		page.CSV = base + ".csv?" + csvQuery.Encode()
	}
	s.render(w, r, status, "crosstab", page)
	return nil
}

// crossSurvey is the survey with every version's questions and choices,
// and any question its summary counts that it no longer has: the
// categories of all the answers it holds.
func (s *Server) crossSurvey(ctx context.Context, tenant, slug string) (*survey.Survey, error) {
	sv, err := s.surveys.Get(ctx, tenant, slug)
	if err != nil {
		return nil, err
	}
	var counts *survey.SurveyAnswersSummary
	if stored, _, err := s.summaries.Get(ctx, tenant, slug); err == nil {
		counts = &stored.SurveyAnswersSummary
	} else if survey.ErrorCode(err) != survey.ENOTFOUND {
		return nil, err
	}
	return sv.Everything(counts).Numbered(), nil
}

// crossTable counts the answers f picks by row and col, reading every
// answer once, a segment at a time (a saved segment's filter, as a
// variable, is matched against each answer read); read is how many
// answers it read. Partial answers are counted when f picks them alone,
// a variable is the status or a saved segment that picks by it
// (withPartial); else complete answers only, as the analysis counts them.
func (s *Server) crossTable(ctx context.Context, sv *survey.Survey, row, col survey.CrossVariable, f survey.AnswerFilter) (t *survey.CrossTable, read int, withPartial bool, err error) {
	withPartial = f.Status == "partial" || row.CountsPartial() || col.CountsPartial()
	c := survey.NewCrossCounter(row, col)
	read, err = s.scanFiltered(ctx, sv.Tenant, sv.Slug, f, func(_, _ int, a *survey.SurveyAnswer) error {
		if !a.Partial || withPartial {
			c.Add(a)
		}
		return nil
	})
	if err != nil {
		return nil, 0, false, err
	}
	return c.Table(), read, withPartial, nil
}

// crosstabCSV downloads the cross-tabulation (?row=&col=, and the filter)
// as CSV: the counts, the row and the column percentages, each a table
// with its totals, then the test. Every cell is safe from spreadsheet
// formulas (csvCell).
func (s *Server) crosstabCSV(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	t, err := s.crosstabOf(r.Context(), tenant, slug, r.URL.Query())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s-crosstab.csv"`, tenant, slug))
	out := bufio.NewWriter(w)
	_, _ = out.WriteString("\uFEFF")
	cw := csv.NewWriter(out)
	writeCrossCSV(cw, t)
	cw.Flush()
	return out.Flush()
}

// crosstabOf is the cross-tabulation a query asks of a survey (row, col
// and the filter's parameters), for the CSV and the API: a bad or missing
// variable, or a bad filter, is an EINVALID error with its problems by
// field, in its message too.
func (s *Server) crosstabOf(ctx context.Context, tenant, slug string, q url.Values) (*survey.CrossTable, error) {
	sv, err := s.crossSurvey(ctx, tenant, slug)
	if err != nil {
		return nil, err
	}
	f, err := survey.AnswerFilterOf(sv, q)
	if err != nil {
		return nil, err
	}
	q = maps.Clone(q)
	q.Del("show")
	segs, err := s.crossSegmentsOf(ctx, sv)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"row", "col"} {
		// Another survey's or tenant's segment is not found, as one that
		// never was.
		if ref := q.Get(k); ref != "" {
			if _, problem := segs.variable(sv, ref); problem == noSuchSegment {
				return nil, survey.Errorf(survey.ENOTFOUND, "%s: %s", k, noSuchSegment)
			}
		}
	}
	row, col, _, errs := readCrosstab(q, sv, segs)
	if q.Get("row") == "" && q.Get("col") == "" {
		// Both are needed here.
		errs["row"], errs["col"] = "Choose the variable of the rows.", "Choose the variable of the columns."
	}
	if len(errs) > 0 {
		msg := "The cross-tabulation has problems:"
		for _, k := range []string{"row", "col"} {
			if m, ok := errs[k]; ok {
				msg += " " + k + ": " + m
			}
		}
		return nil, &survey.Error{Code: survey.EINVALID, Message: msg, Fields: errs}
	}
	t, _, _, err := s.crossTable(ctx, sv, row, col, f)
	return t, err
}

// writeCrossCSV writes table t: for each of its figures, a title line,
// the head (the rows' variable, then the columns' categories and
// "Total"), a line per row and the totals; then the test.
func writeCrossCSV(cw *csv.Writer, t *survey.CrossTable) {
	safe := func(cells []string) []string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = csvCell(c)
		}
		return out
	}
	for k, show := range crossShows {
		v := newCrosstabView(t, show.Value)
		if k > 0 {
			_ = cw.Write([]string{})
		}
		_ = cw.Write(safe([]string{show.Label, "Columns: " + t.Col.Label}))
		_ = cw.Write(safe(append(append([]string{t.Row.Label}, v.Head...), "Total")))
		for _, r := range append(v.Body, v.Foot) {
			_ = cw.Write(safe(append(append([]string{r.Label}, r.Cells...), r.Total)))
		}
	}
	_ = cw.Write([]string{})
	if !t.Test.Valid {
		_ = cw.Write([]string{"Chi-square test of independence", "needs two rows and two columns with answers"})
		return
	}
	_ = cw.Write([]string{"Chi-square", strconv.FormatFloat(t.Test.Statistic, 'f', 6, 64)})
	_ = cw.Write([]string{"Degrees of freedom", strconv.Itoa(t.Test.DF)})
	_ = cw.Write([]string{"p-value", strconv.FormatFloat(t.Test.P, 'g', 6, 64)})
	_ = cw.Write([]string{"Cells expecting fewer than 5 answers", strconv.Itoa(t.Test.Low), "of", strconv.Itoa(t.Test.Cells)})
	if t.Row.Multiple || t.Col.Multiple {
		_ = cw.Write([]string{"Note", "An answer may fall into several categories: the test counts the choices, not the answers."})
	}
}
