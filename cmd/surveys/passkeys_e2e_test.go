package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// TestBrowserPasskeys runs passkeys in a real Chromium with the DevTools
// protocol's virtual authenticator (WebAuthn.enable,
// WebAuthn.addVirtualAuthenticator): an admin requires two-step sign-in;
// they add a passkey on their two-step sign-in page (passkeys.js calls
// navigator.credentials.create and posts its answer); signed out, their
// password alone opens no page but the second step's, where the passkey
// (navigator.credentials.get) signs them in; the audit log shows the
// passkey added and the sign-in by passkey; their sessions page lists
// this browser. A WebAuthn relying party must be a domain, not an IP
// address: the server's public URL is http://localhost:<port>, a secure
// context to Chromium, and the browser goes there.
func TestBrowserPasskeys(t *testing.T) {
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
	if _, err := testUsers(m.Storage).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	run := browserRun(t, newBrowser(t))
	axeCheck := newAxeCheck(t)

	var authenticator webauthn.AuthenticatorID
	run("a virtual authenticator", chromedp.ActionFunc(func(ctx context.Context) error {
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
	credentials := func(want int) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			creds, err := webauthn.GetCredentials(authenticator).Do(ctx)
			if err != nil {
				return err
			}
			if len(creds) != want {
				return fmt.Errorf("the authenticator holds %d credentials, want %d", len(creds), want)
			}
			return nil
		})
	}
	signInWithPassword := chromedp.Tasks{
		chromedp.Navigate(base + "/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		clickAndLoad(`main button[type=submit]`),
	}
	run("sign in", signInWithPassword, chromedp.WaitVisible(`table.table`))
	run("require two-step sign-in",
		chromedp.Navigate(base+"/adatum/settings"),
		chromedp.Click(`input[name=requireTwoFactor]`),
		clickAndLoad(`//button[normalize-space()="Save settings"]`, chromedp.BySearch),
		chromedp.WaitVisible(`input[name=requireTwoFactor]:checked`))

	var text string
	run("add a passkey",
		chromedp.Navigate(base+"/adatum/account/two-factor"),
		chromedp.WaitVisible(`#passkey-add [data-passkey-button]`),
		axeCheck("two-step sign-in with passkeys"),
		chromedp.SendKeys(`#passkey-name`, "Virtual key"),
		chromedp.Evaluate(markStale, nil),
		chromedp.Click(`#passkey-add [data-passkey-button]`),
		waitFresh(),
		chromedp.Text(`main`, &text),
		credentials(1))
	if !strings.Contains(text, "Your passkey is added") || !strings.Contains(text, "Virtual key") {
		t.Fatalf("after adding a passkey:\n%s", text)
	}

	run("sign out", clickAndLoad(`//button[normalize-space()="Sign out"]`, chromedp.BySearch))
	run("the password alone: the second step",
		signInWithPassword,
		chromedp.WaitVisible(`#passkey-signin [data-passkey-button]`),
		chromedp.Text(`main`, &text),
		axeCheck("second step with a passkey"))
	if !strings.Contains(text, "Now use your passkey") {
		t.Fatalf("second step:\n%s", text)
	}
	run("the passkey signs in",
		chromedp.Evaluate(markStale, nil),
		chromedp.Click(`#passkey-signin [data-passkey-button]`),
		waitFresh(),
		chromedp.WaitVisible(`table.table`))

	run("the audit log", chromedp.Navigate(base+"/adatum/settings/audit"), chromedp.WaitVisible(`main table`), chromedp.Text(`main`, &text))
	for _, want := range []string{"Passkey added", "Virtual key", "password and passkey", "Settings changed"} {
		if !strings.Contains(text, want) {
			t.Errorf("the audit log lacks %q:\n%s", want, text)
		}
	}
	run("the sessions page",
		chromedp.Navigate(base+"/adatum/account/sessions"),
		chromedp.WaitVisible(`.session-list`),
		chromedp.Text(`.session-list`, &text),
		axeCheck("sessions"))
	if !strings.Contains(text, "Headless Chrome") || !strings.Contains(text, "this browser") {
		t.Errorf("sessions page:\n%s", text)
	}
}
