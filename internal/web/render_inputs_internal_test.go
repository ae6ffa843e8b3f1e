package web

import (
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// TestInputsKept: rendering the survey page keeps the input of each
// question that reads the same for every respondent but for the order of
// its choices (no value, no choice recalling an answer), per survey
// value, language and whether it shows a problem, and no other; a preview keeps none; another
// value of the survey (an edit) is rendered anew; the shuffled question
// kept still shows its choices in orders that differ. The questions up
// to their inputs are kept unless they show a problem or recall answers.
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
	// Not kept: a value (pick), labels recalling an answer (recalls,
	// grid); kept apart, the input unanswered with a problem (wrong).
	if got, want := kept(sv, "en"), []string{"stars", "shuffled", "text"}; !slices.Equal(got, want) {
		t.Errorf("kept the inputs of %v, want %v", got, want)
	}
	if _, ok := s.views.inputs.cache.Get(inputKey{survey: weak.Make(sv), lang: "en", id: "wrong", invalid: true}); !ok {
		t.Errorf("the input of a question unanswered with a problem was not kept")
	}
	if !strings.Contains(first, `aria-invalid="true" aria-describedby="err-wrong"`) {
		t.Errorf("the input of the question with a problem is not marked so")
	}
	// The questions up to their inputs: kept but for texts that recall
	// answers (recalls, text) and a problem (wrong).
	var heads []string
	for n, q := range sv.Questions {
		if _, ok := s.views.inputs.cache.Get(inputKey{survey: weak.Make(sv), lang: "en", id: q.ID, head: true, num: n + 1}); ok {
			heads = append(heads, q.ID)
		}
	}
	if want := []string{"stars", "pick", "shuffled", "grid"}; !slices.Equal(heads, want) {
		t.Errorf("kept the heads of %v, want %v", heads, want)
	}
	if got := kept(sv, "fr"); len(got) != 0 {
		t.Errorf("kept in French %v before a page in French was rendered", got)
	}
	orders := map[string]bool{}
	for range 20 {
		page := render(t, sv, "en", "")
		if !sameOutsideShuffle(first, page) {
			t.Fatalf("the page rendered again from the inputs kept differs:\n%s", firstDiff(first, page))
		}
		var got []string
		for _, m := range shuffledOrder.FindAllString(page, -1) {
			got = append(got, strings.TrimPrefix(m, `name="q-shuffled" `))
		}
		orders[strings.Join(got, " ")] = true
	}
	if len(orders) < 2 {
		t.Errorf("the shuffled question kept shows its choices in one order only: %v", orders)
	}
	for o := range orders {
		if got := strings.Fields(o); len(got) != 3 || !slices.Contains(got, `value="A"`) || !slices.Contains(got, `value="B"`) || !slices.Contains(got, `value="C"`) {
			t.Errorf("the shuffled question shows the choices %v", got)
		}
	}
	if fr := render(t, sv, "fr", ""); !strings.Contains(fr, "1 étoile") || strings.Contains(fr, ">1 star<") {
		t.Errorf("the French page shows the English inputs kept")
	}
	if got, want := kept(sv, "fr"), []string{"stars", "shuffled", "text"}; !slices.Equal(got, want) {
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

// shuffledOrder finds the values of TestInputsKept's shuffled question's
// choices, in the page's order.
var shuffledOrder = regexp.MustCompile(`name="q-shuffled" value="[ABC]"`)

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

// TestShuffledInputsKept: the input kept in parts of a question whose
// choices are shuffled, put together in an order, is what its kind's
// partial renders with its choices in that order, for the example of
// every kind (its choices shuffled), in English and Arabic, in many
// orders.
func TestShuffledInputsKept(t *testing.T) {
	v, err := loadViews()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var inParts []survey.QuestionType
	for _, k := range survey.Kinds() {
		q, _ := surveytest.Example(k)
		q = surveytest.OfTenant(q, "adatum")
		q.ID, q.Shuffle = "q1", true
		sv := &survey.Survey{Tenant: "adatum", Slug: "shuffled", Title: "Shuffled", State: survey.Published, Questions: []survey.Question{q}}
		sv.Normalize()
		q = sv.Questions[0]
		for _, lang := range []string{"en", "ar"} {
			it := questionItem{Q: &q, words: inputWords{L: i18n.For(lang)}, survey: weak.Make(sv)}
			in, err := v.keepInput(it)
			if err != nil {
				t.Fatal(err)
			}
			if !q.Shuffle || len(q.PossibleAnswers) < 2 {
				// The kind shuffles nothing (its normalize clears
				// Shuffle), or there is one choice.
				if in.choices != nil || in.perRequest {
					t.Errorf("%s: a question whose choices are not shuffled is kept in parts", k.Type())
				}
				continue
			}
			if lang == "en" {
				inParts = append(inParts, k.Type())
			}
			if in.perRequest {
				t.Errorf("%s (%s): the input of a shuffled question is rendered for each respondent, not kept in parts", k.Type(), lang)
				continue
			}
			for range 10 {
				order := r.Perm(len(q.PossibleAnswers))
				choices := make([]string, len(order))
				for i, o := range order {
					choices[i] = q.PossibleAnswers[o]
				}
				want, err := v.renderInput(it, choices)
				if err != nil {
					t.Fatal(err)
				}
				if got := in.inOrder(order); got != want {
					t.Fatalf("%s (%s) in the order %v: kept\n%s\nrendered\n%s", k.Type(), lang, order, got, want)
				}
			}
		}
	}
	want := []survey.QuestionType{survey.MultipleChoice, survey.Checkboxes, survey.Dropdown, survey.Ranking, survey.PictureChoice}
	slices.Sort(want)
	slices.Sort(inParts)
	if !slices.Equal(inParts, want) {
		t.Errorf("kept in parts the inputs of %v, want %v", inParts, want)
	}
}

// TestHeadKeptLive: a question whose condition mixes a rule on an earlier
// page and one on its own ("any") is decided for one respondent (shown
// outright) and live for another (shown as they answer, data-show-if):
// the head kept for one is never the other's, whichever comes first.
func TestHeadKeptLive(t *testing.T) {
	for _, first := range []string{"Yes", "No"} {
		sv := &survey.Survey{Tenant: "adatum", Slug: "adatum-customer-satisfaction", Title: "Live or not", State: survey.Published,
			Sections: []survey.Section{{ID: "one", Title: "One"}, {ID: "two", Title: "Two"}},
			Questions: []survey.Question{
				{ID: "a", Text: "A?", Type: survey.YesNo, Section: "one"},
				{ID: "b", Text: "B?", Type: survey.YesNo, Section: "two", Optional: true},
				{ID: "c", Text: "C?", Type: survey.ShortText, Section: "two", Optional: true, ShowIf: &survey.Condition{Match: survey.MatchAny,
					Rules: []survey.Rule{{Question: "a", Op: survey.OpEquals, Values: []string{"Yes"}}, {Question: "b", Op: survey.OpEquals, Values: []string{"Yes"}}}}},
			}}
		sv.Normalize()
		if err := sv.Validate(); err != nil {
			t.Fatal(err)
		}
		_, secondPage := secondPageOf(t, sv, "q-a")
		for _, a := range []string{first, map[string]string{"Yes": "No", "No": "Yes"}[first], first} {
			page := secondPage(a)
			live := strings.Contains(page, `id="q-c" data-show-if=`)
			if want := a == "No"; live != want {
				t.Errorf("first %s, then a=%s: question c live %v, want %v", first, a, live, want)
			}
		}
	}
}

// TestPipedHeadKept: a question whose text and help recall an earlier
// answer keeps its head in parts around them, and each respondent reads
// their own answer in it, escaped; a help that recalls nothing at all
// (empty once piped) is not shown, as the partial leaves it out.
func TestPipedHeadKept(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Slug: "adatum-customer-satisfaction", Title: "Piped", State: survey.Published,
		Sections: []survey.Section{{ID: "one", Title: "One"}, {ID: "two", Title: "Two"}},
		Questions: []survey.Question{
			{ID: "name", Text: "Your name?", Type: survey.ShortText, Section: "one", Optional: true},
			{ID: "why", Text: "Why, {{name|friend}}?", Help: "{{name}}", Type: survey.ShortText, Section: "two", Optional: true},
		}}
	sv.Normalize()
	if err := sv.Validate(); err != nil {
		t.Fatal(err)
	}
	s, secondPage := secondPageOf(t, sv, "q-name")
	for _, c := range []struct{ name, legend, help string }{
		{"Ann", "Why, Ann?", `<p class="help" id="help-why">Ann</p>`},
		{`<b>Bo & "Jo"</b>`, "Why, &lt;b&gt;Bo &amp; &#34;Jo&#34;&lt;/b&gt;?", `<p class="help" id="help-why">&lt;b&gt;Bo &amp; &#34;Jo&#34;&lt;/b&gt;</p>`},
		{"Ann", "Why, Ann?", `<p class="help" id="help-why">Ann</p>`},
		{"", "Why, friend?", ""},
	} {
		page := secondPage(c.name)
		if !strings.Contains(page, c.legend) {
			t.Errorf("name %q: the page lacks %q", c.name, c.legend)
		}
		if c.help != "" && !strings.Contains(page, c.help) {
			t.Errorf("name %q: the page lacks %q", c.name, c.help)
		}
		if c.help == "" && strings.Contains(page, `id="help-why"`) {
			t.Errorf("name %q: an empty help is shown", c.name)
		}
		if strings.Contains(page, textMark) || strings.Contains(page, helpMark) {
			t.Errorf("name %q: a stand-in shows", c.name)
		}
	}
	for _, helped := range []bool{true, false} { // with its help shown, and without
		in, ok := s.views.inputs.cache.Get(inputKey{survey: weak.Make(sv), lang: "en", id: "why", head: true, num: 2, piped: true, helped: helped})
		if !ok || in.perRequest || len(in.choices) < 2 {
			t.Errorf("helped %v: the piped head is not kept in parts: %v %+v", helped, ok, in)
		}
	}
}

// secondPageOf serves sv's first page to a new respondent, sends it on
// with field set to a value, and returns the second page as read.
func secondPageOf(t *testing.T, sv *survey.Survey, field string) (*Server, func(value string) string) {
	t.Helper()
	s, err := New(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Public: benchPublic{tenant: benchTenant(), survey: sv}, Notifier: benchNotifier{}})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	return s, func(value string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, benchPath, nil))
		m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(rec.Body.String())
		if m == nil {
			t.Fatalf("GET = %d without a token", rec.Code)
		}
		req := httptest.NewRequest(http.MethodPost, benchPath, strings.NewReader(url.Values{"token": {m[1]}, "action": {"next"}, field: {value}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("next = %d\n%s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
}
