package outbound_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/outbound"
)

// TestGetOpen: the GET that carries nothing secret speaks plain http, but
// only to addresses the guard allows (loopback is refused unless the
// operator allows it, as for every other request), caps its body at
// MaxOpenBody and refuses numeric tricks and other schemes.
func TestGetOpen(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			_, _ = w.Write([]byte(strings.Repeat("x", outbound.MaxOpenBody+1)))
			return
		}
		_, _ = w.Write([]byte("token-123"))
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()

	closed := outbound.New(outbound.Config{})
	if _, _, err := closed.GetOpen(ctx, srv.URL+"/t"); !errors.Is(err, outbound.ErrAddressNotAllowed) {
		t.Fatalf("loopback without the operator's leave: %v, want ErrAddressNotAllowed", err)
	}
	open := outbound.New(outbound.Config{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	body, status, err := open.GetOpen(ctx, srv.URL+"/t")
	if err != nil || status != 200 || string(body) != "token-123" {
		t.Fatalf("allowed: %q %d %v", body, status, err)
	}
	if _, _, err := open.GetOpen(ctx, srv.URL+"/big"); !errors.Is(err, outbound.ErrTooLarge) {
		t.Fatalf("a body over the cap: %v, want ErrTooLarge", err)
	}
	for _, bad := range []string{"ftp://example.com/x", "http://2130706433/x", "http://user:pw@example.com/", "/relative"} {
		if _, _, err := open.GetOpen(ctx, bad); err == nil {
			t.Errorf("GetOpen(%q) succeeded", bad)
		}
	}
}
