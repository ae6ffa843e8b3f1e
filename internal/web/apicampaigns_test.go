package web_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// apiCSV posts a CSV file to the API, as text/csv.
func (a *testApp) apiCSV(t *testing.T, path, token, csv string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", a.srv.URL+path, strings.NewReader(csv))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "text/csv")
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	validateAPI(t, req, resp.StatusCode, resp.Header, raw)
	return resp.StatusCode, string(raw)
}

// TestAPIContactsAndCampaigns: a list made through the API; contacts
// added as JSON and as CSV, a batch with a bad row refused whole (each
// bad row named, nothing added); a campaign of the list sent, then listed
// and read with its totals.
func TestAPIContactsAndCampaigns(t *testing.T) {
	t.Parallel()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = &outbox{}, testPublicURL })
	ctx := context.Background()
	tok, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "crm", survey.Editor, 0)
	if err != nil {
		t.Fatal(err)
	}

	code, v, raw := app.api(t, "POST", "/api/v1/contacts/lists", tok, `{"name":"  "}`)
	if code != http.StatusUnprocessableEntity || v["error"] == nil {
		t.Fatalf("a list without a name = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/contacts/lists", tok, `{"name":"API panel"}`)
	id, _ := v["id"].(string)
	if code != http.StatusCreated || len(id) != 12 {
		t.Fatalf("make a list = %d %s", code, raw)
	}
	add := "/api/v1/contacts/lists/" + id + "/contacts"
	contacts := func() int {
		cs, err := store.NewContactStore(app.st).Contacts(ctx, "adatum", id)
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}

	// A bad address and an address twice: both named, nothing added.
	code, v, raw = app.api(t, "POST", add, tok, `{"contacts":[{"email":"ana@example.com","name":"Ana","attributes":{"dept":"Sales"}},{"email":"not-an-address"},{"email":"ANA@example.com"}]}`)
	fields, _ := v["fields"].(map[string]any)
	if code != http.StatusUnprocessableEntity || fields["contacts[1]"] == nil || fields["contacts[2]"] == nil || fields["contacts[0]"] != nil {
		t.Fatalf("a batch with bad rows = %d %s", code, raw)
	}
	if n := contacts(); n != 0 {
		t.Fatalf("a refused batch added %d contacts", n)
	}
	code, v, raw = app.api(t, "POST", add, tok, `{"contacts":[{"email":"ana@example.com","name":"Ana","attributes":{"dept":"Sales"}},{"email":"bo@example.com"}]}`)
	if code != http.StatusOK || v["imported"] != float64(2) {
		t.Fatalf("add two contacts = %d %s", code, raw)
	}
	// CSV: a row the list has already is named by its line.
	code, raw = app.apiCSV(t, add, tok, "email,name\ncy@example.com,Cy\nbo@example.com,Bo\n")
	if code != http.StatusUnprocessableEntity || !strings.Contains(raw, `"line 3"`) {
		t.Fatalf("CSV with a known address = %d %s", code, raw)
	}
	if code, raw = app.apiCSV(t, add, tok, "email,name\ncy@example.com,Cy\n"); code != http.StatusOK || !strings.Contains(raw, `"imported":1`) {
		t.Fatalf("CSV import = %d %s", code, raw)
	}
	if n := contacts(); n != 3 {
		t.Fatalf("the list holds %d contacts, want 3", n)
	}
	if code, _, raw = app.api(t, "GET", "/api/v1/contacts/lists", tok, ""); code != http.StatusOK || !strings.Contains(raw, `"API panel"`) {
		t.Fatalf("the lists = %d %s", code, raw)
	}
	if code, _, raw = app.api(t, "POST", "/api/v1/contacts/lists/00000000dead/contacts", tok, `{"contacts":[{"email":"dy@example.com"}]}`); code != http.StatusNotFound {
		t.Fatalf("a list that does not exist = %d %s", code, raw)
	}

	// A campaign of the list, sent; listed, then read with its totals.
	sv := app.oncePoll(t, "Customer panel", survey.OnePerLink, false)
	c, err := store.NewCampaignStore(app.st).Create(ctx, "adatum", store.NewCampaign{Survey: sv.Slug, List: id, Subject: "Your opinion", Text: "Tell us.", SendAt: time.Now(), CreatedBy: "ed@adatum.example"})
	if err != nil {
		t.Fatal(err)
	}
	srv := mailtest.Start(t, mailtest.Options{})
	runCampaign(t, app, campaignWorker(t, app, srv), c.ID, 1)
	campaigns := "/api/v1/surveys/" + sv.Slug + "/campaigns"
	code, v, raw = app.api(t, "GET", campaigns, tok, "")
	if list, _ := v["campaigns"].([]any); code != http.StatusOK || len(list) != 1 || !strings.Contains(raw, c.ID) {
		t.Fatalf("the survey's campaigns = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "GET", campaigns+"/"+c.ID, tok, "")
	totals, _ := v["totals"].(map[string]any)
	if code != http.StatusOK || v["done"] != true || totals["Contacts"] != float64(3) || totals["Sent"] != float64(3) || totals["Completed"] != float64(0) {
		t.Fatalf("the campaign = %d %s", code, raw)
	}
	if code, _, raw = app.api(t, "GET", campaigns+"/0123456789abcdef01234567", tok, ""); code != http.StatusNotFound {
		t.Fatalf("a campaign that does not exist = %d %s", code, raw)
	}
}
