package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/web/oidctest"
)

// subscriber is a browser without JavaScript: a cookie jar, no redirects
// followed.
type subscriber struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (s *subscriber) send(method, path, contentType string, body io.Reader) (int, http.Header, string) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := s.c.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func (s *subscriber) post(path string, form url.Values) (int, http.Header, string) {
	s.t.Helper()
	return s.send("POST", path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

func (s *subscriber) get(path string) (int, string) {
	s.t.Helper()
	code, _, body := s.send("GET", path, "", nil)
	return code, body
}

// loopbackConfig is surveys serve's configuration for a test whose outside
// services (a webhook receiver, PostgreSQL, an identity provider) are on
// loopback, which the operator allows, with a secret key for their secrets.
func loopbackConfig(t *testing.T) Config {
	t.Helper()
	cfg, err := parseServe([]string{"--addr", "127.0.0.1:0", "--data", t.TempDir()}, func(k string) string {
		return map[string]string{"SURVEYS_SECRET_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
			"SURVEYS_ALLOW_PRIVATE": "127.0.0.0/8"}[k]
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordCost = bcrypt.MinCost // see testUsers
	return cfg
}

func newSubscriber(t *testing.T, base string) *subscriber {
	jar, _ := cookiejar.New(nil)
	return withJar(t, base, jar)
}

// withJar is a subscriber with the cookies of jar (a browser's that signed
// in elsewhere).
func withJar(t *testing.T, base string, jar http.CookieJar) *subscriber {
	return &subscriber{t: t, base: base, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// questionRE finds a survey form's question fields (formTokenRE, its
// one-time token, is in ops_test.go).
var questionRE = regexp.MustCompile(`name="q-([^"]+)"`)

// TestNewTenantToOwnDatabase runs the whole story through the real server
// over HTTP: a new tenant signs up, sets its logo, configures its OpenID
// Connect provider (a real one, in process) and saves its PostgreSQL
// database; a staff member of the provider signs in through it, creates
// and publishes a survey; respondents answer; the staff member asks for the
// copy, the worker of surveys serve makes it, the analysis page says done,
// and the answers are in the tenant's database.
func TestNewTenantToOwnDatabase(t *testing.T) {
	cfg := loopbackConfig(t)
	m := NewMain(cfg, io.Discard)
	m.ProviderRoots = oidctest.RootCAs() // trusts the test provider's certificate
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	carol := newSubscriber(t, base)

	// 1. Sign up.
	code, h, _ := carol.post("/onboarding", url.Values{"name": {"Contoso Data"}, "email": {"carol@contoso.example"}, "password": {"a long enough password"}, "plan": {"Standard"}})
	if code != http.StatusSeeOther || h.Get("Location") != "/contosodata/welcome" {
		t.Fatalf("sign-up = %d %s", code, h.Get("Location"))
	}
	// 2. Brand: a logo.
	var logo bytes.Buffer
	if err := png.Encode(&logo, image.NewRGBA(image.Rect(0, 0, 40, 16))); err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("name", "Contoso Data")
	_ = mw.WriteField("plan", "Standard")
	fw, _ := mw.CreateFormFile("logo", "logo.png")
	_, _ = fw.Write(logo.Bytes())
	_ = mw.Close()
	if code, _, _ := carol.send("POST", "/contosodata/settings", mw.FormDataContentType(), &body); code != http.StatusSeeOther {
		t.Fatalf("logo = %d", code)
	}
	if _, page := carol.get("/contosodata/settings"); !regexp.MustCompile(`/logos/contosodata-[0-9a-f]+\.png`).MatchString(page) {
		t.Fatal("the settings page shows no logo")
	}
	// 3. The tenant's identity provider, its redirect URL the app's callback:
	// the admin saves it on the settings page.
	callback := base + "/login/contosodata/oidc/callback"
	op := oidctest.New(t, oidctest.Client{ID: "contoso-surveys", Secret: "contoso-oidc-secret", RedirectURL: callback})
	if code, page := carol.get("/contosodata/settings/identity"); code != 200 || !strings.Contains(page, callback) {
		t.Fatalf("identity settings = %d, without the callback %s", code, callback)
	}
	code, h, _ = carol.post("/contosodata/settings/identity", url.Values{"issuerUrl": {op.Issuer}, "clientId": {"contoso-surveys"},
		"clientSecret": {"contoso-oidc-secret"}, "claimType": {"groups"}, "claimValue": {"surveys-staff"}})
	if code != http.StatusSeeOther || h.Get("Location") != "/contosodata/settings/identity?saved=1" {
		t.Fatalf("save identity = %d %s", code, h.Get("Location"))
	}
	// 4. Sign-in through it: the provider's sales user lacks the group and
	// is refused; its staff user, Dave, gets a session of the tenant.
	if code, _, page := oidctest.NewBrowser(false).SignIn(t, op, base, "contosodata", oidctest.SalesUser); code != http.StatusForbidden || !strings.Contains(page, "does not have the claim groups = surveys-staff") {
		t.Fatalf("the sales user's sign-in = %d", code)
	}
	b := oidctest.NewBrowser(false)
	if code, h, page := b.SignIn(t, op, base, "contosodata", oidctest.StaffUser); code != http.StatusSeeOther || h.Get("Location") != "/contosodata/surveys" || b.Cookie(base, "surveys_session") == "" {
		t.Fatalf("the staff user's sign-in = %d %s %s", code, h.Get("Location"), page)
	}
	dave := withJar(t, base, b.Jar)
	if code, page := dave.get("/contosodata/surveys"); code != 200 || !strings.Contains(page, oidctest.StaffEmail) || !strings.Contains(page, "Your surveys") {
		t.Fatalf("Dave's dashboard = %d", code)
	}
	// 5. The tenant's database: tested, then saved.
	db := pgtest.NewDatabase(t)
	conn := pgtest.ConnectionString(db)
	if code, _, page := carol.post("/contosodata/settings/database", url.Values{"action": {"test"}, "connection": {conn}, "password": {pgtest.Password}}); code != 200 || !strings.Contains(page, "Connected: PostgreSQL") {
		t.Fatalf("test connection = %d", code)
	}
	if code, _, _ := carol.post("/contosodata/settings/database", url.Values{"action": {"save"}, "connection": {conn}, "password": {pgtest.Password}}); code != http.StatusSeeOther {
		t.Fatalf("save database = %d", code)
	}
	// 6. Dave designs a survey of the three question types, and publishes it.
	code, h, _ = dave.post("/contosodata/surveys/new", url.Values{"title": {"Coffee survey"}, "n": {"3"}, "action": {"save"},
		"q.0.text": {"What do you drink?"}, "q.0.type": {"SimpleText"},
		"q.1.text": {"Which size?"}, "q.1.type": {"MultipleChoice"}, "q.1.choices": {"Small\r\nLarge"},
		"q.2.text": {"How good?"}, "q.2.type": {"FiveStars"}})
	if code != http.StatusSeeOther || h.Get("Location") != "/contosodata/surveys/coffee-survey/edit" {
		t.Fatalf("create = %d %s", code, h.Get("Location"))
	}
	if code, h, _ := dave.post("/contosodata/surveys/coffee-survey/edit", url.Values{"title": {"Coffee survey"}, "n": {"3"}, "action": {"publish"},
		"q.0.text": {"What do you drink?"}, "q.0.type": {"SimpleText"},
		"q.1.text": {"Which size?"}, "q.1.type": {"MultipleChoice"}, "q.1.choices": {"Small\r\nLarge"},
		"q.2.text": {"How good?"}, "q.2.type": {"FiveStars"}}); code != http.StatusSeeOther {
		t.Fatalf("publish = %d %s", code, h.Get("Location"))
	}
	// 7. Three respondents.
	for i := 1; i <= 3; i++ {
		r := newSubscriber(t, base)
		code, page := r.get("/survey/contosodata/coffee-survey")
		tok := formTokenRE.FindStringSubmatch(page)
		if code != 200 || tok == nil {
			t.Fatalf("survey page = %d", code)
		}
		var ids []string
		for _, m := range questionRE.FindAllStringSubmatch(page, -1) {
			if len(ids) == 0 || ids[len(ids)-1] != m[1] {
				ids = append(ids, m[1])
			}
		}
		if len(ids) != 3 {
			t.Fatalf("questions on the page: %v", ids)
		}
		size := []string{"Small", "Large"}[i%2]
		if code, _, _ := r.post("/survey/contosodata/coffee-survey", url.Values{"token": {tok[1]},
			"q-" + ids[0]: {fmt.Sprintf("flat white number %d", i)}, "q-" + ids[1]: {size}, "q-" + ids[2]: {fmt.Sprint(i + 2)}}); code != http.StatusSeeOther {
			t.Fatalf("answer %d = %d", i, code)
		}
	}
	analyze := "/contosodata/surveys/coffee-survey/analyze"
	waitFor(t, dave, analyze, `<strong class="big-number">3</strong>`)
	// 8. Dave asks for the copy, and reads its status.
	if code, h, _ := dave.post("/contosodata/surveys/coffee-survey/transfer", url.Values{}); code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), analyze) {
		t.Fatalf("transfer = %d %s", code, h.Get("Location"))
	}
	page := waitFor(t, dave, analyze, `data-state="done"`)
	if !strings.Contains(page, "<strong>done</strong>: 3 answers, 9 rows in") {
		t.Fatalf("status: %s", page[strings.Index(page, `id="transfer"`):])
	}
	// 9. The answers are in the tenant's database.
	ctx := context.Background()
	pg, err := pgtest.Admin(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	var answers, rows, stars int
	var sizes, texts string
	err = pg.QueryRow(ctx, `SELECT (SELECT answers FROM surveys WHERE tenant = 'contosodata' AND slug = 'coffee-survey'),
		(SELECT count(*) FROM answers WHERE tenant = 'contosodata' AND slug = 'coffee-survey'),
		(SELECT sum(stars) FROM answers WHERE type = 'FiveStars'),
		(SELECT string_agg(answer, ',' ORDER BY answer) FROM answers WHERE type = 'MultipleChoice'),
		(SELECT string_agg(answer, ',' ORDER BY answer) FROM answers WHERE type = 'SimpleText')`).Scan(&answers, &rows, &stars, &sizes, &texts)
	if err != nil {
		t.Fatal(err)
	}
	if answers != 3 || rows != 9 || stars != 3+4+5 || sizes != "Large,Large,Small" || texts != "flat white number 1,flat white number 2,flat white number 3" {
		t.Fatalf("database: %d answers, %d rows, %d stars, sizes %s, texts %s", answers, rows, stars, sizes, texts)
	}
}

// waitFor gets path until its body contains want (two minutes at most).
func waitFor(t *testing.T, s *subscriber, path, want string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, body := s.get(path)
		if code == 200 && strings.Contains(body, want) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s = %d, never with %q", path, code, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
