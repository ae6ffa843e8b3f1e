package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

var hiddenInputRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// hiddenInputs are the hidden fields of a page's forms, by name.
func hiddenInputs(body string) url.Values {
	v := url.Values{}
	for _, m := range hiddenInputRE.FindAllStringSubmatch(body, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// copyApp is the test server with e-mail on (an outbox), the mail quotas
// and the copies' limits, and a published survey that offers copies: an
// e-mail question, a written one, stars, and a hidden field.
func copyApp(t *testing.T, limits web.Limits, quota store.MailLimits) (*testApp, *outbox, *survey.Survey) {
	t.Helper()
	box := &outbox{}
	st := backends.Local(t)
	app := newTestAppOn(t, st, func(d *web.Deps) {
		d.Mail, d.PublicURL = box, testPublicURL
		d.MailQuota = store.NewMailQuotaStore(st, store.MailQuota{Paid: quota, Trial: quota})
		limits.TrustedProxies = d.Limits.TrustedProxies
		d.Limits = limits
	})
	sv := app.publish(t, &survey.Survey{Title: "Copy poll", SendCopy: true, HiddenFields: []string{"source"}, Questions: []survey.Question{
		{Text: "Your e-mail", Type: survey.ShortText, Format: "email", Optional: true},
		{Text: "What did you like?", Type: survey.SimpleText},
		{Text: "Rate the day", Type: survey.FiveStars},
	}})
	app.pastCacheTTL()
	return app, box, sv
}

// answerCopyPoll answers the copy poll (its link carrying a hidden value)
// and returns the thank-you page's address.
func answerCopyPoll(t *testing.T, app *testApp, sv *survey.Survey, email, text string) string {
	t.Helper()
	path := "/survey/adatum/" + sv.Slug
	code, _, body := app.do(t, "GET", path+"?source=secret-newsletter-42", nil, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d", path, code)
	}
	form := hiddenInputs(body)
	q := sv.Questions
	form.Set("q-"+q[0].ID, email)
	form.Set("q-"+q[1].ID, text)
	form.Set("q-"+q[2].ID, "4")
	code, h, body := app.do(t, "POST", path, form, nil)
	if code != http.StatusSeeOther {
		t.Fatalf("answer = %d:\n%s", code, body)
	}
	return h.Get("Location")
}

// TestCopyOfAnswers: the thank-you page of a survey that offers copies
// has the form, prefilled with the answer's own e-mail address; the copy
// is queued with the survey's title, the organisation, each question and
// its answer, the survey's link on the public URL (whatever Host the
// request named), and no hidden field, score or ID; the same address
// again, a fourth address, a forged token, another survey's token and an
// expired one are refused; the refusals say why on the page.
func TestCopyOfAnswers(t *testing.T) {
	t.Parallel()
	app, box, sv := copyApp(t, web.Limits{}, store.MailLimits{PerHour: 100, PerDay: 100, PerRecipient: 5})
	thanks := answerCopyPoll(t, app, sv, "ana@example.com", "The talks <b>& the food</b>")
	code, _, page := app.do(t, "GET", thanks, nil, nil)
	if code != http.StatusOK || !strings.Contains(page, "Send me a copy of my answers") || !strings.Contains(page, `value="ana@example.com"`) {
		t.Fatalf("thank-you page = %d, without the copy form prefilled:\n%s", code, page)
	}
	form := hiddenInputs(page)
	if form.Get("c") == "" {
		t.Fatalf("no copy token in the form:\n%s", page)
	}
	copyPath := "/survey/adatum/" + sv.Slug + "/copy"
	ask := func(form url.Values, email string, header map[string]string) (int, http.Header, string) {
		t.Helper()
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		f.Set("email", email)
		return app.do(t, "POST", copyPath, f, header)
	}
	// Before the worker filed the answer: try again later, nothing sent.
	if code, _, body := ask(form, "ana@example.com", nil); code != http.StatusConflict || !strings.Contains(body, "still being recorded") {
		t.Fatalf("a copy before the answer is filed = %d:\n%s", code, body)
	}
	app.storedOf(t, sv.Slug)
	var id string
	if err := app.answers.ListAll(context.Background(), "adatum", sv.Slug, func(a string) error { id = a; return nil }); err != nil || id == "" {
		t.Fatalf("the answer was not filed: %v", err)
	}
	evil := map[string]string{"Host": "evil.example", "X-Forwarded-Host": "evil.example", "Forwarded": "host=evil.example;proto=https"}
	code, h, body := ask(form, "ana@example.com", evil)
	if code != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "sent=1") {
		t.Fatalf("a copy = %d (to %q):\n%s", code, h.Get("Location"), body)
	}
	msgs := box.wait(t, 1)
	m := msgs[0]
	if m.To != "ana@example.com" || m.Subject != "Your answers to Copy poll" {
		t.Errorf("mail to %q, subject %q", m.To, m.Subject)
	}
	for _, want := range []string{"Copy poll", "Adatum", "Your e-mail", "ana@example.com", "What did you like?", "The talks <b>& the food</b>", "Rate the day", "4", testPublicURL + "/survey/adatum/" + sv.Slug} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the copy's text lacks %q:\n%s", want, m.Text)
		}
	}
	if !strings.Contains(m.HTML, "The talks &lt;b&gt;&amp; the food&lt;/b&gt;") || !strings.Contains(m.HTML, `href="`+testPublicURL+"/survey/adatum/"+sv.Slug+`"`) {
		t.Errorf("the copy's HTML does not escape the answer or lacks the link:\n%s", m.HTML)
	}
	for _, never := range []string{"secret-newsletter-42", "source", "evil.example", id, "/adatum/surveys/"} {
		if strings.Contains(m.Text, never) || strings.Contains(m.HTML, never) {
			t.Errorf("the copy holds %q:\n%s\n%s", never, m.Text, m.HTML)
		}
	}
	// The page after says it is on its way, and offers the form again.
	if code, _, body := app.do(t, "GET", h.Get("Location"), nil, nil); code != 200 || !strings.Contains(body, "on its way") || !strings.Contains(body, `name="c"`) {
		t.Fatalf("the page after a copy = %d:\n%s", code, body)
	}

	// The same address again (in other letters): refused, nothing sent.
	if code, _, body := ask(form, "ANA@example.com", nil); code != http.StatusConflict || !strings.Contains(body, "sent to this address already") {
		t.Fatalf("the same address again = %d:\n%s", code, body)
	}
	// Two more addresses, then no fourth.
	for _, addr := range []string{"ben@example.com", "cy@example.com"} {
		if code, _, body := ask(form, addr, nil); code != http.StatusSeeOther {
			t.Fatalf("a copy to %s = %d:\n%s", addr, code, body)
		}
	}
	if code, _, body := ask(form, "dee@example.com", nil); code != http.StatusConflict || !strings.Contains(body, "as many addresses as it may be") {
		t.Fatalf("a fourth address = %d:\n%s", code, body)
	}
	// Not an address: said beside the field.
	if code, _, body := ask(form, "not an address", nil); code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="copy-err"`) {
		t.Fatalf("a bad address = %d:\n%s", code, body)
	}

	// Tokens this server did not make for this answer's survey.
	other := app.publish(t, &survey.Survey{Title: "Other poll", SendCopy: true, Questions: []survey.Question{{Text: "Q", Type: survey.SimpleText}}})
	app.pastCacheTTL()
	forged := url.Values{"c": {"v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}
	tampered := url.Values{"c": {form.Get("c")[:len(form.Get("c"))-4] + "AAAA"}}
	for name, f := range map[string]url.Values{"forged": forged, "tampered": tampered, "none": {}} {
		if code, _, body := ask(f, "eve@example.com", nil); code != http.StatusForbidden || strings.Contains(body, `name="email"`) {
			t.Errorf("a %s token = %d:\n%s", name, code, body)
		}
	}
	f := url.Values{"c": {form.Get("c")}, "email": {"eve@example.com"}}
	if code, _, _ := app.do(t, "POST", "/survey/adatum/"+other.Slug+"/copy", f, nil); code != http.StatusForbidden {
		t.Errorf("another survey's token = %d", code)
	}
	if n := len(box.messages()); n != 3 {
		t.Errorf("%d copies sent, want 3", n)
	}
}

// TestCopyLimits: per address and per survey, the copies asked for in an
// hour are limited, and the tenant's mail quota holds: each refusal is
// said on the page, nothing dropped silently.
func TestCopyLimits(t *testing.T) {
	t.Parallel()
	app, box, sv := copyApp(t, web.Limits{CopiesPerAddress: 2, CopiesPerSurvey: 4}, store.MailLimits{PerHour: 100, PerDay: 100, PerRecipient: 10})
	copyPath := "/survey/adatum/" + sv.Slug + "/copy"
	var forms []url.Values
	for i := range 3 {
		thanks := answerCopyPoll(t, app, sv, "", "answer "+string(rune('a'+i)))
		_, _, page := app.do(t, "GET", thanks, nil, nil)
		forms = append(forms, hiddenInputs(page))
	}
	app.storedOf(t, sv.Slug)
	ask := func(i int, email string) (int, string) {
		f := url.Values{"c": {forms[i].Get("c")}, "email": {email}}
		code, _, body := app.do(t, "POST", copyPath, f, nil)
		return code, body
	}
	// Per address: two an hour, from any answer.
	for i := range 2 {
		if code, body := ask(i, "ana@example.com"); code != http.StatusSeeOther {
			t.Fatalf("copy %d to one address = %d:\n%s", i+1, code, body)
		}
	}
	if code, body := ask(2, "ana@example.com"); code != http.StatusTooManyRequests || !strings.Contains(body, "Too many copies") {
		t.Fatalf("a third copy to one address = %d:\n%s", code, body)
	}
	// Per survey: four asked an hour (the refused one counted too).
	if code, body := ask(2, "ben@example.com"); code != http.StatusSeeOther {
		t.Fatalf("a copy to another address = %d:\n%s", code, body)
	}
	if code, body := ask(2, "cy@example.com"); code != http.StatusTooManyRequests || !strings.Contains(body, "Too many copies") {
		t.Fatalf("a fifth copy of the survey = %d:\n%s", code, body)
	}
	if n := len(box.messages()); n != 3 {
		t.Errorf("%d copies sent, want 3", n)
	}

	// The tenant's quota: exhausted, the page says the copy was not sent.
	app2, box2, sv2 := copyApp(t, web.Limits{}, store.MailLimits{PerHour: 1, PerDay: 100, PerRecipient: 10})
	var pages []url.Values
	for range 2 {
		_, _, page := app2.do(t, "GET", answerCopyPoll(t, app2, sv2, "", "fine"), nil, nil)
		pages = append(pages, hiddenInputs(page))
	}
	app2.storedOf(t, sv2.Slug)
	for i, want := range []int{http.StatusSeeOther, http.StatusTooManyRequests} {
		f := url.Values{"c": {pages[i].Get("c")}, "email": {"dan@example.com"}}
		code, _, body := app2.do(t, "POST", "/survey/adatum/"+sv2.Slug+"/copy", f, nil)
		if code != want || want != http.StatusSeeOther && !strings.Contains(body, "The copy could not be sent") {
			t.Fatalf("copy %d = %d, want %d:\n%s", i+1, code, want, body)
		}
	}
	if n := len(box2.messages()); n != 1 {
		t.Errorf("%d copies sent past the quota, want 1", n)
	}
}

// TestCopyOff: a survey that does not offer copies (the default) shows no
// form, has no token in its thank-you address, and refuses the POST even
// with another survey's good token.
func TestCopyOff(t *testing.T) {
	t.Parallel()
	app, _, sv := copyApp(t, web.Limits{}, store.MailLimits{PerHour: 100, PerDay: 100, PerRecipient: 10})
	off := app.publish(t, &survey.Survey{Title: "No copies", Questions: []survey.Question{{Text: "Q", Type: survey.SimpleText}}})
	app.pastCacheTTL()
	path := "/survey/adatum/" + off.Slug
	code, h, _ := app.do(t, "POST", path, url.Values{"token": {app.token(t, path)}, "q-" + off.Questions[0].ID: {"hello"}}, nil)
	if code != http.StatusSeeOther || strings.Contains(h.Get("Location"), "c=") {
		t.Fatalf("answer = %d, to %q", code, h.Get("Location"))
	}
	if _, _, body := app.do(t, "GET", h.Get("Location"), nil, nil); strings.Contains(body, "Send me a copy") {
		t.Fatalf("a survey without copies offers one:\n%s", body)
	}
	_, _, page := app.do(t, "GET", answerCopyPoll(t, app, sv, "ana@example.com", "x"), nil, nil)
	f := url.Values{"c": {hiddenInputs(page).Get("c")}, "email": {"ana@example.com"}}
	if code, _, _ := app.do(t, "POST", path+"/copy", f, nil); code != http.StatusNotFound {
		t.Fatalf("a copy of a survey without copies = %d, want 404", code)
	}
}

// TestSendCopySetting: the designer's checkbox, the API's sendCopy and the
// definition's carry the setting, off unless set.
func TestSendCopySetting(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	form := url.Values{"title": {"Copy setting"}, "n": {"1"}, "q.0.text": {"Anything else?"}, "q.0.type": {"SimpleText"}, "q.0.pos": {"1"}, "sendCopy": {"1"}, "action": {"save"}}
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", form, cookie)
	if code != http.StatusSeeOther || h.Get("Location") != "/adatum/surveys/copy-setting/edit" {
		t.Fatalf("save = %d %q:\n%s", code, h.Get("Location"), body)
	}
	if sv, err := app.surveys.Get(ctx, "adatum", "copy-setting"); err != nil || !sv.SendCopy {
		t.Fatalf("saved with the box ticked: %v", err)
	}
	if _, _, body := app.do(t, "GET", "/adatum/surveys/copy-setting/edit", nil, cookie); !strings.Contains(body, `name="sendCopy" value="1" aria-describedby="sendCopy-hint" checked`) {
		t.Errorf("the designer does not show the box ticked")
	}
	form.Del("sendCopy")
	if code, _, _ := app.do(t, "POST", "/adatum/surveys/copy-setting/edit", form, cookie); code != http.StatusSeeOther {
		t.Fatalf("save = %d", code)
	}
	if sv, _ := app.surveys.Get(ctx, "adatum", "copy-setting"); sv.SendCopy {
		t.Error("the box unticked left the setting on")
	}

	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/surveys", token, `{"title":"API copies","sendCopy":true,"questions":[{"text":"Q","type":"SimpleText"}]}`)
	if code != http.StatusCreated || v["sendCopy"] != true {
		t.Fatalf("POST /api/v1/surveys = %d: %s", code, raw)
	}
	slug, _ := v["slug"].(string)
	if code, v, raw := app.api(t, "GET", "/api/v1/surveys/"+slug+"/definition", token, ""); code != http.StatusOK || v["sendCopy"] != true {
		t.Errorf("definition = %d: %s", code, raw)
	}
	if code, v, raw := app.api(t, "GET", "/api/v1/surveys/copy-setting", token, ""); code != http.StatusOK || v["sendCopy"] != nil {
		t.Errorf("a survey without copies = %d: %s", code, raw)
	}
}

// TestCopyInRespondentLanguage: a respondent who answered in French gets
// the form and the copy in French.
func TestCopyInRespondentLanguage(t *testing.T) {
	t.Parallel()
	app, box, sv := copyApp(t, web.Limits{}, store.MailLimits{PerHour: 100, PerDay: 100, PerRecipient: 5})
	path := "/survey/adatum/" + sv.Slug
	_, _, body := app.do(t, "GET", path+"?lang=fr", nil, nil)
	form := hiddenInputs(body)
	form.Set("q-"+sv.Questions[1].ID, "Les conférences")
	form.Set("q-"+sv.Questions[2].ID, "5")
	code, h, body := app.do(t, "POST", path+"?lang=fr", form, nil)
	if code != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "lang=fr") {
		t.Fatalf("answer = %d to %q:\n%s", code, h.Get("Location"), body)
	}
	_, _, page := app.do(t, "GET", h.Get("Location"), nil, nil)
	if !strings.Contains(page, "M&#39;envoyer une copie de mes réponses") || !strings.Contains(page, `action="/survey/adatum/`+sv.Slug+`/copy?lang=fr"`) {
		t.Fatalf("the thank-you page's form is not in French:\n%s", page)
	}
	app.storedOf(t, sv.Slug)
	f := url.Values{"c": {hiddenInputs(page).Get("c")}, "email": {"zoe@example.com"}}
	if code, _, body := app.do(t, "POST", path+"/copy?lang=fr", f, nil); code != http.StatusSeeOther {
		t.Fatalf("copy = %d:\n%s", code, body)
	}
	m := box.wait(t, 1)[0]
	if m.Subject != "Vos réponses à Copy poll" || !strings.Contains(m.Text, "Voici une copie des réponses que vous avez données à Copy poll, une enquête de Adatum.") || !strings.Contains(m.HTML, `lang="fr"`) {
		t.Errorf("the copy is not in French: %q\n%s\n%s", m.Subject, m.Text, m.HTML)
	}
}
