package store

import (
	"context"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// CachedSurveys serves published survey definitions and tenants from
// memory for a short time, so that a respondent's page view costs no
// storage call most of the time. A published survey's questions are
// frozen, so only its state (closed) can go stale, for at most TTL.
type CachedSurveys struct {
	surveys *SurveyStore
	tenants *TenantStore
	ttl     time.Duration
	now     func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	survey  *survey.Survey
	tenant  *survey.Tenant
	err     error
	expires time.Time
}

// maxCacheEntries bounds the cache; past it, it is emptied.
const maxCacheEntries = 10_000

// NewCachedSurveys returns a cache over the stores.
func NewCachedSurveys(surveys *SurveyStore, tenants *TenantStore, ttl time.Duration) *CachedSurveys {
	return &CachedSurveys{surveys: surveys, tenants: tenants, ttl: ttl, now: time.Now, entries: map[string]cacheEntry{}}
}

func (c *CachedSurveys) lookup(key string) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if ok && c.now().After(e.expires) {
		delete(c.entries, key)
		ok = false
	}
	return e, ok
}

func (c *CachedSurveys) keep(key string, e cacheEntry) {
	e.expires = c.now().Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCacheEntries {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[key] = e
}

// Survey returns a survey with its questions. Callers must not modify it.
// Not-found answers are cached too, so that probing for surveys costs
// little.
func (c *CachedSurveys) Survey(ctx context.Context, tenant, slug string) (*survey.Survey, error) {
	key := "s/" + tenant + "/" + slug
	if e, ok := c.lookup(key); ok {
		return e.survey, e.err
	}
	s, err := c.surveys.Get(ctx, tenant, slug)
	if err == nil || survey.ErrorCode(err) == survey.ENOTFOUND {
		c.keep(key, cacheEntry{survey: s, err: err})
	}
	return s, err
}

// Tenant returns a tenant. Callers must not modify it.
func (c *CachedSurveys) Tenant(ctx context.Context, key string) (*survey.Tenant, error) {
	k := "t/" + key
	if e, ok := c.lookup(k); ok {
		return e.tenant, e.err
	}
	t, err := c.tenants.Get(ctx, key)
	if err == nil || survey.ErrorCode(err) == survey.ENOTFOUND {
		c.keep(k, cacheEntry{tenant: t, err: err})
	}
	return t, err
}

// Forget drops a survey from the cache (after this process changed it).
func (c *CachedSurveys) Forget(tenant, slug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, "s/"+tenant+"/"+slug)
}
