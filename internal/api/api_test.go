package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/api"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The whole application's API tests (routes, roles, tenants, every
// answer against openapi.json) are in internal/web, which mounts the API.
// These check the API's own envelope with its dependencies faked: the
// token, the role, the tenant's state, the JSON errors and the headers.

// tokens knows "viewer-a" and "admin-a" (tenant adatum) and
// "viewer-gone" (a tenant that no longer exists).
type tokens struct{}

func (tokens) Check(_ context.Context, token string) (*store.TokenAuth, error) {
	switch token {
	case "viewer-a":
		return &store.TokenAuth{Tenant: "adatum", Role: survey.Viewer, ID: "t1"}, nil
	case "admin-a":
		return &store.TokenAuth{Tenant: "adatum", Role: survey.Admin, ID: "t2"}, nil
	case "viewer-gone":
		return &store.TokenAuth{Tenant: "gone", Role: survey.Viewer, ID: "t3"}, nil
	}
	return nil, survey.Errorf(survey.EFORBIDDEN, "This API token is unknown, revoked or expired.")
}

// surveys has one survey of adatum; its List fails for "broken".
type surveys struct{}

func (surveys) List(_ context.Context, tenant string) ([]*survey.Survey, error) {
	if tenant == "broken" {
		return nil, errors.New("disk on fire")
	}
	return []*survey.Survey{{Tenant: tenant, Slug: "feedback", Title: "Feedback", State: survey.Published}}, nil
}

func (surveys) Get(_ context.Context, tenant, slug string) (*survey.Survey, error) {
	if slug != "feedback" {
		return nil, survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	return &survey.Survey{Tenant: tenant, Slug: slug, Title: "Feedback", State: survey.Published}, nil
}

func newAPI(t *testing.T, d api.Deps) http.Handler {
	t.Helper()
	d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	d.Tokens, d.Surveys = tokens{}, surveys{}
	d.TenantUsable = func(_ context.Context, tenant string) error {
		if tenant == "gone" {
			return survey.Errorf(survey.EFORBIDDEN, "This subscription no longer exists.")
		}
		return nil
	}
	return api.New(d)
}

func call(t *testing.T, h http.Handler, method, path, token string) (*http.Response, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	var body map[string]any
	if rec.Body.Len() > 0 {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s %s: the body is not JSON: %v: %s", method, path, err, rec.Body)
		}
	}
	return resp, body
}

func TestEnvelope(t *testing.T) {
	t.Parallel()
	h := newAPI(t, api.Deps{})
	cases := []struct {
		name, method, path, token string
		status                    int
		errText                   string // the JSON error, "" for none
		noStore                   bool   // Cache-Control: no-store
	}{
		{"no token", "GET", "/surveys", "", http.StatusUnauthorized, "Send an API token: Authorization: Bearer <token>.", false},
		{"unknown token", "GET", "/surveys", "nope", http.StatusUnauthorized, "This API token is unknown, revoked or expired.", false},
		{"unknown endpoint, no token", "GET", "/nope", "", http.StatusUnauthorized, "Send an API token: Authorization: Bearer <token>.", false},
		{"tenant gone", "GET", "/surveys", "viewer-gone", http.StatusForbidden, "This subscription no longer exists.", false},
		{"viewer lists", "GET", "/surveys", "viewer-a", http.StatusOK, "", true},
		{"viewer may not create", "POST", "/surveys", "viewer-a", http.StatusForbidden, "This API token's role (Viewer) may not edit surveys.", true},
		{"no such survey", "GET", "/surveys/nope", "viewer-a", http.StatusNotFound, "Survey not found.", true},
		{"unknown endpoint", "GET", "/nope", "viewer-a", http.StatusNotFound, "No such API endpoint.", true},
		{"no webhooks on this server", "GET", "/webhooks", "admin-a", http.StatusNotFound, "This server sends no webhooks.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := call(t, h, c.method, c.path, c.token)
			if resp.StatusCode != c.status {
				t.Fatalf("%s %s = %d, want %d: %v", c.method, c.path, resp.StatusCode, c.status, body)
			}
			if got, _ := body["error"].(string); got != c.errText {
				t.Errorf("error %q, want %q", got, c.errText)
			}
			if c.status == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != `Bearer realm="surveys"` {
				t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
			if got := resp.Header.Get("Cache-Control") == "no-store"; got != c.noStore {
				t.Errorf("Cache-Control %q, want no-store: %v", resp.Header.Get("Cache-Control"), c.noStore)
			}
			if c.errText != "" && resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
			}
		})
	}
}

// TestInternalError: a failure of a dependency is a 500 whose message is
// plain, never the error's text.
func TestInternalError(t *testing.T) {
	t.Parallel()
	broken := api.New(api.Deps{
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Tokens:       brokenTenant{},
		Surveys:      surveys{},
		TenantUsable: func(context.Context, string) error { return nil },
	})
	resp, body := call(t, broken, "GET", "/surveys", "any")
	if resp.StatusCode != http.StatusInternalServerError || body["error"] != "Internal error." {
		t.Fatalf("GET /surveys with a failing store = %d %v, want 500 Internal error.", resp.StatusCode, body)
	}
	if strings.Contains(body["error"].(string), "fire") {
		t.Errorf("the error's text leaked: %v", body)
	}
}

// brokenTenant's tokens are of the tenant whose surveys cannot be listed.
type brokenTenant struct{}

func (brokenTenant) Check(context.Context, string) (*store.TokenAuth, error) {
	return &store.TokenAuth{Tenant: "broken", Role: survey.Viewer}, nil
}

// TestExport: the export is the shared one, called with the token's
// tenant, the survey and the format (json when none is asked); its error
// is a JSON error.
func TestExport(t *testing.T) {
	t.Parallel()
	var got []string
	h := newAPI(t, api.Deps{Export: func(w http.ResponseWriter, r *http.Request, tenant, slug, format string) error {
		got = append(got, tenant+" "+slug+" "+format)
		if format == "pdf" {
			return survey.Errorf(survey.ENOTFOUND, "Export as csv, json or xlsx.")
		}
		_, err := io.WriteString(w, "{}\n")
		return err
	}})
	if resp, _ := call(t, h, "GET", "/surveys/feedback/export", "viewer-a"); resp.StatusCode != http.StatusOK {
		t.Fatalf("export = %d", resp.StatusCode)
	}
	resp, body := call(t, h, "GET", "/surveys/feedback/export?format=pdf", "viewer-a")
	if resp.StatusCode != http.StatusNotFound || body["error"] != "Export as csv, json or xlsx." {
		t.Fatalf("export as pdf = %d %v", resp.StatusCode, body)
	}
	if want := []string{"adatum feedback json", "adatum feedback pdf"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("exports %q, want %q", got, want)
	}
}

// TestReport: the PDF report is the shared one, called with the token's
// tenant and the survey; its error is a JSON error.
func TestReport(t *testing.T) {
	t.Parallel()
	var got []string
	h := newAPI(t, api.Deps{Report: func(w http.ResponseWriter, r *http.Request, tenant, slug string) error {
		got = append(got, tenant+" "+slug)
		if slug == "gone" {
			return survey.Errorf(survey.ENOTFOUND, "Survey not found.")
		}
		// The document itself is the web package's to test.
		w.Header().Set("Content-Type", "application/pdf")
		return nil
	}})
	if resp, _ := call(t, h, "GET", "/surveys/feedback/report.pdf", "viewer-a"); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("report = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, body := call(t, h, "GET", "/surveys/gone/report.pdf", "viewer-a")
	if resp.StatusCode != http.StatusNotFound || body["error"] != "Survey not found." {
		t.Fatalf("report of a survey gone = %d %v", resp.StatusCode, body)
	}
	if want := []string{"adatum feedback", "adatum gone"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("reports %q, want %q", got, want)
	}
}
