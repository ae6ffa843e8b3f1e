package survey

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// UsesOIDC reports whether the tenant signs its staff in through its own
// OpenID Connect provider.
func (t *Tenant) UsesOIDC() bool { return t.IssuerURL != "" && t.ClientID != "" }

// ValidateIdentityProvider checks the tenant's identity-provider fields as a
// subscriber enters them: all empty (no provider), or an https issuer URL, a
// client id, and the claim type and value that grant access. The client
// secret is checked for length only; whether the issuer answers is for the
// caller to find out.
func (t *Tenant) ValidateIdentityProvider() error {
	f := fieldErrors{}
	if t.IssuerURL == "" && t.ClientID == "" && t.ClientSecret == "" && t.ClaimType == "" && t.ClaimValue == "" {
		return nil
	}
	if msg := issuerProblem(t.IssuerURL); msg != "" {
		f.add("issuerUrl", "%s", msg)
	}
	short := func(field, value, name string, max int) {
		switch {
		case strings.TrimSpace(value) == "":
			f.add(field, "Enter the %s.", name)
		case utf8.RuneCountInString(value) > max || !utf8.ValidString(value):
			f.add(field, "Keep the %s to %d characters.", name, max)
		case strings.ContainsFunc(value, isControl):
			f.add(field, "The %s cannot hold control characters.", name)
		}
	}
	short("clientId", t.ClientID, "client id", 200)
	if t.ClientSecret != "" {
		short("clientSecret", t.ClientSecret, "client secret", 500)
	}
	short("claimType", t.ClaimType, "claim type", 100)
	short("claimValue", t.ClaimValue, "claim value", 200)
	return f.err("The identity provider")
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// issuerProblem says what is wrong with an issuer URL, or "".
func issuerProblem(s string) string {
	if strings.TrimSpace(s) == "" {
		return "Enter the issuer URL of your OpenID Connect provider."
	}
	if len(s) > 500 {
		return "Keep the issuer URL to 500 characters."
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return "Enter a full URL, such as https://login.example.com."
	case u.Scheme != "https":
		return "The issuer URL must start with https://."
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "#") || strings.HasSuffix(s, "?"):
		return "The issuer URL has no user name, query or fragment."
	case strings.ContainsFunc(s, isControl) || strings.Contains(s, " "):
		return "The issuer URL cannot hold spaces or control characters."
	}
	return ""
}

// ClaimGrants reports whether an ID token's claims grant access: the claim
// named claimType is the string claimValue, or an array holding it.
func ClaimGrants(claims map[string]any, claimType, claimValue string) bool {
	if claimType == "" || claimValue == "" {
		return false
	}
	switch v := claims[claimType].(type) {
	case string:
		return v == claimValue
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok && s == claimValue {
				return true
			}
		}
	case []string:
		for _, s := range v {
			if s == claimValue {
				return true
			}
		}
	}
	return false
}
