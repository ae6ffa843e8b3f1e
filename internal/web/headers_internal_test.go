package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// TestAssetsHideFolders: a folder of the static assets, with or without a
// trailing slash, is "not found", not a listing; its files are served.
func TestAssetsHideFolders(t *testing.T) {
	t.Parallel()
	v := &views{static: fstest.MapFS{
		"app.css":          {Data: []byte("body{}")},
		"icons/logo.svg":   {Data: []byte("<svg/>")},
		"icons/index.html": {Data: []byte("<p>index</p>")},
	}}
	h := v.assets()
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/static/", 404}, {"/static/icons/", 404}, {"/static/icons", 404}, {"/static/icons/index.html", 404},
		{"/static/app.css", 200}, {"/static/icons/logo.svg", 200},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if rec.Code != tc.code && !(tc.code == 404 && rec.Code == http.StatusMovedPermanently) {
			t.Errorf("GET %s = %d, want %d", tc.path, rec.Code, tc.code)
		}
		if tc.code == 404 && (strings.Contains(rec.Body.String(), "logo.svg") || strings.Contains(rec.Body.String(), "index")) {
			t.Errorf("GET %s lists the folder: %s", tc.path, rec.Body.String())
		}
	}
}
