package web

import (
	"archive/zip"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/surveys-dev/surveys/internal/survey"
)

// xlsxType is the media type of an XLSX workbook.
const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// exportXLSX writes the answers filter picks as one sheet of an XLSX
// workbook: the CSV's columns, one row per answer, in typed cells (each
// column's type from its question's kind: survey.Kind.CellTypes). A number
// is a number cell, a day a date cell shown yyyy-mm-dd, the time of the
// answer a date cell shown yyyy-mm-dd hh:mm:ss (UTC), and every other cell
// an inline string cell: a text that begins with "=", "+", "-" or "@" is
// that text, never a formula (excelize writes a formula only when it is
// given one as such, and this never gives one).
//
// It holds one row at a time: excelize's stream writer keeps the sheet in
// memory up to 16 MiB and on a temporary file past that, and zips it into
// the response at the end, compressing as it goes. Nothing is sent before
// the last answer is read, so an error on the way is a proper error
// response.
func (s *Server) exportXLSX(w http.ResponseWriter, r *http.Request, sv *survey.Survey, filter survey.AnswerFilter) error {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(exportWindow))
	f := excelize.NewFile()
	defer func() { _ = f.Close() }() // removes the temporary file
	const sheet = "Answers"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return err
	}
	day, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd")})
	if err != nil {
		return err
	}
	moment, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd hh:mm:ss")})
	if err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	// The header row stays in view.
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := sw.SetColWidth(1, 1, 26); err != nil {
		return err
	}
	if err := sw.SetColWidth(2, 2, 20); err != nil {
		return err
	}
	header := []any{excelize.Cell{StyleID: bold, Value: "answer_id"}, excelize.Cell{StyleID: bold, Value: "created_on"}}
	var types [][]survey.CellType // by question
	for _, q := range sv.Questions {
		for _, c := range columnNames(q) {
			header = append(header, excelize.Cell{StyleID: bold, Value: c})
		}
		types = append(types, cellTypes(q))
	}
	for _, c := range sv.HiddenColumns() {
		header = append(header, excelize.Cell{StyleID: bold, Value: c})
	}
	for _, c := range sv.VarColumns() {
		header = append(header, excelize.Cell{StyleID: bold, Value: c})
	}
	if sv.SkipsQuotas() {
		header = append(header, excelize.Cell{StyleID: bold, Value: survey.OverQuotaColumn})
	}
	if sv.KeepPartial > 0 {
		header = append(header, excelize.Cell{StyleID: bold, Value: partialColumn})
	}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	row := make([]any, 0, len(header))
	n, rowNum := 0, 1
	err = s.reader.Scan(r.Context(), sv.Tenant, sv.Slug, 0, func(_ int, a *survey.SurveyAnswer) error {
		if n++; n%500 == 0 {
			// Nothing goes to the client until the end: the window is
			// for reading the answers.
			_ = rc.SetWriteDeadline(time.Now().Add(exportWindow))
		}
		if !filter.Match(a) {
			return nil
		}
		if rowNum++; rowNum > excelize.TotalRows {
			return survey.Errorf(survey.EINVALID, "A sheet holds at most %d answers: filter the answers, or export them as CSV.", excelize.TotalRows-1)
		}
		row = append(row[:0], a.ID, excelize.Cell{StyleID: moment, Value: a.CreatedOn.UTC().Truncate(time.Second)})
		for i, q := range sv.Questions {
			qa, ok := a.Answer(q.ID)
			if !ok {
				for range types[i] {
					row = append(row, nil)
				}
				continue
			}
			if files := s.fileCells(sv, a, q, qa); files != nil {
				for _, f := range files {
					row = append(row, xlsxFileCell(f))
				}
				continue
			}
			for j, c := range rawCells(q, qa) {
				t := survey.CellText
				if j < len(types[i]) {
					t = types[i][j]
				}
				switch v := survey.TypedCell(t, c).(type) {
				case time.Time:
					row = append(row, excelize.Cell{StyleID: day, Value: v})
				default:
					row = append(row, v)
				}
			}
		}
		// The hidden fields' values, after the questions: text.
		for _, name := range sv.HiddenFields {
			if v := a.Hidden[name]; v != "" {
				row = append(row, v)
			} else {
				row = append(row, nil)
			}
		}
		// The score and variables: numbers.
		for _, v := range sv.VarCells(a) {
			row = append(row, survey.TypedCell(survey.CellNumber, v))
		}
		if sv.SkipsQuotas() {
			if v := survey.OverQuotaCell(a); v != "" {
				row = append(row, v)
			} else {
				row = append(row, nil)
			}
		}
		if sv.KeepPartial > 0 {
			row = append(row, partialCell(a))
		}
		cell, err := excelize.CoordinatesToCellName(1, rowNum)
		if err != nil {
			return err
		}
		return sw.SetRow(cell, row)
	})
	if err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", xlsxType)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.xlsx"`, sv.Tenant, sv.Slug))
	// excelize zips the workbook into a buffer of the whole file before
	// it writes it out; its zip writer, given the response instead,
	// sends the workbook as it compresses it, so that no copy of the file
	// is held. (The buffer stays empty: it would hold zip64 fix-ups
	// only, for a part over 4 GiB.)
	out := &deadlineWriter{w: w, rc: rc}
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zip.NewWriter(out) })
	if _, err := f.WriteTo(io.Discard); err != nil {
		// Headers are sent: all that is left is to stop and log.
		s.log.Error("export failed part-way", "tenant", sv.Tenant, "slug", sv.Slug, "err", err)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// deadlineWriter gives the response another exportWindow every MiB
// written, so that only a client that stops reading is cut off.
type deadlineWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	written int
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if d.written += n; d.written >= 1<<20 {
		d.written = 0
		_ = d.rc.SetWriteDeadline(time.Now().Add(exportWindow))
	}
	return n, err
}
