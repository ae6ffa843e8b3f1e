package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/web/oidctest"
)

// TestDatabasePasswordStaysWithItsDestination: a blank password keeps the
// saved one only while the host, port, user and database are unchanged;
// re-pointed elsewhere, neither a save nor a test uses it (422 beside the
// password).
func TestDatabasePasswordStaysWithItsDestination(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	db := pgtest.NewDatabase(t)
	conn := pgtest.ConnectionString(db)
	const path = "/adatum/settings/database"
	if code, _, _ := app.do(t, "POST", path, url.Values{"action": {"save"}, "connection": {conn}, "password": {pgtest.Password}}, ana); code != http.StatusSeeOther {
		t.Fatalf("save = %d", code)
	}
	u, err := url.Parse(conn)
	if err != nil {
		t.Fatal(err)
	}
	change := func(f func(u *url.URL)) string {
		v := *u
		f(&v)
		return v.String()
	}
	port := strconv.Itoa(pgtest.ClosedPort(t))
	elsewhere := []struct{ name, connection string }{
		{"another host", change(func(u *url.URL) { u.Host = "localhost:" + u.Port() })},
		{"another port", change(func(u *url.URL) { u.Host = u.Hostname() + ":" + port })},
		{"another user", change(func(u *url.URL) { u.User = url.User("mallory") })},
		{"another database", change(func(u *url.URL) { u.Path = "/postgres" })},
	}
	for _, c := range elsewhere {
		for _, action := range []string{"save", "test"} {
			code, _, body := app.do(t, "POST", path, url.Values{"action": {action}, "connection": {c.connection}}, ana)
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Enter the password again: the destination changed.") || !strings.Contains(body, `class="field-error"`) {
				t.Errorf("%s, %s without the password = %d, want 422", c.name, action, code)
			}
			if strings.Contains(body, "Connected") {
				t.Errorf("%s, %s: the saved password was used", c.name, action)
			}
			if tn := app.tenant(t, "adatum"); tn.SQLConnection != conn || tn.SQLPassword != pgtest.Password {
				t.Fatalf("%s, %s changed the saved database to %q", c.name, action, tn.SQLConnection)
			}
		}
	}
	// The same destination with other options keeps the password; a new
	// destination with its password typed is saved.
	same := change(func(u *url.URL) { u.Host = strings.ToUpper(u.Host); u.RawQuery += "&application_name=reports" })
	if code, _, body := app.do(t, "POST", path, url.Values{"action": {"save"}, "connection": {same}}, ana); code != http.StatusSeeOther {
		t.Fatalf("the same destination without the password = %d %s", code, body)
	}
	if code, _, _ := app.do(t, "POST", path, url.Values{"action": {"save"}, "connection": {elsewhere[3].connection}, "password": {"another"}}, ana); code != http.StatusSeeOther {
		t.Fatalf("another destination with its password = %d", code)
	}
	if tn := app.tenant(t, "adatum"); tn.SQLConnection != elsewhere[3].connection || tn.SQLPassword != "another" {
		t.Fatalf("saved %q / %q", tn.SQLConnection, tn.SQLPassword)
	}
}

// TestClientSecretStaysWithItsProvider: a blank client secret keeps the
// saved one only while the issuer and the client id are unchanged.
func TestClientSecretStaysWithItsProvider(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	o := newTestOP(t, app, "adatum")
	other := oidctest.New(t, oidctest.Client{ID: "adatum-client", Secret: "x", RedirectURL: app.srv.URL + "/login/adatum/oidc/callback"})
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	const path = "/adatum/settings/identity"
	form := func(issuer, client, secret string) url.Values {
		return url.Values{"issuerUrl": {issuer}, "clientId": {client}, "clientSecret": {secret}, "claimType": {"groups"}, "claimValue": {"surveys-staff"}}
	}
	if code, _, _ := app.do(t, "POST", path, form(o.Issuer, "adatum-client", "adatum-secret"), ana); code != http.StatusSeeOther {
		t.Fatalf("save = %d", code)
	}
	for _, c := range []struct{ name, issuer, client string }{
		{"another issuer", other.Issuer, "adatum-client"},
		{"another client id", o.Issuer, "mallory-client"},
	} {
		code, _, body := app.do(t, "POST", path, form(c.issuer, c.client, ""), ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Enter the client secret again: the destination changed.") || !strings.Contains(body, `id="clientSecret" name="clientSecret"`) {
			t.Errorf("%s without the secret = %d, want 422", c.name, code)
		}
		if tn := app.tenant(t, "adatum"); tn.IssuerURL != o.Issuer || tn.ClientID != "adatum-client" || tn.ClientSecret != "adatum-secret" {
			t.Fatalf("%s changed the saved provider: %+v", c.name, tn)
		}
	}
	if code, _, _ := app.do(t, "POST", path, form(other.Issuer, "adatum-client", "other-secret"), ana); code != http.StatusSeeOther {
		t.Fatalf("another issuer with its secret = %d", code)
	}
	if tn := app.tenant(t, "adatum"); tn.IssuerURL != other.Issuer || tn.ClientSecret != "other-secret" {
		t.Fatalf("saved %+v", tn)
	}
}
