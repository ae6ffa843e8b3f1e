package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// api makes one request of the JSON API and returns its status, its body
// decoded as an object and its body as it is. Every response is checked
// against openapi.json (validateAPI): a test of the API fails when the API
// answers something the document does not describe.
func (a *testApp) api(t *testing.T, method, path, token, body string) (int, map[string]any, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, a.srv.URL+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	validateAPI(t, req, resp.StatusCode, resp.Header, raw)
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	return resp.StatusCode, v, string(raw)
}

func TestAPI(t *testing.T) {
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

	// No token, a bad token: 401 with a JSON message.
	for _, tok := range []string{"", "svy_nope", "svy_" + strings.Repeat("A", 43)} {
		code, v, _ := app.api(t, "GET", "/api/v1/surveys", tok, "")
		if code != http.StatusUnauthorized || v["error"] == "" {
			t.Errorf("token %q: %d %v", tok, code, v)
		}
	}
	// Create from a JSON definition; an invalid one says what is wrong.
	code, v, raw := app.api(t, "POST", "/api/v1/surveys", adatum, `{"title":"API survey","questions":[{"text":"Pick","type":"MultipleChoice","possibleAnswers":["A"]}]}`)
	if fields, _ := v["fields"].(map[string]any); code != 422 || !strings.Contains(raw, "at least two possible answers") || fields["questions.0.choices"] == nil {
		t.Fatalf("invalid create = %d %s", code, raw)
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/surveys", adatum, `{"title": "x", "colour": "red"}`); code != 422 || !strings.Contains(raw, "colour") {
		t.Errorf("unknown field = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys", adatum, `{"title":"API survey","listed":true,"questions":[
		{"text":"Pick","type":"MultipleChoice","possibleAnswers":["A","B"]},{"text":"Rate","type":"FiveStars"},{"text":"Say","type":"SimpleText"}]}`)
	if code != 201 || v["slug"] != "api-survey" || v["state"] != "draft" {
		t.Fatalf("create = %d %s", code, raw)
	}
	if code, v, _ := app.api(t, "POST", "/api/v1/surveys/api-survey/publish", adatum, ""); code != 200 || v["state"] != "published" {
		t.Fatalf("publish = %d %v", code, v)
	}
	code, v, _ = app.api(t, "GET", "/api/v1/surveys", adatum, "")
	if list, _ := v["surveys"].([]any); code != 200 || len(list) != 2 {
		t.Fatalf("list = %d %v", code, v)
	}
	code, v, _ = app.api(t, "GET", "/api/v1/surveys/api-survey", adatum, "")
	if qs, _ := v["questions"].([]any); code != 200 || len(qs) != 3 {
		t.Fatalf("get = %d %v", code, v)
	}

	// One answer through the public form, counted by the worker.
	tok := app.token(t, app.path())
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(tok), nil); code != 303 {
		t.Fatal("answer refused")
	}
	app.stored(t)
	demo := "/api/v1/surveys/" + app.adatum.Slug
	if code, v, _ := app.api(t, "GET", demo+"/summary", adatum, ""); code != 200 || v["totalAnswers"] != float64(1) {
		t.Errorf("summary = %d %v", code, v)
	}
	if code, v, _ := app.api(t, "GET", demo+"/answers?limit=10", adatum, ""); code != 200 || v["total"] != float64(1) {
		t.Errorf("answers = %d %v", code, v)
	}
	if code, _, raw := app.api(t, "GET", demo+"/export", adatum, ""); code != 200 || !strings.Contains(raw, "Mobile app") {
		t.Errorf("export = %d %s", code, raw)
	}

	// Fabrikam's token reaches none of Adatum's surveys: 404, no data.
	for _, p := range []struct{ method, path string }{
		{"GET", demo}, {"GET", demo + "/summary"}, {"GET", demo + "/answers"}, {"GET", demo + "/export"},
		{"POST", demo + "/publish"}, {"POST", demo + "/close"}, {"DELETE", demo}, {"DELETE", demo + "?forever=true"}, {"POST", demo + "/restore"},
		{"GET", "/api/v1/surveys/api-survey"}, {"DELETE", "/api/v1/surveys/api-survey"},
	} {
		code, _, raw := app.api(t, p.method, p.path, fabrikam, "")
		if code != http.StatusNotFound || strings.Contains(raw, "Mobile app") || strings.Contains(raw, "API survey") {
			t.Errorf("%s %s with Fabrikam's token = %d %s", p.method, p.path, code, raw)
		}
	}
	_, v, _ = app.api(t, "GET", "/api/v1/surveys", fabrikam, "")
	if list, _ := v["surveys"].([]any); len(list) != 1 {
		t.Errorf("Fabrikam lists %d surveys, want its own one", len(list))
	}

	if code, _, _ := app.api(t, "POST", "/api/v1/surveys/api-survey/close", adatum, ""); code != 200 {
		t.Errorf("close = %d", code)
	}
	// DELETE moves to the trash; restore brings it back; forever deletes.
	if code, _, _ := app.api(t, "DELETE", "/api/v1/surveys/api-survey", adatum, ""); code != 204 {
		t.Errorf("delete = %d", code)
	}
	if code, v, _ := app.api(t, "GET", "/api/v1/surveys/api-survey", adatum, ""); code != 200 || v["trashedOn"] == nil || v["purgeOn"] == nil {
		t.Errorf("get after delete = %d %v; want it in the trash", code, v)
	}
	if code, v, _ := app.api(t, "DELETE", "/api/v1/surveys/api-survey?forever=maybe", adatum, ""); code != 422 || v["fields"] == nil {
		t.Errorf("delete ?forever=maybe = %d %v", code, v)
	}
	if code, v, _ := app.api(t, "POST", "/api/v1/surveys/api-survey/restore", adatum, ""); code != 200 || v["trashedOn"] != nil || v["slug"] != "api-survey" {
		t.Errorf("restore = %d %v", code, v)
	}
	if code, _, _ := app.api(t, "DELETE", "/api/v1/surveys/api-survey?forever=true", adatum, ""); code != 204 {
		t.Errorf("delete forever = %d", code)
	}
	if code, v, _ := app.api(t, "GET", "/api/v1/surveys/api-survey", adatum, ""); code != 404 || v["error"] == "" {
		t.Errorf("get after delete forever = %d %v", code, v)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/nothing", adatum, ""); code != 404 {
		t.Errorf("unknown endpoint = %d", code)
	}
}

// TestAPISettings: a survey created through the API keeps its texts and
// every setting of its questions' kinds (a setting a kind lacks is
// dropped); a bad definition is a 422 with the problem under its field.
func TestAPISettings(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tok, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/surveys", tok, `{"title":"Settings","description":"About it.\nTwo lines.","thankYou":"Thanks!","questions":[
		{"text":"Pick","type":"MultipleChoice","help":"One only","optional":true,"possibleAnswers":["A","B"],"other":true,"shuffle":true,"rows":["dropped"],"scale":4},
		{"text":"Rate","type":"FiveStars","help":"Be fair","min":1,"max":"5"},
		{"text":"Say","type":"SimpleText","optional":true}]}`)
	if code != 201 {
		t.Fatalf("create = %d %s", code, raw)
	}
	want := `{"description":"About it.\nTwo lines.","thankYou":"Thanks!","questions":[` +
		`{"text":"Pick","type":"MultipleChoice","help":"One only","optional":true,"possibleAnswers":["A","B"],"other":true,"shuffle":true},` +
		`{"text":"Rate","type":"FiveStars","help":"Be fair"},` +
		`{"text":"Say","type":"SimpleText","optional":true}]}`
	var canon any
	_ = json.Unmarshal([]byte(want), &canon)
	b, _ := json.Marshal(canon) // keys sorted, as the maps below
	want = string(b)
	for _, step := range []struct {
		name string
		v    map[string]any
	}{{"create", v}, {"get", nil}} {
		if step.v == nil {
			_, step.v, _ = app.api(t, "GET", "/api/v1/surveys/settings", tok, "")
		}
		qs, _ := step.v["questions"].([]any)
		for _, q := range qs {
			delete(q.(map[string]any), "id")
		}
		got, _ := json.Marshal(map[string]any{"description": step.v["description"], "thankYou": step.v["thankYou"], "questions": qs})
		if string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", step.name, got, want)
		}
	}
	s, err := app.surveys.Get(ctx, "adatum", "settings")
	if err != nil || s.Questions[0].Rows != nil || s.Questions[0].Scale != 0 || !s.Questions[0].Shuffle || s.Description != "About it.\nTwo lines." {
		t.Errorf("stored %+v, %v", s, err)
	}

	known := make([]string, 0)
	for _, k := range survey.Kinds() {
		known = append(known, string(k.Type()))
	}
	cases := []struct {
		name, body, field, words string
	}{
		{"no title", `{"title":"","questions":[{"text":"Say","type":"SimpleText"}]}`, "title", "Give the survey a title."},
		{"no questions", `{"title":"T"}`, "questions", "at least one question"},
		{"description", `{"title":"T","description":"` + strings.Repeat("d", survey.MaxDescriptionLength+1) + `","questions":[{"text":"Say","type":"SimpleText"}]}`, "description", "Keep the description"},
		{"thank-you", `{"title":"T","thankYou":"` + strings.Repeat("t", survey.MaxDescriptionLength+1) + `","questions":[{"text":"Say","type":"SimpleText"}]}`, "thankYou", "Keep the thank-you message"},
		{"text", `{"title":"T","questions":[{"text":" ","type":"SimpleText"}]}`, "questions.0.text", "Write the question."},
		{"help", `{"title":"T","questions":[{"text":"Say","type":"SimpleText","help":"` + strings.Repeat("h", survey.MaxHelpLength+1) + `"}]}`, "questions.0.help", "Keep the help text"},
		{"choices", `{"title":"T","questions":[{"text":"Say","type":"SimpleText"},{"text":"Pick","type":"MultipleChoice","possibleAnswers":["A","A"]}]}`, "questions.1.choices", "listed twice"},
		{"unknown type", `{"title":"T","questions":[{"text":"Say","type":"Telepathy"}]}`, "questions.0.type", `Unknown type "Telepathy"; the types are ` + strings.Join(known, ", ")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, v, raw := app.api(t, "POST", "/api/v1/surveys", tok, c.body)
			fields, _ := v["fields"].(map[string]any)
			if msg, _ := fields[c.field].(string); code != 422 || !strings.Contains(msg, c.words) {
				t.Errorf("= %d, fields[%s] = %q, want %q\n%s", code, c.field, msg, c.words, raw)
			}
		})
	}
	// A body that is not a definition: 422, naming what is wrong.
	for _, body := range []string{`{"title":"T","questions":[{"text":"Say","type":"SimpleText","colour":"red"}]}`, `{"title":"T","questions":[{"text":"Say","type":"SimpleText","min":{}}]}`} {
		if code, _, raw := app.api(t, "POST", "/api/v1/surveys", tok, body); code != 422 || !strings.Contains(raw, "not a survey definition") {
			t.Errorf("%s = %d %s", body, code, raw)
		}
	}
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != 2 {
		t.Errorf("%d surveys, want the demo and one created", len(list))
	}
}

// scim sends a SCIM request with the headers h, and returns its status,
// the answer as JSON and as text.
func (a *testApp) scim(t *testing.T, method, path string, h map[string]string, body string) (int, map[string]any, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, a.srv.URL+path, rd)
	req.Header.Set("Content-Type", "application/scim+json")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	return resp.StatusCode, v, string(raw)
}
