package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// Backup writes a consistent copy of the store file src to the new file
// dst, while other processes may be reading and writing src. It runs
// SQLite's VACUUM INTO in a read transaction, so the copy is the state of
// one instant (a point-in-time snapshot, never a torn copy of pages being
// written), compacted, and checks it with PRAGMA integrity_check. dst must
// not exist; the caller writes to a temporary name and renames it. On an
// error dst is removed.
func Backup(ctx context.Context, src, dst string) (err error) {
	snap, err := OpenSnapshot(ctx, src)
	if err != nil {
		return err
	}
	defer snap.Close()
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("local: backup to %s: %w", dst, os.ErrExist)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(dst)
		}
	}()
	// VACUUM cannot run inside a transaction: it runs on its own
	// connection, and takes its own read transaction.
	db, err := sql.Open("sqlite", "file:"+escapePath(src)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("local: backup %s: %w", src, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("local: backup %s to %s: %w", src, dst, err)
	}
	if err := syncFile(dst); err != nil {
		return fmt.Errorf("local: backup %s: %w", dst, err)
	}
	return Check(ctx, dst)
}

// Check runs PRAGMA integrity_check on the store file at path, and checks
// that it is a store of this schema.
func Check(ctx context.Context, path string) error {
	snap, err := OpenSnapshot(ctx, path)
	if err != nil {
		return err
	}
	defer snap.Close()
	rows, err := snap.tx.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("local: check %s: %w", path, err)
	}
	defer rows.Close()
	var problems []error
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("local: check %s: %w", path, err)
		}
		if line != "ok" {
			problems = append(problems, errors.New(line))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("local: check %s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("local: check %s: integrity_check: %w", path, errors.Join(problems...))
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
