//go:build unix

package web_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
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
	c := signInAna(b, app)
	q := app.adatum.Questions
	url := app.srv.URL + "/adatum/surveys/" + app.adatum.Slug + "/crosstab?row=" + q[0].ID + "&col=" + q[1].ID
	perAnswer, cpu := benchPage(b, st, url, c, "<strong>100000</strong> answers counted, each with an answer to both", n)
	if perAnswer > 0.01 {
		b.Errorf("%.4f storage operations per answer, over the ceiling of 0.01", perAnswer)
	}
	if cpu > time.Second {
		b.Errorf("%s of CPU a cross-tabulation of %d answers, over the ceiling of 1s", cpu, n)
	}
}
