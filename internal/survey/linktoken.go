package survey

import "encoding/base64"

// LinkTokenPrefix starts the token of a single-use link (a password reset,
// an invitation); 43 characters of URL-safe base64 (32 random bytes)
// follow.
const LinkTokenPrefix = "lnk_"

// ValidLinkToken reports whether s has the form of a single-use link's
// token, checked before any storage call.
func ValidLinkToken(s string) bool {
	if len(s) != len(LinkTokenPrefix)+43 || s[:len(LinkTokenPrefix)] != LinkTokenPrefix {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s[len(LinkTokenPrefix):])
	return err == nil && len(b) == 32
}
