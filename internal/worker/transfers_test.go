package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/postgres"
	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// transferConfig retries at once, so that a test sees the message come
// back without waiting.
var transferConfig = worker.TransferConfig{Visibility: 3 * time.Second, MaxAttempts: 3, RetryBase: 0, RetryMax: 0, MaxIdle: 20 * time.Millisecond}

// transferFixture is a tenant with a database, a survey with filed
// answers, and a transfer worker.
type transferFixture struct {
	*fixture
	tenants  *store.TenantStore
	tenant   *survey.Tenant
	database string
	xfer     *worker.Transfers
	requests *store.SurveyTransferStore
}

func newTransferFixture(t *testing.T, st storage.Storage, answers int, cfg worker.TransferConfig) *transferFixture {
	t.Helper()
	ctx := context.Background()
	tenant := newTenant()
	f := newFixture(t, st, tenant, answers, 3)
	drain(t, st, worker.New(st, testConfig, quiet, nil))
	box, err := secret.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	tf := &transferFixture{fixture: f, tenants: store.NewTenantStore(st).WithSecrets(box), database: pgtest.NewDatabase(t), requests: store.NewSurveyTransferStore(st)}
	tf.tenant = &survey.Tenant{Key: tenant, Name: "Transfer " + tenant, Plan: survey.Premium,
		SQLConnection: pgtest.ConnectionString(tf.database), SQLPassword: pgtest.Password}
	if err := tf.tenants.Create(ctx, tf.tenant); err != nil {
		t.Fatal(err)
	}
	tf.xfer = worker.NewTransfers(st, tf.tenants, postgres.New(pgtest.Allow), cfg, quiet)
	return tf
}

func (tf *transferFixture) setPassword(t *testing.T, pw string) {
	t.Helper()
	tf.tenant.SQLPassword = pw
	if err := tf.tenants.Update(context.Background(), tf.tenant); err != nil {
		t.Fatal(err)
	}
}

func (tf *transferFixture) status(t *testing.T) *store.TransferStatus {
	t.Helper()
	s, err := tf.requests.Status(context.Background(), tf.survey.Tenant, tf.survey.Slug)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return s
}

// request asks for a transfer of the fixture's survey, as the page does.
func (tf *transferFixture) request(t *testing.T) {
	t.Helper()
	if err := tf.requests.Request(context.Background(), tf.survey.Tenant, tf.survey.Slug); err != nil {
		t.Fatal(err)
	}
}

// runOnce runs the worker once and says how many requests it took.
func (tf *transferFixture) runOnce(t *testing.T) int {
	t.Helper()
	n, err := tf.xfer.RunOnce(context.Background())
	if err != nil {
		t.Logf("RunOnce: %v", err)
	}
	return n
}

// answerRows counts the survey's rows in the tenant's answers table.
func (tf *transferFixture) answerRows(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgtest.Admin(ctx, tf.database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, distinct int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT answer_id) FROM answers WHERE tenant = $1 AND slug = $2`, tf.survey.Tenant, tf.survey.Slug).Scan(&n, &distinct); err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d rows, %d answers", n, distinct)
}

func queueLen(t *testing.T, st storage.Storage, q string) int {
	t.Helper()
	n, err := st.ApproximateCount(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTransferWorker: a request copies the filed answers into the tenant's
// database, records the result, and is deleted; a second request replaces
// the rows. On both backends.
func TestTransferWorker(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		tf := newTransferFixture(t, st, 7, transferConfig)
		tf.request(t)
		if s := tf.status(t); s.State != store.TransferRequested || s.RequestedOn.IsZero() {
			t.Fatalf("status after the request = %+v", s)
		}
		if n := tf.runOnce(t); n != 1 {
			t.Fatalf("RunOnce took %d requests", n)
		}
		s := tf.status(t)
		if s.State != store.TransferDone || s.Answers != 7 || s.Rows != tf.sqlRows(7) || s.Duration <= 0 || s.FinishedOn.IsZero() || s.Attempt != 1 || s.Error != "" {
			t.Fatalf("status after the transfer = %+v", s)
		}
		if got, want := tf.answerRows(t), fmt.Sprintf("%d rows, 7 answers", tf.sqlRows(7)); got != want {
			t.Fatalf("database holds %s", got)
		}
		if n := queueLen(t, st, store.TransfersQueue); n != 0 {
			t.Fatalf("%d requests left in the queue", n)
		}
		// Again: the same rows, not twice as many.
		tf.request(t)
		tf.runOnce(t)
		if s := tf.status(t); s.State != store.TransferDone || s.Rows != tf.sqlRows(7) {
			t.Fatalf("status after the second transfer = %+v", s)
		}
		if got, want := tf.answerRows(t), fmt.Sprintf("%d rows, 7 answers", tf.sqlRows(7)); got != want {
			t.Fatalf("database holds %s after a second transfer", got)
		}
		// Both requests' waits were measured, and the worker progressed.
		reg := prometheus.NewRegistry()
		reg.MustRegister(tf.xfer.Collectors()...)
		if waits, since := lagFigures(t, reg); waits["transfers surveytransfers"] != 2 || since["transfers"] > 5 {
			t.Errorf("transfer worker's lag: waits %v, seconds since progress %v", waits, since)
		}
	})
}

// TestTransferRetriesThenPoisons: a wrong password fails with a clear
// message, the request comes back, and once the password is fixed the
// retry succeeds; a fault never fixed sends the request to the poison
// queue with the reason after MaxAttempts, and the status says so.
func TestTransferRetriesThenPoisons(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		tf := newTransferFixture(t, st, 4, transferConfig)
		tf.setPassword(t, "wrong")
		tf.request(t)
		tf.runOnce(t)
		s := tf.status(t)
		if s.State != store.TransferFailed || s.Attempt != 1 || s.MaxAttempts != 3 || !strings.Contains(s.Error, `refused the password of user "surveys"`) {
			t.Fatalf("status after a wrong password = %+v", s)
		}
		if n := queueLen(t, st, store.TransfersQueue); n != 1 {
			t.Fatalf("the request is not kept for a retry: %d in the queue", n)
		}
		tf.setPassword(t, pgtest.Password)
		if n := tf.runOnce(t); n != 1 {
			t.Fatalf("the request did not come back: RunOnce took %d", n)
		}
		if s := tf.status(t); s.State != store.TransferDone || s.Attempt != 2 || s.Rows != tf.sqlRows(4) || s.Error != "" {
			t.Fatalf("status after the fixed retry = %+v", s)
		}
		if got, want := tf.answerRows(t), fmt.Sprintf("%d rows, 4 answers", tf.sqlRows(4)); got != want {
			t.Fatalf("database holds %s", got)
		}

		// A permission revoked and never granted again: three attempts,
		// then the poison queue, and the admins told once.
		gaveUp := &transferAlerts{}
		tf.xfer.Alert = gaveUp
		pgtest.Exec(t, tf.database, "REVOKE DELETE ON surveys FROM "+pgtest.Role)
		tf.request(t)
		for i := 1; i <= 3; i++ {
			if n := tf.runOnce(t); n != 1 {
				t.Fatalf("attempt %d: RunOnce took %d", i, n)
			}
			s := tf.status(t)
			want := store.TransferFailed
			if i == 3 {
				want = store.TransferGaveUp
			}
			if s.State != want || s.Attempt != i || !strings.Contains(s.Error, "permission denied for table surveys") {
				t.Fatalf("attempt %d: status = %+v", i, s)
			}
		}
		if n := queueLen(t, st, store.TransfersQueue); n != 0 {
			t.Fatalf("%d requests left after giving up", n)
		}
		if got := gaveUp.list(); len(got) != 1 || !strings.Contains(got[0], tf.survey.Slug) || !strings.Contains(got[0], "permission denied") {
			t.Fatalf("the admins were told %q; want once, of the survey and why", got)
		}
		msgs, err := st.Dequeue(ctx, store.TransfersPoisonQueue, 32, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range msgs {
			var p worker.PoisonMessage
			if err := json.Unmarshal(m.Data, &p); err != nil {
				t.Fatal(err)
			}
			var req store.TransferRequest
			_ = json.Unmarshal(p.Data, &req)
			if req.Tenant == tf.survey.Tenant {
				found = true
				if p.Queue != store.TransfersQueue || !strings.Contains(p.Reason, "failed 3 attempts") || !strings.Contains(p.Reason, "permission denied") || req.Slug != tf.survey.Slug {
					t.Errorf("poison message = %+v (request %+v)", p, req)
				}
			}
		}
		if !found {
			t.Fatalf("the request is not in the poison queue (%d messages there)", len(msgs))
		}
		// The rows of the last good transfer are intact.
		if got, want := tf.answerRows(t), fmt.Sprintf("%d rows, 4 answers", tf.sqlRows(4)); got != want {
			t.Fatalf("database holds %s after the failures", got)
		}
	})
}

// TestTransferDropsDeletedSurvey: the request of a survey deleted since is
// dropped, not retried, not poisoned.
func TestTransferDropsDeletedSurvey(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	tf := newTransferFixture(t, st, 2, transferConfig)
	tf.request(t)
	if err := store.NewSurveyStore(st).Delete(ctx, tf.survey.Tenant, tf.survey.Slug); err != nil {
		t.Fatal(err)
	}
	if n := tf.runOnce(t); n != 1 {
		t.Fatalf("RunOnce took %d", n)
	}
	if a, b := queueLen(t, st, store.TransfersQueue), queueLen(t, st, store.TransfersPoisonQueue); a != 0 || b != 0 {
		t.Fatalf("queue %d, poison %d; want the request dropped", a, b)
	}
	if _, err := tf.requests.Status(ctx, tf.survey.Tenant, tf.survey.Slug); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("status of a deleted survey: %v", err)
	}
	if got := tf.answerRows(t); !strings.Contains(got, "does not exist") {
		t.Fatalf("the database was written: %s", got)
	}
}

// TestTransferKeepsRequestHidden: a copy that outlasts the visibility
// timeout (held up by a lock in the tenant's database) renews it, so
// another worker does not take the same request meanwhile.
func TestTransferKeepsRequestHidden(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	cfg := transferConfig
	cfg.Visibility = time.Second
	tf := newTransferFixture(t, st, 3, cfg)
	tf.request(t)
	tf.runOnce(t) // the tables exist
	conn, err := pgtest.Admin(ctx, tf.database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE surveys IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	tf.request(t)
	done := make(chan int)
	go func() {
		n, _ := tf.xfer.RunOnce(ctx)
		done <- n
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for tf.status(t).State != store.TransferRunning && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(2500 * time.Millisecond) // past the visibility timeout, twice
	other := worker.NewTransfers(st, tf.tenants, postgres.New(pgtest.Allow), cfg, quiet)
	if n, err := other.RunOnce(ctx); n != 0 || err != nil {
		t.Fatalf("another worker took the request under way: %d, %v", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := <-done; n != 1 {
		t.Fatalf("RunOnce took %d", n)
	}
	if s := tf.status(t); s.State != store.TransferDone || s.Duration < 2*time.Second {
		t.Fatalf("status = %+v; want done after the lock", s)
	}
	if n := queueLen(t, st, store.TransfersQueue); n != 0 {
		t.Fatalf("%d requests left", n)
	}
}

// TestTransferWithoutDatabase: a tenant without a database gets a clear
// status, and the request is not retried.
func TestTransferWithoutDatabase(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	tf := newTransferFixture(t, st, 1, transferConfig)
	tf.tenant.SQLConnection, tf.tenant.SQLPassword = "", ""
	if err := tf.tenants.Update(ctx, tf.tenant); err != nil {
		t.Fatal(err)
	}
	tf.request(t)
	tf.runOnce(t)
	if s := tf.status(t); s.State != store.TransferGaveUp || !strings.Contains(s.Error, "has no database") {
		t.Fatalf("status = %+v", s)
	}
	if n := queueLen(t, st, store.TransfersQueue); n != 0 {
		t.Fatalf("%d requests left", n)
	}
}

// TestTransferStopsOnShutdown: a copy under way when the worker is stopped
// is rolled back, and its request is visible again at once, for another
// worker; the status says it waits.
func TestTransferStopsOnShutdown(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	tf := newTransferFixture(t, st, 3, transferConfig)
	tf.request(t)
	tf.runOnce(t) // the tables exist, with the rows of a first copy
	conn, err := pgtest.Admin(ctx, tf.database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE surveys IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	tf.request(t)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- tf.xfer.Run(wctx) }()
	deadline := time.Now().Add(2 * time.Minute)
	for tf.status(t).State != store.TransferRunning {
		if time.Now().After(deadline) {
			t.Fatal("the copy did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Run did not return on shutdown")
	}
	if s := tf.status(t); s.State != store.TransferRequested {
		t.Fatalf("status after shutdown = %+v", s)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Visible at once: another worker copies it.
	other := worker.NewTransfers(st, tf.tenants, postgres.New(pgtest.Allow), transferConfig, quiet)
	if n, err := other.RunOnce(ctx); n != 1 || err != nil {
		t.Fatalf("the interrupted request: RunOnce = %d, %v", n, err)
	}
	if s := tf.status(t); s.State != store.TransferDone || s.Rows != tf.sqlRows(3) {
		t.Fatalf("status = %+v", s)
	}
}

// blackhole is a database server that accepts connections and never
// answers: an unreachable database as a copy sees it. accepted counts the
// connections it took.
func blackhole(t *testing.T) (addr string, accepted func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// TestTransferUnreachableTenantHoldsBackNoOther: one tenant's database
// accepts connections and never answers. Its copy waits for the connect
// timeout (long here), yet another tenant's copy, requested after it,
// completes meanwhile; the first tenant's second survey is put back, not
// attempted, while its first copy is under way (one copy per tenant).
func TestTransferUnreachableTenantHoldsBackNoOther(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	cfg := transferConfig
	cfg.Concurrency, cfg.BusyWait, cfg.Visibility = 3, 200*time.Millisecond, time.Minute
	cfg.MaxAttempts = 2 // put back more often than this, it is still never given up
	stuck := newTransferFixture(t, st, 2, cfg)
	addr, accepted := blackhole(t)
	stuck.tenant.SQLConnection = "postgres://surveys@" + addr + "/surveys?sslmode=disable"
	if err := stuck.tenants.Update(ctx, stuck.tenant); err != nil {
		t.Fatal(err)
	}
	second := &survey.Survey{Tenant: stuck.tenant.Key, Title: "Second", State: survey.Published, Questions: []survey.Question{{Text: "Say", Type: survey.SimpleText}}}
	if err := store.NewSurveyStore(st).Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	fine := newTransferFixture(t, st, 3, cfg)
	stuck.request(t)
	if err := stuck.requests.Request(ctx, second.Tenant, second.Slug); err != nil {
		t.Fatal(err)
	}
	fine.request(t)

	sql := &postgres.SurveySQLStore{Allow: []netip.Prefix{pgtest.Allow}, ConnectTimeout: 10 * time.Minute}
	xfer := worker.NewTransfers(st, stuck.tenants, sql, cfg, quiet)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- xfer.Run(wctx) }()
	deadline := time.Now().Add(2 * time.Minute) // a bound on a stuck test, not a speed
	for fine.status(t).State != store.TransferDone {
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("the other tenant's copy did not complete while the unreachable one waits: %+v", fine.status(t))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, want := fine.answerRows(t), fmt.Sprintf("%d rows, 3 answers", fine.sqlRows(3)); got != want {
		t.Errorf("the other tenant's database holds %s", got)
	}
	first, err := stuck.requests.Status(ctx, stuck.survey.Tenant, stuck.survey.Slug)
	if err != nil {
		t.Fatal(err)
	}
	other, err := stuck.requests.Status(ctx, second.Tenant, second.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if first.State == store.TransferRunning {
		first, other = other, first
	}
	// Put back more times than its attempts, it still waits its turn.
	for first.Deferred <= cfg.MaxAttempts+1 {
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("the put-back request: %+v", first)
		}
		time.Sleep(50 * time.Millisecond)
		if first, err = stuck.requests.Status(ctx, first.Tenant, first.Slug); err != nil {
			t.Fatal(err)
		}
	}
	// One of the stuck tenant's copies waits on its database; the other
	// was put back, unattempted; one connection was made, not two.
	if other.State != store.TransferRunning || first.State != store.TransferRequested || first.Deferred < 1 || first.Attempt != 0 || accepted() != 1 {
		t.Errorf("stuck tenant: %+v and %+v, %d connections; want one running, one put back, one connection", other, first, accepted())
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not return on shutdown")
	}
	// Both of the stuck tenant's requests are still queued, for later.
	if n := queueLen(t, st, store.TransfersQueue); n != 2 {
		t.Errorf("%d requests queued after shutdown, want 2", n)
	}
}

// transferAlerts records the copies that gave up.
type transferAlerts struct {
	mu  sync.Mutex
	got []string
}

func (a *transferAlerts) TransferGaveUp(_ context.Context, tenant, slug, title, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, tenant+"/"+slug+" "+title+": "+reason)
}

func (a *transferAlerts) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

// TestAdminMailTransferGaveUp: each admin of the tenant (not its editors,
// nor another tenant's admins) gets a message on the mail queue saying
// which survey's copy failed, why, and where to ask again.
func TestAdminMailTransferGaveUp(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	users := store.NewUserStore(st)
	for _, a := range []struct{ tenant, email string }{{"adatum", "ana@adatum.example"}, {"fabrikam", "fred@fabrikam.example"}} {
		if _, err := users.Add(ctx, a.tenant, a.email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	tpl, err := mail.LoadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	admins := worker.AdminMail{Users: users, Outbox: mail.NewOutbox(st, &mail.Config{}), Templates: tpl, PublicURL: "https://surveys.example/", Log: quiet}
	admins.TransferGaveUp(ctx, "adatum", "team-lunch", "Team lunch", `The database refused the password of user "surveys".`)
	msgs, err := st.PeekMessages(ctx, store.MailQueue, 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("%d messages queued, want 1 (Adatum's one admin)", len(msgs))
	}
	var m mail.Message
	if err := json.Unmarshal(msgs[0].Data, &m); err != nil {
		t.Fatal(err)
	}
	if m.To != "ana@adatum.example" || !strings.Contains(m.Subject, "Team lunch") || !strings.Contains(m.Text, "refused the password") ||
		!strings.Contains(m.Text, "https://surveys.example/adatum/surveys/team-lunch/analyze#transfer") {
		t.Fatalf("the message: %+v", m)
	}
}

// TestAdminMailWebhookDisabled: each admin of the endpoint's tenant gets a
// message (text and HTML) saying which endpoint was disabled and why, with
// a signed link that turns the alerts off; an admin who turned them off,
// an editor and another tenant's admins get nothing.
func TestAdminMailWebhookDisabled(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	users, subs := store.NewUserStore(st), store.NewNotificationStore(st)
	for _, a := range []struct {
		tenant, email string
		role          survey.Role
	}{{"adatum", "ana@adatum.example", survey.Admin}, {"adatum", "al@adatum.example", survey.Admin}, {"adatum", "ed@adatum.example", survey.Editor}, {"fabrikam", "fred@fabrikam.example", survey.Admin}} {
		if _, err := users.AddMember(ctx, a.tenant, a.email, "correct horse battery", a.role); err != nil {
			t.Fatal(err)
		}
	}
	if err := subs.SetAlerts(ctx, "adatum", "al@adatum.example", false); err != nil {
		t.Fatal(err)
	}
	tpl, err := mail.LoadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	admins := worker.AdminMail{Users: users, Outbox: mail.NewOutbox(st, &mail.Config{}), Templates: tpl, Notifications: subs, UnsubscribeKey: key, PublicURL: "https://surveys.example/", Log: quiet}
	admins.Disabled(ctx, &store.WebhookEndpoint{Tenant: "adatum", URL: "https://hooks.example/<in>", DisabledReason: "every delivery failed for a day"})
	msgs, err := st.PeekMessages(ctx, store.MailQueue, 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("%d messages queued, want 1 (Adatum's one admin who did not turn the alerts off)", len(msgs))
	}
	var m mail.Message
	if err := json.Unmarshal(msgs[0].Data, &m); err != nil {
		t.Fatal(err)
	}
	if m.To != "ana@adatum.example" || !strings.Contains(m.Subject, "disabled") || !strings.Contains(m.Text, "every delivery failed for a day") ||
		!strings.Contains(m.Text, "https://surveys.example/adatum/settings/webhooks") || !strings.Contains(m.HTML, "https://hooks.example/&lt;in&gt;") {
		t.Fatalf("the message: %+v", m)
	}
	i := strings.Index(m.Text, "https://surveys.example/unsubscribe/")
	if i < 0 {
		t.Fatalf("no unsubscribe link:\n%s", m.Text)
	}
	tok := strings.Fields(m.Text[i+len("https://surveys.example/unsubscribe/"):])[0]
	u, err := survey.ParseUnsubscribe(key, tok)
	if err != nil || u != (survey.Unsubscribe{Tenant: "adatum", Email: "ana@adatum.example", What: survey.NotifyAlerts}) {
		t.Fatalf("the link: %+v, %v", u, err)
	}
	// The link turns them off: the next alert goes to no one.
	if err := subs.Unsubscribe(ctx, u, time.Now()); err != nil {
		t.Fatal(err)
	}
	drainQueue(t, st, store.MailQueue)
	admins.TransferGaveUp(ctx, "adatum", "team-lunch", "Team lunch", "refused")
	if n, _ := st.ApproximateCount(ctx, store.MailQueue); n != 0 {
		t.Fatalf("%d alerts queued after both admins turned them off", n)
	}
}
