package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// TestMailQuotas: the server is no spam relay. 1,000 personal-link
// addresses pasted at once pass the tenant's hourly quota: refused whole,
// the limit said beside the field, no link made, nothing mailed. Forty
// invitations to one address mail it three times, then say why not.
// /metrics counts what was refused, by reason.
func TestMailQuotas(t *testing.T) {
	t.Parallel()
	box := &outbox{}
	st := backends.Local(t)
	app := newTestAppOn(t, st, func(d *web.Deps) {
		d.Mail, d.PublicURL = box, testPublicURL
		d.MailQuota = store.NewMailQuotaStore(st, store.MailQuota{
			Paid:  store.MailLimits{PerHour: 100, PerDay: 400, PerRecipient: 3},
			Trial: store.MailLimits{PerHour: 10, PerDay: 40, PerRecipient: 3},
		})
	})
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	ana := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin)}
	sv := app.oncePoll(t, "Quota poll", survey.OnePerLink, false)

	var addrs []string
	for i := range 1000 {
		addrs = append(addrs, fmt.Sprintf("person%d@example.com", i))
	}
	links := "/adatum/surveys/" + sv.Slug + "/links"
	code, _, body := app.do(t, "POST", links, url.Values{"emails": {strings.Join(addrs, "\n")}}, ana)
	if want := "Your organisation may send 100 e-mails an hour on the " + string(app.tenant(t, "adatum").Plan) + " plan; 100 are left this hour, and the count starts again at"; code != http.StatusUnprocessableEntity || !strings.Contains(body, want) {
		t.Fatalf("1,000 addresses = %d, want 422 saying %q:\n%s", code, want, body)
	}
	if n := len(box.messages()); n != 0 {
		t.Fatalf("%d mails sent for a refused batch", n)
	}
	if _, _, body := app.do(t, "GET", links, nil, ana); !strings.Contains(body, "No links yet") && strings.Contains(body, "person0@example.com") {
		t.Fatalf("links made for a refused batch:\n%s", body)
	}
	// Within the quota, they go.
	code, _, body = app.do(t, "POST", links, url.Values{"emails": {strings.Join(addrs[:60], "\n")}}, ana)
	if code != http.StatusOK || len(box.messages()) != 60 {
		t.Fatalf("60 addresses = %d, %d mailed:\n%.400s", code, len(box.messages()), body)
	}

	// Forty invitations to one address: three mails.
	sent := len(box.messages())
	codes := map[int]int{}
	for range 40 {
		code, _, body = app.do(t, "POST", "/adatum/settings/members", url.Values{"email": {"target@example.com"}, "role": {"viewer"}}, ana)
		codes[code]++
	}
	if got := len(box.messages()) - sent; got != 3 || codes[http.StatusOK] != 3 || codes[http.StatusUnprocessableEntity] != 37 {
		t.Fatalf("40 invitations to one address: %d mailed, statuses %v; want 3 mailed, 37 refused", got, codes)
	}
	if want := "One address gets at most 3 e-mails a day from your organisation; these had theirs today (until midnight UTC): target@example.com."; !strings.Contains(body, want) {
		t.Errorf("the refused invitation does not say %q:\n%s", want, body)
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(app.web.Collectors()...)
	want := `
# HELP surveys_mail_refused_total E-mails to others a tenant's members (or a respondent, for a copy of their answers) asked for and the server refused, by reason (quota_tenant, quota_recipient, unverified, copy_sent, copy_addresses).
# TYPE surveys_mail_refused_total counter
surveys_mail_refused_total{reason="quota_recipient"} 37
surveys_mail_refused_total{reason="quota_tenant"} 1000
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "surveys_mail_refused_total"); err != nil {
		t.Error(err)
	}
}

// TestSignUpVerifiesAddress: with e-mail on, a new sign-up is mailed a
// link that proves its address (on the public URL); until it is opened,
// the organisation mails nobody else (an invitation is refused, saying
// why, and nothing is sent); the account page mails the link again, three
// times a day at most; once opened, the invitation goes.
func TestSignUpVerifiesAddress(t *testing.T) {
	t.Parallel()
	box := &outbox{}
	st := backends.Local(t)
	app := newTestAppOn(t, st, func(d *web.Deps) {
		d.Mail, d.PublicURL = box, testPublicURL
		d.Verifier = testUsers(st)
		d.MailQuota = store.NewMailQuotaStore(st, store.DefaultMailQuota)
	})
	code, header, obody := app.do(t, "POST", "/onboarding", url.Values{"name": {"Contoso"}, "email": {"carol@contoso.example"}, "password": {"a long and rare passphrase"}}, nil)
	if code != http.StatusSeeOther {
		t.Fatalf("sign-up = %d\n%s", code, obody)
	}
	carol := map[string]string{"Cookie": strings.Split(header.Get("Set-Cookie"), ";")[0]}
	sent := box.messages()
	if len(sent) != 1 || sent[0].To != "carol@contoso.example" || sent[0].Subject != "Confirm your e-mail address for Contoso on Surveys" {
		t.Fatalf("after the sign-up, mailed %+v", sent)
	}
	link := regexp.MustCompile(`https://surveys\.example/verify/lnk_[A-Za-z0-9_-]{43}`).FindString(sent[0].Text)
	if link == "" {
		t.Fatalf("no verification link on the public URL in %q", sent[0].Text)
	}

	invite := url.Values{"email": {"dan@example.com"}, "role": {"editor"}}
	code, _, body := app.do(t, "POST", "/contoso/settings/members", invite, carol)
	if want := "Confirm your own e-mail address first: open the link we mailed to carol@contoso.example"; code != http.StatusUnprocessableEntity || !strings.Contains(body, want) {
		t.Fatalf("an invitation before the address is confirmed = %d, want 422 saying %q:\n%s", code, want, body)
	}
	if n := len(box.messages()); n != 1 {
		t.Fatalf("%d mails after a refused invitation, want the verification alone", n)
	}

	// The account page sends the link again, a few times a day at most;
	// every link sent works until one is used.
	if _, _, body := app.do(t, "GET", "/contoso/account/password", nil, carol); !strings.Contains(body, "carol@contoso.example is not confirmed yet") || !strings.Contains(body, `action="/contoso/account/verify"`) {
		t.Fatalf("the account page of an unconfirmed address:\n%s", body)
	}
	for i := range 3 {
		code, header, body := app.do(t, "POST", "/contoso/account/verify", nil, carol)
		if code != http.StatusSeeOther || header.Get("Location") != "/contoso/account/password?verify=sent" {
			t.Fatalf("send the link again (%d) = %d %q:\n%s", i+1, code, header.Get("Location"), body)
		}
		sent := box.messages()
		if len(sent) != 2+i || sent[1+i].To != "carol@contoso.example" || !strings.Contains(sent[1+i].Text, testPublicURL+"/verify/lnk_") {
			t.Fatalf("after sending the link again %d times, mailed %+v", i+1, sent)
		}
	}
	if _, _, body := app.do(t, "GET", "/contoso/account/password?verify=sent", nil, carol); !strings.Contains(body, "We sent a new link to carol@contoso.example") {
		t.Errorf("the account page after a new link:\n%s", body)
	}
	code, _, body = app.do(t, "POST", "/contoso/account/verify", nil, carol)
	if code != http.StatusTooManyRequests || !strings.Contains(body, "This address has had its e-mails for today") || len(box.messages()) != 4 {
		t.Fatalf("a fourth new link in a day = %d, %d mails:\n%s", code, len(box.messages()), body)
	}
	link = regexp.MustCompile(`https://surveys\.example/verify/lnk_[A-Za-z0-9_-]{43}`).FindString(box.messages()[3].Text)

	code, _, body = app.do(t, "GET", strings.TrimPrefix(link, testPublicURL), nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "carol@contoso.example is confirmed") {
		t.Fatalf("the verification link = %d:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "GET", strings.TrimPrefix(link, testPublicURL), nil, nil); code != http.StatusGone {
		t.Errorf("the verification link again = %d, want 410", code)
	}
	if _, _, body := app.do(t, "GET", "/contoso/account/password", nil, carol); strings.Contains(body, "/contoso/account/verify") {
		t.Errorf("the account page of a confirmed address offers a new link:\n%s", body)
	}
	if code, header, _ := app.do(t, "POST", "/contoso/account/verify", nil, carol); code != http.StatusSeeOther || header.Get("Location") != "/contoso/account/password" || len(box.messages()) != 4 {
		t.Errorf("a new link for a confirmed address = %d %q, %d mails", code, header.Get("Location"), len(box.messages()))
	}
	code, _, _ = app.do(t, "POST", "/contoso/settings/members", invite, carol)
	if sent := box.messages(); code != http.StatusOK || len(sent) != 5 || sent[4].To != "dan@example.com" {
		t.Fatalf("the invitation once confirmed = %d, mailed %d", code, len(sent))
	}
}
