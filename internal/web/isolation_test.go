package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestIsolationEveryRoute walks every route of the router: each subscriber
// route of Adatum, asked by a signed-in Fabrikam user, is 403; each API
// route, asked with Fabrikam's token for Adatum's survey, is 404; each API
// route without a survey (the list, a new survey), asked with Fabrikam's
// token, answers for Fabrikam alone. No body carries Adatum's data (its
// name, its surveys' titles and slugs, its answers), and afterwards none of
// Adatum's API answers carries Fabrikam's. A new route is covered the day
// it is added.
func TestIsolationEveryRoute(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := store.NewUserStore(app.st).Add(ctx, "fabrikam", "fred@fabrikam.example", "another long password"); err != nil {
		t.Fatal(err)
	}
	_, fred := app.signIn(t, "fabrikam", "fred@fabrikam.example", "another long password")
	token, err := store.NewTokenStore(app.st).Create(ctx, "fabrikam", "test")
	if err != nil {
		t.Fatal(err)
	}
	// Adatum has an answer, so that there is data to leak.
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
		t.Fatal("answer refused")
	}
	app.stored(t)
	// And a draft, not listed anywhere, whose title and slug must not leak.
	draft := &survey.Survey{Tenant: "adatum", Title: "Adatum secret roadmap", Questions: []survey.Question{{Text: "Which launch first?", Type: survey.SimpleText}}}
	if err := app.surveys.Create(ctx, draft); err != nil {
		t.Fatal(err)
	}
	// leaks says which of a tenant's data a body holds.
	leaks := func(body string, markers ...string) []string {
		var found []string
		for _, m := range markers {
			if strings.Contains(strings.ToLower(body), strings.ToLower(m)) {
				found = append(found, m)
			}
		}
		return found
	}
	adatumData := []string{"adatum", app.adatum.Title, app.adatum.Slug, draft.Title, draft.Slug, "Faster pages, please", "Which launch first?"}

	fill := strings.NewReplacer("{tenant}", "adatum", "{slug}", app.adatum.Slug, "{action}", "delete", "{format}", "csv", "{question}", app.adatum.Questions[3].ID, "{answer}", "0639319281967095294-57ffb6")
	subscriber, api, apiOwn := 0, 0, 0
	err = chi.Walk(app.web.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		path := fill.Replace(strings.TrimSuffix(route, "/*"))
		switch {
		case strings.HasPrefix(route, "/{tenant}/"):
			subscriber++
			code, _, body := app.do(t, method, path, nil, map[string]string{"Cookie": "surveys_session=" + fred.Value})
			// The path names adatum; the page must not echo it or more.
			if leaked := leaks(body, adatumData...); code != http.StatusForbidden || len(leaked) > 0 {
				t.Errorf("%s %s as Fabrikam = %d, with Adatum's %q", method, path, code, leaked)
			}
		case strings.HasPrefix(route, "/api/v1/") && strings.Contains(route, "{slug}"):
			api++
			code, _, body := app.api(t, method, path, token, "")
			if leaked := leaks(body, adatumData...); code != http.StatusNotFound || len(leaked) > 0 {
				t.Errorf("%s %s with Fabrikam's token = %d, with Adatum's %q: %s", method, path, code, leaked, body)
			}
		case strings.HasPrefix(route, "/api/v1/"):
			// The routes of the token's own tenant: Fabrikam's answers only.
			apiOwn++
			body := ""
			if method == http.MethodPost {
				body = `{"title":"Fabrikam private plan","questions":[{"text":"Why now?","type":"SimpleText"}]}`
			}
			code, _, raw := app.api(t, method, path, token, body)
			if leaked := leaks(raw, adatumData...); code/100 != 2 || len(leaked) > 0 {
				t.Errorf("%s %s with Fabrikam's token = %d, with Adatum's %q: %s", method, path, code, leaked, raw)
			}
			if method == http.MethodGet && !strings.Contains(raw, "Fabrikam product feedback") {
				t.Errorf("%s %s with Fabrikam's token lacks Fabrikam's own survey: %s", method, path, raw)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if subscriber < 12 || api < 7 || apiOwn < 2 {
		t.Fatalf("walked %d subscriber, %d API survey and %d API tenant routes: the walk missed routes", subscriber, api, apiOwn)
	}
	t.Logf("walked %d subscriber routes, %d API survey routes and %d API tenant routes", subscriber, api, apiOwn)

	// The other way round: Adatum's list shows none of Fabrikam's surveys,
	// the one it just made included.
	adatumToken, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, _, raw := app.api(t, "GET", "/api/v1/surveys", adatumToken, "")
	if leaked := leaks(raw, "fabrikam", "Fabrikam product feedback", "Fabrikam private plan", "Why now?"); code != http.StatusOK || len(leaked) > 0 || !strings.Contains(raw, draft.Slug) {
		t.Errorf("GET /api/v1/surveys with Adatum's token = %d, with Fabrikam's %q: %s", code, leaked, raw)
	}
	if list, err := app.surveys.List(ctx, "fabrikam"); err != nil || len(list) != 2 {
		t.Errorf("Fabrikam's surveys after its POST: %d, %v; want 2", len(list), err)
	}
	// Adatum's survey is intact after all of Fabrikam's attempts.
	if _, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug); err != nil {
		t.Fatalf("Adatum's survey after Fabrikam's requests: %v", err)
	}
}
