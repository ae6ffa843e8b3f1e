package local

import (
	"errors"
	"fmt"
	"os"
)

// ErrInUse is returned by LockExclusive when a process has the store open.
var ErrInUse = errors.New("the store is in use by another process")

// A Store holds a shared advisory lock (flock) on its file while it is
// open, so that a tool that must be alone with the file (surveys migrate)
// can tell that a server, or another command, is using it. SQLite's own
// locks are POSIX record locks, which flock does not interfere with.

// lockShared takes the shared lock on the store file at path.
func lockShared(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := flock(f, false); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%s is locked by surveys migrate: %w", path, ErrInUse)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// LockExclusive takes the exclusive lock on the store file at path without
// waiting: it fails with ErrInUse while any Store (in any process) has the
// file open, and keeps Open from succeeding until release is called.
func LockExclusive(path string) (release func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("local: lock %s: %w", path, err)
	}
	if err := flock(f, true); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("local: %s: %w", path, ErrInUse)
		}
		return nil, fmt.Errorf("local: lock %s: %w", path, err)
	}
	return f.Close, nil
}
