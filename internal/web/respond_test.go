package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/postgres"
	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/web/oidctest"
	"github.com/surveys-dev/surveys/internal/worker"
	"golang.org/x/crypto/bcrypt"
)

// testApp is the real web server over a real embedded store with the demo
// tenants.
type testApp struct {
	web     *web.Server
	st      storage.Storage
	srv     *httptest.Server
	client  *http.Client
	surveys *store.SurveyStore
	answers *store.SurveyAnswerStore
	adatum  *survey.Survey // the published demo survey
	views   *store.ViewCounter
	ranks   *store.RankingStore
	clock   *testClock // the public cache's
}

// testClock is the time plus an offset that a test moves forward, for the
// caches that expire (instead of sleeping past their TTL).
type testClock struct{ offset atomic.Int64 }

func (c *testClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock d forward.
func (c *testClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// pastCacheTTL moves the public cache's clock past its TTL: the next
// request reads what the store holds now (the edit of a survey or tenant
// made in the store, or through a page, just before).
func (a *testApp) pastCacheTTL() { a.clock.Advance(time.Minute) }

func newTestApp(t testing.TB) *testApp {
	t.Helper()
	st := backends.Local(t)
	return newTestAppOn(t, st)
}

// newTestAppOn is newTestApp over st; opts change the server's
// dependencies before it starts.
func newTestAppOn(t testing.TB, st storage.Storage, opts ...func(*web.Deps)) *testApp {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Seed(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	surveys, tenants, answers := store.NewSurveyStore(st), store.NewTenantStore(st).WithSecrets(testBox), store.NewSurveyAnswerStore(st)
	views, ranks := store.NewViewCounter(st, time.Hour), store.NewRankingStore(st)
	clock := &testClock{}
	deps := web.Deps{
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surveys:     surveys,
		Tenants:     tenants,
		Storage:     st,
		Public:      store.NewCachedSurveys(surveys, tenants, time.Millisecond).WithClock(clock.Now),
		Notifier:    store.NewNotifier(answers, 2),
		Users:       testUsers(st),
		Summaries:   store.NewSurveyAnswersSummaryStore(st),
		Editor:      store.NewPlanGuard(surveys, tenants),
		Reader:      answers,
		Remover:     answers,
		Uploads:     store.NewUploadStore(st),
		Tokens:      store.NewTokenStore(st),
		TenantAdmin: tenants,
		Accounts:    testUsers(st),
		Logos:       store.NewLogoStore(st),

		TenantSettings: tenants,
		Outbound:       oidctest.Outbound(),
		SAML:           store.NewSAMLStore(st).WithSecrets(testBox),
		Views:          views,
		Ranks:          ranks,
		Home:           store.NewCachedHome(ranks, 5, time.Nanosecond),
		Databases:      postgres.New(pgtest.Allow),
		Transfers:      store.NewSurveyTransferStore(st),
		Links:          store.NewLinkStore(st),
		PersonalLinks:  store.NewPersonalLinkStore(st),
		Answers:        answers,
		Webhooks:       store.NewWebhookStore(st).WithSecrets(testBox),
		Resume:         store.NewResumeStore(st),
		Partials:       store.NewPartialStore(st),
		Notifications:  store.NewNotificationStore(st),
		UnsubscribeKey: testUnsubscribeKey,
		Contacts:       store.NewContactStore(st),
		Campaigns:      store.NewCampaignStore(st),
		CampaignKey:    testUnsubscribeKey,
		// No rate limits, but the test client is a proxy on loopback.
		Limits: web.Limits{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}},
	}
	for _, o := range opts {
		o(&deps)
	}
	// The server's own address is known once it listens: an option that
	// sets the public URL to selfURL gets it.
	srv := httptest.NewUnstartedServer(nil)
	if deps.PublicURL == selfURL {
		deps.PublicURL = "http://" + srv.Listener.Addr().String()
	}
	s, err := web.New(deps)
	if err != nil {
		srv.Listener.Close()
		t.Fatal(err)
	}
	// Cleanups run last first: the server's background work (reset
	// mails) ends before the storage closes.
	t.Cleanup(func() { _ = s.Wait(context.Background()) })
	srv.Config.Handler = s.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	list, err := surveys.List(ctx, "adatum")
	if err != nil || len(list) != 1 {
		t.Fatalf("demo surveys: %v %v", list, err)
	}
	adatum, err := surveys.Get(ctx, "adatum", list[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	return &testApp{web: s, st: st, srv: srv, surveys: surveys, answers: answers, adatum: adatum, views: views, ranks: ranks, clock: clock,
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// selfURL, as Deps.PublicURL of newTestAppOn's options, is the test
// server's own URL.
const selfURL = "self"

func (a *testApp) do(t testing.TB, method, path string, form url.Values, header map[string]string) (int, http.Header, string) {
	t.Helper()
	if form == nil {
		return a.send(t, method, path, nil, header)
	}
	h := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for k, v := range header {
		h[k] = v
	}
	return a.send(t, method, path, strings.NewReader(form.Encode()), h)
}

// send makes a request with a body and headers, without following
// redirects, and returns the status, headers and body of the answer.
func (a *testApp) send(t testing.TB, method, path string, body io.Reader, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, a.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v // what a client may name, whatever the address it reached
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

var tokenRE = regexp.MustCompile(`name="token" value="([^"]+)"`)

// page gets a survey page and returns its form token.
func (a *testApp) token(t testing.TB, path string) string {
	t.Helper()
	code, _, body := a.do(t, "GET", path, nil, nil)
	m := tokenRE.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("GET %s = %d without a token", path, code)
	}
	return m[1]
}

// answerID is the answer's ID a form token holds: "<id>.<mac>".
func answerID(token string) string {
	id, _, _ := strings.Cut(token, ".")
	return id
}

// complete is a valid answer to the demo survey.
func (a *testApp) complete(token string) url.Values {
	q := a.adatum.Questions
	return url.Values{
		"token":        {token},
		"q-" + q[0].ID: {"4"},
		"q-" + q[1].ID: {"Mobile app"},
		"q-" + q[2].ID: {"5"},
		"q-" + q[3].ID: {"Faster pages, please <script>"},
	}
}

func (a *testApp) path() string { return "/survey/adatum/" + a.adatum.Slug }

// stored lets a worker file and count what is queued, then counts the
// stored answers of the demo survey.
func (a *testApp) stored(t testing.TB) int {
	t.Helper()
	w := worker.New(a.st, worker.Config{Batch: 32, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	for {
		n, err := w.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	n := 0
	if err := a.answers.ListAll(context.Background(), "adatum", a.adatum.Slug, func(string) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPublicPages(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	draft := &survey.Survey{Tenant: "adatum", Title: "Secret draft", Questions: []survey.Question{{Text: "Q", Type: survey.SimpleText}}}
	closed := &survey.Survey{Tenant: "adatum", Title: "Old one", State: survey.Published, Questions: []survey.Question{{Text: "Q", Type: survey.SimpleText}}}
	for _, s := range []*survey.Survey{draft, closed} {
		if err := app.surveys.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := app.surveys.SetState(ctx, "adatum", closed.Slug, survey.Closed); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	tests := []struct {
		name, path string
		code       int
		contains   []string
		absent     []string
	}{
		{"home", "/", 200, []string{"Adatum customer satisfaction", "Fabrikam product feedback"}, []string{"Secret draft"}},
		{"survey", app.path(), 200, []string{
			"<fieldset", "<legend>", `type="radio"`, "<textarea", "1 star", "5 stars", "Mobile app", `name="token"`, "Adatum",
		}, nil},
		{"missing survey", "/survey/adatum/no-such-survey", 404, []string{"Survey not found."}, nil},
		{"missing tenant", "/survey/nosuchtenant/" + app.adatum.Slug, 404, nil, []string{"Adatum customer"}},
		{"another tenant's slug", "/survey/fabrikam/" + app.adatum.Slug, 404, nil, []string{"Adatum customer"}},
		{"draft", "/survey/adatum/" + draft.Slug, 404, nil, []string{"Secret draft"}},
		{"closed", "/survey/adatum/" + closed.Slug, 410, []string{"This survey is closed"}, []string{"<textarea"}},
		{"bad slug", "/survey/adatum/..%2F..%2Fetc", 404, nil, nil},
		{"thank you", app.path() + "/thankyou", 200, []string{"Thank you"}, nil},
		{"healthz", "/healthz", 200, []string{"ok"}, nil},
		{"readyz", "/readyz", 200, []string{"ready"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.do(t, "GET", tc.path, nil, nil)
			if code != tc.code {
				t.Fatalf("GET %s = %d, want %d\n%s", tc.path, code, tc.code, body)
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("GET %s: body lacks %q", tc.path, s)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(body, s) {
					t.Errorf("GET %s: body has %q", tc.path, s)
				}
			}
		})
	}
	// The first page, rendered once and kept, goes out whole with its
	// length (not chunked), each time with a token of its own.
	var tokens []string
	for range 2 {
		code, h, body := app.do(t, "GET", app.path(), nil, nil)
		if code != http.StatusOK || h.Get("Content-Length") != strconv.Itoa(len(body)) {
			t.Fatalf("GET %s = %d with Content-Length %q, want 200 and %d", app.path(), code, h.Get("Content-Length"), len(body))
		}
		tokens = append(tokens, tokenOf(t, body))
	}
	if tokens[0] == tokens[1] {
		t.Errorf("two GETs of the first page carry the same token %q", tokens[0])
	}
	// Closed surveys refuse answers too.
	code, _, _ := app.do(t, "POST", "/survey/adatum/"+closed.Slug, url.Values{"token": {"x"}}, nil)
	if code != http.StatusGone {
		t.Errorf("POST to a closed survey = %d, want 410", code)
	}
}

func TestSubmit(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	q := app.adatum.Questions
	tests := []struct {
		name     string
		form     func(token string) url.Values
		header   map[string]string
		code     int
		contains []string
		stored   int // answers stored after the request
	}{
		{"complete", app.complete, nil, 303, nil, 1},
		{"nothing answered", func(tok string) url.Values { return url.Values{"token": {tok}} }, nil, 422,
			[]string{"Please check 4 answers", "Please give a rating from 1 to 5 stars.", "Please choose one answer.", "Please answer this question."}, 0},
		{"answers kept, problems shown", func(tok string) url.Values {
			v := app.complete(tok)
			v.Set("q-"+q[1].ID, "Smoke signals")
			v.Set("q-"+q[2].ID, "11")
			return v
		}, nil, 422, []string{"Please choose one of the answers offered.", "Please choose a whole number from 0 to 10.", "Faster pages, please &lt;script&gt;", `value="4" checked`}, 0},
		{"text too long", func(tok string) url.Values {
			v := app.complete(tok)
			v.Set("q-"+q[3].ID, strings.Repeat("a", survey.MaxTextAnswerLength+1))
			return v
		}, nil, 422, []string{"Please keep your answer to 4000 characters"}, 0},
		{"body too large", func(tok string) url.Values {
			v := app.complete(tok)
			v.Set("padding", strings.Repeat("x", 3<<20))
			return v
		}, nil, 422, []string{"too long to send"}, 0},
		{"cross-site post", app.complete, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := app.stored(t)
			tok := app.token(t, app.path())
			code, h, body := app.do(t, "POST", app.path(), tc.form(tok), tc.header)
			if code != tc.code {
				t.Fatalf("POST = %d, want %d\n%s", code, tc.code, body)
			}
			if code == 303 && h.Get("Location") != app.path()+"/thankyou" {
				t.Errorf("redirect to %q", h.Get("Location"))
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q", s)
				}
			}
			if got := app.stored(t) - before; got != tc.stored {
				t.Errorf("%d answers stored, want %d", got, tc.stored)
			}
		})
	}
}

// TestDoubleSubmit sends one form twice: both requests see the thank-you
// page, and one answer is stored and counted.
func TestDoubleSubmit(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	tok := app.token(t, app.path())
	if other := app.token(t, app.path()); other == tok || !store.ValidAnswerID(answerID(tok)) || !store.ValidAnswerID(answerID(other)) {
		t.Fatalf("tokens %q and %q: want two valid, different tokens", tok, other)
	}
	for i := 0; i < 2; i++ {
		if code, _, body := app.do(t, "POST", app.path(), app.complete(tok), nil); code != 303 {
			t.Fatalf("submit %d = %d\n%s", i+1, code, body)
		}
	}
	if n := app.stored(t); n != 1 {
		t.Fatalf("%d answers stored, want 1", n)
	}
	sum, _, err := store.NewSurveyAnswersSummaryStore(app.st).Get(context.Background(), "adatum", app.adatum.Slug)
	if err != nil || sum.TotalAnswers != 1 {
		t.Fatalf("summary = %+v, %v; want one answer", sum, err)
	}
	a, err := app.answers.Get(context.Background(), "adatum", app.adatum.Slug, answerID(tok))
	if err != nil || a.Answers[1].Answer != "Mobile app" || a.Answers[3].Answer != "Faster pages, please <script>" {
		t.Fatalf("stored answer = %+v, %v", a, err)
	}
	// The form token cannot address another survey's answers.
	code, _, _ := app.do(t, "POST", "/survey/fabrikam/"+app.adatum.Slug, app.complete(tok), nil)
	if code != 404 {
		t.Errorf("POST to another tenant = %d, want 404", code)
	}
}

// FuzzSubmitForm posts arbitrary bodies: the answer is a clear 4xx or a
// stored answer, never a server error.
func FuzzSubmitForm(f *testing.F) {
	f.Add("token=0639318301636506446-5abac7&q-x=1")
	f.Add("%zz=%%")
	f.Add("token=" + strings.Repeat("9", 30))
	f.Add("q-0=5&q-0=6&token=&&&=")
	app := newTestApp(f)
	f.Fuzz(func(t *testing.T, body string) {
		req, _ := http.NewRequest("POST", app.srv.URL+app.path(), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := app.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 303 && resp.StatusCode != 422 {
			t.Fatalf("POST %q = %d", body, resp.StatusCode)
		}
	})
}

// testUsers is a UserStore over st that hashes passwords at bcrypt's least
// cost: a sign-in is then as quick under -race as the other requests. The
// cost of production hashes is checked in the store's tests.
func testUsers(st storage.Storage) *store.UserStore {
	return store.NewUserStore(st).WithCost(bcrypt.MinCost).WithSecrets(testBox)
}

// tokenOf returns the form token of a survey page.
func tokenOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the page has no form token")
	}
	return m[1]
}
