package local

import (
	"context"
	"strings"
	"testing"
)

// TestWriterIsDurable holds the README's promise that an acknowledged
// write is on disk: the writer's connection, which runs every commit, is
// in WAL mode with synchronous=FULL (2), so each commit fsyncs the WAL
// before the write returns. NORMAL (1) would acknowledge commits that a
// power cut can lose.
func TestWriterIsDurable(t *testing.T) {
	s, _ := openWithClock(t)
	var sync int
	var mode string
	err := s.write(context.Background(), func(tx *wtx) error {
		if err := tx.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil {
			return err
		}
		return tx.QueryRow("PRAGMA journal_mode").Scan(&mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	if sync != 2 {
		t.Errorf("the writer runs with PRAGMA synchronous = %d, want 2 (FULL)", sync)
	}
	if !strings.EqualFold(mode, "wal") {
		t.Errorf("the writer runs with journal_mode %q, want wal", mode)
	}
}
