package web

import (
	"net/http"
	"sort"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

type homePage struct {
	Surveys []homeSurvey
}

type homeSurvey struct {
	Tenant, TenantName, Slug, Title string
	PublishedOn                     time.Time
}

// home lists the published surveys that their tenants chose to list,
// newest first.
func (s *Server) home(w http.ResponseWriter, r *http.Request) error {
	tenants, err := s.tenants.List(r.Context())
	if err != nil {
		return err
	}
	var page homePage
	for _, t := range tenants {
		if t.Suspended {
			continue
		}
		list, err := s.surveys.List(r.Context(), t.Key)
		if err != nil {
			return err
		}
		for _, sv := range list {
			if sv.State == survey.Published && sv.Listed {
				page.Surveys = append(page.Surveys, homeSurvey{Tenant: t.Key, TenantName: t.Name, Slug: sv.Slug, Title: sv.Title, PublishedOn: sv.PublishedOn})
			}
		}
	}
	sort.Slice(page.Surveys, func(i, j int) bool { return page.Surveys[i].PublishedOn.After(page.Surveys[j].PublishedOn) })
	s.render(w, r, http.StatusOK, "home", page)
	return nil
}
