package web_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// softKey is a software authenticator for the tests: one ES256 key, an
// attestation of format "none" at registration, assertions signed by
// hand, with a counter that goes up.
type softKey struct {
	t       *testing.T
	origin  string // what the browser would write: the page's origin
	rpID    string
	key     *ecdsa.PrivateKey
	id      []byte
	counter uint32
}

func newSoftKey(t *testing.T, origin, rpID string) *softKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	return &softKey{t: t, origin: origin, rpID: rpID, key: key, id: id}
}

var b64 = base64.RawURLEncoding

// options reads the challenge (and the relying party's ID) of the JSON
// options the server gave.
func (k *softKey) options(body string) (challenge, rpID string) {
	k.t.Helper()
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
			RPID      string `json:"rpId"`
			RP        struct {
				ID string `json:"id"`
			} `json:"rp"`
			AllowCredentials []struct {
				ID string `json:"id"`
			} `json:"allowCredentials"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil || o.PublicKey.Challenge == "" {
		k.t.Fatalf("passkey options: %v\n%s", err, body)
	}
	return o.PublicKey.Challenge, o.PublicKey.RPID + o.PublicKey.RP.ID
}

func (k *softKey) clientData(typ, challenge string) []byte {
	raw, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": k.origin, "crossOrigin": false})
	return raw
}

func (k *softKey) authData(flags byte, attested []byte) []byte {
	rp := sha256.Sum256([]byte(k.rpID))
	out := append(rp[:], flags)
	out = binary.BigEndian.AppendUint32(out, k.counter)
	return append(out, attested...)
}

// create answers the registration options of body as a browser would
// (the JSON of PublicKeyCredential).
func (k *softKey) create(body string) string {
	k.t.Helper()
	challenge, _ := k.options(body)
	pub, err := webauthncbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: k.key.X.FillBytes(make([]byte, 32)), -3: k.key.Y.FillBytes(make([]byte, 32))})
	if err != nil {
		k.t.Fatal(err)
	}
	attested := make([]byte, 16) // AAGUID: none
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(k.id)))
	attested = append(append(attested, k.id...), pub...)
	att, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": k.authData(0x41, attested)})
	if err != nil {
		k.t.Fatal(err)
	}
	out, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(k.clientData("webauthn.create", challenge)),
			"attestationObject": b64.EncodeToString(att), "transports": []string{"usb"}}})
	return string(out)
}

// get answers the sign-in options of body with a signed assertion.
func (k *softKey) get(body string) string {
	k.t.Helper()
	challenge, _ := k.options(body)
	k.counter++
	auth := k.authData(0x05, nil) // user present and verified
	cd := k.clientData("webauthn.get", challenge)
	sum := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, auth...), sum[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		k.t.Fatal(err)
	}
	out, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(auth),
			"signature": b64.EncodeToString(sig)}})
	return string(out)
}

var passkeyIDRE = regexp.MustCompile(`/account/passkeys/remove\?id=([0-9a-f]{64})`)

// addPasskey registers k for the member of h under name, and returns
// the status and body of the answer to the form.
func (a *testApp) addPasskey(t *testing.T, h map[string]string, k *softKey, name string) (int, http.Header, string) {
	t.Helper()
	code, _, body := a.do(t, "POST", "/adatum/account/passkeys/begin", url.Values{}, h)
	if code != http.StatusOK {
		t.Fatalf("registration options = %d:\n%s", code, body)
	}
	if _, rp := k.options(body); rp != "surveys.example" {
		t.Fatalf("relying party %q, not the public URL's host", rp)
	}
	return a.do(t, "POST", "/adatum/account/passkeys", url.Values{"name": {name}, "credential": {k.create(body)}}, h)
}

// passkeyStep signs in with the token of the code page and key k.
func (a *testApp) passkeyStep(t *testing.T, token string, k *softKey, addr string) (int, http.Header, string) {
	t.Helper()
	code, _, body := a.do(t, "POST", "/login/code/passkey", url.Values{"token": {token}}, map[string]string{"X-Forwarded-For": addr})
	if code != http.StatusOK {
		return code, nil, body
	}
	return a.codeStep(t, token, "passkey", k.get(body), addr)
}

// TestPasskeySignIn: a member adds two named passkeys (the options name
// the public URL's host as the relying party, never the request's);
// after the password, a passkey signs in in place of a code; a replayed
// assertion, a key of another site and an unknown key are refused and
// audited; a removed passkey no longer signs in; the last one gone, the
// password alone signs in again. Each step is in the audit log.
func TestPasskeySignIn(t *testing.T) {
	app, _, _ := twoFactorApp(t)
	ctx := context.Background()
	const ana, pw, here = "ana@adatum.example", "another long password", "198.51.100.9"
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", ana, pw, survey.Admin); err != nil {
		t.Fatal(err)
	}
	_, cookie, _, _ := app.passwordStep(t, ana, pw, here)
	h := map[string]string{"Cookie": cookie, "Host": "evil.example"}
	laptop := newSoftKey(t, testPublicURL, "surveys.example")
	if code, _, body := app.addPasskey(t, h, laptop, " "); code != http.StatusUnprocessableEntity || !strings.Contains(body, "Give the passkey a name") {
		t.Fatalf("nameless passkey = %d:\n%s", code, body)
	}
	code, hdr, body := app.addPasskey(t, h, laptop, "Work laptop")
	if code != http.StatusSeeOther || hdr.Get("Location") != "/adatum/account/two-factor?passkey=added" {
		t.Fatalf("add = %d:\n%s", code, body)
	}
	// The same key again: the browser is told to exclude it, and the
	// server refuses it.
	if code, _, body := app.addPasskey(t, h, laptop, "Again"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "added already") {
		t.Fatalf("the same key twice = %d:\n%s", code, body)
	}
	// A key made for another site is refused.
	phishy := newSoftKey(t, "https://surveys.example.evil", "surveys.example.evil")
	if code, _, body := app.addPasskey(t, h, phishy, "Phished"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "was not accepted") {
		t.Fatalf("a key of another site = %d:\n%s", code, body)
	}
	// A registration answer without its challenge (used already) is refused.
	if code, _, body := app.do(t, "POST", "/adatum/account/passkeys", url.Values{"name": {"Replay"}, "credential": {laptop.create(`{"publicKey":{"challenge":"AAAA"}}`)}}, h); code != http.StatusUnprocessableEntity || !strings.Contains(body, "press “Add a passkey” again") {
		t.Fatalf("registration without a challenge = %d:\n%s", code, body)
	}
	phone := newSoftKey(t, testPublicURL, "surveys.example")
	if code, _, body := app.addPasskey(t, h, phone, "Phone"); code != http.StatusSeeOther {
		t.Fatalf("second passkey = %d:\n%s", code, body)
	}
	_, _, page := app.do(t, "GET", "/adatum/account/two-factor?passkey=added", nil, h)
	ids := passkeyIDRE.FindAllStringSubmatch(page, -1)
	if !strings.Contains(page, "Your passkey is added") || !strings.Contains(page, "<strong>Work laptop</strong>") || !strings.Contains(page, "<strong>Phone</strong>") || len(ids) != 2 {
		t.Fatalf("passkeys page:\n%s", page)
	}
	if !strings.Contains(page, `src="/static/passkeys.`) || strings.Contains(page, "<script>") {
		t.Errorf("the page loads passkeys.js (and no inline script)")
	}
	app.do(t, "POST", "/logout", url.Values{}, h)

	// The password: the code page offers the passkey (no app here).
	code, cookie, token, body := app.passwordStep(t, ana, pw, here)
	if code != http.StatusOK || cookie != "" || token == "" || !strings.Contains(body, "Use your passkey") || strings.Contains(body, `<label for="code">`) {
		t.Fatalf("password of a passkey account = %d:\n%s", code, body)
	}
	// An unknown key is refused; so is an assertion replayed.
	stranger := newSoftKey(t, testPublicURL, "surveys.example")
	if code, hdr, _ := app.passkeyStep(t, token, stranger, here); code != http.StatusUnauthorized || cookieOf(hdr) != "" {
		t.Fatalf("an unknown key = %d", code)
	}
	code, _, opts := app.do(t, "POST", "/login/code/passkey", url.Values{"token": {token}}, map[string]string{"X-Forwarded-For": here})
	if code != http.StatusOK {
		t.Fatalf("options = %d", code)
	}
	assertion := laptop.get(opts)
	code, hdr, _ = app.codeStep(t, token, "passkey", assertion, here)
	if cookie = cookieOf(hdr); code != http.StatusSeeOther || cookie == "" || hdr.Get("Location") != "/adatum/surveys" {
		t.Fatalf("passkey sign-in = %d to %q", code, hdr.Get("Location"))
	}
	if code, hdr, _ := app.codeStep(t, token, "passkey", assertion, here); code != http.StatusUnauthorized || cookieOf(hdr) != "" {
		t.Fatalf("a replayed assertion = %d", code)
	}
	// A made-up token gets no options.
	if code, _, _ := app.do(t, "POST", "/login/code/passkey", url.Values{"token": {"made-up"}}, nil); code != http.StatusBadRequest {
		t.Fatalf("options for a made-up token = %d", code)
	}

	// Removing a passkey asks first, then it no longer signs in.
	h = map[string]string{"Cookie": cookie}
	laptopID := ids[0][1]
	if code, _, body := app.do(t, "GET", "/adatum/account/passkeys/remove?id="+laptopID, nil, h); code != http.StatusOK || !strings.Contains(body, "Remove the passkey “Work laptop”?") {
		t.Fatalf("confirm removal = %d:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/account/passkeys/remove?id="+strings.Repeat("0", 64), nil, h); code != http.StatusNotFound {
		t.Fatalf("confirm removal of no passkey = %d", code)
	}
	if code, hdr, _ := app.do(t, "POST", "/adatum/account/passkeys/remove", url.Values{"id": {laptopID}}, h); code != http.StatusSeeOther || hdr.Get("Location") != "/adatum/account/two-factor?passkey=removed" {
		t.Fatalf("remove = %d", code)
	}
	_, _, token, _ = app.passwordStep(t, ana, pw, here)
	if code, _, _ := app.passkeyStep(t, token, laptop, here); code != http.StatusUnauthorized {
		t.Fatalf("a removed passkey = %d", code)
	}
	if code, hdr, _ := app.passkeyStep(t, token, phone, here); code != http.StatusSeeOther || cookieOf(hdr) == "" {
		t.Fatalf("the other passkey = %d", code)
	}
	// The last one gone, the password alone signs in.
	app.do(t, "POST", "/adatum/account/passkeys/remove", url.Values{"id": {ids[1][1]}}, h)
	if code, cookie, _, _ := app.passwordStep(t, ana, pw, here); code != http.StatusSeeOther || cookie == "" {
		t.Fatalf("password alone after the last passkey = %d", code)
	}

	events, _, err := store.NewAuditStore(app.st).List(ctx, "adatum", survey.AuditFilter{}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		if e.Action == survey.AuditSignIn || e.Action == survey.AuditSignInFailed || strings.HasPrefix(e.Action, "passkey.") {
			got = append(got, e.Action+" "+e.Target+" "+e.Detail)
		}
	}
	want := []string{ // newest first
		"signin  password",
		"passkey.removed ana@adatum.example Phone",
		"signin  password and passkey",
		"signin.failed ana@adatum.example passkey refused",
		"passkey.removed ana@adatum.example Work laptop",
		"signin.failed ana@adatum.example passkey refused",
		"signin  password and passkey",
		"signin.failed ana@adatum.example passkey refused",
		"passkey.added ana@adatum.example Phone",
		"passkey.added ana@adatum.example Work laptop",
		"signin  password",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPasskeyMeetsRequirement: a tenant requires two steps; a member
// without any is sent to set one up, and a passkey is enough (no app);
// the last passkey of a required member stays; an admin's reset removes
// the passkeys, and the member sets one up again at the next sign-in.
func TestPasskeyMeetsRequirement(t *testing.T) {
	app, _, _ := twoFactorApp(t)
	ctx := context.Background()
	const boss, bob, pw, here = "boss@adatum.example", "bob@adatum.example", "another long password", "198.51.100.10"
	for email, role := range map[string]survey.Role{boss: survey.Admin, bob: survey.Viewer} {
		if _, err := testUsers(app.st).AddMember(ctx, "adatum", email, pw, role); err != nil {
			t.Fatal(err)
		}
	}
	_, admin, _, _ := app.passwordStep(t, boss, pw, here)
	adminH := map[string]string{"Cookie": admin}
	if code, _, _ := app.do(t, "POST", "/adatum/settings", url.Values{"name": {"Adatum"}, "requireTwoFactor": {"on"}}, adminH); code != http.StatusSeeOther {
		t.Fatalf("require = %d", code)
	}
	app.pastCacheTTL()
	_, cookie, _, _ := app.passwordStep(t, bob, pw, here)
	bobH := map[string]string{"Cookie": cookie}
	if code, hdr, _ := app.do(t, "GET", "/adatum/surveys", nil, bobH); code != http.StatusSeeOther || hdr.Get("Location") != "/adatum/account/two-factor" {
		t.Fatalf("before a second step = %d", code)
	}
	if _, _, body := app.do(t, "GET", "/adatum/account/two-factor", nil, bobH); !strings.Contains(body, "with an authenticator app on your phone or a passkey") || !strings.Contains(body, "Add a passkey") {
		t.Fatalf("enrolment page:\n%s", body)
	}
	key := newSoftKey(t, testPublicURL, "surveys.example")
	if code, _, body := app.addPasskey(t, bobH, key, "Blue key"); code != http.StatusSeeOther {
		t.Fatalf("add while required = %d:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/surveys", nil, bobH); code != http.StatusOK {
		t.Fatalf("dashboard after a passkey = %d", code)
	}
	_, _, page := app.do(t, "GET", "/adatum/account/two-factor", nil, bobH)
	id := passkeyIDRE.FindStringSubmatch(page)
	if id == nil {
		t.Fatalf("no passkey on the page:\n%s", page)
	}
	if code, _, body := app.do(t, "POST", "/adatum/account/passkeys/remove", url.Values{"id": {id[1]}}, bobH); code != http.StatusUnprocessableEntity || !strings.Contains(body, "this passkey is your only second step") {
		t.Fatalf("removing the only second step while required = %d:\n%s", code, body)
	}
	// The next sign-in takes the passkey.
	_, _, token, _ := app.passwordStep(t, bob, pw, here)
	if code, hdr, _ := app.passkeyStep(t, token, key, here); code != http.StatusSeeOther || cookieOf(hdr) == "" {
		t.Fatalf("sign-in with the passkey = %d", code)
	}
	// The members page offers the reset; it removes the passkey.
	if _, _, body := app.do(t, "GET", "/adatum/settings/members", nil, adminH); !strings.Contains(body, "members/two-factor?email=bob%40adatum.example") {
		t.Fatalf("members page offers no reset:\n%s", body)
	}
	if code, _, body := app.do(t, "POST", "/adatum/settings/members/two-factor", url.Values{"email": {bob}}, adminH); code != http.StatusOK || !strings.Contains(body, "is off (authenticator app and passkeys)") {
		t.Fatalf("reset = %d:\n%s", code, body)
	}
	if keys, err := testUsers(app.st).Passkeys(ctx, "adatum", bob); err != nil || len(keys) != 0 {
		t.Fatalf("passkeys after the reset: %v, %v", keys, err)
	}
	code, cookie, token, _ := app.passwordStep(t, bob, pw, here)
	if code != http.StatusSeeOther || token != "" {
		t.Fatalf("sign-in after the reset = %d", code)
	}
	if code, hdr, _ := app.do(t, "GET", "/adatum/surveys", nil, map[string]string{"Cookie": cookie}); code != http.StatusSeeOther || hdr.Get("Location") != "/adatum/account/two-factor" {
		t.Fatalf("after the reset, sent to set up again: %d", code)
	}
}

// TestPasskeyThrottled: the passkey step is counted per client address
// with the password and code attempts: after a run of refused passkeys
// from one address, even the right passkey is refused from there (the
// same 401 page), while another address signs in with it.
func TestPasskeyThrottled(t *testing.T) {
	app, _, _ := twoFactorApp(t)
	ctx := context.Background()
	const ana, pw = "ana@adatum.example", "another long password"
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", ana, pw, survey.Editor); err != nil {
		t.Fatal(err)
	}
	_, cookie, _, _ := app.passwordStep(t, ana, pw, "198.51.100.50")
	key := newSoftKey(t, testPublicURL, "surveys.example")
	if code, _, body := app.addPasskey(t, map[string]string{"Cookie": cookie}, key, "Key"); code != http.StatusSeeOther {
		t.Fatalf("add = %d:\n%s", code, body)
	}
	const noisy, quiet = "198.51.100.51", "198.51.100.52"
	_, _, token, _ := app.passwordStep(t, ana, pw, noisy)
	stranger := newSoftKey(t, testPublicURL, "surveys.example")
	for i := range 11 {
		if code, _, _ := app.passkeyStep(t, token, stranger, noisy); code != http.StatusUnauthorized {
			t.Fatalf("wrong passkey %d = %d", i+1, code)
		}
	}
	if code, h, body := app.passkeyStep(t, token, key, noisy); code != http.StatusUnauthorized || cookieOf(h) != "" || !strings.Contains(body, "too many attempts") {
		t.Fatalf("the right passkey from a throttled address = %d", code)
	}
	_, _, token, _ = app.passwordStep(t, ana, pw, quiet)
	if code, h, _ := app.passkeyStep(t, token, key, quiet); code != http.StatusSeeOther || cookieOf(h) == "" {
		t.Fatalf("the right passkey from another address = %d", code)
	}
}

// TestPasskeysNeedPublicURL: a server without a public URL takes no
// passkeys (the relying party would have to come from a request's Host):
// the page says so and offers no button, the options are refused, and a
// member who has only passkeys is told why the second step cannot be
// taken, with no session.
func TestPasskeysNeedPublicURL(t *testing.T) {
	st := backends.Local(t)
	users := testUsers(st)
	app := newTestAppOn(t, st, func(d *web.Deps) { d.Users, d.Accounts = users, users })
	ctx := context.Background()
	const ana, bob, pw, here = "ana@adatum.example", "bob@adatum.example", "another long password", "198.51.100.60"
	for _, e := range []string{ana, bob} {
		if _, err := users.AddMember(ctx, "adatum", e, pw, survey.Editor); err != nil {
			t.Fatal(err)
		}
	}
	_, cookie, _, _ := app.passwordStep(t, ana, pw, here)
	h := map[string]string{"Cookie": cookie, "Host": "surveys.example"}
	if _, _, body := app.do(t, "GET", "/adatum/account/two-factor", nil, h); !strings.Contains(body, "This server takes no passkeys yet") || strings.Contains(body, "Add a passkey") {
		t.Fatalf("two-step page without a public URL:\n%s", body)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/account/passkeys/begin", url.Values{}, h); code != http.StatusNotFound {
		t.Fatalf("registration options without a public URL = %d", code)
	}
	if _, err := users.AddPasskey(ctx, "adatum", bob, "Key", []byte("bob-key"), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	code, cookie, _, body := app.passwordStep(t, bob, pw, here)
	if code != http.StatusOK || cookie != "" || !strings.Contains(body, "This server cannot take passkeys now") || strings.Contains(body, `<label for="code">`) {
		t.Fatalf("sign-in of a passkey-only member without a public URL = %d:\n%s", code, body)
	}
}
