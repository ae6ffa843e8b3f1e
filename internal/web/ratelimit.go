package web

import (
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/go-chi/httprate"

	"github.com/surveys-dev/surveys/internal/scim"
)

// Limits bound the anonymous writes each client address may make. A zero
// count turns its limit off. They are kept in this process's memory: with
// several instances behind a load balancer, an address may make up to the
// limit on each instance.
type Limits struct {
	// Answers is the answer POSTs an address may make per minute, to any
	// survey.
	Answers int
	// Onboardings is the sign-ups an address may make per hour.
	Onboardings int
	// SignIns is the sign-in attempts (password POSTs, and starts of a
	// sign-in at an identity provider, which write a row each) an address
	// may make per minute.
	SignIns int
	// CopiesPerSurvey is the copies of answers (respond_copy.go) one survey's
	// respondents may ask for per hour, all addresses together;
	// CopiesPerAddress, those one e-mail address may be sent per hour,
	// from any survey. Asking for a copy is an answer POST too: it counts
	// against Answers.
	CopiesPerSurvey, CopiesPerAddress int
	// SCIMPerToken is the requests one SCIM token may make per minute
	// (an identity provider's sync; settings_scim.go).
	SCIMPerToken int
	// Receipts is the receipt codes (respond_receipt.go) an address may try per
	// hour: to see an answer, or to delete it.
	Receipts int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed. A request from elsewhere is counted by its own address, and
	// its X-Forwarded-For is ignored: anyone can write one.
	TrustedProxies []netip.Prefix
}

// DefaultLimits are the limits a server runs with unless told otherwise.
var DefaultLimits = Limits{Answers: 30, Onboardings: 5, SignIns: 20, CopiesPerSurvey: 100, CopiesPerAddress: 5, SCIMPerToken: scim.DefaultPerMinute, Receipts: 30}

// limiters holds one middleware per limited kind of request.
type limiters struct {
	answers, onboardings, signIns func(http.Handler) http.Handler
	// receipts are the tries of receipt codes.
	receipts func(http.Handler) http.Handler
	// probes are a page's questions about the respondent's path as they
	// answer (path.js): four for each answer allowed.
	probes func(http.Handler) http.Handler
	// copiesPerSurvey and copiesPerAddress count the copies asked for,
	// by survey and by (the hash of) the address; nil: no limit. They are
	// asked only once the survey exists and the copy's token is good, so
	// their keys are bounded by what was answered.
	copiesPerSurvey, copiesPerAddress *httprate.RateLimiter
}

func (s *Server) newLimiters(l Limits) limiters {
	key := func(r *http.Request) (string, error) { return clientAddr(r, l.TrustedProxies), nil }
	limit := func(n int, window time.Duration, wait string) func(http.Handler) http.Handler {
		if n <= 0 {
			return func(next http.Handler) http.Handler { return next }
		}
		// httprate counts per window in two maps (this window and the one
		// before), so its memory is bounded by the addresses seen in two
		// windows.
		return httprate.LimitBy(n, window, key,
			httprate.WithResponseHeaders(httprate.ResponseHeaders{RetryAfter: "Retry-After"}),
			httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
				s.render(w, r, http.StatusTooManyRequests, "error", s.inRespondentLanguage(w, r, errorPage{Title: "Too many requests",
					Message: "Too many requests have come from your address. Please wait " + wait + " and try again."}))
			}))
	}
	counter := func(n int) *httprate.RateLimiter {
		if n <= 0 {
			return nil
		}
		return httprate.NewRateLimiter(n, time.Hour)
	}
	return limiters{
		copiesPerSurvey:  counter(l.CopiesPerSurvey),
		copiesPerAddress: counter(l.CopiesPerAddress),
		answers:          limit(l.Answers, time.Minute, "a minute"),
		probes:           limit(4*l.Answers, time.Minute, "a minute"),
		onboardings:      limit(l.Onboardings, time.Hour, "an hour"),
		signIns:          limit(l.SignIns, time.Minute, "a minute"),
		receipts:         limit(l.Receipts, time.Hour, "an hour"),
	}
}

// clientAddr is the address a request is counted under: clientIP's,
// except that IPv6 addresses count by their /64, the block one
// subscriber usually has.
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	a, ok := clientAddrOf(r, trusted)
	if !ok {
		return r.RemoteAddr
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// clientIP is the client's address as the server sees it (the audit log
// keeps it): the peer's, or, when the peer is a trusted proxy, the
// right-most address of X-Forwarded-For that is not a trusted proxy (the
// left part of the header is the client's to write).
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	a, ok := clientAddrOf(r, trusted)
	if !ok {
		return r.RemoteAddr
	}
	return a.String()
}

func clientAddrOf(r *http.Request, trusted []netip.Prefix) (netip.Addr, bool) {
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	var a netip.Addr
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		a = ap.Addr().Unmap()
	} else if a, err = netip.ParseAddr(r.RemoteAddr); err != nil {
		return netip.Addr{}, false
	}
	if len(trusted) > 0 && isTrusted(a) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			h, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // not an address: stop at the last good one
			}
			a = h.Unmap()
			if !isTrusted(a) {
				break
			}
		}
	}
	return a.WithZone(""), true
}
