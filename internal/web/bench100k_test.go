package web_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The 100,000 answers of the analysis, cross-tabulation and report
// benchmarks, and their requests, made one way.

// storeRepeated creates sv and stores n answers to it in segments
// (storetest.PutSegmented): 1,000 distinct answers made by forms (a
// generator seeded with seed), given in turn, the i-th at start plus i
// steps. see, when not nil, sees each answer before it is stored (to
// count those a filter picks, from their texts). It returns after
// logging how long storing took.
func storeRepeated(b *testing.B, app *testApp, sv *survey.Survey, forms func(*rand.Rand) map[string]survey.Form, n int, seed uint64, start time.Time, step time.Duration, see func(a *survey.SurveyAnswer)) {
	b.Helper()
	ctx := context.Background()
	if err := app.surveys.Create(ctx, sv); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, seed+1))
	distinct := make([]survey.SurveyAnswer, 1000)
	for i := range distinct {
		a, err := survey.NewAnswer(sv, forms(r))
		if err != nil {
			b.Fatal(err)
		}
		distinct[i] = a
	}
	answers := make([]*survey.SurveyAnswer, n)
	for i := range answers {
		a := distinct[i%len(distinct)]
		a.CreatedOn = start.Add(time.Duration(i) * step)
		a.ID = store.NewAnswerID(a.CreatedOn)
		answers[i] = &a
		if see != nil {
			see(&a)
		}
	}
	began := time.Now()
	if err := storetest.PutSegmented(ctx, app.st, sv, answers); err != nil {
		b.Fatal(err)
	}
	b.Logf("stored %d answers to %d questions in segments in %s", n, len(sv.Questions), time.Since(began).Round(time.Millisecond))
}

// signInAna adds Ana to Adatum and signs her in.
func signInAna(b *testing.B, app *testApp) *http.Cookie {
	b.Helper()
	if _, err := store.NewUserStore(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		b.Fatal(err)
	}
	_, c := app.signIn(b, "adatum", "ana@adatum.example", "correct horse battery")
	return c
}

// benchPage gets page with cookie c b.N times, each page a 200 that
// contains want, and reports answers/s (of n answers a page), the
// storage operations per answer read (st counts them) and the process's
// CPU time a page (user and system: the wall time of a shared machine,
// which ns/op reports, is longer). It returns the operations per answer
// and the CPU time a page.
func benchPage(b *testing.B, st *counting.Store, page string, c *http.Cookie, want string, n int) (perAnswer float64, cpuPer time.Duration) {
	b.Helper()
	var ops, runs int64
	var cpu time.Duration
	for b.Loop() {
		t0, cpu0 := time.Now(), cpuTime()
		before := st.Total("")
		req, _ := http.NewRequest("GET", page, nil)
		req.AddCookie(c)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		resp.Body.Close()
		ops += st.Total("") - before
		cpu += cpuTime() - cpu0
		runs++
		b.Logf("run %d: %s, %s of CPU, %d storage calls", runs, time.Since(t0).Round(time.Millisecond), (cpuTime() - cpu0).Round(time.Millisecond), st.Total("")-before)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body.String(), want) {
			b.Fatalf("%s = %d, want %q: %.3000s", page, resp.StatusCode, want, body.String())
		}
	}
	perAnswer = float64(ops) / float64(int64(n)*runs)
	b.ReportMetric(float64(int64(n)*runs)/b.Elapsed().Seconds(), "answers/s")
	b.ReportMetric(perAnswer, "storage-ops/answer")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(runs), "cpu-ms/op")
	return perAnswer, cpu / time.Duration(runs)
}
