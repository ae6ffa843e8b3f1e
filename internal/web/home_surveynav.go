package web

import (
	"html/template"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// surveyNavData is what the survey-nav partial (a survey's tabs) shows:
// the survey, and which tab the page is. A page under a tab (the written
// answers under Analysis) names it tab/sub.
type surveyNavData struct {
	Tenant, Slug string
	current      string
	// Edit shows the Questions tab: the page's member may edit surveys
	// (no role given: shown).
	Edit bool
	// query is the filter of the answers ("from=…&q=…"), which the tabs
	// of the answers and the exports carry.
	query string
}

// Filtered is d with the answers' filter, as a query.
func (d surveyNavData) Filtered(query string) surveyNavData {
	d.query = query
	return d
}

// IsFiltered reports whether the answers are filtered.
func (d surveyNavData) IsFiltered() bool { return d.query != "" }

// Href is the URL of the survey's page at path ("analyze", "export.csv"),
// with the answers' filter.
func (d surveyNavData) Href(path string) string {
	u := "/" + d.Tenant + "/surveys/" + d.Slug + "/" + path
	if d.query != "" {
		u += "?" + d.query
	}
	return u
}

// surveyNav is the pages' surveyNav function; role, when given, is the
// signed-in member's, which hides the tabs it may not use.
func surveyNav(tenant, slug, current string, role ...survey.Role) surveyNavData {
	return surveyNavData{Tenant: tenant, Slug: slug, current: current, Edit: len(role) == 0 || role[0].May(survey.EditSurveys)}
}

// Current is the attribute that marks tab as the current one: "page" on
// the tab's own page, "true" on a page under it; nothing on the others.
func (d surveyNavData) Current(tab string) template.HTMLAttr {
	switch {
	case d.current == tab:
		return ` aria-current="page"`
	case strings.HasPrefix(d.current, tab+"/"):
		return ` aria-current="true"`
	}
	return ""
}
