package survey

import (
	"net/url"
	"strings"
)

// MaxEmbedOrigins bounds the sites that may embed a survey.
const MaxEmbedOrigins = 10

// ParseEmbedOrigins reads the sites allowed to embed a survey in a frame,
// one per line (or separated by spaces or commas): each an origin,
// "https://www.adatum.example" or "http://localhost:8080", with no path,
// query or user. It returns them normalised (lower-case, no default port),
// without duplicates, or an EINVALID *Error under "embedOrigins" naming
// the first bad line.
func ParseEmbedOrigins(text string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' || r == ' ' || r == '\t' || r == ',' }) {
		o, ok := embedOrigin(f)
		if !ok {
			return nil, embedError("%q is not a site's origin: write it as https://www.example.com (no path).", CleanLine(truncate(f, 80)))
		}
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	if len(out) > MaxEmbedOrigins {
		return nil, embedError("List at most %d sites.", MaxEmbedOrigins)
	}
	return out, nil
}

func embedError(format string, args ...any) error {
	e := Errorf(EINVALID, format, args...)
	e.Fields = map[string]string{"embedOrigins": e.Message}
	return e
}

// embedOrigin is s as an origin for a Content-Security-Policy's
// frame-ancestors: scheme http or https, a host of letters, digits, dots
// and hyphens (or an IPv4 address), an optional port; nothing else.
func embedOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/") || u.Opaque != "" || len(s) > 253 {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return "", false
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return "", false
		}
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return "", false
		}
	}
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	o := u.Scheme + "://" + host
	if port != "" {
		if len(port) > 5 {
			return "", false
		}
		o += ":" + port
	}
	return o, true
}
