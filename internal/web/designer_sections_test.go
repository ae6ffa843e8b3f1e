package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDesignerSections: a page break makes the questions so far section 1
// and adds section 2 with a new question; a question moves by its select
// and by Up across a section's top; an empty section is removed, one with
// questions is not (422 beside it); an empty section is refused on save
// (422, nothing saved); the sections are saved, shown again, kept by an
// edit of the published survey, and by the API.
func TestDesignerSections(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	post := func(v url.Values) (int, string) {
		t.Helper()
		code, _, body := app.do(t, "POST", "/adatum/surveys/new", v, cookie)
		return code, body
	}
	form := url.Values{"title": {"Paged lunch"}, "n": {"2"},
		"q.0.text": {"Name"}, "q.0.type": {"SimpleText"},
		"q.1.text": {"Rate"}, "q.1.type": {"FiveStars"}, "action": {"addsection"}}
	code, body := post(form)
	if code != 200 {
		t.Fatalf("add a page break = %d", code)
	}
	mustContain(t, "page break", body, `name="ns" value="2"`, `name="s.0.id" value="s1"`, `name="s.1.id" value="s2"`, `name="n" value="3"`,
		"Section 2: page 2 for respondents", `<option value="1" selected>Section 2</option>`, `id="s1-title"`)
	// Removing a section with questions: refused beside it.
	v := url.Values{"title": {"Paged lunch"}, "n": {"3"}, "ns": {"2"}, "s.0.id": {"s1"}, "s.1.id": {"s2"}, "s.1.title": {"Food"},
		"q.0.text": {"Name"}, "q.0.type": {"SimpleText"}, "q.0.section": {"0"},
		"q.1.text": {"Rate"}, "q.1.type": {"FiveStars"}, "q.1.section": {"0"},
		"q.2.text": {""}, "q.2.type": {"SimpleText"}, "q.2.section": {"1"}, "action": {"rmsection.1"}}
	code, body = post(v)
	if code != 422 {
		t.Fatalf("remove a section with a question = %d", code)
	}
	mustContain(t, "refused removal", body, "This section has questions")
	// Saving with an empty section (its one question moved away and the
	// empty one removed): refused, nothing saved.
	v.Set("q.2.text", "Dish")
	v.Set("q.2.section", "0")
	v.Set("action", "save")
	code, body = post(v)
	if code != 422 {
		t.Fatalf("save with an empty section = %d", code)
	}
	mustContain(t, "empty section", body, "Section 2 has no questions")
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != 1 {
		t.Fatalf("%d surveys after a refused save", len(list))
	}
	// Up at the top of section 2 moves the question to section 1.
	v.Set("q.2.section", "1")
	v.Set("action", "up.2")
	code, body = post(v)
	if code != 200 {
		t.Fatalf("up = %d", code)
	}
	if n := strings.Count(body, `<option value="0" selected>`); n != 3 {
		t.Errorf("up across: %d questions in section 1, want 3", n)
	}
	mustLack(t, "up across", body, `<option value="1" selected>`)
	// The empty section removed; then saved with two sections.
	v.Set("q.2.section", "0")
	v.Set("action", "rmsection.1")
	code, body = post(v)
	if code != 200 {
		t.Fatalf("remove an empty section = %d", code)
	}
	mustContain(t, "removed", body, `name="ns" value="1"`)
	v = url.Values{"title": {"Paged lunch"}, "n": {"3"}, "ns": {"2"}, "s.0.id": {"s1"}, "s.0.title": {"You"}, "s.1.id": {"s2"}, "s.1.title": {"Food"}, "s.1.shuffle": {"1"},
		"q.0.text": {"Name"}, "q.0.type": {"SimpleText"}, "q.0.section": {"0"},
		"q.1.text": {"Rate"}, "q.1.type": {"FiveStars"}, "q.1.section": {"1"},
		"q.2.text": {"Dish"}, "q.2.type": {"SimpleText"}, "q.2.section": {"1"}, "action": {"publish"}}
	if code, body = post(v); code != http.StatusSeeOther {
		t.Fatalf("publish = %d\n%s", code, body)
	}
	list, _ := app.surveys.List(ctx, "adatum")
	var sv *survey.Survey
	for _, s := range list {
		if s.Title == "Paged lunch" {
			sv, _ = app.surveys.Get(ctx, "adatum", s.Slug)
		}
	}
	if sv == nil || len(sv.Sections) != 2 || !sv.Sections[1].Shuffle || sv.Questions[1].Section != "s2" || len(sv.Pages()) != 2 {
		t.Fatalf("saved %+v", sv)
	}
	// Shown again in the designer, and saved again as shown.
	_, _, body = app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/edit", nil, cookie)
	mustContain(t, "edit", body, `name="s.1.id" value="s2"`, `value="Food"`, `name="s.1.shuffle" value="1" checked`, `<option value="1" selected>Section 2: Food</option>`)
	v.Set("s.1.title", "Food and drink")
	v.Set("action", "save")
	for _, i := range []string{"0", "1", "2"} {
		v.Set("q."+i+".id", sv.Questions[map[string]int{"0": 0, "1": 1, "2": 2}[i]].ID)
	}
	if code, _, body := app.do(t, "POST", "/adatum/surveys/"+sv.Slug+"/edit", v, cookie); code != http.StatusSeeOther {
		t.Fatalf("edit = %d\n%s", code, body)
	}
	got, _ := app.surveys.Get(ctx, "adatum", sv.Slug)
	if got.Sections[1].Title != "Food and drink" || got.Sections[1].ID != "s2" || got.Questions[2].ID != sv.Questions[2].ID || got.Questions[2].Section != "s2" {
		t.Errorf("after the edit %+v %+v", got.Sections, got.Questions)
	}
}

// TestAPISections: the API creates a survey with sections and returns
// them; a question naming no section of the survey is a 422 beside it.
func TestAPISections(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	token, err := store.NewTokenStore(app.st).CreateWithRole(context.Background(), "adatum", "test", survey.Editor, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"title":"API pages","sections":[{"id":"a","title":"First"},{"title":"Second","shuffle":true}],
		"questions":[{"text":"One","type":"SimpleText","section":"a"},{"text":"Two","type":"FiveStars","section":"s1"}]}`
	code, out, raw := app.api(t, "POST", "/api/v1/surveys", token, body)
	if code != 201 {
		t.Fatalf("create = %d %s", code, raw)
	}
	var got struct {
		Slug     string `json:"slug"`
		Sections []struct {
			ID, Title string
			Shuffle   bool
		} `json:"sections"`
		Questions []struct{ Section string } `json:"questions"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Sections) != 2 || got.Sections[1].ID != "s1" || !got.Sections[1].Shuffle || got.Questions[1].Section != "s1" {
		t.Errorf("created %s", raw)
	}
	_, _, raw = app.api(t, "GET", "/api/v1/surveys/"+got.Slug, token, "")
	if !strings.Contains(raw, `"sections":[{"id":"a","title":"First"},{"id":"s1","title":"Second","shuffle":true}]`) {
		t.Errorf("get %s", raw)
	}
	_ = out
	code, _, raw = app.api(t, "POST", "/api/v1/surveys", token, `{"title":"Bad","sections":[{"id":"a","title":"A"},{"id":"b","title":"B"}],"questions":[{"text":"One","type":"SimpleText","section":"a"},{"text":"Two","type":"SimpleText","section":"zz"}]}`)
	if code != 422 || !strings.Contains(raw, "questions.1.section") || !strings.Contains(raw, "sections.1") {
		t.Errorf("bad sections = %d %s", code, raw)
	}
}
