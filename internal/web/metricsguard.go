package web

import (
	"net"
	"net/http"
	"net/netip"
)

// DefaultMetricsAllow is who may read /metrics when the operator names no
// network: this machine only.
var DefaultMetricsAllow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// metricsGuard serves /metrics only to clients whose address is in allow,
// and 403 to others. The address is the connection's (r.RemoteAddr), never
// a forwarded header: X-Forwarded-For is the client's to write, and a
// proxy in front connects from its own address (which the proxy's own
// rules then decide on; the documented proxies hide /metrics).
func metricsGuard(allow []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !addrAllowed(r.RemoteAddr, allow) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte("Metrics are not served to this network.\n"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// addrAllowed reports whether remote ("host:port", or a bare address) is in
// one of the prefixes.
func addrAllowed(remote string, allow []netip.Prefix) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.Unmap().WithZone("")
	for _, p := range allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
