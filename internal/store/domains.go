package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// DomainsTable keeps the tenants' custom domains, two rows each: the
// host's (PartitionKey the host, RowKey "host": whose it is, the proof
// asked, whether it was given), which the server reads to route a
// request by its Host, and the tenant's (PartitionKey the tenant key,
// RowKey "tenant": a copy), which its settings page and its links read.
// A host has a dot and a tenant key none, so the two never meet. The
// host's row is inserted only when absent: two tenants cannot both hold a
// host.
const DomainsTable = "Domains"

const (
	domainHostRow   = "host"
	domainTenantRow = "tenant"
)

// ClaimExpiry is how long a claim nobody has proved holds its host: after
// it, another tenant may claim the host (the first could not prove it is
// theirs).
const ClaimExpiry = 72 * time.Hour

// Domain is a tenant's custom domain.
type Domain struct {
	Tenant string
	// Host is the domain, as survey.ParseDomain writes it.
	Host string
	// Token is what the proofs of control carry: the TXT record's value,
	// and the last part of the HTTP token's path.
	Token      string
	Verified   bool
	CreatedOn  time.Time
	VerifiedOn time.Time
}

// ChallengeName is the DNS name whose TXT record proves control.
func (d *Domain) ChallengeName() string { return "_surveys-challenge." + d.Host }

// TokenPath is the path on the host whose body proves control.
func (d *Domain) TokenPath() string { return "/.well-known/surveys-domain/" + d.Token }

// DomainStore keeps the tenants' custom domains (one each).
type DomainStore struct {
	st  storage.Storage
	now func() time.Time
	// verified maps a tenant to its verified host ("" none) for
	// VerifiedHostTTL; this store's changes drop the tenant's entry.
	verified *lrucache.Cache[string, string]
}

// VerifiedHostTTL is how long VerifiedHost believes what it read: a
// change made through this store is seen at once, one made on another
// instance within this time.
const VerifiedHostTTL = 10 * time.Second

// NewDomainStore returns a DomainStore over st.
func NewDomainStore(st storage.Storage) *DomainStore {
	return &DomainStore{st: st, now: time.Now,
		verified: lrucache.New(10_000, 2<<20, VerifiedHostTTL, func(k, v string) int64 { return int64(len(k)+len(v)) + 64 })}
}

// WithClock makes the store tell the time with now; it returns the store.
func (ds *DomainStore) WithClock(now func() time.Time) *DomainStore {
	ds.now = now
	ds.verified.WithClock(now)
	return ds
}

// VerifiedHost is the tenant's verified custom domain ("" when it has
// none, or has not proved it yet): the host the public links of its
// surveys use. Cached (bounded, VerifiedHostTTL): most calls read
// nothing.
func (ds *DomainStore) VerifiedHost(ctx context.Context, tenant string) (string, error) {
	if h, ok := ds.verified.Get(tenant); ok {
		return h, nil
	}
	d, err := ds.Get(ctx, tenant)
	h := ""
	switch {
	case err == nil && d.Verified:
		h = d.Host
	case err != nil && survey.ErrorCode(err) != survey.ENOTFOUND:
		return "", err
	}
	ds.verified.Add(tenant, h)
	return h, nil
}

// SurveyBase is the base of the public links of a tenant's surveys:
// https:// and its verified custom domain, else base (the configured
// public URL, or "" for a path on the server). A domain that cannot be
// read leaves base (the link works there too) and says why.
func SurveyBase(ctx context.Context, hosts interface {
	VerifiedHost(ctx context.Context, tenant string) (string, error)
}, tenant, base string) (string, error) {
	base = strings.TrimRight(base, "/")
	if hosts == nil {
		return base, nil
	}
	h, err := hosts.VerifiedHost(ctx, tenant)
	if err != nil || h == "" {
		return base, err
	}
	return "https://" + h, nil
}

func domainProps(d *Domain) map[string]any {
	p := map[string]any{"Tenant": d.Tenant, "Host": d.Host, "Token": d.Token, "Verified": d.Verified, "CreatedOn": d.CreatedOn.UTC()}
	if !d.VerifiedOn.IsZero() {
		p["VerifiedOn"] = d.VerifiedOn.UTC()
	}
	return p
}

func domainOf(e storage.Entity) *Domain {
	return &Domain{Tenant: e.String("Tenant"), Host: e.String("Host"), Token: e.String("Token"), Verified: e.Bool("Verified"),
		CreatedOn: e.Time("CreatedOn"), VerifiedOn: e.Time("VerifiedOn")}
}

// Get returns the tenant's domain; ENOTFOUND when it names none. (One
// read.)
func (ds *DomainStore) Get(ctx context.Context, tenant string) (*Domain, error) {
	d, _, err := ds.get(ctx, tenant)
	return d, err
}

func (ds *DomainStore) get(ctx context.Context, tenant string) (*Domain, string, error) {
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, "", survey.Errorf(survey.ENOTFOUND, "No custom domain.")
	}
	e, err := ds.st.GetEntity(ctx, DomainsTable, tenant, domainTenantRow)
	if isNotFound(err) {
		return nil, "", survey.Errorf(survey.ENOTFOUND, "No custom domain.")
	}
	if err != nil {
		return nil, "", mapErr(err, "Domain")
	}
	return domainOf(e), e.ETag, nil
}

// Lookup returns the tenant whose verified domain host is; ENOTFOUND when
// the host is no tenant's, or is not verified. (One read; the server
// caches it.)
func (ds *DomainStore) Lookup(ctx context.Context, host string) (string, error) {
	if !survey.ValidDomain(host) {
		return "", survey.Errorf(survey.ENOTFOUND, "No such domain.")
	}
	e, err := ds.st.GetEntity(ctx, DomainsTable, host, domainHostRow)
	if isNotFound(err) {
		return "", survey.Errorf(survey.ENOTFOUND, "No such domain.")
	}
	if err != nil {
		return "", mapErr(err, "Domain")
	}
	if !e.Bool("Verified") || e.String("Tenant") == "" {
		return "", survey.Errorf(survey.ENOTFOUND, "No such domain.")
	}
	return e.String("Tenant"), nil
}

// Claim names host as the tenant's domain, not yet verified, with a new
// token: EINVALID when the host is not a host name or the tenant has
// another domain (it removes that one first), ECONFLICT when another
// tenant holds the host (verified, or claimed within ClaimExpiry).
// Claiming the tenant's own domain again returns it unchanged.
//
// The tenant's row is written first and the host's inserted after it, so
// that a host's row always has its tenant's row (DeleteTenant finds it
// there); a claim refused takes its tenant's row back.
func (ds *DomainStore) Claim(ctx context.Context, tenant, host string) (*Domain, error) {
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, survey.Errorf(survey.ENOTFOUND, "Tenant not found.")
	}
	host, err := survey.ParseDomain(host)
	if err != nil {
		return nil, err
	}
	cur, err := ds.Get(ctx, tenant)
	switch {
	case err == nil && cur.Host == host:
		return cur, nil
	case err == nil:
		return nil, &survey.Error{Code: survey.EINVALID, Message: "The domain was not saved.",
			Fields: map[string]string{"domain": "This organisation already has the domain " + cur.Host + ": remove it first (one domain per organisation)."}}
	case survey.ErrorCode(err) != survey.ENOTFOUND:
		return nil, err
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	d := &Domain{Tenant: tenant, Host: host, Token: hex.EncodeToString(b[:]), CreatedOn: ds.now().UTC()}
	if _, err := ds.st.InsertEntity(ctx, DomainsTable, storage.Entity{PartitionKey: tenant, RowKey: domainTenantRow, Properties: domainProps(d)}); err != nil {
		return nil, mapErr(err, "Domain")
	}
	taken := func() (*Domain, error) {
		_ = ds.st.DeleteEntity(ctx, DomainsTable, tenant, domainTenantRow, "")
		return nil, &survey.Error{Code: survey.ECONFLICT, Message: "The domain was not saved.",
			Fields: map[string]string{"domain": "Another organisation on this server uses " + host + "."}}
	}
	row := storage.Entity{PartitionKey: host, RowKey: domainHostRow, Properties: domainProps(d)}
	_, err = ds.st.InsertEntity(ctx, DomainsTable, row)
	if isExists(err) {
		// Held: by this tenant (a removal cut short), or by another
		// whose claim nobody proved in time, it is taken over with
		// the ETag read (of two at once, one wins); else refused.
		e, gerr := ds.st.GetEntity(ctx, DomainsTable, host, domainHostRow)
		if gerr != nil {
			return taken()
		}
		if o := domainOf(e); o.Tenant != tenant && (o.Verified || ds.now().Sub(o.CreatedOn) < ClaimExpiry) {
			return taken()
		}
		if _, err = ds.st.UpdateEntity(ctx, DomainsTable, row, e.ETag); isPrecondition(err) || isNotFound(err) {
			return taken()
		}
	}
	if err != nil {
		_ = ds.st.DeleteEntity(ctx, DomainsTable, tenant, domainTenantRow, "")
		return nil, mapErr(err, "Domain")
	}
	return d, nil
}

// MarkVerified records that the tenant proved control of its domain
// (the caller checked the proof): from then on the host routes to the
// tenant. ENOTFOUND when the tenant has no domain, ECONFLICT when another
// tenant has since taken the host over.
func (ds *DomainStore) MarkVerified(ctx context.Context, tenant string) (*Domain, error) {
	defer ds.verified.Remove(tenant)
	d, etag, err := ds.get(ctx, tenant)
	if err != nil {
		return nil, err
	}
	e, err := ds.st.GetEntity(ctx, DomainsTable, d.Host, domainHostRow)
	if err != nil && !isNotFound(err) {
		return nil, mapErr(err, "Domain")
	}
	if err != nil || e.String("Tenant") != tenant || e.String("Token") != d.Token {
		return nil, &survey.Error{Code: survey.ECONFLICT, Message: "Another organisation has claimed " + d.Host + " since: remove the domain and claim it again."}
	}
	if d.Verified && e.Bool("Verified") {
		return d, nil
	}
	d.Verified, d.VerifiedOn = true, ds.now().UTC()
	// The host's row first: it is what routes.
	if _, err := ds.st.UpdateEntity(ctx, DomainsTable, storage.Entity{PartitionKey: d.Host, RowKey: domainHostRow, Properties: domainProps(d)}, e.ETag); err != nil {
		return nil, mapErr(err, "Domain")
	}
	if _, err := ds.st.UpdateEntity(ctx, DomainsTable, storage.Entity{PartitionKey: tenant, RowKey: domainTenantRow, Properties: domainProps(d)}, etag); err != nil {
		return nil, mapErr(err, "Domain")
	}
	return d, nil
}

// Remove takes the tenant's domain away: the host's row first (the host
// stops routing), then the tenant's. It returns the host removed;
// ENOTFOUND when the tenant has none.
func (ds *DomainStore) Remove(ctx context.Context, tenant string) (string, error) {
	defer ds.verified.Remove(tenant)
	d, err := ds.Get(ctx, tenant)
	if err != nil {
		return "", err
	}
	e, err := ds.st.GetEntity(ctx, DomainsTable, d.Host, domainHostRow)
	switch {
	case err == nil && e.String("Tenant") == tenant:
		if err := ds.st.DeleteEntity(ctx, DomainsTable, d.Host, domainHostRow, e.ETag); err != nil && !isNotFound(err) {
			return "", mapErr(err, "Domain")
		}
	case err != nil && !isNotFound(err):
		return "", mapErr(err, "Domain")
	}
	if err := ds.st.DeleteEntity(ctx, DomainsTable, tenant, domainTenantRow, ""); err != nil && !isNotFound(err) {
		return "", mapErr(err, "Domain")
	}
	return d.Host, nil
}

func isExists(err error) bool { return errors.Is(err, storage.ErrExists) }
