package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// newTestMain boots the real server on :0 over the embedded store in dir.
func newTestMain(t *testing.T, dir string) *Main {
	t.Helper()
	cfg, err := parseServe([]string{"--addr", "127.0.0.1:0", "--data", dir}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordCost = bcrypt.MinCost // see testUsers
	m := NewMain(cfg, io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return m
}

// testUsers is the accounts of st hashing passwords at bcrypt's lowest
// cost, as the tests' servers do (Config.PasswordCost): under the race
// detector a hash at the default cost takes about a second, and what the
// tests check is who may sign in, not the hash. TestPasswordHashCost
// (internal/store) holds the default, and the real binary's tests
// (TestCrashKill9, cmd/loadgen) run with it.
func testUsers(st storage.Storage) *store.UserStore {
	return store.NewUserStore(st).WithCost(bcrypt.MinCost)
}

func get(t *testing.T, m *Main, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + m.Addr() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestServeAndRestart(t *testing.T) {
	dir := t.TempDir()
	m := newTestMain(t, dir)
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, m, path); code != http.StatusOK {
			t.Fatalf("GET %s = %d %q", path, code, body)
		}
	}
	code, body := get(t, m, "/")
	if code != http.StatusOK || !strings.Contains(body, "Adatum customer satisfaction") || !strings.Contains(body, "Fabrikam product feedback") {
		t.Fatalf("GET / = %d, without the demo surveys:\n%s", code, body)
	}
	code, body = get(t, m, "/metrics")
	if code != http.StatusOK || !strings.Contains(body, `surveys_storage_operations_total{kind="put",service="blob"}`) {
		t.Errorf("GET /metrics = %d, without storage operation counts", code)
	}
	if code, _ := get(t, m, "/no/such/page"); code != http.StatusNotFound {
		t.Errorf("GET of a missing page = %d", code)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// The data survive a restart, and the demo tenants are not made again.
	m = newTestMain(t, dir)
	defer m.Close()
	if code, _ := get(t, m, "/readyz"); code != http.StatusOK {
		t.Fatalf("readyz after restart = %d", code)
	}
	ctx := context.Background()
	tenants, err := store.NewTenantStore(m.Storage).List(ctx)
	if err != nil || len(tenants) != 2 {
		t.Fatalf("tenants after restart = %v, %v", tenants, err)
	}
	for _, tn := range tenants {
		list, err := store.NewSurveyStore(m.Storage).List(ctx, tn.Key)
		if err != nil || len(list) != 1 {
			t.Errorf("%s has %d surveys after restart (%v), want 1", tn.Key, len(list), err)
		}
	}
	if n := m.Storage.Total("blob"); n == 0 {
		t.Error("the counting layer counted no blob operations")
	}
}

func TestParseServe(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    func(Config) bool
		wantErr string
	}{
		{"defaults", nil, nil, func(c Config) bool { return c.Addr == ":8080" && c.Storage == "local" && c.Data == "data" && c.Worker }, ""},
		{"env twins", nil, map[string]string{"SURVEYS_ADDR": ":9090", "SURVEYS_DATA": "/var/lib/surveys", "SURVEYS_WORKER": "false"},
			func(c Config) bool { return c.Addr == ":9090" && c.Data == "/var/lib/surveys" && !c.Worker }, ""},
		{"flags beat env", []string{"--addr", ":7070"}, map[string]string{"SURVEYS_ADDR": ":9090"}, func(c Config) bool { return c.Addr == ":7070" }, ""},
		{"connection string selects azure", nil, map[string]string{"AZURE_STORAGE_CONNECTION_STRING": "UseDevelopmentStorage=true"},
			func(c Config) bool { return c.Storage == "azure" }, ""},
		{"azure without an account", []string{"--storage", "azure"}, nil, nil, "needs AZURE_STORAGE_CONNECTION_STRING"},
		{"unknown storage", []string{"--storage", "s3"}, nil, nil, "use local or azure"},
		{"campaign lease", []string{"--campaign-lease", "20s"}, nil, func(c Config) bool { return c.CampaignLease == 20*time.Second }, ""},
		{"campaign lease default", nil, nil, func(c Config) bool { return c.CampaignLease == worker.DefaultCampaignConfig.Lease }, ""},
		{"campaign lease too short", nil, map[string]string{"SURVEYS_CAMPAIGN_LEASE": "2s"}, nil, "--campaign-lease (SURVEYS_CAMPAIGN_LEASE) must be from 10s to 1h"},
		{"campaign lease not a duration", nil, map[string]string{"SURVEYS_CAMPAIGN_LEASE": "five"}, nil, "--campaign-lease (SURVEYS_CAMPAIGN_LEASE) must be from 10s to 1h"},
		{"bad log format", []string{"--log-format", "xml"}, nil, nil, "use text or json"},
		{"stray argument", []string{"extra"}, nil, nil, "unexpected arguments"},
		{"regions", []string{"--regions", "westeurope, eastus"}, nil, func(c Config) bool {
			return len(c.Regions) == 2 && c.Regions[0].Name == "westeurope" && c.Regions[1].Name == "eastus"
		}, ""},
		{"region accounts from env", []string{"--storage", "azure"}, map[string]string{"AZURE_STORAGE_ACCOUNT": "home", "SURVEYS_REGIONS": "eastus",
			"AZURE_STORAGE_CONNECTION_STRING_EASTUS": "UseDevelopmentStorage=true"}, func(c Config) bool {
			return len(c.Regions) == 1 && c.Regions[0].ConnectionString == "UseDevelopmentStorage=true"
		}, ""},
		{"azure region without an account", []string{"--storage", "azure", "--regions", "eastus"}, map[string]string{"AZURE_STORAGE_ACCOUNT": "home"}, nil, "AZURE_STORAGE_CONNECTION_STRING_EASTUS"},
		{"bad region name", []string{"--regions", "West Europe"}, nil, nil, "lower-case letters and digits"},
		{"region twice", []string{"--regions", "eastus,eastus"}, nil, nil, "named twice"},
		{"public URL", nil, map[string]string{"SURVEYS_PUBLIC_URL": "https://surveys.example.com/"}, func(c Config) bool { return c.PublicURL == "https://surveys.example.com/" }, ""},
		{"public URL with a path", []string{"--public-url", "https://surveys.example.com/app"}, nil, nil, "give a scheme and host only"},
		{"public URL without a scheme", []string{"--public-url", "surveys.example.com"}, nil, nil, "give a scheme and host only"},
		{"sql allow", nil, map[string]string{"SURVEYS_SQL_ALLOW": "10.0.0.0/8, 127.0.0.1"}, func(c Config) bool {
			return len(c.SQLAllow) == 2 && c.SQLAllow[0].String() == "10.0.0.0/8" && c.SQLAllow[1].String() == "127.0.0.1/32"
		}, ""},
		{"sql allow not a range", []string{"--sql-allow", "intranet"}, nil, nil, "--sql-allow"},
		{"allow private", []string{"--allow-private", "10.0.0.0/8"}, map[string]string{"SURVEYS_SQL_ALLOW": "192.168.0.0/16"}, func(c Config) bool {
			return len(c.AllowPrivate) == 1 && c.AllowPrivate[0].String() == "10.0.0.0/8" &&
				len(c.SQLAllow) == 2 && c.SQLAllow[0].String() == "10.0.0.0/8" && c.SQLAllow[1].String() == "192.168.0.0/16"
		}, ""},
		{"allow private from env", nil, map[string]string{"SURVEYS_ALLOW_PRIVATE": "127.0.0.1"}, func(c Config) bool {
			return len(c.AllowPrivate) == 1 && len(c.SQLAllow) == 1 && c.SQLAllow[0].String() == "127.0.0.1/32"
		}, ""},
		{"allow private not a range", []string{"--allow-private", "intranet"}, nil, nil, "--allow-private"},
		{"metrics allow: loopback by default", nil, nil, func(c Config) bool {
			return len(c.MetricsAllow) == 2 && c.MetricsAllow[0].String() == "127.0.0.0/8" && c.MetricsAllow[1].String() == "::1/128"
		}, ""},
		{"metrics allow from env", nil, map[string]string{"SURVEYS_METRICS_ALLOW": "10.1.2.0/24"}, func(c Config) bool {
			return len(c.MetricsAllow) == 1 && c.MetricsAllow[0].String() == "10.1.2.0/24"
		}, ""},
		{"metrics allow not a range", []string{"--metrics-allow", "scraper"}, nil, nil, "--metrics-allow"},
		{"rate limits by default", nil, nil, func(c Config) bool {
			return c.Limits.Answers == 30 && c.Limits.Onboardings == 5 && c.Limits.SignIns == 20 && len(c.Limits.TrustedProxies) == 0
		}, ""},
		{"rate limits set", []string{"--answers-per-minute", "0", "--trusted-proxies", "127.0.0.1, ::1, 10.1.0.0/16"},
			map[string]string{"SURVEYS_SIGNUPS_PER_HOUR": "2", "SURVEYS_SIGNINS_PER_MINUTE": "7"}, func(c Config) bool {
				return c.Limits.Answers == 0 && c.Limits.Onboardings == 2 && c.Limits.SignIns == 7 && len(c.Limits.TrustedProxies) == 3 &&
					c.Limits.TrustedProxies[1].String() == "::1/128"
			}, ""},
		{"trusted proxies not a range", []string{"--trusted-proxies", "the proxy"}, nil, nil, "--trusted-proxies"},
		{"negative rate limit", []string{"--signins-per-minute", "-1"}, nil, nil, "negative"},
		{"mail off by default", nil, nil, func(c Config) bool { return c.Mail == nil }, ""},
		{"mail from env, sender from the public URL", nil, map[string]string{"SURVEYS_SMTP_URL": "smtps://ana@mail.example.com", "SURVEYS_SMTP_PASSWORD": "pw",
			"SURVEYS_PUBLIC_URL": "https://surveys.example.com"}, func(c Config) bool {
			return c.Mail.String() == "ana@mail.example.com:465 (implicit), from surveys@surveys.example.com" && c.Mail.Password == "pw"
		}, ""},
		{"mail flags", []string{"--smtp-url", "smtp://relay.example.com:2525", "--mail-from", "Polls <polls@example.com>", "--public-url", "https://polls.example.com"}, nil, func(c Config) bool {
			return c.Mail.String() == "relay.example.com:2525 (starttls), from polls@example.com"
		}, ""},
		{"mail URL not SMTP", []string{"--smtp-url", "mail.example.com"}, nil, nil, "use smtps:// (TLS, port 465) or smtp://"},
		{"mail password file missing", []string{"--smtp-url", "smtps://ana@mail.example.com", "--smtp-password-file", "/nonexistent/smtp"}, nil, nil, "SURVEYS_SMTP_PASSWORD_FILE: open /nonexistent/smtp"},
		// Mailed links come from the public URL alone, never from a
		// request's Host: e-mail without one is refused at start.
		{"mail without a public URL", []string{"--smtp-url", "smtp://relay.example.com:2525"}, nil, nil,
			"e-mail is on (--smtp-url, SURVEYS_SMTP_URL) but --public-url (SURVEYS_PUBLIC_URL) is not set"},
		{"mail from env without a public URL", nil, map[string]string{"SURVEYS_SMTP_URL": "smtps://ana@mail.example.com", "SURVEYS_SMTP_PASSWORD": "pw"}, nil,
			"--public-url (SURVEYS_PUBLIC_URL) is not set"},
		{"webhook limits by default", nil, nil, func(c Config) bool {
			return c.WebhookSlots == 16 && c.WebhookSlotsPerTenant == 4 && c.WebhookTestsPerMinute == 3
		}, ""},
		{"webhook limits set", []string{"--webhook-slots", "32"}, map[string]string{"SURVEYS_WEBHOOK_SLOTS_PER_TENANT": "2", "SURVEYS_WEBHOOK_TESTS_PER_MINUTE": "1"}, func(c Config) bool {
			return c.WebhookSlots == 32 && c.WebhookSlotsPerTenant == 2 && c.WebhookTestsPerMinute == 1
		}, ""},
		{"webhook share above the slots", []string{"--webhook-slots", "2", "--webhook-slots-per-tenant", "3"}, nil, nil, "--webhook-slots-per-tenant (at most --webhook-slots)"},
		{"no webhook test events", []string{"--webhook-tests-per-minute", "0"}, nil, nil, "must be at least 1"},
		{"audit retention by default", nil, nil, func(c Config) bool { return c.AuditRetentionDays == 365 }, ""},
		{"audit retention set", nil, map[string]string{"SURVEYS_AUDIT_RETENTION_DAYS": "0"}, func(c Config) bool { return c.AuditRetentionDays == 0 }, ""},
		{"audit retention below zero", []string{"--audit-retention-days", "-1"}, nil, nil, "--audit-retention-days must be 0"},
		{"garbage collector by default", nil, nil, func(c Config) bool { return c.GCPercent == 400 && c.MemoryLimitMiB == 1024 }, ""},
		{"garbage collector set", []string{"--gc-percent", "200"}, map[string]string{"SURVEYS_MEMORY_LIMIT_MIB": "0"}, func(c Config) bool {
			return c.GCPercent == 200 && c.MemoryLimitMiB == 0
		}, ""},
		{"gc percent too low", nil, map[string]string{"SURVEYS_GC_PERCENT": "10"}, nil, "--gc-percent (SURVEYS_GC_PERCENT) must be from 25 to 1000"},
		{"memory limit below zero", []string{"--memory-limit-mib", "-5"}, nil, nil, "--memory-limit-mib (SURVEYS_MEMORY_LIMIT_MIB) must be 0 (none)"},
		{"mail password in the URL", nil, map[string]string{"SURVEYS_SMTP_URL": "smtps://ana:pw@mail.example.com"}, nil, "holds a password"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseServe(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !tc.want(c) {
				t.Fatalf("config = %+v, %v", c, err)
			}
		})
	}
}

// signalWriter closes seen once what is written holds want.
type signalWriter struct {
	want string
	seen chan struct{}
	mu   sync.Mutex
	buf  []byte
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if strings.Contains(string(w.buf), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func TestServeStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	logs := &signalWriter{want: `msg=serving`, seen: make(chan struct{})}
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, func(string) string { return "" }, strings.NewReader(""), io.Discard, logs)
	}()
	select { // cancelled once it serves, not after a while
	case <-logs.seen:
	case err := <-done:
		t.Fatalf("serve returned %v before serving", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("serve did not start")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop")
	}
}

func TestUserAdd(t *testing.T) {
	dir := t.TempDir()
	newTestMain(t, dir).Close() // creates the demo tenants
	none := func(string) string { return "" }
	add := func(stdin string, args ...string) (string, error) {
		var out strings.Builder
		err := run(context.Background(), append([]string{"user", "add", "--data", dir}, args...), none, strings.NewReader(stdin), &out, io.Discard)
		return out.String(), err
	}
	out, err := add("correct horse battery\n", "--tenant", "adatum", "--email", "a@adatum.example", "--password-stdin")
	if err != nil || !strings.Contains(out, "added a@adatum.example to tenant adatum") {
		t.Fatalf("user add = %q, %v", out, err)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"correct horse battery\n", []string{"--tenant", "adatum", "--email", "a@adatum.example", "--password-stdin"}, "already has an account"},
		{"correct horse battery\n", []string{"--tenant", "contoso", "--email", "c@contoso.example", "--password-stdin"}, `tenant "contoso"`},
		{"short\n", []string{"--tenant", "adatum", "--email", "b@adatum.example", "--password-stdin"}, "at least 10 characters"},
		{"", []string{"--tenant", "adatum", "--email", "b@adatum.example"}, "--password-stdin"},
	} {
		if _, err := add(tc.stdin, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("user add %v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	// An API token, printed once, for the tenant's programs.
	var tokOut strings.Builder
	if err := run(context.Background(), []string{"token", "create", "--data", dir, "--tenant", "adatum"}, none, strings.NewReader(""), &tokOut, io.Discard); err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(tokOut.String())
	if err := run(context.Background(), []string{"token", "create", "--data", dir, "--tenant", "contoso"}, none, strings.NewReader(""), io.Discard, io.Discard); err == nil {
		t.Error("token create for a missing tenant succeeded")
	}

	// The account signs in on the served site, and the token calls the API.
	m := newTestMain(t, dir)
	defer m.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm("http://"+m.Addr()+"/login", map[string][]string{"tenant": {"adatum"}, "email": {"a@adatum.example"}, "password": {"correct horse battery"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/adatum/surveys" {
		t.Fatalf("sign-in = %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ := http.NewRequest("GET", "http://"+m.Addr()+"/api/v1/surveys", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "adatum-customer-satisfaction") || strings.Contains(string(body), "fabrikam") {
		t.Fatalf("API with the CLI's token = %d %s", resp.StatusCode, body)
	}
}

// TestSecretKeyAtStartUp: once a tenant has a sealed secret, the server
// refuses to start without its key (or with another), saying why.
func TestSecretKeyAtStartUp(t *testing.T) {
	dir := t.TempDir()
	key := "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	boot := func(env map[string]string) error {
		cfg, err := parseServe([]string{"--addr", "127.0.0.1:0", "--data", dir}, func(k string) string { return env[k] }, io.Discard)
		if err != nil {
			return err
		}
		m := NewMain(cfg, io.Discard)
		err = m.Run(context.Background())
		_ = m.Close()
		return err
	}
	if err := boot(map[string]string{"SURVEYS_SECRET_KEY": key}); err != nil {
		t.Fatalf("first start with a key: %v", err)
	}
	// Give Adatum a client secret, sealed with the key.
	cfg, _ := parseServe([]string{"--data", dir}, func(k string) string { return map[string]string{"SURVEYS_SECRET_KEY": key}[k] }, io.Discard)
	st, err := openStorage(cfg)
	if err != nil {
		t.Fatal(err)
	}
	box, _ := cfg.Secrets()
	ts := store.NewTenantStore(st).WithSecrets(box)
	tn, err := ts.Get(context.Background(), "adatum")
	if err != nil {
		t.Fatal(err)
	}
	tn.ClientSecret = "s3cret"
	if err := ts.Update(context.Background(), tn); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()

	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"no key", nil, "SURVEYS_SECRET_KEY"},
		{"wrong key", map[string]string{"SURVEYS_SECRET_KEY": "HwECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}, "wrong SURVEYS_SECRET_KEY"},
		{"malformed key", map[string]string{"SURVEYS_SECRET_KEY": "short"}, "make one with"},
		{"right key", map[string]string{"SURVEYS_SECRET_KEY": key}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := boot(tt.env)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("start: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("start = %v, want an error saying %q", err, tt.wantErr)
			}
		})
	}
}
