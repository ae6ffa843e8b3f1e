package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// crosstab is a cross-tabulation as the API gives it (CrossTab in
// openapi.json).
type crosstab struct {
	Row       crossVariable `json:"row"`
	Col       crossVariable `json:"col"`
	Counts    [][]int64     `json:"counts"`
	RowTotals []int64       `json:"rowTotals"`
	ColTotals []int64       `json:"colTotals"`
	Total     int64         `json:"total"`
	// Test is absent when the table has fewer than two rows or two
	// columns with answers.
	Test *chiSquare `json:"test,omitempty"`
}

type crossVariable struct {
	Ref        string   `json:"ref"`
	Label      string   `json:"label"`
	Multiple   bool     `json:"multiple"`
	Categories []string `json:"categories"`
}

type chiSquare struct {
	Statistic   float64 `json:"statistic"`
	DF          int     `json:"df"`
	P           float64 `json:"p"`
	LowExpected int     `json:"lowExpected"`
	Cells       int     `json:"cells"`
}

// getCrosstab counts the answers by two variables (?row=&col=, each a
// question's ID, hidden:<name>, var:<name> or answer:status), filtered as
// listAnswers' are, with the chi-square test of their independence.
func (s *server) getCrosstab(w http.ResponseWriter, r *http.Request) (int, any, error) {
	t, err := s.Crosstab(r.Context(), tenantOf(r), chi.URLParam(r, "slug"), r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	out := crosstab{Row: crossVariable{Ref: t.Row.Ref, Label: t.Row.Label, Multiple: t.Row.Multiple, Categories: nonNil(t.Rows)},
		Col:    crossVariable{Ref: t.Col.Ref, Label: t.Col.Label, Multiple: t.Col.Multiple, Categories: nonNil(t.Cols)},
		Counts: t.Counts, RowTotals: t.RowTotals, ColTotals: t.ColTotals, Total: t.Total}
	if out.Counts == nil {
		out.Counts = [][]int64{}
	}
	if out.RowTotals == nil {
		out.RowTotals = []int64{}
	}
	if out.ColTotals == nil {
		out.ColTotals = []int64{}
	}
	if t.Test.Valid {
		out.Test = &chiSquare{Statistic: t.Test.Statistic, DF: t.Test.DF, P: t.Test.P, LowExpected: t.Test.Low, Cells: t.Test.Cells}
	}
	return http.StatusOK, out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
