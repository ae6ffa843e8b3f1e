package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// userCommand runs "surveys user add": it opens the storage the server
// uses (the same flags and environment) and adds an account to a tenant.
// The password is read from standard input, never from the command line.
func userCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "add" {
		return fmt.Errorf("user: usage: surveys user add --tenant T --email E --password-stdin")
	}
	var email string
	var fromStdin bool
	var sf storageFlags
	fs := sf.flagSet("user add", stderr)
	fs.StringVar(&email, "email", "", "the user's email address")
	fs.BoolVar(&fromStdin, "password-stdin", false, "read the password from standard input (required)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if !fromStdin {
		return fmt.Errorf("user add: pass the password on standard input with --password-stdin")
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("user add: read the password: %w", err)
	}
	password := strings.TrimRight(line, "\r\n")
	st, _, err := sf.open(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("user add: %w", err)
	}
	defer st.Close()
	u, err := store.NewUserStore(st).Add(ctx, sf.tenant, email, password)
	if err != nil {
		return fmt.Errorf("user add: %s", err)
	}
	fmt.Fprintf(stdout, "added %s to tenant %s\n", u.Email, u.Tenant)
	return nil
}

// tokenCommand runs "surveys token create": it prints a new API token for
// a tenant. The token is shown once; only its hash is stored.
func tokenCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return fmt.Errorf("token: usage: surveys token create --tenant T [--name N]")
	}
	var name string
	var sf storageFlags
	fs := sf.flagSet("token create", stderr)
	fs.StringVar(&name, "name", "", "what the token is for")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	st, _, err := sf.open(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("token create: %w", err)
	}
	defer st.Close()
	token, err := store.NewTokenStore(st).Create(ctx, sf.tenant, name)
	if err != nil {
		return fmt.Errorf("token create: %s", err)
	}
	fmt.Fprintln(stdout, token)
	return nil
}

// storageFlags are the flags an operator's command shares: the tenant it
// works on and the storage the server uses.
type storageFlags struct {
	tenant string
	args   []string // --data and --storage, for parseServe
}

func (sf *storageFlags) flagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&sf.tenant, "tenant", "", "the tenant's key, e.g. adatum")
	fs.Func("data", "data folder of the embedded store (SURVEYS_DATA)", func(v string) error { sf.args = append(sf.args, "--data", v); return nil })
	fs.Func("storage", "storage backend: local or azure (SURVEYS_STORAGE)", func(v string) error { sf.args = append(sf.args, "--storage", v); return nil })
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
