// Command surveys is the Surveys server and its operator's tools.
//
//	surveys serve [flags]   serve the web site and run the worker
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

const usage = `Usage: surveys <command> [flags]

Commands:
  serve           serve the web site and run the worker (the default command)
  user add        add a subscriber's account, its password read from standard input
  user password   set an account's password from standard input, end its sessions, revoke its reset links
  user remove     delete a subscriber's account and end its sessions
  token create    print a new API token for a tenant
  token list      list a tenant's API tokens (ID, name, created, expires)
  token revoke    delete one of a tenant's API tokens
  tenant list     list the tenants, with their plan and state
  tenant suspend  stop a tenant's sign-in and surveys
  tenant resume   restart a suspended tenant
  tenant plan     change a tenant's plan
  tenant delete   delete a tenant and all its data
  backup          copy the embedded store to a folder, while it serves
  migrate         copy the embedded store (or a backup) to Azure Storage
  help            show this list

Run "surveys <command> -h" for the flags of a command.
`

// shortUsage follows a wrong command on standard error.
const shortUsage = "Usage: surveys <command> [flags]\nRun \"surveys help\" for the commands.\n"

// run dispatches a subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		cfg, err := parseServeCommand(args, getenv, stdout, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, gcFor(cfg, os.Getenv), stderr)
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
	default:
		return usageOn(stderr, shortUsage, "unknown command %q", cmd)
	}
}

// serve runs the server until ctx is done, then shuts it down in order.
// First it sets the garbage collector (gc.go).
func serve(ctx context.Context, cfg Config, gc gcSettings, logOut io.Writer) error {
	m := NewMain(cfg, logOut)
	applyGC(gc, m.log)
	if err := m.Run(ctx); err != nil {
		_ = m.Close()
		return err
	}
	<-ctx.Done()
	return m.Close()
}
