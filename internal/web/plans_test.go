package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestPlanLimitsInTheBrowser: a Trial tenant's limits are refused with a
// clear message on the designer and the dashboard, and an ended trial or a
// suspension shows on every side: respondents, sign-in, session and API.
func TestPlanLimitsInTheBrowser(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tenants := store.NewTenantStore(app.st)
	tn, _ := tenants.Get(ctx, "adatum")
	tn.Plan = survey.Trial
	tn.CreatedOn = time.Now().AddDate(0, 0, -1)
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	c := signedIn(t, app, "adatum", "ana@adatum.example")
	cookie := map[string]string{"Cookie": c.Name + "=" + c.Value}

	code, _, body := app.get(t, "/adatum/surveys", c)
	if code != 200 || !strings.Contains(body, "Trial plan · 1 of 1 published") || !strings.Contains(body, "trial ends") {
		t.Fatalf("dashboard = %d, without the plan line", code)
	}
	// Eleven questions on a ten-question plan.
	form := url.Values{"title": {"Too long"}, "n": {"11"}, "action": {"save"}}
	for i := range 11 {
		form.Set(fmt.Sprintf("q.%d.text", i), "Question")
		form.Set(fmt.Sprintf("q.%d.type", i), "SimpleText")
	}
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", form, cookie)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "The Trial plan allows 10 questions per survey") {
		t.Fatalf("eleven questions = %d", code)
	}
	// A second published survey, from the designer: 403, the form kept.
	form = url.Values{"title": {"Second"}, "n": {"1"}, "q.0.text": {"Why?"}, "q.0.type": {"SimpleText"}, "action": {"publish"}}
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", form, cookie)
	if code != http.StatusForbidden || !strings.Contains(body, "allows 1 published survey at a time") || !strings.Contains(body, `value="Second"`) {
		t.Fatalf("second publish = %d", code)
	}
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != 1 {
		t.Fatalf("a refused publish saved a survey: %d", len(list))
	}
	// As a draft it saves; publishing it from the dashboard is refused.
	form.Set("action", "save")
	if code, _, _ := app.do(t, "POST", "/adatum/surveys/new", form, cookie); code != http.StatusSeeOther {
		t.Fatalf("save the draft = %d", code)
	}
	code, _, body = app.do(t, "POST", "/adatum/surveys/second/publish", url.Values{}, cookie)
	if code != http.StatusForbidden || !strings.Contains(body, "close one first") {
		t.Fatalf("publish from the dashboard = %d", code)
	}

	// The trial ends: the survey is closed to respondents, publishing says
	// why, but the subscriber still signs in to read answers.
	tn.CreatedOn = time.Now().AddDate(0, 0, -31)
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	if code, _, body := app.do(t, "GET", app.path(), nil, nil); code != http.StatusGone || !strings.Contains(body, "This survey is closed") {
		t.Fatalf("survey page after the trial = %d", code)
	}
	if code, _, body := app.get(t, "/adatum/surveys", c); code != 200 || !strings.Contains(body, "The trial ended on") {
		t.Fatalf("dashboard after the trial = %d, without saying the trial ended", code)
	}

	// Suspended: respondents get 404, the session and sign-in are refused.
	tn.Plan, tn.Suspended = survey.Standard, true
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	if code, _, _ := app.do(t, "GET", app.path(), nil, nil); code != http.StatusNotFound {
		t.Errorf("survey page while suspended = %d, want 404", code)
	}
	if code, _, body := app.get(t, "/adatum/surveys", c); code != http.StatusForbidden || !strings.Contains(body, "suspended") {
		t.Errorf("dashboard while suspended = %d", code)
	}
	// The same answer whatever the password: it tells nothing of it.
	for _, password := range []string{"correct horse battery", "a wrong password"} {
		if code, _ := app.signIn(t, "adatum", "ana@adatum.example", password); code != http.StatusForbidden {
			t.Errorf("sign-in while suspended (%s) = %d, want 403", password, code)
		}
	}
	if code, _, body := app.do(t, "GET", "/api/v1/surveys", nil, map[string]string{"Authorization": "Bearer " + token}); code != http.StatusForbidden || !strings.Contains(body, "suspended") {
		t.Errorf("API while suspended = %d %s", code, body)
	}
}
