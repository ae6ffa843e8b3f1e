package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/surveys-dev/surveys/internal/migrate"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
)

// migrateCommand runs "surveys migrate --to azure": it copies the embedded
// store in --data (the server stopped), or a backup (--from), to an Azure
// Storage account, and each region's store to its region's account. It can
// be run again after any failure: a checkpoint beside each source file
// records what was copied. It ends by comparing the counts of the source
// and the destination, and fails if any differ.
func migrateCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var (
		sf                  storageFlags
		to, from            string
		connection, account string
	)
	fs := sf.flagSet("migrate", 0, stderr)
	fs.StringVar(&to, "to", "", "where to: azure (required)")
	fs.StringVar(&from, "from", "", "migrate a backup (a folder made by surveys backup) instead of --data")
	fs.StringVar(&connection, "azure-connection-string", getenv("AZURE_STORAGE_CONNECTION_STRING"), "the destination's connection string (AZURE_STORAGE_CONNECTION_STRING)")
	fs.StringVar(&account, "azure-account", getenv("AZURE_STORAGE_ACCOUNT"), "the destination account's name, with the default Azure credential (AZURE_STORAGE_ACCOUNT)")
	if err := parseFlags(fs, "--to azure [--from BACKUP | --data DIR]", args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("migrate: unexpected arguments %v", fs.Args())
	}
	if to != "azure" {
		return fmt.Errorf("migrate: give the destination with --to azure")
	}
	if connection == "" && account == "" {
		return fmt.Errorf("migrate: --to azure needs AZURE_STORAGE_CONNECTION_STRING (or --azure-connection-string) or AZURE_STORAGE_ACCOUNT")
	}
	dir := from
	if dir == "" {
		cfg, err := parseServe(append(sf.args, "--storage", "local"), getenv, stderr)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		dir = cfg.Data
	}
	files, err := storeFiles(dir)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}

	// Every destination is known before anything is copied.
	type job struct {
		file, name          string
		connection, account string
	}
	var jobs []job
	for _, f := range files {
		j := job{file: filepath.Join(dir, f), name: "home", connection: connection, account: account}
		if f != "surveys.db" {
			j.name = strings.TrimSuffix(filepath.Base(f), ".db")
			env := strings.ToUpper(j.name)
			j.connection, j.account = getenv("AZURE_STORAGE_CONNECTION_STRING_"+env), getenv("AZURE_STORAGE_ACCOUNT_"+env)
			if j.connection == "" && j.account == "" {
				return fmt.Errorf("migrate: region %s (%s) needs AZURE_STORAGE_CONNECTION_STRING_%s or AZURE_STORAGE_ACCOUNT_%s", j.name, j.file, env, env)
			}
		}
		jobs = append(jobs, j)
	}
	// A server writing the store meanwhile would write what the migration
	// never sees: only a backup may be in use.
	if from == "" {
		for _, j := range jobs {
			release, err := local.LockExclusive(j.file)
			if errors.Is(err, local.ErrInUse) {
				return fmt.Errorf("migrate: %s is in use (a server, or another surveys command): stop it first, or migrate a backup (surveys backup --out B, then surveys migrate --from B)", j.file)
			}
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			defer release()
		}
	}
	var differ []string
	for _, j := range jobs {
		dst, err := azure.New(azure.Config{ConnectionString: j.connection, AccountName: j.account})
		if err != nil {
			return fmt.Errorf("migrate: %s: %w", j.name, err)
		}
		fmt.Fprintf(stdout, "migrating %s to %s\n", j.file, destinationName(j.connection, j.account))
		ok, err := migrateFile(ctx, j.file, dst, destinationName(j.connection, j.account), stdout)
		_ = dst.Close()
		if err != nil {
			return fmt.Errorf("migrate: %s: %w (run the same command again to carry on)", j.file, err)
		}
		if !ok {
			differ = append(differ, j.file)
		}
	}
	if len(differ) > 0 {
		return fmt.Errorf("migrate: the destination's counts differ from %s (see the table above)", strings.Join(differ, ", "))
	}
	fmt.Fprintln(stdout, "migrated: every count matches. Start the servers with AZURE_STORAGE_CONNECTION_STRING (or AZURE_STORAGE_ACCOUNT) set.")
	return nil
}

// migrateFile copies one store file to dst with the checkpoint beside the
// file, then verifies and prints the counts. ok is false when they differ.
func migrateFile(ctx context.Context, file string, dst storage.Storage, destination string, stdout io.Writer) (ok bool, err error) {
	snap, err := local.OpenSnapshot(ctx, file)
	if err != nil {
		return false, err
	}
	defer snap.Close()
	c, err := migrate.Copy(ctx, snap, dst, migrate.Options{
		Checkpoint:  file + ".migrate-checkpoint",
		Destination: destination,
		Moved:       store.MoveAnswerMessage,
		Progress:    stdout,
	})
	if err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "copied %d entities, %d blobs, %d messages; %d tables, %d blobs, %d messages were copied by an earlier run\n",
		c.Entities, c.Blobs, c.Messages, c.SkippedTables, c.SkippedBlobs, c.SkippedMessages)
	dups, err := migrate.PossibleDuplicates(file + ".migrate-checkpoint")
	if err != nil {
		return false, err
	}
	report, err := migrate.Verify(ctx, snap, dst, dups)
	if err != nil {
		return false, err
	}
	if err := report.Print(stdout); err != nil {
		return false, err
	}
	return report.OK(), nil
}

// destinationName names an account for the checkpoint, without its key:
// the account name and the blob endpoint of a connection string.
func destinationName(connection, account string) string {
	if connection == "" {
		return "account " + account
	}
	var name, endpoint string
	for _, part := range strings.Split(connection, ";") {
		k, v, _ := strings.Cut(part, "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "accountname":
			name = v
		case "blobendpoint":
			endpoint = v
		case "usedevelopmentstorage":
			name, endpoint = "devstoreaccount1", "http://127.0.0.1:10000/devstoreaccount1"
		}
	}
	if endpoint == "" {
		return "account " + name
	}
	return "account " + name + " at " + endpoint
}
