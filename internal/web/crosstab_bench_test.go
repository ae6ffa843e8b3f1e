//go:build unix

package web_test

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
)

// BenchmarkCrosstab100k cross-tabulates 100,000 answers of Adatum's
// survey (its star rating by its product, a multiple choice) through the
// real handler and the embedded store, and reports ns/op, answers/s and
// the storage operations per answer of the whole request (the session,
// the survey, its summary, the answer list and the segments): the page
// reads the segments, never an answer's own blob. Its ceilings: at most
// 0.01 operations per answer, and under a second of CPU (the process's,
// user and system, during the request: a shared machine's load stretches
// the wall time, which ns/op reports, but not that).
func BenchmarkCrosstab100k(b *testing.B) {
	const n = 100_000
	st := counting.New(backends.Local(b))
	app := newTestAppOn(b, st)
	answers := adatumAnswers(app, n)
	products := app.adatum.Questions[1].PossibleAnswers
	for i, a := range answers {
		a.Answers[0].Answer = strconv.Itoa(1 + i%5)
		a.Answers[1].Answer = products[(i/5)%len(products)]
	}
	start := time.Now()
	if err := storetest.PutAnswers(context.Background(), app.st, app.adatum, answers, 0); err != nil {
		b.Fatal(err)
	}
	b.Logf("stored %d answers in %s", n, time.Since(start).Round(time.Millisecond))
	if _, err := store.NewUserStore(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		b.Fatal(err)
	}
	_, c := app.signIn(b, "adatum", "ana@adatum.example", "correct horse battery")
	q := app.adatum.Questions
	url := app.srv.URL + "/adatum/surveys/" + app.adatum.Slug + "/crosstab?row=" + q[0].ID + "&col=" + q[1].ID
	var ops, runs int64
	var cpu time.Duration
	for b.Loop() {
		t0, cpu0 := time.Now(), cpuTime()
		before := st.Total("")
		req, _ := http.NewRequest("GET", url, nil)
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
		if resp.StatusCode != http.StatusOK || !strings.Contains(body.String(), "<strong>100000</strong> answers counted, each with an answer to both") {
			b.Fatalf("crosstab = %d: %.2000s", resp.StatusCode, body.String())
		}
	}
	perAnswer := float64(ops) / float64(n*runs)
	b.ReportMetric(float64(n*runs)/b.Elapsed().Seconds(), "answers/s")
	b.ReportMetric(perAnswer, "storage-ops/answer")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(runs), "cpu-ms/op")
	if perAnswer > 0.01 {
		b.Errorf("%.4f storage operations per answer, over the ceiling of 0.01", perAnswer)
	}
	if per := cpu / time.Duration(runs); per > time.Second {
		b.Errorf("%s of CPU a cross-tabulation of %d answers, over the ceiling of 1s", per, n)
	}
}
