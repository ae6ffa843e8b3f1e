package survey_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

func TestParseEmbedOrigins(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		bad  string
	}{
		{in: "", want: nil},
		{in: "https://www.adatum.example", want: []string{"https://www.adatum.example"}},
		{in: "HTTPS://WWW.Adatum.Example:443/\nhttp://localhost:8080, https://www.adatum.example", want: []string{"https://www.adatum.example", "http://localhost:8080"}},
		{in: "http://127.0.0.1:5000 http://intranet.example:80", want: []string{"http://127.0.0.1:5000", "http://intranet.example"}},
		{in: "www.adatum.example", bad: "is not a site's origin"},
		{in: "https://www.adatum.example/survey", bad: "no path"},
		{in: "ftp://files.example", bad: "not a site's origin"},
		{in: "https://user@adatum.example", bad: "not a site's origin"},
		{in: "https://adatum.example?x=1", bad: "not a site's origin"},
		{in: "https://*.adatum.example", bad: "not a site's origin"},
		{in: "https://adatum.example; script-src *", bad: "not a site's origin"},
		{in: "'self'", bad: "not a site's origin"},
		{in: strings.Repeat("https://a.example ", 1) + "https://b.example https://c.example https://d.example https://e.example https://f.example https://g.example https://h.example https://i.example https://j.example https://k.example", bad: "at most 10"},
	} {
		got, err := survey.ParseEmbedOrigins(c.in)
		if c.bad != "" {
			var e *survey.Error
			if !asError(err, &e) || !strings.Contains(e.Fields["embedOrigins"], c.bad) {
				t.Errorf("ParseEmbedOrigins(%q) = %v, %v; want a problem saying %q", c.in, got, err, c.bad)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseEmbedOrigins(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// FuzzParseEmbedOrigins: whatever is accepted is safe in a
// frame-ancestors list: no quote, semicolon, comma, space or wildcard.
func FuzzParseEmbedOrigins(f *testing.F) {
	f.Add("https://www.adatum.example\nhttp://localhost:8080")
	f.Add("https://a.example; script-src *")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := survey.ParseEmbedOrigins(in)
		if err != nil {
			return
		}
		for _, o := range got {
			if strings.ContainsAny(o, "'\";, *\n\r\t") || !(strings.HasPrefix(o, "https://") || strings.HasPrefix(o, "http://")) {
				t.Fatalf("accepted %q", o)
			}
		}
	})
}
