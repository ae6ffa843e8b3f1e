package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// TestPagesReadSegments: every page that reads many answers (the exports,
// one answer by position, the table, the API's pages) reads them from the
// survey's segments, in the order of its list, a handful of storage calls
// for any number of answers; the newest answers, merged into the summary
// but not yet in a segment, come from their own blobs, last.
func TestPagesReadSegments(t *testing.T) {
	t.Parallel()
	const n, pending = 1205, 3
	st := counting.New(backends.Local(t))
	app := newTestAppOn(t, st)
	ctx := context.Background()
	q := app.adatum.Questions
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var answers []*survey.SurveyAnswer
	for i := 1; i <= n; i++ {
		on := start.Add(time.Duration(i) * time.Second)
		answers = append(answers, &survey.SurveyAnswer{ID: store.NewAnswerID(on), Tenant: "adatum", Slug: app.adatum.Slug, CreatedOn: on, Answers: []survey.QuestionAnswer{
			{QuestionID: q[0].ID, Type: q[0].Type, Answer: "4"},
			{QuestionID: q[3].ID, Type: q[3].Type, Answer: fmt.Sprintf("Answer number %d", i)},
		}})
	}
	// Listed out of the order of their IDs (the list's order is the
	// order answers were counted in): the first two swapped.
	answers[0], answers[1] = answers[1], answers[0]
	if err := storetest.PutAnswers(ctx, app.st, app.adatum, answers, pending); err != nil {
		t.Fatal(err)
	}
	if segmented, err := app.answers.Segmented(ctx, "adatum", app.adatum.Slug); err != nil || segmented != n-pending {
		t.Fatalf("segmented = %d, %v; want %d", segmented, err, n-pending)
	}
	// number is the number of the answer at position i of the list.
	number := func(i int) int {
		k, _ := strconv.Atoi(strings.TrimPrefix(answers[i].Answers[1].Answer, "Answer number "))
		return k
	}
	var all []int
	for i := range answers {
		all = append(all, number(i))
	}
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	// numbers are the numbers of the answers a page shows, in its order
	// (JSON gives each text twice, as answer and value: counted once).
	numbers := func(body string) []int {
		var out []int
		for _, m := range regexp.MustCompile(`Answer number (\d+)`).FindAllStringSubmatch(body, -1) {
			if k, _ := strconv.Atoi(m[1]); len(out) == 0 || out[len(out)-1] != k {
				out = append(out, k)
			}
		}
		return out
	}
	base := "/adatum/surveys/" + app.adatum.Slug
	for _, c := range []struct {
		name, path string
		want       []int
		contains   string
		maxOps     int64
	}{
		{"CSV export", base + "/export.csv", all, "", 30},
		{"JSON export", base + "/export.json", all, "", 30},
		{"API export", "/api/v1/surveys/" + app.adatum.Slug + "/export", all, "", 30},
		{"first answer", base + "/answers?i=0", all[:1], "Answer 1 of 1205", 12},
		{"last answer, not in a segment yet", base + "/answers?i=1204", all[n-1:], "Answer 1205 of 1205", 16},
		{"first page of the table", base + "/answers/table", all[:25], "1205 answers · page 1 of 49", 12},
		{"last page of the table", base + "/answers/table?page=49", all[1200:], "1205 answers · page 49 of 49", 16},
		{"API page across the last segment's end", "/api/v1/surveys/" + app.adatum.Slug + "/answers?offset=1195&limit=100", all[1195:], `"total":1205`, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := st.Total("")
			var code int
			var body string
			if strings.HasPrefix(c.path, "/api/") {
				code, _, body = app.api(t, "GET", c.path, token, "")
			} else {
				code, _, body = app.get(t, c.path, ana)
			}
			ops := st.Total("") - before
			if got := numbers(body); code != 200 || !slices.Equal(got, c.want) {
				t.Errorf("GET %s = %d with %d answers %v…; want %d answers %v…", c.path, code, len(got), got[:min(len(got), 5)], len(c.want), c.want[:min(len(c.want), 5)])
			}
			if !strings.Contains(body, c.contains) {
				t.Errorf("GET %s lacks %q", c.path, c.contains)
			}
			if ops > c.maxOps {
				t.Errorf("GET %s made %d storage calls; want at most %d", c.path, ops, c.maxOps)
			}
			t.Logf("GET %s: %d storage calls", c.path, ops)
		})
	}

	// The CSV's first column is each answer's ID, in the list's order.
	_, _, body := app.get(t, base+"/export.csv", ana)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	if err != nil || len(rows) != n+1 {
		t.Fatalf("CSV: %d rows, %v", len(rows), err)
	}
	for i, a := range answers {
		if rows[i+1][0] != a.ID {
			t.Fatalf("CSV row %d is answer %s, want %s", i+1, rows[i+1][0], a.ID)
		}
	}
	// The exports for SPSS and R: their data files' rows, in the list's
	// order, read from the segments as the CSV's are.
	for _, format := range []string{"spss", "r"} {
		before := st.Total("")
		_, _, body := app.get(t, base+"/export."+format, ana)
		if ops := st.Total("") - before; ops > 30 {
			t.Errorf("GET export.%s made %d storage calls; want at most 30", format, ops)
		}
		rows := csvRows(t, zipFiles(t, body)["adatum-"+app.adatum.Slug+".csv"])
		if len(rows) != n+1 {
			t.Fatalf("%s data: %d rows, want %d", format, len(rows), n+1)
		}
		for i, a := range answers {
			if rows[i+1][0] != a.ID {
				t.Fatalf("%s data row %d is answer %s, want %s", format, i+1, rows[i+1][0], a.ID)
			}
		}
	}
	// And the JSON export's lines.
	_, _, body = app.get(t, base+"/export.json", ana)
	for i, line := range strings.Split(strings.TrimSpace(body), "\n") {
		var a struct{ ID string }
		if err := json.Unmarshal([]byte(line), &a); err != nil || a.ID != answers[i].ID {
			t.Fatalf("JSON line %d is answer %q (%v), want %s", i+1, a.ID, err, answers[i].ID)
		}
	}
}

// TestLiveAnalysisCost counts the storage calls of the analysis page's
// poll (every 5 s per open tab) when nothing changed: the session and the
// summary, not the survey, never the answers.
func TestLiveAnalysisCost(t *testing.T) {
	t.Parallel()
	st := counting.New(backends.Local(t))
	// The tenant cached for the whole test, as in production (the test
	// app's millisecond made the count depend on the machine's speed: the
	// tenant was read again when the poll came a millisecond late).
	app := newTestAppOn(t, st, func(d *web.Deps) {
		d.Public = store.NewCachedSurveys(store.NewSurveyStore(st), store.NewTenantStore(st).WithSecrets(testBox), time.Hour)
	})
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
		t.Fatal("answer refused")
	}
	app.stored(t)
	live := "/adatum/surveys/" + app.adatum.Slug + "/analyze/live?since=1"
	app.get(t, live, ana) // warms the caches a page view warms
	before := st.Total("")
	code, _, _ := app.get(t, live, ana)
	ops := st.Total("") - before
	if code != 204 || ops > 2 {
		t.Fatalf("a poll with nothing new = %d, %d storage calls; want 204 in at most 2", code, ops)
	}
	t.Logf("a poll with nothing new: %d storage calls (%d a minute per open tab)", ops, ops*12)
}
