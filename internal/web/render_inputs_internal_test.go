package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestInputsKept: rendering the survey page keeps the input of each
// question that reads the same for every respondent (no value, no
// problem, choices neither shuffled nor recalling an answer), per survey
// value and language, and no other; a preview keeps none; another value
// of the survey (an edit) is rendered anew.
func TestInputsKept(t *testing.T) {
	s, err := New(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Public: benchPublic{}, Notifier: benchNotifier{}})
	if err != nil {
		t.Fatal(err)
	}
	tenant := &survey.Tenant{Key: "adatum", Name: "Adatum", Plan: survey.Premium}
	sv := &survey.Survey{Tenant: "adatum", Slug: "kept", Title: "Kept", State: survey.Published,
		Sections: []survey.Section{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}}, Questions: []survey.Question{
			{ID: "stars", Text: "Stars", Type: survey.FiveStars, Section: "a"},
			{ID: "pick", Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Tea", "Coffee"}, Section: "a"},
			{ID: "shuffled", Text: "Shuffled", Type: survey.MultipleChoice, PossibleAnswers: []string{"A", "B", "C"}, Shuffle: true, Section: "b"},
			{ID: "recalls", Text: "Recalls {{pick}}", Type: survey.Checkboxes, PossibleAnswers: []string{"More {{pick|tea}}", "Less"}, Section: "b"},
			{ID: "text", Text: "Say {{pick}}", Help: "About {{pick}}", Type: survey.SimpleText, Section: "b"},
			{ID: "wrong", Text: "Wrong", Type: survey.Number, Section: "b"},
			{ID: "grid", Text: "Grid", Type: survey.Matrix, Rows: []string{"Row of {{pick}}", "Other row"}, PossibleAnswers: []string{"Yes", "No"}, Section: "b"},
		}}
	sv.Normalize()
	if err := sv.Validate(); err != nil {
		t.Fatal(err)
	}
	render := func(t *testing.T, sv *survey.Survey, lang, preview string) string {
		t.Helper()
		p := surveyPage{respondent: respondent{L: i18n.For(lang)}, Tenant: tenant, Survey: sv, Token: "token", Preview: preview,
			Values: map[string]survey.Form{"pick": survey.Value("Tea")}, Errors: map[string]string{"wrong": "Please give a number."}}
		p.Tr, _ = sv.Translated(lang)
		rec := httptest.NewRecorder()
		s.render(rec, httptest.NewRequest(http.MethodGet, "/survey/adatum/kept", nil), http.StatusOK, "survey", p)
		if rec.Code != http.StatusOK {
			t.Fatalf("render = %d\n%s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	kept := func(sv *survey.Survey, lang string) []string {
		var out []string
		for _, q := range sv.Questions {
			if _, ok := s.views.inputs.cache.Get(inputKey{survey: weak.Make(sv), lang: lang, id: q.ID}); ok {
				out = append(out, q.ID)
			}
		}
		return out
	}

	render(t, sv, "en", "preview-token")
	if got := kept(sv, "en"); len(got) != 0 {
		t.Errorf("a preview kept the inputs of %v", got)
	}
	first := render(t, sv, "en", "")
	// Not kept: a value (pick), a shuffle, labels recalling an answer
	// (recalls, grid), a problem (wrong).
	if got, want := kept(sv, "en"), []string{"stars", "text"}; !slices.Equal(got, want) {
		t.Errorf("kept the inputs of %v, want %v", got, want)
	}
	if got := kept(sv, "fr"); len(got) != 0 {
		t.Errorf("kept in French %v before a page in French was rendered", got)
	}
	if second := render(t, sv, "en", ""); !sameOutsideShuffle(first, second) {
		t.Errorf("the page rendered again from the inputs kept differs:\n%s", firstDiff(first, second))
	}
	if fr := render(t, sv, "fr", ""); !strings.Contains(fr, "1 étoile") || strings.Contains(fr, ">1 star<") {
		t.Errorf("the French page shows the English inputs kept")
	}
	if got, want := kept(sv, "fr"), []string{"stars", "text"}; !slices.Equal(got, want) {
		t.Errorf("kept in French the inputs of %v, want %v", got, want)
	}

	// An edit is another survey value: its inputs are rendered anew.
	const required = `name="q-stars" value="1" required`
	if !strings.Contains(first, required) {
		t.Fatalf("no %s in the page", required)
	}
	edited := *sv
	edited.Questions = slices.Clone(sv.Questions)
	edited.Questions[0].Optional = true
	if page := render(t, &edited, "en", ""); strings.Contains(page, required) {
		t.Errorf("the edited survey's page shows the inputs kept of the survey before (the stars still required)")
	}
}

// sameOutsideShuffle reports whether two renders of TestInputsKept's
// page are the same but for the order of the shuffled question's
// choices.
func sameOutsideShuffle(a, b string) bool {
	cut := func(s string) string {
		i := strings.Index(s, `name="q-shuffled"`)
		j := strings.Index(s, `id="q-recalls"`)
		if i < 0 || j < i {
			return s
		}
		return s[:i] + s[j:]
	}
	return cut(a) == cut(b)
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-100):min(len(a), i+100)] + "\n---\n" + b[max(0, i-100):min(len(b), i+100)]
}

// TestMenusKept: the language menu of a respondent page is kept per
// language and address, and read back for the same; a page whose address
// has a query (the respondent's own) is rendered each time and never
// kept; the buttons of the menu inside a form are kept per language.
func TestMenusKept(t *testing.T) {
	v, err := loadViews()
	if err != nil {
		t.Fatal(err)
	}
	who := func(lang, path, query string) respondent {
		return respondent{L: i18n.For(lang), here: url.URL{Path: path, RawQuery: query}}
	}
	kept := func(k menuKey) bool { _, ok := v.menus.cache.Get(k); return ok }
	for _, tc := range []struct {
		who   respondent
		links []string // in the menu of links
	}{
		{who("de", "/survey/adatum/menus-a", ""), []string{`href="/survey/adatum/menus-a?lang=fr"`, `lang="de" hreflang="de" aria-current="true">Deutsch<`}},
		{who("ar", "/survey/adatum/menus-a", ""), []string{`href="/survey/adatum/menus-a?lang=fr"`, `aria-current="true">العربية<`}},
		{who("de", "/survey/adatum/menus-b", ""), []string{`href="/survey/adatum/menus-b?lang=fr"`}},
		{who("de", "/survey/adatum/menus-c", "source=a%3Cb"), []string{`href="/survey/adatum/menus-c?lang=fr&amp;source=a%3Cb"`}},
	} {
		key := menuKey{lang: tc.who.L.Tag(), path: tc.who.here.Path}
		for round := range 2 {
			h, err := v.langMenu(tc.who)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.links {
				if !strings.Contains(string(h), want) {
					t.Errorf("%s %s (round %d): no %s in %s", key.lang, tc.who.here.String(), round, want, h)
				}
			}
		}
		if got, want := kept(key), tc.who.here.RawQuery == ""; got != want {
			t.Errorf("menu of %s in %s kept: %v, want %v", tc.who.here.String(), key.lang, got, want)
		}
	}
	for _, lang := range []string{"nl", "ar"} {
		h, err := v.langButtons(who(lang, "/survey/adatum/menus-d", "t=1&s=2"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(h), `value="lang.`+lang+`" lang="`+lang+`" formnovalidate aria-current="true"`) || !kept(menuKey{lang: lang, buttons: true}) {
			t.Errorf("buttons in %s: kept %v\n%s", lang, kept(menuKey{lang: lang, buttons: true}), h)
		}
	}
}
