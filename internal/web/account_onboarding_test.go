package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

func TestOnboarding(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tests := []struct {
		name string
		form url.Values
		code int
		says string
	}{
		{"no name", url.Values{"name": {"!"}, "email": {"a@b.example"}, "password": {"long enough pass"}, "plan": {"Trial"}}, 422, "at least two letters"},
		{"reserved name", url.Values{"name": {"API"}, "email": {"a@b.example"}, "password": {"long enough pass"}, "plan": {"Trial"}}, 422, "reserved"},
		{"taken name", url.Values{"name": {"Adatum"}, "email": {"a@b.example"}, "password": {"long enough pass"}, "plan": {"Trial"}}, 422, "is taken"},
		{"bad email and password", url.Values{"name": {"Contoso"}, "email": {"nope"}, "password": {"short"}, "plan": {"Trial"}}, 422, "at least 10 characters"},
	}
	for _, tc := range tests {
		code, _, body := app.do(t, "POST", "/onboarding", tc.form, nil)
		if code != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d, want %d saying %q", tc.name, code, tc.code, tc.says)
		}
	}
	if _, err := store.NewTenantStore(app.st).Get(ctx, "contoso"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("an invalid sign-up made a tenant: %v", err)
	}

	code, h, _ := app.do(t, "POST", "/onboarding", url.Values{"name": {"Contoso Ltd"}, "email": {"Carol@Contoso.example"}, "password": {"long enough pass"}, "plan": {"Standard"}}, nil)
	if code != http.StatusSeeOther || h.Get("Location") != "/contosoltd/welcome" {
		t.Fatalf("sign-up = %d %q", code, h.Get("Location"))
	}
	var session string
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "surveys_session" {
			session = c.Value
		}
	}
	// The welcome page shows the organisation's key and sign-in address.
	if code, _, body := app.do(t, "GET", "/contosoltd/welcome", nil, map[string]string{"Cookie": "surveys_session=" + session}); code != 200 ||
		!strings.Contains(body, "<code>contosoltd</code>") || !strings.Contains(body, "/login?tenant=contosoltd") {
		t.Fatalf("the welcome page = %d\n%s", code, body)
	}
	if code, _, body := app.do(t, "GET", "/contosoltd/surveys", nil, map[string]string{"Cookie": "surveys_session=" + session}); code != 200 || !strings.Contains(body, "No surveys yet") {
		t.Fatalf("the new tenant's dashboard = %d", code)
	}
	tn, err := store.NewTenantStore(app.st).Get(ctx, "contosoltd")
	if err != nil || tn.Plan != survey.Trial || tn.Name != "Contoso Ltd" {
		t.Fatalf("tenant = %+v, %v", tn, err)
	}
	if code, _ := app.signIn(t, "contosoltd", "carol@contoso.example", "long enough pass"); code != 303 {
		t.Errorf("sign-in of the new administrator = %d", code)
	}
	// The same name again is taken.
	if code, _, body := app.do(t, "POST", "/onboarding", url.Values{"name": {"contoso-ltd"}, "email": {"x@y.example"}, "password": {"long enough pass"}, "plan": {"Trial"}}, nil); code != 422 || !strings.Contains(body, "is taken") {
		t.Errorf("second sign-up with the same key = %d", code)
	}
}

// TestOnboardingPlanIsTrial: a sign-up cannot choose a paid plan, and the
// settings page cannot change it; an operator does (surveys tenant plan).
func TestOnboardingPlanIsTrial(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	for _, plan := range []string{"Premium", "Standard", "Gold", ""} {
		name := "Contoso " + plan + "x"
		code, _, _ := app.do(t, "POST", "/onboarding", url.Values{"name": {name}, "email": {"c@contoso.example"}, "password": {"long enough pass"}, "plan": {plan}}, nil)
		if code != http.StatusSeeOther {
			t.Fatalf("sign-up with plan %q = %d, want 303", plan, code)
		}
		tn, err := store.NewTenantStore(app.st).Get(ctx, survey.TenantKey(name))
		if err != nil || tn.Plan != survey.Trial {
			t.Fatalf("sign-up with plan %q made %+v, %v; want the Trial plan", plan, tn, err)
		}
	}
	if code, _, body := app.do(t, "GET", "/onboarding", nil, nil); code != 200 || strings.Contains(body, `name="plan"`) || !strings.Contains(body, "Trial") {
		t.Fatalf("the sign-up page (%d) offers a choice of plan or does not name the trial", code)
	}
	// Adatum is on Premium (the demo data).
	c := signedIn(t, app, "adatum", "ana@adatum.example")
	if code, _, _ := app.postMultipart(t, "/adatum/settings", c, map[string]string{"name": "Adatum", "plan": "Trial"}, nil); code != http.StatusSeeOther {
		t.Fatalf("settings = %d", code)
	}
	if tn, _ := store.NewTenantStore(app.st).Get(ctx, "adatum"); tn.Plan != survey.Premium {
		t.Fatalf("the settings page changed the plan to %s", tn.Plan)
	}
}
