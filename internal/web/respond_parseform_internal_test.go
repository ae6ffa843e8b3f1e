package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestParseFormAsParseForm: parseForm reads what net/http's ParseForm
// reads, values and errors, whatever the request.
func TestParseFormAsParseForm(t *testing.T) {
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, method, target, contentType, body string
		wantErr                                 bool
	}{
		{"answer", "POST", "/survey/a/b", form, "token=abc%2Fdef&q-1=Very+good&q-2=4&q-3-other=caf%C3%A9&q-3=x&q-3=y", false},
		{"empty", "POST", "/survey/a/b", form, "", false},
		{"bad escape", "POST", "/survey/a/b", form, "q-1=%zz&q-2=ok", true},
		{"semicolon", "POST", "/survey/a/b", form, "q-1=a;q-2=b", true},
		{"query string too", "POST", "/survey/a/b?lang=fr&q-1=query", form, "q-1=body", false},
		{"not a form", "POST", "/survey/a/b", "text/plain", "q-1=a", false},
		{"charset", "POST", "/survey/a/b", form + "; charset=utf-8", "q-1=a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
			want.Header.Set("Content-Type", tc.contentType)
			wantErr := want.ParseForm()
			got := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
			got.Header.Set("Content-Type", tc.contentType)
			rec := httptest.NewRecorder()
			got.Body = http.MaxBytesReader(rec, got.Body, 1<<20)
			mt, _, _ := strings.Cut(tc.contentType, ";")
			err := parseForm(got, mt, 1<<20)
			if (err != nil) != tc.wantErr || (wantErr != nil) != tc.wantErr {
				t.Fatalf("err %v, ParseForm's %v, want an error: %v", err, wantErr, tc.wantErr)
			}
			if !reflect.DeepEqual(got.PostForm, want.PostForm) || !reflect.DeepEqual(got.Form, want.Form) {
				t.Errorf("PostForm %v, Form %v; ParseForm's %v, %v", got.PostForm, got.Form, want.PostForm, want.Form)
			}
		})
	}
	// A body over the bound is refused, as by ParseForm behind the same
	// MaxBytesReader.
	r := httptest.NewRequest("POST", "/survey/a/b", strings.NewReader("q-1="+strings.Repeat("a", 100)))
	r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 50)
	var tooBig *http.MaxBytesError
	if err := parseForm(r, form, 50); err == nil || !errors.As(err, &tooBig) {
		t.Errorf("a body over the bound: %v, want a MaxBytesError", err)
	}
}
