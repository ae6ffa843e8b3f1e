package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
)

// onHostGet sends a request to the server naming host in its Host header,
// as a browser that reached it at that name (through the front proxy).
func onHostGet(t *testing.T, m *Main, method, host, path string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, "http://"+m.Addr()+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCustomDomainServes: the real server, with its public URL set,
// serves Adatum's survey at Adatum's verified custom domain (the test
// sends the Host header) at /{slug} and /survey/adatum/{slug}, takes an
// answer there, and refuses sign-in, the settings and Fabrikam's survey
// there (404); the front proxy's ask says yes for that name alone. An
// unverified domain does nothing: its name gets the main site.
func TestCustomDomainServes(t *testing.T) {
	m := bootMain(t, io.Discard, "--public-url", "http://surveys.example.com")
	defer m.Close()
	ctx := context.Background()
	path, answer := demoAnswer(t, m)
	slug := path[strings.LastIndexByte(path, '/')+1:]
	fab, err := store.NewSurveyStore(m.Storage).List(ctx, "fabrikam")
	if err != nil || len(fab) != 1 {
		t.Fatal(fab, err)
	}
	domains := store.NewDomainStore(m.Storage)
	const host = "surveys.adatum.example"
	if _, err := domains.Claim(ctx, "adatum", host); err != nil {
		t.Fatal(err)
	}
	if _, err := domains.Claim(ctx, "fabrikam", "surveys.fabrikam.example"); err != nil {
		t.Fatal(err)
	}
	// Fabrikam's is not verified: its name gets the main site, nothing
	// of Fabrikam's.
	if code, _ := onHostGet(t, m, "GET", "surveys.fabrikam.example", "/"+fab[0].Slug, nil); code != http.StatusNotFound {
		t.Fatalf("an unverified domain's /%s = %d, want the main site's 404", fab[0].Slug, code)
	}
	if _, err := domains.MarkVerified(ctx, "adatum"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/" + slug, path} {
		if code, body := onHostGet(t, m, "GET", host, p, nil); code != http.StatusOK || !strings.Contains(body, `name="token"`) {
			t.Errorf("GET %s on %s = %d, want Adatum's survey form", p, host, code)
		}
	}
	if code, _ := onHostGet(t, m, "POST", host, path, answer); code != http.StatusSeeOther {
		t.Errorf("an answer on %s = %d, want 303", host, code)
	}
	for _, p := range []string{"/login", "/onboarding", "/adatum/settings", "/api/v1/surveys", "/survey/fabrikam/" + fab[0].Slug, "/" + fab[0].Slug, "/"} {
		if code, body := onHostGet(t, m, "GET", host, p, nil); code != http.StatusNotFound || strings.Contains(body, `type="password"`) || strings.Contains(body, fab[0].Title) {
			t.Errorf("GET %s on %s = %d, want 404 with no sign-in form nor Fabrikam's survey", p, host, code)
		}
	}
	if code, _ := onHostGet(t, m, "POST", host, "/login", url.Values{"tenant": {"adatum"}, "email": {"a@adatum.example"}, "password": {"x"}}); code != http.StatusNotFound {
		t.Errorf("POST /login on %s = %d, want 404", host, code)
	}
	// On the main host, sign-in is where it was.
	if code, body := onHostGet(t, m, "GET", "surveys.example.com", "/login", nil); code != http.StatusOK || !strings.Contains(body, `type="password"`) {
		t.Errorf("GET /login on the main host = %d", code)
	}
	// The API's publicUrl of Adatum's survey is on its domain (read from
	// the stored verified domain, not from the request's Host).
	token, err := store.NewTokenStore(m.Storage).Create(ctx, "adatum", "links")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://"+m.Addr()+"/api/v1/surveys/"+slug, nil)
	req.Host = "surveys.example.com"
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `"publicUrl":"https://` + host + `/survey/adatum/` + slug + `"`; resp.StatusCode != 200 || !strings.Contains(string(raw), want) {
		t.Errorf("GET /api/v1/surveys/%s = %d %s; want %s", slug, resp.StatusCode, raw, want)
	}
	for domain, want := range map[string]int{host: 200, "surveys.fabrikam.example": 404, "surveys.example.com": 404, "elsewhere.example": 404} {
		if code, _ := get(t, m, "/tls/ask?domain="+url.QueryEscape(domain)); code != want {
			t.Errorf("ask %s = %d, want %d", domain, code, want)
		}
	}
}
