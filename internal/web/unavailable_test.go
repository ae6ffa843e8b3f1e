package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/web"
)

// TestPagesSayWhatCannotWork: with the README's default setup (no secret
// key, no SMTP server) a page whose form cannot work says so first,
// naming what the operator must set, and offers no control that cannot
// work (webhooks: no form; notifications: no checkbox to tick, no Save;
// database and identity: no secret field to fill); with the key and
// e-mail, none of it shows and the controls are there. A webhook form sent
// anyway without a key adds nothing (422).
func TestPagesSayWhatCannotWork(t *testing.T) {
	// Each configuration: the README's default, and one with both.
	st := backends.Local(t)
	defaults := newTestAppOn(t, st, func(d *web.Deps) {
		tenants := store.NewTenantStore(st)
		d.Tenants, d.TenantSettings, d.TenantAdmin = tenants, tenants, tenants
		d.Webhooks = store.NewWebhookStore(st)
		d.Mail = nil
	})
	configured := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = &outbox{}, testPublicURL })
	admins := map[*testApp]map[string]string{
		defaults:   defaults.signedIn(t, "adatum", "ana@adatum.example"),
		configured: configured.signedIn(t, "adatum", "ana@adatum.example"),
	}
	for _, c := range []struct {
		name       string
		app        *testApp
		page       string
		want, lack []string
	}{
		{"webhooks, no key", defaults, "/adatum/settings/webhooks",
			[]string{`id="webhooks-off"`, "<code>SURVEYS_SECRET_KEY</code>"},
			[]string{`action="/adatum/settings/webhooks"`, `name="url"`, "Add the endpoint"}},
		{"webhooks, with a key", configured, "/adatum/settings/webhooks",
			[]string{`action="/adatum/settings/webhooks"`, `name="url"`, "Add the endpoint"},
			[]string{`id="webhooks-off"`, "SURVEYS_SECRET_KEY"}},
		{"notifications, no e-mail", defaults, "/adatum/surveys/{slug}/notifications",
			[]string{`id="mail-off"`, "<code>SURVEYS_SMTP_URL</code>", `name="each" value="on" aria-describedby="each-hint" disabled>`, `name="digest" value="on" aria-describedby="digest-hint" disabled>`},
			[]string{">Save</button>"}},
		{"notifications, with e-mail", configured, "/adatum/surveys/{slug}/notifications",
			[]string{`name="each" value="on" aria-describedby="each-hint">`, ">Save</button>"},
			[]string{`id="mail-off"`, "SURVEYS_SMTP_URL", "disabled"}},
		{"database, no key", defaults, "/adatum/settings/database",
			[]string{`id="no-secret-key"`, "<code>SURVEYS_SECRET_KEY</code>", `aria-describedby="password-help" disabled>`},
			nil},
		{"database, with a key", configured, "/adatum/settings/database",
			[]string{`aria-describedby="password-help">`},
			[]string{`id="no-secret-key"`, "SURVEYS_SECRET_KEY", "disabled"}},
		{"identity, no key", defaults, "/adatum/settings/identity",
			[]string{`id="no-secret-key"`, "<code>SURVEYS_SECRET_KEY</code>", `aria-describedby="clientSecret-help" disabled>`},
			nil},
		{"identity, with a key", configured, "/adatum/settings/identity",
			[]string{`aria-describedby="clientSecret-help">`},
			[]string{`id="no-secret-key"`, "SURVEYS_SECRET_KEY", "disabled"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, body := c.app.do(t, "GET", strings.ReplaceAll(c.page, "{slug}", c.app.adatum.Slug), nil, admins[c.app])
			if code != 200 {
				t.Fatalf("GET = %d", code)
			}
			mustContain(t, c.name, body, c.want...)
			mustLack(t, c.name, body, c.lack...)
		})
	}
	code, _, body := defaults.do(t, "POST", "/adatum/settings/webhooks", url.Values{"url": {"https://hooks.example.com/x"}, "events": {"response.created"}}, admins[defaults])
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "webhooks are off on this server") {
		t.Errorf("a webhook form sent without a key = %d", code)
	}
	if list, err := store.NewWebhookStore(defaults.st).List(t.Context(), "adatum"); err != nil || len(list) != 0 {
		t.Errorf("a webhook form sent without a key added %d endpoints (%v)", len(list), err)
	}
}
