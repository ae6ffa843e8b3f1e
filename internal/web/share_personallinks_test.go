package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// oncePoll is a published one-question survey of adatum with the setting.
func (a *testApp) oncePoll(t *testing.T, title string, onePer survey.OnePer, mayChange bool) *survey.Survey {
	t.Helper()
	sv := a.publish(t, &survey.Survey{Title: title, OnePer: onePer, MayChange: mayChange,
		Questions: []survey.Question{{Text: "Rate the talk", Type: survey.FiveStars}}})
	a.pastCacheTTL()
	return sv
}

// countAnswers runs the worker, then counts sv's filed answers and its
// summary's.
func (a *testApp) countAnswers(t *testing.T, sv *survey.Survey) (filed int, counted int64, stars [5]int64) {
	t.Helper()
	a.stored(t)
	ctx := context.Background()
	if err := a.answers.ListAll(ctx, sv.Tenant, sv.Slug, func(string) error { filed++; return nil }); err != nil {
		t.Fatal(err)
	}
	sum, _, err := store.NewSurveyAnswersSummaryStore(a.st).Get(ctx, sv.Tenant, sv.Slug)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return filed, 0, stars
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := sum.Questions[0].Stars; s != nil {
		stars = *s
	}
	return filed, sum.TotalAnswers, stars
}

// TestOnePerBrowser: the answer sets a cookie of the survey's path; with
// it the form is "already answered" and a second submit is refused (409),
// nothing stored. Without the cookie (another browser) it answers again:
// a courtesy, not a security.
func TestOnePerBrowser(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.oncePoll(t, "Once per browser", survey.OnePerBrowser, false)
	path := "/survey/adatum/" + sv.Slug
	star := "q-" + sv.Questions[0].ID
	tok := app.token(t, path)
	code, h, body := app.do(t, "POST", path, url.Values{"token": {tok}, star: {"4"}}, nil)
	if code != http.StatusSeeOther {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	cookie := h.Get("Set-Cookie")
	for _, want := range []string{"answered=1", "Path=" + path, "HttpOnly", "SameSite=Lax", "Max-Age="} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie %q lacks %q", cookie, want)
		}
	}
	with := map[string]string{"Cookie": "answered=1"}
	code, _, body = app.do(t, "GET", path, nil, with)
	if code != http.StatusOK || !strings.Contains(body, "You have already answered this survey") || strings.Contains(body, `name="token"`) {
		t.Fatalf("GET with the cookie = %d\n%s", code, body)
	}
	code, _, body = app.do(t, "POST", path, url.Values{"token": {app.token(t, path)}, star: {"1"}}, with)
	if code != http.StatusConflict || !strings.Contains(body, "You have already answered this survey") {
		t.Fatalf("second answer with the cookie = %d\n%s", code, body)
	}
	if filed, counted, _ := app.countAnswers(t, sv); filed != 1 || counted != 1 {
		t.Fatalf("filed %d, counted %d; want 1", filed, counted)
	}
	// Another browser answers: the cookie is a courtesy.
	if code, _, _ := app.do(t, "POST", path, url.Values{"token": {app.token(t, path)}, star: {"2"}}, nil); code != http.StatusSeeOther {
		t.Fatalf("another browser = %d", code)
	}
	// A survey without the setting sets no cookie.
	code, h, _ = app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil)
	if code != http.StatusSeeOther || h.Get("Set-Cookie") != "" {
		t.Fatalf("plain survey = %d, Set-Cookie %q", code, h.Get("Set-Cookie"))
	}
}

var madeLinkRE = regexp.MustCompile(`href="(http[^"]+\?k=(plk_[A-Za-z0-9_-]{43}))"`)

// makeLinks makes n personal links to sv as the signed-in editor and
// returns their tokens.
func (a *testApp) makeLinks(t *testing.T, sv *survey.Survey, editor map[string]string, n int) []string {
	t.Helper()
	code, _, body := a.do(t, "POST", "/adatum/surveys/"+sv.Slug+"/links", url.Values{"count": {strconv.Itoa(n)}}, editor)
	if code != http.StatusOK {
		t.Fatalf("make links = %d\n%s", code, body)
	}
	var tokens []string
	for _, m := range madeLinkRE.FindAllStringSubmatch(body, -1) {
		tokens = append(tokens, m[2])
	}
	if len(tokens) != n {
		t.Fatalf("made %d links, want %d\n%s", len(tokens), n, body)
	}
	return tokens
}

// TestPersonalLinks: an editor makes links (by count, by address, as
// CSV); bad input is a 422 beside the field and makes nothing. Without a
// valid link of this survey the survey is by invitation (403); with one it
// takes one answer: the same form again is that answer (counted once), a
// new form is "already answered" (409), nothing stored; the links page
// shows it used.
func TestPersonalLinks(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.oncePoll(t, "By invitation", survey.OnePerLink, false)
	other := app.oncePoll(t, "Another by invitation", survey.OnePerLink, false)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	links := "/adatum/surveys/" + sv.Slug + "/links"
	path := "/survey/adatum/" + sv.Slug
	star := "q-" + sv.Questions[0].ID

	// Bad requests: 422 beside the field, nothing made.
	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
		want  string
	}{
		{"no count", url.Values{"count": {""}}, "count-error", "Say how many links"},
		{"not a number", url.Values{"count": {"ten"}}, "count-error", "from 1 to 1000"},
		{"zero", url.Values{"count": {"0"}}, "count-error", "from 1 to 1000"},
		{"too many", url.Values{"count": {"1001"}}, "count-error", "from 1 to 1000"},
		{"bad address", url.Values{"emails": {"ana@example.com\n\nnot-an-address\nbo@example.com"}}, "emails-error", "Line 3 is not an email address"},
		{"both", url.Values{"count": {"2"}, "emails": {"ana@example.com"}}, "count-error", "not both"},
	} {
		code, _, body := app.do(t, "POST", links, tc.form, editor)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="`+tc.field+`">`+tc.want) && !strings.Contains(body, tc.want) || !strings.Contains(body, tc.field) {
			t.Errorf("%s = %d\n%s", tc.name, code, body)
		}
	}
	if l, _ := store.NewPersonalLinkStore(app.st).List(context.Background(), "adatum", sv.Slug); len(l) != 0 {
		t.Fatalf("bad requests made %d links", len(l))
	}

	// By address, downloaded: formula-safe.
	code, h, body := app.do(t, "POST", links, url.Values{"emails": {"ana@example.com\r\n=cmd@example.com\n"}, "download": {"1"}}, editor)
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") || !strings.Contains(h.Get("Content-Disposition"), "attachment") ||
		!strings.HasPrefix(body, "email,link\n") || !strings.Contains(body, "\n'=cmd@example.com,http") || strings.Count(body, "?k=plk_") != 2 {
		t.Fatalf("CSV of new links = %d %v\n%s", code, h, body)
	}
	tokens := app.makeLinks(t, sv, editor, 2)
	otherTokens := app.makeLinks(t, other, editor, 1)

	// Without a valid link of this survey: by invitation, nothing stored.
	valid := tokens[0]
	for _, tc := range []struct{ name, k string }{
		{"no link", ""},
		{"malformed", "plk_short"},
		{"altered", valid[:len(valid)-2] + "AA"},
		{"another survey's", otherTokens[0]},
		{"a sign-in link's form", strings.Replace(valid, "plk_", "lnk_", 1)},
	} {
		code, h, body := app.do(t, "GET", path+"?k="+url.QueryEscape(tc.k), nil, nil)
		if code != http.StatusForbidden || !strings.Contains(body, "This survey is by invitation: use the link you received") || strings.Contains(body, `name="token"`) {
			t.Errorf("GET with %s = %d\n%s", tc.name, code, body)
		}
		if h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET with %s: Referrer-Policy %q", tc.name, h.Get("Referrer-Policy"))
		}
		code, _, _ = app.do(t, "POST", path, url.Values{"token": {app.token(t, app.path())}, "k": {tc.k}, star: {"3"}}, nil)
		if code != http.StatusForbidden {
			t.Errorf("POST with %s = %d", tc.name, code)
		}
	}
	// Another tenant's path with this survey's link.
	if code, _, _ := app.do(t, "GET", "/survey/fabrikam/"+sv.Slug+"?k="+valid, nil, nil); code/100 != 4 {
		t.Errorf("another tenant's path = %d", code)
	}

	// With the link: the form carries it, and takes one answer.
	code, _, body = app.do(t, "GET", path+"?k="+valid, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, `name="k" value="`+valid+`"`) {
		t.Fatalf("GET with the link = %d\n%s", code, body)
	}
	form := url.Values{"token": {tokenRE.FindStringSubmatch(body)[1]}, "k": {valid}, star: {"4"}}
	if code, _, body := app.do(t, "POST", path, form, nil); code != http.StatusSeeOther {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	// The same form again (a retry): the same answer, thanked again,
	// counted once; a new form: already answered.
	if code, _, body := app.do(t, "POST", path, form, nil); code != http.StatusSeeOther {
		t.Fatalf("the same form again = %d\n%s", code, body)
	}
	if code, _, body := app.do(t, "GET", path+"?k="+valid, nil, nil); code != http.StatusOK || !strings.Contains(body, "You have already answered") || strings.Contains(body, `name="token"`) {
		t.Fatalf("GET with the used link = %d\n%s", code, body)
	}
	form2 := url.Values{"token": {app.token(t, path+"?k="+tokens[1])}, "k": {valid}, star: {"1"}}
	if code, _, _ := app.do(t, "POST", path, form2, nil); code != http.StatusConflict {
		t.Fatalf("a new form with the used link = %d", code)
	}
	if filed, counted, stars := app.countAnswers(t, sv); filed != 1 || counted != 1 || stars[3] != 1 {
		t.Fatalf("filed %d, counted %d (%v); want one answer of 4 stars", filed, counted, stars)
	}

	// The editor sees it used, on the page and in the CSV.
	code, _, body = app.do(t, "GET", links, nil, editor)
	if code != http.StatusOK || !strings.Contains(body, "4 links, 1 used") || strings.Contains(body, valid) {
		t.Fatalf("links page = %d\n%s", code, body)
	}
	code, _, body = app.do(t, "GET", links+".csv", nil, editor)
	if code != http.StatusOK || !strings.HasPrefix(body, "id,email,created,used\n") || strings.Count(body, "\n") != 5 ||
		!regexp.MustCompile(`,\d{4}-\d\d-\d\dT[^,\n]+Z\n`).MatchString(body) || strings.Contains(body, "plk_") {
		t.Fatalf("links CSV = %d\n%s", code, body)
	}
}

// TestPersonalLinkChange: with changes allowed, a used link opens the form
// with the earlier answer, and the new answer replaces it in the summary
// exactly once (sending the change twice changes nothing more).
func TestPersonalLinkChange(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.oncePoll(t, "Changeable", survey.OnePerLink, true)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	k := app.makeLinks(t, sv, editor, 1)[0]
	path := "/survey/adatum/" + sv.Slug
	star := "q-" + sv.Questions[0].ID
	first := url.Values{"token": {app.token(t, path+"?k="+k)}, "k": {k}, star: {"2"}}
	if code, _, body := app.do(t, "POST", path, first, nil); code != http.StatusSeeOther {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	if filed, counted, stars := app.countAnswers(t, sv); filed != 1 || counted != 1 || stars[1] != 1 {
		t.Fatalf("first: filed %d, counted %d, %v", filed, counted, stars)
	}
	code, _, body := app.do(t, "GET", path+"?k="+k, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "You may change your answer") || !regexp.MustCompile(`value="2"[^>]*checked`).MatchString(body) {
		t.Fatalf("GET to change = %d\n%s", code, body)
	}
	change := url.Values{"token": {tokenRE.FindStringSubmatch(body)[1]}, "k": {k}, star: {"5"}}
	for range 2 {
		if code, _, body := app.do(t, "POST", path, change, nil); code != http.StatusSeeOther {
			t.Fatalf("change = %d\n%s", code, body)
		}
	}
	// The first answer, sent again, may not come back.
	if code, _, _ := app.do(t, "POST", path, first, nil); code != http.StatusConflict {
		t.Fatalf("the replaced answer again = %d", code)
	}
	app.countAnswers(t, sv)
	// The replaced answer may have been counted after the change was sent:
	// the links page settles what is left.
	if _, _, body := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/links", nil, editor); !strings.Contains(body, "1 link, 1 used") {
		t.Fatalf("links page:\n%s", body)
	}
	_, counted, stars := app.countAnswers(t, sv)
	if counted != 1 || stars != [5]int64{0, 0, 0, 0, 1} {
		t.Fatalf("after the change: counted %d, stars %v; want one answer of 5 stars", counted, stars)
	}
	l, _ := store.NewPersonalLinkStore(app.st).Get(context.Background(), "adatum", sv.Slug, k)
	if len(l.Pending) != 0 || len(l.Replaced) != 1 {
		t.Fatalf("replaced %v, left to settle %v", l.Replaced, l.Pending)
	}
}

// TestPersonalLinkTwoServers: two servers over one Azure storage
// (Azurite), answers sent at once with one link to both: one is
// acknowledged, the others are "already answered", and one is stored.
func TestPersonalLinkTwoServers(t *testing.T) {
	st := backends.Azure(t)
	a, b := newTestAppOn(t, st), newTestAppOn(t, st)
	sv := a.oncePoll(t, "Race", survey.OnePerLink, false)
	a.deleteAtEnd(t, sv)
	editor := a.signedIn(t, "adatum", "ed@adatum.example")
	k := a.makeLinks(t, sv, editor, 1)[0]
	path := "/survey/adatum/" + sv.Slug
	star := "q-" + sv.Questions[0].ID
	const n = 6
	forms := make([]url.Values, n)
	for i := range forms {
		app := []*testApp{a, b}[i%2]
		forms[i] = url.Values{"token": {app.token(t, path+"?k="+k)}, "k": {k}, star: {strconv.Itoa(1 + i%5)}}
	}
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = []*testApp{a, b}[i%2].do(t, "POST", path, forms[i], nil)
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case http.StatusSeeOther:
			ok++
		case http.StatusConflict:
		default:
			t.Errorf("status %d", c)
		}
	}
	if filed, counted, _ := a.countAnswers(t, sv); ok != 1 || filed != 1 || counted != 1 {
		t.Fatalf("statuses %v: %d acknowledged, %d filed, %d counted; want 1", codes, ok, filed, counted)
	}
}

// TestOnePerSetting: the designer and the API save the setting; a bad one
// is a 422 beside the field.
func TestOnePerSetting(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	form := url.Values{"title": {"Setting"}, "n": {"1"}, "q.0.text": {"Why?"}, "q.0.type": {"SimpleText"}, "q.0.pos": {"1"},
		"onePer": {"link"}, "mayChange": {"1"}, "action": {"save"}}
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, body)
	}
	slug := strings.Split(h.Get("Location"), "/")[3]
	sv, err := app.surveys.Get(context.Background(), "adatum", slug)
	if err != nil || sv.OnePer != survey.OnePerLink || !sv.MayChange {
		t.Fatalf("saved %+v, %v", sv, err)
	}
	if _, _, body := app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, editor); !regexp.MustCompile(`value="link"[^>]*checked`).MatchString(body) {
		t.Fatalf("designer does not show the setting\n%s", body)
	}
	form.Set("onePer", "everyone")
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="onePer-err"`) {
		t.Fatalf("bad setting = %d\n%s", code, body)
	}
	// The API.
	tok, err := store.NewTokenStore(app.st).Create(context.Background(), "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, got, raw := app.api(t, "POST", "/api/v1/surveys", tok, `{"title":"API once","onePer":"browser","questions":[{"text":"Why?","type":"SimpleText"}]}`)
	if code != http.StatusCreated || got["onePer"] != "browser" {
		t.Fatalf("API create = %d %s", code, raw)
	}
	code, got, raw = app.api(t, "GET", "/api/v1/surveys/"+got["slug"].(string), tok, "")
	if code != http.StatusOK || got["onePer"] != "browser" {
		t.Fatalf("API get = %d %s", code, raw)
	}
	code, _, raw = app.api(t, "POST", "/api/v1/surveys", tok, `{"title":"API bad","onePer":"sometimes","questions":[{"text":"Why?","type":"SimpleText"}]}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(raw, "onePer") {
		t.Fatalf("API bad setting = %d %s", code, raw)
	}
}

// TestPersonalLinksByMail: with e-mail on, each address pasted gets its
// own link, which answers the survey.
func TestPersonalLinksByMail(t *testing.T) {
	t.Parallel()
	box := &outbox{}
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = box, testPublicURL })
	sv := app.oncePoll(t, "Mailed poll", survey.OnePerLink, false)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	code, _, body := app.do(t, "POST", "/adatum/surveys/"+sv.Slug+"/links", url.Values{"emails": {"ana@example.com\nbo@example.com\n"}}, editor)
	if code != http.StatusOK || !strings.Contains(body, "2 links sent by e-mail") {
		t.Fatalf("make links = %d\n%s", code, body)
	}
	sent := box.messages()
	if len(sent) != 2 || sent[0].To != "ana@example.com" || sent[1].To != "bo@example.com" {
		t.Fatalf("sent %+v", sent)
	}
	links := map[string]bool{}
	for _, m := range sent {
		k := regexp.MustCompile(`\?k=(plk_[A-Za-z0-9_-]{43})`).FindStringSubmatch(m.Text)
		// The subject names the organisation, not the survey's title,
		// which the body quotes.
		if k == nil || m.Subject != "Adatum asks for your answers to a survey" || !strings.Contains(m.Text, `"Mailed poll"`) ||
			!strings.Contains(m.Text, "an organisation using Surveys at "+strings.TrimPrefix(testPublicURL, "https://")) || !strings.Contains(m.HTML, k[1]) {
			t.Fatalf("message %+v", m)
		}
		links[k[1]] = true
	}
	if len(links) != 2 {
		t.Fatalf("the two messages share a link")
	}
	for k := range links {
		path := "/survey/adatum/" + sv.Slug
		form := url.Values{"token": {app.token(t, path+"?k="+k)}, "k": {k}, "q-" + sv.Questions[0].ID: {"5"}}
		if code, _, body := app.do(t, "POST", path, form, nil); code != http.StatusSeeOther {
			t.Fatalf("answer with a mailed link = %d\n%s", code, body)
		}
	}
	if filed, counted, _ := app.countAnswers(t, sv); filed != 2 || counted != 2 {
		t.Fatalf("filed %d, counted %d; want 2", filed, counted)
	}
}

// TestPersonalLinkCrashBeforeQueue: a server that marked the link and died
// before queueing the answer loses nothing: the earlier answer stays
// counted (the links page does not settle a change whose answer is not
// filed), and the form sent again is queued and replaces it once.
func TestPersonalLinkCrashBeforeQueue(t *testing.T) {
	t.Parallel()
	for _, mayChange := range []bool{false, true} {
		app := newTestApp(t)
		sv := app.oncePoll(t, "Crash", survey.OnePerLink, mayChange)
		editor := app.signedIn(t, "adatum", "ed@adatum.example")
		k := app.makeLinks(t, sv, editor, 1)[0]
		path := "/survey/adatum/" + sv.Slug
		star := "q-" + sv.Questions[0].ID
		want := [5]int64{}
		if mayChange {
			first := url.Values{"token": {app.token(t, path+"?k="+k)}, "k": {k}, star: {"2"}}
			if code, _, _ := app.do(t, "POST", path, first, nil); code != http.StatusSeeOther {
				t.Fatalf("first answer = %d", code)
			}
			app.countAnswers(t, sv)
		}
		form := url.Values{"token": {app.token(t, path+"?k="+k)}, "k": {k}, star: {"5"}}
		// The crash: the link marked with the answer, nothing queued.
		if _, err := store.NewPersonalLinkStore(app.st).Use(context.Background(), "adatum", sv.Slug, k, answerID(form.Get("token")), mayChange); err != nil {
			t.Fatal(err)
		}
		app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/links", nil, editor)
		_, counted, stars := app.countAnswers(t, sv)
		if mayChange && (counted != 1 || stars[1] != 1) || !mayChange && counted != 0 {
			t.Fatalf("mayChange %v, after the crash: counted %d, %v", mayChange, counted, stars)
		}
		// The respondent sends the form again.
		if code, _, body := app.do(t, "POST", path, form, nil); code != http.StatusSeeOther {
			t.Fatalf("mayChange %v: the form again = %d\n%s", mayChange, code, body)
		}
		app.countAnswers(t, sv)
		app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/links", nil, editor)
		want[4] = 1
		if _, counted, stars := app.countAnswers(t, sv); counted != 1 || stars != want {
			t.Fatalf("mayChange %v, in the end: counted %d, %v", mayChange, counted, stars)
		}
	}
}

// TestPersonalLinkChangeBeforeCounted: the holder of a link changes their
// answer before the worker has counted the first one, so the change
// cannot delete it yet; once the worker has counted both, the server
// deletes the replaced one in the background (no one opens the links
// page), and the summary holds the new answer alone.
func TestPersonalLinkChangeBeforeCounted(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.oncePoll(t, "Changed at once", survey.OnePerLink, true)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	k := app.makeLinks(t, sv, editor, 1)[0]
	path := "/survey/adatum/" + sv.Slug
	star := "q-" + sv.Questions[0].ID
	first := url.Values{"token": {app.token(t, path+"?k="+k)}, "k": {k}, star: {"2"}}
	if code, _, body := app.do(t, "POST", path, first, nil); code != http.StatusSeeOther {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	// Not counted yet: the change comes first.
	change := url.Values{"token": {app.token(t, path+"?k="+k)}, "k": {k}, star: {"5"}}
	if code, _, body := app.do(t, "POST", path, change, nil); code != http.StatusSeeOther {
		t.Fatalf("change = %d\n%s", code, body)
	}
	if _, counted, _ := app.countAnswers(t, sv); counted != 2 {
		t.Fatalf("the worker counted %d answers, want both for now", counted)
	}
	// The summary is written before the link is settled: both are
	// waited for.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, counted, stars := app.countAnswers(t, sv)
		l, err := store.NewPersonalLinkStore(app.st).Get(context.Background(), "adatum", sv.Slug, k)
		if err != nil {
			t.Fatal(err)
		}
		if counted == 1 && stars == [5]int64{0, 0, 0, 0, 1} && len(l.Pending) == 0 && len(l.Replaced) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replaced answer is still counted or not settled: %d answers, stars %v; replaced %v, left to settle %v", counted, stars, l.Replaced, l.Pending)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
