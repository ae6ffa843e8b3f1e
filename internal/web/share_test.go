package web_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/web"
)

// signedInAna adds Ana to Adatum and signs her in.
func signedInAna(t *testing.T, app *testApp) *http.Cookie {
	t.Helper()
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	return ana
}

// TestShareLinkOrigin: the share link is built on the configured public
// URL when there is one, and otherwise on the request's Host and TLS
// state; forwarded headers, which any client can write, never change it.
func TestShareLinkOrigin(t *testing.T) {
	t.Parallel()
	forged := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example", "Forwarded": "proto=https;host=evil.example"}
	tests := []struct {
		name      string
		publicURL string
		want      func(app *testApp) string
	}{
		{"no public URL", "", func(app *testApp) string { return app.srv.URL }},
		{"public URL", "https://surveys.example.com/", func(*testApp) string { return "https://surveys.example.com" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.PublicURL = tc.publicURL })
			ana := signedInAna(t, app)
			h := map[string]string{"Cookie": ana.Name + "=" + ana.Value}
			for k, v := range forged {
				h[k] = v
			}
			code, _, body := app.do(t, "GET", "/adatum/surveys/"+app.adatum.Slug+"/share", nil, h)
			want := tc.want(app) + "/survey/adatum/" + app.adatum.Slug
			if code != http.StatusOK || !strings.Contains(body, `value="`+want+`"`) || strings.Contains(body, "evil.example") {
				t.Fatalf("share page = %d, want the link %s\n%s", code, want, body)
			}
		})
	}
}

// TestQRCodeRefused: a link that cannot be made, or is too long for a QR
// code, is a 422 that says why, not a server error.
func TestQRCodeRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, publicURL, host, want string
	}{
		{"host too long", "", strings.Repeat("a", 3000) + ".example", "not a host name"},
		{"host not a name", "", "bad_host!", "not a host name"},
		{"public URL too long for a QR code", "https://" + strings.Repeat("s", 2400) + ".example", "", "too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.PublicURL = tc.publicURL })
			ana := signedInAna(t, app)
			for _, p := range []string{"/qr.png", "/share"} {
				req, err := http.NewRequest("GET", app.srv.URL+"/adatum/surveys/"+app.adatum.Slug+p, nil)
				if err != nil {
					t.Fatal(err)
				}
				if tc.host != "" {
					req.Host = tc.host
				}
				req.AddCookie(ana)
				resp, err := app.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body := readBody(t, resp)
				if p == "/share" && tc.host == "" {
					if resp.StatusCode != http.StatusOK {
						t.Errorf("GET %s = %d, want 200 (the link itself is shown)", p, resp.StatusCode)
					}
					continue
				}
				if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.want) {
					t.Errorf("GET %s = %d, want 422 saying %q\n%s", p, resp.StatusCode, tc.want, body)
				}
			}
		})
	}
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSharePreviewLink: the share page says "Published" after publishing
// (and not otherwise), and offers a preview link, with the day it stops
// opening, which opens signed out.
func TestSharePreviewLink(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := signedInAna(t, app)
	h := map[string]string{"Cookie": ana.Name + "=" + ana.Value}
	base := "/adatum/surveys/" + app.adatum.Slug + "/share"
	_, _, body := app.do(t, "GET", base+"?published=1", nil, h)
	mustContain(t, "after publishing", body, "<strong>Published.</strong> Anyone with the link can answer now.", `data-copy="#preview-link"`, "It opens until")
	_, _, body = app.do(t, "GET", base, nil, h)
	mustLack(t, "the share page", body, "<strong>Published.</strong>")
	m := regexp.MustCompile(`id="preview-link" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil || !strings.HasPrefix(m[1], app.srv.URL+"/preview/") {
		t.Fatalf("no preview link on the share page: %v", m)
	}
	if code, _, page := app.do(t, "GET", strings.TrimPrefix(m[1], app.srv.URL), nil, nil); code != 200 || !strings.Contains(page, "<strong>Preview</strong>") {
		t.Errorf("the share page's preview link = %d", code)
	}
}
