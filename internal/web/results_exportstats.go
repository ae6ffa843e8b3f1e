package web

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/surveys-dev/surveys/internal/codebook"
	"github.com/surveys-dev/surveys/internal/survey"
)

// statsFormats are the exports for statistics packages: the syntax each
// zips beside the data file, by its name's extension, and how it is
// written (package codebook).
var statsFormats = map[string]struct {
	ext   string
	write func(*codebook.Book, io.Writer, time.Time) error
}{
	"spss": {".sps", (*codebook.Book).SPSS},
	"r":    {".R", (*codebook.Book).R},
}

// exportStats writes the answers filter picks as a zip for a statistics
// package: the data file (<tenant>-<slug>.csv: one row per answer, a
// code for each choice) and beside it the SPSS syntax (.sps) or the R
// script (.R) that reads it, with the questions as variable labels and
// the choices as value labels or factors. The data file is streamed into
// the zip as the segments are read, a batch at a time, as the CSV export
// is; the syntax comes after it, as it needs the widths of the data.
func (s *Server) exportStats(w http.ResponseWriter, r *http.Request, sv *survey.Survey, filter survey.AnswerFilter, format string) error {
	f := statsFormats[format]
	now := time.Now()
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(now.Add(exportWindow))
	flusher, _ := w.(http.Flusher)
	base := sv.Tenant + "-" + sv.Slug
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.zip"`, base, format))
	out := bufio.NewWriterSize(w, 64<<10)
	zw := zip.NewWriter(out)
	data, err := zw.CreateHeader(&zip.FileHeader{Name: base + ".csv", Method: zip.Deflate, Modified: now})
	if err != nil {
		return err
	}
	// Text cells get the CSV export's guard against formulas: the data
	// file is a CSV a spreadsheet may open.
	book := codebook.New(sv, base+".csv", data, csvCell)
	err = book.Header()
	n := 0
	if err == nil {
		err = s.reader.Scan(r.Context(), sv.Tenant, sv.Slug, 0, func(_ int, a *survey.SurveyAnswer) error {
			if filter.Match(a) {
				if err := book.Write(a); err != nil {
					return err
				}
			}
			// Every 500 answers read (written or not), a batch.
			if n++; n%500 == 0 {
				if err := book.Flush(); err != nil {
					return err
				}
				_ = out.Flush()
				if flusher != nil {
					flusher.Flush()
				}
				_ = rc.SetWriteDeadline(time.Now().Add(exportWindow))
			}
			return nil
		})
	}
	if err == nil {
		err = book.Flush()
	}
	if err == nil {
		var syntax io.Writer
		if syntax, err = zw.CreateHeader(&zip.FileHeader{Name: base + f.ext, Method: zip.Deflate, Modified: now}); err == nil {
			err = f.write(book, syntax, now)
		}
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		// Headers are sent: all that is left is to stop and log.
		s.log.Error("export failed part-way", "tenant", sv.Tenant, "slug", sv.Slug, "format", format, "err", err)
	}
	return nil
}
