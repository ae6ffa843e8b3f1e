// Package storagetest is the contract suite that every implementation of
// storage.Storage passes: the embedded store and Azure (against Azurite).
package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Run runs the whole contract suite. newStorage returns a storage for one
// test; the suite uses fresh, unique table, container and queue names in
// every test, so one account may serve them all.
func Run(t *testing.T, newStorage func(t *testing.T) storage.Storage) {
	t.Run("Tables", func(t *testing.T) { runTables(t, newStorage) })
	t.Run("Blobs", func(t *testing.T) { runBlobs(t, newStorage) })
	t.Run("Queues", func(t *testing.T) { runQueues(t, newStorage) })
	t.Run("Ping", func(t *testing.T) {
		if err := newStorage(t).Ping(context.Background()); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	})
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func randHex(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// tableName is a fresh table name: letters and digits.
func tableName() string { return "t" + randHex(12) }

// dnsName is a fresh container or queue name.
func dnsName(prefix string) string { return prefix + "-" + randHex(12) }

// wantErr fails the test unless err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

// noErr fails the test on err.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eventually retries f until it returns true or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if f() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
