package web_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// pictureForm is the designer's multipart form of a survey of one picture
// choice question: the fields kv, then a PNG for each row named in files.
func pictureForm(t *testing.T, files []string, kv ...string) multipartForm {
	t.Helper()
	m := multipartForm{fields: [][2]string{{"title", "Shop colours"}, {"n", "1"}, {"q.0.text", "Which colour for the shop?"}, {"q.0.type", string(survey.PictureChoice)}}}
	for i := 0; i+1 < len(kv); i += 2 {
		m.fields = append(m.fields, [2]string{kv[i], kv[i+1]})
	}
	for _, row := range files {
		var b bytes.Buffer
		if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 40, 30))); err != nil {
			t.Fatal(err)
		}
		m.files = append(m.files, formFile{field: "q.0.pictures." + row + ".file", name: "door" + row + ".png", data: &b})
	}
	return m
}

// postForm posts m as the signed-in member of header.
func (a *testApp) postForm(t *testing.T, path string, m multipartForm, header map[string]string) (int, http.Header, string) {
	t.Helper()
	body, ct := m.body(t)
	h := map[string]string{"Content-Type": ct}
	for k, v := range header {
		h[k] = v
	}
	return a.send(t, "POST", path, body, h)
}

// TestPictureChoiceDesigner: a picture choice question is made in the
// designer without JavaScript: each row's image is uploaded with the form
// (checked as a logo is, and served with the logos), a missing alt text
// and another tenant's image are refused beside their fields (422) with
// the uploads kept; the respondent's page shows each picture with its alt
// text in a labelled radio button, and the answer stored is the label.
func TestPictureChoiceDesigner(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	cookie := app.signedIn(t, "adatum", "ana@adatum.example")
	imageRE := regexp.MustCompile(`^adatum-[0-9a-f]{12}\.png$`)

	// Refused: beside the field, with aria, and the image uploaded with
	// the form kept in the row (no need to choose it again).
	refused := []struct {
		name        string
		form        multipartForm
		id, message string
	}{
		{"alt text missing", pictureForm(t, []string{"0", "1"}, "q.0.pictures.0.label", "Red", "q.0.pictures.0.alt", "A red door",
			"q.0.pictures.1.label", "Green", "q.0.pictures.1.alt", " ", "action", "save"), "q0-pictures-1-alt", "Describe the picture for people who cannot see it (its alt text)."},
		{"another tenant's image", pictureForm(t, []string{"1"}, "q.0.pictures.0.label", "Red", "q.0.pictures.0.alt", "A red door", "q.0.pictures.0.image", "fabrikam-0a1b2c3d4e5f.png",
			"q.0.pictures.1.label", "Green", "q.0.pictures.1.alt", "A green door", "action", "save"), "q0-pictures-0-image", "This image belongs to another account: upload it here."},
		{"a tenant whose key begins with ours", pictureForm(t, []string{"1"}, "q.0.pictures.0.label", "Red", "q.0.pictures.0.alt", "A red door", "q.0.pictures.0.image", "adatum-x-0a1b2c3d4e5f.png",
			"q.0.pictures.1.label", "Green", "q.0.pictures.1.alt", "A green door", "action", "save"), "q0-pictures-0-image", "This image belongs to another account"},
		{"not an image", func() multipartForm {
			m := pictureForm(t, []string{"1"}, "q.0.pictures.0.label", "Red", "q.0.pictures.0.alt", "A red door",
				"q.0.pictures.1.label", "Green", "q.0.pictures.1.alt", "A green door", "action", "save")
			m.files = append(m.files, formFile{field: "q.0.pictures.0.file", name: "red.png", data: strings.NewReader("<svg onload=alert(1)>")})
			return m
		}(), "q0-pictures-0-image", "SVG pictures are not accepted"},
		{"one picture", pictureForm(t, []string{"0"}, "q.0.pictures.0.label", "Red", "q.0.pictures.0.alt", "A red door", "action", "save"), "q0-pictures", "Give at least two pictures to choose from."},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.postForm(t, "/adatum/surveys/new", tc.form, cookie)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("= %d, want 422\n%s", code, problems(body))
			}
			at := strings.Index(body, `id="`+tc.id+`-err"`)
			if at < 0 {
				t.Fatalf("no %s-err in the page; problems: %s", tc.id, problems(body))
			}
			if p := body[at:min(at+400, len(body))]; !strings.Contains(p, tc.message) {
				t.Errorf("beside %s: %q, want %q", tc.id, p, tc.message)
			}
			if !strings.Contains(body, `aria-describedby="`+tc.id+`-err`) {
				t.Errorf("no control described by %s-err", tc.id)
			}
			if !regexp.MustCompile(`<input type="hidden" name="q.0.pictures.[01].image" value="adatum-[0-9a-f]{12}\.png">`).MatchString(body) {
				t.Errorf("the image uploaded is not kept in the form")
			}
		})
	}

	// Saved and published: two pictures uploaded, the third row empty.
	code, h, body := app.postForm(t, "/adatum/surveys/new", pictureForm(t, []string{"0", "1"},
		"q.0.pictures.0.label", "Red", "q.0.pictures.0.alt", "A red door", "q.0.pictures.1.label", " Green ", "q.0.pictures.1.alt", "A green door",
		"q.0.pictures.2.label", "", "q.0.pictures.2.alt", "", "q.0.pictures.2.image", "", "action", "publish"), cookie)
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, problems(body))
	}
	slug := strings.TrimPrefix(strings.TrimSuffix(h.Get("Location"), "/share?published=1"), "/adatum/surveys/")
	sv, err := app.surveys.Get(ctx, "adatum", slug)
	if err != nil {
		t.Fatal(err)
	}
	q := sv.Questions[0]
	if len(q.Pictures) != 2 || q.Pictures[0].Label != "Red" || q.Pictures[1].Label != "Green" || q.Pictures[1].Alt != "A green door" ||
		!imageRE.MatchString(q.Pictures[0].Image) || !imageRE.MatchString(q.Pictures[1].Image) || q.Pictures[0].Image == q.Pictures[1].Image || q.Multiple {
		t.Fatalf("saved %+v", q)
	}
	code, h, img := app.do(t, "GET", "/logos/"+q.Pictures[0].Image, nil, nil)
	if code != http.StatusOK || h.Get("Content-Type") != "image/png" || !strings.HasPrefix(img, "\x89PNG") {
		t.Errorf("GET the picture = %d %s", code, h.Get("Content-Type"))
	}

	// The designer shows the rows as saved, and saves them again as
	// shown (the images by their names).
	_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, cookie)
	mustContain(t, "designer", body, `<img class="dq-picture-img" src="/logos/`+q.Pictures[0].Image+`"`, `name="q.0.pictures.1.label" value="Green"`,
		`<input type="file" id="q0-pictures-2-image" name="q.0.pictures.2.file" accept="image/png,image/jpeg">`, `enctype="multipart/form-data"`)
	again := designerFormOf(t, body)
	again.Set("action", "save")
	again.Set("confirm", "1")
	again.Set("q.0.multiple", "1")
	if code, _, body := app.do(t, "POST", "/adatum/surveys/"+slug+"/edit", again, cookie); code != http.StatusSeeOther {
		t.Fatalf("save again = %d\n%s", code, problems(body))
	}
	sv, _ = app.surveys.Get(ctx, "adatum", slug)
	if got := sv.Questions[0]; len(got.Pictures) != 2 || got.Pictures[0] != q.Pictures[0] || got.Pictures[1] != q.Pictures[1] || !got.Multiple {
		t.Fatalf("saved again %+v", got)
	}
	// Back to one choice, for the respondent's page below.
	_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, cookie)
	mustContain(t, "designer", body, `<input type="checkbox" id="q0-multiple" name="q.0.multiple" value="1" checked>`)
	again = designerFormOf(t, body)
	again.Set("action", "save")
	again.Set("confirm", "1")
	again.Del("q.0.multiple")
	if code, _, body := app.do(t, "POST", "/adatum/surveys/"+slug+"/edit", again, cookie); code != http.StatusSeeOther {
		t.Fatalf("save again = %d\n%s", code, problems(body))
	}
	sv, _ = app.surveys.Get(ctx, "adatum", slug)

	// The respondent's page: a real radio button per picture, the
	// picture in its label with its alt text, the label under it.
	app.pastCacheTTL()
	path := "/survey/adatum/" + slug
	id := sv.Questions[0].ID
	_, _, body = app.do(t, "GET", path, nil, nil)
	fs := fieldsetOf(t, body, id)
	mustContain(t, "question", fs, `<label class="picture"><input class="picture-input" type="radio" name="q-`+id+`" value="Red" required>`,
		`<img class="picture-img" src="/logos/`+q.Pictures[0].Image+`" alt="A red door" loading="lazy" width="320" height="240">`,
		`<span class="picture-label">Green</span>`)

	v := url.Values{"token": {app.token(t, path)}, "q-" + id: {"Blue"}}
	if code, _, body := app.do(t, "POST", path, v, nil); code != http.StatusUnprocessableEntity || !strings.Contains(fieldsetOf(t, body, id), "Please choose one of the answers offered.") {
		t.Fatalf("Blue = %d, want 422 beside the question", code)
	}
	v = url.Values{"token": {app.token(t, path)}, "q-" + id: {"Green"}}
	if code, _, body := app.do(t, "POST", path, v, nil); code != http.StatusSeeOther {
		t.Fatalf("Green = %d\n%s", code, body)
	}
	stored := app.storedAnswers(t, slug)
	if len(stored) != 1 || stored[0].Answers[0].Answer != `["Green"]` {
		t.Fatalf("stored %+v", stored)
	}
	_, _, csv := app.do(t, "GET", "/adatum/surveys/"+slug+"/export.csv", nil, cookie)
	mustContain(t, "export", csv, "Which colour for the shop?", ",Green")
}

// TestPictureChoiceAPI: a picture is uploaded with a token (its tenant's
// name), a survey of the API names it, the picture of another tenant is
// refused beside its field, and what is not an image beside "picture";
// the survey read back gives the pictures, their labels as its choices.
func TestPictureChoiceAPI(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tokens := store.NewTokenStore(app.st)
	adatum, err := tokens.Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	fabrikam, err := tokens.Create(ctx, "fabrikam", "test")
	if err != nil {
		t.Fatal(err)
	}
	upload := func(token string, data []byte) (int, map[string]any, string) {
		return app.api(t, "POST", "/api/v1/pictures", token, string(data))
	}
	code, v, raw := upload(adatum, testPNG(t))
	ours, _ := v["image"].(string)
	if code != http.StatusCreated || !regexp.MustCompile(`^adatum-[0-9a-f]{12}\.png$`).MatchString(ours) || v["url"] != "/logos/"+ours {
		t.Fatalf("upload = %d %s", code, raw)
	}
	code, v, _ = upload(fabrikam, testPNG(t))
	theirs, _ := v["image"].(string)
	if code != http.StatusCreated || !strings.HasPrefix(theirs, "fabrikam-") {
		t.Fatalf("Fabrikam's upload = %d %v", code, v)
	}
	if code, v, raw := upload(adatum, []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")); code != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(v["fields"]), "SVG pictures are not accepted") {
		t.Errorf("an SVG = %d %s", code, raw)
	}

	def := func(image string) string {
		return `{"title":"Shop colours","questions":[{"text":"Which colour?","type":"PictureChoice","multiple":true,"max":2,"pictures":[
			{"label":"Red","alt":"A red door","image":"` + image + `"},{"label":"Green","alt":"A green door","image":"` + ours + `"}]}]}`
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys", adatum, def(theirs))
	if fields, _ := v["fields"].(map[string]any); code != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(fields["questions.0.pictures.0.image"]), "another account") {
		t.Fatalf("another tenant's picture = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys", adatum, def(ours))
	if code != http.StatusCreated {
		t.Fatalf("create = %d %s", code, raw)
	}
	qs, _ := v["questions"].([]any)
	q, _ := qs[0].(map[string]any)
	if fmt.Sprint(q["possibleAnswers"]) != "[Red Green]" || q["multiple"] != true || !strings.Contains(fmt.Sprint(q["pictures"]), "alt:A red door") {
		t.Errorf("created %v", q)
	}
}

// TestPictureChoiceTranslations: a picture's label and alt text are
// translated on the translations page as a choice is; a French respondent
// reads both, and their choice is stored as the original label.
func TestPictureChoiceTranslations(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Shop colours", Questions: []survey.Question{{Text: "Which colour?", Type: survey.PictureChoice, Pictures: []survey.Picture{
		{Label: "Red", Alt: "A red door", Image: "adatum-0a1b2c3d4e5f.png"}, {Label: "Green", Alt: "A green door", Image: "adatum-00000000beef.jpg"}}}}})
	id := sv.Questions[0].ID
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	page := "/adatum/surveys/" + sv.Slug + "/translations"
	_, _, body := app.do(t, "GET", page+"?lang=fr", nil, ana)
	mustContain(t, "translations", body, `name="questions.`+id+`.choices.1"`, `name="questions.`+id+`.alts.0"`, "Alt text of picture 1 (Red)", "A green door")

	tooLong := url.Values{"lang": {"fr"}, "language": {"en"}, "questions." + id + ".alts.1": {strings.Repeat("x", survey.MaxAltLength+1)}}
	if code, _, body := app.do(t, "POST", page, tooLong, ana); code != 422 || !strings.Contains(body, `id="tr-questions-`+id+`-alts-1-error"`) {
		t.Errorf("an alt text too long = %d", code)
	}
	good := url.Values{"lang": {"fr"}, "language": {"en"}, "questions." + id + ".choices.0": {"Rouge"}, "questions." + id + ".alts.0": {"Une porte rouge"}}
	if code, _, _ := app.do(t, "POST", page, good, ana); code != 303 {
		t.Fatalf("save = %d", code)
	}
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	_, _, body = app.do(t, "GET", path+"?lang=fr", nil, nil)
	mustContain(t, "French page", fieldsetOf(t, body, id), `value="Red" required>`, `alt="Une porte rouge"`, `<span class="picture-label">Rouge</span>`,
		`alt="A green door"`, `<span class="picture-label">Green</span>`)
	v := url.Values{"token": {app.token(t, path)}, "q-" + id: {"Red"}}
	if code, _, body := app.do(t, "POST", path+"?lang=fr", v, nil); code != http.StatusSeeOther {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	if stored := app.storedAnswers(t, sv.Slug); len(stored) != 1 || stored[0].Answers[0].Answer != `["Red"]` {
		t.Fatalf("stored %+v", stored)
	}
}
