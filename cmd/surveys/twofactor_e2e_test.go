package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserTwoFactorJourney is issue 30's journey in a real Chromium:
// an admin requires two-step sign-in (settings); a member who signs in is
// sent to enrol, turns the authenticator app on (the test computes the
// code from the secret the page shows, with pquerna/otp), adds a passkey
// with the DevTools protocol's virtual authenticator, and signs out; the
// password alone then opens nothing but the second step, where a wrong
// code is refused; the admin's audit log shows each step and downloads
// them as CSV. The admin and the member use two browsers of their own.
// As in TestBrowserPasskeys, the public URL is http://localhost:<port>
// (a WebAuthn relying party is a domain; localhost is a secure context).
func TestBrowserTwoFactorJourney(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	base := fmt.Sprintf("http://localhost:%d", port)
	m := newTestMainWith(t, []string{"--addr", fmt.Sprintf("127.0.0.1:%d", port), "--data", t.TempDir(), "--public-url", base},
		map[string]string{"SURVEYS_SECRET_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="})
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	users := testUsers(m.Storage)
	for _, who := range []string{"ana@adatum.example", "bo@adatum.example"} {
		if _, err := users.Add(ctx, "adatum", who, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	if err := users.SetRole(ctx, "adatum", "bo@adatum.example", survey.Editor); err != nil {
		t.Fatal(err)
	}
	admin := browserRun(t, newBrowser(t))
	member := browserRun(t, newBrowser(t))
	axeCheck := newAxeCheck(t)
	signIn := func(email string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.Navigate(base + "/login"),
			chromedp.SendKeys(`#email`, email),
			chromedp.SendKeys(`#password`, "correct horse battery"),
			clickAndLoad(`main button[type=submit]`),
		}
	}

	// The admin requires two-step sign-in (their own session goes on).
	admin("the admin signs in", signIn("ana@adatum.example"), chromedp.WaitVisible(`table.table`))
	admin("require two-step sign-in",
		chromedp.Navigate(base+"/adatum/settings"),
		chromedp.Click(`input[name=requireTwoFactor]`),
		clickAndLoad(`//button[normalize-space()="Save settings"]`, chromedp.BySearch),
		chromedp.WaitVisible(`input[name=requireTwoFactor]:checked`))

	// The member signs in and is sent to enrol: no other page first.
	var text, secret, location string
	member("the member signs in: sent to enrol",
		signIn("bo@adatum.example"),
		chromedp.WaitVisible(`code.totp-secret`),
		chromedp.Location(&location),
		chromedp.Text(`main`, &text),
		chromedp.Text(`code.totp-secret`, &secret),
		axeCheck("enrolment required"))
	if !strings.HasSuffix(location, "/adatum/account/two-factor") || !strings.Contains(text, "Your organisation requires two-step sign-in") {
		t.Fatalf("after the password, %s:\n%s", location, text)
	}
	// The enrolment page offers a fresh secret each time it is shown: the
	// code is computed from the one on the page the member sends.
	member("another page sends back to enrolment",
		chromedp.Navigate(base+"/adatum/surveys"),
		chromedp.WaitVisible(`code.totp-secret`),
		chromedp.Location(&location),
		chromedp.Text(`code.totp-secret`, &secret))
	if !strings.HasSuffix(location, "/adatum/account/two-factor") {
		t.Fatalf("the surveys page before enrolment went to %s", location)
	}

	// The authenticator app: the code computed from the secret shown.
	code, err := totp.GenerateCode(strings.Join(strings.Fields(secret), ""), time.Now())
	if err != nil {
		t.Fatalf("a code of the secret %q: %v", secret, err)
	}
	member("turn the authenticator app on",
		chromedp.SendKeys(`#code`, code),
		clickAndLoad(`//button[normalize-space()="Turn two-step sign-in on"]`, chromedp.BySearch),
		chromedp.WaitVisible(`ol.recovery-codes`),
		chromedp.Text(`main`, &text))
	if !strings.Contains(text, "Two-step sign-in is on") {
		t.Fatalf("after the code:\n%s", text)
	}

	// A passkey, with Chromium's virtual authenticator.
	var authenticator webauthn.AuthenticatorID
	member("a virtual authenticator", chromedp.ActionFunc(func(ctx context.Context) error {
		if err := webauthn.Enable().WithEnableUI(false).Do(ctx); err != nil {
			return err
		}
		var err error
		authenticator, err = webauthn.AddVirtualAuthenticator(&webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportUsb,
			HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		}).Do(ctx)
		return err
	}))
	member("add a passkey",
		chromedp.Navigate(base+"/adatum/account/two-factor"),
		chromedp.WaitVisible(`#passkey-add [data-passkey-button]`),
		chromedp.SendKeys(`#passkey-name`, "Bo's key"),
		chromedp.Evaluate(markStale, nil),
		chromedp.Click(`#passkey-add [data-passkey-button]`),
		waitFresh(),
		chromedp.Text(`main`, &text),
		chromedp.ActionFunc(func(ctx context.Context) error {
			creds, err := webauthn.GetCredentials(authenticator).Do(ctx)
			if err == nil && len(creds) != 1 {
				err = fmt.Errorf("the authenticator holds %d credentials, want 1", len(creds))
			}
			return err
		}))
	if !strings.Contains(text, "Your passkey is added") || !strings.Contains(text, "Bo's key") {
		t.Fatalf("after adding a passkey:\n%s", text)
	}
	member("sign out", clickAndLoad(`//button[normalize-space()="Sign out"]`, chromedp.BySearch))

	// The password alone: the second step, where a wrong code is refused
	// and no page opens.
	member("the password alone: the second step",
		signIn("bo@adatum.example"),
		chromedp.WaitVisible(`#code`),
		chromedp.Text(`main`, &text))
	if !strings.Contains(text, "Your password is right") {
		t.Fatalf("second step:\n%s", text)
	}
	member("a wrong code is refused",
		chromedp.SendKeys(`#code`, "000000"),
		clickAndLoad(`//button[normalize-space()="Sign in"]`, chromedp.BySearch),
		chromedp.WaitVisible(`#code-error`),
		chromedp.Text(`main`, &text),
		axeCheck("second step refused"))
	if !strings.Contains(text, "That code is not right") {
		t.Fatalf("after a wrong code:\n%s", text)
	}
	member("no page without the second step",
		chromedp.Navigate(base+"/adatum/surveys"),
		chromedp.WaitVisible(`#password`),
		chromedp.Location(&location))
	if !strings.Contains(location, "/login") {
		t.Fatalf("the surveys page without the second step went to %s", location)
	}

	// The admin's audit log: each step, then as CSV.
	admin("the audit log",
		chromedp.Navigate(base+"/adatum/settings/audit?actor=bo%40adatum.example"),
		chromedp.WaitVisible(`main table`),
		chromedp.Text(`main`, &text),
		axeCheck("audit log"))
	for _, want := range []string{"Signed in", "Authenticator app turned on", "Passkey added", "Bo's key", "Signed out", "Sign-in failed", "wrong second-step code"} {
		if !strings.Contains(text, want) {
			t.Errorf("the audit log lacks %q:\n%s", want, text)
		}
	}
	admin("the admin's own steps",
		chromedp.Navigate(base+"/adatum/settings/audit?actor=ana%40adatum.example"),
		chromedp.WaitVisible(`main table`),
		chromedp.Text(`main`, &text))
	if !strings.Contains(text, "Settings changed") || !strings.Contains(text, "two-step sign-in required") {
		t.Errorf("the audit log lacks the admin's requirement:\n%s", text)
	}
	downloads := t.TempDir()
	admin("download the member's events as CSV",
		chromedp.Navigate(base+"/adatum/settings/audit?actor=bo%40adatum.example"),
		chromedp.WaitVisible(`main table`),
		chromedp.ActionFunc(func(ctx context.Context) error {
			c := chromedp.FromContext(ctx)
			return cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(downloads).
				WithBrowserContextID(c.BrowserContextID).Do(cdp.WithExecutor(ctx, c.Browser))
		}),
		chromedp.Click(`//a[normalize-space()="Download as CSV"]`, chromedp.BySearch))
	rows, err := csv.NewReader(strings.NewReader(string(waitForDownload(t, downloads)))).ReadAll()
	if err != nil || len(rows) < 2 || rows[0][2] != "Action" {
		t.Fatalf("the CSV: %q, %v", rows, err)
	}
	actions := map[string]bool{}
	for _, row := range rows[1:] {
		if row[1] != "bo@adatum.example" {
			t.Errorf("a row of another actor: %q", row)
		}
		actions[row[2]] = true
	}
	for _, want := range []string{survey.AuditSignIn, survey.AuditTwoFactorOn, survey.AuditPasskeyAdded, survey.AuditSignOut, survey.AuditSignInFailed} {
		if !actions[want] {
			t.Errorf("the CSV lacks %s: %q", want, rows)
		}
	}
}
