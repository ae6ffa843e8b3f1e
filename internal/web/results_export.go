package web

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// export streams every answer as CSV (one row per answer, the columns each
// question's kind gives, RFC 4180, UTF-8 with a BOM for spreadsheets),
// JSON (one object per line, each answer with its kind's typed value) or
// XLSX (the CSV's columns in typed cells: results_exportxlsx.go), or a zip for
// SPSS or R (a coded data file and the syntax that reads it:
// results_exportstats.go),
// in the order of the survey's answer list, reading one segment of answers
// at a time; with a filter (?from=&to=&q=&a=, survey.AnswerFilter), the
// answers it picks only.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	err := s.exportTo(w, r, chi.URLParam(r, "tenant"), chi.URLParam(r, "slug"), chi.URLParam(r, "format"))
	s.auditExport(r, chi.URLParam(r, "slug"), chi.URLParam(r, "format"), err)
	return err
}

func (s *Server) exportTo(w http.ResponseWriter, r *http.Request, tenant, slug, format string) error {
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	if _, stats := statsFormats[format]; format != "csv" && format != "json" && format != "xlsx" && !stats {
		return notFound("Export as csv, json, xlsx, spss or r.")
	}
	// The columns of every version: hidden questions and choices too, and
	// any question the summary counts that the survey no longer has.
	var counts *survey.SurveyAnswersSummary
	if stored, _, err := s.summaries.Get(r.Context(), tenant, slug); err == nil {
		counts = &stored.SurveyAnswersSummary
	} else if survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	sv = sv.Everything(counts).Numbered()
	filter, err := filterOf(r, sv)
	if err != nil {
		return err
	}
	if format == "xlsx" {
		return s.exportXLSX(w, r, sv, filter)
	}
	if _, stats := statsFormats[format]; stats {
		return s.exportStats(w, r, sv, filter, format)
	}
	flusher, _ := w.(http.Flusher)
	// The server's write timeout bounds a page, not an export of a large
	// survey: each batch written gives the export another exportWindow, so
	// only a client that stops reading for that long is cut off.
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(exportWindow))
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.%s"`, tenant, slug, format))
	// Written to the client a batch at a time, not a few KiB at a time.
	out := bufio.NewWriterSize(w, 64<<10)
	var cw *csv.Writer
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		_, _ = out.WriteString("\uFEFF")
		cw = csv.NewWriter(out)
		header := []string{"answer_id", "created_on"}
		for _, q := range sv.Questions {
			header = append(header, exportColumns(q)...)
		}
		for _, c := range sv.HiddenColumns() {
			header = append(header, csvCell(c))
		}
		for _, c := range sv.VarColumns() {
			header = append(header, csvCell(c))
		}
		if sv.SkipsQuotas() {
			header = append(header, survey.OverQuotaColumn)
		}
		if sv.KeepPartial > 0 {
			header = append(header, partialColumn)
		}
		_ = cw.Write(header)
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	enc := json.NewEncoder(out)
	rows := newCSVRows(sv)
	rows.files = s.fileCells
	n := 0
	err = s.reader.Scan(r.Context(), tenant, slug, 0, func(_ int, a *survey.SurveyAnswer) error {
		if filter.Match(a) {
			if cw != nil {
				if err := cw.Write(rows.row(a)); err != nil {
					return err
				}
			} else if err := enc.Encode(exportAnswer(sv, a)); err != nil {
				return err
			}
		}
		// Every 500 answers read (written or not), a batch.
		if n++; n%500 == 0 {
			if cw != nil {
				cw.Flush()
			}
			_ = out.Flush()
			if flusher != nil {
				flusher.Flush()
			}
			_ = rc.SetWriteDeadline(time.Now().Add(exportWindow))
		}
		return nil
	})
	if cw != nil {
		cw.Flush()
	}
	_ = out.Flush()
	if err != nil {
		// Headers are sent: all that is left is to stop and log.
		s.log.Error("export failed part-way", "tenant", tenant, "slug", slug, "err", err)
	}
	return nil
}

// exportColumns are the CSV columns of q, from its kind: the question's
// text, or "text [column]" for each of several.
func exportColumns(q survey.Question) []string {
	out := columnNames(q)
	for i, c := range out {
		out[i] = csvCell(c)
	}
	return out
}

// columnNames are the export columns of q, from its kind, as they are
// (not escaped for CSV).
func columnNames(q survey.Question) []string {
	cols := []string{""}
	if k, ok := survey.KindOf(q.Type); ok {
		cols = k.Columns(q)
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = q.Text
		if c != "" {
			out[i] += " [" + c + "]"
		}
	}
	return out
}

// csvRows makes the rows of a survey's CSV export, one answer at a time,
// into one slice it reuses; a question left unanswered (an optional one)
// gets the cells worked out once for the survey.
type csvRows struct {
	sv        *survey.Survey
	questions []survey.Question
	blank     [][]string // by question: the cells of no answer
	buf       []string
	// files are the cells of a question that takes files (Server.fileCells;
	// nil: the kind's own).
	files func(*survey.Survey, *survey.SurveyAnswer, survey.Question, survey.QuestionAnswer) [][]exportFile
}

func newCSVRows(sv *survey.Survey) *csvRows {
	r := &csvRows{sv: sv, questions: sv.Questions}
	for _, q := range sv.Questions {
		r.blank = append(r.blank, exportCells(q, survey.QuestionAnswer{}))
	}
	return r
}

// row is a's row; valid until the next call.
func (r *csvRows) row(a *survey.SurveyAnswer) []string {
	row := append(r.buf[:0], a.ID, a.CreatedOn.UTC().Format("2006-01-02T15:04:05Z"))
	for i, q := range r.questions {
		if qa, ok := a.Answer(q.ID); ok {
			if files := r.fileCells(a, q, qa); files != nil {
				for _, f := range files {
					row = append(row, csvFileCell(f))
				}
				continue
			}
			row = append(row, exportCells(q, qa)...)
		} else {
			row = append(row, r.blank[i]...)
		}
	}
	// The hidden fields' values, after the questions.
	for _, n := range r.sv.HiddenFields {
		row = append(row, csvCell(a.Hidden[n]))
	}
	// The score and variables, numbers, after them.
	row = append(row, r.sv.VarCells(a)...)
	if r.sv.SkipsQuotas() {
		row = append(row, csvCell(survey.OverQuotaCell(a)))
	}
	if r.sv.KeepPartial > 0 {
		row = append(row, partialCell(a))
	}
	r.buf = row
	return row
}

// fileCells are the cells of a's files of q with their links; nil for
// the kind's own.
func (r *csvRows) fileCells(a *survey.SurveyAnswer, q survey.Question, qa survey.QuestionAnswer) [][]exportFile {
	if r.files == nil || !survey.TakesFiles(q) {
		return nil
	}
	return r.files(r.sv, a, q, qa)
}

// exportCells are the CSV cells of the answer to q, from its kind.
func exportCells(q survey.Question, qa survey.QuestionAnswer) []string {
	cells := rawCells(q, qa)
	for i, c := range cells {
		cells[i] = csvCell(c)
	}
	return cells
}

// rawCells are the export cells of the answer to q, from its kind, as they
// are (not escaped for CSV).
func rawCells(q survey.Question, qa survey.QuestionAnswer) []string {
	if k, ok := survey.KindOf(q.Type); ok {
		return k.Cells(q, qa)
	}
	return []string{qa.Answer}
}

// cellTypes are the types of q's export columns, from its kind (text for
// a kind unknown).
func cellTypes(q survey.Question) []survey.CellType {
	if k, ok := survey.KindOf(q.Type); ok {
		return k.CellTypes(q)
	}
	return []survey.CellType{survey.CellText}
}

// csvCell is a text as a cell of a CSV export: one that begins with '=',
// '+', '-', '@', a tab or a carriage return, which a spreadsheet would take
// for a formula, gets a leading "'" so it shows as text (OWASP's rule for
// CSV injection), except a plain negative number ("-12.5"), which is no
// formula. Every other text is written as it is; JSON exports are never
// changed.
func csvCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 && !plainNegative(s) {
		return "'" + s
	}
	return s
}

// plainNegative reports whether s is "-" and a decimal number: digits, at
// most one point between digits.
func plainNegative(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	digits, point := 0, false
	for i, r := range s[1:] {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' && !point && i > 0 && i < len(s)-2:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// jsonAnswer is an answer as a line of the JSON export (and of the API,
// and the data of a response.created webhook): survey.ExportedAnswer.
type jsonAnswer = survey.ExportedAnswer

// exportAnswer is a as a line of the JSON export (survey.ExportAnswer).
func exportAnswer(sv *survey.Survey, a *survey.SurveyAnswer) jsonAnswer {
	return survey.ExportAnswer(sv, a)
}

// partialColumn is the last column of the exports of a survey that keeps
// partial answers: partialCell says "partial" or "complete".
const partialColumn = "status"

func partialCell(a *survey.SurveyAnswer) string {
	if a.Partial {
		return "partial"
	}
	return "complete"
}
