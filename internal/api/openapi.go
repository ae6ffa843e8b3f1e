package api

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"time"
)

// openAPIDocument is the OpenAPI 3.1 description of /api/v1: every
// operation, its parameters, bodies, responses and errors, and the token
// roles that may call it (x-roles). internal/web/openapi_test.go checks it
// against the router and every response of the API tests against it.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIETag is the document's validator: it changes with the document.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDocument)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// OpenAPI serves the document at /api/v1/openapi.json, with no token: it
// is the same for everyone and holds no tenant's data, so caches may keep
// it (an hour, then revalidate with its ETag).
func OpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("ETag", openAPIETag)
	http.ServeContent(w, r, "openapi.json", time.Time{}, bytes.NewReader(openAPIDocument))
}
