package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SurveyStore is what the handlers need of the survey store.
type SurveyStore interface {
	List(ctx context.Context, tenant string) ([]*survey.Survey, error)
	Get(ctx context.Context, tenant, slug string) (*survey.Survey, error)
}

// TenantStore is what the handlers need of the tenant store.
type TenantStore interface {
	List(ctx context.Context) ([]*survey.Tenant, error)
	Get(ctx context.Context, key string) (*survey.Tenant, error)
}

// Pinger checks that storage is reachable.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are the server's dependencies.
type Deps struct {
	Logger  *slog.Logger
	Surveys SurveyStore
	Tenants TenantStore
	Storage Pinger
	// Public serves survey definitions to respondents, cached.
	Public   PublicSurveys
	Notifier AnswerNotifier
	// Users and Summaries serve the subscriber site.
	Users     Users
	Summaries Summaries
	Editor    SurveyEditor
	Reader    AnswerReader
	// Remover deletes single answers (spam).
	Remover AnswerRemover
	Tokens  Tokens
	// TenantAdmin and Accounts serve on-boarding.
	TenantAdmin TenantAdmin
	Accounts    AccountAdder
	// Regions are where a new tenant may keep its data; none offers no
	// choice.
	Regions []string
	// Logos serves the tenant's logo.
	Logos Logos
	// Themes sets the surveys' own themes (designer_theme.go); nil: Editor, when
	// it does.
	Themes SurveyThemes

	// SignInKey, TenantSettings, PublicURL and Outbound serve the tenant's
	// own identity provider: the key that seals the cookie of a sign-in
	// under way (nil: a random key of this process, so that a sign-in
	// finishes only on the instance that started it), the settings page,
	// the base of the redirect URL ("" derives it from each request), and
	// the guarded client for calls to providers (nil: one that reaches
	// globally routable addresses only).
	SignInKey      *secret.Box
	TenantSettings TenantSettings
	PublicURL      string
	Outbound       *outbound.Client
	// SAML keeps the tenants' SAML identity providers (account_saml.go); nil
	// offers no SAML sign-in.
	SAML SAMLProviders

	// Views counts survey page views; Ranks and Home read the ranked lists
	// (respond_views.go). Each may be nil.
	Views ViewCounter
	Ranks Ranks
	Home  HomeLists
	// Metrics serves /metrics; nil serves 404. MetricsAllow are the
	// networks it answers to (checked on the connection's address; nil is
	// DefaultMetricsAllow, loopback only); others get 403.
	Metrics      http.Handler
	MetricsAllow []netip.Prefix

	// Databases and Transfers serve the tenant's own SQL database: its
	// settings page, and copies of a survey's answers into it. Either may
	// be nil (no such pages).
	Databases Databases
	Transfers Transfers

	// Webhooks keeps the tenants' webhook endpoints (the webhooks page)
	// and queues survey.* events when a survey is published or closed;
	// nil: no such page, no events. Its URLs are checked with Outbound.
	Webhooks Webhooks

	// Limits bound anonymous writes per client address (ratelimit.go); the
	// zero value limits nothing.
	Limits Limits
	// FormKey signs survey forms' tokens and challenges (respond_formtoken.go):
	// the same on every instance; nil makes a key for this process only.
	FormKey []byte
	// Mail queues e-mail (password resets, invitations); nil: e-mail is
	// off, and the pages that need it say so.
	Mail Mailer
	// Verifier keeps whether members' addresses are proven: with e-mail
	// on, a sign-up's is not until it opens the link mailed to it, and
	// its organisation mails nobody else before (nil: no such check).
	Verifier Verifier
	// MailQuota counts the e-mails a tenant's members send to others
	// (invitations, personal links) against its plan's quotas
	// (store.MailQuotaStore); nil counts nothing.
	MailQuota MailQuota
	// Links makes and redeems single-use links (password resets,
	// invitations).
	Links Links
	// Members keeps the tenant's accounts and roles (the members page,
	// invitations); nil takes them from Users when it keeps them.
	Members Members
	// PersonalLinks are the personal links of surveys that take one
	// answer per link; Answers reads a link's earlier answer, to change
	// it. Either may be nil (no personal links; no earlier answer shown).
	PersonalLinks PersonalLinks
	Answers       AnswerGetter
	// Contacts keeps the tenants' contact lists; Campaigns their
	// campaigns (share_contacts.go, share_campaigns.go). CampaignKey derives the
	// campaigns' personal links and signs their unsubscribe links: the
	// same on every instance and across restarts (derived from the secret
	// key); without it, campaigns are off.
	Contacts    Contacts
	Campaigns   Campaigns
	CampaignKey []byte
	// Resume keeps the progress respondents of multi-page surveys save to
	// finish later; nil offers no saving.
	Resume ResumeStore
	// Partials keeps the progress of respondents of surveys that keep
	// partial answers (store.PartialStore); nil keeps none.
	Partials PartialStore
	// Uploads keeps the files respondents send to file upload questions
	// (respond_upload.go); nil: such questions take no file.
	Uploads Uploads
	// Quotas counts the answers in surveys' quota cells (respond_quota.go); nil:
	// a store.QuotaStore over Storage.
	Quotas Quotas
	// Segments keeps the surveys' saved segments (nil: a
	// store.SavedSegmentStore over Storage, when it is a storage).
	Segments SavedSegments

	// Notifications keeps the members' e-mail choices (the survey's
	// notifications page, the account's failure alerts, unsubscribe
	// links); nil: no such pages. UnsubscribeKey checks the unsubscribe
	// links' signatures (the same key as the workers that make them).
	Notifications  Notifications
	UnsubscribeKey []byte
	// ReceiptKey signs respondents' receipt codes (respond_receipt.go): derived
	// from the secret key, the same on every instance; nil: no survey
	// may give receipts. Privacy sets a survey's retention rule and
	// receipts (nil: Surveys, when it can).
	ReceiptKey []byte
	Privacy    SurveyPrivacy

	// TwoFactor keeps the members' two-step sign-in (account_twofactor.go); nil
	// takes it from Users when it keeps it.
	TwoFactor TwoFactors

	// Audit keeps the tenants' audit logs (settings_audit.go); nil: a
	// store.AuditStore over Storage, when it is a storage.
	Audit AuditLog

	// Domains keeps the tenants' custom domains (nil: a
	// store.DomainStore over Storage, when it is a storage); they are
	// served only when PublicURL is set (it names the main host).
	// DomainCheck configures the proofs of control.
	Domains     Domains
	DomainCheck DomainCheck
	// SCIM keeps the tenants' SCIM directories and SCIMTokens their SCIM
	// tokens (settings_scim.go: the service at /scim/v2 and its settings page);
	// nil: store ones over Storage, when it is a storage.
	SCIM       SCIMDirectory
	SCIMTokens SCIMTokens

	// Clock tells the time to the form tokens, the two-step sign-in and
	// the audit log (nil: time.Now); tests move it.
	Clock func() time.Time
}

// Server holds the handlers' dependencies and the parsed templates.
type Server struct {
	log      *slog.Logger
	surveys  SurveyStore
	tenants  TenantStore
	storage  Pinger
	public   PublicSurveys
	notifier AnswerNotifier
	users    Users
	editor   SurveyEditor
	reader   AnswerReader
	remover  AnswerRemover
	// settling counts the links settleLater waits on.
	settling    atomic.Int64
	tokens      Tokens
	tenantAdmin TenantAdmin
	accounts    AccountAdder
	summaries   Summaries
	logos       Logos
	themes      SurveyThemes
	regions     []string
	metrics     http.Handler
	viewCounter ViewCounter
	ranks       Ranks
	homeLists   HomeLists
	views       *views
	forms       forms
	accepted    prometheus.Counter
	http        *httpMetrics

	// The tenant's own identity provider.
	signIns        *signInCookies
	tenantSettings TenantSettings
	publicURL      string
	oidc           *providers
	// saml keeps the tenants' SAML providers; samlReplay the assertions
	// accepted.
	saml       SAMLProviders
	samlReplay *replayCache

	// The tenant's own SQL database.
	databases Databases
	transfers Transfers

	// Webhooks, and the guarded client that checks their URLs.
	webhooks    Webhooks
	hooksClient *outbound.Client

	limit  limiters
	signer *formSigner
	// pageStates seal the answers of a multi-page survey's other pages
	// (respond_pagestate.go); resume keeps saved progress (nil: none).
	pageStates *pageSealer
	resume     ResumeStore
	partials   PartialStore
	uploads    Uploads
	quotas     Quotas
	segments   SavedSegments
	// previews sign preview links and seal unsaved previews (designer_preview.go).
	previews *previewLinks
	// signInThrottle counts sign-ins per client address (their second
	// steps too).
	signInThrottle *addrThrottle
	// twoFactor keeps two-step sign-in (nil: none); steps seal what a
	// browser carries between its steps.
	twoFactor TwoFactors
	steps     *stepTokens
	// passkeys keeps the members' passkeys, webauthn is the relying party
	// of the public URL (account_passkeys.go); either nil: no passkeys.
	passkeys Passkeys
	webauthn *webauthn.WebAuthn
	// mail is nil when e-mail is off; links are the single-use links.
	// results are the rendered public results pages (respond_results.go).
	results       *lrucache.Cache[string, []byte]
	mail          Mailer
	mailQuota     MailQuota
	verifier      Verifier
	mailRefused   *prometheus.CounterVec
	mailTemplates *mail.Templates
	links         Links
	// members are the tenants' accounts and roles.
	members Members
	// personal are the personal links; answerGet reads one answer.
	personal  PersonalLinks
	answerGet AnswerGetter
	// contacts, campaigns and campaignKey: see Deps.
	contacts    Contacts
	campaigns   Campaigns
	campaignKey []byte
	// notifications are the members' e-mail choices; unsubscribeKey
	// checks unsubscribe links.
	notifications  Notifications
	unsubscribeKey []byte
	receiptKey     []byte
	privacy        SurveyPrivacy
	// trustedProxies are the proxies whose X-Forwarded-For names the client.
	trustedProxies []netip.Prefix
	// background is the work left to run after a page answered (reset
	// mails); resetsInFlight counts the reset lookups running.
	background     sync.WaitGroup
	resetsInFlight atomic.Int64
	// auditLog is the tenants' audit logs (nil: nothing is audited);
	// clock is Deps.Clock.
	auditLog AuditLog
	// autosaved bounds the designer's autosave's survey.edited events
	// (auditAutosave).
	autosaved autosaveNotes
	clock     func() time.Time
	// domains route custom domains and build links on them (nil: none).
	domains *domainRouting
	// scimDir and scimTokens serve SCIM provisioning (nil: none).
	scimDir    SCIMDirectory
	scimTokens SCIMTokens
	// scimPerToken is Limits.SCIMPerToken.
	scimPerToken int
}

// Collectors returns the web server's metrics, to register.
func (s *Server) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{s.accepted, s.mailRefused}, s.http.collectors()...)
}

// New parses the templates (failing on a missing or broken one) and returns
// the server.
func New(d Deps) (*Server, error) {
	v, err := loadViews()
	if err != nil {
		return nil, err
	}
	mt, err := mail.LoadTemplates()
	if err != nil {
		return nil, err
	}
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	if d.Metrics != nil {
		allow := d.MetricsAllow
		if allow == nil {
			allow = DefaultMetricsAllow
		}
		d.Metrics = metricsGuard(allow, d.Metrics)
	}
	signIns, err := newSignInCookies(d.SignInKey)
	if err != nil {
		return nil, err
	}
	if d.Mail != nil && strings.TrimSuffix(d.PublicURL, "/") == "" {
		return nil, errNoPublicURL
	}
	s := &Server{log: log, surveys: d.Surveys, tenants: d.Tenants, storage: d.Storage, metrics: d.Metrics, views: v,
		public: d.Public, notifier: d.Notifier, users: d.Users, editor: withForget(d.Editor, d.Public), reader: d.Reader, remover: d.Remover, tokens: d.Tokens, tenantAdmin: d.TenantAdmin, accounts: d.Accounts, summaries: d.Summaries,
		logos: d.Logos, regions: d.Regions,
		signIns: signIns, tenantSettings: withTenantForget(d.TenantSettings, d.Public), publicURL: strings.TrimSuffix(d.PublicURL, "/"), oidc: newProviders(d.Outbound),
		viewCounter: d.Views, ranks: d.Ranks, homeLists: d.Home,
		databases: d.Databases, transfers: d.Transfers,
		accepted: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_answers_accepted_total", Help: "Answers stored, queued and acknowledged to respondents."}),
		http:     newHTTPMetrics(), forms: newForms(), signInThrottle: newAddrThrottle(), trustedProxies: d.Limits.TrustedProxies,
		mail: d.Mail, mailTemplates: mt, links: d.Links, results: newResultsCache(), mailQuota: d.MailQuota, verifier: d.Verifier,
		mailRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "surveys_mail_refused_total",
			Help: "E-mails to others a tenant's members (or a respondent, for a copy of their answers) asked for and the server refused, by reason (quota_tenant, quota_recipient, unverified, copy_sent, copy_addresses)."}, []string{"reason"})}
	s.webhooks, s.hooksClient = d.Webhooks, d.Outbound
	s.saml, s.samlReplay = d.SAML, newReplayCache()
	if s.hooksClient == nil {
		s.hooksClient = outbound.New(outbound.Config{})
	}
	s.editor = withEvents(s.editor, d.Webhooks, log)
	s.members = d.Members
	s.themes = d.Themes
	if th, ok := d.Editor.(SurveyThemes); ok && s.themes == nil {
		s.themes = th
	}
	s.notifications, s.unsubscribeKey = d.Notifications, d.UnsubscribeKey
	s.personal, s.answerGet = d.PersonalLinks, d.Answers
	s.receiptKey, s.privacy = d.ReceiptKey, d.Privacy
	if p, ok := d.Surveys.(SurveyPrivacy); ok && s.privacy == nil {
		s.privacy = p
	}
	s.contacts, s.campaigns, s.campaignKey = d.Contacts, d.Campaigns, d.CampaignKey
	if m, ok := d.Users.(Members); ok && s.members == nil {
		s.members = m
	}
	s.limit = s.newLimiters(d.Limits)
	s.signer = newFormSigner(d.FormKey, d.Clock)
	s.pageStates, s.resume, s.uploads, s.partials = newPageSealer(s.signer.key), d.Resume, d.Uploads, d.Partials
	s.previews = newPreviewLinks(s.signer.key)
	s.twoFactor, s.steps = d.TwoFactor, newStepTokens(s.signer.key, d.Clock)
	if tf, ok := d.Users.(TwoFactors); ok && s.twoFactor == nil {
		s.twoFactor = tf
	}
	if pk, ok := d.Users.(Passkeys); ok && s.twoFactor != nil {
		s.passkeys, s.webauthn = pk, newRelyingParty(s.publicURL)
	}
	s.quotas, s.segments = d.Quotas, d.Segments
	if st, ok := d.Storage.(storage.Storage); ok {
		if s.quotas == nil {
			s.quotas = store.NewQuotaStore(st)
		}
		if s.segments == nil {
			s.segments = store.NewSavedSegmentStore(st)
		}
	}
	s.auditLog, s.clock = d.Audit, d.Clock
	if st, ok := d.Storage.(storage.Storage); ok && s.auditLog == nil {
		s.auditLog = store.NewAuditStore(st)
	}
	if st, ok := d.Storage.(storage.Storage); ok && d.Domains == nil {
		d.Domains = store.NewDomainStore(st)
	}
	s.domains = newDomainRouting(d.Domains, s.publicURL, d.DomainCheck, d.Clock)
	s.scimDir, s.scimTokens, s.scimPerToken = d.SCIM, d.SCIMTokens, d.Limits.SCIMPerToken
	if st, ok := d.Storage.(storage.Storage); ok {
		if s.scimDir == nil {
			s.scimDir = store.NewSCIMStore(st)
		}
		if s.scimTokens == nil {
			s.scimTokens = store.NewSCIMTokenStore(st)
		}
	}
	return s, nil
}
