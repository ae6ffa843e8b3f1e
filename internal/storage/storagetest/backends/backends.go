// Package backends runs a test against every storage backend: the embedded
// store and Azure (a real Azurite, started by the test binary's TestMain
// through azuritetest.Main).
package backends

import (
	"path/filepath"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

// Backend opens a fresh storage of one kind for a test.
type Backend struct {
	Name string
	Open func(t testing.TB) storage.Storage
}

// All lists the backends.
var All = []Backend{
	{"local", Local},
	{"azure", Azure},
}

// Each runs f as a subtest for every backend.
func Each(t *testing.T, f func(t *testing.T, st storage.Storage)) {
	t.Helper()
	for _, b := range All {
		t.Run(b.Name, func(t *testing.T) { f(t, b.Open(t)) })
	}
}

// Local opens an embedded store in a temporary folder.
func Local(t testing.TB) storage.Storage {
	t.Helper()
	s, err := local.Open(filepath.Join(t.TempDir(), "surveys.db"))
	if err != nil {
		t.Fatalf("open local store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Azure opens the test binary's Azurite. Every test of a binary shares its
// account, so tests that use fixed names (the stores' layout) must not run
// in parallel with each other, and must use tenants of their own.
func Azure(t testing.TB) storage.Storage {
	t.Helper()
	s, err := azure.New(azure.Config{ConnectionString: azuritetest.ConnectionString()})
	if err != nil {
		t.Fatalf("open Azurite: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
