package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
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
		{"empty fields, no values, a field three times", "POST", "/survey/a/b", form, "&&a&b=&c=1&c=2&=x&c=3&d=%41%2b+", false},
		{"bad escape in a name", "POST", "/survey/a/b", form, "q-%zz=1&q-2=ok", true},
		{"more fields than parseQuery parses", "POST", "/survey/a/b", form, strings.Repeat("q-1=a&", maxOwnParse) + "q-2=b", false},
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

// FuzzParseQuery: parseQuery gives url.ParseQuery's values and error.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "a=1&b=2&a=3", "a;b=1", "%zz=1", "a=%2", "&&=&a", "q-1=x+y%20z&q-1-other="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		want, wantErr := url.ParseQuery(q)
		got, err := parseQuery(q)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("parseQuery(%q) error %v, url.ParseQuery's %v", q, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseQuery(%q) = %v, url.ParseQuery's %v", q, got, want)
		}
	})
}
