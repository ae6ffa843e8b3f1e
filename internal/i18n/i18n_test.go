package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// verbs are a format's verbs, sorted: a translation keeps them.
var verbRE = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*[a-zA-Z]`)

func verbs(format string) string {
	vs := verbRE.FindAllString(format, -1)
	sort.Strings(vs)
	return strings.Join(vs, " ")
}

// TestCatalogsComplete fails when a catalog lacks one of the keys, has one
// that is not a key, or drops or changes an argument.
func TestCatalogsComplete(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range Keys {
		if keys[k] {
			t.Errorf("key %q listed twice", k)
		}
		keys[k] = true
	}
	for _, info := range languages[1:] {
		cat := translations[info.Tag]
		if cat == nil {
			t.Fatalf("no catalog for %s", info.Tag)
		}
		for _, k := range Keys {
			v, ok := cat[k]
			switch {
			case !ok || v == "":
				t.Errorf("%s: no translation of %q", info.Tag, k)
			case verbs(v) != verbs(k):
				// Positional arguments may be reordered; the plain ones
				// are kept as they are.
				t.Errorf("%s: %q → %q: arguments %q, want %q", info.Tag, k, v, verbs(v), verbs(k))
			}
		}
		for k := range cat {
			if !keys[k] {
				t.Errorf("%s: %q is not a key", info.Tag, k)
			}
		}
	}
	if got := survey.Languages(); !slices.Equal(got, tags()) {
		t.Errorf("survey.Languages() = %v, the catalogs' %v", got, tags())
	}
}

func tags() []string {
	var out []string
	for _, l := range languages {
		out = append(out, l.Tag)
	}
	return out
}

// TestKeysUsed: every text the domain says to respondents (survey.M) and
// every word the respondent pages ask for (T "…" in templates, .T("…") in
// internal/web) is a key, so no page shows English by oversight.
func TestKeysUsed(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range Keys {
		keys[k] = true
	}
	want := func(where, k string) {
		if !keys[k] {
			t.Errorf("%s: %q is not a key of the catalogs", where, k)
		}
	}
	fset := token.NewFileSet()
	for _, dir := range []string{"../survey", "../web", "../pdfreport"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				var fn string
				switch f := call.Fun.(type) {
				case *ast.Ident:
					fn = f.Name
				case *ast.SelectorExpr:
					fn = f.Sel.Name
				}
				lit, ok := call.Args[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || (fn != "M" && fn != "T") {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && (fn == "M" && dir == "../survey" || fn == "T") {
					want(fset.Position(lit.Pos()).String(), s)
				}
				return true
			})
		}
	}
	tRE := regexp.MustCompile(`\bT "((?:[^"\\]|\\.)*)"`)
	err := filepath.WalkDir("../../templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range tRE.FindAllStringSubmatch(string(data), -1) {
			want(p, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		name                            string
		query, cookie, accept, fallback string
		want                            string
	}{
		{"nothing: English", "", "", "", "", "en"},
		{"the survey's language", "", "", "", "de", "de"},
		{"Accept-Language", "", "", "fr-CH, fr;q=0.9, en;q=0.8", "de", "fr"},
		{"Accept-Language, a region", "", "", "es-MX", "", "es"},
		{"Accept-Language by weight", "", "", "en;q=0.5, nl;q=0.9", "", "nl"},
		{"Accept-Language of none we speak: the survey's", "", "", "ja, zh;q=0.8", "fr", "fr"},
		{"Accept-Language broken: the survey's", "", "", ";;;q=x", "de", "de"},
		{"the cookie over Accept-Language", "", "ar", "fr", "", "ar"},
		{"?lang over the cookie", "nl", "ar", "fr", "", "nl"},
		{"an unknown ?lang is ignored", "xx", "de", "fr", "", "de"},
		{"an unknown cookie is ignored", "", "klingon", "es", "", "es"},
		{"an unknown survey language: English", "", "", "", "xx", "en"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Negotiate(tc.query, tc.cookie, tc.accept, tc.fallback).Tag(); got != tc.want {
				t.Errorf("Negotiate(%q, %q, %q, %q) = %s, want %s", tc.query, tc.cookie, tc.accept, tc.fallback, got, tc.want)
			}
		})
	}
}

func TestT(t *testing.T) {
	date := survey.M("%[1]d %[2]s %[3]s", 3, survey.M("December"), "2026")
	tests := []struct {
		lang, key string
		args      []any
		want      string
	}{
		{"en", "Page %d of %d", []any{2, 4}, "Page 2 of 4"},
		{"fr", "Page %d of %d", []any{2, 4}, "Page 2 sur 4"},
		{"de", "Page %d of %d", []any{2, 4}, "Seite 2 von 4"},
		{"ar", "Page %d of %d", []any{2, 4}, "الصفحة ٢ من ٤"},
		{"en", "Please give a date on or after %s.", []any{date}, "Please give a date on or after 3 December 2026."},
		{"fr", "Please give a date on or after %s.", []any{date}, "Veuillez indiquer une date à partir du 3 décembre 2026."},
		{"de", "Please give a date on or after %s.", []any{date}, "Bitte geben Sie ein Datum ab dem 3. Dezember 2026 an."},
		{"es", "Please choose at least %s (you chose %d).", []any{survey.M("%s answers", survey.Quantity(2)), 1}, "Elija al menos 2 respuestas (ha elegido 1)."},
		{"en", "Please choose at least %s (you chose %d).", []any{survey.M("%s answers", survey.Quantity(2)), 1}, "Please choose at least two answers (you chose 1)."},
		{"nl", "a key no catalog has", nil, "a key no catalog has"},
		{"xx", "Back", nil, "Back"},
	}
	for _, tc := range tests {
		if got := For(tc.lang).T(tc.key, tc.args...); got != tc.want {
			t.Errorf("%s: T(%q) = %q, want %q", tc.lang, tc.key, got, tc.want)
		}
	}
	if For("ar").Dir() != "rtl" || For("fr").Dir() != "ltr" || (Lang{}).Dir() != "ltr" || (Lang{}).Tag() != "en" {
		t.Error("directions or the zero Lang")
	}
}

// FuzzNegotiate: whatever a browser sends, a supported language comes out.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"", "fr", "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "ar-EG", ";;;q=x", "x-klingon", "en;q=0", strings.Repeat("a,", 500)} {
		f.Add("", "", s)
	}
	f.Add("fr", "de", "es")
	f.Fuzz(func(t *testing.T, query, cookie, accept string) {
		l := Negotiate(query, cookie, accept, "")
		if !Supported(l.Tag()) {
			t.Fatalf("Negotiate(%q, %q, %q) = %q", query, cookie, accept, l.Tag())
		}
	})
}
