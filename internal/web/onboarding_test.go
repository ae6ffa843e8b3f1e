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
		{"no plan", url.Values{"name": {"Contoso"}, "email": {"a@b.example"}, "password": {"long enough pass"}}, 422, "Choose a plan."},
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
	if code != http.StatusSeeOther || h.Get("Location") != "/contosoltd/surveys" {
		t.Fatalf("sign-up = %d %q", code, h.Get("Location"))
	}
	var session string
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "surveys_session" {
			session = c.Value
		}
	}
	if code, _, body := app.do(t, "GET", "/contosoltd/surveys", nil, map[string]string{"Cookie": "surveys_session=" + session}); code != 200 || !strings.Contains(body, "No surveys yet") {
		t.Fatalf("the new tenant's dashboard = %d", code)
	}
	tn, err := store.NewTenantStore(app.st).Get(ctx, "contosoltd")
	if err != nil || tn.Plan != survey.Standard || tn.Name != "Contoso Ltd" {
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
