package survey

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestValidateIdentityProvider(t *testing.T) {
	ok := Tenant{IssuerURL: "https://login.example.com/realms/a", ClientID: "surveys", ClientSecret: "s3cret", ClaimType: "groups", ClaimValue: "staff"}
	tests := []struct {
		name  string
		edit  func(*Tenant)
		field string // "" when valid
	}{
		{"complete", func(*Tenant) {}, ""},
		{"none at all", func(t *Tenant) { *t = Tenant{} }, ""},
		{"secret kept (blank)", func(t *Tenant) { t.ClientSecret = "" }, ""},
		{"no issuer", func(t *Tenant) { t.IssuerURL = "" }, "issuerUrl"},
		{"http issuer", func(t *Tenant) { t.IssuerURL = "http://login.example.com" }, "issuerUrl"},
		{"relative issuer", func(t *Tenant) { t.IssuerURL = "login.example.com" }, "issuerUrl"},
		{"issuer with query", func(t *Tenant) { t.IssuerURL = "https://login.example.com/?a=b" }, "issuerUrl"},
		{"issuer with user", func(t *Tenant) { t.IssuerURL = "https://ana:pw@login.example.com" }, "issuerUrl"},
		{"issuer with space", func(t *Tenant) { t.IssuerURL = "https://login.example.com/a b" }, "issuerUrl"},
		{"no client id", func(t *Tenant) { t.ClientID = " " }, "clientId"},
		{"long client id", func(t *Tenant) { t.ClientID = strings.Repeat("x", 201) }, "clientId"},
		{"no claim type", func(t *Tenant) { t.ClaimType = "" }, "claimType"},
		{"no claim value", func(t *Tenant) { t.ClaimValue = "" }, "claimValue"},
		{"control in claim", func(t *Tenant) { t.ClaimValue = "a\nb" }, "claimValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tn := ok
			tt.edit(&tn)
			err := tn.ValidateIdentityProvider()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("valid provider refused: %v", err)
				}
				return
			}
			e, _ := err.(*Error)
			if e == nil || e.Code != EINVALID || e.Fields[tt.field] == "" {
				t.Fatalf("got %v, want an error on %s", err, tt.field)
			}
		})
	}
}

func TestClaimGrants(t *testing.T) {
	var claims map[string]any
	if err := json.Unmarshal([]byte(`{"groups":["sales","staff"],"role":"staff","n":3,"obj":{"staff":true},"empty":[]}`), &claims); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		typ, value string
		want       bool
	}{
		{"groups", "staff", true},
		{"groups", "Staff", false},
		{"groups", "admins", false},
		{"role", "staff", true},
		{"role", "staf", false},
		{"n", "3", false},
		{"obj", "staff", false},
		{"empty", "staff", false},
		{"missing", "staff", false},
		{"", "", false},
		{"groups", "", false},
	}
	for _, tt := range tests {
		if got := ClaimGrants(claims, tt.typ, tt.value); got != tt.want {
			t.Errorf("ClaimGrants(%q, %q) = %v, want %v", tt.typ, tt.value, got, tt.want)
		}
	}
}

// FuzzIdentityProvider feeds the settings form's fields to the validation:
// it never panics, and an issuer it accepts is an absolute https URL.
func FuzzIdentityProvider(f *testing.F) {
	f.Add("https://login.example.com", "surveys", "groups", "staff")
	f.Add("https://[::1]:8443/realms/x", "c", "t", "v")
	f.Add("http://x", "", "", "")
	f.Add("https://a.example/%zz", "c\x00", "t", "v")
	f.Fuzz(func(t *testing.T, issuer, client, typ, value string) {
		tn := Tenant{IssuerURL: issuer, ClientID: client, ClaimType: typ, ClaimValue: value}
		if tn.ValidateIdentityProvider() != nil || tn.IssuerURL == "" {
			return
		}
		u, err := url.Parse(issuer)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" {
			t.Fatalf("accepted issuer %q", issuer)
		}
	})
}

// FuzzClaimGrants: any JSON claims set is judged without a panic, and a
// grant always means the claim holds the value exactly.
func FuzzClaimGrants(f *testing.F) {
	f.Add(`{"groups":["a","b"]}`, "groups", "b")
	f.Add(`{"role":"x"}`, "role", "x")
	f.Add(`{"role":[1,{"a":"x"},null]}`, "role", "x")
	f.Fuzz(func(t *testing.T, doc, typ, value string) {
		var claims map[string]any
		if json.Unmarshal([]byte(doc), &claims) != nil {
			return
		}
		if !ClaimGrants(claims, typ, value) {
			return
		}
		b, _ := json.Marshal(claims[typ])
		want, _ := json.Marshal(value)
		if !strings.Contains(string(b), string(want)) {
			t.Fatalf("granted %q=%q on %s", typ, value, b)
		}
	})
}
