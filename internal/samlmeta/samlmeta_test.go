package samlmeta

import (
	"strings"
	"testing"
)

// testIdPMetadata is an identity provider's metadata as Entra ID and Okta
// publish it: an EntityDescriptor with a signing certificate and
// HTTP-Redirect and HTTP-POST single sign-on endpoints.
const testIdPMetadata = `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.com/saml">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>MIIBszCCAVmgAwIBAgIBATAKBggqhkjOPQQDAjAWMRQwEgYDVQQDEwtleGFtcGxlIGlkcDAeFw0yNjAxMDEwMDAwMDBaFw0zNjAxMDEwMDAwMDBa</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example.com/sso/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/sso/redirect"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`

// TestParseIdPMetadata: usable metadata gives its entity ID and redirect
// endpoint; each unusable one is refused with what to fix.
func TestParseIdPMetadata(t *testing.T) {
	ed, err := Parse([]byte(testIdPMetadata))
	if err != nil || ed.EntityID != "https://idp.example.com/saml" || SSOLocation(ed) != "https://idp.example.com/sso/redirect" {
		t.Fatalf("%+v %v", ed, err)
	}
	for _, c := range []struct {
		name, metadata, words string
	}{
		{"empty", "  ", "empty"},
		{"too large", "<x>" + strings.Repeat(" ", 300<<10) + "</x>", "larger than 256 KiB"},
		{"not XML", "hello", "not SAML 2.0 metadata"},
		{"no entity ID", strings.Replace(testIdPMetadata, `entityID="https://idp.example.com/saml"`, ``, 1), "no entity ID"},
		{"a service provider", strings.ReplaceAll(testIdPMetadata, "IDPSSODescriptor", "SPSSODescriptor"), "no identity provider"},
		{"no redirect binding", strings.Replace(testIdPMetadata, "HTTP-Redirect", "HTTP-Artifact", 1), "HTTP-Redirect"},
		{"plain http", strings.Replace(testIdPMetadata, "https://idp.example.com/sso/redirect", "http://idp.example.com/sso/redirect", 1), "https single sign-on"},
		{"no signing key", strings.Replace(testIdPMetadata, `use="signing"`, `use="encryption"`, 1), "no signing certificate"},
	} {
		_, err := Parse([]byte(c.metadata))
		if err == nil || !strings.Contains(err.Error(), c.words) {
			t.Errorf("%s: %v, want %q", c.name, err, c.words)
		}
	}
}

// FuzzParseIdPMetadata: whatever an admin uploads, the parse returns
// usable metadata or an error, never panics; what it accepts has what a
// sign-in needs.
func FuzzParseIdPMetadata(f *testing.F) {
	f.Add([]byte(testIdPMetadata))
	f.Add([]byte(`<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">` + strings.SplitN(testIdPMetadata, "?>", 2)[1] + `</md:EntitiesDescriptor>`))
	f.Add([]byte("<x/>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ed, err := Parse(data)
		if err != nil {
			if ed != nil {
				t.Fatal("metadata with an error")
			}
			return
		}
		if ed.EntityID == "" || !strings.HasPrefix(SSOLocation(ed), "https://") || !hasSigningCert(ed) {
			t.Fatalf("accepted unusable metadata: %q", data)
		}
	})
}
