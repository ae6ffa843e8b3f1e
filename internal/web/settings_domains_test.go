package web_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/miekg/dns"

	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// testDNS is a DNS server on loopback (miekg/dns) that answers the TXT and
// A records a test sets, and NXDOMAIN for any other name.
type testDNS struct {
	addr string
	mu   sync.Mutex
	txt  map[string]string // name → value
	a    map[string]string // name → IPv4 address
}

func newTestDNS(t *testing.T) *testDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &testDNS{addr: pc.LocalAddr().String(), txt: map[string]string{}, a: map[string]string{}}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(d.serve)}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return d
}

func (d *testDNS) set(kind, name, value string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.txt
	if kind == "A" {
		m = d.a
	}
	m[name] = value
}

func (d *testDNS) serve(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, q := range req.Question {
		name := strings.TrimSuffix(strings.ToLower(q.Name), ".")
		txt, hasTXT := d.txt[name]
		a, hasA := d.a[name]
		hdr := dns.RR_Header{Name: q.Name, Rrtype: q.Qtype, Class: dns.ClassINET, Ttl: 1}
		switch {
		case !hasTXT && !hasA:
			m.Rcode = dns.RcodeNameError
		case q.Qtype == dns.TypeTXT && hasTXT:
			// Two records: the proof need not be a name's only one.
			m.Answer = append(m.Answer, &dns.TXT{Hdr: hdr, Txt: []string{"v=something-else"}}, &dns.TXT{Hdr: hdr, Txt: []string{txt}})
		case q.Qtype == dns.TypeA && hasA:
			m.Answer = append(m.Answer, &dns.A{Hdr: hdr, A: net.ParseIP(a)})
		}
	}
	_ = w.WriteMsg(m)
}

// countingDomains counts the host lookups that reach the store.
type countingDomains struct {
	*store.DomainStore
	lookups atomic.Int64
}

func (c *countingDomains) Lookup(ctx context.Context, host string) (string, error) {
	c.lookups.Add(1)
	return c.DomainStore.Lookup(ctx, host)
}

// domainApp is a test app with a public URL (http://main.example), whose
// proofs ask dnsServer and fetch HTTP tokens from port httpPort.
func domainApp(t *testing.T, d *testDNS, httpPort int) (*testApp, *countingDomains) {
	t.Helper()
	app, domains, _ := domainAppClock(t, d, httpPort)
	return app, domains
}

// domainAppClock is domainApp with the clock of its caches, to move.
func domainAppClock(t *testing.T, d *testDNS, httpPort int) (*testApp, *countingDomains, *testClock) {
	t.Helper()
	st := backends.Local(t)
	domains := &countingDomains{DomainStore: store.NewDomainStore(st)}
	clock := &testClock{}
	app := newTestAppOn(t, st, func(deps *web.Deps) {
		deps.Clock = clock.Now
		deps.PublicURL = "http://main.example"
		deps.Domains = domains
		deps.DomainCheck = web.DomainCheck{Resolver: d.addr, HTTPPort: httpPort}
		deps.Outbound = outbound.New(outbound.Config{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Resolver: web.NewResolver(d.addr)})
	})
	return app, domains, clock
}

var tokenValueRE = regexp.MustCompile(`id="txt-value" value="([0-9a-f]{32})"`)

// claim names host as the tenant's domain through the settings page and
// returns the token the page shows.
func (a *testApp) claim(t *testing.T, admin map[string]string, tenant, host string) string {
	t.Helper()
	code, hdr, _ := a.do(t, "POST", "/"+tenant+"/settings/domain", url.Values{"action": {"claim"}, "domain": {host}}, admin)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/"+tenant+"/settings/domain?done=claimed" {
		t.Fatalf("claim %s = %d to %q", host, code, hdr.Get("Location"))
	}
	code, _, body := a.do(t, "GET", "/"+tenant+"/settings/domain", nil, admin)
	m := tokenValueRE.FindStringSubmatch(body)
	if code != 200 || m == nil || !strings.Contains(body, "_surveys-challenge."+host) {
		t.Fatalf("domain page = %d, no token or record name: %s", code, body)
	}
	return m[1]
}

func onHost(host string, more ...string) map[string]string {
	h := map[string]string{"Host": host}
	for i := 0; i+1 < len(more); i += 2 {
		h[more[i]] = more[i+1]
	}
	return h
}

// TestCustomDomainDNS: an admin names a domain (a bad one is refused
// beside the field), which does nothing until its TXT record proves it
// (a missing or wrong record is refused, saying so); verified, the domain
// serves the tenant's survey at /{slug} and /survey/{tenant}/{slug}, takes
// an answer, serves static files, refuses sign-in, settings, the API and
// another tenant's survey (404), and the front proxy's ask says yes for
// it alone; the share page, QR code, embed snippet and personal links use
// it. Removed, it stops at once.
func TestCustomDomainDNS(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	app, _ := domainApp(t, d, 0)
	ctx := context.Background()
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	host := "surveys.adatum.example"
	slug := app.adatum.Slug
	fab, err := app.surveys.List(ctx, "fabrikam")
	if err != nil || len(fab) != 1 {
		t.Fatal(fab, err)
	}
	fabrikam, err := app.surveys.Get(ctx, "fabrikam", fab[0].Slug)
	if err != nil {
		t.Fatal(err)
	}

	for _, bad := range []struct{ host, says string }{
		{"localhost", "with a dot"}, {"203.0.113.7", "not an IP address"}, {"main.example", "own address"}, {"surveys.adatum.example:8443", "no path, port"},
	} {
		code, _, body := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"claim"}, "domain": {bad.host}}, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, bad.says) || !strings.Contains(body, `id="domain-error"`) {
			t.Errorf("claim %q = %d, want 422 saying %q", bad.host, code, bad.says)
		}
	}
	token := app.claim(t, ana, "adatum", host)

	// Claimed, not proved: the host is served as any other name of the
	// server (the main site), never as Adatum's.
	if code, _, _ := app.do(t, "GET", "/"+slug, nil, onHost(host)); code != http.StatusNotFound {
		t.Errorf("an unverified domain's /{slug} = %d, want the main site's 404", code)
	}
	if code, _, _ := app.do(t, "GET", "/tls/ask?domain="+host, nil, nil); code != http.StatusNotFound {
		t.Errorf("ask for an unverified domain = %d", code)
	}

	check := func(wantCode int, says string) {
		t.Helper()
		code, _, body := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"dns"}}, ana)
		if code != wantCode || !strings.Contains(body, says) {
			t.Fatalf("check = %d, want %d saying %q: %s", code, wantCode, says, body)
		}
	}
	check(http.StatusUnprocessableEntity, "No TXT record was found at _surveys-challenge."+host)
	d.set("TXT", "_surveys-challenge."+host, "not-the-token")
	check(http.StatusUnprocessableEntity, "does not hold the token")
	d.set("TXT", "_surveys-challenge."+host, token)
	code, hdr, _ := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"dns"}}, ana)
	if code != http.StatusSeeOther || !strings.HasSuffix(hdr.Get("Location"), "done=verified") {
		t.Fatalf("check with the record = %d to %q", code, hdr.Get("Location"))
	}

	// Served on the domain: Adatum's survey, at both addresses.
	for _, path := range []string{"/" + slug, "/survey/adatum/" + slug} {
		code, _, body := app.do(t, "GET", path, nil, onHost(host))
		if code != 200 || !strings.Contains(body, app.adatum.Title) {
			t.Errorf("GET %s on %s = %d, want Adatum's survey", path, host, code)
		}
	}
	code, _, page := app.do(t, "GET", "/"+slug, nil, onHost(strings.ToUpper(host)+".:443"))
	if code != 200 {
		t.Errorf("the host written otherwise (case, dot, port) = %d", code)
	}
	css := regexp.MustCompile(`href="(/static/app\.css[^"]*)"`).FindStringSubmatch(page)
	if css == nil {
		t.Fatal("no stylesheet on the survey page")
	}
	if code, _, _ := app.do(t, "GET", css[1], nil, onHost(host)); code != 200 {
		t.Errorf("static file on the domain = %d", code)
	}
	// An answer, given on the domain.
	m := tokenRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no form token on the domain's page")
	}
	code, hdr, _ = app.do(t, "POST", "/survey/adatum/"+slug, app.complete(m[1]), onHost(host))
	if code != http.StatusSeeOther || !strings.HasPrefix(hdr.Get("Location"), "/survey/adatum/"+slug+"/thankyou") {
		t.Errorf("answer on the domain = %d to %q", code, hdr.Get("Location"))
	}
	// Refused there: sign-in, settings, the API, the home page, another
	// tenant's survey (whatever the cookie).
	for _, path := range []string{"/login", "/login/forgot", "/onboarding", "/", "/adatum/settings", "/adatum/surveys", "/api/v1/surveys", "/api/v1/openapi.json",
		"/survey/fabrikam/" + fabrikam.Slug, "/" + fabrikam.Slug, "/healthz", "/metrics", "/tls/ask?domain=" + host} {
		code, _, body := app.do(t, "GET", path, nil, onHost(host, "Cookie", ana["Cookie"]))
		if code != http.StatusNotFound || strings.Contains(body, `type="password"`) || strings.Contains(body, fabrikam.Title) {
			t.Errorf("GET %s on %s = %d, want 404 with no sign-in form nor Fabrikam's survey", path, host, code)
		}
	}
	for _, path := range []string{"/login", "/survey/fabrikam/" + fabrikam.Slug, "/adatum/settings/domain"} {
		if code, _, _ := app.do(t, "POST", path, url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"correct horse battery"}}, onHost(host, "Cookie", ana["Cookie"])); code != http.StatusNotFound {
			t.Errorf("POST %s on %s = %d, want 404", path, host, code)
		}
	}

	// The front proxy's question: yes for the verified domain alone.
	for _, c := range []struct {
		domain string
		want   int
	}{{host, 200}, {"surveys.fabrikam.example", 404}, {"main.example", 404}, {"", 404}, {"SURVEYS.adatum.example", 404}, {"127.0.0.1", 404}} {
		if code, _, _ := app.do(t, "GET", "/tls/ask?domain="+url.QueryEscape(c.domain), nil, nil); code != c.want {
			t.Errorf("ask %q = %d, want %d", c.domain, code, c.want)
		}
	}

	// Links: the share page, the QR code and the embed snippet use it.
	link := "https://" + host + "/" + slug
	code, _, share := app.do(t, "GET", "/adatum/surveys/"+slug+"/share", nil, ana)
	if code != 200 || !strings.Contains(share, `value="`+link+`"`) || !strings.Contains(share, "src=&#34;https://"+host+"/survey/adatum/"+slug+"&#34;") {
		t.Errorf("share page = %d, without %s or the embed snippet on it", code, link)
	}
	if strings.Contains(share, "main.example/survey/adatum/"+slug) {
		t.Error("the share page still offers the main address")
	}
	if code, _, svg := app.do(t, "GET", "/adatum/surveys/"+slug+"/qr.svg", nil, ana); code != 200 || !strings.Contains(svg, "<title>QR code of "+link+"</title>") {
		t.Errorf("QR = %d, not of %s", code, link)
	}

	// Personal links (mailed when e-mail is on) use it; one opens there.
	poll := app.oncePoll(t, "By invitation on the domain", survey.OnePerLink, false)
	code, _, made := app.do(t, "POST", "/adatum/surveys/"+poll.Slug+"/links", url.Values{"count": {"1"}}, ana)
	if code != 200 || !strings.Contains(made, "https://"+host+"/survey/adatum/"+poll.Slug+"?k=") {
		t.Errorf("personal links = %d, not on the domain", code)
	}
	k := regexp.MustCompile(`\?k=([A-Za-z0-9_-]+)`).FindStringSubmatch(made)
	if k == nil {
		t.Fatal("no personal link made")
	}
	if code, _, body := app.do(t, "GET", "/survey/adatum/"+poll.Slug+"?k="+k[1], nil, onHost(host)); code != 200 || !strings.Contains(body, poll.Title) {
		t.Errorf("the personal link on the domain = %d", code)
	}

	// Removed: at once, no routing, no certificate, links on the main
	// address.
	if code, _, body := app.do(t, "GET", "/adatum/settings/domain/remove", nil, ana); code != 200 || !strings.Contains(body, host) || !strings.Contains(body, "stops serving") {
		t.Errorf("confirmation = %d", code)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"remove"}}, ana); code != http.StatusSeeOther {
		t.Fatalf("remove = %d", code)
	}
	if code, _, body := app.do(t, "GET", "/"+slug, nil, onHost(host)); code != http.StatusNotFound || strings.Contains(body, app.adatum.Title) {
		t.Errorf("a removed domain still serves the survey: %d", code)
	}
	if code, _, _ := app.do(t, "GET", "/tls/ask?domain="+host, nil, nil); code != http.StatusNotFound {
		t.Errorf("ask for a removed domain = %d", code)
	}
	if _, _, share := app.do(t, "GET", "/adatum/surveys/"+slug+"/share", nil, ana); !strings.Contains(share, "http://main.example/survey/adatum/"+slug) || strings.Contains(share, host) {
		t.Error("after removal the share page does not use the main address")
	}
}

// TestCustomDomainHTTPToken: the HTTP token is fetched through the
// guarded outbound client (loopback allowed here, as the operator may),
// at http://<host>/.well-known/surveys-domain/<token>; a missing or wrong
// file is refused saying so, the right one verifies the domain.
func TestCustomDomainHTTPToken(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	var body atomic.Value
	body.Store("")
	var asked atomic.Value
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.Host + r.URL.Path)
		b := body.Load().(string)
		if b == "" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(b + "\n"))
	}))
	t.Cleanup(receiver.Close)
	port, _ := strconv.Atoi(receiver.URL[strings.LastIndexByte(receiver.URL, ':')+1:])
	app, _ := domainApp(t, d, port)
	host := "surveys.fabrikam.example"
	d.set("A", host, "127.0.0.1")
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	token := app.claim(t, fred, "fabrikam", host)

	check := func(wantCode int, says string) {
		t.Helper()
		code, hdr, page := app.do(t, "POST", "/fabrikam/settings/domain", url.Values{"action": {"http"}}, fred)
		if code != wantCode || !strings.Contains(page, says) && !strings.Contains(hdr.Get("Location"), says) {
			t.Fatalf("check = %d, want %d saying %q: %s", code, wantCode, says, page)
		}
	}
	check(http.StatusUnprocessableEntity, "answered with status 404")
	if got, want := asked.Load(), host+":"+strconv.Itoa(port)+"/.well-known/surveys-domain/"+token; got != want {
		t.Errorf("the receiver was asked %v, want %s", got, want)
	}
	body.Store("someone-else")
	check(http.StatusUnprocessableEntity, "does not hold the token")
	body.Store(token)
	check(http.StatusSeeOther, "done=verified")
	if code, _, _ := app.do(t, "GET", "/tls/ask?domain="+host, nil, nil); code != 200 {
		t.Errorf("ask after the HTTP proof = %d", code)
	}
	// A name that leads to a private address the operator did not allow
	// is not fetched.
	closed := newTestAppOn(t, backends.Local(t), func(deps *web.Deps) {
		deps.PublicURL = "http://main.example"
		deps.DomainCheck = web.DomainCheck{Resolver: d.addr, HTTPPort: port}
		deps.Outbound = outbound.New(outbound.Config{Resolver: web.NewResolver(d.addr)})
	})
	fred = closed.signedIn(t, "fabrikam", "fred@fabrikam.example")
	closed.claim(t, fred, "fabrikam", host)
	asked.Store("")
	code, _, page := closed.do(t, "POST", "/fabrikam/settings/domain", url.Values{"action": {"http"}}, fred)
	if code != http.StatusUnprocessableEntity || !strings.Contains(page, "private or local address") || asked.Load() != "" {
		t.Errorf("a loopback token without the operator's leave = %d, asked %v", code, asked.Load())
	}
}

// TestCustomDomainCost: a request on the main host (its name, an
// address, any port) never looks a domain up; a verified domain's
// requests look it up once, then from the cache; a change on this
// instance is seen at once.
func TestCustomDomainCost(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	app, domains := domainApp(t, d, 0)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	host := "cost.adatum.example"
	token := app.claim(t, ana, "adatum", host)
	d.set("TXT", "_surveys-challenge."+host, token)
	if code, _, _ := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"dns"}}, ana); code != http.StatusSeeOther {
		t.Fatalf("verify = %d", code)
	}
	domains.lookups.Store(0)
	for _, h := range []string{"main.example", "MAIN.example:8080", "127.0.0.1", "[::1]:80", ""} {
		for range 10 {
			app.do(t, "GET", app.path(), nil, onHost(h))
		}
	}
	if n := domains.lookups.Load(); n != 0 {
		t.Fatalf("50 requests on the main host made %d domain lookups, want 0", n)
	}
	for range 10 {
		if code, _, _ := app.do(t, "GET", "/"+app.adatum.Slug, nil, onHost(host)); code != 200 {
			t.Fatalf("on the domain = %d", code)
		}
	}
	if n := domains.lookups.Load(); n != 1 {
		t.Fatalf("10 requests on the domain made %d lookups, want 1 (then the cache)", n)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"remove"}}, ana); code != http.StatusSeeOther {
		t.Fatalf("remove = %d", code)
	}
	if code, _, _ := app.do(t, "GET", "/"+app.adatum.Slug, nil, onHost(host)); code != http.StatusNotFound {
		t.Fatalf("after removal = %d, want 404 at once", code)
	}
	if n := domains.lookups.Load(); n != 2 {
		t.Fatalf("lookups = %d, want 2: the removal dropped the cached entry", n)
	}
}

// TestDomainClaimedElsewhere: a second domain of one tenant is refused
// (remove the first); a host another tenant holds is refused
// beside the field, and the refused tenant is left with no domain.
func TestDomainClaimedElsewhere(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	app, _ := domainApp(t, d, 0)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	app.claim(t, ana, "adatum", "shared.example")
	code, _, body := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"claim"}, "domain": {"second.adatum.example"}}, ana)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "already has the domain shared.example: remove it first") {
		t.Fatalf("a second domain = %d", code)
	}
	code, _, body = app.do(t, "POST", "/fabrikam/settings/domain", url.Values{"action": {"claim"}, "domain": {"shared.example"}}, fred)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Another organisation on this server uses shared.example") {
		t.Fatalf("a host held elsewhere = %d", code)
	}
	if _, err := store.NewDomainStore(app.st).Get(context.Background(), "fabrikam"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("the refused tenant has a domain: %v", err)
	}
}

// hostRouteVerdicts are the routes of a custom domain (HostRoutes), each
// with the status of a request for Adatum's own published survey on
// Adatum's verified domain, with an empty form; every one of them asked
// for Fabrikam's survey there is 404. Written out here, apart from the
// router: a route added to the domain's router fails the test until it
// is listed.
var hostRouteVerdicts = map[string]int{
	"GET /static/*":                            http.StatusOK, // asked for app.css
	"HEAD /static/*":                           http.StatusOK,
	"GET /{slug}":                              http.StatusOK,
	"GET /survey/{tenant}/{slug}":              http.StatusOK,
	"GET /survey/{tenant}/{slug}/thankyou":     http.StatusOK,
	"GET /survey/{tenant}/{slug}/results":      http.StatusNotFound,            // the demo survey shows no results
	"GET /logos/{name}":                        http.StatusNotFound,            // no such logo
	"POST /{slug}":                             http.StatusUnprocessableEntity, // no answer in the form
	"POST /survey/{tenant}/{slug}":             http.StatusUnprocessableEntity,
	"POST /survey/{tenant}/{slug}/copy":        http.StatusNotFound, // the demo survey offers no copies
	"POST /survey/{tenant}/{slug}/path":        http.StatusOK,       // where no answers lead; nothing stored
	"GET /survey/{tenant}/{slug}/resume/{key}": http.StatusNotFound, // a made-up key
}

// TestIsolationCustomHost walks the custom domain's router: each route
// answers Adatum's survey as hostRouteVerdicts says, and Fabrikam's (by
// its tenant, by its slug, by its logo) with 404 and none of its data.
// Then it walks the main router: every route the domain's router does not
// have (sign-in, settings, the API, the ask, the home page …), asked on
// Adatum's domain with an Adatum admin's cookie, is 404 with no sign-in
// form and no other tenant's data.
func TestIsolationCustomHost(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	app, _ := domainApp(t, d, 0)
	ctx := context.Background()
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	host := "iso.adatum.example"
	d.set("TXT", "_surveys-challenge."+host, app.claim(t, ana, "adatum", host))
	if code, _, _ := app.do(t, "POST", "/adatum/settings/domain", url.Values{"action": {"dns"}}, ana); code != http.StatusSeeOther {
		t.Fatalf("verify = %d", code)
	}
	fab, err := app.surveys.List(ctx, "fabrikam")
	if err != nil || len(fab) != 1 {
		t.Fatal(fab, err)
	}
	fabrikam, err := app.surveys.Get(ctx, "fabrikam", fab[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	fabrikamData := []string{fabrikam.Title, "Fabrikam"}
	leaks := func(body string) bool {
		for _, m := range fabrikamData {
			if strings.Contains(body, m) {
				return true
			}
		}
		return false
	}
	fill := func(route, tenant, slug string) string {
		return strings.NewReplacer("/*", "/app.css", "{tenant}", tenant, "{slug}", slug, "{name}", tenant+"-0123456789abcdef.png", "{key}", "0123456789abcdef0123456789abcdef").Replace(route)
	}
	walked := map[string]bool{}
	err = chi.Walk(app.web.HostRoutes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		key := method + " " + route
		want, ok := hostRouteVerdicts[key]
		if !ok {
			t.Errorf("%s is not in hostRouteVerdicts: say what it answers on a custom domain", key)
			return nil
		}
		walked[key] = true
		if code, _, _ := app.do(t, method, fill(route, "adatum", app.adatum.Slug), url.Values{}, onHost(host)); code != want {
			t.Errorf("%s for Adatum's survey on its domain = %d, want %d", key, code, want)
		}
		if route == "/static/*" {
			return nil // the same files for every host
		}
		for _, path := range []string{fill(route, "fabrikam", fabrikam.Slug), fill(route, "adatum", fabrikam.Slug)} {
			code, _, body := app.do(t, method, path, url.Values{}, onHost(host, "Cookie", ana["Cookie"]))
			if code != http.StatusNotFound || leaks(body) {
				t.Errorf("%s %s on Adatum's domain = %d (want 404), Fabrikam's data: %v", method, path, code, leaks(body))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range hostRouteVerdicts {
		if !walked[key] {
			t.Errorf("hostRouteVerdicts names %s, which the domain's router does not have", key)
		}
	}
	mainRoutes := 0
	err = chi.Walk(app.web.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if _, ok := hostRouteVerdicts[method+" "+route]; ok || route == "/static/*" {
			return nil // the same handler on both (the static files, for any method)
		}
		mainRoutes++
		path := strings.NewReplacer("{format}", "csv", "{action}", "publish", "{question}", "q1", "{answer}", "0639319281967095294-57ffb6",
			"{id}", "0123456789abcdef", "{n}", "0", "{link}", "x", "{token}", "x").Replace(fill(route, "adatum", app.adatum.Slug))
		code, _, body := app.do(t, method, path, url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"correct horse battery"}}, onHost(host, "Cookie", ana["Cookie"]))
		if code != http.StatusNotFound || strings.Contains(body, `type="password"`) || leaks(body) {
			t.Errorf("%s %s on Adatum's domain = %d, want 404 (no sign-in, no other tenant)", method, path, code)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if mainRoutes < 100 {
		t.Fatalf("walked %d routes of the main router: fewer than it has", mainRoutes)
	}
}

// TestCustomDomainOtherInstance: a domain verified or removed by another
// instance (here, in the store directly) routes, or stops, on this one
// within the cache's time (10 s), reading the store once a domain per
// period.
func TestCustomDomainOtherInstance(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	app, domains, clock := domainAppClock(t, d, 0)
	ctx := context.Background()
	host := "other.adatum.example"
	ds := store.NewDomainStore(app.st)
	if _, err := ds.Claim(ctx, "adatum", host); err != nil {
		t.Fatal(err)
	}
	path := "/" + app.adatum.Slug
	if code, _, _ := app.do(t, "GET", path, nil, onHost(host)); code != http.StatusNotFound {
		t.Fatalf("unverified = %d", code)
	}
	if _, err := ds.MarkVerified(ctx, "adatum"); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := app.do(t, "GET", path, nil, onHost(host)); code != http.StatusNotFound {
		t.Fatalf("verified elsewhere, within the cache's time = %d, want still 404", code)
	}
	clock.Advance(11 * time.Second)
	if code, _, _ := app.do(t, "GET", path, nil, onHost(host)); code != http.StatusOK {
		t.Fatalf("verified elsewhere, after the cache's time = %d, want 200", code)
	}
	if _, err := ds.Remove(ctx, "adatum"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(11 * time.Second)
	if code, _, _ := app.do(t, "GET", path, nil, onHost(host)); code != http.StatusNotFound {
		t.Fatalf("removed elsewhere, after the cache's time = %d, want 404", code)
	}
	if n := domains.lookups.Load(); n != 3 {
		t.Errorf("lookups = %d, want 3 (one per cache period)", n)
	}
}

// TestCustomDomainAPIPublicURL: the API's publicUrl of a survey of a
// tenant with a verified custom domain is on that domain (absolute);
// another tenant's stays a path on this server.
func TestCustomDomainAPIPublicURL(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	app, _ := domainApp(t, d, 0)
	ctx := context.Background()
	host := "api.adatum.example"
	ds := store.NewDomainStore(app.st)
	if _, err := ds.Claim(ctx, "adatum", host); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.MarkVerified(ctx, "adatum"); err != nil {
		t.Fatal(err)
	}
	tokens := store.NewTokenStore(app.st)
	for tenant, want := range map[string]string{
		"adatum":   "https://" + host + "/survey/adatum/" + app.adatum.Slug,
		"fabrikam": "/survey/fabrikam/",
	} {
		tok, err := tokens.Create(ctx, tenant, "test")
		if err != nil {
			t.Fatal(err)
		}
		code, v, raw := app.api(t, "GET", "/api/v1/surveys", tok, "")
		list, _ := v["surveys"].([]any)
		if code != 200 || len(list) == 0 {
			t.Fatalf("%s: list = %d %s", tenant, code, raw)
		}
		for _, it := range list {
			sv, _ := it.(map[string]any)
			u, _ := sv["publicUrl"].(string)
			if tenant == "adatum" && sv["slug"] == app.adatum.Slug && u != want {
				t.Errorf("adatum's publicUrl = %q, want %q", u, want)
			}
			if tenant == "adatum" && !strings.HasPrefix(u, "https://"+host+"/survey/adatum/") {
				t.Errorf("adatum's publicUrl %q is not on its domain", u)
			}
			if tenant == "fabrikam" && !strings.HasPrefix(u, want) {
				t.Errorf("fabrikam's publicUrl = %q, want a path %s…", u, want)
			}
		}
		slug, _ := list[0].(map[string]any)["slug"].(string)
		if code, v, raw := app.api(t, "GET", "/api/v1/surveys/"+slug, tok, ""); code != 200 || !strings.HasPrefix(v["publicUrl"].(string), strings.TrimSuffix(want, app.adatum.Slug)) {
			t.Errorf("%s: get = %d %s", tenant, code, raw)
		}
	}
}

// TestCustomDomainHomeLinks: on a tenant's custom domain, where "/" is no
// page, the respondent pages' "Powered by" and "See other surveys" links
// and an error page's home link go to the public URL's home page
// (absolute) and the error page shows no sign-in header; on the main
// address the same pages link to "/" (the form rendered once for each).
func TestCustomDomainHomeLinks(t *testing.T) {
	t.Parallel()
	d := newTestDNS(t)
	app, _ := domainApp(t, d, 0)
	ctx := context.Background()
	host := "home.adatum.example"
	ds := store.NewDomainStore(app.st)
	if _, err := ds.Claim(ctx, "adatum", host); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.MarkVerified(ctx, "adatum"); err != nil {
		t.Fatal(err)
	}
	closed := &survey.Survey{Tenant: "adatum", Title: "Closed poll", State: survey.Closed, Questions: []survey.Question{{Text: "Rate us", Type: survey.FiveStars}}}
	if err := store.NewSurveyStore(app.st).Create(ctx, closed); err != nil {
		t.Fatal(err)
	}
	const mainHome = `href="http://main.example/"`
	for _, tc := range []struct {
		name, path string
		header     map[string]string
		code       int
		want       []string
		not        []string
	}{
		{"the form on the domain", "/" + app.adatum.Slug, onHost(host), 200, []string{`<a href="http://main.example/" lang="en">Surveys</a>`}, []string{`href="/"`}},
		{"the form on the main address", "/survey/adatum/" + app.adatum.Slug, nil, 200, []string{`<a href="/" lang="en">Surveys</a>`}, []string{mainHome}},
		{"a closed survey on the domain", "/" + closed.Slug, onHost(host), http.StatusGone, []string{mainHome + `>See other surveys`}, []string{`href="/"`}},
		{"a closed survey on the main address", "/survey/adatum/" + closed.Slug, nil, http.StatusGone, []string{`href="/">See other surveys`}, []string{mainHome}},
		{"no page on the domain", "/no-such-survey", onHost(host), 404, []string{mainHome + `>Back to the home page`}, []string{`href="/"`, "Subscriber sign-in"}},
		{"no page on the main address", "/no-such-page", nil, 404, []string{`href="/">Back to the home page`}, []string{mainHome}},
	} {
		code, _, body := app.do(t, "GET", tc.path, nil, tc.header)
		if code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %s in the page", tc.name, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(body, n) {
				t.Errorf("%s: %s in the page", tc.name, n)
			}
		}
	}
}
