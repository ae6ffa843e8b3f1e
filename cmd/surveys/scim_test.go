package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestSCIMServed: surveys serve answers SCIM at /scim/v2 for a SCIM token
// of the tenant, and refuses an API token there (and a SCIM token at
// /api/v1).
func TestSCIMServed(t *testing.T) {
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	scimToken, err := store.NewSCIMTokenStore(m.Storage).Create(ctx, "adatum", "Okta")
	if err != nil {
		t.Fatal(err)
	}
	apiToken, err := store.NewTokenStore(m.Storage).Create(ctx, "adatum", "reports")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	for _, c := range []struct {
		path, token string
		want        int
	}{
		{"/scim/v2/ServiceProviderConfig", scimToken, http.StatusOK},
		{"/scim/v2/Users", scimToken, http.StatusOK},
		{"/scim/v2/Users", apiToken, http.StatusUnauthorized},
		{"/scim/v2/Users", "", http.StatusUnauthorized},
		{"/api/v1/surveys", scimToken, http.StatusUnauthorized},
		{"/api/v1/surveys", apiToken, http.StatusOK},
	} {
		req, _ := http.NewRequest("GET", base+c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s (token %.5s…) = %d, want %d", c.path, c.token, resp.StatusCode, c.want)
		}
	}
}
