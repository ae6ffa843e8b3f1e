package web

import (
	"context"

	"github.com/surveys-dev/surveys/internal/survey"
)

// forgetter is a cache of the public pages' surveys that can drop one this
// process changed (store.CachedSurveys).
type forgetter interface {
	Forget(tenant, slug string)
}

// forgettingEditor is a SurveyEditor that, after each change, drops the
// survey from the public pages' cache: the subscriber who fixes a typo or
// closes a survey sees it on the public page at once (other instances
// within their cache's TTL).
type forgettingEditor struct {
	SurveyEditor
	cache forgetter
}

// withForget wraps e when public can forget; otherwise e is returned.
func withForget(e SurveyEditor, public PublicSurveys) SurveyEditor {
	f, ok := public.(forgetter)
	if !ok || e == nil {
		return e
	}
	return forgettingEditor{SurveyEditor: e, cache: f}
}

func (e forgettingEditor) Update(ctx context.Context, s *survey.Survey) error {
	defer e.cache.Forget(s.Tenant, s.Slug)
	return e.SurveyEditor.Update(ctx, s)
}

func (e forgettingEditor) SetState(ctx context.Context, tenant, slug string, state survey.State) (*survey.Survey, error) {
	defer e.cache.Forget(tenant, slug)
	return e.SurveyEditor.SetState(ctx, tenant, slug, state)
}

func (e forgettingEditor) SetChallenge(ctx context.Context, tenant, slug string, on bool) error {
	defer e.cache.Forget(tenant, slug)
	return e.SurveyEditor.SetChallenge(ctx, tenant, slug, on)
}

func (e forgettingEditor) SetTranslations(ctx context.Context, tenant, slug, language string, translations map[string]survey.Translation) error {
	defer e.cache.Forget(tenant, slug)
	return e.SurveyEditor.SetTranslations(ctx, tenant, slug, language, translations)
}

func (e forgettingEditor) Trash(ctx context.Context, tenant, slug string) error {
	defer e.cache.Forget(tenant, slug)
	return e.SurveyEditor.Trash(ctx, tenant, slug)
}

func (e forgettingEditor) Restore(ctx context.Context, tenant, slug string) error {
	defer e.cache.Forget(tenant, slug)
	return e.SurveyEditor.Restore(ctx, tenant, slug)
}

func (e forgettingEditor) Delete(ctx context.Context, tenant, slug string) error {
	defer e.cache.Forget(tenant, slug)
	return e.SurveyEditor.Delete(ctx, tenant, slug)
}

// tenantForgetter is a cache of the public pages' tenants that can drop
// one this process changed (a new theme, logo or name shows at once here).
type tenantForgetter interface {
	ForgetTenant(key string)
}

// forgettingSettings is TenantSettings that, after each update, drops the
// tenant from the public cache.
type forgettingSettings struct {
	TenantSettings
	cache tenantForgetter
}

// withTenantForget wraps t when public can forget tenants; otherwise t is
// returned.
func withTenantForget(t TenantSettings, public PublicSurveys) TenantSettings {
	f, ok := public.(tenantForgetter)
	if !ok || t == nil {
		return t
	}
	return forgettingSettings{TenantSettings: t, cache: f}
}

func (s forgettingSettings) Update(ctx context.Context, t *survey.Tenant) error {
	defer s.cache.ForgetTenant(t.Key)
	return s.TenantSettings.Update(ctx, t)
}
