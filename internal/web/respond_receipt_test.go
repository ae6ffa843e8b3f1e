package web_test

import (
	"context"
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

// receiptCodeRE finds the receipt code on a thank-you page.
var receiptCodeRE = regexp.MustCompile(`<p class="receipt-code"><code>([A-Z2-7-]+)</code></p>`)

// receiptApp is the test server with a receipt key and limits, whose demo
// survey gives receipts.
func receiptApp(t *testing.T, limits web.Limits) *testApp {
	t.Helper()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) {
		d.ReceiptKey = []byte("0123456789abcdef0123456789abcdef")
		limits.TrustedProxies = d.Limits.TrustedProxies
		d.Limits = limits
	})
	if err := app.surveys.SetPrivacy(context.Background(), "adatum", app.adatum.Slug, 0, true); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	return app
}

// answerForReceipt answers the demo survey and returns the receipt code
// its thank-you page shows, and the answer's ID.
func answerForReceipt(t *testing.T, app *testApp) (string, string) {
	t.Helper()
	token := app.token(t, app.path())
	code, h, _ := app.do(t, "POST", app.path(), app.complete(token), nil)
	if code != http.StatusSeeOther {
		t.Fatal("answer refused")
	}
	code, hdr, page := app.do(t, "GET", h.Get("Location"), nil, nil)
	m := receiptCodeRE.FindStringSubmatch(page)
	if code != http.StatusOK || m == nil || !strings.Contains(page, `href="/survey/adatum/`+app.adatum.Slug+`/receipt"`) {
		t.Fatalf("thank-you page = %d, without a receipt code and its link:\n%s", code, page)
	}
	if hdr.Get("Cache-Control") != "no-store" || hdr.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("thank-you page with a receipt: Cache-Control %q, Referrer-Policy %q", hdr.Get("Cache-Control"), hdr.Get("Referrer-Policy"))
	}
	return m[1], answerID(token)
}

// TestReceipt: the thank-you page shows a receipt code; with it, and
// only with it, the respondent sees their answer (its questions and
// answers, not its ID nor anything else) and deletes it, after a
// confirmation, through the subscriber's delete path (the summary drops
// by one, the audit log says so); a mistyped code and the code of an
// answer not there get the same page; once the survey stops giving
// receipts, nothing answers.
func TestReceipt(t *testing.T) {
	t.Parallel()
	app := receiptApp(t, web.Limits{})
	ctx := context.Background()
	code, id := answerForReceipt(t, app)
	if strings.Count(code, "-") != 10 || len(strings.ReplaceAll(code, "-", "")) != 44 {
		t.Errorf("receipt code %q: want 44 characters in groups of four (128-bit MAC and the answer)", code)
	}
	receipt := "/survey/adatum/" + app.adatum.Slug + "/receipt"
	if status, _, page := app.do(t, "GET", receipt, nil, nil); status != http.StatusOK || !strings.Contains(page, `name="code"`) {
		t.Fatalf("receipt form = %d:\n%s", status, page)
	}
	// Before the worker filed it: not there yet, said as for a wrong code.
	if status, _, page := app.do(t, "POST", receipt, url.Values{"code": {code}}, nil); status != http.StatusNotFound || !strings.Contains(page, "No answer matches this receipt code") {
		t.Fatalf("a code before its answer is filed = %d:\n%s", status, page)
	}
	app.stored(t)
	// Typed in lower case, with spaces: the same code.
	typed := strings.ToLower(strings.ReplaceAll(code, "-", " "))
	status, hdr, page := app.do(t, "POST", receipt, url.Values{"code": {typed}}, nil)
	if status != http.StatusOK || !strings.Contains(page, "Faster pages, please &lt;script&gt;") || !strings.Contains(page, "Mobile app") || !strings.Contains(page, "Delete my answer") {
		t.Fatalf("the answer by its receipt = %d:\n%s", status, page)
	}
	if strings.Contains(page, id) || hdr.Get("Cache-Control") != "no-store" {
		t.Errorf("the receipt page shows the answer's ID, or may be cached (%q)", hdr.Get("Cache-Control"))
	}
	// A wrong code: one character of the MAC changed; and the same
	// with the last character's spare bits set (one code, one spelling).
	wrong := []byte(code)
	if wrong[40] == 'A' {
		wrong[40] = 'B'
	} else {
		wrong[40] = 'A'
	}
	spare := []byte(code)
	spare[len(spare)-1]++ // A→B, Q→R: the last character holds one bit, and four spare ones
	if status, _, _ := app.do(t, "POST", receipt, url.Values{"code": {string(spare)}}, nil); status != http.StatusNotFound {
		t.Errorf("the code with a spare bit set = %d, want 404", status)
	}
	wrongStatus, _, wrongPage := app.do(t, "POST", receipt, url.Values{"code": {string(wrong)}}, nil)
	if wrongStatus != http.StatusNotFound || strings.Contains(wrongPage, "Faster pages") || !strings.Contains(wrongPage, "No answer matches this receipt code") {
		t.Fatalf("a wrong code = %d:\n%s", wrongStatus, wrongPage)
	}
	for _, path := range []string{receipt, receipt + "/delete"} {
		if status, _, _ := app.do(t, "POST", path, url.Values{"code": {"not a code"}, "confirm": {"1"}}, nil); status != http.StatusNotFound {
			t.Errorf("POST %s with a made-up code = %d, want 404", path, status)
		}
	}
	// The code at another survey that gives receipts: its MAC names this
	// survey only.
	other := app.publish(t, &survey.Survey{Title: "Other poll", Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}})
	if err := app.surveys.SetPrivacy(ctx, "adatum", other.Slug, 0, true); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	if status, _, page := app.do(t, "POST", "/survey/adatum/"+other.Slug+"/receipt", url.Values{"code": {code}}, nil); status != http.StatusNotFound || strings.Contains(page, "Faster pages") {
		t.Errorf("the code at another survey = %d, want 404", status)
	}
	total := func() int64 {
		t.Helper()
		sum, _, err := store.NewSurveyAnswersSummaryStore(app.st).Get(ctx, "adatum", app.adatum.Slug)
		if err != nil {
			t.Fatal(err)
		}
		return sum.TotalAnswers
	}
	before := total()
	// The delete button asks first, and deletes nothing.
	if status, _, page := app.do(t, "POST", receipt+"/delete", url.Values{"code": {code}}, nil); status != http.StatusOK || !strings.Contains(page, "Delete your answer?") || !strings.Contains(page, `name="confirm" value="1"`) {
		t.Fatalf("delete without confirmation = %d:\n%s", status, page)
	}
	if total() != before {
		t.Fatal("the confirmation page deleted the answer")
	}
	if status, _, page := app.do(t, "POST", receipt+"/delete", url.Values{"code": {code}, "confirm": {"1"}}, nil); status != http.StatusOK || !strings.Contains(page, "Your answer was deleted") {
		t.Fatalf("delete = %d:\n%s", status, page)
	}
	if total() != before-1 {
		t.Errorf("summary counts %d after the deletion, want %d", total(), before-1)
	}
	if _, err := app.answers.Get(ctx, "adatum", app.adatum.Slug, id); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("the deleted answer's blob: %v, want not found", err)
	}
	events, _, err := store.NewAuditStore(app.st).List(ctx, "adatum", survey.AuditFilter{}, "", 10)
	if err != nil || len(events) == 0 || events[0].Action != survey.AuditAnswerErased || events[0].IP != "" || events[0].Target != app.adatum.Slug {
		t.Errorf("audit log: %+v, %v; want the erasure first, without an address", events, err)
	}
	// The code of an answer no longer there: the page of a wrong code.
	goneStatus, _, gonePage := app.do(t, "POST", receipt, url.Values{"code": {string(wrong)}}, nil)
	againStatus, _, againPage := app.do(t, "POST", receipt, url.Values{"code": {code}}, nil)
	valueRE := regexp.MustCompile(`value="[^"]*"`)
	if goneStatus != againStatus || valueRE.ReplaceAllString(gonePage, "") != valueRE.ReplaceAllString(againPage, "") {
		t.Errorf("a deleted answer's code (%d) and a wrong code (%d) get different pages", againStatus, goneStatus)
	}
	// In French.
	if status, _, page := app.do(t, "GET", receipt+"?lang=fr", nil, nil); status != http.StatusOK || !strings.Contains(page, "Code de reçu") {
		t.Errorf("receipt form in French = %d:\n%s", status, page)
	}
	// A second answer's code works until the survey stops giving
	// receipts; then nothing answers, and the thank-you page shows none.
	code2, _ := answerForReceipt(t, app)
	app.stored(t)
	if status, _, _ := app.do(t, "POST", receipt, url.Values{"code": {code2}}, nil); status != http.StatusOK {
		t.Fatalf("second answer's receipt = %d", status)
	}
	if err := app.surveys.SetPrivacy(ctx, "adatum", app.adatum.Slug, 0, false); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	for _, path := range []string{receipt, receipt + "/delete"} {
		if status, _, page := app.do(t, "POST", path, url.Values{"code": {code2}, "confirm": {"1"}}, nil); status != http.StatusNotFound || strings.Contains(page, "Faster pages") {
			t.Errorf("POST %s when the survey gives no receipts = %d", path, status)
		}
	}
	if status, _, _ := app.do(t, "GET", receipt, nil, nil); status != http.StatusNotFound {
		t.Errorf("receipt form when the survey gives no receipts = %d", status)
	}
	token := app.token(t, app.path())
	_, h, _ := app.do(t, "POST", app.path(), app.complete(token), nil)
	if _, _, page := app.do(t, "GET", h.Get("Location"), nil, nil); receiptCodeRE.MatchString(page) {
		t.Error("the thank-you page shows a receipt when the survey gives none")
	}
}

// TestReceiptRateLimit: the tries of receipt codes are limited per
// address: past the limit, 429.
func TestReceiptRateLimit(t *testing.T) {
	t.Parallel()
	app := receiptApp(t, web.Limits{Receipts: 2})
	receipt := "/survey/adatum/" + app.adatum.Slug + "/receipt"
	for i, want := range []int{http.StatusNotFound, http.StatusNotFound, http.StatusTooManyRequests} {
		path := receipt
		if i == 1 {
			path += "/delete"
		}
		if status, _, _ := app.do(t, "POST", path, url.Values{"code": {"AAAA-BBBB"}}, map[string]string{"X-Forwarded-For": "203.0.113.9"}); status != want {
			t.Fatalf("try %d = %d, want %d", i+1, status, want)
		}
	}
	// Another address is not held back.
	if status, _, _ := app.do(t, "POST", receipt, url.Values{"code": {"AAAA-BBBB"}}, map[string]string{"X-Forwarded-For": "203.0.113.10"}); status != http.StatusNotFound {
		t.Errorf("another address = %d, want 404", status)
	}
}

// TestPrivacyPage: an admin sets a survey's retention rule and receipts;
// a bad number of days is refused beside its field and changes nothing;
// receipts need the server's key; an edit of the survey keeps them; the
// tenant's default is set on its settings page.
func TestPrivacyPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, keyed := range []bool{true, false} {
		app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) {
			if keyed {
				d.ReceiptKey = []byte("0123456789abcdef0123456789abcdef")
			}
		})
		cookie := app.signedIn(t, "adatum", "ana@adatum.example")
		path := "/adatum/surveys/" + app.adatum.Slug + "/privacy"
		if status, _, page := app.do(t, "GET", path, nil, cookie); status != http.StatusOK || !strings.Contains(page, "Retention and receipts") {
			t.Fatalf("privacy page = %d:\n%s", status, page)
		}
		for _, bad := range []url.Values{{"retain": {"days"}, "days": {"0"}}, {"retain": {"days"}, "days": {"3651"}}, {"retain": {"days"}, "days": {"ten"}}, {"retain": {"sometimes"}}} {
			if status, _, page := app.do(t, "POST", path, bad, cookie); status != http.StatusUnprocessableEntity || !strings.Contains(page, `class="field-error"`) {
				t.Errorf("POST %v = %d, want 422 with the problem beside its field", bad, status)
			}
		}
		status, h, page := app.do(t, "POST", path, url.Values{"retain": {"days"}, "days": {"30"}, "receipts": {"on"}}, cookie)
		if !keyed {
			if status != http.StatusUnprocessableEntity || !strings.Contains(page, "SURVEYS_SECRET_KEY") {
				t.Errorf("receipts without a key = %d", status)
			}
			sv, _ := app.surveys.Get(ctx, "adatum", app.adatum.Slug)
			if sv.RetainDays != 0 || sv.Receipts {
				t.Errorf("a refused form changed the survey: %d days, receipts %v", sv.RetainDays, sv.Receipts)
			}
			continue
		}
		if status != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "/privacy?saved=1") {
			t.Fatalf("save = %d to %q:\n%s", status, h.Get("Location"), page)
		}
		sv, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug)
		if err != nil || sv.RetainDays != 30 || !sv.Receipts {
			t.Fatalf("saved: %d days, receipts %v (%v)", sv.RetainDays, sv.Receipts, err)
		}
		// An edit of the definition (the designer's, the API's) keeps them.
		edit := *sv
		edit.RetainDays, edit.Receipts, edit.Version = 0, false, ""
		edit.Title = "Renamed"
		if err := app.surveys.Update(ctx, &edit); err != nil {
			t.Fatal(err)
		}
		if sv, _ := app.surveys.Get(ctx, "adatum", app.adatum.Slug); sv.RetainDays != 30 || !sv.Receipts || sv.Title != "Renamed" {
			t.Errorf("after an edit: %q, %d days, receipts %v", sv.Title, sv.RetainDays, sv.Receipts)
		}
		if status, _, _ := app.do(t, "POST", path, url.Values{"retain": {"keep"}}, cookie); status != http.StatusSeeOther {
			t.Fatalf("keep = %d", status)
		}
		if sv, _ := app.surveys.Get(ctx, "adatum", app.adatum.Slug); sv.RetainDays != survey.KeepAnswers || sv.Receipts {
			t.Errorf("kept: %d days, receipts %v", sv.RetainDays, sv.Receipts)
		}
		// The tenant's default.
		if status, _, _ := app.do(t, "POST", "/adatum/settings", url.Values{"name": {"Adatum"}, "retainDays": {"-3"}}, cookie); status != http.StatusUnprocessableEntity {
			t.Errorf("settings with -3 days = %d, want 422", status)
		}
		if status, _, _ := app.do(t, "POST", "/adatum/settings", url.Values{"name": {"Adatum"}, "retainDays": {"90"}}, cookie); status != http.StatusSeeOther {
			t.Fatalf("settings with 90 days = %d", status)
		}
		if tn, err := store.NewTenantStore(app.st).WithSecrets(testBox).Get(ctx, "adatum"); err != nil || tn.RetainDays != 90 {
			t.Errorf("tenant: %+v, %v; want 90 days", tn, err)
		}
		if status, _, page := app.do(t, "GET", path, nil, cookie); status != http.StatusOK || !strings.Contains(page, "delete them after 90 days") {
			t.Errorf("privacy page does not name the tenant's default: %d", status)
		}
	}
}
