package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMaxHeaderBytes: the server reads at most maxHeaderBytes of a
// request's line and headers: a 100 KB URL is refused (431) before any
// handler, while an ordinary request is served.
func TestMaxHeaderBytes(t *testing.T) {
	m := bootMain(t, io.Discard)
	t.Cleanup(func() { _ = m.Close() })
	if code, _ := get(t, m, "/survey/adatum/"+strings.Repeat("a", 100<<10)); code != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("GET a 100 KB URL = %d, want 431", code)
	}
	if code, _ := get(t, m, "/survey/adatum/"+strings.Repeat("a", 1000)); code != http.StatusNotFound {
		t.Errorf("GET a 1 KB URL = %d, want 404", code)
	}
	if code, _ := get(t, m, "/healthz"); code != http.StatusOK {
		t.Errorf("GET /healthz = %d", code)
	}
}
