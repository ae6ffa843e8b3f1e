package survey

import (
	"strings"
	"time"
	"unicode/utf8"
)

// SAMLProvider is a tenant's SAML 2.0 identity provider, and the key and
// certificate this server signs with as the tenant's service provider.
// A tenant signs in through OpenID Connect or SAML, not both at once.
type SAMLProvider struct {
	Tenant string `json:"tenant"`
	// Metadata is the identity provider's metadata document (XML), as
	// imported; MetadataURL is where it was fetched from ("" for an
	// upload). EntityID is the provider's entity ID, read from Metadata.
	Metadata    string `json:"metadata"`
	MetadataURL string `json:"metadataUrl,omitempty"`
	EntityID    string `json:"entityId"`
	// GroupAttribute names the assertion's attribute that lists the
	// person's groups; only a person in GroupValue may sign in (the gate
	// OpenID Connect has with its claim type and value).
	GroupAttribute string `json:"groupAttribute"`
	GroupValue     string `json:"groupValue"`
	// AdminGroup, EditorGroup and ViewerGroup map groups to roles: a
	// person in one gets that role at each sign-in (the most powerful
	// matching wins). Each may be "": with no match, a new member is an
	// ExternalRole and a known one keeps the role they have.
	AdminGroup  string `json:"adminGroup,omitempty"`
	EditorGroup string `json:"editorGroup,omitempty"`
	ViewerGroup string `json:"viewerGroup,omitempty"`
	// SPKey is the service provider's private key (PEM): a secret, sealed
	// by the store. SPCertificate is its self-signed certificate (PEM),
	// published in the service provider's metadata.
	SPKey         string    `json:"-"`
	SPCertificate string    `json:"spCertificate"`
	UpdatedOn     time.Time `json:"updatedOn"`
}

// MaxSAMLMetadata bounds an identity provider's metadata document, as
// uploaded, pasted or fetched.
const MaxSAMLMetadata = 256 << 10

// ValidateSAML checks the settings a subscriber enters: the group gate and
// the role mapping. Whether the metadata is usable is for the caller (it
// needs a SAML parser).
func (p *SAMLProvider) ValidateSAML() error {
	f := fieldErrors{}
	field := func(name, value, what string, max int, required bool) {
		switch {
		case value == "" && required:
			f.add(name, "Enter the %s.", what)
		case utf8.RuneCountInString(value) > max || !utf8.ValidString(value):
			f.add(name, "Keep the %s to %d characters.", what, max)
		case strings.ContainsFunc(value, isControl):
			f.add(name, "The %s cannot hold control characters.", what)
		}
	}
	field("groupAttribute", p.GroupAttribute, "group attribute's name", 300, true)
	field("groupValue", p.GroupValue, "group that may sign in", 300, true)
	field("adminGroup", p.AdminGroup, "group of admins", 300, false)
	field("editorGroup", p.EditorGroup, "group of editors", 300, false)
	field("viewerGroup", p.ViewerGroup, "group of viewers", 300, false)
	if p.Metadata == "" {
		f.add("metadata", "Give your identity provider's metadata: its URL, or the XML file.")
	} else if len(p.Metadata) > MaxSAMLMetadata {
		f.add("metadata", "The metadata is larger than %d KiB; give your identity provider's own metadata, not a federation's.", MaxSAMLMetadata>>10)
	}
	return f.err("The SAML identity provider")
}

// Grants reports whether groups hold the group that may sign in.
func (p *SAMLProvider) Grants(groups []string) bool {
	return p.GroupValue != "" && containsString(groups, p.GroupValue)
}

// RoleFor is the role the mapping gives a person in groups: the most
// powerful whose group they are in, or "" when none is.
func (p *SAMLProvider) RoleFor(groups []string) Role {
	for _, m := range []struct {
		group string
		role  Role
	}{{p.AdminGroup, Admin}, {p.EditorGroup, Editor}, {p.ViewerGroup, Viewer}} {
		if m.group != "" && containsString(groups, m.group) {
			return m.role
		}
	}
	return ""
}

func containsString(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
