package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// userCommand runs "surveys user add", "surveys user password" and
// "surveys user remove": it opens the storage the server uses (the same
// flags and environment) and adds an account to a tenant, sets an
// account's password (the way back for an organisation's only admin on a
// server that sends no e-mail: it ends the account's sessions and revokes
// its reset links), removes one and ends its sessions, turns an
// account's two-step sign-in off, or activates an account deactivated
// through SCIM. The password is read from standard
// input, never from the command line.
const userUsage = `Usage:
  surveys user add --tenant T --email E --password-stdin        add a subscriber's account
  surveys user password --tenant T --email E --password-stdin   set an account's password, end its sessions
  surveys user remove --tenant T --email E                      delete an account and end its sessions
  surveys user two-factor-off --tenant T --email E              turn an account's two-step sign-in off (a lost phone)
  surveys user activate --tenant T --email E                    let an account deactivated through SCIM sign in again

Run "surveys user <command> -h" for its flags.
`

func userCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	sub, err := subcommand("user", []string{"add", "password", "remove", "two-factor-off", "activate"}, userUsage, args, stdout, stderr)
	if err != nil {
		return err
	}
	var email string
	var fromStdin bool
	var sf storageFlags
	fs := sf.flagSet("user "+sub, onTenant|anyStorage, stderr)
	fs.StringVar(&email, "email", "", "the user's email address")
	synopsis := "--tenant T --email E"
	if sub == "add" || sub == "password" {
		fs.BoolVar(&fromStdin, "password-stdin", false, "read the password from standard input (required)")
		synopsis += " --password-stdin"
	}
	if err := parseFlags(fs, synopsis, args[1:], stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("user %s: unexpected arguments %v", sub, fs.Args())
	}
	if sub == "remove" {
		st, _, err := sf.open(ctx, getenv, stderr)
		if err != nil {
			return fmt.Errorf("user remove: %w", err)
		}
		defer st.Close()
		if err := store.NewUserStore(st).Remove(ctx, sf.tenant, email); err != nil {
			return fmt.Errorf("user remove: %s", survey.ErrorMessage(err))
		}
		operatorAudit(ctx, st, sf.tenant, survey.AuditMemberRemoved, survey.NormalizeEmail(email), "surveys user remove", stderr)
		fmt.Fprintf(stdout, "removed %s from tenant %s; its sessions are ended\n", survey.NormalizeEmail(email), sf.tenant)
		return nil
	}
	if sub == "activate" {
		// The way back for an organisation whose identity provider
		// deactivated its only admin (SCIM): its next sync may undo it.
		st, _, err := sf.open(ctx, getenv, stderr)
		if err != nil {
			return fmt.Errorf("user activate: %w", err)
		}
		defer st.Close()
		if err := store.NewUserStore(st).SetDisabled(ctx, sf.tenant, email, false); err != nil {
			return fmt.Errorf("user activate: %s", survey.ErrorMessage(err))
		}
		operatorAudit(ctx, st, sf.tenant, survey.AuditMemberActivated, survey.NormalizeEmail(email), "surveys user activate", stderr)
		fmt.Fprintf(stdout, "activated %s in tenant %s; it may sign in (until the identity provider deactivates it again)\n", survey.NormalizeEmail(email), sf.tenant)
		return nil
	}
	if sub == "two-factor-off" {
		// The way back for an organisation's only admin who lost both
		// the phone and the recovery codes; their page says who did it.
		st, _, err := sf.open(ctx, getenv, stderr)
		if err != nil {
			return fmt.Errorf("user two-factor-off: %w", err)
		}
		defer st.Close()
		if err := store.NewUserStore(st).DisableTwoFactor(ctx, sf.tenant, email, "the operator of this server"); err != nil {
			return fmt.Errorf("user two-factor-off: %s", survey.ErrorMessage(err))
		}
		operatorAudit(ctx, st, sf.tenant, survey.AuditTwoFactorReset, survey.NormalizeEmail(email), "surveys user two-factor-off", stderr)
		fmt.Fprintf(stdout, "turned off the two-step sign-in of %s in tenant %s (authenticator app and passkeys); the password alone signs in\n", survey.NormalizeEmail(email), sf.tenant)
		return nil
	}
	if !fromStdin {
		return fmt.Errorf("user %s: pass the password on standard input with --password-stdin", sub)
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("user %s: read the password: %w", sub, err)
	}
	password := strings.TrimRight(line, "\r\n")
	st, _, err := sf.open(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("user %s: %w", sub, err)
	}
	defer st.Close()
	if sub == "password" {
		// Sessions end and outstanding reset links are revoked with it.
		if err := store.NewUserStore(st).SetPassword(ctx, sf.tenant, email, password); err != nil {
			return fmt.Errorf("user password: %s", err)
		}
		operatorAudit(ctx, st, sf.tenant, survey.AuditPasswordReset, survey.NormalizeEmail(email), "surveys user password", stderr)
		fmt.Fprintf(stdout, "set the password of %s in tenant %s; its sessions are ended and its reset links revoked\n", survey.NormalizeEmail(email), sf.tenant)
		return nil
	}
	u, err := store.NewUserStore(st).Add(ctx, sf.tenant, email, password)
	if err != nil {
		return fmt.Errorf("user add: %s", err)
	}
	operatorAudit(ctx, st, sf.tenant, survey.AuditMemberAdded, u.Email, "surveys user add, as "+u.Role.Label(), stderr)
	fmt.Fprintf(stdout, "added %s to tenant %s\n", u.Email, u.Tenant)
	return nil
}

// tokenCommand runs "surveys token create|list|revoke". A new token is
// printed once (only its hash is stored), with an optional lifetime; the
// list shows each token's ID, name, creation and expiry, never a secret;
// revoke deletes a token by its ID.
const tokenUsage = `Usage:
  surveys token create --tenant T [--name N] [--role R] [--expires 90d]   print a new API token
  surveys token list --tenant T                                list the tenant's API tokens
  surveys token revoke --tenant T ID                           delete an API token

Run "surveys token <command> -h" for its flags.
`

func tokenCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	sub, err := subcommand("token", []string{"create", "list", "revoke"}, tokenUsage, args, stdout, stderr)
	if err != nil {
		return err
	}
	var name, expires, role string
	var sf storageFlags
	fs := sf.flagSet("token "+sub, onTenant|anyStorage, stderr)
	synopsis := "--tenant T"
	switch sub {
	case "create":
		fs.StringVar(&name, "name", "", "what the token is for")
		fs.StringVar(&expires, "expires", "", "the token's lifetime, in days (90d) or hours (12h); empty: it never expires")
		fs.StringVar(&role, "role", "admin", "what the token may do: admin, editor or viewer")
		synopsis += " [--name N] [--role R] [--expires 90d]"
	case "revoke":
		synopsis += " ID"
	}
	if err := parseFlags(fs, synopsis, args[1:], stdout); err != nil {
		return err
	}
	if sub != "revoke" && fs.NArg() > 0 {
		return usagef("token %s: unexpected arguments %v", sub, fs.Args())
	}
	var ttl time.Duration
	if expires != "" {
		var err error
		if ttl, err = parseLifetime(expires); err != nil {
			return fmt.Errorf("token create: --expires %q: %w", expires, err)
		}
	}
	if sub == "revoke" && fs.NArg() != 1 {
		return usageOn(stderr, tokenUsage, "token revoke: give the ID of one token")
	}
	st, _, err := sf.open(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("token %s: %w", sub, err)
	}
	defer st.Close()
	ts := store.NewTokenStore(st)
	switch sub {
	case "list":
		list, err := ts.List(ctx, sf.tenant)
		if err != nil {
			return fmt.Errorf("token list: %s", survey.ErrorMessage(err))
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tROLE\tCREATED\tLAST USED\tEXPIRES")
		for _, t := range list {
			exp := "never"
			if !t.Expires.IsZero() {
				exp = t.Expires.UTC().Format(time.RFC3339)
			}
			used := "never"
			if !t.LastUsed.IsZero() {
				used = t.LastUsed.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Role, t.CreatedOn.UTC().Format(time.RFC3339), used, exp)
		}
		return w.Flush()
	case "revoke":
		if err := ts.Revoke(ctx, sf.tenant, fs.Arg(0)); err != nil {
			return fmt.Errorf("token revoke: %s", survey.ErrorMessage(err))
		}
		operatorAudit(ctx, st, sf.tenant, survey.AuditTokenRevoked, fs.Arg(0), "surveys token revoke", stderr)
		fmt.Fprintf(stdout, "revoked token %s of tenant %s\n", fs.Arg(0), sf.tenant)
		return nil
	}
	r, err := survey.ParseRole(role)
	if err != nil {
		return usagef("token create: --role %q: use admin, editor or viewer", role)
	}
	token, err := ts.CreateWithRole(ctx, sf.tenant, name, r, ttl)
	if err != nil {
		return fmt.Errorf("token create: %s", err)
	}
	operatorAudit(ctx, st, sf.tenant, survey.AuditTokenCreated, name, "surveys token create, "+r.Label()+" token", stderr)
	fmt.Fprintln(stdout, token)
	return nil
}

// parseLifetime reads a lifetime of whole days ("90d") or a Go duration
// ("12h"); it must be positive.
func parseLifetime(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 3650 {
			return 0, fmt.Errorf("give a number of days from 1 to 3650, such as 90d")
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("give days (90d) or hours (12h)")
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("the lifetime must be positive")
	}
	return d, nil
}

// storageFlags are the flags an operator's command shares: the tenant it
// works on and the storage the server uses.
type storageFlags struct {
	tenant string
	args   []string // --data and --storage, for parseServe
}

// What an operator's command works on, for the flags it takes.
const (
	onTenant   = 1 << iota // one tenant: --tenant
	anyStorage             // the server's storage, whichever it is: --storage (else only the embedded store)
)

// flagSet is the flags of command name: --data, and --tenant and
// --storage as uses says.
func (sf *storageFlags) flagSet(name string, uses int, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if uses&onTenant != 0 {
		fs.StringVar(&sf.tenant, "tenant", "", "the tenant's key, e.g. adatum")
	}
	fs.Func("data", "data `folder` of the embedded store (SURVEYS_DATA)", func(v string) error { sf.args = append(sf.args, "--data", v); return nil })
	if uses&anyStorage != 0 {
		fs.Func("storage", "storage `backend`: local or azure (SURVEYS_STORAGE)", func(v string) error { sf.args = append(sf.args, "--storage", v); return nil })
	}
	return fs
}

// openStorage opens and prepares the storage the server uses, and returns
// the box for tenants' secrets (nil when no key is configured).
func (sf *storageFlags) openStorage(ctx context.Context, getenv func(string) string, stderr io.Writer) (storage.Storage, *secret.Box, error) {
	cfg, err := parseServe(sf.args, getenv, stderr)
	if err != nil {
		return nil, nil, err
	}
	box, err := cfg.Secrets()
	if err != nil {
		return nil, nil, err
	}
	st, err := openStorage(cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := store.Init(ctx, st); err != nil {
		_ = st.Close()
		return nil, nil, err
	}
	return st, box, nil
}

// open is openStorage for a command on one tenant: it checks that the
// tenant exists.
func (sf *storageFlags) open(ctx context.Context, getenv func(string) string, stderr io.Writer) (storage.Storage, *secret.Box, error) {
	st, box, err := sf.openStorage(ctx, getenv, stderr)
	if err != nil {
		return nil, nil, err
	}
	if _, err := store.NewTenantStore(st).WithSecrets(box).Get(ctx, sf.tenant); err != nil {
		_ = st.Close()
		return nil, nil, fmt.Errorf("tenant %q: %s", sf.tenant, survey.ErrorMessage(err))
	}
	return st, box, nil
}

// operatorAudit notes in tenant's audit log what the operator's CLI did
// to it (actor survey.AuditOperator, no address: the command ran on the
// server's side). The change is done by then: a log write that fails is
// reported on stderr and does not fail the command.
func operatorAudit(ctx context.Context, st storage.Storage, tenant, action, target, detail string, stderr io.Writer) {
	e := survey.AuditEvent{Tenant: tenant, At: time.Now(), Actor: survey.AuditOperator, Action: action, Target: target, Detail: detail}
	if err := store.NewAuditStore(st).Append(ctx, e); err != nil {
		fmt.Fprintf(stderr, "warning: the tenant's audit log did not take the event: %v\n", err)
	}
}
