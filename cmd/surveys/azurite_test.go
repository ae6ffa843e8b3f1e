package main

import (
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
)

// TestMain runs Azurite for the tests that boot the server on Azure
// (surveys migrate --to azure).
func TestMain(m *testing.M) { azuritetest.Main(m) }
