package web

import (
	"html/template"
	"strings"
)

// surveyNavData is what the survey-nav partial (a survey's tabs) shows:
// the survey, and which tab the page is. A page under a tab (the written
// answers under Analysis) names it tab/sub.
type surveyNavData struct {
	Tenant, Slug string
	current      string
}

// surveyNav is the pages' surveyNav function.
func surveyNav(tenant, slug, current string) surveyNavData {
	return surveyNavData{Tenant: tenant, Slug: slug, current: current}
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
