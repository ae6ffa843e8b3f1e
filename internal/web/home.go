package web

import (
	"net/http"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

type homePage struct {
	MostAnswered, Newest, ClosingSoon []homeSurvey
}

// Empty reports whether no list has a survey.
func (p homePage) Empty() bool {
	return len(p.MostAnswered) == 0 && len(p.Newest) == 0 && len(p.ClosingSoon) == 0
}

type homeSurvey struct {
	Tenant, TenantName, Slug, Title string
	Answers                         int64
	// CloseOn is the last day the survey takes answers (zero: no close
	// date); it closes at the end of that day, UTC.
	PublishedOn, CloseOn time.Time
}

// home shows the surveys their tenants chose to list: most answered,
// newest, closing soon. Each list is the first rows of a ranked table
// (store.RankingStore), cached for a few seconds; nothing is scanned.
func (s *Server) home(w http.ResponseWriter, r *http.Request) error {
	var page homePage
	if s.homeLists != nil {
		lists, err := s.homeLists.Home(r.Context())
		if err != nil {
			return err
		}
		names := map[string]string{}
		convert := func(in []store.RankedSurvey) ([]homeSurvey, error) {
			var out []homeSurvey
			for _, rs := range in {
				name, ok := names[rs.Tenant]
				if !ok {
					t, err := s.public.Tenant(r.Context(), rs.Tenant)
					switch {
					case survey.ErrorCode(err) == survey.ENOTFOUND:
					case err != nil:
						return nil, err
					case !t.Suspended:
						name = t.Name
					}
					names[rs.Tenant] = name
				}
				if name == "" {
					continue // a suspended or removed tenant
				}
				out = append(out, homeSurvey{Tenant: rs.Tenant, TenantName: name, Slug: rs.Slug, Title: rs.Title,
					Answers: rs.Answers, PublishedOn: rs.PublishedOn, CloseOn: rs.CloseOn})
			}
			return out, nil
		}
		var err2 error
		for _, l := range []struct {
			in  []store.RankedSurvey
			out *[]homeSurvey
		}{{lists.MostAnswered, &page.MostAnswered}, {lists.Newest, &page.Newest}, {lists.ClosingSoon, &page.ClosingSoon}} {
			if *l.out, err2 = convert(l.in); err2 != nil {
				return err2
			}
		}
	}
	s.render(w, r, http.StatusOK, "home", page)
	return nil
}

// homeListData is one list of the home page, for the home-list template.
type homeListData struct {
	ID, Title string
	Surveys   []homeSurvey
}

func homeListOf(id, title string, surveys []homeSurvey) homeListData {
	return homeListData{ID: id, Title: title, Surveys: surveys}
}
