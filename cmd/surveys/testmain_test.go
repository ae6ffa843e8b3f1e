package main

import (
	"os"
	"testing"

	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
)

// TestMain runs Azurite, for the tests that boot the server on Azure
// (surveys migrate --to azure), and PostgreSQL, for the tenant's own
// database in the end-to-end test; the browser tests' Chromium is stopped
// after the last test.
func TestMain(m *testing.M) {
	os.Exit(pgtest.Run(func() int {
		defer stopChromium()
		return azuritetest.Run(m)
	}))
}
