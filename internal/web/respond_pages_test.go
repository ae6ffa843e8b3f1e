package web_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// threePages is a published survey of three sections: a required text and
// an optional rating; a required choice; a required rating.
func (a *testApp) threePages(t testing.TB, title string) *survey.Survey {
	t.Helper()
	sv := a.publish(t, &survey.Survey{Title: title,
		Sections: []survey.Section{{ID: "you", Title: "About you"}, {ID: "food", Title: "The food", Description: "What you ate"}, {ID: "last", Title: "Last words"}},
		Questions: []survey.Question{
			{Text: "Your name", Type: survey.SimpleText, Section: "you"},
			{Text: "Rate the room", Type: survey.FiveStars, Section: "you", Optional: true},
			{Text: "Pick a dish", Type: survey.MultipleChoice, PossibleAnswers: []string{"Soup", "Salad"}, Section: "food"},
			{Text: "Rate us", Type: survey.FiveStars, Section: "last"},
		}})
	a.pastCacheTTL()
	return sv
}

var stateRE = regexp.MustCompile(`name="state" value="([^"]+)"`)

// formOf reads a page's token and sealed state.
func formOf(t testing.TB, body string) (token, state string) {
	t.Helper()
	m := tokenRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no token in %s", body)
	}
	token = html.UnescapeString(m[1])
	if s := stateRE.FindStringSubmatch(body); s != nil {
		state = html.UnescapeString(s[1])
	}
	return token, state
}

// storedOf lets a worker file what is queued, then counts the stored
// answers of the survey.
func (a *testApp) storedOf(t testing.TB, slug string) int {
	t.Helper()
	w := worker.New(a.st, worker.Config{Batch: 32, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	for {
		n, err := w.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	n := 0
	if err := a.answers.ListAll(context.Background(), "adatum", slug, func(string) error { n++; return nil }); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatal(err)
	}
	return n
}

// post sends a page's form with the token and state and more fields.
func (a *testApp) post(t testing.TB, path, token, state, action string, fields ...string) (int, string) {
	t.Helper()
	v := url.Values{"token": {token}}
	if state != "" {
		v.Set("state", state)
	}
	if action != "" {
		v.Set("action", action)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		v.Add(fields[i], fields[i+1])
	}
	code, _, body := a.do(t, "POST", path, v, nil)
	return code, body
}

func mustContain(t testing.TB, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s: no %q in the page", what, w)
		}
	}
}

func mustLack(t testing.TB, what, body string, absent ...string) {
	t.Helper()
	for _, w := range absent {
		if strings.Contains(body, w) {
			t.Errorf("%s: %q in the page", what, w)
		}
	}
}

// TestPages walks a three-page survey: each page checked as it is left
// (422 beside the question), Back keeps the answers, nothing is stored
// until the last page's submit, which is one answer with every page's
// values, counted once however often the last page is sent again.
func TestPages(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.threePages(t, "Three pages")
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	code, _, body := app.do(t, "GET", path, nil, nil)
	if code != 200 {
		t.Fatalf("GET = %d", code)
	}
	mustContain(t, "page 1", body, "Page 1 of 3", `<progress max="3" value="1" aria-labelledby="page-progress">`, "About you", "4 questions on 3 pages",
		`value="next">Next page</button>`, `value="save">Save and finish later</button>`, "Your name", "Rate the room")
	mustLack(t, "page 1", body, "Pick a dish", `name="state"`, `value="back"`, "Submit answers")
	token, _ := formOf(t, body)

	// Page 1 left without its required answer: 422 beside it.
	code, body = app.post(t, path, token, "", "next", "q-"+q[1].ID, "4")
	if code != 422 {
		t.Fatalf("next without the name = %d", code)
	}
	mustContain(t, "page 1 refused", body, `id="err-`+q[0].ID+`"`, "Page 1 of 3")
	if tok, _ := formOf(t, body); tok != token {
		t.Error("the token changed on a refused page")
	}
	// Page 1 done: page 2, its state sealed.
	code, body = app.post(t, path, token, "", "next", "q-"+q[0].ID, "Ada", "q-"+q[1].ID, "4")
	mustContain(t, "page 2", body, "Page 2 of 3", "The food", "What you ate", "Pick a dish", `value="back">Back</button>`)
	mustLack(t, "page 2", body, "Your name", "Ada</textarea>")
	tok2, state2 := formOf(t, body)
	if code != 200 || tok2 != token || state2 == "" || strings.Contains(state2, "Ada") {
		t.Fatalf("page 2: %d, token %q, state %q", code, tok2, state2)
	}
	// Back to page 1, with what was chosen on page 2 kept.
	code, body = app.post(t, path, token, state2, "back", "q-"+q[2].ID, "Salad")
	mustContain(t, "back to page 1", body, "Page 1 of 3", "Ada</textarea>")
	_, state1 := formOf(t, body)
	if code != 200 {
		t.Fatalf("back = %d", code)
	}
	// Forward again: page 2 shows Salad chosen.
	_, body = app.post(t, path, token, state1, "next", "q-"+q[0].ID, "Ada", "q-"+q[1].ID, "4")
	mustContain(t, "page 2 again", body, `value="Salad" checked`)
	_, state2 = formOf(t, body)
	// Page 2 left without its choice: 422.
	if code, body = app.post(t, path, token, state2, "next"); code != 422 {
		t.Fatalf("page 2 without a choice = %d", code)
	}
	mustContain(t, "page 2 refused", body, `id="err-`+q[2].ID+`"`, "Page 2 of 3")
	_, body = app.post(t, path, token, state2, "next", "q-"+q[2].ID, "Soup")
	mustContain(t, "page 3", body, "Page 3 of 3", `value="submit">Submit answers</button>`)
	_, state3 := formOf(t, body)
	if n := app.storedOf(t, sv.Slug); n != 0 {
		t.Fatalf("%d answers stored before the last page", n)
	}
	// The last page without its rating: 422; with it: 303, one answer.
	if code, _ := app.post(t, path, token, state3, "submit"); code != 422 {
		t.Fatalf("submit without the rating = %d", code)
	}
	for range 2 {
		if code, _ := app.post(t, path, token, state3, "submit", "q-"+q[3].ID, "5"); code != 303 {
			t.Fatalf("submit = %d", code)
		}
	}
	// The browser's back button: page 2 sent again, then the last page.
	app.post(t, path, token, state2, "next", "q-"+q[2].ID, "Salad")
	if code, _ := app.post(t, path, token, state3, "submit", "q-"+q[3].ID, "3"); code != 303 {
		t.Fatalf("submit again = %d", code)
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Fatalf("%d answers stored, want 1", n)
	}
	a, err := app.answers.Get(context.Background(), "adatum", sv.Slug, answerID(token))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, qa := range a.Answers {
		got[qa.QuestionText] = qa.Answer
	}
	if got["Your name"] != "Ada" || got["Rate the room"] != "4" || got["Pick a dish"] != "Soup" || got["Rate us"] != "5" {
		t.Errorf("stored %v", got)
	}
}

// TestPageStateRefused: a state altered, of another form, or of another
// survey is a 422 and nothing is stored; without a state, a multi-page
// survey cannot be submitted from its first page.
func TestPageStateRefused(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.threePages(t, "Sealed pages")
	other := app.threePages(t, "Other pages")
	path, otherPath := "/survey/adatum/"+sv.Slug, "/survey/adatum/"+other.Slug
	q := sv.Questions
	token := app.token(t, path)
	_, body := app.post(t, path, token, "", "next", "q-"+q[0].ID, "Ada")
	_, state := formOf(t, body)
	_, body = app.post(t, path, token, state, "next", "q-"+q[2].ID, "Soup")
	_, state3 := formOf(t, body)
	altered := []byte(state3)
	at := len(altered) / 2
	if altered[at] == 'A' {
		altered[at] = 'B'
	} else {
		altered[at] = 'A'
	}
	otherToken := app.token(t, path)
	for _, tc := range []struct {
		name               string
		path, token, state string
	}{
		{"altered", path, token, string(altered)},
		{"cut", path, token, state3[:len(state3)-4]},
		{"garbage", path, token, "v1:not sealed at all"},
		{"another form's token", path, otherToken, state3},
		{"another survey", otherPath, token, state3},
		{"a forged token", path, "0639319281967095294-57ffb6.AAAAAAAAAAAAAAAAAAAAAA", state3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := app.post(t, tc.path, tc.token, tc.state, "submit", "q-"+q[3].ID, "5")
			if code != 422 {
				t.Fatalf("= %d", code)
			}
			mustContain(t, tc.name, body, "could not be read")
		})
	}
	// No state: the first page, whatever else is sent.
	code, body := app.post(t, path, token, "", "submit", "q-"+q[0].ID, "Ada", "q-"+q[2].ID, "Soup", "q-"+q[3].ID, "5")
	if code != 200 {
		t.Fatalf("a first page sent as the last = %d", code)
	}
	mustContain(t, "first page sent as the last", body, "Page 2 of 3")
	if n, m := app.storedOf(t, sv.Slug), app.storedOf(t, other.Slug); n != 0 || m != 0 {
		t.Fatalf("stored %d and %d", n, m)
	}
}

// TestSinglePageUnchanged: a survey of one section (or none) has no pages:
// no progress, no state, one Submit button, and is served from the
// rendered-once form.
func TestSinglePageUnchanged(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "One section", Sections: []survey.Section{{ID: "only", Title: "Only"}},
		Questions: []survey.Question{{Text: "Say", Type: survey.SimpleText, Section: "only"}}})
	app.pastCacheTTL()
	for _, path := range []string{app.path(), "/survey/adatum/" + sv.Slug} {
		code, _, body := app.do(t, "GET", path, nil, nil)
		if code != 200 {
			t.Fatalf("GET %s = %d", path, code)
		}
		mustLack(t, path, body, "Page 1 of", "<progress", `name="state"`, "Save and finish later", `value="next"`)
		mustContain(t, path, body, `<button class="button primary" type="submit">Submit answers</button>`)
	}
}

// TestSectionShuffle: a section that shuffles shows its questions in an
// order of each respondent's own, the same on every view of their form.
func TestSectionShuffle(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	var qs []survey.Question
	for _, text := range []string{"Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"} {
		qs = append(qs, survey.Question{Text: text, Type: survey.SimpleText, Optional: true, Section: "mixed"})
	}
	qs = append(qs, survey.Question{Text: "Last", Type: survey.SimpleText, Optional: true, Section: "last"})
	sv := app.publish(t, &survey.Survey{Title: "Shuffled", Sections: []survey.Section{{ID: "mixed", Shuffle: true}, {ID: "last"}}, Questions: qs})
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	order := func(body string) string {
		var out []string
		for _, m := range regexp.MustCompile(`</span> (Alpha|Bravo|Charlie|Delta|Echo|Foxtrot) <span`).FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, ",")
	}
	orders := map[string]bool{}
	for range 5 {
		_, _, body := app.do(t, "GET", path, nil, nil)
		token, _ := formOf(t, body)
		first := order(body)
		// The same form again (a refused page) keeps its order.
		_, body = app.post(t, path, token, "", "next", "q-"+qs[0].ID, strings.Repeat("x", survey.MaxTextAnswerLength+1))
		if again := order(body); again != first {
			t.Fatalf("order %s, then %s", first, again)
		}
		orders[first] = true
	}
	if len(orders) < 2 {
		t.Errorf("five respondents saw one order: %v", orders)
	}
}

var resumeRE = regexp.MustCompile(`href="(/survey/adatum/[^/"]+/resume/[0-9a-f]{32})"`)

// TestSaveAndResume: "Save and finish later" stores one blob and gives a
// link that brings the respondent back to their page with their answers
// and their form; it is gone once they submit; a survey's deletion
// removes its saved blobs, and a closed survey's link shows it closed.
func TestSaveAndResume(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.threePages(t, "Resume later")
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	token := app.token(t, path)
	_, body := app.post(t, path, token, "", "next", "q-"+q[0].ID, "Ada")
	_, state := formOf(t, body)
	code, body := app.post(t, path, token, state, "save", "q-"+q[2].ID, "Salad")
	m := resumeRE.FindStringSubmatch(body)
	if code != 200 || m == nil {
		t.Fatalf("save = %d, link %v", code, m)
	}
	link := m[1]
	mustContain(t, "saved", body, "Page 2 of 3", `value="Salad" checked`)
	// Saved again from the page it shows: the same blob.
	_, saved := formOf(t, body)
	_, body = app.post(t, path, token, saved, "save", "q-"+q[2].ID, "Soup")
	if m := resumeRE.FindStringSubmatch(body); m == nil || m[1] != link {
		t.Fatalf("a second save gave %v, want %s", m, link)
	}
	if n := app.blobs(t, store.ResumeContainer); n != 1 {
		t.Fatalf("%d saved blobs, want 1", n)
	}
	// Back by the link: page 2, the answers, the same form.
	code, _, body = app.do(t, "GET", link, nil, nil)
	if code != 200 {
		t.Fatalf("GET %s = %d", link, code)
	}
	mustContain(t, "resumed", body, "Page 2 of 3", `value="Soup" checked`)
	tok, st := formOf(t, body)
	if tok != token {
		t.Fatal("resumed with another token")
	}
	_, body = app.post(t, path, tok, st, "back", "q-"+q[2].ID, "Soup")
	mustContain(t, "resumed, back", body, "Ada</textarea>")
	_, st = formOf(t, body)
	_, body = app.post(t, path, tok, st, "next", "q-"+q[0].ID, "Ada")
	_, st = formOf(t, body)
	_, body = app.post(t, path, tok, st, "next", "q-"+q[2].ID, "Soup")
	_, st = formOf(t, body)
	if code, _ := app.post(t, path, tok, st, "submit", "q-"+q[3].ID, "5"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	if n := app.blobs(t, store.ResumeContainer); n != 0 {
		t.Errorf("%d saved blobs after the submit", n)
	}
	if code, _, _ := app.do(t, "GET", link, nil, nil); code != 404 {
		t.Errorf("the link after the submit = %d", code)
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Errorf("%d answers", n)
	}

	// Another tenant's path, a bad key: 404, nothing read.
	for _, p := range []string{strings.Replace(link, "/adatum/", "/fabrikam/", 1), path + "/resume/NOTAKEY", path + "/resume/" + strings.Repeat("0", 32)} {
		if code, _, _ := app.do(t, "GET", p, nil, nil); code != 404 {
			t.Errorf("GET %s = %d", p, code)
		}
	}

	// A save, then the survey closes: the link shows it closed and the
	// blob goes; another save, then the survey is deleted: gone too.
	token = app.token(t, path)
	_, body = app.post(t, path, token, "", "save", "q-"+q[0].ID, "Bob")
	link = resumeRE.FindStringSubmatch(body)[1]
	ctx := context.Background()
	if _, err := app.surveys.SetState(ctx, "adatum", sv.Slug, survey.Closed); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	if code, _, _ := app.do(t, "GET", link, nil, nil); code != 410 {
		t.Errorf("the link of a closed survey = %d", code)
	}
	if n := app.blobs(t, store.ResumeContainer); n != 0 {
		t.Errorf("%d saved blobs after the closed survey's link", n)
	}
	if _, err := app.surveys.SetState(ctx, "adatum", sv.Slug, survey.Published); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	token = app.token(t, path)
	app.post(t, path, token, "", "save", "q-"+q[0].ID, "Eve")
	if n := app.blobs(t, store.ResumeContainer); n != 1 {
		t.Fatalf("%d saved blobs", n)
	}
	if err := app.surveys.Delete(ctx, "adatum", sv.Slug); err != nil {
		t.Fatal(err)
	}
	if n := app.blobs(t, store.ResumeContainer); n != 0 {
		t.Errorf("%d saved blobs after the survey's deletion", n)
	}
}

// blobs counts a container's blobs.
func (a *testApp) blobs(t testing.TB, container string) int {
	t.Helper()
	page, err := a.st.ListBlobs(context.Background(), container, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}

// TestPageCheckFollowsLogic: a page is checked with the answers of the
// pages before it, so a question shown only after "Yes" on page 1 is
// required on page 2 after Yes; after No, page 2 would show nothing, so
// page 1 is the last and its Next sends the answer.
func TestPageCheckFollowsLogic(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Logic pages",
		Sections: []survey.Section{{ID: "one"}, {ID: "two", Title: "More"}},
		Questions: []survey.Question{
			{ID: "a", Text: "Did you eat?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Section: "one"},
			{ID: "b", Text: "What did you eat?", Type: survey.SimpleText, Section: "two",
				ShowIf: &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "a", Op: "equals", Values: []string{"Yes"}}}}},
		}})
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	for _, c := range []struct {
		ate  string
		want int // the last page sent empty
	}{{"Yes", 422}, {"No", 303}} {
		_, _, body := app.do(t, "GET", path, nil, nil)
		token, _ := formOf(t, body)
		code, body := app.post(t, path, token, "", "next", "q-"+q[0].ID, c.ate)
		if c.ate == "No" {
			if code != 303 {
				t.Fatalf("%s: page 1 = %d, want 303 (the last page)", c.ate, code)
			}
			continue
		}
		if code != 200 {
			t.Fatalf("%s: page 1 = %d", c.ate, code)
		}
		_, st := formOf(t, body)
		code, body = app.post(t, path, token, st, "submit")
		if code != c.want {
			t.Fatalf("%s: page 2 sent empty = %d, want %d", c.ate, code, c.want)
		}
		if c.want == 422 {
			mustContain(t, c.ate, body, `id="err-`+q[1].ID+`"`)
		}
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Fatalf("%d answers stored, want 1 (the No)", n)
	}
}

// TestLanguageSwitchKeepsPage: on page 2 of three, the language menu is
// in the form; choosing French shows page 2 again, in French, with its
// answer and the earlier page's kept, and remembers the choice; the
// answer sent at the end has every page's values.
func TestLanguageSwitchKeepsPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.threePages(t, "Switch")
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	_, _, body := app.do(t, "GET", path, nil, nil)
	mustContain(t, "page 1", body, `href="`+path+`?lang=fr"`)
	tok, st := formOf(t, body)
	code, body := app.post(t, path, tok, st, "next", "q-"+q[0].ID, "Ana")
	if code != 200 {
		t.Fatalf("next = %d", code)
	}
	mustContain(t, "page 2", body, `value="lang.fr"`, "Page 2 of 3")
	mustLack(t, "page 2", body, `href="`+path+`?lang=fr"`)
	tok, st = formOf(t, body)
	v := url.Values{"token": {tok}, "state": {st}, "action": {"lang.fr"}, "q-" + q[2].ID: {"Salad"}}
	code, h, body := app.do(t, "POST", path, v, nil)
	if code != 200 || !strings.Contains(body, `<html lang="fr"`) || !strings.Contains(h.Get("Set-Cookie"), "lang=fr") {
		t.Fatalf("French = %d, cookie %q\n%s", code, h.Get("Set-Cookie"), body)
	}
	mustContain(t, "page 2 in French", body, "Page 2 sur 3", `value="Salad" checked`)
	tok, st = formOf(t, body)
	if code, body = app.post(t, path, tok, st, "next", "q-"+q[2].ID, "Salad"); code != 200 {
		t.Fatalf("next = %d", code)
	}
	tok, st = formOf(t, body)
	if code, _ := app.post(t, path, tok, st, "submit", "q-"+q[3].ID, "4"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Fatalf("%d answers stored", n)
	}
	var got []string
	_ = app.answers.ListAll(context.Background(), "adatum", sv.Slug, func(id string) error {
		a, err := app.answers.Get(context.Background(), "adatum", sv.Slug, id)
		if err == nil {
			for _, qa := range a.Answers {
				got = append(got, qa.Answer)
			}
		}
		return nil
	})
	if strings.Join(got, ",") != "Ana,Salad,4" {
		t.Fatalf("stored %q", got)
	}
}
