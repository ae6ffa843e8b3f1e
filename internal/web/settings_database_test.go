package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/postgres"
	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestMain runs PostgreSQL for the database settings and transfers, and
// Azurite for the export benchmark against Azure's API.
func TestMain(m *testing.M) {
	os.Exit(pgtest.Run(func() int { return azuritetest.Run(m) }))
}

// signedIn adds a user to tenant and returns its session cookie header.
func (a *testApp) signedIn(t *testing.T, tenant, email string) map[string]string {
	t.Helper()
	if _, err := testUsers(a.st).Add(context.Background(), tenant, email, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := a.signIn(t, tenant, email, "correct horse battery")
	if c == nil {
		t.Fatalf("%s cannot sign in", email)
	}
	return map[string]string{"Cookie": c.Name + "=" + c.Value}
}

func (a *testApp) tenant(t *testing.T, key string) *survey.Tenant {
	t.Helper()
	tn, err := store.NewTenantStore(a.st).WithSecrets(testBox).Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func TestDatabaseSettings(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	db := pgtest.NewDatabase(t)
	conn := pgtest.ConnectionString(db)
	const path = "/adatum/settings/database"

	code, _, body := app.do(t, "GET", path, nil, ana)
	if code != 200 || !strings.Contains(body, `name="connection"`) || !strings.Contains(body, "No password is saved") || !strings.Contains(body, `value="test"`) {
		t.Fatalf("GET %s = %d:\n%s", path, code, body)
	}
	if code, _, body := app.do(t, "GET", "/adatum/surveys", nil, ana); code != 200 || !strings.Contains(body, `href="/adatum/settings/database"`) {
		t.Errorf("the dashboard does not link the database page (%d)", code)
	}

	// Invalid input: 422, the message beside the field, nothing saved.
	for _, c := range []struct{ name, connection, password, want string }{
		{"empty", "", "pw", "Enter the connection string"},
		{"password inside", "postgres://surveys:secret@127.0.0.1/x", "", "Leave the password out of the connection string"},
		{"keyword form", "host=127.0.0.1 user=surveys dbname=x", "pw", "Write the connection string as a URL"},
		{"a file of the server", "postgres://surveys@127.0.0.1/x?sslrootcert=/etc/passwd", "pw", `may not set &#34;sslrootcert&#34;`},
		{"no database", "postgres://surveys@127.0.0.1", "pw", "Name the database"},
		{"password too long", conn, strings.Repeat("p", 1025), "Keep the password to 1024 characters"},
	} {
		for _, action := range []string{"save", "test"} {
			code, _, body := app.do(t, "POST", path, url.Values{"action": {action}, "connection": {c.connection}, "password": {c.password}}, ana)
			if code != http.StatusUnprocessableEntity || !strings.Contains(body, c.want) || !strings.Contains(body, `class="field-error"`) {
				t.Errorf("%s (%s) = %d, want 422 with %q", c.name, action, code, c.want)
			}
			if strings.Contains(body, "secret") && c.name == "password inside" {
				t.Errorf("%s: the page shows the password", c.name)
			}
			if tn := app.tenant(t, "adatum"); tn.SQLConnection != "" || tn.SQLPassword != "" {
				t.Fatalf("%s (%s): saved %q", c.name, action, tn.SQLConnection)
			}
		}
	}

	// Test connection: success with the version, failure with the clear
	// error; neither saves.
	code, _, body = app.do(t, "POST", path, url.Values{"action": {"test"}, "connection": {conn}, "password": {pgtest.Password}}, ana)
	if code != 200 || !strings.Contains(body, "Connected: PostgreSQL 1") {
		t.Fatalf("test = %d:\n%s", code, body)
	}
	if strings.Contains(body, pgtest.Password) {
		t.Error("the test result shows the password")
	}
	code, _, body = app.do(t, "POST", path, url.Values{"action": {"test"}, "connection": {conn}, "password": {"wrong"}}, ana)
	if code != 200 || !strings.Contains(body, "The connection failed: The database refused the password of user &#34;surveys&#34;") {
		t.Fatalf("test with a wrong password = %d:\n%s", code, body)
	}
	closed := strings.Replace(conn, "127.0.0.1:"+strconv.Itoa(pgtest.Port()), "127.0.0.1:"+strconv.Itoa(pgtest.ClosedPort(t)), 1)
	if code, _, body := app.do(t, "POST", path, url.Values{"action": {"test"}, "connection": {closed}, "password": {"x"}}, ana); code != 200 || !strings.Contains(body, "Could not reach 127.0.0.1:") {
		t.Fatalf("test of a closed port = %d", code)
	}
	if tn := app.tenant(t, "adatum"); tn.SQLConnection != "" {
		t.Fatalf("a test saved %q", tn.SQLConnection)
	}

	// Save; the password is sealed and never shown.
	code, h, _ := app.do(t, "POST", path, url.Values{"action": {"save"}, "connection": {conn}, "password": {pgtest.Password}}, ana)
	if code != http.StatusSeeOther || h.Get("Location") != path+"?saved=1" {
		t.Fatalf("save = %d %s", code, h.Get("Location"))
	}
	if tn := app.tenant(t, "adatum"); tn.SQLConnection != conn || tn.SQLPassword != pgtest.Password {
		t.Fatalf("saved %q / %q", tn.SQLConnection, tn.SQLPassword)
	}
	code, _, body = app.do(t, "GET", path+"?saved=1", nil, ana)
	if code != 200 || strings.Contains(body, pgtest.Password) || !strings.Contains(body, "A password is saved") || !strings.Contains(body, "Saved.") {
		t.Fatalf("the page after saving = %d", code)
	}
	raw, err := app.st.GetBlob(context.Background(), store.TenantsContainer, "adatum")
	if err != nil || strings.Contains(string(raw.Data), pgtest.Password) {
		t.Fatalf("the tenant blob holds the password in the clear (%v)", err)
	}
	// A blank password keeps the saved one, for a save and for a test.
	if code, _, _ := app.do(t, "POST", path, url.Values{"action": {"save"}, "connection": {conn + "&application_name=reports"}}, ana); code != http.StatusSeeOther {
		t.Fatalf("save without a password = %d", code)
	}
	if tn := app.tenant(t, "adatum"); tn.SQLPassword != pgtest.Password || !strings.HasSuffix(tn.SQLConnection, "application_name=reports") {
		t.Fatalf("a blank password did not keep the saved one: %q", tn.SQLConnection)
	}
	if code, _, body := app.do(t, "POST", path, url.Values{"action": {"test"}, "connection": {conn}}, ana); code != 200 || !strings.Contains(body, "Connected: PostgreSQL") {
		t.Fatalf("test with the saved password = %d", code)
	}
	// Remove.
	if code, h, _ := app.do(t, "POST", path, url.Values{"action": {"remove"}}, ana); code != http.StatusSeeOther || h.Get("Location") != path+"?removed=1" {
		t.Fatalf("remove = %d", code)
	}
	if tn := app.tenant(t, "adatum"); tn.SQLConnection != "" || tn.SQLPassword != "" {
		t.Fatalf("remove left %q", tn.SQLConnection)
	}
	// Fabrikam cannot see or change Adatum's.
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	if code, _, _ := app.do(t, "POST", path, url.Values{"action": {"save"}, "connection": {conn}, "password": {"x"}}, fred); code != http.StatusForbidden {
		t.Fatalf("Fabrikam saving Adatum's database = %d", code)
	}
}

// TestDatabaseSettingsWithoutKey: a server with no secret key says so and
// refuses to save a password; nothing is saved.
func TestDatabaseSettingsWithoutKey(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	tenants := store.NewTenantStore(app.st) // no box
	s, err := web.New(web.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tenants: tenants, Users: testUsers(app.st),
		Public:         store.NewCachedSurveys(store.NewSurveyStore(app.st), tenants, time.Millisecond),
		TenantSettings: tenants, Databases: postgres.New(pgtest.Allow), Transfers: store.NewSurveyTransferStore(app.st)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	app.srv = srv // the same store, served without a key
	const path = "/adatum/settings/database"
	if code, _, body := app.do(t, "GET", path, nil, ana); code != 200 || !strings.Contains(body, "This server keeps no secrets") {
		t.Fatalf("page without a key = %d", code)
	}
	conn := pgtest.ConnectionString("x")
	code, _, body := app.do(t, "POST", path, url.Values{"action": {"save"}, "connection": {conn}, "password": {"pw"}}, ana)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "must set SURVEYS_SECRET_KEY") || !strings.Contains(body, `id="password-error"`) {
		t.Fatalf("saving a password without a key = %d", code)
	}
	if tn, err := tenants.Get(context.Background(), "adatum"); err != nil || tn.SQLConnection != "" {
		t.Fatalf("saved without a key: %+v %v", tn, err)
	}
}

// TestTransferButtonAndStatus: the analysis page offers the copy once a
// database is saved, a request is queued (303 back), and the page shows
// the worker's status: waiting, done with rows, failed with the reason and
// "will retry", gave up. Fabrikam can neither request nor see Adatum's.
func TestTransferButtonAndStatus(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	analyze := "/adatum/surveys/" + app.adatum.Slug + "/analyze"
	transfer := "/adatum/surveys/" + app.adatum.Slug + "/transfer"
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
		t.Fatal("answer refused")
	}
	app.stored(t)

	// No database yet: a pointer to the settings, and a refused request.
	code, _, body := app.do(t, "GET", analyze, nil, ana)
	if code != 200 || !strings.Contains(body, `href="/adatum/settings/database"`) || strings.Contains(body, "Copy answers to your database") {
		t.Fatalf("analysis without a database = %d", code)
	}
	if code, _, body := app.do(t, "POST", transfer, url.Values{}, ana); code != http.StatusUnprocessableEntity || !strings.Contains(body, "There is no database to copy the answers to") {
		t.Fatalf("transfer without a database = %d", code)
	}
	if n, _ := app.st.ApproximateCount(ctx, store.TransfersQueue); n != 0 {
		t.Fatalf("a refused request was queued: %d", n)
	}

	db := pgtest.NewDatabase(t)
	tn := app.tenant(t, "adatum")
	tn.SQLConnection, tn.SQLPassword = pgtest.ConnectionString(db), pgtest.Password
	tenants := store.NewTenantStore(app.st).WithSecrets(testBox)
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	if code, _, body := app.do(t, "GET", analyze, nil, ana); code != 200 || !strings.Contains(body, "Copy answers to your database") {
		t.Fatalf("analysis with a database = %d", code)
	}
	// Fabrikam may not request Adatum's transfer.
	if code, _, _ := app.do(t, "POST", transfer, url.Values{}, fred); code != http.StatusForbidden {
		t.Fatalf("Fabrikam requesting Adatum's transfer = %d", code)
	}
	if n, _ := app.st.ApproximateCount(ctx, store.TransfersQueue); n != 0 {
		t.Fatalf("Fabrikam's request was queued: %d", n)
	}

	code, h, _ := app.do(t, "POST", transfer, url.Values{}, ana)
	if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), analyze+"?transfer=requested") {
		t.Fatalf("transfer = %d %s", code, h.Get("Location"))
	}
	if n, _ := app.st.ApproximateCount(ctx, store.TransfersQueue); n != 1 {
		t.Fatalf("%d requests queued, want 1", n)
	}
	if _, _, body := app.do(t, "GET", analyze+"?transfer=requested", nil, ana); !strings.Contains(body, "The copy is requested") || !strings.Contains(body, `data-state="requested"`) {
		t.Fatalf("status after the request:\n%s", section(body, "transfer"))
	}
	cfg := worker.TransferConfig{Visibility: time.Minute, MaxAttempts: 2, MaxIdle: time.Millisecond}
	xfer := worker.NewTransfers(app.st, tenants, postgres.New(pgtest.Allow), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := xfer.RunOnce(ctx); n != 1 || err != nil {
		t.Fatalf("RunOnce = %d, %v", n, err)
	}
	_, _, body = app.do(t, "GET", analyze, nil, ana)
	if !strings.Contains(body, `data-state="done"`) || !strings.Contains(body, "<strong>done</strong>: 1 answer, 4 rows in") {
		t.Fatalf("status after the transfer:\n%s", section(body, "transfer"))
	}

	// A wrong password: failed, the reason, will retry; then gave up.
	tn.SQLPassword = "wrong"
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	app.do(t, "POST", transfer, url.Values{}, ana)
	_, _ = xfer.RunOnce(ctx)
	_, _, body = app.do(t, "GET", analyze, nil, ana)
	if !strings.Contains(body, "<strong>failed</strong> (attempt 1 of 2); will retry") || !strings.Contains(body, "refused the password of user &#34;surveys&#34;") {
		t.Fatalf("status after a failure:\n%s", section(body, "transfer"))
	}
	_, _ = xfer.RunOnce(ctx)
	_, _, body = app.do(t, "GET", analyze, nil, ana)
	if !strings.Contains(body, "<strong>gave up</strong> after 2 attempts; fix the problem, then request again") {
		t.Fatalf("status after giving up:\n%s", section(body, "transfer"))
	}
	// Fabrikam's own survey page shows nothing of Adatum's transfer.
	fab, err := app.surveys.List(ctx, "fabrikam")
	if err != nil || len(fab) == 0 {
		t.Fatal(err)
	}
	if _, _, body := app.do(t, "GET", "/fabrikam/surveys/"+fab[0].Slug+"/analyze", nil, fred); strings.Contains(body, "data-state") || strings.Contains(body, "refused the password") {
		t.Fatal("Fabrikam's page shows a transfer status")
	}
}
