package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// TestChosenLanguageWithoutCookie: a language chosen with ?lang= holds
// on the pages that follow for a browser that keeps no cookie (or sends
// none to a survey framed in another site): the form's action and the
// thank-you page keep it, its problems (422) and its thanks are in it;
// a language not chosen so adds nothing to the form.
func TestChosenLanguageWithoutCookie(t *testing.T) {
	t.Parallel()
	app := newTestApp(t) // its client keeps no cookie
	sv := app.frenchPoll(t, "Lunch poll")
	path := "/survey/adatum/" + sv.Slug
	like, why := sv.Questions[0].ID, sv.Questions[1].ID
	for _, tc := range []struct {
		name, query string
		header      map[string]string
		action      string
	}{
		{"chosen French", "?lang=fr", nil, path + "?lang=fr"},
		{"chosen Arabic", "?lang=ar", map[string]string{"Accept-Language": "fr"}, path + "?lang=ar"},
		{"French of the browser", "", map[string]string{"Accept-Language": "fr"}, path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Twice: the second form comes from the rendered forms' cache.
			for i := 0; i < 2; i++ {
				_, _, page := app.do(t, "GET", path+tc.query, nil, tc.header)
				mustContain(t, "form", page, `action="`+tc.action+`"`)
			}
			_, _, page := app.do(t, "GET", path+tc.query, nil, tc.header)
			token, _ := formOf(t, page)
			code, _, body := app.do(t, "POST", tc.action, url.Values{"token": {token}, "q-" + like: {"Yes"}}, tc.header)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("half an answer = %d", code)
			}
			want := map[string]string{"?lang=fr": "Veuillez répondre à cette question.", "?lang=ar": "يُرجى", "": "Veuillez répondre à cette question."}[tc.query]
			mustContain(t, "422", body, want, `action="`+tc.action+`"`)
			code, h, _ := app.do(t, "POST", tc.action, url.Values{"token": {token}, "q-" + like: {"Yes"}, "q-" + why: {"Because"}}, tc.header)
			if code != http.StatusSeeOther || h.Get("Location") != path+"/thankyou"+tc.query {
				t.Fatalf("the answer = %d, to %q", code, h.Get("Location"))
			}
			_, _, thanks := app.do(t, "GET", h.Get("Location"), nil, tc.header)
			if tc.query != "?lang=ar" && !strings.Contains(strings.ToLower(thanks), "merci") {
				t.Errorf("thank-you page without merci")
			}
		})
	}
}

// TestSharedPagesKeepNoQuery: the first page of a survey and its results
// page are rendered once for all who read them in a language; the
// language menu's links of those pages keep none of the query of the
// request that rendered them.
func TestSharedPagesKeepNoQuery(t *testing.T) {
	t.Parallel()
	st := backends.Local(t)
	// A public cache that keeps the survey: the same cached value, so the
	// same rendered form, for the next request.
	app := newTestAppOn(t, st, func(d *web.Deps) {
		d.Public = store.NewCachedSurveys(store.NewSurveyStore(st), store.NewTenantStore(st).WithSecrets(testBox), time.Minute)
	})
	sv := app.publish(t, &survey.Survey{Title: "Shown", PublicResults: true, Questions: []survey.Question{
		{Text: "Do you like it?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, InResults: true}}})
	path := "/survey/adatum/" + sv.Slug
	for _, p := range []string{path, path + "/results"} {
		_, _, first := app.do(t, "GET", p+"?utm_source=mail&lang=fr", nil, nil)
		mustLack(t, "first page", first, "utm_source")
		_, _, second := app.do(t, "GET", p+"?lang=fr", nil, nil)
		mustLack(t, "second page", second, "utm_source")
		_, _, third := app.do(t, "GET", p+"?lang=fr&utm_source=web", nil, nil)
		mustLack(t, "third page", third, "utm_source")
	}
}

// TestLiveHintTranslated: the words that say when a question is shown
// (for a page without its script) are in the respondent's language, with
// the survey's texts and choices in its translation; the rule the script
// reads keeps the original values.
func TestLiveHintTranslated(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Cars", Questions: []survey.Question{
		{ID: "car", Text: "Do you own a car?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}},
		{ID: "kind", Text: "What kind of car?", Type: survey.ShortText, Optional: true,
			ShowIf: &survey.Condition{Match: survey.MatchAny, Rules: []survey.Rule{{Question: "car", Op: survey.OpEquals, Values: []string{"Yes"}}, {Question: "car", Op: survey.OpNotAnswered}}}},
	}})
	fr := survey.Translation{Questions: map[string]survey.QuestionText{sv.Questions[0].ID: {Text: "Avez-vous une voiture ?", Choices: map[string]string{"Yes": "Oui", "No": "Non"}}}}
	if err := app.surveys.SetTranslations(context.Background(), "adatum", sv.Slug, "", map[string]survey.Translation{"fr": fr}); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	_, _, en := app.do(t, "GET", path, nil, nil)
	mustContain(t, "English", en, "Answer only if your answer to “Do you own a car?” is “Yes” or you did not answer “Do you own a car?”.")
	_, _, page := app.do(t, "GET", path+"?lang=fr", nil, nil)
	mustContain(t, "French", page, "Répondez seulement si votre réponse à “Avez-vous une voiture ?” est “Oui” ou vous n’avez pas répondu à “Avez-vous une voiture ?”.",
		`&#34;v&#34;:[&#34;Yes&#34;]`)
	_, _, de := app.do(t, "GET", path+"?lang=de", nil, nil)
	mustContain(t, "German", de, "Nur beantworten, wenn Ihre Antwort auf “Do you own a car?” “Yes” ist oder Sie “Do you own a car?” nicht beantwortet haben.")
}

// TestRespondentErrorPages: the error pages of the respondent routes
// speak the respondent's language; the subscriber pages' stay English.
func TestRespondentErrorPages(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	for _, tc := range []struct {
		name, method, path string
		header             map[string]string
		form               url.Values
		code               int
		want               []string
	}{
		{"no such survey, French", "GET", "/survey/adatum/no-such-survey?lang=fr", nil, nil, 404,
			[]string{`<html lang="fr" dir="ltr">`, "<h1>Introuvable</h1>", "Questionnaire introuvable.", "Retour à l’accueil"}},
		{"no such survey, Arabic browser", "GET", "/survey/adatum/no-such-survey", map[string]string{"Accept-Language": "ar"}, nil, 404,
			[]string{`<html lang="ar" dir="rtl">`, "الاستبيان غير موجود."}},
		{"bad resume link, German cookie", "GET", app.path() + "/resume/not-a-key", map[string]string{"Cookie": "lang=de"}, nil, 404,
			[]string{`<html lang="de" dir="ltr">`, "Dieser Link zum Beenden der Umfrage ist nicht gültig."}},
		{"earlier pages unreadable, Spanish", "POST", app.path() + "?lang=es", nil, url.Values{"token": {"x"}, "state": {"garbage"}}, 422,
			[]string{`<html lang="es" dir="ltr">`, "No se pudieron leer las respuestas de las páginas anteriores"}},
		{"no such survey, English", "GET", "/survey/adatum/no-such-survey", nil, nil, 404,
			[]string{`<html lang="en" dir="ltr">`, "Survey not found.", "Back to the home page"}},
		{"subscriber page stays English", "GET", "/login?lang=fr", map[string]string{"Accept-Language": "fr"}, nil, 0,
			[]string{`<html lang="en" dir="ltr">`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.do(t, tc.method, tc.path, tc.form, tc.header)
			if tc.code != 0 && code != tc.code {
				t.Fatalf("%s %s = %d, want %d", tc.method, tc.path, code, tc.code)
			}
			mustContain(t, tc.name, body, tc.want...)
		})
	}
}
