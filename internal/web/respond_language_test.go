package web_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// frenchPoll publishes a survey written in English with a French
// translation of its texts (not all of them: the help stays English).
func (a *testApp) frenchPoll(t *testing.T, title string) *survey.Survey {
	t.Helper()
	sv := a.publish(t, &survey.Survey{Title: title, Description: "A short poll.", Questions: []survey.Question{
		{Text: "Do you like it?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Help: "Be honest."},
		{Text: "Why?", Type: survey.SimpleText},
	}})
	like, why := sv.Questions[0].ID, sv.Questions[1].ID
	fr := survey.Translation{Title: "Sondage du déjeuner", Description: "Un court sondage.", Questions: map[string]survey.QuestionText{
		like: {Text: "Aimez-vous cela ?", Choices: map[string]string{"Yes": "Oui", "No": "Non"}},
		why:  {Text: "Pourquoi ?"},
	}}
	if err := a.surveys.SetTranslations(context.Background(), "adatum", sv.Slug, "", map[string]survey.Translation{"fr": fr}); err != nil {
		t.Fatal(err)
	}
	a.pastCacheTTL()
	got, err := a.surveys.Get(context.Background(), "adatum", sv.Slug)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRespondentLanguage: the language of a respondent page is the one
// chosen with ?lang= (remembered by a cookie on /survey), else the best of
// Accept-Language, else the survey's own, else English; <html> says it,
// and its direction.
func TestRespondentLanguage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.frenchPoll(t, "Lunch poll")
	path := "/survey/adatum/" + sv.Slug
	tests := []struct {
		name, query, cookie, accept string
		want                        []string
		setCookie                   string
	}{
		{"nothing: English", "", "", "", []string{`<html lang="en" dir="ltr">`, "Submit answers", "Lunch poll"}, ""},
		{"Accept-Language", "", "", "fr-CH, fr;q=0.9, en;q=0.5", []string{`<html lang="fr" dir="ltr">`, "Envoyer les réponses", "Sondage du déjeuner"}, ""},
		{"Accept-Language of none we speak", "", "", "ja", []string{`<html lang="en"`, "Submit answers"}, ""},
		{"German, no translation: German words, English texts", "", "", "de", []string{`<html lang="de"`, "Antworten senden", "Lunch poll", "Do you like it?"}, ""},
		{"?lang over Accept-Language, remembered", "?lang=es", "", "fr", []string{`<html lang="es"`, "Enviar respuestas"}, "lang=es"},
		{"the cookie over Accept-Language", "", "nl", "fr", []string{`<html lang="nl"`, "Antwoorden versturen"}, ""},
		{"Arabic: right to left", "?lang=ar", "", "", []string{`<html lang="ar" dir="rtl">`, "إرسال الإجابات"}, "lang=ar"},
		{"an unknown ?lang is ignored", "?lang=xx", "", "fr", []string{`<html lang="fr"`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.accept != "" {
				h["Accept-Language"] = tc.accept
			}
			if tc.cookie != "" {
				h["Cookie"] = "lang=" + tc.cookie
			}
			code, head, body := app.do(t, "GET", path+tc.query, nil, h)
			if code != 200 {
				t.Fatalf("GET = %d", code)
			}
			mustContain(t, tc.name, body, tc.want...)
			set := head.Get("Set-Cookie")
			if tc.setCookie == "" && set != "" {
				t.Errorf("Set-Cookie %q", set)
			}
			if tc.setCookie != "" && (!strings.HasPrefix(set, tc.setCookie+";") || !strings.Contains(set, "Path=/survey;") || !strings.Contains(set, "HttpOnly")) {
				t.Errorf("Set-Cookie %q, want %s on /survey", set, tc.setCookie)
			}
			if !strings.Contains(head.Get("Vary"), "Accept-Language") {
				t.Errorf("Vary %q", head.Get("Vary"))
			}
		})
	}

	// The survey's own language when the browser says nothing.
	if err := app.surveys.SetTranslations(context.Background(), "adatum", sv.Slug, "de", sv.Translations); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	_, _, body := app.do(t, "GET", path, nil, nil)
	mustContain(t, "the survey's language", body, `<html lang="de"`, "Antworten senden")
	// Subscriber pages stay English.
	_, _, home := app.do(t, "GET", "/", nil, map[string]string{"Accept-Language": "fr"})
	mustContain(t, "home", home, `<html lang="en"`)
}

// TestFrenchRespondent: a French respondent reads the survey's French
// texts and the pages' French words, gets the problems of their answers
// in French (422), and their choice ("Oui") is stored as the original
// ("Yes"), so the summary is the same whatever the language.
func TestFrenchRespondent(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.frenchPoll(t, "Lunch poll")
	path := "/survey/adatum/" + sv.Slug
	like, why := sv.Questions[0].ID, sv.Questions[1].ID
	fr := map[string]string{"Accept-Language": "fr"}
	code, _, page := app.do(t, "GET", path, nil, fr)
	if code != 200 {
		t.Fatalf("GET = %d", code)
	}
	mustContain(t, "French page", page, `<html lang="fr" dir="ltr">`, "Sondage du déjeuner", "Un court sondage.", "Aimez-vous cela ?", "Pourquoi ?",
		`value="Yes"`, `<span>Oui</span>`, `<span>Non</span>`, "Be honest.", "2 questions, toutes obligatoires.", "Obligatoire", "Envoyer les réponses",
		`aria-label="Langue"`, `href="/survey/adatum/`+sv.Slug+`?lang=ar"`, `aria-current="true">Français`)
	mustLack(t, "French page", page, "Submit answers", "Do you like it?", `value="Oui"`)

	// A missing answer: French problems beside the question.
	token, _ := formOf(t, page)
	code, body := app.postWith(t, path, fr, "token", token, "q-"+like, "Yes")
	if code != 422 {
		t.Fatalf("without the second answer = %d", code)
	}
	mustContain(t, "422", body, "Veuillez vérifier 1 réponse", "Question 2 : Veuillez répondre à cette question.", "Erreur :")
	// A choice that is not offered, in French words, is refused.
	code, body = app.postWith(t, path, fr, "token", token, "q-"+like, "Oui", "q-"+why, "Parce que")
	if code != 422 {
		t.Fatalf("a translated value = %d", code)
	}
	mustContain(t, "not offered", body, "Veuillez choisir l’une des réponses proposées.")
	code, _ = app.postWith(t, path, fr, "token", token, "q-"+like, "Yes", "q-"+why, "Parce que")
	if code != 303 {
		t.Fatalf("the answer = %d", code)
	}
	got := app.storedAnswers(t, sv.Slug)
	if len(got) != 1 {
		t.Fatalf("%d answers stored", len(got))
	}
	if a, _ := got[0].Answer(like); a.Answer != "Yes" {
		t.Errorf("stored %q, want the original choice Yes", a.Answer)
	}
	_, _, thanks := app.do(t, "GET", path+"/thankyou", nil, fr)
	mustContain(t, "thank-you", thanks, "Merci !", "Sondage du déjeuner")
}

// postWith posts a form with headers.
func (a *testApp) postWith(t *testing.T, path string, header map[string]string, fields ...string) (int, string) {
	t.Helper()
	v := map[string][]string{}
	for i := 0; i+1 < len(fields); i += 2 {
		v[fields[i]] = append(v[fields[i]], fields[i+1])
	}
	code, _, body := a.do(t, http.MethodPost, path, v, header)
	return code, body
}

// TestTranslationsTravel: a survey's translations come with it through
// the API and its definition (on the definition's question IDs), import
// into another tenant on the new draft's questions, and a definition made
// before translations still imports; a translation into an unknown
// language is a 422 beside it, and nothing is made.
func TestTranslationsTravel(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := app.frenchPoll(t, "Lunch poll")
	adatum, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	fabrikam, err := store.NewTokenStore(app.st).Create(ctx, "fabrikam", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug, adatum, "")
	if code != 200 || !strings.Contains(raw, `"fr":{"title":"Sondage du déjeuner"`) || !strings.Contains(raw, `"`+sv.Questions[0].ID+`":{"text":"Aimez-vous cela ?","choices":{"No":"Non","Yes":"Oui"}}`) {
		t.Fatalf("GET = %d %v\n%s", code, v, raw)
	}
	code, _, def := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/definition", adatum, "")
	if code != 200 || !strings.Contains(def, `"q1":{"text":"Aimez-vous cela ?"`) || strings.Contains(def, sv.Questions[0].ID) {
		t.Fatalf("definition = %d\n%s", code, def)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys/import", fabrikam, def)
	if code != 201 {
		t.Fatalf("import = %d %s", code, raw)
	}
	got, err := app.surveys.Get(ctx, "fabrikam", v["slug"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if tr, ok := got.Translated("fr"); !ok || tr.Title != "Sondage du déjeuner" || tr.Questions[got.Questions[0].ID].Choice("Yes") != "Oui" || tr.Questions[got.Questions[1].ID].Text != "Pourquoi ?" {
		t.Fatalf("imported translations %+v on %s, %s", got.Translations, got.Questions[0].ID, got.Questions[1].ID)
	}
	// A definition of before translations.
	old := `{"format":"surveys.definition/1","title":"Old","questions":[{"text":"Rate us","type":"FiveStars"}]}`
	if code, _, raw := app.api(t, "POST", "/api/v1/surveys/import", fabrikam, old); code != 201 {
		t.Fatalf("an old definition = %d %s", code, raw)
	}
	// Created through the API, with a translation; then bad ones.
	code, _, raw = app.api(t, "POST", "/api/v1/surveys", adatum, `{"title":"Bonjour","language":"fr","questions":[{"id":"a","text":"Ça va ?","type":"SimpleText"}],
		"translations":{"en":{"title":"Hello","questions":{"a":{"text":"How are you?"}}}}}`)
	if code != 201 || !strings.Contains(raw, `"language":"fr"`) || !strings.Contains(raw, `"text":"How are you?"`) {
		t.Fatalf("create = %d %s", code, raw)
	}
	before, _ := app.surveys.List(ctx, "adatum")
	for _, bad := range []struct{ body, field string }{
		{`{"title":"X","questions":[{"text":"Q","type":"SimpleText"}],"translations":{"xx":{"title":"Y"}}}`, "translations.xx"},
		{`{"title":"X","language":"klingon","questions":[{"text":"Q","type":"SimpleText"}]}`, "language"},
		{`{"title":"X","questions":[{"text":"Q","type":"SimpleText"}],"translations":{"fr":{"title":"` + strings.Repeat("x", survey.MaxTitleLength+1) + `"}}}`, "translations.fr.title"},
	} {
		code, v, raw := app.api(t, "POST", "/api/v1/surveys", adatum, bad.body)
		fields, _ := v["fields"].(map[string]any)
		if code != 422 || fields[bad.field] == nil {
			t.Errorf("%s: %d %s", bad.field, code, raw)
		}
	}
	if after, _ := app.surveys.List(ctx, "adatum"); len(after) != len(before) {
		t.Errorf("a refused survey was made")
	}
}

// TestTranslationsEditor: the designer's translations page lists each
// text of the survey with a field for its translation; saving one shows
// it to respondents of that language, the designer's edits keep it, and
// bad input (too long, an unknown language, the survey's own language,
// two choices reading the same) is a 422 beside the field with nothing
// saved.
func TestTranslationsEditor(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := app.publish(t, &survey.Survey{Title: "Lunch poll", Questions: []survey.Question{
		{Text: "Do you like it?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}},
		{Text: "How much?", Type: survey.LinearScale, Scale: 5, LowLabel: "Not at all", HighLabel: "A lot"},
	}})
	like, much := sv.Questions[0].ID, sv.Questions[1].ID
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	page := "/adatum/surveys/" + sv.Slug + "/translations"
	code, _, body := app.do(t, "GET", page+"?lang=fr", nil, ana)
	if code != 200 {
		t.Fatalf("GET = %d", code)
	}
	mustContain(t, "editor", body, "Do you like it?", `name="questions.`+like+`.choices.1"`, `name="questions.`+much+`.lowLabel"`, "Not at all", `aria-current="page">Français`, "In Français")
	if code, _, _ := app.do(t, "GET", page+"?lang=xx", nil, ana); code != 404 {
		t.Errorf("an unknown language = %d", code)
	}
	form := func(lang string, kv ...string) url.Values {
		v := url.Values{"lang": {lang}, "language": {"en"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	bad := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"too long", form("fr", "title", strings.Repeat("x", survey.MaxTitleLength+1)), `id="tr-title-error"`},
		{"an unknown language", form("xx", "title", "X"), `id="lang-error"`},
		{"the survey's own language", form("en", "title", "X"), `id="lang-error"`},
		{"an unknown language of the texts", url.Values{"lang": {"fr"}, "language": {"klingon"}}, `id="language-error"`},
		{"two choices the same", form("fr", "questions."+like+".choices.0", "Oui", "questions."+like+".choices.1", "Oui"), `id="tr-questions-` + like + `-choices-1-error"`},
	}
	for _, tc := range bad {
		code, _, body := app.do(t, "POST", page, tc.form, ana)
		// The field's problem beside it, and the field marked (the
		// language edited is the page's own: its problem heads the form).
		if code != 422 || !strings.Contains(body, tc.field) || (tc.field != `id="lang-error"` && !strings.Contains(body, `aria-invalid="true"`)) {
			t.Errorf("%s: %d, no %s", tc.name, code, tc.field)
		}
	}
	if got, _ := app.surveys.Get(ctx, "adatum", sv.Slug); got.Translations != nil {
		t.Fatalf("a refused translation was saved: %+v", got.Translations)
	}
	good := form("fr", "title", "Sondage", "questions."+like+".text", "Aimez-vous cela ?", "questions."+like+".choices.0", "Oui",
		"questions."+much+".highLabel", "Beaucoup")
	code, h, _ := app.do(t, "POST", page, good, ana)
	if code != 303 || h.Get("Location") != page+"?lang=fr&saved=1" {
		t.Fatalf("save = %d %q", code, h.Get("Location"))
	}
	app.pastCacheTTL()
	_, _, resp := app.do(t, "GET", "/survey/adatum/"+sv.Slug+"?lang=fr", nil, nil)
	mustContain(t, "respondent", resp, "Sondage", "Aimez-vous cela ?", "<span>Oui</span>", "<span>No</span>", "Not at all", "Beaucoup")
}

// TestLangCookieSecure: the lang cookie is Secure as the session cookie
// is: when the request came over TLS, or the configured public URL is
// https (a TLS-terminating proxy in front); not on plain http without one.
func TestLangCookieSecure(t *testing.T) {
	for _, c := range []struct {
		name      string
		publicURL string
		tls       bool
		secure    bool
	}{
		{"plain http, no public URL", "", false, false},
		{"behind a proxy, https public URL", "https://surveys.example.com", false, true},
		{"plain http public URL", "http://surveys.example.com", false, false},
		{"over TLS", "", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.PublicURL = c.publicURL })
			req := httptest.NewRequest("GET", app.path()+"?lang=fr", nil)
			if c.tls {
				req.TLS = &tls.ConnectionState{}
			}
			rec := httptest.NewRecorder()
			app.web.Handler().ServeHTTP(rec, req)
			var lang *http.Cookie
			for _, ck := range rec.Result().Cookies() {
				if ck.Name == "lang" {
					lang = ck
				}
			}
			if lang == nil || lang.Value != "fr" {
				t.Fatalf("no lang cookie: %d %q", rec.Code, rec.Header().Values("Set-Cookie"))
			}
			if lang.Secure != c.secure || !lang.HttpOnly || lang.SameSite != http.SameSiteLaxMode {
				t.Errorf("lang cookie %q: Secure %v, want %v (HttpOnly, SameSite=Lax)", rec.Header().Values("Set-Cookie"), lang.Secure, c.secure)
			}
		})
	}
}
