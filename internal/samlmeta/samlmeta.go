// Package samlmeta reads a SAML 2.0 identity provider's metadata, as a
// tenant's admin uploads, pastes or names it, and checks that a sign-in can
// use it. It is apart from the pages so that it can be fuzzed on its own.
package samlmeta

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/crewjam/saml"
	"github.com/crewjam/saml/samlsp"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Parse reads an identity provider's metadata, as uploaded,
// pasted or fetched, and checks that this server can use it: one
// identity provider (an EntityDescriptor, or an EntitiesDescriptor with
// exactly one), an entity ID, an https single sign-on endpoint of the
// HTTP-Redirect binding, and a signing certificate. Its error says what
// to fix, in words of ours.
func Parse(data []byte) (*saml.EntityDescriptor, error) {
	bad := func(msg string) error { return survey.Errorf(survey.EINVALID, "%s", msg) }
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, bad("The metadata is empty.")
	}
	if len(data) > survey.MaxSAMLMetadata {
		return nil, bad(fmt.Sprintf("The metadata is larger than %d KiB; give your identity provider's own metadata, not a federation's.", survey.MaxSAMLMetadata>>10))
	}
	ed, err := samlsp.ParseMetadata(data)
	if err != nil || ed == nil {
		return nil, bad("This is not SAML 2.0 metadata of one identity provider (an EntityDescriptor with an IDPSSODescriptor). Download your provider's federation metadata XML and give it whole.")
	}
	if strings.TrimSpace(ed.EntityID) == "" || len(ed.EntityID) > 500 {
		return nil, bad("The metadata names no entity ID (or one over 500 characters).")
	}
	if len(ed.IDPSSODescriptors) == 0 {
		return nil, bad("The metadata describes no identity provider (no IDPSSODescriptor): is it a service provider's?")
	}
	if SSOLocation(ed) == "" {
		return nil, bad("The metadata has no https single sign-on endpoint of the HTTP-Redirect binding (SingleSignOnService), which this server uses.")
	}
	if !hasSigningCert(ed) {
		return nil, bad("The metadata has no signing certificate (a KeyDescriptor that is not for encryption only, with an X509Certificate): this server accepts only signed assertions.")
	}
	return ed, nil
}

// SSOLocation is the first https HTTP-Redirect single sign-on endpoint.
func SSOLocation(ed *saml.EntityDescriptor) string {
	for _, d := range ed.IDPSSODescriptors {
		for _, e := range d.SingleSignOnServices {
			if e.Binding == saml.HTTPRedirectBinding && strings.HasPrefix(e.Location, "https://") {
				if u, err := url.Parse(e.Location); err == nil && u.Host != "" {
					return e.Location
				}
			}
		}
	}
	return ""
}

func hasSigningCert(ed *saml.EntityDescriptor) bool {
	for _, d := range ed.IDPSSODescriptors {
		for _, k := range d.KeyDescriptors {
			if k.Use == "encryption" {
				continue
			}
			for _, c := range k.KeyInfo.X509Data.X509Certificates {
				if strings.TrimSpace(c.Data) != "" {
					return true
				}
			}
		}
	}
	return false
}
