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
	"github.com/surveys-dev/surveys/internal/secret"
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
	if err := m.prepareStorage(ctx); err != nil {
		return err
	}
	s, err := m.newServices(ctx)
	if err != nil {
		return err
	}
	var ws *workers
	if m.cfg.Worker {
		if ws, err = m.newWorkers(s); err != nil {
			return err
		}
	}
	srv, err := web.New(m.webDeps(s))
	if err != nil {
		return err
	}
	m.web = srv
	s.reg.Register(srv.Collectors()...)
	m.startViews()
	if ws != nil {
		m.startWorkers(ws, s.reg)
	}
	return m.serve(srv.Handler())
}

// prepareStorage opens the configured storage, counted (m.Storage, which
// Close closes), creates its tables, containers and queues, and the demo
// tenants with --seed.
func (m *Main) prepareStorage(ctx context.Context) error {
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
	return worker.Init(ctx, m.Storage)
}

// services are the stores and the parts the pages and the workers share,
// made once the storage is ready.
type services struct {
	box       *secret.Box // nil without a secret key
	surveys   *store.SurveyStore
	tenants   *store.TenantStore
	answers   *store.SurveyAnswerStore
	ranks     *store.RankingStore
	sqlStore  *postgres.SurveySQLStore
	reg       *metrics.Registry
	notifier  *store.Notifier
	transfers *store.SurveyTransferStore
	hooks     *store.WebhookStore
	// domains: the tenants' custom domains, one store (and one cache of
	// the verified hosts) for the pages, the events and the campaigns.
	domains        *store.DomainStore
	users          *store.UserStore
	notifications  *store.NotificationStore
	unsubscribeKey []byte
	// contacts and campaigns: the tenants' contact lists and campaigns;
	// campaignKey derives the campaigns' links and signs their
	// unsubscribe links (nil without a secret key: campaigns are off).
	contacts    *store.ContactStore
	campaigns   *store.CampaignStore
	campaignKey []byte
}

// campaignConfig is the campaigns worker's configuration: the default,
// with the operator's lease (a config built in a test may have none).
func campaignConfig(c Config) worker.CampaignConfig {
	cc := worker.DefaultCampaignConfig
	if c.CampaignLease > 0 {
		cc.Lease = c.CampaignLease
	}
	return cc
}

// newServices makes the stores over m.Storage, checks the tenants'
// secrets and brings the stored data up to date (checkStores), and makes
// the view counter (m.views) and the outbox (m.Mail). It says in the log
// what runs without a secret key and whether e-mail is on.
func (m *Main) newServices(ctx context.Context) (*services, error) {
	box, err := m.cfg.Secrets()
	if err != nil {
		return nil, err
	}
	s := &services{box: box, surveys: store.NewSurveyStore(m.Storage), tenants: store.NewTenantStore(m.Storage).WithSecrets(box), answers: store.NewSurveyAnswerStore(m.Storage)}
	if box == nil {
		m.log.Info("no SURVEYS_SECRET_KEY: survey forms are signed with a key of this process, so a form opened before a restart, or served by another instance, is sent back once (answers kept)")
	}
	if err := m.checkStores(ctx, s); err != nil {
		return nil, err
	}
	m.views = store.NewViewCounter(m.Storage, 5*time.Second)
	if len(m.cfg.SQLAllow) > len(m.cfg.AllowPrivate) {
		m.log.Warn("--sql-allow (SURVEYS_SQL_ALLOW) is deprecated: use --allow-private (SURVEYS_ALLOW_PRIVATE), which covers identity providers too")
	}
	s.sqlStore = postgres.New(m.cfg.SQLAllow...)
	s.reg = metrics.New(m.Storage)
	s.reg.Register(metrics.NewQueueCollector(m.Storage, []string{store.AnswersQueue, store.PremiumAnswersQueue,
		worker.PoisonQueue, store.TransfersQueue, store.TransfersPoisonQueue, store.ViewsQueue, store.MailQueue, store.MailPoisonQueue, store.WebhooksQueue, store.WebhooksPoisonQueue, store.CampaignsQueue}))
	// The workers poll empty queues seldom; what this instance queues
	// wakes its own worker at once. The notifier writes at most
	// notifierParallel answer messages at once; the answers that arrive
	// meanwhile share the next message (its enqueue, and the worker's
	// delete of it).
	s.notifier, s.transfers = store.NewNotifier(s.answers, notifierParallel), store.NewSurveyTransferStore(m.Storage)
	// Webhooks: endpoints sealed with the secret key; events queued by the
	// web (survey.*) and the answers worker (response.created).
	s.hooks = store.NewWebhookStore(m.Storage).WithSecrets(box)
	s.hooks.TestsPerMinute = m.cfg.WebhookTestsPerMinute
	s.hooks.PublicURL = m.cfg.PublicURL
	s.domains = store.NewDomainStore(m.Storage)
	if m.cfg.PublicURL != "" {
		// Custom domains are served only with a public URL (it names
		// the main host): only then do survey.* events link to them.
		s.hooks.Domains = s.domains
	}
	// Accounts: the authenticator secrets of two-step sign-in sealed with
	// the secret key (without one it cannot be turned on).
	s.users = store.NewUserStore(m.Storage).WithSecrets(box)
	if m.cfg.PasswordCost > 0 {
		s.users.WithCost(m.cfg.PasswordCost)
	}
	m.Mail = mail.NewOutbox(m.Storage, m.cfg.Mail)
	// The members' e-mail choices: shared by the pages and the workers,
	// so that a change here drops the workers' cached copy at once.
	s.notifications = store.NewNotificationStore(m.Storage)
	if s.unsubscribeKey, err = unsubscribeKey(box); err != nil {
		return nil, err
	}
	s.contacts, s.campaigns = store.NewContactStore(m.Storage), store.NewCampaignStore(m.Storage)
	if box != nil {
		s.campaignKey = s.unsubscribeKey
	}
	if m.cfg.Mail == nil {
		m.log.Info("e-mail is off: no --smtp-url (SURVEYS_SMTP_URL); pages that send e-mail say it is not set up")
	} else {
		m.log.Info("e-mail on", "smtp", m.cfg.Mail.String())
	}
	return s, nil
}

// checkStores checks that the tenants' secrets open with the secret key,
// and brings data stored by earlier versions up to date: the surveys
// ranked (backfillRanks) and the accounts indexed by e-mail, each once per
// store.
func (m *Main) checkStores(ctx context.Context, s *services) error {
	if err := s.tenants.CheckSecrets(ctx); err != nil {
		return fmt.Errorf("tenants' secrets: %w", err)
	}
	s.ranks = store.NewRankingStore(m.Storage)
	if err := m.backfillRanks(ctx, s.tenants, s.ranks); err != nil {
		return err
	}
	if n, err := store.IndexEmails(ctx, m.Storage); err != nil {
		return fmt.Errorf("index the accounts by email: %w", err)
	} else if n > 0 {
		m.log.Info("indexed the accounts by email, for sign-in by email", "accounts", n)
	}
	return nil
}

// unsubscribeKey returns the key the unsubscribe links of the members'
// e-mails are signed with: derived from the secret key (box), or without
// one, of this process (links then stop working at a restart).
func unsubscribeKey(box *secret.Box) ([]byte, error) {
	key := box.DeriveKey(unsubscribePurpose)
	if key == nil {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// workers are the background workers of an instance that runs them
// (--worker), made and wired to what wakes them, not started.
type workers struct {
	// metrics are the answers worker's, registered only where it runs.
	metrics   *worker.Metrics
	answers   *worker.Worker
	views     *worker.Views
	transfers *worker.Transfers
	segments  *worker.Segments
	webhooks  *worker.Webhooks
	uploads   *worker.UploadSweeper
	audit     *worker.AuditRetention
	retention *worker.AnswerRetention
	partials  *worker.Promoter
	mail      *worker.Mail      // nil when e-mail is off
	campaigns *worker.Campaigns // nil when e-mail or the secret key is off
	notify    *worker.Notify    // nil when e-mail is off
}

// newWorkers makes the workers over s: what this instance queues wakes
// its own worker at once (the notifier, the view counter, the transfers,
// the outbox and the webhooks), the answers worker hands surveys without
// segments to the segment builder and queues webhooks and e-mails of new
// answers, and the transfers and webhooks workers alert the admins.
func (m *Main) newWorkers(s *services) (*workers, error) {
	// The workers' metrics are registered only where they run, so that a
	// web-only instance (--worker=false) has no surveys_worker_* series
	// for an alert on a stuck worker to fire on.
	ws := &workers{metrics: worker.NewMetrics()}
	ws.answers = worker.New(m.Storage, worker.DefaultConfig, m.log, ws.metrics)
	// Surveys answered before segments existed get them built.
	ws.segments = worker.NewSegments(m.Storage, m.log)
	ws.uploads = worker.NewUploadSweeper(m.Storage, worker.DefaultSweepConfig, m.log)
	ws.partials = worker.NewPromoter(m.Storage, m.log)
	ws.audit = worker.NewAuditRetention(m.Storage, worker.RetentionConfig{Keep: time.Duration(m.cfg.AuditRetentionDays) * 24 * time.Hour}, m.log)
	ws.retention = worker.NewAnswerRetention(m.Storage, worker.AnswerRetentionConfig{Every: time.Duration(m.cfg.AnswerRetentionMinutes) * time.Minute}, m.log)
	ws.answers.Behind = ws.segments.Need
	ws.views = worker.NewViews(m.Storage, worker.DefaultViewsConfig, m.log)
	ws.transfers = worker.NewTransfers(m.Storage, s.tenants, s.sqlStore, worker.DefaultTransferConfig, m.log)
	s.notifier.Queued, m.views.Flushed, s.transfers.Requested = ws.answers.WakeFor, ws.views.Wake, ws.transfers.Wake
	if m.Mail != nil {
		ws.mail = worker.NewMail(m.Storage, mail.NewSender(*m.cfg.Mail), worker.DefaultMailConfig, m.log)
		m.Mail.Queued = ws.mail.Wake
	}
	// Deliveries go through the guarded client, which follows no
	// redirect (a receiver that moved answers 3xx: a failure to see).
	hookClient := outbound.New(outbound.Config{Allow: m.cfg.AllowPrivate, RootCAs: m.ProviderRoots, MaxRedirects: -1})
	hcfg := worker.DefaultWebhookConfig
	hcfg.Parallel, hcfg.Share = m.cfg.WebhookSlots, m.cfg.WebhookSlotsPerTenant
	ws.webhooks = worker.NewWebhooks(m.Storage, s.hooks, hookClient.HTTP(), hcfg, m.log)
	mt, err := mail.LoadTemplates()
	if err != nil {
		return nil, err
	}
	admins := worker.AdminMail{Users: s.users, Outbox: m.Mail, Templates: mt, Notifications: s.notifications, UnsubscribeKey: s.unsubscribeKey, PublicURL: m.cfg.PublicURL, Log: m.log}
	if m.Mail != nil {
		// parseServe refused e-mail without a public URL: every
		// mailed link starts with it.
		ws.notify = worker.NewNotify(m.Storage, s.notifications, m.Mail, mt, s.unsubscribeKey, m.cfg.PublicURL, worker.DefaultNotifyConfig, m.log)
		ws.answers.Notify = ws.notify
	}
	if m.Mail != nil && s.campaignKey != nil {
		ws.campaigns = worker.NewCampaigns(worker.CampaignDeps{Storage: m.Storage, Campaigns: s.campaigns, Contacts: s.contacts, Links: store.NewPersonalLinkStore(m.Storage),
			Quota: store.NewMailQuotaStore(m.Storage, m.cfg.MailQuota), Tenants: s.tenants, Surveys: s.surveys, Send: mail.NewSender(*m.cfg.Mail), Templates: mt,
			Key: s.campaignKey, PublicURL: m.cfg.PublicURL, Domains: s.domains}, campaignConfig(m.cfg), m.log)
		s.campaigns.Queued = ws.campaigns.Wake
	}
	ws.webhooks.Alert = admins
	ws.transfers.Alert = admins
	s.hooks.Queued = ws.webhooks.Wake
	ws.answers.Webhooks = s.hooks
	return ws, nil
}

// webDeps returns what the pages use: the stores of s, the outbound
// client to the tenants' identity providers, and the keys derived from
// the secret key.
func (m *Main) webDeps(s *services) web.Deps {
	deps := web.Deps{
		Logger:      m.log,
		Surveys:     s.surveys,
		Tenants:     s.tenants,
		Storage:     m.Storage,
		Public:      store.NewCachedSurveys(s.surveys, s.tenants, 5*time.Second),
		Notifier:    s.notifier,
		Users:       s.users,
		Members:     s.users,
		Summaries:   store.NewSurveyAnswersSummaryStore(m.Storage),
		Editor:      store.NewPlanGuard(s.surveys, s.tenants),
		Reader:      s.answers,
		Remover:     s.answers,
		Uploads:     store.NewUploadStore(m.Storage),
		Quotas:      store.NewQuotaStore(m.Storage),
		SCIM:        store.NewSCIMStore(m.Storage),
		SCIMTokens:  store.NewSCIMTokenStore(m.Storage),
		Tokens:      store.NewTokenStore(m.Storage),
		TenantAdmin: s.tenants,
		Accounts:    s.users,
		Regions:     m.cfg.RegionNames(),
		Logos:       store.NewLogoStore(m.Storage),
		Views:       m.views,
		Ranks:       s.ranks,
		Home:        store.NewCachedHome(s.ranks, 5, 5*time.Second),
		Metrics:     s.reg.Handler(), // registered in Run, before the first scrape

		// Who may read /metrics (the connection's address).
		MetricsAllow: m.cfg.MetricsAllow,

		// The tenant's own identity provider.
		SignInKey:      s.box.Derive("oidc-sign-in"),
		TenantSettings: s.tenants,
		PublicURL:      m.cfg.PublicURL,
		Outbound:       outbound.New(outbound.Config{Allow: m.cfg.AllowPrivate, RootCAs: m.ProviderRoots, MaxBody: web.ProviderMaxBody, Resolver: web.NewResolver(m.cfg.DNSResolver)}),
		// Custom domains: routed by Host, proved by DNS or an HTTP token.
		DomainCheck: web.DomainCheck{Resolver: m.cfg.DNSResolver},
		Domains:     s.domains,
		// SAML 2.0 providers: their service provider keys are sealed with the box.
		SAML: store.NewSAMLStore(m.Storage).WithSecrets(s.box),

		// The tenant's own SQL database.
		Databases: s.sqlStore,
		Transfers: s.transfers,

		Limits: m.cfg.Limits,
		// Survey forms' tokens are signed with a key derived from the
		// secret key, the same on every instance; without one, each
		// process makes its own (one instance only).
		FormKey: s.box.DeriveKey("survey form tokens"),
		// Respondents' receipt codes are MACs with a key derived from the
		// secret key; without one, no survey gives receipts.
		ReceiptKey: s.box.DeriveKey("answer receipts"),

		// Password resets and invitations, and the quotas of the e-mails
		// to others.
		MailQuota:     store.NewMailQuotaStore(m.Storage, m.cfg.MailQuota),
		Verifier:      s.users,
		Links:         store.NewLinkStore(m.Storage),
		PersonalLinks: store.NewPersonalLinkStore(m.Storage),
		Answers:       s.answers,

		Webhooks: s.hooks,
		// E-mail notifications of answers, and their unsubscribe links.
		Notifications:  s.notifications,
		UnsubscribeKey: s.unsubscribeKey,
		// Contact lists and campaigns.
		Contacts:    s.contacts,
		Campaigns:   s.campaigns,
		CampaignKey: s.campaignKey,
		// Progress respondents of multi-page surveys save to finish later.
		Resume:   store.NewResumeStore(m.Storage),
		Partials: store.NewPartialStore(m.Storage),
	}
	if m.Mail != nil {
		deps.Mail = m.Mail
	}
	return deps
}

// startViews starts the view counter's flushes to the views queue until
// Close stops it.
func (m *Main) startViews() {
	vctx, stopViews := context.WithCancel(context.Background())
	m.stopViews, m.viewsDone = stopViews, make(chan error, 1)
	go func() { m.viewsDone <- m.views.Run(vctx) }()
}

// startWorkers registers the workers' metrics with reg and starts them
// until Close stops them; Close waits for m.workers of them.
func (m *Main) startWorkers(ws *workers, reg *metrics.Registry) {
	wctx, cancel := context.WithCancel(context.Background())
	m.stopWorker = cancel
	m.workerDone = make(chan error, 12)
	reg.Register(ws.metrics.Collectors()...)
	reg.Register(ws.views.Collectors()...)
	reg.Register(ws.transfers.Collectors()...)
	reg.Register(ws.segments.Collectors()...)
	reg.Register(ws.webhooks.Collectors()...)
	reg.Register(ws.uploads.Collectors()...)
	reg.Register(ws.audit.Collectors()...)
	reg.Register(ws.retention.Collectors()...)
	m.workers = 9
	go func() { m.workerDone <- ws.answers.Run(wctx) }()
	go func() { m.workerDone <- ws.views.Run(wctx) }()
	go func() { m.workerDone <- ws.transfers.Run(wctx) }()
	go func() { m.workerDone <- ws.segments.Run(wctx) }()
	go func() { m.workerDone <- ws.webhooks.Run(wctx) }()
	go func() { m.workerDone <- ws.uploads.Run(wctx) }()
	go func() { m.workerDone <- ws.partials.Run(wctx) }()
	go func() { m.workerDone <- ws.audit.Run(wctx) }()
	go func() { m.workerDone <- ws.retention.Run(wctx) }()
	if ws.mail != nil {
		reg.Register(ws.mail.Collectors()...)
		m.workers++
		go func() { m.workerDone <- ws.mail.Run(wctx) }()
	}
	if ws.campaigns != nil {
		reg.Register(ws.campaigns.Collectors()...)
		m.workers++
		go func() { m.workerDone <- ws.campaigns.Run(wctx) }()
	}
	if ws.notify != nil {
		reg.Register(ws.notify.Collectors()...)
		m.workers++
		go func() { m.workerDone <- ws.notify.Run(wctx) }()
	}
}

// serve listens on the configured address and serves h until Close.
func (m *Main) serve(h http.Handler) error {
	var err error
	m.ln, err = net.Listen("tcp", m.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", m.cfg.Addr, err)
	}
	m.srv = &http.Server{
		Handler:           h,
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
// embedded store the answers then waited seconds). Measured again with
// the load run at 64 (3 interleaved runs each): 2, 4 and 8 gave
// real/trivial 0.53, 0.50, 0.53 and 409, 428, 453 µs of server CPU an
// answer; more slots cut the wait for a slot (11 to 7 ms an answer) but
// the smaller messages cost the CPU they save.
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
