package web

import (
	"context"
	"fmt"

	"github.com/surveys-dev/surveys/internal/survey"
)

// funnelView is where the respondents of a multi-page survey stop: each
// page with the respondents who reached it and those who went no further.
// Views count the first page's showings (a reload counts again), the pages
// left are counted once per respondent (store.ViewCounter.AddPage), and the
// last step is the answers.
type funnelView struct {
	Views, Completed int64
	Pages            []funnelPage
}

type funnelPage struct {
	N                int
	Title            string
	Reached, Stopped int64
	// Percent is Reached as a share of the views.
	Percent string
}

// funnelOf builds the funnel of a survey of several pages; nil for one page.
func (s *Server) funnelOf(ctx context.Context, sv *survey.Survey, completed int64) (*funnelView, error) {
	pages := sv.Pages()
	if len(pages) < 2 || s.ranks == nil {
		return nil, nil
	}
	views, left, err := s.ranks.Funnel(ctx, sv.Tenant, sv.Slug)
	if err != nil {
		return nil, err
	}
	reached := func(k int) int64 { // respondents who reached page k (from 1)
		switch {
		case k == 1:
			return views
		case k > len(pages):
			return completed
		case k-2 < len(left):
			return left[k-2]
		}
		return 0
	}
	f := &funnelView{Views: views, Completed: completed}
	for k := 1; k <= len(pages); k++ {
		title := pages[k-1].Section.Title
		if title == "" {
			title = fmt.Sprintf("Page %d", k)
		}
		p := funnelPage{N: k, Title: title, Reached: reached(k), Stopped: max(reached(k)-reached(k+1), 0), Percent: "—"}
		if views > 0 {
			p.Percent = fmt.Sprintf("%.0f%%", 100*float64(p.Reached)/float64(views))
		}
		f.Pages = append(f.Pages, p)
	}
	return f, nil
}
