package local

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Continuation tokens and markers are the key to resume from (the first
// one not yet returned), base64url-encoded behind a version prefix so that
// callers treat them as opaque.
const tokenPrefix = "1."

// encodeToken makes a continuation token that resumes at key.
func encodeToken(key string) string {
	return tokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(key))
}

// decodeToken returns the key a token made by encodeToken resumes at.
func decodeToken(what, tok string) (string, error) {
	if len(tok) <= len(tokenPrefix) || tok[:len(tokenPrefix)] != tokenPrefix {
		return "", fmt.Errorf("%s %q is malformed: %w", what, tok, storage.ErrInvalid)
	}
	b, err := base64.RawURLEncoding.DecodeString(tok[len(tokenPrefix):])
	if err != nil || len(b) == 0 {
		return "", fmt.Errorf("%s %q is malformed: %w", what, tok, storage.ErrInvalid)
	}
	return string(b), nil
}

// newETag returns a fresh, unique, opaque ETag in HTTP's quoted form.
func newETag() string { return `"` + rand.Text() + `"` }

// etagMatches reports whether an If-Match condition accepts the current
// ETag: "" and ETagAny accept any.
func etagMatches(ifMatch, current string) bool {
	return ifMatch == "" || ifMatch == storage.ETagAny || ifMatch == current
}
