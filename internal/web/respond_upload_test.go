package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// multipartForm is a page's form as a browser sends it with files: the
// fields in order (the token first), then the files.
type multipartForm struct {
	fields [][2]string
	files  []formFile
}

type formFile struct {
	field, name string
	data        io.Reader
}

// body encodes the form, returning its content type.
func (m multipartForm) body(t testing.TB) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, f := range m.fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range m.files {
		part, err := w.CreateFormFile(f.field, f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(part, f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &b, w.FormDataContentType()
}

func (a *testApp) postFiles(t testing.TB, path string, m multipartForm) (int, http.Header, string) {
	t.Helper()
	body, ct := m.body(t)
	return a.send(t, "POST", path, body, map[string]string{"Content-Type": ct})
}

// pdf is a small PDF file's content.
func pdf(n int) []byte {
	return append([]byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), bytes.Repeat([]byte("x"), n)...)
}

// uploadSurvey is a published survey of adatum with a file upload
// question (PDF or text, at most two files of at most 1 MB) and a
// required short text.
func uploadSurvey(t testing.TB, app *testApp) *survey.Survey {
	t.Helper()
	sv := &survey.Survey{Tenant: "adatum", Title: "Applications", Questions: []survey.Question{
		{Text: "Your CV", Type: survey.FileUpload, PossibleAnswers: []string{"PDF", "Text and CSV"}, Max: "2", Scale: 1},
		{Text: "Your name", Type: survey.ShortText},
	}}
	if err := app.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	if _, err := app.surveys.SetState(context.Background(), "adatum", sv.Slug, survey.Published); err != nil {
		t.Fatal(err)
	}
	return sv
}

// uploadParts lists the part blobs of a survey's files.
func uploadParts(t testing.TB, st storage.Storage, sv *survey.Survey) []string {
	t.Helper()
	page, err := st.ListBlobs(context.Background(), store.UploadsContainer(sv.Tenant, sv.Slug), storage.ListOptions{})
	if err != nil && !errorsIsNotFound(err) {
		t.Fatal(err)
	}
	var names []string
	for _, it := range page.Items {
		names = append(names, it.Name)
	}
	return names
}

func errorsIsNotFound(err error) bool {
	return err != nil && strings.Contains(err.Error(), "not found")
}

// TestUpload answers a survey with a file: the page is a multipart form
// that works without JavaScript; a file sent with a problem elsewhere on
// the page is kept (the state carries it) and not sent again; the answer
// names the file, which a member downloads from the answer page as an
// attachment, never inline; deleting the answer deletes the file.
func TestUpload(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := uploadSurvey(t, app)
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions

	code, _, page := app.do(t, "GET", path, nil, nil)
	if code != 200 || !strings.Contains(page, `enctype="multipart/form-data"`) || !strings.Contains(page, `type="file"`) || !strings.Contains(page, `name="q-`+q[0].ID+`-file"`) {
		t.Fatalf("survey page = %d, without a multipart form and a file input:\n%s", code, page)
	}
	token := tokenOf(t, page)
	id := answerID(token)
	content := pdf(1500)

	// The name is missing: the page comes back, the file received.
	code, _, body := app.postFiles(t, path, multipartForm{
		fields: [][2]string{{"token", token}, {"q-" + q[1].ID, ""}},
		files:  []formFile{{"q-" + q[0].ID + "-file", `C:\Users\ana\cv.pdf`, bytes.NewReader(content)}},
	})
	m := stateRE.FindStringSubmatch(body)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Received:") || !strings.Contains(body, "cv.pdf") || m == nil {
		t.Fatalf("page with a problem = %d, without the file received and a state:\n%s", code, body)
	}
	if parts := uploadParts(t, app.st, sv); len(parts) != 1 || !strings.HasPrefix(parts[0], id+"/") {
		t.Fatalf("stored parts %v, want one under the answer's ID %s", parts, id)
	}
	// Sent again with the name and no file: the file kept is the answer's.
	code, _, body = app.postFiles(t, path, multipartForm{fields: [][2]string{{"token", token}, {"state", html.UnescapeString(m[1])}, {"q-" + q[1].ID, "Ana"}}})
	if code != http.StatusSeeOther {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Fatalf("%d answers stored, want 1", n)
	}
	a, err := app.answers.Get(ctx, "adatum", sv.Slug, id)
	if err != nil {
		t.Fatal(err)
	}
	qa, _ := a.Answer(q[0].ID)
	files := survey.DecodeFiles(qa.Answer)
	if len(files) != 1 || files[0].Name != "cv.pdf" || files[0].Size != int64(len(content)) || files[0].Type != "application/pdf" || !strings.HasPrefix(files[0].Key, id+"/") {
		t.Fatalf("stored files %+v", files)
	}

	// A member downloads it from the answer page.
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	link := "/adatum/surveys/" + sv.Slug + "/answers/" + id + "/files/" + q[0].ID + "/0"
	if code, _, body := app.get(t, "/adatum/surveys/"+sv.Slug+"/answers?i=0", c); code != 200 || !strings.Contains(body, `href="`+link+`" download>cv.pdf</a>`) {
		t.Fatalf("answer page = %d, without a link to the file\n%s", code, body)
	}
	code, h, got := app.get(t, link, c)
	if code != 200 || got != string(content) {
		t.Fatalf("download = %d, %d bytes, want %d", code, len(got), len(content))
	}
	for k, want := range map[string]string{
		"Content-Type":            "application/octet-stream",
		"Content-Disposition":     `attachment; filename="cv.pdf"`,
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": "sandbox; default-src 'none'",
	} {
		if h.Get(k) != want {
			t.Errorf("download's %s = %q, want %q", k, h.Get(k), want)
		}
	}
	if code, _, _ := app.get(t, link, nil); code == 200 {
		t.Error("a download without signing in succeeded")
	}
	// Another tenant's admin: refused, whatever the link.
	if _, err := testUsers(app.st).Add(ctx, "fabrikam", "fred@fabrikam.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, fred := app.signIn(t, "fabrikam", "fred@fabrikam.example", "correct horse battery")
	for _, l := range []string{link, strings.Replace(link, "/adatum/", "/fabrikam/", 1)} {
		if code, _, body := app.get(t, l, fred); code == 200 || strings.Contains(body, "%PDF") {
			t.Errorf("Fabrikam's member downloads %s: %d", l, code)
		}
	}
	if code, _, _ := app.get(t, strings.TrimSuffix(link, "0")+"1", c); code != 404 {
		t.Errorf("a file the answer does not have = %d, want 404", code)
	}
	// Every file of the survey, in one zip.
	code, h, z := app.get(t, "/adatum/surveys/"+sv.Slug+"/files.zip", c)
	zr, err := zip.NewReader(strings.NewReader(z), int64(len(z)))
	if code != 200 || err != nil || h.Get("Content-Type") != "application/zip" || len(zr.File) != 1 || zr.File[0].Name != id+"/q1-1-cv.pdf" {
		t.Fatalf("files.zip = %d, %v, %q", code, err, h.Get("Content-Type"))
	}
	if rc, err := zr.File[0].Open(); err != nil {
		t.Fatal(err)
	} else if got, err := io.ReadAll(rc); err != nil || !bytes.Equal(got, content) {
		t.Errorf("the zip's file: %d bytes, %v", len(got), err)
	}
	// Never on the public pages.
	if _, _, body := app.do(t, "GET", path+"/results", nil, nil); strings.Contains(body, "cv.pdf") {
		t.Error("the public results page names the file")
	}

	// Deleting the answer deletes its file.
	if code, _, _ := app.do(t, "POST", "/adatum/surveys/"+sv.Slug+"/answers/"+id+"/delete", map[string][]string{"confirm": {"1"}}, map[string]string{"Cookie": "surveys_session=" + c.Value}); code != http.StatusSeeOther {
		t.Fatalf("delete = %d", code)
	}
	if parts := uploadParts(t, app.st, sv); len(parts) != 0 {
		t.Errorf("parts left after the answer's deletion: %v", parts)
	}
	if code, _, _ := app.get(t, link, c); code != 404 {
		t.Errorf("download of a deleted answer's file = %d, want 404", code)
	}
}

// TestUploadRefused: a file of a kind the question does not take, one too
// large, and a description of a file written by the respondent are
// refused beside the question (422), and nothing of them is kept.
func TestUploadRefused(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := uploadSurvey(t, app)
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	for _, c := range []struct {
		name string
		form func(token string) multipartForm
		want string
	}{
		{"html", func(token string) multipartForm {
			return multipartForm{fields: [][2]string{{"token", token}, {"q-" + q[1].ID, "Ana"}},
				files: []formFile{{"q-" + q[0].ID + "-file", "cv.pdf", strings.NewReader("<!DOCTYPE html><html><script>alert(1)</script></html>")}}}
		}, "Please send a file of one of these kinds: PDF, Text and CSV"},
		{"too large", func(token string) multipartForm {
			return multipartForm{fields: [][2]string{{"token", token}, {"q-" + q[1].ID, "Ana"}},
				files: []formFile{{"q-" + q[0].ID + "-file", "big.pdf", bytes.NewReader(pdf(1 << 20))}}}
		}, "Please send files of at most 1 MB"},
		{"forged", func(token string) multipartForm {
			forged := survey.EncodeFiles([]survey.UploadedFile{{Name: "x.pdf", Size: 1, Type: "application/pdf", Key: answerID(token) + "/0123456789abcdef"}})
			return multipartForm{fields: [][2]string{{"token", token}, {"q-" + q[0].ID, forged}, {"q-" + q[1].ID, "Ana"}}}
		}, "Please choose a file to send."},
	} {
		code, _, body := app.postFiles(t, path, c.form(app.token(t, path)))
		if code != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(body), c.want) {
			t.Errorf("%s: %d, want 422 with %q\n%s", c.name, code, c.want, body)
		}
	}
	if parts := uploadParts(t, app.st, sv); len(parts) != 0 {
		t.Errorf("parts kept of refused files: %v", parts)
	}
	if n := app.storedOf(t, sv.Slug); n != 0 {
		t.Errorf("%d answers stored", n)
	}
}

// TestUploadEarlierPage: a file sent on the first page of two is stored
// at that page's POST, carried sealed to the last, and claimed by the
// answer; Back and Next keep it without sending it again.
func TestUploadEarlierPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Two pages of files",
		Sections: []survey.Section{{ID: "files", Title: "Your files"}, {ID: "last", Title: "Last words"}},
		Questions: []survey.Question{
			{Text: "Your CV", Type: survey.FileUpload, Section: "files", PossibleAnswers: []string{"PDF"}},
			{Text: "Rate us", Type: survey.FiveStars, Section: "last"},
		}})
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	token := app.token(t, path)
	code, _, body := app.postFiles(t, path, multipartForm{fields: [][2]string{{"token", token}, {"action", "next"}},
		files: []formFile{{"q-" + q[0].ID + "-file", "cv.pdf", bytes.NewReader(pdf(100))}}})
	_, state := formOf(t, body)
	if code != 200 || state == "" || !strings.Contains(body, "Rate us") {
		t.Fatalf("next page = %d\n%s", code, body)
	}
	// Back to the first page: the file is shown as received.
	code, _, body = app.postFiles(t, path, multipartForm{fields: [][2]string{{"token", token}, {"state", state}, {"action", "back"}}})
	_, state = formOf(t, body)
	if code != 200 || !strings.Contains(body, "Received:") || !strings.Contains(body, "cv.pdf") {
		t.Fatalf("back = %d, without the file received\n%s", code, body)
	}
	// Next without choosing it again, then submit.
	code, _, body = app.postFiles(t, path, multipartForm{fields: [][2]string{{"token", token}, {"state", state}, {"action", "next"}}})
	_, state = formOf(t, body)
	if code != 200 {
		t.Fatalf("next again = %d\n%s", code, body)
	}
	if code, _, body = app.postFiles(t, path, multipartForm{fields: [][2]string{{"token", token}, {"state", state}, {"q-" + q[1].ID, "5"}}}); code != http.StatusSeeOther {
		t.Fatalf("submit = %d\n%s", code, body)
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Fatalf("%d answers stored", n)
	}
	a, err := app.answers.Get(context.Background(), "adatum", sv.Slug, answerID(token))
	if err != nil {
		t.Fatal(err)
	}
	if keys := store.Claimed(a); len(keys) != 1 || len(uploadParts(t, app.st, sv)) != 1 || !strings.HasPrefix(uploadParts(t, app.st, sv)[0], keys[0]+"/") {
		t.Errorf("the answer claims %v; stored %v", keys, uploadParts(t, app.st, sv))
	}
}

// TestUploadStorageFull: a tenant whose files fill its plan's storage
// gets a clear message beside the question, and nothing is stored.
func TestUploadStorageFull(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := uploadSurvey(t, app)
	us := store.NewUploadStore(app.st)
	quota := int64(survey.Premium.Limits().UploadStorageMB) << 20
	if err := us.Reserve(context.Background(), "adatum", quota-100, quota); err != nil {
		t.Fatal(err)
	}
	path := "/survey/adatum/" + sv.Slug
	code, _, body := app.postFiles(t, path, multipartForm{fields: [][2]string{{"token", app.token(t, path)}, {"q-" + sv.Questions[1].ID, "Ana"}},
		files: []formFile{{"q-" + sv.Questions[0].ID + "-file", "cv.pdf", bytes.NewReader(pdf(10))}}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(body), "storage is full") {
		t.Fatalf("upload to a full storage = %d\n%s", code, body)
	}
	if parts := uploadParts(t, app.st, sv); len(parts) != 0 {
		t.Errorf("stored %v", parts)
	}
	if used, _ := us.Usage(context.Background(), "adatum"); used != quota-100 {
		t.Errorf("usage %d after a refusal, want %d", used, quota-100)
	}
	// The settings page says how full it is.
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	if code, _, body := app.get(t, "/adatum/settings", c); code != 200 || !strings.Contains(body, "100.0 GB of 100.0 GB taken by the files respondents sent.") {
		t.Errorf("settings = %d, without the storage taken", code)
	}
}

// TestUploadSurveyDeleted: deleting a survey for good deletes its files
// and gives their bytes back.
func TestUploadSurveyDeleted(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := uploadSurvey(t, app)
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	code, _, _ := app.postFiles(t, path, multipartForm{fields: [][2]string{{"token", app.token(t, path)}, {"q-" + q[1].ID, "Ana"}},
		files: []formFile{{"q-" + q[0].ID + "-file", "cv.pdf", bytes.NewReader(pdf(3000))}}})
	if code != http.StatusSeeOther {
		t.Fatalf("answer = %d", code)
	}
	app.storedOf(t, sv.Slug)
	us := store.NewUploadStore(app.st)
	if used, _ := us.Usage(context.Background(), "adatum"); used == 0 || len(uploadParts(t, app.st, sv)) != 1 {
		t.Fatalf("usage %d, parts %v before the deletion", used, uploadParts(t, app.st, sv))
	}
	if err := app.surveys.Delete(context.Background(), "adatum", sv.Slug); err != nil {
		t.Fatal(err)
	}
	if parts := uploadParts(t, app.st, sv); len(parts) != 0 {
		t.Errorf("parts left after the survey's deletion: %v", parts)
	}
	if used, _ := us.Usage(context.Background(), "adatum"); used != 0 {
		t.Errorf("usage %d after the survey's deletion, want 0", used)
	}
}

// TestUploadPreview: a preview of a survey with a required file question
// checks the file sent as an answer would be (its kind), stores nothing,
// and goes on to its last page with one.
func TestUploadPreview(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := uploadSurvey(t, app)
	link := app.previewLink(t, sv.Slug)
	q := sv.Questions
	send := func(name string, content []byte) (int, string) {
		code, _, page := app.do(t, "GET", link, nil, nil)
		if code != 200 {
			t.Fatalf("GET %s = %d", link, code)
		}
		code, _, body := app.postFiles(t, link, multipartForm{fields: [][2]string{{"token", tokenOf(t, page)}, {"q-" + q[1].ID, "Ana"}},
			files: []formFile{{"q-" + q[0].ID + "-file", name, bytes.NewReader(content)}}})
		return code, html.UnescapeString(body)
	}
	if code, body := send("cv.pdf", pdf(100)); code != 200 || !strings.Contains(body, "Nothing entered here is stored") {
		t.Errorf("preview with a file = %d\n%s", code, body)
	}
	if code, body := send("photo.png", []byte("\x89PNG\r\n\x1a\n0000")); code != http.StatusUnprocessableEntity || !strings.Contains(body, "Please send a file of one of these kinds") {
		t.Errorf("preview with a file of a kind not taken = %d\n%s", code, body)
	}
	if parts := uploadParts(t, app.st, sv); len(parts) != 0 {
		t.Errorf("a preview stored %v", parts)
	}
}
