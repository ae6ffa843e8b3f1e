package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

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
	var tenant, email string
	var fromStdin bool
	var storageArgs []string
	fs := flag.NewFlagSet("user add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&tenant, "tenant", "", "the tenant's key, e.g. adatum")
	fs.StringVar(&email, "email", "", "the user's email address")
	fs.BoolVar(&fromStdin, "password-stdin", false, "read the password from standard input (required)")
	fs.Func("data", "data folder of the embedded store (SURVEYS_DATA)", func(v string) error { storageArgs = append(storageArgs, "--data", v); return nil })
	fs.Func("storage", "storage backend: local or azure (SURVEYS_STORAGE)", func(v string) error { storageArgs = append(storageArgs, "--storage", v); return nil })
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
	cfg, err := parseServe(storageArgs, getenv, stderr)
	if err != nil {
		return err
	}
	st, err := openStorage(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := store.Init(ctx, st); err != nil {
		return err
	}
	if _, err := store.NewTenantStore(st).Get(ctx, tenant); err != nil {
		return fmt.Errorf("user add: tenant %q: %s", tenant, survey.ErrorMessage(err))
	}
	u, err := store.NewUserStore(st).Add(ctx, tenant, email, password)
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
	var tenant, name string
	var storageArgs []string
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&tenant, "tenant", "", "the tenant's key, e.g. adatum")
	fs.StringVar(&name, "name", "", "what the token is for")
	fs.Func("data", "data folder of the embedded store (SURVEYS_DATA)", func(v string) error { storageArgs = append(storageArgs, "--data", v); return nil })
	fs.Func("storage", "storage backend: local or azure (SURVEYS_STORAGE)", func(v string) error { storageArgs = append(storageArgs, "--storage", v); return nil })
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	cfg, err := parseServe(storageArgs, getenv, stderr)
	if err != nil {
		return err
	}
	st, err := openStorage(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := store.Init(ctx, st); err != nil {
		return err
	}
	if _, err := store.NewTenantStore(st).Get(ctx, tenant); err != nil {
		return fmt.Errorf("token create: tenant %q: %s", tenant, survey.ErrorMessage(err))
	}
	token, err := store.NewTokenStore(st).Create(ctx, tenant, name)
	if err != nil {
		return fmt.Errorf("token create: %s", err)
	}
	fmt.Fprintln(stdout, token)
	return nil
}
