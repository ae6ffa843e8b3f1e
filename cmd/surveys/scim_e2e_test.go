package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSCIMDeactivation runs SCIM provisioning against surveys serve
// with the test as the identity provider, and two people in Chromium on a
// phone's 390 px window: the admin makes a SCIM token on the SCIM page;
// the provider creates Bea; Bea signs in and works; the provider
// deactivates her (as Entra ID sends it) and her very next page is the
// sign-in page, where her password is refused; the admin's members page
// marks her deactivated and the audit log shows the provider's steps.
// Every page on the way passes axe-core and the 390 px check.
func TestBrowserSCIMDeactivation(t *testing.T) {
	t.Parallel()
	m, base, browser := newBrowserApp(t)
	axeCheck := newAxeCheck(t)
	page := func(name string) chromedp.Action {
		return chromedp.Tasks{
			chromedp.WaitReady(`main`, chromedp.ByQuery),
			noSidewaysScroll(t, name),
			headerInView(t, name),
			screenshot(t, "scim-"+name),
			axeCheck(name),
		}
	}
	signIn := func(email, password string) chromedp.Action {
		return chromedp.Tasks{
			chromedp.Navigate(base + "/login"),
			chromedp.WaitVisible(`#email`, chromedp.ByQuery),
			chromedp.SendKeys(`#email`, email, chromedp.ByQuery),
			chromedp.SendKeys(`#password`, password, chromedp.ByQuery),
			clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		}
	}

	// The admin makes a SCIM token: shown once, on the SCIM page.
	admin := browserRun(t, browser)
	var token string
	admin("the admin makes a SCIM token",
		chromedp.EmulateViewport(390, 844),
		signIn("ana@adatum.example", "correct horse battery"),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery),
		chromedp.Navigate(base+"/adatum/settings/scim"),
		page("settings"),
		chromedp.SendKeys(`#name`, "Entra ID", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#new-token`, chromedp.ByQuery),
		chromedp.Value(`#new-token`, &token, chromedp.ByQuery),
		page("token-made"))
	if !strings.HasPrefix(token, "scim_") {
		t.Fatalf("the SCIM token shown: %q", token)
	}

	// The identity provider, in the test.
	idp := func(method, path, body string, want int) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, base+"/scim/v2"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/scim+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s = %d, want %d: %s", method, path, resp.StatusCode, want, raw)
		}
		var v map[string]any
		_ = json.Unmarshal(raw, &v)
		return v
	}
	bea := idp("POST", "/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"bea@adatum.example","name":{"givenName":"Bea","familyName":"Reis"},"active":true}`, 201)
	id, _ := bea["id"].(string)
	if err := testUsers(m.Storage).SetPassword(context.Background(), "adatum", "bea@adatum.example", "bea's long password"); err != nil {
		t.Fatal(err)
	}

	// Bea signs in, in her own Chromium, and reads the dashboard.
	member := browserRun(t, newBrowser(t))
	member("Bea signs in",
		chromedp.EmulateViewport(390, 844),
		signIn("bea@adatum.example", "bea's long password"),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery),
		page("member-dashboard"))

	// Deactivated: her next page is the sign-in page, and her password is
	// refused.
	idp("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`, 200)
	var where, alert string
	member("Bea's next page",
		chromedp.Navigate(base+"/adatum/surveys"),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery),
		chromedp.Location(&where))
	if !strings.Contains(where, "/login") {
		t.Fatalf("Bea's next page after the deactivation: %s", where)
	}
	member("Bea signs in again",
		signIn("bea@adatum.example", "bea's long password"),
		chromedp.WaitVisible(`.alert`, chromedp.ByQuery),
		chromedp.Text(`.alert`, &alert, chromedp.ByQuery),
		chromedp.Location(&where),
		page("refused"))
	if !strings.Contains(where, "/login") || !strings.Contains(alert, "wrong") {
		t.Fatalf("a deactivated member signs in: at %s, %q", where, alert)
	}

	// The admin sees it on the members page and in the audit log.
	var members, audit string
	admin("the admin's members page and audit log",
		chromedp.Navigate(base+"/adatum/settings/members"),
		page("members"),
		chromedp.Text(`main`, &members, chromedp.ByQuery),
		chromedp.Navigate(base+"/adatum/settings/audit?actor=SCIM"),
		page("audit"),
		chromedp.Text(`main`, &audit, chromedp.ByQuery))
	if !strings.Contains(members, "bea@adatum.example") || !strings.Contains(members, "deactivated by SCIM") {
		t.Errorf("the members page: %s", members)
	}
	for _, want := range []string{"SCIM: member provisioned", "SCIM: member deactivated", "bea@adatum.example"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit log lacks %q: %s", want, audit)
		}
	}
}
