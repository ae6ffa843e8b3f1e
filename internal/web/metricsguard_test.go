package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/web"
)

// TestMetricsAllow: /metrics answers only to the allowed networks, judged
// by the connection's address; a forwarded address is not believed.
func TestMetricsAllow(t *testing.T) {
	t.Parallel()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("surveys_up 1\n")) })
	newServer := func(allow []netip.Prefix) http.Handler {
		t.Helper()
		s, err := web.New(web.Deps{Metrics: metrics, MetricsAllow: allow})
		if err != nil {
			t.Fatal(err)
		}
		return s.Handler()
	}
	byDefault := newServer(nil)
	scraperNet := newServer([]netip.Prefix{netip.MustParsePrefix("10.1.2.0/24")})
	tests := []struct {
		name    string
		h       http.Handler
		remote  string
		forward string
		want    int
	}{
		{"internet", byDefault, "203.0.113.5:4711", "", http.StatusForbidden},
		{"internet claiming loopback", byDefault, "203.0.113.5:4711", "127.0.0.1", http.StatusForbidden},
		{"loopback", byDefault, "127.0.0.1:4711", "", http.StatusOK},
		{"loopback v6", byDefault, "[::1]:4711", "", http.StatusOK},
		{"loopback v4 in v6", byDefault, "[::ffff:127.0.0.1]:4711", "", http.StatusOK},
		{"private, not allowed", byDefault, "10.1.2.3:4711", "", http.StatusForbidden},
		{"the scraper's network", scraperNet, "10.1.2.3:4711", "", http.StatusOK},
		{"loopback, not allowed there", scraperNet, "127.0.0.1:4711", "", http.StatusForbidden},
		{"no address", byDefault, "", "", http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/metrics", nil)
			req.RemoteAddr = tc.remote
			if tc.forward != "" {
				req.Header.Set("X-Forwarded-For", tc.forward)
				req.Header.Set("X-Real-IP", tc.forward)
			}
			rec := httptest.NewRecorder()
			tc.h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("GET /metrics from %q = %d, want %d", tc.remote, rec.Code, tc.want)
			}
			body := rec.Body.String()
			if served := strings.Contains(body, "surveys_up"); served != (tc.want == http.StatusOK) {
				t.Errorf("body = %q", body)
			}
			if tc.want == http.StatusForbidden && !strings.Contains(body, "not served to this network") {
				t.Errorf("403 body = %q", body)
			}
		})
	}
}
