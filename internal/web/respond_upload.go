package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gabriel-vasile/mimetype"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Uploads keeps the files respondents send (store.UploadStore).
type Uploads interface {
	Pending(ctx context.Context, tenant, slug, id string) error
	Put(ctx context.Context, tenant, slug, key string, r io.Reader, contentType string, limit int64) (int64, error)
	Open(ctx context.Context, tenant, slug string, f survey.UploadedFile) (io.ReadCloser, error)
	Reserve(ctx context.Context, tenant string, n, quota int64) error
	Release(ctx context.Context, tenant string, n int64) error
	// Usage is the bytes of the files a tenant keeps.
	Usage(ctx context.Context, tenant string) (int64, error)
}

// A survey with a file upload question sends its pages as
// multipart/form-data (survey.html), which works without JavaScript. The
// body is read as a stream, part by part, never whole: the fields within
// the bounds of a page (maxAnswerBody), and each file, as it comes, to
// blob storage (store.UploadStore: parts of 1 MiB, after a pending marker
// that the sweeper goes by), its type sniffed from its first sniffLen
// bytes (mimetype), its size bounded by the question and the plan, and
// the tenant's storage taken before (a conditional write) and given back
// for what was not used. So memory is a part's buffer per upload, whatever
// the file's size.
//
// A file is named by the form's token, which is the answer's ID: the token
// field comes first in the form, before any file. The question's value
// becomes the files' descriptions (survey.UploadedFile), which only the
// server writes: a respondent's own values for it are dropped, and the
// page state (sealed) carries them from page to page, and back to a page
// shown again with a problem, so that a file is sent once. At the final
// submit the answer keeps only files of its own ID (a form whose token
// was renewed sends them again), and names them: the sweeper deletes the
// rest. Files on an earlier page of a multi-page survey are stored at that
// page's POST the same way.

// maxFilesState bounds the state of a one-page survey, which carries
// only the files received: a description of about 1 KB per file, sealed.
const maxFilesState = survey.MaxQuestions * survey.MaxUploadFiles * 2048

// sniffLen is how much of a file's start its type is read from
// (mimetype's own read limit).
const sniffLen = 3072

// uploadBodyLimit bounds the files of a page's body: each upload
// question's files at their largest, with room for their parts' headers.
func uploadBodyLimit(sv *survey.Survey, p survey.Plan) int64 {
	var n int64
	for _, q := range sv.Questions {
		if survey.TakesFiles(q) {
			_, files, size := survey.UploadLimits(q, p)
			n += int64(files) * (size + 4096)
		}
	}
	return n
}

// uploadRun is the files of one request.
type uploadRun struct {
	s        *Server
	ctx      context.Context
	t        *survey.Tenant
	sv       *survey.Survey
	store    bool // false: files are read and dropped (previews, probes)
	values   url.Values
	pending  bool
	files    map[string][]survey.UploadedFile
	problems map[string]survey.Msg
}

// fileQuestion is the upload question a file field (q-<ID>-file) is of.
func fileQuestion(sv *survey.Survey, name string) (survey.Question, bool) {
	rest, ok := strings.CutPrefix(name, "q-")
	if !ok {
		return survey.Question{}, false
	}
	id, ok := strings.CutSuffix(rest, "-file")
	if !ok {
		return survey.Question{}, false
	}
	q, ok := sv.Question(id)
	return q, ok && survey.TakesFiles(q)
}

// readPageForm reads the form of a page of sv's answers, within its
// bounds, into r.PostForm: url-encoded, or multipart with its files
// stored (store) or dropped. It returns the problems of files refused, by
// question ID.
func (s *Server) readPageForm(w http.ResponseWriter, r *http.Request, t *survey.Tenant, sv *survey.Survey, store bool) (map[string]survey.Msg, error) {
	limit := int64(maxAnswerBody)
	switch {
	case len(sv.Sections) > 1 || len(sv.HiddenFields) > 0:
		// The other pages' answers (or the hidden fields' values) come
		// along, sealed.
		limit += maxSealedState
	case sv.HasUploads():
		// The files received, sealed.
		limit += maxFilesState
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" || !sv.HasUploads() {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		// A page's fields are read from r.PostForm. With r.Form set,
		// ParseForm parses the body into PostForm alone, without copying
		// it into a Form merged with the address's query; Form is then
		// the body's fields, as the multipart path below makes it.
		r.Form = url.Values{}
		if err := r.ParseForm(); err != nil {
			return nil, formError(err)
		}
		r.Form = r.PostForm
		dropFileValues(sv, r.PostForm)
		return nil, nil
	}
	files := uploadBodyLimit(sv, t.Plan)
	r.Body = http.MaxBytesReader(w, r.Body, limit+files)
	transferTime(w, limit+files)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &survey.Error{Code: survey.EINVALID, Message: formUnreadable}
	}
	u := &uploadRun{s: s, ctx: r.Context(), t: t, sv: sv, store: store && s.uploads != nil, values: url.Values{},
		files: map[string][]survey.UploadedFile{}, problems: map[string]survey.Msg{}}
	budget := limit
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, formError(err)
		}
		name := part.FormName()
		if q, ok := fileQuestion(sv, name); ok {
			body := &bodyReader{r: part}
			if err = u.file(q, part.FileName(), body); err != nil && body.err == nil {
				return nil, err // storage's
			}
		} else if part.FileName() == "" {
			var b []byte
			b, err = io.ReadAll(io.LimitReader(part, budget+1))
			if budget -= int64(len(b)); budget < 0 {
				err = &http.MaxBytesError{Limit: limit}
			}
			u.values.Add(name, string(b))
		} else {
			_, err = io.Copy(io.Discard, part) // a file of no question
		}
		part.Close()
		if err != nil {
			// The files stored so far are the sweeper's (and their bytes
			// given back when it deletes them).
			return nil, formError(err)
		}
	}
	dropFileValues(sv, u.values)
	for id, files := range u.files {
		u.values.Set("q-"+id, survey.EncodeFiles(files))
	}
	r.PostForm, r.Form = u.values, u.values
	return u.problems, nil
}

// Time for files to come and go: the server's read and write timeouts
// (cmd/surveys: 30 s and 60 s) suit pages, not files. A request that
// may carry or return n bytes gets the time to move them at
// minTransferRate more, within maxTransferTime.
const (
	minTransferRate = 64 << 10 // bytes a second
	maxTransferTime = 30 * time.Minute
)

// transferTime gives the request of w the time to move n bytes.
func transferTime(w http.ResponseWriter, n int64) {
	d := min(time.Minute+time.Duration(n/minTransferRate)*time.Second, maxTransferTime)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(d)) // unsupported (a test's recorder): as it was
	_ = rc.SetWriteDeadline(time.Now().Add(d))
}

// formError is the error of a form that could not be read.
func formError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &survey.Error{Code: survey.EINVALID, Message: "Your answers are too long to send."}
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return &survey.Error{Code: survey.EINVALID, Message: formUnreadable}
}

// bodyReader records the error of reading a request's body, so that a
// failed upload is told apart: the client's (a form cut short or too
// long: 4xx) or storage's (5xx).
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

// dropFileValues removes the values a respondent sent for questions
// answered with files: only the server describes files.
func dropFileValues(sv *survey.Survey, v url.Values) {
	for _, q := range sv.Questions {
		if !survey.TakesFiles(q) {
			continue
		}
		field := "q-" + q.ID
		for name := range v {
			if rest, ok := strings.CutPrefix(name, field); ok && (rest == "" || rest[0] == '-') {
				delete(v, name)
			}
		}
	}
}

// file takes one file part of question q: stored under the form's
// token, or dropped with a problem for the respondent.
func (u *uploadRun) file(q survey.Question, filename string, part io.Reader) error {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(part, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	head = head[:n]
	drop := func(m survey.Msg) error {
		if !m.IsZero() && u.problems[q.ID].IsZero() {
			u.problems[q.ID] = m
		}
		_, err := io.Copy(io.Discard, part)
		return err
	}
	if n == 0 && filename == "" {
		return drop(survey.Msg{}) // no file chosen
	}
	if !u.store {
		return drop(survey.Msg{})
	}
	id, ok := u.s.signer.check(u.t.Key, u.sv.Slug, u.values.Get("token"))
	if !ok {
		// An expired form comes back whole (submitSurvey); the file is
		// chosen again with its fresh token.
		return drop(survey.Msg{})
	}
	name := survey.CleanFileName(filename)
	_, maxFiles, maxBytes := survey.UploadLimits(q, u.t.Plan)
	typ := mimetype.Detect(head).String()
	typ, _, _ = strings.Cut(typ, ";")
	switch {
	case n == 0:
		return drop(survey.M("%q is empty: please choose another file.", name))
	case len(u.files[q.ID]) >= maxFiles:
		return drop(survey.M("Please send at most %d files.", maxFiles))
	case !survey.UploadAccepts(q, typ):
		return drop(survey.M("Please send a file of one of these kinds: %s (%q is not).", strings.Join(survey.UploadFamilies(q), ", "), name))
	}
	quota := int64(u.t.Plan.Limits().UploadStorageMB) << 20
	if err := u.s.uploads.Reserve(u.ctx, u.t.Key, maxBytes, quota); err != nil {
		if errors.Is(err, store.ErrStorageFull) {
			return drop(survey.M("This survey cannot take more files now: its organisation's storage is full."))
		}
		return err
	}
	if !u.pending {
		if err := u.s.uploads.Pending(u.ctx, u.t.Key, u.sv.Slug, id); err != nil {
			u.release(maxBytes)
			return err
		}
		u.pending = true
	}
	key := store.NewUploadKey(id)
	size, err := u.s.uploads.Put(u.ctx, u.t.Key, u.sv.Slug, key, io.MultiReader(bytes.NewReader(head), part), typ, maxBytes)
	if err != nil {
		if !errors.Is(err, store.ErrPartsLeft) {
			// Nothing of it is stored; else the sweeper gives back what
			// it deletes, and the rest stays taken (the safe side).
			u.release(maxBytes)
		}
		if errors.Is(err, store.ErrFileTooLarge) {
			return drop(survey.M("Please send files of at most %d MB (%q is larger).", maxBytes>>20, name))
		}
		return err
	}
	u.release(maxBytes - size)
	u.files[q.ID] = append(u.files[q.ID], survey.UploadedFile{Name: name, Size: size, Type: typ, Key: key})
	return nil
}

// release gives back n bytes of the tenant's storage taken for a file.
func (u *uploadRun) release(n int64) {
	if err := u.s.uploads.Release(context.WithoutCancel(u.ctx), u.t.Key, n); err != nil {
		u.s.log.Warn("release upload storage", "tenant", u.t.Key, "err", err)
	}
}

// ownFiles keeps, of the values of questions answered with files, the
// files stored under answer id (a state sealed under a renewed token may
// name others, which the answer must not claim).
func ownFiles(sv *survey.Survey, values map[string]survey.Form, id string) {
	for _, q := range sv.Questions {
		f, ok := values[q.ID]
		if !ok || !survey.TakesFiles(q) {
			continue
		}
		var kept []survey.UploadedFile
		for _, fl := range survey.DecodeFiles(f.Get("")) {
			if strings.HasPrefix(fl.Key, id+"/") {
				kept = append(kept, fl)
			}
		}
		if stored := survey.EncodeFiles(kept); stored != "" {
			values[q.ID] = survey.Value(stored)
		} else {
			delete(values, q.ID)
		}
	}
}

// hasFiles reports whether values hold files received for sv.
func hasFiles(sv *survey.Survey, values map[string]survey.Form) bool {
	for id, f := range values {
		if q, ok := sv.Question(id); ok && survey.TakesFiles(q) && len(f) > 0 {
			return true
		}
	}
	return false
}

// readFormDroppingFiles reads a form of at most limit bytes of fields
// into r.PostForm, url-encoded or multipart: a preview's page, which
// stores nothing, its files (up to MaxUploadFiles of MaxUploadMB per
// question) read and dropped.
func readFormDroppingFiles(w http.ResponseWriter, r *http.Request, limit int64) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if err := r.ParseForm(); err != nil {
			return formError(err)
		}
		return nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit+survey.MaxUploadFiles*(survey.MaxUploadMB<<20))
	mr, err := r.MultipartReader()
	if err != nil {
		return &survey.Error{Code: survey.EINVALID, Message: formUnreadable}
	}
	values, budget := url.Values{}, limit
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return formError(err)
		}
		if part.FileName() != "" || strings.HasSuffix(part.FormName(), "-file") {
			err = previewFile(values, part)
		} else {
			var b []byte
			b, err = io.ReadAll(io.LimitReader(part, budget+1))
			if budget -= int64(len(b)); budget < 0 {
				err = &http.MaxBytesError{Limit: limit}
			}
			values.Add(part.FormName(), string(b))
		}
		part.Close()
		if err != nil {
			return formError(err)
		}
	}
	r.PostForm, r.Form = values, values
	return nil
}

// previewKey is the key of a preview's files, which are never stored.
const previewKey = "0000000000000000000-000000/0000000000000000"

// previewFile reads a file a preview's page sent and drops it, keeping
// its description as its question's value (q-<ID>), so that the preview
// checks it as an answer would be: its kind, its size.
func previewFile(values url.Values, part *multipart.Part) error {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(part, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	rest, err := io.Copy(io.Discard, part)
	if err != nil {
		return err
	}
	field, ok := strings.CutSuffix(part.FormName(), "-file")
	if n == 0 || !ok || !strings.HasPrefix(field, "q-") {
		return nil
	}
	files := survey.DecodeFiles(values.Get(field))
	typ, _, _ := strings.Cut(mimetype.Detect(head[:n]).String(), ";")
	key := previewKey[:len(previewKey)-4] + fmt.Sprintf("%04x", len(files))
	files = append(files, survey.UploadedFile{Name: survey.CleanFileName(part.FileName()), Size: int64(n) + rest, Type: typ, Key: key})
	values.Set(field, survey.EncodeFiles(files))
	return nil
}
