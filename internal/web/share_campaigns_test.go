package web_test

import (
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/worker"
)

var (
	listPath     = regexp.MustCompile(`^/adatum/contacts/([0-9a-f]{12})$`)
	campaignPath = regexp.MustCompile(`^/adatum/surveys/[^/]+/campaigns/([0-9a-f]{24})$`)
	mailedLink   = regexp.MustCompile(`https://surveys\.example(/survey/adatum/[^\s?]+\?\S+)`)
)

// campaignWorker is the campaigns worker of the app's storage, sending to
// srv; runCampaign runs it until the campaign has finished steps steps.
func campaignWorker(t *testing.T, app *testApp, srv *mailtest.Server) *worker.Campaigns {
	t.Helper()
	cfg, err := mail.Load(mail.Settings{URL: "smtp://" + srv.Addr + "?tls=none", From: "Surveys <surveys@example.com>"})
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := mail.LoadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	st := app.st
	return worker.NewCampaigns(worker.CampaignDeps{Storage: st, Campaigns: store.NewCampaignStore(st), Contacts: store.NewContactStore(st), Links: store.NewPersonalLinkStore(st),
		Quota: store.NewMailQuotaStore(st, store.DefaultMailQuota), Tenants: store.NewTenantStore(st), Surveys: store.NewSurveyStore(st),
		Send: mail.NewSender(*cfg), Templates: tpl, Key: testUnsubscribeKey, PublicURL: testPublicURL},
		worker.CampaignConfig{Lease: time.Minute, Batch: 90, MaxAttempts: 2, RetryBase: time.Second, RetryMax: time.Second, MaxIdle: 10 * time.Millisecond},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func runCampaign(t *testing.T, app *testApp, w *worker.Campaigns, id string, steps int) {
	t.Helper()
	for range 20 {
		if _, err := w.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		c, _, err := store.NewCampaignStore(app.st).Get(context.Background(), "adatum", id)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Finished) >= steps {
			return
		}
	}
	t.Fatalf("the campaign did not finish %d steps", steps)
}

// TestContactsAndCampaign: an editor makes a list and imports a CSV file
// whose bad row the preview reports (nothing saved until confirmed, and
// then only the good rows); starts a campaign of a survey taken by
// personal link; each contact gets one mail, with the organisation's
// name, its own link carrying its attribute as a hidden field, and an
// unsubscribe link with its headers. One contact answers, one opens the
// survey and sends a page that is refused; the reminder goes only to the
// two who did not complete it; one unsubscribes with one click, and the
// campaign's page counts it all.
func TestContactsAndCampaign(t *testing.T) {
	t.Parallel()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = &outbox{}, testPublicURL })
	srv := mailtest.Start(t, mailtest.Options{})
	w := campaignWorker(t, app, srv)
	sv := app.oncePoll(t, "Customer panel", survey.OnePerLink, false)
	sv.HiddenFields = []string{"dept"}
	if err := app.surveys.Update(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	ed := app.signedIn(t, "adatum", "ed@adatum.example")

	code, _, body := app.do(t, "POST", "/adatum/contacts", url.Values{"name": {""}}, ed)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="list-name-error"`) {
		t.Fatalf("a list without a name = %d\n%s", code, body)
	}
	code, h, _ := app.do(t, "POST", "/adatum/contacts", url.Values{"name": {"Panel"}}, ed)
	m := listPath.FindStringSubmatch(h.Get("Location"))
	if code != http.StatusSeeOther || m == nil {
		t.Fatalf("make a list = %d %q", code, h.Get("Location"))
	}
	list := "/adatum/contacts/" + m[1]
	csv := "email,name,dept\nana@example.com,Ana,Sales\nbo@example.com,Bo,Support\nnot-an-address,Nemo,Sales\ncy@example.com,Cy,Sales\n"
	code, _, body = app.do(t, "POST", list+"/import", url.Values{"csv": {csv}}, ed)
	if code != http.StatusOK || !strings.Contains(body, "Import: 3 contacts to add, 4 rows read") || !strings.Contains(body, "Not imported:</strong> &#34;not-an-address&#34; is not an e-mail address") {
		t.Fatalf("preview = %d\n%s", code, body)
	}
	if cs, _ := store.NewContactStore(app.st).Contacts(context.Background(), "adatum", m[1]); len(cs) != 0 {
		t.Fatalf("the preview saved %d contacts", len(cs))
	}
	code, h, _ = app.do(t, "POST", list+"/import", url.Values{"csv": {csv}, "confirm": {"1"}}, ed)
	if code != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "?imported=3") {
		t.Fatalf("import = %d %q", code, h.Get("Location"))
	}
	if _, _, body = app.do(t, "GET", list+"?imported=3", nil, ed); !strings.Contains(body, "3 contacts imported") || !strings.Contains(body, "dept=Support") {
		t.Fatalf("the list after the import:\n%s", body)
	}

	campaigns := "/adatum/surveys/" + sv.Slug + "/campaigns"
	bad := url.Values{"list": {m[1]}, "subject": {""}, "text": {"Hello"}, "when": {"later"}, "sendAt": {"yesterday"}, "reminders": {"1"}, "remindDays": {"2"}}
	code, _, body = app.do(t, "POST", campaigns, bad, ed)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="subject-error"`) || !strings.Contains(body, `id="sendAt-error"`) {
		t.Fatalf("a bad campaign = %d\n%s", code, body)
	}
	if cs, _ := store.NewCampaignStore(app.st).List(context.Background(), "adatum", ""); len(cs) != 0 {
		t.Fatalf("a bad campaign was stored")
	}
	good := url.Values{"list": {m[1]}, "subject": {"Your opinion"}, "text": {"Dear panel member,\n\ntell us how we did."}, "when": {"now"}, "reminders": {"1"}, "remindDays": {"2"}}
	code, h, _ = app.do(t, "POST", campaigns, good, ed)
	cm := campaignPath.FindStringSubmatch(h.Get("Location"))
	if code != http.StatusSeeOther || cm == nil {
		t.Fatalf("start the campaign = %d %q", code, h.Get("Location"))
	}
	runCampaign(t, app, w, cm[1], 1)
	msgs := srv.Messages()
	if len(msgs) != 3 {
		t.Fatalf("%d mails, want 3", len(msgs))
	}
	links := map[string]string{}
	unsub := map[string]string{}
	for _, msg := range msgs {
		l := mailedLink.FindStringSubmatch(msg.Text)
		if l == nil || !strings.Contains(msg.Subject, "Adatum") || !strings.Contains(msg.Text, "tell us how we did") || !strings.Contains(l[1], "dept=") {
			t.Fatalf("mail to %v:\n%s\n%s", msg.To, msg.Subject, msg.Text)
		}
		links[msg.To[0]] = l[1]
		u := msg.Header.Get("List-Unsubscribe")
		if !strings.HasPrefix(u, "<"+testPublicURL+"/unsubscribe/") || msg.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Fatalf("unsubscribe headers of the mail to %v: %q %q", msg.To, u, msg.Header.Get("List-Unsubscribe-Post"))
		}
		unsub[msg.To[0]] = strings.TrimSuffix(strings.TrimPrefix(u, "<"+testPublicURL), ">")
	}
	star := "q-" + sv.Questions[0].ID
	// Ana answers.
	code, _, body = app.do(t, "GET", links["ana@example.com"], nil, nil)
	if code != http.StatusOK {
		t.Fatalf("Ana's link = %d", code)
	}
	k := url.Values{}
	if u, err := url.Parse(links["ana@example.com"]); err == nil {
		k = u.Query()
	}
	if code, _, body := app.do(t, "POST", "/survey/adatum/"+sv.Slug, url.Values{"token": {tokenRE.FindStringSubmatch(body)[1]}, "k": {k.Get("k")}, star: {"5"}}, nil); code != http.StatusSeeOther {
		t.Fatalf("Ana's answer = %d\n%s", code, body)
	}
	// Bo opens the survey and sends it without a rating (refused).
	_, _, body = app.do(t, "GET", links["bo@example.com"], nil, nil)
	bo, _ := url.Parse(links["bo@example.com"])
	if code, _, _ := app.do(t, "POST", "/survey/adatum/"+sv.Slug, url.Values{"token": {tokenRE.FindStringSubmatch(body)[1]}, "k": {bo.Query().Get("k")}}, nil); code != http.StatusUnprocessableEntity {
		t.Fatalf("Bo's empty page = %d", code)
	}

	code, h, _ = app.do(t, "POST", campaigns+"/"+cm[1]+"/remind", url.Values{}, ed)
	if code != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "?reminded=1") {
		t.Fatalf("remind now = %d %q", code, h.Get("Location"))
	}
	runCampaign(t, app, w, cm[1], 2)
	got := map[string]int{}
	for _, msg := range srv.Messages() {
		got[msg.To[0]]++
	}
	if got["ana@example.com"] != 1 || got["bo@example.com"] != 2 || got["cy@example.com"] != 2 {
		t.Fatalf("mails after the reminder: %v", got)
	}

	// Cy unsubscribes with one click (as a mail client POSTs).
	code, _, body = app.send(t, "POST", unsub["cy@example.com"], strings.NewReader("List-Unsubscribe=One-Click"), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if code != http.StatusOK || !strings.Contains(body, "You are unsubscribed") {
		t.Fatalf("one-click unsubscribe = %d\n%s", code, body)
	}
	if code, _, _ := app.send(t, "POST", unsub["cy@example.com"][:len(unsub["cy@example.com"])-3]+"AAA", strings.NewReader(""), nil); code != http.StatusNotFound {
		t.Fatalf("an altered unsubscribe link = %d", code)
	}
	sup, err := store.NewContactStore(app.st).Suppressions(context.Background(), "adatum")
	if err != nil || !sup[store.ContactID("cy@example.com")].Unsubscribed || len(sup) != 1 {
		t.Fatalf("flags: %v, %v", sup, err)
	}

	_, _, body = app.do(t, "GET", campaigns+"/"+cm[1], nil, ed)
	for _, want := range []string{"<dt>Contacts</dt><dd>3</dd>", "<dt>Sent</dt><dd>3</dd>", "<dt>Opened the survey</dt><dd>2</dd>", "<dt>Started</dt><dd>2</dd>",
		"<dt>Completed</dt><dd>1</dd>", "<dt>Unsubscribed</dt><dd>1</dd>", "<dt>Reminders sent</dt><dd>2</dd>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the campaign's page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}

// TestContactEditing: a CSV file uploaded as a file is read as the pasted
// text is; a contact's name and attributes are edited (a bad attribute is
// a 422 beside the field, nothing changed), the contact removed, and the
// list deleted after its confirmation page names it. A campaign of a
// survey that takes answers from anyone is refused, saying what to change,
// and a server without the campaigns' key says campaigns are off.
func TestContactEditing(t *testing.T) {
	t.Parallel()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = &outbox{}, testPublicURL })
	ed := app.signedIn(t, "adatum", "ed@adatum.example")
	ctx := context.Background()
	cs := store.NewContactStore(app.st)
	l, err := cs.CreateList(ctx, "adatum", "Board")
	if err != nil {
		t.Fatal(err)
	}
	list := "/adatum/contacts/" + l.ID

	var buf strings.Builder
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "board.csv")
	io.WriteString(fw, "email,name,seat\nzoe@example.com,Zoe,chair\n")
	mw.Close()
	code, _, body := app.send(t, "POST", list+"/import", strings.NewReader(buf.String()), map[string]string{"Content-Type": mw.FormDataContentType(), "Cookie": ed["Cookie"]})
	if code != http.StatusOK || !strings.Contains(body, "Import: 1 contact to add") || !strings.Contains(body, "<code>seat</code>") {
		t.Fatalf("an uploaded file = %d\n%s", code, body)
	}
	if code, _, _ := app.do(t, "POST", list+"/import", url.Values{"csv": {"email,seat\nzoe@example.com,chair\n"}, "confirm": {"1"}}, ed); code != http.StatusSeeOther {
		t.Fatalf("import = %d", code)
	}
	id := store.ContactID("zoe@example.com")
	contact := list + "/" + id
	code, _, body = app.do(t, "POST", contact, url.Values{"name": {"Zoe Z."}, "attrs": {"seat=chair\nBad Name=x"}}, ed)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="attrs-error"`) || !strings.Contains(body, "bad name") {
		t.Fatalf("a bad attribute = %d\n%s", code, body)
	}
	if c, _ := cs.Contact(ctx, "adatum", l.ID, id); c.Name != "" {
		t.Fatalf("a refused edit changed the contact: %+v", c)
	}
	if code, _, _ := app.do(t, "POST", contact, url.Values{"name": {"Zoe Z."}, "attrs": {"seat=vice-chair"}}, ed); code != http.StatusSeeOther {
		t.Fatalf("edit = %d", code)
	}
	if c, _ := cs.Contact(ctx, "adatum", l.ID, id); c.Name != "Zoe Z." || c.Attrs["seat"] != "vice-chair" {
		t.Fatalf("the edit: %+v", c)
	}
	if code, _, _ := app.do(t, "POST", contact+"/remove", url.Values{}, ed); code != http.StatusSeeOther {
		t.Fatalf("remove = %d", code)
	}
	if code, _, _ := app.do(t, "GET", contact, nil, ed); code != http.StatusNotFound {
		t.Fatalf("a removed contact = %d", code)
	}
	if _, _, body := app.do(t, "GET", list+"/delete", nil, ed); !strings.Contains(body, "Board") || !strings.Contains(body, "Delete the list") {
		t.Fatalf("the confirmation:\n%s", body)
	}
	if code, _, _ := app.do(t, "POST", list+"/delete", url.Values{}, ed); code != http.StatusSeeOther {
		t.Fatalf("delete = %d", code)
	}
	if code, _, _ := app.do(t, "GET", list, nil, ed); code != http.StatusNotFound {
		t.Fatalf("a deleted list = %d", code)
	}

	l2, err := cs.CreateList(ctx, "adatum", "Everyone")
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"list": {l2.ID}, "subject": {"Hi"}, "text": {"Please answer."}, "when": {"now"}, "reminders": {"0"}}
	code, _, body = app.do(t, "POST", "/adatum/surveys/"+app.adatum.Slug+"/campaigns", form, ed)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "One answer per") {
		t.Fatalf("a campaign of an open survey = %d\n%s", code, body)
	}
	off := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL, d.CampaignKey = &outbox{}, testPublicURL, nil })
	offEd := off.signedIn(t, "adatum", "ed@adatum.example")
	if _, _, body := off.do(t, "GET", "/adatum/surveys/"+off.adatum.Slug+"/campaigns", nil, offEd); !strings.Contains(body, "SURVEYS_SECRET_KEY") || strings.Contains(body, `id="subject"`) {
		t.Fatalf("campaigns without their key:\n%s", body)
	}
}

// TestCampaignSegmentForm: the campaign form offers the lists' attributes
// for a segment; a condition on an attribute the list has not is a 422
// beside the field, nothing stored; a campaign for the contacts whose
// dept is "sales" mails the two Sales contacts of three, and its page
// says so and counts only them.
func TestCampaignSegmentForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = &outbox{}, testPublicURL })
	srv := mailtest.Start(t, mailtest.Options{})
	w := campaignWorker(t, app, srv)
	sv := app.oncePoll(t, "Customer panel", survey.OnePerLink, false)
	app.pastCacheTTL()
	ed := app.signedIn(t, "adatum", "ed@adatum.example")
	cs := store.NewContactStore(app.st)
	l, err := cs.CreateList(ctx, "adatum", "Panel")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Import(ctx, "adatum", l.ID, []survey.Recipient{{Email: "ana@example.com", Attrs: map[string]string{"dept": "Sales"}},
		{Email: "bo@example.com", Attrs: map[string]string{"dept": "Support"}}, {Email: "cy@example.com", Attrs: map[string]string{"dept": "sales "}}}); err != nil {
		t.Fatal(err)
	}
	campaigns := "/adatum/surveys/" + sv.Slug + "/campaigns"
	code, _, body := app.do(t, "GET", campaigns, nil, ed)
	if code != http.StatusOK || !strings.Contains(body, `<option value="dept">dept</option>`) || !strings.Contains(body, "Panel: dept") || !strings.Contains(body, `id="segValue1"`) {
		t.Fatalf("the form = %d\n%s", code, body)
	}
	form := func(attr, value string) url.Values {
		return url.Values{"list": {l.ID}, "subject": {"Your opinion"}, "text": {"Tell us."}, "when": {"now"}, "reminders": {"0"}, "remindDays": {"2"}, "segAttr1": {attr}, "segValue1": {value}}
	}
	code, _, body = app.do(t, "POST", campaigns, form("region", "North"), ed)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="seg1-error"`) || !strings.Contains(body, "The list has no attribute “region”: choose one of its attributes (dept).") {
		t.Fatalf("a condition on an attribute the list has not = %d\n%s", code, body)
	}
	code, _, body = app.do(t, "POST", campaigns, form("dept", " "), ed)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="seg1-error"`) {
		t.Fatalf("a condition without a value = %d\n%s", code, body)
	}
	if got, _ := store.NewCampaignStore(app.st).List(ctx, "adatum", ""); len(got) != 0 {
		t.Fatalf("a refused campaign was stored: %+v", got)
	}
	code, h, _ := app.do(t, "POST", campaigns, form("dept", "sales"), ed)
	cm := campaignPath.FindStringSubmatch(h.Get("Location"))
	if code != http.StatusSeeOther || cm == nil {
		t.Fatalf("start the campaign = %d %q", code, h.Get("Location"))
	}
	runCampaign(t, app, w, cm[1], 1)
	got := map[string]int{}
	for _, msg := range srv.Messages() {
		got[msg.To[0]]++
	}
	if len(got) != 2 || got["ana@example.com"] != 1 || got["cy@example.com"] != 1 {
		t.Fatalf("mails: %v, want one each to ana and cy", got)
	}
	_, _, body = app.do(t, "GET", campaigns+"/"+cm[1], nil, ed)
	for _, want := range []string{"Only contacts whose dept is sales.", "<dt>Contacts</dt><dd>2</dd>", "<dt>Sent</dt><dd>2</dd>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the campaign's page lacks %s", want)
		}
	}
	if strings.Contains(body, "bo@example.com") {
		t.Errorf("the campaign's page lists a contact outside its segment")
	}
	if t.Failed() {
		t.Log(body)
	}
}
