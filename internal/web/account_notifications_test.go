package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

var testUnsubscribeKey = []byte("unsubscribe links of the tests!!")

// TestNotificationsPage: a viewer (anyone who may read results) asks for
// each answer and the digest of a survey; bad values are refused beside
// their field, with nothing saved; with e-mail off the page says so and
// refuses. Another tenant's member cannot see or change them.
func TestNotificationsPage(t *testing.T) {
	t.Parallel()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = &outbox{}, testPublicURL })
	ctx := context.Background()
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", "vi@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "vi@adatum.example", "correct horse battery")
	vi := map[string]string{"Cookie": c.Name + "=" + c.Value}
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	path := "/adatum/surveys/" + app.adatum.Slug + "/notifications"
	subs := store.NewNotificationStore(app.st)

	code, _, body := app.do(t, "GET", path, nil, vi)
	if code != 200 || !strings.Contains(body, `name="each"`) || !strings.Contains(body, `name="digest"`) || strings.Contains(body, "checked") {
		t.Fatalf("GET %s = %d:\n%s", path, code, body)
	}
	if _, _, share := app.do(t, "GET", "/adatum/surveys/"+app.adatum.Slug+"/share", nil, vi); !strings.Contains(share, `href="`+path+`"`) {
		t.Error("the share page does not link the notifications page")
	}
	for _, c := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"not a checkbox", url.Values{"each": {"please"}}, "each"},
		{"twice", url.Values{"each": {"on"}, "digest": {"on", "on"}}, "digest"},
	} {
		code, _, body := app.do(t, "POST", path, c.form, vi)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="`+c.field+`-error"`) || !strings.Contains(body, "Nothing was saved") {
			t.Errorf("%s = %d, want 422 beside %s:\n%s", c.name, code, c.field, body)
		}
	}
	if sub, err := subs.Subscription(ctx, "adatum", app.adatum.Slug, "vi@adatum.example"); err != nil || sub.EachAnswer || sub.Digest {
		t.Fatalf("a refused form saved %+v, %v", sub, err)
	}
	code, h, _ := app.do(t, "POST", path, url.Values{"each": {"on"}, "digest": {"on"}}, vi)
	if code != http.StatusSeeOther || h.Get("Location") != path+"?saved=1" {
		t.Fatalf("save = %d, %v", code, h)
	}
	if sub, err := subs.Subscription(ctx, "adatum", app.adatum.Slug, "vi@adatum.example"); err != nil || !sub.EachAnswer || !sub.Digest {
		t.Fatalf("saved %+v, %v", sub, err)
	}
	if _, _, body := app.do(t, "GET", path+"?saved=1", nil, vi); strings.Count(body, " checked") != 2 || !strings.Contains(body, "are saved") {
		t.Fatalf("the page after saving:\n%s", body)
	}
	// Across tenants: 403, and nothing changes.
	for _, m := range []string{"GET", "POST"} {
		if code, _, _ := app.do(t, m, path, url.Values{"each": {""}}, fred); code != http.StatusForbidden {
			t.Errorf("%s by another tenant's member = %d, want 403", m, code)
		}
	}
	if sub, _ := subs.Subscription(ctx, "adatum", app.adatum.Slug, "vi@adatum.example"); !sub.EachAnswer {
		t.Fatal("another tenant's member changed the subscription")
	}
	// Both off: the subscription is gone.
	if code, _, _ := app.do(t, "POST", path, url.Values{}, vi); code != http.StatusSeeOther {
		t.Fatalf("turn off = %d", code)
	}
	if sub, _ := subs.Subscription(ctx, "adatum", app.adatum.Slug, "vi@adatum.example"); sub.EachAnswer || sub.Digest {
		t.Fatalf("after turning off: %+v", sub)
	}
	// A member removed keeps no subscription.
	if code, _, _ := app.do(t, "POST", path, url.Values{"digest": {"on"}}, vi); code != http.StatusSeeOther {
		t.Fatal("save")
	}
	if err := testUsers(app.st).RemoveMember(ctx, "adatum", "vi@adatum.example"); err != nil {
		t.Fatal(err)
	}
	if sub, _ := subs.Subscription(ctx, "adatum", app.adatum.Slug, "vi@adatum.example"); sub.Digest {
		t.Fatal("a removed member is still subscribed")
	}

	// E-mail off: the page says so, and refuses beside the field.
	off := newTestApp(t)
	ana := off.signedIn(t, "adatum", "ana@adatum.example")
	offPath := "/adatum/surveys/" + off.adatum.Slug + "/notifications"
	if _, _, body := off.do(t, "GET", offPath, nil, ana); !strings.Contains(body, "E-mail is off on this server") {
		t.Error("with e-mail off, the page does not say so")
	}
	if code, _, body := off.do(t, "POST", offPath, url.Values{"digest": {"on"}}, ana); code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="digest-error"`) {
		t.Errorf("with e-mail off, save = %d", code)
	}
}

// TestUnsubscribeLink: the link of an e-mail works without signing in,
// after a confirmation (GET changes nothing); once more is no error; an
// altered link, or one of another key, is refused and changes nothing.
func TestUnsubscribeLink(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	subs := store.NewNotificationStore(app.st)
	slug := app.adatum.Slug
	if err := subs.Subscribe(ctx, "adatum", slug, "ana@adatum.example", survey.NotifyChoices{EachAnswer: true, Digest: true}, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	u := survey.Unsubscribe{Tenant: "adatum", Slug: slug, Email: "ana@adatum.example", What: survey.NotifyEachAnswer}
	path := "/unsubscribe/" + u.Token(testUnsubscribeKey)

	code, _, body := app.do(t, "GET", path, nil, nil)
	if code != 200 || !strings.Contains(body, "Stop these e-mails?") || !strings.Contains(body, app.adatum.Title) || !strings.Contains(body, `action="`+path+`"`) {
		t.Fatalf("GET = %d:\n%s", code, body)
	}
	if sub, _ := subs.Subscription(ctx, "adatum", slug, "ana@adatum.example"); !sub.EachAnswer {
		t.Fatal("GET unsubscribed")
	}
	for _, bad := range []string{
		path[:len(path)-2] + "AA",
		"/unsubscribe/" + survey.Unsubscribe{Tenant: "adatum", Slug: slug, Email: "ana@adatum.example", What: survey.NotifyDigest}.Token([]byte("another key, not the server's...")),
		"/unsubscribe/" + strings.Replace(path[len("/unsubscribe/"):], "Y", "Z", 1),
		"/unsubscribe/nonsense",
	} {
		for _, m := range []string{"GET", "POST"} {
			if code, _, body := app.do(t, m, bad, url.Values{}, nil); code != http.StatusNotFound || !strings.Contains(body, "not valid") {
				t.Errorf("%s %s = %d, want 404", m, bad, code)
			}
		}
	}
	if sub, _ := subs.Subscription(ctx, "adatum", slug, "ana@adatum.example"); !sub.EachAnswer || !sub.Digest {
		t.Fatalf("an altered link changed %+v", sub)
	}
	for range 2 {
		code, _, body = app.do(t, "POST", path, url.Values{}, nil)
		if code != 200 || !strings.Contains(body, "You are unsubscribed") {
			t.Fatalf("POST = %d:\n%s", code, body)
		}
	}
	if sub, _ := subs.Subscription(ctx, "adatum", slug, "ana@adatum.example"); sub.EachAnswer || !sub.Digest {
		t.Fatalf("after the link: %+v; want the digest only", sub)
	}
	// The alerts' link: the account page shows them off.
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	if _, _, body := app.do(t, "GET", "/adatum/account/password", nil, ana); !strings.Contains(body, `name="alerts"`) || !strings.Contains(body, "checked") {
		t.Fatalf("the account page of an admin:\n%s", body)
	}
	alerts := "/unsubscribe/" + survey.Unsubscribe{Tenant: "adatum", Email: "ana@adatum.example", What: survey.NotifyAlerts}.Token(testUnsubscribeKey)
	if code, _, _ := app.do(t, "POST", alerts, url.Values{}, nil); code != 200 {
		t.Fatalf("alerts link = %d", code)
	}
	if on, _ := subs.Alerts(ctx, "adatum", "ana@adatum.example"); on {
		t.Fatal("the alerts' link did not turn them off")
	}
	if _, _, body := app.do(t, "GET", "/adatum/account/password", nil, ana); !strings.Contains(body, `name="alerts"`) || strings.Contains(body, " checked") {
		t.Fatalf("the account page after the link:\n%s", body)
	}
}

// TestAccountAlerts: an admin turns the failure alerts off and on from the
// account page; a bad value is refused beside the field; a viewer's page
// does not offer them.
func TestAccountAlerts(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	subs := store.NewNotificationStore(app.st)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	if code, _, body := app.do(t, "POST", "/adatum/account/alerts", url.Values{"alerts": {"maybe"}}, ana); code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="alerts-error"`) {
		t.Fatalf("bad value = %d:\n%s", code, body)
	}
	if on, _ := subs.Alerts(ctx, "adatum", "ana@adatum.example"); !on {
		t.Fatal("a refused form turned the alerts off")
	}
	code, h, _ := app.do(t, "POST", "/adatum/account/alerts", url.Values{}, ana)
	if code != http.StatusSeeOther || h.Get("Location") != "/adatum/account/password?alerts=saved" {
		t.Fatalf("turn off = %d %v", code, h)
	}
	if on, _ := subs.Alerts(ctx, "adatum", "ana@adatum.example"); on {
		t.Fatal("not turned off")
	}
	if _, _, body := app.do(t, "GET", "/adatum/account/password?alerts=saved", nil, ana); !strings.Contains(body, "Your choice is saved") {
		t.Fatal("no notice")
	}
	if code, _, _ := app.do(t, "POST", "/adatum/account/alerts", url.Values{"alerts": {"on"}}, ana); code != http.StatusSeeOther {
		t.Fatal("turn on")
	}
	if on, _ := subs.Alerts(ctx, "adatum", "ana@adatum.example"); !on {
		t.Fatal("not turned on")
	}
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", "vi@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "vi@adatum.example", "correct horse battery")
	vi := map[string]string{"Cookie": c.Name + "=" + c.Value}
	if _, _, body := app.do(t, "GET", "/adatum/account/password", nil, vi); strings.Contains(body, `name="alerts"`) {
		t.Fatal("a viewer is offered the admins' alerts")
	}
}
