package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestIsolationEveryRoute walks every route of the router: each subscriber
// route of Adatum, asked by a signed-in Fabrikam user, is 403; each API
// route, asked with Fabrikam's token for Adatum's survey, is 404. No body
// carries Adatum's data. A new route is covered the day it is added.
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

	fill := strings.NewReplacer("{tenant}", "adatum", "{slug}", app.adatum.Slug, "{action}", "delete", "{format}", "csv")
	subscriber, api := 0, 0
	err = chi.Walk(app.web.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		path := fill.Replace(strings.TrimSuffix(route, "/*"))
		switch {
		case strings.HasPrefix(route, "/{tenant}/"):
			subscriber++
			code, _, body := app.do(t, method, path, nil, map[string]string{"Cookie": "surveys_session=" + fred.Value})
			if code != http.StatusForbidden || strings.Contains(body, "Adatum customer") || strings.Contains(body, "Mobile app") {
				t.Errorf("%s %s as Fabrikam = %d", method, path, code)
			}
		case strings.HasPrefix(route, "/api/v1/") && strings.Contains(route, "{slug}"):
			api++
			code, _, body := app.api(t, method, path, token, "")
			if code != http.StatusNotFound || strings.Contains(body, "Adatum customer") || strings.Contains(body, "Mobile app") {
				t.Errorf("%s %s with Fabrikam's token = %d %s", method, path, code, body)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if subscriber < 12 || api < 7 {
		t.Fatalf("walked %d subscriber and %d API routes: the walk missed routes", subscriber, api)
	}
	t.Logf("walked %d subscriber routes and %d API routes", subscriber, api)
	// Adatum's survey is intact after all of Fabrikam's attempts.
	if _, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug); err != nil {
		t.Fatalf("Adatum's survey after Fabrikam's requests: %v", err)
	}
}
