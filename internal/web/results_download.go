package web

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// fileLink is a file of an answer as the answer page links it.
type fileLink struct {
	survey.UploadedFile
	URL, Size string
}

// answerFiles are the files of answer a to question q, linked for
// download; none for a question not answered with files.
func answerFiles(tenant string, a *survey.SurveyAnswer, q survey.Question) []fileLink {
	if a == nil || !survey.TakesFiles(q) {
		return nil
	}
	qa, _ := a.Answer(q.ID)
	var out []fileLink
	for i, f := range survey.DecodeFiles(qa.Answer) {
		out = append(out, fileLink{UploadedFile: f, Size: fileSize(f.Size),
			URL: fileURL(tenant, a, q, i)})
	}
	return out
}

// downloadFile sends a file of an answer to a member who may read the
// answers: as a download, never shown from this site (attachment, its
// type unnamed and not to be sniffed, a sandbox should a browser render
// it anyway). The file must be one the answer names, under its own ID.
func (s *Server) downloadFile(w http.ResponseWriter, r *http.Request) error {
	if s.uploads == nil || s.remover == nil {
		return notFound("File not found.")
	}
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	a, err := s.remover.Get(r.Context(), tenant, slug, chi.URLParam(r, "answer"))
	if err != nil {
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return notFound("No such answer: it may have been deleted.")
		}
		return err
	}
	qa, ok := a.Answer(chi.URLParam(r, "question"))
	n, err := strconv.Atoi(chi.URLParam(r, "n"))
	if !ok || qa.Type != survey.FileUpload || err != nil {
		return notFound("File not found.")
	}
	files := survey.DecodeFiles(qa.Answer)
	if n < 0 || n >= len(files) || !strings.HasPrefix(files[n].Key, a.ID+"/") {
		return notFound("File not found.")
	}
	f := files[n]
	rc, err := s.uploads.Open(r.Context(), tenant, slug, f)
	if err != nil {
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return notFound("File not found.")
		}
		return err
	}
	defer rc.Close()
	s.audit(r, survey.AuditExport, slug, "file "+f.Name+" of answer "+a.ID)
	transferTime(w, f.Size)
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", contentDisposition(f.Name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, rc); err != nil {
		// Headers are sent: the connection ends short, which the browser
		// reports as a failed download.
		s.log.Warn("download a file", "tenant", tenant, "survey", slug, "answer", a.ID, "err", err)
	}
	return nil
}

// contentDisposition is "attachment" with the file's name, in ASCII and,
// when it has other characters, in UTF-8 (RFC 6266).
func contentDisposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	v := mime.FormatMediaType("attachment", map[string]string{"filename": name})
	if v == "" || ascii == name {
		return `attachment; filename="` + ascii + `"`
	}
	// FormatMediaType wrote filename*=utf-8''…; an ASCII name first
	// for clients that read only filename.
	return `attachment; filename="` + ascii + `"; ` + strings.TrimPrefix(v, "attachment; ")
}

// filesZip sends every file of a survey's answers (those the filter
// picks) as one zip, streamed: each file read part by part into the
// archive as it is written, stored as it is (files are most often
// compressed already), under "<answer ID>/q<question number>-<n>-<name>".
// A file whose answer names it but storage lost is left out, and logged.
func (s *Server) filesZip(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	if s.uploads == nil || !sv.HasUploads() {
		return notFound("This survey takes no files.")
	}
	filter, err := filterOf(r, sv)
	if err != nil {
		return err
	}
	s.auditExport(r, slug, "files zip", nil)
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", `attachment; filename="`+tenant+"-"+slug+`-files.zip"`)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
	out := bufio.NewWriterSize(w, 64<<10)
	zw := zip.NewWriter(out)
	err = s.reader.Scan(r.Context(), tenant, slug, 0, func(_ int, a *survey.SurveyAnswer) error {
		if !filter.Match(a) {
			return nil
		}
		for i, q := range sv.Questions {
			qa, ok := a.Answer(q.ID)
			if !ok || !survey.TakesFiles(q) {
				continue
			}
			for n, f := range survey.DecodeFiles(qa.Answer) {
				if !strings.HasPrefix(f.Key, a.ID+"/") {
					continue
				}
				if err := s.zipFile(w, zw, tenant, slug, fmt.Sprintf("%s/q%d-%d-%s", a.ID, i+1, n+1, f.Name), a, f, r); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		// Whatever was sent is a zip cut short, which the client reports.
		s.log.Warn("zip of a survey's files", "tenant", tenant, "survey", slug, "err", err)
	}
	return nil
}

// zipFile adds file f of answer a to zw under name.
func (s *Server) zipFile(w http.ResponseWriter, zw *zip.Writer, tenant, slug, name string, a *survey.SurveyAnswer, f survey.UploadedFile, r *http.Request) error {
	rc, err := s.uploads.Open(r.Context(), tenant, slug, f)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		s.log.Warn("zip: a file named by its answer is missing", "tenant", tenant, "survey", slug, "answer", a.ID, "key", f.Key)
		return nil
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	transferTime(w, f.Size)
	zf, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: a.CreatedOn})
	if err != nil {
		return err
	}
	_, err = io.Copy(zf, rc)
	return err
}
