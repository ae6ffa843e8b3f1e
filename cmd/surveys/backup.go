package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/surveys-dev/surveys/internal/storage/local"
)

// storeFiles lists the store files of a data folder, relative to it:
// surveys.db, then regions/<name>.db in name order. The folder must hold
// surveys.db.
func storeFiles(dir string) ([]string, error) {
	fi, err := os.Stat(filepath.Join(dir, "surveys.db"))
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s holds no embedded store (no surveys.db)", dir)
	}
	files := []string{"surveys.db"}
	regions, err := filepath.Glob(filepath.Join(dir, "regions", "*.db"))
	if err != nil {
		return nil, err
	}
	for _, r := range regions {
		files = append(files, filepath.Join("regions", filepath.Base(r)))
	}
	return files, nil
}

// backupCommand runs "surveys backup --out PATH": a consistent copy of the
// embedded store (and of its regions' stores), taken while a server may be
// using it. PATH is a new folder that mirrors the data folder.
func backupCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var (
		sf    storageFlags
		out   string
		force bool
	)
	fs := sf.flagSet("backup", 0, stderr)
	fs.StringVar(&out, "out", "", "the folder to write the backup to (required; it must not exist)")
	fs.BoolVar(&force, "force", false, "replace an existing backup at --out")
	if err := parseFlags(fs, "--out DIR [--data DIR] [--force]", args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("backup: unexpected arguments %v", fs.Args())
	}
	if out == "" {
		return fmt.Errorf("backup: give the folder to write to with --out")
	}
	cfg, err := parseServe(append(sf.args, "--storage", "local"), getenv, stderr)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	files, err := storeFiles(cfg.Data)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	out = filepath.Clean(out)
	if _, err := os.Lstat(out); err == nil {
		if !force {
			return fmt.Errorf("backup: %s exists: give another --out, or --force to replace that backup", out)
		}
		if err := checkIsBackup(out); err != nil {
			return fmt.Errorf("backup: --force: %w", err)
		}
	}
	// Write to a temporary folder beside out, renamed when complete.
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".partial-"+rand.Text()[:8])
	if err := os.MkdirAll(filepath.Join(tmp, "regions"), 0o750); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(tmp)
	var report []string
	for _, f := range files {
		dst := filepath.Join(tmp, f)
		if err := local.Backup(ctx, filepath.Join(cfg.Data, f), dst); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		line, err := describeStore(ctx, dst)
		if err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		report = append(report, filepath.Join(out, f)+": "+line)
	}
	if err := syncDir(filepath.Join(tmp, "regions")); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := syncDir(tmp); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if force {
		old := tmp + ".old"
		if err := os.Rename(out, old); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("backup: %w", err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := syncDir(filepath.Dir(out)); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	for _, line := range report {
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// checkIsBackup refuses to let --force replace anything but a backup: a
// folder of surveys.db and regions/*.db only (and the checkpoints of a
// migration from it).
func checkIsBackup(dir string) error {
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case rel == "." || (rel == "regions" && d.IsDir()):
			return nil
		case (rel == "surveys.db" || strings.HasSuffix(rel, ".db.migrate-checkpoint")) && d.Type().IsRegular():
			return nil
		case filepath.Dir(rel) == "regions" && strings.HasSuffix(rel, ".db") && d.Type().IsRegular():
			return nil
		}
		return fmt.Errorf("%s is not a backup (it holds %s): remove it yourself, or give another --out", dir, rel)
	})
	return err
}

// describeStore counts a store file's contents for the operator.
func describeStore(ctx context.Context, path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	snap, err := local.OpenSnapshot(ctx, path)
	if err != nil {
		return "", err
	}
	defer snap.Close()
	c, err := snap.Counts(ctx)
	if err != nil {
		return "", err
	}
	entities, blobs, bytes, messages := c.Totals()
	return fmt.Sprintf("%d bytes; %d tables, %d entities; %d containers, %d blobs (%d bytes); %d queues, %d messages",
		fi.Size(), len(c.Entities), entities, len(c.Blobs), blobs, bytes, len(c.Messages), messages), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
