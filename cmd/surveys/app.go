package main

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/metrics"
	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/postgres"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/worker"
)

// Main is the running server: a test boots it on :0 with a TempDir.
type Main struct {
	cfg Config
	log *slog.Logger

	// Storage counts every storage operation of the process.
	Storage *counting.Store

	// ProviderRoots, when set before Run, are the certificate authorities
	// the calls to the tenants' identity providers trust instead of the
	// system's: a test sets its provider's. The calls go through the
	// guarded outbound client either way.
	ProviderRoots *x509.CertPool

	ln      net.Listener
	srv     *http.Server
	srvDone chan error
	// web is the HTTP side, whose background work (reset mails) Close
	// waits for after the server stops.
	web *web.Server

	stopWorker context.CancelFunc
	workerDone chan error
	workers    int

	// Mail queues e-mail for the mail worker; nil when e-mail is off
	// (its Enqueue then returns mail.ErrNotConfigured). Set by Run.
	Mail *mail.Outbox

	// views counts survey page views in memory; stopViews makes it flush
	// once more and return on viewsDone.
	views     *store.ViewCounter
	stopViews context.CancelFunc
	viewsDone chan error
}

// NewMain returns a Main that logs to logOut.
func NewMain(cfg Config, logOut io.Writer) *Main {
	var h slog.Handler = slog.NewTextHandler(logOut, nil)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(logOut, nil)
	}
	return &Main{cfg: cfg, log: slog.New(h)}
}

// Run opens the storage, prepares it, and starts serving. It returns once
// the server listens.
func (m *Main) Run(ctx context.Context) error {
	st, err := openStorage(m.cfg)
	if err != nil {
		return err
	}
	m.Storage = counting.New(st)
	if err := store.Init(ctx, m.Storage); err != nil {
		return err
	}
	if m.cfg.Seed {
		created, err := store.Seed(ctx, m.Storage)
		if err != nil {
			return err
		}
		if created {
			m.log.Info("created the demo tenants", "tenants", "adatum, fabrikam")
		}
	}
	if err := worker.Init(ctx, m.Storage); err != nil {
		return err
	}
	box, err := m.cfg.Secrets()
	if err != nil {
		return err
	}
	surveys, tenants, answers := store.NewSurveyStore(m.Storage), store.NewTenantStore(m.Storage).WithSecrets(box), store.NewSurveyAnswerStore(m.Storage)
	if box == nil {
		m.log.Info("no SURVEYS_SECRET_KEY: survey forms are signed with a key of this process, so a form opened before a restart, or served by another instance, is sent back once (answers kept)")
	}
	if err := tenants.CheckSecrets(ctx); err != nil {
		return fmt.Errorf("tenants' secrets: %w", err)
	}
	ranks := store.NewRankingStore(m.Storage)
	if err := m.backfillRanks(ctx, tenants, ranks); err != nil {
		return err
	}
	if n, err := store.IndexEmails(ctx, m.Storage); err != nil {
		return fmt.Errorf("index the accounts by email: %w", err)
	} else if n > 0 {
		m.log.Info("indexed the accounts by email, for sign-in by email", "accounts", n)
	}
	m.views = store.NewViewCounter(m.Storage, 5*time.Second)
	if len(m.cfg.SQLAllow) > len(m.cfg.AllowPrivate) {
		m.log.Warn("--sql-allow (SURVEYS_SQL_ALLOW) is deprecated: use --allow-private (SURVEYS_ALLOW_PRIVATE), which covers identity providers too")
	}
	sqlStore := postgres.New(m.cfg.SQLAllow...)
	reg := metrics.New(m.Storage)
	reg.Register(metrics.NewQueueCollector(m.Storage, []string{store.AnswersQueue, store.PremiumAnswersQueue,
		worker.PoisonQueue, store.TransfersQueue, store.TransfersPoisonQueue, store.ViewsQueue, store.MailQueue, store.MailPoisonQueue, store.WebhooksQueue, store.WebhooksPoisonQueue}))
	// The workers' metrics are registered only where they run, so that a
	// web-only instance (--worker=false) has no surveys_worker_* series
	// for an alert on a stuck worker to fire on.
	wm := worker.NewMetrics()
	// The workers poll empty queues seldom; what this instance queues
	// wakes its own worker at once. The notifier writes at most
	// notifierParallel answer messages at once; the answers that arrive
	// meanwhile share the next message (its enqueue, and the worker's
	// delete of it).
	notifier, transfers := store.NewNotifier(answers, notifierParallel), store.NewSurveyTransferStore(m.Storage)
	var w *worker.Worker
	var vw *worker.Views
	var tw *worker.Transfers
	var sw *worker.Segments
	var mw *worker.Mail
	var hw *worker.Webhooks
	// Webhooks: endpoints sealed with the secret key; events queued by the
	// web (survey.*) and the answers worker (response.created).
	hooks := store.NewWebhookStore(m.Storage).WithSecrets(box)
	hooks.TestsPerMinute = m.cfg.WebhookTestsPerMinute
	hooks.PublicURL = m.cfg.PublicURL
	users := store.NewUserStore(m.Storage)
	if m.cfg.PasswordCost > 0 {
		users.WithCost(m.cfg.PasswordCost)
	}
	m.Mail = mail.NewOutbox(m.Storage, m.cfg.Mail)
	// The members' e-mail choices: shared by the pages and the workers,
	// so that a change here drops the workers' cached copy at once. The
	// unsubscribe links of their e-mails are signed with a key derived
	// from the secret key (without one, of this process: links then stop
	// working at a restart).
	notifications := store.NewNotificationStore(m.Storage)
	unsubscribeKey := box.DeriveKey(unsubscribePurpose)
	if unsubscribeKey == nil {
		unsubscribeKey = make([]byte, 32)
		if _, err := rand.Read(unsubscribeKey); err != nil {
			return err
		}
	}
	var nw *worker.Notify
	if m.cfg.Mail == nil {
		m.log.Info("e-mail is off: no --smtp-url (SURVEYS_SMTP_URL); pages that send e-mail say it is not set up")
	} else {
		m.log.Info("e-mail on", "smtp", m.cfg.Mail.String())
	}
	if m.cfg.Worker {
		w = worker.New(m.Storage, worker.DefaultConfig, m.log, wm)
		// Surveys answered before segments existed get them built.
		sw = worker.NewSegments(m.Storage, m.log)
		w.Behind = sw.Need
		vw = worker.NewViews(m.Storage, worker.DefaultViewsConfig, m.log)
		tw = worker.NewTransfers(m.Storage, tenants, sqlStore, worker.DefaultTransferConfig, m.log)
		notifier.Queued, m.views.Flushed, transfers.Requested = w.WakeFor, vw.Wake, tw.Wake
		if m.Mail != nil {
			mw = worker.NewMail(m.Storage, mail.NewSender(*m.cfg.Mail), worker.DefaultMailConfig, m.log)
			m.Mail.Queued = mw.Wake
		}
		// Deliveries go through the guarded client, which follows no
		// redirect (a receiver that moved answers 3xx: a failure to see).
		hookClient := outbound.New(outbound.Config{Allow: m.cfg.AllowPrivate, RootCAs: m.ProviderRoots, MaxRedirects: -1})
		hcfg := worker.DefaultWebhookConfig
		hcfg.Parallel, hcfg.Share = m.cfg.WebhookSlots, m.cfg.WebhookSlotsPerTenant
		hw = worker.NewWebhooks(m.Storage, hooks, hookClient.HTTP(), hcfg, m.log)
		mt, err := mail.LoadTemplates()
		if err != nil {
			return err
		}
		admins := worker.AdminMail{Users: users, Outbox: m.Mail, Templates: mt, Notifications: notifications, UnsubscribeKey: unsubscribeKey, PublicURL: m.cfg.PublicURL, Log: m.log}
		if m.Mail != nil {
			// parseServe refused e-mail without a public URL: every
			// mailed link starts with it.
			nw = worker.NewNotify(m.Storage, notifications, m.Mail, mt, unsubscribeKey, m.cfg.PublicURL, worker.DefaultNotifyConfig, m.log)
			w.Notify = nw
		}
		hw.Alert = admins
		tw.Alert = admins
		hooks.Queued = hw.Wake
		w.Webhooks = hooks
	}
	deps := web.Deps{
		Logger:      m.log,
		Surveys:     surveys,
		Tenants:     tenants,
		Storage:     m.Storage,
		Public:      store.NewCachedSurveys(surveys, tenants, 5*time.Second),
		Notifier:    notifier,
		Users:       users,
		Members:     users,
		Summaries:   store.NewSurveyAnswersSummaryStore(m.Storage),
		Editor:      store.NewPlanGuard(surveys, tenants),
		Reader:      answers,
		Remover:     answers,
		Tokens:      store.NewTokenStore(m.Storage),
		TenantAdmin: tenants,
		Accounts:    users,
		Regions:     m.cfg.RegionNames(),
		Logos:       store.NewLogoStore(m.Storage),
		Views:       m.views,
		Ranks:       ranks,
		Home:        store.NewCachedHome(ranks, 5, 5*time.Second),
		Metrics:     reg.Handler(), // registered below, before the first scrape

		// Who may read /metrics (the connection's address).
		MetricsAllow: m.cfg.MetricsAllow,

		// The tenant's own identity provider.
		SignInKey:      box.Derive("oidc-sign-in"),
		TenantSettings: tenants,
		PublicURL:      m.cfg.PublicURL,
		Outbound:       outbound.New(outbound.Config{Allow: m.cfg.AllowPrivate, RootCAs: m.ProviderRoots, MaxBody: web.ProviderMaxBody}),

		// The tenant's own SQL database.
		Databases: sqlStore,
		Transfers: transfers,

		Limits: m.cfg.Limits,
		// Survey forms' tokens are signed with a key derived from the
		// secret key, the same on every instance; without one, each
		// process makes its own (one instance only).
		FormKey: box.DeriveKey("survey form tokens"),

		// Password resets and invitations, and the quotas of the e-mails
		// to others.
		MailQuota:     store.NewMailQuotaStore(m.Storage, m.cfg.MailQuota),
		Verifier:      users,
		Links:         store.NewLinkStore(m.Storage),
		PersonalLinks: store.NewPersonalLinkStore(m.Storage),
		Answers:       answers,

		Webhooks: hooks,
		// E-mail notifications of answers, and their unsubscribe links.
		Notifications:  notifications,
		UnsubscribeKey: unsubscribeKey,
		// Progress respondents of multi-page surveys save to finish later.
		Resume: store.NewResumeStore(m.Storage),
	}
	if m.Mail != nil {
		deps.Mail = m.Mail
	}
	srv, err := web.New(deps)
	if err != nil {
		return err
	}
	m.web = srv
	reg.Register(srv.Collectors()...)
	vctx, stopViews := context.WithCancel(context.Background())
	m.stopViews, m.viewsDone = stopViews, make(chan error, 1)
	go func() { m.viewsDone <- m.views.Run(vctx) }()
	if m.cfg.Worker {
		wctx, cancel := context.WithCancel(context.Background())
		m.stopWorker = cancel
		m.workerDone = make(chan error, 7)
		reg.Register(wm.Collectors()...)
		reg.Register(vw.Collectors()...)
		reg.Register(tw.Collectors()...)
		reg.Register(sw.Collectors()...)
		reg.Register(hw.Collectors()...)
		m.workers = 5
		go func() { m.workerDone <- w.Run(wctx) }()
		go func() { m.workerDone <- vw.Run(wctx) }()
		go func() { m.workerDone <- tw.Run(wctx) }()
		go func() { m.workerDone <- sw.Run(wctx) }()
		go func() { m.workerDone <- hw.Run(wctx) }()
		if mw != nil {
			reg.Register(mw.Collectors()...)
			m.workers++
			go func() { m.workerDone <- mw.Run(wctx) }()
		}
		if nw != nil {
			reg.Register(nw.Collectors()...)
			m.workers++
			go func() { m.workerDone <- nw.Run(wctx) }()
		}
	}
	m.ln, err = net.Listen("tcp", m.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", m.cfg.Addr, err)
	}
	m.srv = &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
	}
	m.srvDone = make(chan error, 1)
	go func() { m.srvDone <- m.srv.Serve(m.ln) }()
	m.log.Info("serving", "addr", m.ln.Addr().String(), "storage", m.cfg.Storage)
	return nil
}

// notifierParallel is how many answer messages an instance writes at once.
// Two rather than four: at 64 respondents at once a message then carries
// about twice as many answers (the load run: queue operations per answer
// 0.18-0.23 instead of 0.35-0.40), with no loss of throughput; one
// serialises every enqueue behind the slowest (at 500 answers/s on the
// embedded store the answers then waited seconds).
const notifierParallel = 2

// unsubscribePurpose derives the key of the notification e-mails'
// unsubscribe links from the secret key.
const unsubscribePurpose = "unsubscribe links"

// maxHeaderBytes bounds a request's header lines (Go's default is 1 MB):
// cookies, a long URL and the usual headers fit.
const maxHeaderBytes = 64 << 10

// backfillRanks ranks the surveys of a store made before ranked lists were
// kept (once per store).
func (m *Main) backfillRanks(ctx context.Context, tenants *store.TenantStore, ranks *store.RankingStore) error {
	all, err := tenants.List(ctx)
	if err != nil {
		return err
	}
	n, err := ranks.Backfill(ctx, all)
	if err != nil {
		return fmt.Errorf("rank the surveys: %w", err)
	}
	if n > 0 {
		m.log.Info("ranked the surveys made before ranked lists", "surveys", n)
	}
	return nil
}

// Addr is the address the server listens on.
func (m *Main) Addr() string { return m.ln.Addr().String() }

// Close stops the server (letting requests finish), flushes the views
// counted in memory, stops the workers, then closes storage.
func (m *Main) Close() error {
	var errs []error
	if m.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.ShutdownWait)
		defer cancel()
		if err := m.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shutdown: %w", err))
		}
		if err := <-m.srvDone; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		if err := m.web.Wait(ctx); err != nil {
			errs = append(errs, fmt.Errorf("background work: %w", err))
		}
	}
	if m.stopViews != nil {
		// The views counted in memory go to the queue.
		m.stopViews()
		if err := <-m.viewsDone; err != nil {
			errs = append(errs, fmt.Errorf("views: %w", err))
		}
	}
	if m.stopWorker != nil {
		// The workers finish the batch in hand, then return.
		m.stopWorker()
		for i := 0; i < m.workers; i++ {
			if err := <-m.workerDone; err != nil {
				errs = append(errs, fmt.Errorf("worker: %w", err))
			}
		}
	}
	if m.Storage != nil {
		if err := m.Storage.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close storage: %w", err))
		}
	}
	return errors.Join(errs...)
}

// openStorage opens the configured storage: one account, or a home
// account and one per region, placed by tenant.
func openStorage(cfg Config) (storage.Storage, error) {
	home, err := openAccount(cfg, cfg.AzureConnectionString, cfg.AzureAccount, filepath.Join(cfg.Data, "surveys.db"))
	if err != nil || len(cfg.Regions) == 0 {
		return home, err
	}
	regions := map[string]storage.Storage{}
	for _, r := range cfg.Regions {
		st, err := openAccount(cfg, r.ConnectionString, r.Account, filepath.Join(cfg.Data, "regions", r.Name+".db"))
		if err != nil {
			_ = home.Close()
			for _, o := range regions {
				_ = o.Close()
			}
			return nil, fmt.Errorf("region %s: %w", r.Name, err)
		}
		regions[r.Name] = st
	}
	return store.NewPlacement(home, regions), nil
}

func openAccount(cfg Config, connectionString, account, file string) (storage.Storage, error) {
	switch cfg.Storage {
	case "azure":
		return azure.New(azure.Config{ConnectionString: connectionString, AccountName: account})
	default:
		if err := os.MkdirAll(filepath.Dir(file), 0o750); err != nil {
			return nil, fmt.Errorf("data folder: %w", err)
		}
		return local.Open(file)
	}
}
