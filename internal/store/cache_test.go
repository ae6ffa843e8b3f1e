package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestCachedSurveysInvalidNames: a name no tenant or survey can have is
// not found without a storage call; a valid missing one is looked up once
// per TTL.
func TestCachedSurveysInvalidNames(t *testing.T) {
	ctx := context.Background()
	st := counting.New(backends.Local(t))
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	c := store.NewCachedSurveys(store.NewSurveyStore(st), store.NewTenantStore(st), time.Hour)
	long := strings.Repeat("a", 100<<10)
	calls := st.Total("")
	for _, name := range []struct{ tenant, slug string }{
		{"adatum", long}, {long, "survey"}, {"adatum", "Not-A-Slug"}, {"adatum", "a/b"}, {"api", "survey"}, {"", ""}, {"adatum", "-x"},
	} {
		if _, err := c.Survey(ctx, name.tenant, name.slug); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("Survey(%.20q, %.20q) = %v, want not found", name.tenant, name.slug, err)
		}
		if _, err := c.Tenant(ctx, name.tenant); name.tenant != "adatum" && survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("Tenant(%.20q) = %v, want not found", name.tenant, err)
		}
	}
	// Only "adatum" (valid, missing here) was looked up, once.
	if n := st.Total("") - calls; n != 1 {
		t.Fatalf("storage calls = %d, want 1 (the valid tenant key, then cached)", n)
	}
	for range 3 {
		if _, err := c.Survey(ctx, "adatum", "missing-survey"); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatal(err)
		}
	}
	if n := st.Total("") - calls; n != 2 {
		t.Fatalf("storage calls = %d, want 2 (a valid missing survey is looked up once, then cached)", n)
	}
}

// TestCachedTenantForget: a tenant changed by this process is read again
// at once after ForgetTenant (a new theme or logo shows on the next page),
// while without it the cached one is served until its TTL.
func TestCachedTenantForget(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	tenants := store.NewTenantStore(st)
	if err := tenants.Create(ctx, &survey.Tenant{Key: "adatum", Name: "Adatum", Plan: survey.Standard}); err != nil {
		t.Fatal(err)
	}
	c := store.NewCachedSurveys(store.NewSurveyStore(st), tenants, time.Hour)
	if got, err := c.Tenant(ctx, "adatum"); err != nil || got.Name != "Adatum" {
		t.Fatalf("Tenant = %+v, %v", got, err)
	}
	next, err := tenants.Get(ctx, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	next.Name = "Adatum Corporation"
	if err := tenants.Update(ctx, next); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Tenant(ctx, "adatum"); got.Name != "Adatum" {
		t.Fatalf("before ForgetTenant: %q, want the cached name", got.Name)
	}
	c.ForgetTenant("adatum")
	if got, _ := c.Tenant(ctx, "adatum"); got.Name != "Adatum Corporation" {
		t.Fatalf("after ForgetTenant: %q, want the new name", got.Name)
	}
}
