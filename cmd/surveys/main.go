// Command surveys is the Surveys server and its operator's tools.
//
//	surveys serve [flags]   serve the web site and run the worker
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "surveys:", err)
		}
		os.Exit(1)
	}
}

const usage = `Usage: surveys <command> [flags]

Commands:
  serve    serve the web site and run the worker (the default)
  user add add a subscriber's account: --tenant T --email E --password-stdin
  user remove   delete an account and end its sessions: --tenant T --email E
  token create  print a new API token for a tenant: --tenant T [--name N] [--expires 90d]
  token list    list a tenant's API tokens (ID, name, created, expires): --tenant T
  token revoke  delete an API token: --tenant T ID
  tenant list   list the tenants, with their plan and state
  tenant suspend|resume --tenant T   stop or restart a tenant's sign-in and surveys
  tenant delete --tenant T --yes     delete a tenant and all its data
  backup --out DIR   a consistent copy of the embedded store, taken while it serves
  migrate --to azure [--from DIR]    copy the embedded store (or a backup) to Azure Storage

Run "surveys <command> -h" for a command's flags.
`

// run dispatches a subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		cfg, err := parseServe(args, getenv, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stderr)
	case "token":
		return tokenCommand(ctx, args, getenv, stdout, stderr)
	case "tenant":
		return tenantCommand(ctx, args, getenv, stdout, stderr)
	case "user":
		return userCommand(ctx, args, getenv, stdin, stdout, stderr)
	case "backup":
		return backupCommand(ctx, args, getenv, stdout, stderr)
	case "migrate":
		return migrateCommand(ctx, args, getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// serve runs the server until ctx is done, then shuts it down in order.
func serve(ctx context.Context, cfg Config, logOut io.Writer) error {
	m := NewMain(cfg, logOut)
	if err := m.Run(ctx); err != nil {
		_ = m.Close()
		return err
	}
	<-ctx.Done()
	return m.Close()
}
