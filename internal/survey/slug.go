package survey

import (
	"regexp"
	"strings"

	"github.com/gosimple/slug"
)

// MaxSlugLength bounds a survey slug, so that URLs stay readable and keys
// stay short.
const MaxSlugLength = 48

// Slugify turns a survey title into a URL slug: lower-case letters, digits
// and single hyphens, at most MaxSlugLength characters, cut at a hyphen
// where possible. A title with nothing to keep (emoji, punctuation) gives
// "survey".
func Slugify(title string) string {
	// gosimple/slug keeps underscores, which container names refuse.
	s := hyphens.ReplaceAllString(strings.ReplaceAll(slug.Make(title), "_", "-"), "-")
	s = strings.Trim(s, "-")
	if len(s) > MaxSlugLength {
		s = s[:MaxSlugLength]
		if i := strings.LastIndexByte(s, '-'); i > MaxSlugLength/2 {
			s = s[:i]
		}
		s = strings.Trim(s, "-")
	}
	if s == "" {
		return "survey"
	}
	return s
}

var hyphens = regexp.MustCompile(`-{2,}`)

// ValidSlug reports whether s is a slug as Slugify makes them: runs of
// lower-case letters and digits joined by single hyphens (the language of
// ^[a-z0-9]+(-[a-z0-9]+)*$, checked by hand: every request for a survey
// asks it, twice; FuzzValidNames).
func ValidSlug(s string) bool {
	if s == "" || len(s) > MaxSlugLength+4 {
		return false
	}
	hyphen := true // at the start, as after a hyphen: none may follow
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			hyphen = false
		case c == '-' && !hyphen:
			hyphen = true
		default:
			return false
		}
	}
	return !hyphen
}

// MaxTenantKeyLength bounds a tenant key.
const MaxTenantKeyLength = 24

// reservedTenantKeys are words a tenant key may not be: they are, or may
// become, top-level routes.
var reservedTenantKeys = map[string]bool{
	"api": true, "admin": true, "survey": true, "surveys": true, "static": true,
	"healthz": true, "readyz": true, "metrics": true, "onboarding": true, "login": true,
	"logout": true, "signin": true, "signout": true, "account": true, "logos": true,
	"www": true, "system": true, "tenants": true, "invite": true, "settings": true,
	"theme": true,
}

// TenantKey turns a tenant name into its key: lower-case letters and
// digits only (no hyphen, so that "<tenant>-<slug>" names cannot collide),
// at most MaxTenantKeyLength. It returns "" when the name has fewer than two
// letters or digits.
func TenantKey(name string) string {
	s := strings.NewReplacer("-", "", "_", "").Replace(slug.Make(name))
	if len(s) > MaxTenantKeyLength {
		s = s[:MaxTenantKeyLength]
	}
	if len(s) < 2 {
		return ""
	}
	return s
}

// tenantKey reports whether key is 2 to 24 lower-case letters and digits
// (^[a-z0-9]{2,24}$, checked by hand: FuzzValidNames).
func tenantKey(key string) bool {
	if len(key) < 2 || len(key) > 24 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ValidateTenantKey checks a tenant key.
func ValidateTenantKey(key string) error {
	if len(key) > MaxTenantKeyLength || !tenantKey(key) {
		return Errorf(EINVALID, "A tenant key is 2 to %d lower-case letters and digits.", MaxTenantKeyLength)
	}
	if reservedTenantKeys[key] {
		return Errorf(EINVALID, "%q is a reserved word; choose another name.", key)
	}
	return nil
}
