package azure_test

import (
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/storage/storagetest"
)

func TestMain(m *testing.M) { azuritetest.Main(m) }

// newStore returns a Store on the test binary's Azurite.
func newStore(t *testing.T) storage.Storage {
	t.Helper()
	s, err := azure.New(azure.Config{ConnectionString: azuritetest.ConnectionString()})
	if err != nil {
		t.Fatalf("azure.New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storagetest.Run(t, newStore)
}
