package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/worker"
)

// Config is the server's configuration, from flags with environment twins.
// It is parsed here only and passed down as plain values.
type Config struct {
	Addr    string // SURVEYS_ADDR
	Data    string // SURVEYS_DATA: the folder of the embedded store
	Storage string // SURVEYS_STORAGE: "local" or "azure"
	// AzureConnectionString selects an Azure (or Azurite) account
	// (AZURE_STORAGE_CONNECTION_STRING).
	AzureConnectionString string
	// AzureAccount selects an account by name with Azure's default
	// credential, e.g. a VM's managed identity (AZURE_STORAGE_ACCOUNT).
	AzureAccount string
	Worker       bool   // SURVEYS_WORKER
	LogFormat    string // SURVEYS_LOG_FORMAT: "text" or "json"
	Seed         bool   // SURVEYS_SEED: create the demo tenants on an empty store
	ShutdownWait time.Duration
	// PasswordCost is the bcrypt cost of the passwords the server hashes;
	// 0 is bcrypt's default. No flag sets it: the tests take the lowest,
	// since under the race detector a default hash costs about a second.
	PasswordCost int
	// SecretKey seals tenants' secrets (SURVEYS_SECRET_KEY, environment
	// only, so it never shows in a process list), or SecretKeyFile names a
	// file that holds it (SURVEYS_SECRET_KEY_FILE).
	SecretKey     string
	SecretKeyFile string
	// Regions are the storage accounts tenants may choose at on-boarding
	// (SURVEYS_REGIONS, comma-separated names). With the embedded store a
	// region is the file <data>/regions/<name>.db; with Azure its account
	// is AZURE_STORAGE_CONNECTION_STRING_<NAME> or AZURE_STORAGE_ACCOUNT_<NAME>.
	Regions []Region
	// PublicURL is the scheme and host the browsers reach the server at
	// (SURVEYS_PUBLIC_URL), for the redirect URL of tenants' identity
	// providers and every link in e-mails (required when Mail is set);
	// empty derives the links only shown on pages from each request.
	PublicURL string
	// AllowPrivate are the private or local networks that the addresses
	// tenants name (identity providers, their own databases) may be on
	// (SURVEYS_ALLOW_PRIVATE, CIDR ranges separated by commas); globally
	// routable addresses are always allowed.
	AllowPrivate []netip.Prefix
	// DNSResolver is the DNS server (host:port) asked about tenants'
	// custom domains (their TXT records, the address of their HTTP
	// token) and the other names tenants give (SURVEYS_DNS_RESOLVER;
	// empty: the system's resolver).
	DNSResolver string
	// SQLAllow are the ranges the transfers to tenants' own databases may
	// reach: AllowPrivate and those of the deprecated --sql-allow
	// (SURVEYS_SQL_ALLOW), which still concerns databases only.
	SQLAllow []netip.Prefix
	// MetricsAllow are the networks /metrics answers to, checked on the
	// connection's address, never X-Forwarded-For (SURVEYS_METRICS_ALLOW,
	// CIDR ranges separated by commas; default loopback only).
	MetricsAllow []netip.Prefix
	// Limits bound anonymous writes per client address: answers per minute
	// (SURVEYS_ANSWERS_PER_MINUTE), sign-ups per hour
	// (SURVEYS_SIGNUPS_PER_HOUR), sign-ins per minute
	// (SURVEYS_SIGNINS_PER_MINUTE), 0 for none; and the reverse proxies
	// whose X-Forwarded-For names the client (SURVEYS_TRUSTED_PROXIES).
	Limits web.Limits
	// MailQuota limits the e-mails a tenant's members send to others
	// (invitations, personal links), per plan (SURVEYS_MAIL_PER_HOUR …).
	MailQuota store.MailQuota
	// WebhookSlots is how many webhook deliveries run at once
	// (SURVEYS_WEBHOOK_SLOTS), WebhookSlotsPerTenant the most of them one
	// tenant holds (SURVEYS_WEBHOOK_SLOTS_PER_TENANT), WebhookTestsPerMinute
	// the test events one endpoint may be sent a minute
	// (SURVEYS_WEBHOOK_TESTS_PER_MINUTE).
	WebhookSlots, WebhookSlotsPerTenant, WebhookTestsPerMinute int
	// AuditRetentionDays is how long the tenants' audit events are kept
	// (SURVEYS_AUDIT_RETENTION_DAYS); 0 keeps them for ever.
	AuditRetentionDays int
	// AnswerRetentionMinutes is the wait between passes of the answer
	// retention worker, which deletes answers past their survey's
	// retention rule (SURVEYS_ANSWER_RETENTION_MINUTES).
	AnswerRetentionMinutes int
	// CampaignLease is how long the campaigns worker holds a step and its
	// claims on contacts' mails (SURVEYS_CAMPAIGN_LEASE): after an
	// instance dies, another takes its campaign over once this runs out.
	CampaignLease time.Duration
	// GCPercent is the garbage collector's target (runtime/debug's
	// SetGCPercent) when GOGC is not set (SURVEYS_GC_PERCENT), and
	// MemoryLimitMiB its soft memory limit in MiB when GOMEMLIMIT is not
	// set (SURVEYS_MEMORY_LIMIT_MIB, 0 for none); see gc.go.
	GCPercent      int
	MemoryLimitMiB int
	// Mail is where e-mail is sent from (SURVEYS_SMTP_URL,
	// SURVEYS_SMTP_PASSWORD or SURVEYS_SMTP_PASSWORD_FILE,
	// SURVEYS_MAIL_FROM), loaded and checked by parseServe; nil when no
	// SMTP URL is set: e-mail is off.
	Mail *mail.Config
}

// Region is one region's storage account.
type Region struct {
	Name             string
	ConnectionString string
	Account          string
}

// Secrets returns the box for the configured key, nil when there is none.
func (c Config) Secrets() (*secret.Box, error) {
	return secret.Load(c.SecretKey, c.SecretKeyFile)
}

// parseServe is the configuration that args and the environment give,
// for the operator's commands that open the server's storage.
func parseServe(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	return parseServeCommand(args, getenv, stderr, stderr)
}

// parseServeCommand is parseServe for "surveys serve": its help goes to
// stdout.
func parseServeCommand(args []string, getenv func(string) string, stdout, stderr io.Writer) (Config, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	envInt := func(name string, def int) int {
		if v, err := strconv.Atoi(getenv(name)); err == nil {
			return v
		}
		return def
	}
	// envDuration: a value that is not a duration is -1, which the
	// flag's check refuses with what to write.
	envDuration := func(name string, def time.Duration) time.Duration {
		v := getenv(name)
		if v == "" {
			return def
		}
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
		return -1
	}
	envBool := func(name string, def bool) bool {
		if v, err := strconv.ParseBool(getenv(name)); err == nil {
			return v
		}
		return def
	}
	defStorage := "local"
	if getenv("AZURE_STORAGE_CONNECTION_STRING") != "" || getenv("AZURE_STORAGE_ACCOUNT") != "" {
		defStorage = "azure"
	}
	var c Config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Addr, "addr", env("SURVEYS_ADDR", ":8080"), "listen address (SURVEYS_ADDR)")
	fs.StringVar(&c.Data, "data", env("SURVEYS_DATA", "data"), "data folder of the embedded store (SURVEYS_DATA)")
	fs.StringVar(&c.Storage, "storage", env("SURVEYS_STORAGE", defStorage), "storage backend: local or azure (SURVEYS_STORAGE)")
	fs.StringVar(&c.AzureConnectionString, "azure-connection-string", getenv("AZURE_STORAGE_CONNECTION_STRING"), "Azure Storage connection string (AZURE_STORAGE_CONNECTION_STRING)")
	fs.StringVar(&c.AzureAccount, "azure-account", getenv("AZURE_STORAGE_ACCOUNT"), "Azure Storage account name, with the default Azure credential (AZURE_STORAGE_ACCOUNT)")
	fs.BoolVar(&c.Worker, "worker", envBool("SURVEYS_WORKER", true), "run the worker in this process (SURVEYS_WORKER)")
	fs.StringVar(&c.LogFormat, "log-format", env("SURVEYS_LOG_FORMAT", "text"), "log format: text or json (SURVEYS_LOG_FORMAT)")
	fs.BoolVar(&c.Seed, "seed", envBool("SURVEYS_SEED", true), "create the demo tenants Adatum and Fabrikam on an empty store (SURVEYS_SEED)")
	fs.StringVar(&c.SecretKeyFile, "secret-key-file", getenv("SURVEYS_SECRET_KEY_FILE"), "file holding the key that seals tenants' secrets (SURVEYS_SECRET_KEY_FILE; or set SURVEYS_SECRET_KEY)")
	fs.StringVar(&c.PublicURL, "public-url", getenv("SURVEYS_PUBLIC_URL"), "the scheme and host browsers reach this server at, e.g. https://surveys.example.com, for identity providers' redirect URLs and every link in e-mails; required with --smtp-url (SURVEYS_PUBLIC_URL; empty: pages shown build links from each request, and e-mail is refused)")
	c.SecretKey = getenv("SURVEYS_SECRET_KEY")
	allowPrivate := fs.String("allow-private", getenv("SURVEYS_ALLOW_PRIVATE"), "private or local networks the identity providers and databases tenants name may be on, CIDR ranges separated by commas, e.g. 10.0.0.0/8 (SURVEYS_ALLOW_PRIVATE; empty: globally routable addresses only)")
	fs.StringVar(&c.DNSResolver, "dns-resolver", getenv("SURVEYS_DNS_RESOLVER"), "the DNS server, host:port, asked about the names tenants give: their custom domains' TXT records and addresses, identity providers (SURVEYS_DNS_RESOLVER; empty: the system's resolver)")
	sqlAllow := fs.String("sql-allow", getenv("SURVEYS_SQL_ALLOW"), "deprecated: like --allow-private, for tenants' own databases only (SURVEYS_SQL_ALLOW)")
	metricsAllow := fs.String("metrics-allow", env("SURVEYS_METRICS_ALLOW", "127.0.0.0/8,::1/128"), "networks /metrics answers to, CIDR ranges separated by commas, checked on the connecting address (a proxy's X-Forwarded-For is not trusted) (SURVEYS_METRICS_ALLOW)")
	regions := fs.String("regions", getenv("SURVEYS_REGIONS"), "regions tenants may keep their data in, comma-separated, e.g. westeurope,eastus (SURVEYS_REGIONS)")
	fs.IntVar(&c.Limits.Answers, "answers-per-minute", envInt("SURVEYS_ANSWERS_PER_MINUTE", web.DefaultLimits.Answers), "answers one client address may post per minute, 0 for no limit (SURVEYS_ANSWERS_PER_MINUTE)")
	fs.IntVar(&c.Limits.Onboardings, "signups-per-hour", envInt("SURVEYS_SIGNUPS_PER_HOUR", web.DefaultLimits.Onboardings), "sign-ups (on-boarding forms) one client address may post per hour, 0 for no limit (SURVEYS_SIGNUPS_PER_HOUR)")
	fs.IntVar(&c.Limits.SignIns, "signins-per-minute", envInt("SURVEYS_SIGNINS_PER_MINUTE", web.DefaultLimits.SignIns), "sign-in attempts one client address may make per minute, 0 for no limit (SURVEYS_SIGNINS_PER_MINUTE)")
	fs.IntVar(&c.Limits.CopiesPerSurvey, "copies-per-survey-hour", envInt("SURVEYS_COPIES_PER_SURVEY_HOUR", web.DefaultLimits.CopiesPerSurvey), "copies of their answers one survey's respondents may ask to be e-mailed per hour, 0 for no limit (SURVEYS_COPIES_PER_SURVEY_HOUR)")
	fs.IntVar(&c.Limits.SCIMPerToken, "scim-per-minute", envInt("SURVEYS_SCIM_PER_MINUTE", web.DefaultLimits.SCIMPerToken), "requests one SCIM token (a tenant's identity provider) may make per minute, 0 for no limit (SURVEYS_SCIM_PER_MINUTE)")
	fs.IntVar(&c.Limits.Receipts, "receipts-per-hour", envInt("SURVEYS_RECEIPTS_PER_HOUR", web.DefaultLimits.Receipts), "receipt codes one client address may try per hour (to see or delete an answer), 0 for no limit (SURVEYS_RECEIPTS_PER_HOUR)")
	fs.IntVar(&c.Limits.CopiesPerAddress, "copies-per-address-hour", envInt("SURVEYS_COPIES_PER_ADDRESS_HOUR", web.DefaultLimits.CopiesPerAddress), "copies of answers one e-mail address may be sent per hour, from any survey, 0 for no limit (SURVEYS_COPIES_PER_ADDRESS_HOUR)")
	trusted := fs.String("trusted-proxies", getenv("SURVEYS_TRUSTED_PROXIES"), "reverse proxies whose X-Forwarded-For names the client, for the rate limits: addresses or CIDR ranges separated by commas, e.g. 127.0.0.1,::1 (SURVEYS_TRUSTED_PROXIES; empty: X-Forwarded-For is ignored)")
	var ms mail.Settings
	fs.StringVar(&ms.URL, "smtp-url", getenv("SURVEYS_SMTP_URL"), "SMTP server outgoing e-mail goes through: smtps://user@host:465 (TLS), smtp://user@host:587 (STARTTLS, required), or smtp://host:25?tls=none for a relay on this machine or network; the password is never in the URL but in SURVEYS_SMTP_PASSWORD or the file --smtp-password-file names (SURVEYS_SMTP_URL; empty: e-mail is off)")
	fs.StringVar(&ms.PasswordFile, "smtp-password-file", getenv("SURVEYS_SMTP_PASSWORD_FILE"), "file holding the SMTP password (SURVEYS_SMTP_PASSWORD_FILE; or set SURVEYS_SMTP_PASSWORD)")
	fs.StringVar(&ms.From, "mail-from", getenv("SURVEYS_MAIL_FROM"), "sender of the e-mail, e.g. \"Surveys <surveys@example.com>\" (SURVEYS_MAIL_FROM; empty: surveys@ the --public-url's host, or this machine's name)")
	ms.Password = getenv("SURVEYS_SMTP_PASSWORD")
	q := store.DefaultMailQuota
	fs.IntVar(&c.MailQuota.Paid.PerHour, "mail-per-hour", envInt("SURVEYS_MAIL_PER_HOUR", q.Paid.PerHour), "e-mails to others (invitations, personal links) a tenant on a paid plan may send an hour (SURVEYS_MAIL_PER_HOUR)")
	fs.IntVar(&c.MailQuota.Paid.PerDay, "mail-per-day", envInt("SURVEYS_MAIL_PER_DAY", q.Paid.PerDay), "e-mails to others a tenant on a paid plan may send a day (SURVEYS_MAIL_PER_DAY)")
	fs.IntVar(&c.MailQuota.Trial.PerHour, "trial-mail-per-hour", envInt("SURVEYS_TRIAL_MAIL_PER_HOUR", q.Trial.PerHour), "e-mails to others a tenant on the Trial plan may send an hour (SURVEYS_TRIAL_MAIL_PER_HOUR)")
	fs.IntVar(&c.MailQuota.Trial.PerDay, "trial-mail-per-day", envInt("SURVEYS_TRIAL_MAIL_PER_DAY", q.Trial.PerDay), "e-mails to others a tenant on the Trial plan may send a day (SURVEYS_TRIAL_MAIL_PER_DAY)")
	perRecipient := fs.Int("mail-per-recipient", envInt("SURVEYS_MAIL_PER_RECIPIENT", q.Paid.PerRecipient), "e-mails one address may get from one tenant a day (SURVEYS_MAIL_PER_RECIPIENT)")
	hw := worker.DefaultWebhookConfig
	fs.IntVar(&c.WebhookSlots, "webhook-slots", envInt("SURVEYS_WEBHOOK_SLOTS", hw.Parallel), "webhook deliveries at once (SURVEYS_WEBHOOK_SLOTS)")
	fs.IntVar(&c.WebhookSlotsPerTenant, "webhook-slots-per-tenant", envInt("SURVEYS_WEBHOOK_SLOTS_PER_TENANT", hw.Share), "the most of them one tenant holds (SURVEYS_WEBHOOK_SLOTS_PER_TENANT)")
	fs.IntVar(&c.WebhookTestsPerMinute, "webhook-tests-per-minute", envInt("SURVEYS_WEBHOOK_TESTS_PER_MINUTE", store.DefaultTestsPerMinute), "test events one webhook endpoint may be sent a minute (SURVEYS_WEBHOOK_TESTS_PER_MINUTE)")
	fs.IntVar(&c.AuditRetentionDays, "audit-retention-days", envInt("SURVEYS_AUDIT_RETENTION_DAYS", int(worker.DefaultRetentionConfig.Keep/(24*time.Hour))), "days the tenants' audit events are kept; 0 keeps them for ever (SURVEYS_AUDIT_RETENTION_DAYS)")
	fs.IntVar(&c.AnswerRetentionMinutes, "answer-retention-minutes", envInt("SURVEYS_ANSWER_RETENTION_MINUTES", int(worker.DefaultAnswerRetentionConfig.Every/time.Minute)), "minutes between passes that delete answers past their survey's retention rule (SURVEYS_ANSWER_RETENTION_MINUTES)")
	fs.DurationVar(&c.CampaignLease, "campaign-lease", envDuration("SURVEYS_CAMPAIGN_LEASE", worker.DefaultCampaignConfig.Lease), "how long an instance holds a campaign step and its claims on contacts' mails; another instance takes over a dead one's once it runs out (SURVEYS_CAMPAIGN_LEASE, 10s to 1h)")
	fs.IntVar(&c.GCPercent, "gc-percent", envInt("SURVEYS_GC_PERCENT", defaultGCPercent), "the garbage collector's target, as GOGC: the heap may grow this many percent over what is live before a collection; ignored when GOGC is set (SURVEYS_GC_PERCENT, 25 to 1000)")
	fs.IntVar(&c.MemoryLimitMiB, "memory-limit-mib", envInt("SURVEYS_MEMORY_LIMIT_MIB", defaultMemoryLimitMiB), "soft memory limit of the Go heap and runtime in MiB, as GOMEMLIMIT: the collector runs more often near it; ignored when GOMEMLIMIT is set (SURVEYS_MEMORY_LIMIT_MIB, 0 for none)")
	fs.DurationVar(&c.ShutdownWait, "shutdown-wait", 10*time.Second, "how long to wait for requests to finish on shutdown")
	err := parseFlags(fs, "[flags]", args, stdout)
	if err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, usagef("serve: unexpected arguments %v", fs.Args())
	}
	if c.AllowPrivate, err = outbound.ParseAllow(*allowPrivate); err != nil {
		return Config{}, fmt.Errorf("serve: --allow-private (SURVEYS_ALLOW_PRIVATE): %w", err)
	}
	sql, err := outbound.ParseAllow(*sqlAllow)
	if err != nil {
		return Config{}, fmt.Errorf("serve: --sql-allow (SURVEYS_SQL_ALLOW): %w", err)
	}
	c.SQLAllow = append(append([]netip.Prefix(nil), c.AllowPrivate...), sql...)
	if c.MetricsAllow, err = outbound.ParseAllow(*metricsAllow); err != nil {
		return Config{}, fmt.Errorf("serve: --metrics-allow (SURVEYS_METRICS_ALLOW): %w", err)
	}
	if c.MetricsAllow == nil {
		c.MetricsAllow = []netip.Prefix{} // none: /metrics answers no one
	}
	if c.Limits.TrustedProxies, err = outbound.ParseAllow(*trusted); err != nil {
		return Config{}, fmt.Errorf("serve: --trusted-proxies (SURVEYS_TRUSTED_PROXIES): %w", err)
	}
	for _, name := range strings.Split(*regions, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		env := strings.ToUpper(name)
		c.Regions = append(c.Regions, Region{Name: name,
			ConnectionString: getenv("AZURE_STORAGE_CONNECTION_STRING_" + env), Account: getenv("AZURE_STORAGE_ACCOUNT_" + env)})
	}
	c.MailQuota.Paid.PerRecipient, c.MailQuota.Trial.PerRecipient = *perRecipient, *perRecipient
	if err := c.MailQuota.Validate(); err != nil {
		return Config{}, fmt.Errorf("serve: --mail-per-hour, --mail-per-day, --trial-mail-per-hour, --trial-mail-per-day, --mail-per-recipient: %w", err)
	}
	if c.AuditRetentionDays < 0 {
		return Config{}, fmt.Errorf("serve: --audit-retention-days must be 0 (keep for ever) or more")
	}
	if c.AnswerRetentionMinutes < 1 {
		return Config{}, fmt.Errorf("serve: --answer-retention-minutes must be 1 or more")
	}
	if c.CampaignLease < 10*time.Second || c.CampaignLease > time.Hour {
		return Config{}, fmt.Errorf("serve: --campaign-lease (SURVEYS_CAMPAIGN_LEASE) must be from 10s to 1h, such as 5m")
	}
	if c.GCPercent < 25 || c.GCPercent > 1000 {
		return Config{}, fmt.Errorf("serve: --gc-percent (SURVEYS_GC_PERCENT) must be from 25 to 1000, such as %d", defaultGCPercent)
	}
	if c.MemoryLimitMiB < 0 || c.MemoryLimitMiB > 1<<30 {
		return Config{}, fmt.Errorf("serve: --memory-limit-mib (SURVEYS_MEMORY_LIMIT_MIB) must be 0 (none) or a number of MiB, such as %d", defaultMemoryLimitMiB)
	}
	if c.WebhookSlots < 1 || c.WebhookSlotsPerTenant < 1 || c.WebhookSlotsPerTenant > c.WebhookSlots || c.WebhookTestsPerMinute < 1 {
		return Config{}, fmt.Errorf("serve: --webhook-slots, --webhook-slots-per-tenant (at most --webhook-slots) and --webhook-tests-per-minute must be at least 1")
	}
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	if u, err := url.Parse(c.PublicURL); err == nil && c.PublicURL != "" {
		ms.DefaultHost = u.Hostname()
	}
	if c.Mail, err = mail.Load(ms); err != nil {
		return Config{}, fmt.Errorf("serve: %w", err)
	}
	if c.Mail != nil && c.PublicURL == "" {
		return Config{}, errMailWithoutPublicURL
	}
	return c, nil
}

// errMailWithoutPublicURL refuses e-mail without a public URL: the links
// mailed (password resets, invitations, personal links, notifications)
// are built from the public URL alone, never from a request's Host, which
// whoever sends the request writes.
var errMailWithoutPublicURL = errors.New("serve: e-mail is on (--smtp-url, SURVEYS_SMTP_URL) but --public-url (SURVEYS_PUBLIC_URL) is not set: " +
	"the links in e-mails are built from it alone, never from a request's Host; set it to the address browsers reach this server at, such as https://surveys.example.com")

func (c Config) validate() error {
	switch c.Storage {
	case "local":
		if c.Data == "" {
			return fmt.Errorf("serve: --data (SURVEYS_DATA) is empty")
		}
	case "azure":
		if c.AzureConnectionString == "" && c.AzureAccount == "" {
			return fmt.Errorf("serve: --storage azure needs AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT")
		}
	default:
		return fmt.Errorf("serve: --storage %q: use local or azure", c.Storage)
	}
	seen := map[string]bool{}
	for _, r := range c.Regions {
		if !validRegion(r.Name) {
			return fmt.Errorf("serve: region %q: use lower-case letters and digits, as Azure's region names (westeurope)", r.Name)
		}
		if seen[r.Name] {
			return fmt.Errorf("serve: region %q is named twice", r.Name)
		}
		seen[r.Name] = true
		if c.Storage == "azure" && r.ConnectionString == "" && r.Account == "" {
			env := strings.ToUpper(r.Name)
			return fmt.Errorf("serve: region %q needs AZURE_STORAGE_CONNECTION_STRING_%s or AZURE_STORAGE_ACCOUNT_%s", r.Name, env, env)
		}
	}
	if _, err := c.Secrets(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.User != nil {
			return fmt.Errorf("serve: --public-url %q: give a scheme and host only, such as https://surveys.example.com", c.PublicURL)
		}
	}
	if c.Limits.Answers < 0 || c.Limits.Onboardings < 0 || c.Limits.SignIns < 0 || c.Limits.CopiesPerSurvey < 0 || c.Limits.CopiesPerAddress < 0 || c.Limits.SCIMPerToken < 0 || c.Limits.Receipts < 0 {
		return fmt.Errorf("serve: a rate limit is negative; use 0 for no limit")
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		return fmt.Errorf("serve: --log-format %q: use text or json", c.LogFormat)
	}
	return nil
}

func validRegion(name string) bool {
	if len(name) < 2 || len(name) > 40 {
		return false
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// RegionNames returns the regions' names, in the order given.
func (c Config) RegionNames() []string {
	var out []string
	for _, r := range c.Regions {
		out = append(out, r.Name)
	}
	return out
}
