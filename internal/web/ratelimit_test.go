package web_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/web"
)

// TestRateLimits: past its limit, an address gets 429 with Retry-After and
// a page saying to wait, on answers, sign-ups and sign-ins; another address
// is unaffected; X-Forwarded-For counts only from a trusted proxy.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	const n = 3
	behindProxy := func(d *web.Deps) {
		d.Limits = web.Limits{Answers: n, Onboardings: n, SignIns: n, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	}
	app := newTestAppOn(t, backends.Local(t), behindProxy)
	onboard := url.Values{"name": {"!"}, "email": {"a@b.example"}, "password": {"long enough pass"}}
	signIn := url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"wrong password!"}}
	tests := []struct {
		name, method, path string
		form               url.Values
		retryAfter         string
	}{
		{"answers", "POST", app.path(), url.Values{"token": {"x"}}, "60"},
		{"sign-ups", "POST", "/onboarding", onboard, "3600"},
		{"sign-ins", "POST", "/login", signIn, "60"},
		{"identity provider sign-ins", "GET", "/login/adatum/oidc", nil, "60"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from := func(addr string) (int, http.Header, string) {
				return app.do(t, tc.method, tc.path, tc.form, map[string]string{"X-Forwarded-For": "198.51.100.9, " + addr})
			}
			addr := "203.0.113." + string(rune('1'+i))
			for k := 0; k < n; k++ {
				if code, _, _ := from(addr); code == http.StatusTooManyRequests {
					t.Fatalf("request %d of %d = 429", k+1, n)
				}
			}
			code, h, body := from(addr)
			if code != http.StatusTooManyRequests || h.Get("Retry-After") != tc.retryAfter || !strings.Contains(body, "Please wait") {
				t.Fatalf("request %d = %d, Retry-After %q; want 429 after %s saying to wait", n+1, code, h.Get("Retry-After"), tc.retryAfter)
			}
			if code, _, _ := from("2001:db8::" + string(rune('1'+i))); code == http.StatusTooManyRequests {
				t.Fatal("another address was limited")
			}
		})
	}

	// Without trusted proxies, X-Forwarded-For is the client's to write and
	// changes nothing.
	direct := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Limits = web.Limits{Answers: n} })
	for k := 0; k <= n; k++ {
		code, _, _ := direct.do(t, "POST", direct.path(), url.Values{"token": {"x"}}, map[string]string{"X-Forwarded-For": "192.0.2." + string(rune('1'+k))})
		if want := k == n; (code == http.StatusTooManyRequests) != want {
			t.Fatalf("request %d with its own X-Forwarded-For = %d; limited: want %v", k+1, code, want)
		}
	}
}
