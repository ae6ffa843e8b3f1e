package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/survey"
)

// CachedSurveys serves published survey definitions, as respondents see
// them (without hidden questions), and tenants from memory for a short
// time, so that a respondent's page view costs no storage call most of the
// time. An edit of a published survey, or its closing, shows after at most
// TTL (question IDs do not change with an edit, so an answer to the version
// before counts the same).
//
// Anyone can ask for any name, so a name that is not a valid tenant key or
// slug is "not found" without a lookup (nothing stored, nothing cached),
// and the cache is bounded in entries and bytes.
type CachedSurveys struct {
	surveys *SurveyStore
	tenants *TenantStore
	cache   *lrucache.Cache[string, cacheEntry]
}

type cacheEntry struct {
	survey *survey.Survey
	tenant *survey.Tenant
	err    error
}

// Bounds of the cache of public surveys and tenants. An entry is counted
// as its key, its value as JSON, and entryOverhead.
const (
	maxCacheEntries = 10_000
	maxCacheBytes   = 32 << 20
	entryOverhead   = 512
)

// NewCachedSurveys returns a cache over the stores.
func NewCachedSurveys(surveys *SurveyStore, tenants *TenantStore, ttl time.Duration) *CachedSurveys {
	return &CachedSurveys{surveys: surveys, tenants: tenants,
		cache: lrucache.New(maxCacheEntries, maxCacheBytes, ttl, cacheEntrySize)}
}

// WithClock makes the cache tell the time with now (nil: time.Now), so
// that a test moves a clock past the TTL instead of sleeping; it returns c.
// Call it before the cache is used.
func (c *CachedSurveys) WithClock(now func() time.Time) *CachedSurveys {
	if now == nil {
		now = time.Now
	}
	c.cache.WithClock(now)
	return c
}

func cacheEntrySize(key string, e cacheEntry) int64 {
	n := int64(len(key) + entryOverhead)
	if e.survey != nil {
		b, _ := json.Marshal(e.survey)
		n += int64(len(b))
	}
	if e.tenant != nil {
		b, _ := json.Marshal(e.tenant)
		n += int64(len(b))
	}
	return n
}

// Survey returns a survey with the questions respondents see (Visible):
// one value per cached entry, so that what is kept by survey (the forms
// rendered once) is kept once. Callers must not modify it.
// Not-found answers are cached too, so that probing for surveys costs
// little.
func (c *CachedSurveys) Survey(ctx context.Context, tenant, slug string) (*survey.Survey, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	key := "s/" + tenant + "/" + slug
	if e, ok := c.cache.Get(key); ok {
		return e.survey, e.err
	}
	s, err := c.surveys.Get(ctx, tenant, slug)
	if err == nil {
		s = s.Visible()
	}
	if err == nil || survey.ErrorCode(err) == survey.ENOTFOUND {
		c.cache.Add(key, cacheEntry{survey: s, err: err})
	}
	return s, err
}

// Tenant returns a tenant. Callers must not modify it.
func (c *CachedSurveys) Tenant(ctx context.Context, key string) (*survey.Tenant, error) {
	if survey.ValidateTenantKey(key) != nil {
		return nil, survey.Errorf(survey.ENOTFOUND, "Tenant not found.")
	}
	k := "t/" + key
	if e, ok := c.cache.Get(k); ok {
		return e.tenant, e.err
	}
	t, err := c.tenants.Get(ctx, key)
	if err == nil || survey.ErrorCode(err) == survey.ENOTFOUND {
		c.cache.Add(k, cacheEntry{tenant: t, err: err})
	}
	return t, err
}

// ForgetTenant drops a tenant from the cache (after this process changed
// it).
func (c *CachedSurveys) ForgetTenant(key string) {
	c.cache.Remove("t/" + key)
}

// Forget drops a survey from the cache (after this process changed it).
func (c *CachedSurveys) Forget(tenant, slug string) {
	c.cache.Remove("s/" + tenant + "/" + slug)
}
