package web_test

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestCloseOnShownToRespondents: a survey with a close date tells its
// respondents the last day they can answer, and takes answers then; past
// that day its page says it closed, and takes none.
func TestCloseOnShownToRespondents(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	tomorrow, yesterday := today.AddDate(0, 0, 1), today.AddDate(0, 0, -1)
	for _, tc := range []struct {
		name    string
		closeOn time.Time
		code    int
		want    []string
		absent  []string
		answers bool
	}{
		{"no close date", time.Time{}, 200, nil, []string{"Open until", "last day"}, true},
		{"closes tomorrow", tomorrow, 200, []string{`<p class="survey-closes">Open until <time datetime="` + tomorrow.Format(time.DateOnly) + `">` + tomorrow.Format("Monday 2 January 2006") + `</time>: the last day to answer, until midnight UTC.</p>`}, nil, true},
		{"closed yesterday", yesterday, 410, []string{"This survey is closed", `the last day to answer was <time datetime="` + yesterday.Format(time.DateOnly) + `">` + yesterday.Format("2 January 2006") + `</time>`}, []string{"Open until"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := app.create(t, "adatum", "Poll "+tc.name, false, tc.closeOn)
			path := "/survey/adatum/" + s.Slug
			code, _, body := app.do(t, "GET", path, nil, nil)
			if code != tc.code {
				t.Fatalf("GET %s = %d, want %d", path, code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q\n%s", w, body)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(body, w) {
					t.Errorf("page says %q", w)
				}
			}
			if !tc.answers {
				if code, _, _ := app.do(t, "POST", path, url.Values{"token": {"x"}, "q-" + s.Questions[0].ID: {"Because"}}, nil); code != 410 {
					t.Errorf("answer after the last day = %d, want 410", code)
				}
				return
			}
			app.answer(t, s, 1)
		})
	}
}
