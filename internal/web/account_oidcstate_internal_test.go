package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
)

// TestSignInCookie: a sealed state opens once, for its tenant and state,
// before it expires; tampered, expired, another tenant's or another key's
// it does not.
func TestSignInCookie(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	c, err := newSignInCookies(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return now }
	sealed, st, err := c.begin("adatum", "verifier", "/adatum/surveys")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, st.State) || strings.Contains(sealed, "verifier") || strings.Contains(sealed, "/adatum") {
		t.Fatalf("the cookie shows what it holds: %s", sealed)
	}
	other, _ := newSignInCookies(nil)
	tampered := []byte(sealed)
	tampered[len(tampered)-3] ^= 1
	refused := []struct {
		name                  string
		c                     *signInCookies
		tenant, cookie, state string
		later                 time.Duration
	}{
		{"another tenant", c, "fabrikam", sealed, st.State, 0},
		{"another state", c, "adatum", sealed, otherLast(st.State), 0},
		{"no state", c, "adatum", sealed, "", 0},
		{"no cookie", c, "adatum", "", st.State, 0},
		{"tampered", c, "adatum", string(tampered), st.State, 0},
		{"the state as the cookie", c, "adatum", st.State, st.State, 0},
		{"another key", other, "adatum", sealed, st.State, 0},
		{"expired", c, "adatum", sealed, st.State, signInTTL + time.Second},
	}
	for _, tt := range refused {
		tt.c.now = func() time.Time { return now.Add(tt.later) }
		if _, err := tt.c.take(tt.tenant, tt.cookie, tt.state); err == nil {
			t.Errorf("%s: opened", tt.name)
		}
	}
	c.now = func() time.Time { return now.Add(signInTTL - time.Second) }
	got, err := c.take("adatum", sealed, st.State)
	if err != nil || got != st {
		t.Fatalf("take = %+v, %v; want %+v", got, err, st)
	}
	if _, err := c.take("adatum", sealed, st.State); err == nil {
		t.Fatal("a state served twice")
	}
	// A derived key opens across instances that share SURVEYS_SECRET_KEY.
	box, _ := secret.New([]byte("0123456789abcdef0123456789abcdef"))
	a, _ := newSignInCookies(box.Derive("oidc-sign-in"))
	b, _ := newSignInCookies(box.Derive("oidc-sign-in"))
	sealed, st, _ = a.begin("adatum", "v", "")
	if _, err := b.take("adatum", sealed, st.State); err != nil {
		t.Fatalf("another instance with the same key: %v", err)
	}
	if _, err := box.Open(sealed, signInAD("adatum")); err == nil {
		t.Fatal("the cookie opens with the key of the tenants' secrets")
	}
}

// FuzzSignInCookie: no cookie value but one this server sealed opens.
func FuzzSignInCookie(f *testing.F) {
	c, err := newSignInCookies(nil)
	if err != nil {
		f.Fatal(err)
	}
	sealed, st, _ := c.begin("adatum", "v", "/adatum/x")
	f.Add(sealed, st.State)
	f.Add("v1:AAAA", "x")
	f.Add("", "")
	f.Add(st.State, st.State)
	f.Fuzz(func(t *testing.T, cookie, state string) {
		if cookie == sealed {
			return
		}
		if _, err := c.take("adatum", cookie, state); err == nil {
			t.Fatalf("opened %q", cookie)
		}
	})
}

// TestProvidersBounded: the cache of identity providers holds no more than
// its bounds in entries and bytes, however many issuers are looked up, and
// a discovery document's size counts.
func TestProvidersBounded(t *testing.T) {
	t.Parallel()
	ps := newProviders(nil)
	for i := range 3 * maxProviders {
		ps.cache.Add(fmt.Sprintf("https://idp%d.example", i), cachedProvider{size: 64 << 10})
	}
	if n, b := ps.cache.Len(), ps.cache.Bytes(); n > maxProviders || b > maxProviderBytes {
		t.Fatalf("%d providers, %d bytes kept; at most %d and %d", n, b, maxProviders, maxProviderBytes)
	}
	if n := ps.cache.Len(); n != maxProviderBytes/(64<<10+providerKeysBytes) {
		t.Fatalf("%d providers kept, want the byte bound to decide", n)
	}
}

// otherLast is s with another last character (x, or y when it is x).
func otherLast(s string) string {
	if strings.HasSuffix(s, "x") {
		return s[:len(s)-1] + "y"
	}
	return s[:len(s)-1] + "x"
}
