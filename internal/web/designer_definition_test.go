package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDefinitionOutAndIn: a survey's definition downloads as JSON (its
// questions and settings of kinds; no answers, IDs or hidden questions)
// and imports into another tenant as a new draft, by file, by paste and
// through the API; a bad definition is a 422 that says what is wrong and
// makes nothing.
func TestDefinitionOutAndIn(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	users := testUsers(app.st)
	for _, a := range []struct{ tenant, email string }{{"adatum", "ana@adatum.example"}, {"fabrikam", "fred@fabrikam.example"}} {
		if _, err := users.Add(ctx, a.tenant, a.email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, fred := app.signIn(t, "fabrikam", "fred@fabrikam.example", "correct horse battery")
	// Adatum's survey has an answer, which must not travel.
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
		t.Fatal("answer refused")
	}
	app.stored(t)

	code, h, def := app.get(t, "/adatum/surveys/"+app.adatum.Slug+"/definition.json", ana)
	if code != 200 || !strings.Contains(h.Get("Content-Disposition"), app.adatum.Slug+".survey.json") {
		t.Fatalf("download = %d %q", code, h.Get("Content-Disposition"))
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(def), &d); err != nil || d["format"] != "surveys.definition/1" || d["title"] != app.adatum.Title {
		t.Fatalf("definition = %v, %v:\n%s", d, err, def)
	}
	// Its questions' IDs are q1, q2 … (for its rules), not the survey's.
	for _, q := range app.adatum.Questions {
		if strings.Contains(def, `"`+q.ID+`"`) {
			t.Fatalf("the definition carries the question ID %s:\n%s", q.ID, def)
		}
	}
	// The tenant's key is in no text but its pictures' image names (their
	// public addresses, /logos/<name>).
	pictureNames := regexp.MustCompile(`"image": "adatum-[0-9a-f]{12}\.png"`)
	if !strings.Contains(def, `"id": "q1"`) || strings.Contains(def, "Faster pages, please") || strings.Contains(pictureNames.ReplaceAllString(def, ""), "adatum") {
		t.Fatalf("the definition carries IDs, answers or the tenant:\n%s", def)
	}
	if code, _, _ := app.get(t, "/adatum/surveys/"+app.adatum.Slug+"/definition.json", fred); code != 403 {
		t.Fatalf("Fabrikam downloads Adatum's definition = %d", code)
	}

	count := func() int {
		list, err := app.surveys.List(ctx, "fabrikam")
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	before := count()
	cookie := map[string]string{"Cookie": fred.Name + "=" + fred.Value}
	for _, c := range []struct{ name, pasted, says string }{
		{"empty", "  ", "Choose a definition file"},
		{"broken JSON", `{"format": "surveys.definition/1", "title": }`, "broken at byte"},
		{"cut short", `{"format": "surveys.definition/1", "title": `, "ends too soon"},
		{"another format", `{"format": "surveyjs", "title": "X", "questions": []}`, "not &#34;surveys.definition/1&#34;"},
		{"unknown field", `{"format": "surveys.definition/1", "title": "X", "pages": [], "questions": []}`, "unknown field"},
		{"two documents", `{"format": "surveys.definition/1", "title": "X", "questions": [{"text": "Q", "type": "SimpleText"}]} {}`, "more after its end"},
		{"no title", `{"format": "surveys.definition/1", "title": "", "questions": [{"text": "Q", "type": "SimpleText"}]}`, "title"},
		{"unknown type", `{"format": "surveys.definition/1", "title": "X", "questions": [{"text": "Q", "type": "Hologram"}]}`, "questions.0.type: Unknown type"},
	} {
		code, _, body := app.do(t, "POST", "/fabrikam/surveys/import", url.Values{"definition": {c.pasted}}, cookie)
		if code != 422 || !strings.Contains(body, `class="field-error"`) || !strings.Contains(body, c.says) {
			t.Errorf("import %s = %d, want 422 saying %q:\n%s", c.name, code, c.says, body)
		}
	}
	if n := count(); n != before {
		t.Fatalf("bad definitions made %d surveys", n-before)
	}

	// Pasted.
	code, h, _ = app.do(t, "POST", "/fabrikam/surveys/import", url.Values{"definition": {def}}, cookie)
	if code != 303 || !strings.HasPrefix(h.Get("Location"), "/fabrikam/surveys/") || !strings.HasSuffix(h.Get("Location"), "/edit") {
		t.Fatalf("import by paste = %d %q", code, h.Get("Location"))
	}
	slug := strings.TrimSuffix(strings.TrimPrefix(h.Get("Location"), "/fabrikam/surveys/"), "/edit")
	got, err := app.surveys.Get(ctx, "fabrikam", slug)
	if err != nil || got.State != survey.Draft || got.Title != app.adatum.Title || len(got.Questions) != len(app.adatum.Questions) {
		t.Fatalf("the imported survey: %+v, %v", got, err)
	}
	for i, q := range got.Questions {
		want := app.adatum.Questions[i]
		if q.Text != want.Text || q.Type != want.Type || strings.Join(q.PossibleAnswers, "|") != strings.Join(want.PossibleAnswers, "|") {
			t.Errorf("question %d imported as %+v, want %+v", i, q, want)
		}
		// Adatum's pictures were copied as Fabrikam's, the same bytes.
		logos := store.NewLogoStore(app.st)
		for j, p := range q.Pictures {
			mine, _, err1 := logos.Get(ctx, p.Image)
			theirs, _, err2 := logos.Get(ctx, want.Pictures[j].Image)
			if !strings.HasPrefix(p.Image, "fabrikam-") || err1 != nil || err2 != nil || !bytes.Equal(mine, theirs) {
				t.Errorf("picture %d imported as %q (%v, %v)", j, p.Image, err1, err2)
			}
		}
	}
	// A picture of no tenant here is named beside its field.
	gone := pictureNames.ReplaceAllString(def, `"image": "adatum-000000000000.png"`)
	if code, _, body := app.do(t, "POST", "/fabrikam/surveys/import", url.Values{"definition": {gone}}, cookie); code != 422 || !strings.Contains(body, "This picture is not on this server") {
		t.Errorf("import with a picture not here = %d:\n%s", code, body)
	}

	// A file.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "feedback.survey.json")
	fw.Write([]byte(def))
	mw.Close()
	code, h, _ = app.send(t, "POST", "/fabrikam/surveys/import", &body, map[string]string{"Content-Type": mw.FormDataContentType(), "Cookie": cookie["Cookie"]})
	if code != 303 || !strings.HasSuffix(h.Get("Location"), "/edit") {
		t.Fatalf("import of a file = %d %q", code, h.Get("Location"))
	}

	// The API, both ways.
	adatumToken, _ := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	fabrikamToken, _ := store.NewTokenStore(app.st).Create(ctx, "fabrikam", "test")
	code, _, apiDef := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/definition", adatumToken, "")
	if code != 200 {
		t.Fatalf("API definition = %d", code)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/surveys/import", fabrikamToken, apiDef)
	if code != 201 || v["state"] != "draft" || v["title"] != app.adatum.Title {
		t.Fatalf("API import = %d %s", code, raw)
	}
	if code, v, _ := app.api(t, "POST", "/api/v1/surveys/import", fabrikamToken, `{"format":"surveys.definition/1","title":"X","questions":[{"text":"Q","type":"Hologram"}]}`); code != 422 || v["fields"] == nil {
		t.Fatalf("API import of a bad definition = %d %v", code, v)
	}
	if n := count(); n != before+3 {
		t.Fatalf("Fabrikam has %d new surveys, want 3", n-before)
	}
}
