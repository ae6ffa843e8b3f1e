package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

var hiddenInputRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// TestCopyOfAnswersByMail runs a respondent's copy of their answers
// through surveys serve and a real SMTP server: an answer (its link
// carrying a hidden value), the thank-you page's form, the copy asked for
// with "Host: evil.example" and forwarded-host headers; the mail worker
// delivers one message with the survey's title, the organisation, each
// question and its answer, the survey's link on the public URL, and no
// hidden value, no other host, no answer ID.
func TestCopyOfAnswersByMail(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{})
	m := bootMain(t, io.Discard, "--smtp-url", "smtp://"+srv.Addr+"?tls=none", "--mail-from", "Surveys <surveys@example.com>", "--public-url", testPublicURL)
	defer m.Close()
	ctx := context.Background()
	sv := &survey.Survey{Tenant: "adatum", Title: "Team day", State: survey.Published, SendCopy: true, HiddenFields: []string{"source"}, Questions: []survey.Question{
		{Text: "Your e-mail", Type: survey.ShortText, Format: "email"},
		{Text: "What should we do next time?", Type: survey.SimpleText},
	}}
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, form url.Values) (int, string, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequest(method, "http://"+m.Addr()+path, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "evil.example"
		req.Header.Set("X-Forwarded-Host", "evil.example")
		req.Header.Set("Forwarded", "host=evil.example;proto=https")
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Location"), string(b)
	}
	hidden := func(page string) url.Values {
		v := url.Values{}
		for _, m := range hiddenInputRE.FindAllStringSubmatch(page, -1) {
			v.Set(m[1], html.UnescapeString(m[2]))
		}
		return v
	}

	path := "/survey/adatum/" + sv.Slug
	code, _, page := do("GET", path+"?source=secret-campaign-7", nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d", path, code)
	}
	form := hidden(page)
	form.Set("q-"+sv.Questions[0].ID, "ana@example.com")
	form.Set("q-"+sv.Questions[1].ID, "A boat trip & a picnic")
	code, thanks, page := do("POST", path, form)
	if code != http.StatusSeeOther {
		t.Fatalf("answer = %d:\n%s", code, page)
	}
	code, _, page = do("GET", thanks, nil)
	if code != http.StatusOK || !strings.Contains(page, `value="ana@example.com"`) {
		t.Fatalf("thank-you page = %d, without the copy form prefilled:\n%s", code, page)
	}
	ask := hidden(page)
	ask.Set("email", "ana@example.com")
	// The answers worker files the answer within moments; until then the
	// page asks to try again (409).
	deadline := time.Now().Add(time.Minute)
	for {
		code, _, page = do("POST", path+"/copy", ask)
		if code != http.StatusConflict || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code != http.StatusSeeOther {
		t.Fatalf("copy = %d:\n%s", code, page)
	}
	msg := srv.Wait(t, 1)[0]
	if msg.Subject != "Your answers to Team day" || len(msg.To) != 1 || msg.To[0] != "ana@example.com" {
		t.Errorf("mail %q to %q", msg.Subject, msg.To)
	}
	for _, want := range []string{"Team day", "Adatum", "Your e-mail", "ana@example.com", "What should we do next time?", "A boat trip & a picnic", testPublicURL + path} {
		if !strings.Contains(msg.Text, want) {
			t.Errorf("the copy's text lacks %q:\n%s", want, msg.Text)
		}
	}
	if !strings.Contains(msg.HTML, "A boat trip &amp; a picnic") {
		t.Errorf("the copy's HTML lacks the answer:\n%s", msg.HTML)
	}
	var ids []string
	if err := store.NewSurveyAnswerStore(m.Storage).ListAll(ctx, "adatum", sv.Slug, func(id string) error { ids = append(ids, id); return nil }); err != nil || len(ids) != 1 {
		t.Fatalf("filed answers %v, %v", ids, err)
	}
	for _, never := range []string{"evil.example", "secret-campaign-7", "source", ids[0]} {
		if strings.Contains(string(msg.Raw), never) {
			t.Errorf("the copy holds %q:\n%s", never, msg.Raw)
		}
	}
	// The same address again: refused, said on the page.
	if code, _, page = do("POST", path+"/copy", ask); code != http.StatusConflict || !strings.Contains(page, "sent to this address already") {
		t.Errorf("the same copy again = %d:\n%s", code, page)
	}
}
