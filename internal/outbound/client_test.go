package outbound_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/outbound"
)

// newServer starts an https server on loopback and returns it with a client
// that trusts it and allows the ranges given.
func newServer(t *testing.T, h http.Handler, allow ...string) (*httptest.Server, *outbound.Client) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	var ps []netip.Prefix
	for _, a := range allow {
		ps = append(ps, netip.MustParsePrefix(a))
	}
	return srv, outbound.New(outbound.Config{Allow: ps, RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs})
}

func get(c *outbound.Client, u string) (string, error) {
	resp, err := c.HTTP().Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

const secretBody = "INTERNAL-ONLY-7f3a"

func TestClientAddresses(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, secretBody) })
	srv, public := newServer(t, ok)
	_, loop := newServer(t, ok, "127.0.0.1/32")
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	cases := []struct {
		name string
		c    *outbound.Client
		url  string
		want error // nil: the body is read
	}{
		{"loopback, not allowed", public, srv.URL, outbound.ErrAddressNotAllowed},
		{"a name resolving to loopback", public, "https://localhost" + port, outbound.ErrAddressNotAllowed},
		{"the metadata endpoint", public, "https://169.254.169.254/latest/meta-data/", outbound.ErrAddressNotAllowed},
		{"a private range", public, "https://10.0.0.1/", outbound.ErrAddressNotAllowed},
		{"plain http", public, "http://127.0.0.1" + port, outbound.ErrNotHTTPS},
		{"another scheme", public, "ftp://127.0.0.1/", outbound.ErrNotHTTPS},
		{"loopback, allowed", loop, srv.URL, nil},
		{"loopback, allowed, another address", loop, "https://127.0.0.2" + port, outbound.ErrAddressNotAllowed},
		{"plain http outside the allowed ranges", loop, "http://[::1]" + port, outbound.ErrNotHTTPS},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			body, err := get(tt.c, tt.url)
			if tt.want == nil {
				if err != nil || body != secretBody {
					t.Fatalf("GET %s = %q, %v", tt.url, body, err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("GET %s: %v, want %v", tt.url, err, tt.want)
			}
			if p := outbound.Problem(err); strings.Contains(p, secretBody) || p == "" {
				t.Fatalf("Problem = %q", p)
			}
		})
	}
}

func TestClientRedirects(t *testing.T) {
	var target string
	mux := http.NewServeMux()
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) })
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, secretBody) })
	srv, c := newServer(t, mux, "127.0.0.1/32")
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	cases := []struct {
		name, to string
		want     error
	}{
		{"to the same server", srv.URL + "/ok", nil},
		{"to loopback outside the allowed ranges", "https://[::1]" + port + "/ok", outbound.ErrAddressNotAllowed},
		{"to the metadata endpoint", "https://169.254.169.254/latest/meta-data/", outbound.ErrAddressNotAllowed},
		{"from https down to http", "http://127.0.0.1" + port + "/ok", outbound.ErrRedirect},
		{"round and round", srv.URL + "/go", outbound.ErrRedirect},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			target = tt.to
			body, err := get(c, srv.URL+"/go")
			if tt.want == nil {
				if err != nil || body != secretBody {
					t.Fatalf("GET = %q, %v", body, err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("GET: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestClientBodyCap(t *testing.T) {
	big := strings.Repeat("x", outbound.DefaultMaxBody+1)
	mux := http.NewServeMux()
	mux.HandleFunc("/sized", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, big) }) // Content-Length set
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 3; i++ {
			io.WriteString(w, big[:outbound.DefaultMaxBody/2])
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/exact", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, big[:outbound.DefaultMaxBody]) })
	srv, c := newServer(t, mux, "127.0.0.1/32")
	for _, path := range []string{"/sized", "/chunked"} {
		body, err := get(c, srv.URL+path)
		if !errors.Is(err, outbound.ErrTooLarge) || len(body) > outbound.DefaultMaxBody {
			t.Errorf("GET %s: %d bytes, %v; want ErrTooLarge", path, len(body), err)
		}
	}
	if body, err := get(c, srv.URL+"/exact"); err != nil || len(body) != outbound.DefaultMaxBody {
		t.Errorf("GET /exact: %d bytes, %v", len(body), err)
	}
}

func TestCheckURL(t *testing.T) {
	public := outbound.New(outbound.Config{})
	private := outbound.New(outbound.Config{Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	cases := []struct {
		url             string
		public, private bool
	}{
		{"https://login.example.com/token", true, true},
		{"http://login.example.com/token", false, false},
		{"http://10.1.2.3/token", false, true},
		{"http://[::ffff:10.1.2.3]/token", false, true},
		{"http://127.0.0.1/token", false, false},
		{"https://user:pw@login.example.com/", false, false},
		{"/token", false, false},
		{"javascript:alert(1)", false, false},
		{"file:///etc/passwd", false, false},
		{"", false, false},
	}
	for _, tt := range cases {
		if got := public.CheckURL(tt.url) == nil; got != tt.public {
			t.Errorf("CheckURL(%q) with no ranges = %v", tt.url, got)
		}
		if got := private.CheckURL(tt.url) == nil; got != tt.private {
			t.Errorf("CheckURL(%q) with 10.0.0.0/8 = %v", tt.url, got)
		}
	}
}
