package web

import (
	"net/http"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// allowFraming lets the sites a survey names (survey.EmbedOrigins) show
// its respondent pages in a frame: their origins become the page's
// frame-ancestors, and X-Frame-Options (which cannot name sites) goes.
// Every other page, and a survey that names none, keeps frame-ancestors
// 'none'.
func allowFraming(w http.ResponseWriter, sv *survey.Survey) {
	if len(sv.EmbedOrigins) == 0 {
		return
	}
	w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy,
		"frame-ancestors 'none'", "frame-ancestors "+strings.Join(sv.EmbedOrigins, " "), 1))
	w.Header().Del("X-Frame-Options")
}

// embedSnippet is the HTML a subscriber pastes into a page of an allowed
// site: the survey in a frame that web/static/embed.js resizes to its
// content (without the script it keeps its height and scrolls).
func embedSnippet(base string, sv *survey.Survey) string {
	src := base + "/survey/" + sv.Tenant + "/" + sv.Slug
	return `<iframe src="` + src + `" title="` + htmlAttr(sv.Title) + `" data-surveys-embed width="100%" height="640" loading="lazy"></iframe>` + "\n" +
		`<script src="` + base + `/static/embed.js" async></script>`
}

// htmlAttr escapes s for a double-quoted attribute.
func htmlAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;").Replace(s)
}
