package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"
)

// TestIntegrationsEndToEnd is issue 16's "done when" in one run against the
// real server: a new tenant's admin adds a webhook endpoint (a receiver the
// test starts on loopback, which the operator allows) and copies its
// secret, designs a survey that one site may embed, and publishes it. A
// respondent answers it in Chromium in French (the page's words and, from
// the translations page, the survey's texts; the answer keeps the original
// choice). The receiver gets
// response.created signed as the Standard Webhooks specification says,
// checked here with the specification's algorithm (not the app's code).
// The XLSX export opens in excelize with typed cells. The share page's
// embed snippet, pasted into a page of the allowed site (another origin),
// shows the survey fitted to its height; pasted into a page of another
// site, the browser refuses to frame it.
func TestIntegrationsEndToEnd(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	type delivery struct {
		header http.Header
		body   []byte
	}
	var got []delivery
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, delivery{r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	// Two sites: pages that will carry the share page's snippet.
	var snippet string
	site := func() *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			mu.Lock()
			defer mu.Unlock()
			_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Intranet</title></head><body><h1>Tell us</h1>`+snippet+`</body></html>`)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	allowed, other := site(), site()

	cfg := loopbackConfig(t)
	m := NewMain(cfg, io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()

	// The subscriber: sign-up, a webhook endpoint, a survey.
	sub := newSubscriber(t, base)
	if code, _, _ := sub.post("/onboarding", url.Values{"name": {"Linked"}, "email": {"lee@linked.example"}, "password": {"a long enough password"}, "plan": {"Standard"}}); code != http.StatusSeeOther {
		t.Fatalf("sign-up = %d", code)
	}
	code, _, page := sub.post("/linked/settings/webhooks", url.Values{"url": {receiver.URL + "/hooks"}, "events": {"response.created"}})
	m1 := regexp.MustCompile(`id="new-secret" value="([^"]+)"`).FindStringSubmatch(page)
	if code != 200 || m1 == nil {
		t.Fatalf("add endpoint = %d", code)
	}
	secret := html.UnescapeString(m1[1])
	form := url.Values{"title": {"Canteen"}, "n": {"4"}, "action": {"save"}, "embedOrigins": {allowed.URL},
		"q.0.text": {"Which meal?"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Yes\r\nNo"},
		"q.1.text": {"How many courses?"}, "q.1.type": {"Number"},
		"q.2.text": {"When did you eat?"}, "q.2.type": {"Date"},
		"q.3.text": {"Anything else?"}, "q.3.type": {"SimpleText"}}
	if code, _, page := sub.post("/linked/surveys/new", form); code != http.StatusSeeOther {
		t.Fatalf("create = %d\n%s", code, page)
	}
	form.Set("action", "publish")
	if code, _, page := sub.post("/linked/surveys/canteen/edit", form); code != http.StatusSeeOther {
		t.Fatalf("publish = %d\n%s", code, page)
	}
	code, page = sub.get("/linked/surveys/canteen/share")
	m2 := regexp.MustCompile(`(?s)<textarea id="embed-code"[^>]*>(.*?)</textarea>`).FindStringSubmatch(page)
	if code != 200 || m2 == nil || !strings.Contains(page, allowed.URL) {
		t.Fatalf("share page = %d, no embed code for %s", code, allowed.URL)
	}
	mu.Lock()
	snippet = html.UnescapeString(m2[1])
	mu.Unlock()

	_, page = newSubscriber(t, base).get("/survey/linked/canteen")
	var ids []string // the questions' field names, in order
	for _, q := range questionRE.FindAllStringSubmatch(page, -1) {
		if !slices.Contains(ids, "q-"+q[1]) {
			ids = append(ids, "q-"+q[1])
		}
	}
	if len(ids) != 4 {
		t.Fatalf("the survey page's questions: %q", ids)
	}
	// The survey's own texts in French, from the translations page.
	fr := url.Values{"lang": {"fr"}, "language": {"en"}, "title": {"Cantine"},
		"questions." + ids[0][2:] + ".text": {"Quel repas ?"}, "questions." + ids[0][2:] + ".choices.0": {"Oui"}, "questions." + ids[0][2:] + ".choices.1": {"Non"},
		"questions." + ids[1][2:] + ".text": {"Combien de plats ?"}}
	if code, h, page := sub.post("/linked/surveys/canteen/translations", fr); code != http.StatusSeeOther && code != http.StatusOK {
		t.Fatalf("French translations = %d %v\n%s", code, h, page)
	}

	// The respondent, in French, in Chromium at 390 px.
	run := browserRun(t, newBrowser(t))
	axeCheck := newAxeCheck(t)
	survey := base + "/survey/linked/canteen"
	var lang, submit, title, question, choice string
	run("the French page",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(survey+"?lang=fr"),
		chromedp.WaitVisible(`[name="`+ids[1]+`"]`, chromedp.ByQuery),
		chromedp.AttributeValue(`html`, "lang", &lang, nil, chromedp.ByQuery),
		chromedp.Text(`form button[type=submit]`, &submit, chromedp.ByQuery),
		chromedp.Text(`h1`, &title, chromedp.ByQuery),
		chromedp.Text(`#q-`+ids[1][2:]+` legend, #q-`+ids[1][2:]+` label`, &question, chromedp.ByQuery),
		chromedp.Text(`#q-`+ids[0][2:]+` label.choice`, &choice, chromedp.ByQuery),
		noSidewaysScroll(t, "French survey"),
		axeCheck("French survey"),
		screenshot(t, "integrations-01-french"))
	if lang != "fr" || !strings.Contains(submit, "Envoyer") || title != "Cantine" || !strings.Contains(question, "Combien de plats ?") || strings.TrimSpace(choice) != "Oui" {
		t.Fatalf("the page in French: lang %q, submit button %q, title %q, question %q, first choice %q", lang, submit, title, question, choice)
	}
	var thanks string
	run("answer",
		chromedp.Evaluate(`document.querySelector('input[name="`+ids[0]+`"][value="Yes"]').click()`, nil),
		chromedp.SendKeys(`[name="`+ids[1]+`"]`, "3", chromedp.ByQuery),
		chromedp.SetValue(`[name="`+ids[2]+`"]`, "2026-12-01", chromedp.ByQuery),
		chromedp.SendKeys(`[name="`+ids[3]+`"]`, "=1+1 was lovely", chromedp.ByQuery),
		clickAndLoad(`form button[type=submit]`, chromedp.ByQuery),
		chromedp.Text(`main`, &thanks, chromedp.ByQuery),
		screenshot(t, "integrations-02-merci"))
	if !strings.Contains(strings.ToLower(thanks), "merci") {
		t.Fatalf("the thank-you page is not French: %q", thanks)
	}

	// The signed webhook arrives; its signature holds by the specification.
	var created delivery
	for deadline := time.Now().Add(2 * time.Minute); created.body == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no response.created arrived")
		}
		mu.Lock()
		for _, d := range got {
			if strings.Contains(string(d.body), `"response.created"`) {
				created = d
			}
		}
		mu.Unlock()
	}
	if !standardWebhookSigned(secret, created.header, created.body) {
		t.Fatalf("the signature does not verify: %v\n%s", created.header, created.body)
	}
	var event struct {
		Type string
		Data struct {
			Answers []struct {
				QuestionText string
				Value        any
			}
		}
	}
	if err := json.Unmarshal(created.body, &event); err != nil {
		t.Fatal(err)
	}
	values := map[string]any{}
	for _, a := range event.Data.Answers {
		values[a.QuestionText] = a.Value
	}
	// "Oui" was chosen: the answer keeps the original choice.
	if values["Which meal?"] != "Yes" || values["How many courses?"] != float64(3) || values["When did you eat?"] != "2026-12-01" {
		t.Fatalf("response.created carries %v", values)
	}

	// The XLSX export: typed cells, a formula kept as text.
	code, _, xlsx := sub.send("GET", "/linked/surveys/canteen/export.xlsx", "", nil)
	if code != 200 {
		t.Fatalf("export.xlsx = %d", code)
	}
	wb, err := excelize.OpenReader(strings.NewReader(xlsx))
	if err != nil {
		t.Fatalf("excelize cannot open the export: %v", err)
	}
	defer wb.Close()
	rows, err := wb.GetRows("Answers")
	if err != nil || len(rows) != 2 {
		t.Fatalf("XLSX rows: %v, %q", err, rows)
	}
	cell := func(col string) (ref string, typ excelize.CellType, value string) {
		i := slices.Index(rows[0], col)
		if i < 0 {
			t.Fatalf("XLSX has no column %q: %q", col, rows[0])
		}
		ref, _ = excelize.CoordinatesToCellName(i+1, 2)
		typ, _ = wb.GetCellType("Answers", ref)
		value, _ = wb.GetCellValue("Answers", ref, excelize.Options{RawCellValue: true})
		return ref, typ, value
	}
	if _, typ, v := cell("How many courses?"); v != "3" || (typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber) {
		t.Errorf("the number cell is %q of type %v", v, typ)
	}
	ref, typ, v := cell("When did you eat?")
	st, _ := wb.GetCellStyle("Answers", ref)
	style, _ := wb.GetStyle(st)
	if typ == excelize.CellTypeInlineString || v != "46357" || style == nil || style.CustomNumFmt == nil || !strings.HasPrefix(*style.CustomNumFmt, "yyyy-mm-dd") {
		t.Errorf("the date cell is %q of type %v, style %+v", v, typ, style)
	}
	if _, typ, v := cell("Anything else?"); typ != excelize.CellTypeInlineString || v != "=1+1 was lovely" {
		t.Errorf("the text cell is %q of type %v", v, typ)
	}
	if f, _ := wb.GetCellFormula("Answers", ref); f != "" {
		t.Errorf("a cell has a formula: %q", f)
	}

	// The embed snippet: fitted in the allowed site, refused elsewhere.
	height := func(page string, wait time.Duration) string {
		t.Helper()
		var h string
		run("open "+page, chromedp.Navigate(page), chromedp.WaitVisible(`iframe`, chromedp.ByQuery))
		for deadline := time.Now().Add(wait); h == "" && time.Now().Before(deadline); {
			run("frame height", chromedp.Evaluate(`document.querySelector("iframe").getAttribute("data-surveys-height") || ""`, &h))
			if h == "" {
				time.Sleep(100 * time.Millisecond)
			}
		}
		return h
	}
	if h := height(allowed.URL, 15*time.Second); h == "" {
		t.Fatal("in the allowed site's page the frame was not fitted to the survey")
	}
	run("screenshot", screenshot(t, "integrations-03-embedded"))
	if h := height(other.URL, 3*time.Second); h != "" {
		t.Fatalf("a site the survey does not allow framed it (height %q)", h)
	}
}

// standardWebhookSigned checks a delivery as the Standard Webhooks
// specification says a receiver should: the secret is base64 after its
// "whsec_" prefix; the signed content is "id.timestamp.body"; the
// webhook-signature header lists "v1,<base64 HMAC-SHA256>" entries, one of
// which must match; the timestamp is within five minutes.
func standardWebhookSigned(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	if id == "" || ts == "" {
		return false
	}
	if sec, err := strconv.ParseInt(ts, 10, 64); err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return slices.Contains(strings.Fields(h.Get("webhook-signature")), want)
}
