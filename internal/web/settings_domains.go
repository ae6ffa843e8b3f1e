package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Domains keeps the tenants' custom domains (store.DomainStore).
type Domains interface {
	Get(ctx context.Context, tenant string) (*store.Domain, error)
	Lookup(ctx context.Context, host string) (string, error)
	Claim(ctx context.Context, tenant, host string) (*store.Domain, error)
	MarkVerified(ctx context.Context, tenant string) (*store.Domain, error)
	Remove(ctx context.Context, tenant string) (string, error)
}

// DomainCheck configures how the server checks that a tenant controls the
// domain it names.
type DomainCheck struct {
	// Resolver is the DNS server (host:port) asked for the TXT record;
	// "" is the system's. (Give the outbound client the same one, with
	// NewResolver, for the HTTP token's host.)
	Resolver string
	// HTTPPort is the port the HTTP token is fetched from; 0 is 80 (a
	// test's receiver listens elsewhere).
	HTTPPort int
	// PerHour bounds the checks one tenant may ask for in an hour, each
	// a DNS query or an outbound request; 0 is DefaultDomainChecks.
	PerHour int
}

// DefaultDomainChecks is the checks of a domain a tenant may ask for per
// hour.
const DefaultDomainChecks = 20

// NewResolver returns a resolver that asks the DNS server at addr
// (host:port), or the system's resolver when addr is "".
func NewResolver(addr string) *net.Resolver {
	if addr == "" {
		return net.DefaultResolver
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

// hostCacheTTL is how long an instance believes what it read of a
// domain: a change made on this instance is seen at once (the entries
// are dropped), one made on another instance within this time.
const hostCacheTTL = 10 * time.Second

// domainRouting is the custom domains' side of the server.
type domainRouting struct {
	domains Domains
	// mainHost is the public URL's host (no port): requests to it never
	// look a domain up.
	mainHost string
	// hosts maps a host to its tenant ("" none); tenants a tenant to its
	// verified host ("" none). Both bounded, both dropped on a change.
	hosts, tenants *lrucache.Cache[string, string]
	resolver       *net.Resolver
	httpPort       int
	checks         *httprate.RateLimiter
}

func newDomainRouting(d Domains, publicURL string, c DomainCheck, clock func() time.Time) *domainRouting {
	if d == nil {
		return nil
	}
	main := ""
	if u, err := urlHost(publicURL); err == nil {
		main = u
	}
	size := func(k, v string) int64 { return int64(len(k)+len(v)) + 64 }
	if c.PerHour <= 0 {
		c.PerHour = DefaultDomainChecks
	}
	port := c.HTTPPort
	if port <= 0 {
		port = 80
	}
	if clock == nil {
		clock = time.Now
	}
	return &domainRouting{domains: d, mainHost: main,
		hosts:    lrucache.New[string, string](10_000, 2<<20, hostCacheTTL, size).WithClock(clock),
		tenants:  lrucache.New[string, string](10_000, 2<<20, hostCacheTTL, size).WithClock(clock),
		resolver: NewResolver(c.Resolver), httpPort: port, checks: httprate.NewRateLimiter(c.PerHour, time.Hour)}
}

// urlHost is the lower-case host of a URL, without its port.
func urlHost(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	i := strings.Index(raw, "://")
	if i < 0 || raw == "" {
		return "", errors.New("no scheme")
	}
	h := raw[i+3:]
	if j := strings.IndexAny(h, "/?#"); j >= 0 {
		h = h[:j]
	}
	return requestHost(h), nil
}

// requestHost is a Host header's name: lower case, without port or
// trailing dot.
func requestHost(h string) string {
	if hp, _, err := net.SplitHostPort(h); err == nil {
		h = hp
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// on reports whether custom domains are served: a store, and a public
// URL that tells the main host apart.
func (d *domainRouting) on() bool { return d != nil && d.mainHost != "" }

// custom returns the host of a request that may be a custom domain, with
// no storage call: not the main host, not an address, a DNS name.
func (d *domainRouting) custom(r *http.Request) (string, bool) {
	if !d.on() {
		return "", false
	}
	h := requestHost(r.Host)
	if h == d.mainHost || !survey.ValidDomain(h) {
		return "", false
	}
	return h, true
}

// tenantOf is the tenant whose verified domain host is ("" none): from
// the cache, else one storage read, kept (the absence too).
func (d *domainRouting) tenantOf(ctx context.Context, host string) (string, error) {
	if t, ok := d.hosts.Get(host); ok {
		return t, nil
	}
	t, err := d.domains.Lookup(ctx, host)
	if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return "", err
	}
	d.hosts.Add(host, t)
	return t, nil
}

// hostOf is the tenant's verified domain ("" none), cached as tenantOf.
func (d *domainRouting) hostOf(ctx context.Context, tenant string) (string, error) {
	if !d.on() {
		return "", nil
	}
	if h, ok := d.tenants.Get(tenant); ok {
		return h, nil
	}
	dom, err := d.domains.Get(ctx, tenant)
	h := ""
	switch {
	case err == nil && dom.Verified:
		h = dom.Host
	case err != nil && survey.ErrorCode(err) != survey.ENOTFOUND:
		return "", err
	}
	d.tenants.Add(tenant, h)
	return h, nil
}

// forget drops what the caches hold of a tenant and a host, after a
// change on this instance.
func (d *domainRouting) forget(tenant, host string) {
	d.tenants.Remove(tenant)
	if host != "" {
		d.hosts.Remove(host)
	}
}

// hostTenantKey is the context key of the tenant a custom domain names.
type hostTenantKey struct{}

// byHost sends a request to a tenant's verified custom domain to custom
// (its public pages only), and every other request to main. A request
// to the main host, to an address, or with no public URL set, costs
// nothing; one to another host costs a lookup in the cache (one storage
// read when it misses). A host that is no tenant's verified domain is
// served as the main host (as any other name of the server).
func (s *Server) byHost(main, custom http.Handler) http.Handler {
	if !s.domains.on() {
		return main
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, ok := s.domains.custom(r)
		if !ok {
			main.ServeHTTP(w, r)
			return
		}
		tenant, err := s.domains.tenantOf(r.Context(), host)
		if err != nil {
			// Never the main site's pages on what may be a tenant's
			// domain: unavailable until storage answers.
			s.log.Error("custom domain lookup", "host", host, "err", err)
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		if tenant == "" {
			main.ServeHTTP(w, r)
			return
		}
		custom.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), hostTenantKey{}, tenant)))
	})
}

// HostRoutes returns the router of a tenant's custom domain (the tenant
// is in the request's context, set by byHost): the respondent pages of
// its surveys, at /{slug} and /survey/{tenant}/{slug}, their logos and
// the static files. Everything else, sign-in, settings and the API
// among it, and any other tenant's survey, is 404.
func (s *Server) HostRoutes() *chi.Mux {
	r := chi.NewRouter()
	r.Use(s.http.middleware)
	r.Use(middleware.Recoverer)
	r.Use(securityHeaders)
	r.Get("/static/*", s.views.assets().ServeHTTP)
	r.Head("/static/*", s.views.assets().ServeHTTP)
	r.Group(func(r chi.Router) {
		r.Use(middleware.GetHead)
		r.Get("/{slug}", s.onHost(s.showSurvey))
		r.Get("/survey/{tenant}/{slug}", s.onHost(s.showSurvey))
		r.Get("/survey/{tenant}/{slug}/thankyou", s.onHost(s.thankYou))
		r.Get("/survey/{tenant}/{slug}/results", s.onHost(s.publicResults))
		r.Get("/logos/{name}", s.onHost(s.hostLogo))
	})
	r.With(s.limit.answers).Post("/{slug}", s.onHost(s.submitSurvey))
	r.With(s.limit.answers).Post("/survey/{tenant}/{slug}", s.onHost(s.submitSurvey))
	r.With(s.limit.answers).Post("/survey/{tenant}/{slug}/copy", s.onHost(s.sendCopy))
	r.With(s.limit.probes).Post("/survey/{tenant}/{slug}/path", s.onHost(s.pathProbe))
	r.With(s.limit.answers).Get("/survey/{tenant}/{slug}/resume/{key}", s.onHost(s.resumeSurvey))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.serveError(w, r, notFound("Page not found."))
	})
	return r
}

// onHost serves h for the custom domain's tenant: a route without a
// {tenant} takes the domain's; one naming another tenant is 404.
func (s *Server) onHost(h handlerFunc) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		tenant, _ := r.Context().Value(hostTenantKey{}).(string)
		if tenant == "" {
			return notFound("Page not found.")
		}
		switch p := chi.URLParam(r, "tenant"); p {
		case "":
			chi.RouteContext(r.Context()).URLParams.Add("tenant", tenant)
		case tenant:
		default:
			return notFound("Page not found.")
		}
		return h(w, r)
	})
}

// hostLogo serves the domain's tenant's own images only.
func (s *Server) hostLogo(w http.ResponseWriter, r *http.Request) error {
	if !strings.HasPrefix(chi.URLParam(r, "name"), chi.URLParam(r, "tenant")+"-") {
		return notFound("Logo not found.")
	}
	return s.logo(w, r)
}

// tlsAsk answers the front proxy's question before it gets a certificate
// for a name (Caddy's on_demand_tls ask): 200 for a tenant's verified
// domain, 404 for any other name. It says no more than whether the name
// is served, which a TLS handshake says too.
func (s *Server) tlsAsk(w http.ResponseWriter, r *http.Request) error {
	host := r.URL.Query().Get("domain")
	if !s.domains.on() || !survey.ValidDomain(host) || host == s.domains.mainHost {
		return notFound("Not a domain served here.")
	}
	tenant, err := s.domains.tenantOf(r.Context(), host)
	if err != nil {
		return err
	}
	if tenant == "" {
		return notFound("Not a domain served here.")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
	return nil
}

// surveyBase is the base of the public links of a tenant's surveys:
// https:// and its verified custom domain, else base (the public URL or
// the request's, as the caller chose). It never comes from a request.
func (s *Server) surveyBase(ctx context.Context, tenant, base string) string {
	h, err := s.domains.hostOf(ctx, tenant)
	if err != nil {
		s.log.Warn("custom domain not read; links use the main address", "tenant", tenant, "err", err)
		return base
	}
	if h == "" {
		return base
	}
	return "https://" + h
}

// domainPage is the custom domain's settings page.
type domainPage struct {
	Tenant *survey.Tenant
	Domain *store.Domain
	// On: the server serves custom domains (a public URL is set).
	On bool
	// Host is the name typed; Errors beside the fields; Message an
	// alert, Notice a status.
	Host            string
	Errors          map[string]string
	Message, Notice string
}

func (s *Server) domainPageFor(r *http.Request) (domainPage, error) {
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return domainPage{}, err
	}
	p := domainPage{Tenant: t, On: s.domains.on()}
	if !p.On {
		return p, nil
	}
	d, err := s.domains.domains.Get(r.Context(), t.Key)
	switch {
	case err == nil:
		p.Domain = d
	case survey.ErrorCode(err) != survey.ENOTFOUND:
		return p, err
	}
	return p, nil
}

// showDomain shows the tenant's custom domain: the form that names one,
// or the proofs it waits for, or that it is verified.
func (s *Server) showDomain(w http.ResponseWriter, r *http.Request) error {
	p, err := s.domainPageFor(r)
	if err != nil {
		return err
	}
	switch r.URL.Query().Get("done") {
	case "claimed":
		p.Notice = "Saved. Prove that the domain is yours with one of the two ways below."
	case "verified":
		p.Notice = "Verified: your surveys are served at this domain, and their links use it."
	case "removed":
		p.Notice = "The domain is removed: it serves nothing any more, and your links use this server's address."
	}
	s.render(w, r, http.StatusOK, "domain", p)
	return nil
}

// confirmRemoveDomain asks before the domain is removed, saying what
// stops.
func (s *Server) confirmRemoveDomain(w http.ResponseWriter, r *http.Request) error {
	p, err := s.domainPageFor(r)
	if err != nil {
		return err
	}
	if p.Domain == nil {
		http.Redirect(w, r, "/"+p.Tenant.Key+"/settings/domain", http.StatusSeeOther)
		return nil
	}
	s.render(w, r, http.StatusOK, "domain_remove", p)
	return nil
}

// saveDomain claims a domain ("claim"), checks a proof of it ("dns",
// "http") or removes it ("remove"). A bad name or a failed proof is
// shown beside the field or above the proofs (422), nothing changed.
func (s *Server) saveDomain(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read.")
	}
	p, err := s.domainPageFor(r)
	if err != nil {
		return err
	}
	if !p.On {
		return notFound("This server does not serve custom domains.")
	}
	key := p.Tenant.Key
	again := func(status int) error {
		s.render(w, r, status, "domain", p)
		return nil
	}
	done := func(what string) error {
		http.Redirect(w, r, "/"+key+"/settings/domain?done="+what, http.StatusSeeOther)
		return nil
	}
	switch action := r.PostForm.Get("action"); action {
	case "claim":
		p.Host = strings.TrimSpace(r.PostForm.Get("domain"))
		if p.Domain != nil {
			p.Message = "This organisation already has the domain " + p.Domain.Host + ": remove it first (one domain per organisation)."
			return again(http.StatusUnprocessableEntity)
		}
		if h, err := survey.ParseDomain(p.Host); err == nil && h == s.domains.mainHost {
			p.Errors = map[string]string{"domain": "That is this server's own address; give a host name of your organisation's."}
			return again(http.StatusUnprocessableEntity)
		}
		d, err := s.domains.domains.Claim(r.Context(), key, p.Host)
		var fe *survey.Error
		if errors.As(err, &fe) && len(fe.Fields) > 0 {
			p.Errors = fe.Fields
			return again(http.StatusUnprocessableEntity)
		}
		if err != nil {
			return err
		}
		s.domains.forget(key, d.Host)
		s.audit(r, survey.AuditDomain, d.Host, "claimed")
		return done("claimed")
	case "dns", "http":
		if p.Domain == nil {
			return done("")
		}
		if p.Domain.Verified {
			return done("verified")
		}
		if s.domains.checks.OnLimit(w, r, key) {
			p.Message = "Too many checks were asked for in the last hour; wait a while and check again."
			return again(http.StatusTooManyRequests)
		}
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		defer cancel()
		check := s.checkDNS
		if action == "http" {
			check = s.checkHTTP
		}
		if problem := check(ctx, p.Domain); problem != "" {
			p.Message = problem
			return again(http.StatusUnprocessableEntity)
		}
		d, err := s.domains.domains.MarkVerified(r.Context(), key)
		if survey.ErrorCode(err) == survey.ECONFLICT {
			p.Message = err.(*survey.Error).Message
			return again(http.StatusConflict)
		}
		if err != nil {
			return err
		}
		s.domains.forget(key, d.Host)
		s.audit(r, survey.AuditDomain, d.Host, "verified by "+map[string]string{"dns": "DNS", "http": "HTTP token"}[action])
		return done("verified")
	case "remove":
		host, err := s.domains.domains.Remove(r.Context(), key)
		if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return err
		}
		s.domains.forget(key, host)
		if host != "" {
			s.audit(r, survey.AuditDomain, host, "removed")
		}
		return done("removed")
	default:
		p.Message = "Choose what to do: save a domain, check it, or remove it."
		return again(http.StatusUnprocessableEntity)
	}
}

// checkDNS looks for the TXT record that proves control of d; it returns
// what is wrong, in words for the page, or "".
func (s *Server) checkDNS(ctx context.Context, d *store.Domain) string {
	txts, err := s.domains.resolver.LookupTXT(ctx, d.ChallengeName())
	var de *net.DNSError
	switch {
	case errors.As(err, &de) && de.IsNotFound:
		return "No TXT record was found at " + d.ChallengeName() + ". Add it as shown, wait for the change to reach DNS (minutes, sometimes an hour), and check again."
	case err != nil:
		return "The DNS lookup of " + d.ChallengeName() + " failed; try again in a few minutes."
	}
	for _, t := range txts {
		if strings.TrimSpace(t) == d.Token {
			return ""
		}
	}
	return "The TXT record at " + d.ChallengeName() + " does not hold the token shown here. Set its value to the token exactly, and check again."
}

// checkHTTP fetches the token's address on the domain, through the
// guarded outbound client; it returns what is wrong, or "".
func (s *Server) checkHTTP(ctx context.Context, d *store.Domain) string {
	u := "http://" + d.Host
	if s.domains.httpPort != 80 {
		u += ":" + strconv.Itoa(s.domains.httpPort)
	}
	u += d.TokenPath()
	body, status, err := s.hooksClient.GetOpen(ctx, u)
	switch {
	case errors.Is(err, outbound.ErrAddressNotAllowed):
		return "http://" + d.Host + d.TokenPath() + " could not be fetched: the name leads to a private or local address."
	case err != nil:
		return "http://" + d.Host + d.TokenPath() + " could not be fetched: " + outbound.Problem(err) + "."
	case status != http.StatusOK:
		return "http://" + d.Host + d.TokenPath() + " answered with status " + strconv.Itoa(status) + ", not 200."
	case strings.TrimSpace(string(body)) != d.Token:
		return "http://" + d.Host + d.TokenPath() + " does not hold the token shown here: its text must be the token alone."
	}
	return ""
}

// apiSurveyBase starts the API's publicUrl of a tenant's surveys:
// https:// and its verified custom domain, else "" (a path here).
func (s *Server) apiSurveyBase(ctx context.Context, tenant string) string {
	return s.surveyBase(ctx, tenant, "")
}

// homeOf is the site's home page for the links of a page served to r:
// the public URL's, absolute, on a tenant's custom domain (where "/" is
// no page); "" (the path "/") elsewhere. From the configured public URL,
// never from the request.
func (s *Server) homeOf(r *http.Request) string {
	if t, _ := r.Context().Value(hostTenantKey{}).(string); t != "" {
		return s.publicURL + "/"
	}
	return ""
}
