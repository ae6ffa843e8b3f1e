package web

import (
	"context"
	"fmt"
	"slices"

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
	N       int
	Title   string
	Reached int64
	// Stopped is how many went no further, a number; "—" for a survey
	// whose sections jump or are skipped (respond_path.go), where a page's
	// respondents may go on past the next page.
	Stopped string
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
	branches := slices.ContainsFunc(sv.Sections, func(sc survey.Section) bool { return sc.ShowIf != nil || len(sc.Jumps) > 0 })
	for k := 1; k <= len(pages); k++ {
		title := pages[k-1].Section.Title
		if title == "" {
			title = fmt.Sprintf("Page %d", k)
		}
		p := funnelPage{N: k, Title: title, Reached: reached(k), Stopped: fmt.Sprint(max(reached(k)-reached(k+1), 0)), Percent: "—"}
		if branches {
			p.Stopped = "—"
		}
		if views > 0 {
			p.Percent = fmt.Sprintf("%.0f%%", 100*float64(p.Reached)/float64(views))
		}
		f.Pages = append(f.Pages, p)
	}
	return f, nil
}
