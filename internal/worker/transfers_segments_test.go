package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/postgres"
	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// segmentedTransfer is a tenant with a database and a survey of n answers
// stored as the answers worker stores them (storetest.PutAnswers), the
// last pending of them merged into the summary but not yet listed or in a
// segment; and a transfer worker.
type segmentedTransfer struct {
	st       *counting.Store
	survey   *survey.Survey
	answers  []*survey.SurveyAnswer
	database string
	xfer     *worker.Transfers
	requests *store.SurveyTransferStore
}

func newSegmentedTransfer(tb testing.TB, n, pending int) *segmentedTransfer {
	tb.Helper()
	ctx := context.Background()
	st := counting.New(backends.Local(tb))
	if err := store.Init(ctx, st); err != nil {
		tb.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		tb.Fatal(err)
	}
	box, err := secret.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		tb.Fatal(err)
	}
	tenants := store.NewTenantStore(st).WithSecrets(box)
	x := &segmentedTransfer{st: st, database: pgtest.NewDatabase(tb), requests: store.NewSurveyTransferStore(st)}
	tenant := &survey.Tenant{Key: newTenant(), Name: "Segments", Plan: survey.Premium,
		SQLConnection: pgtest.ConnectionString(x.database), SQLPassword: pgtest.Password}
	if err := tenants.Create(ctx, tenant); err != nil {
		tb.Fatal(err)
	}
	x.survey = &survey.Survey{Tenant: tenant.Key, Title: "Copied", State: survey.Published, Questions: []survey.Question{
		{Text: "Rate", Type: survey.FiveStars},
		{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
		{Text: "Say", Type: survey.SimpleText},
	}}
	if err := store.NewSurveyStore(st).Create(ctx, x.survey); err != nil {
		tb.Fatal(err)
	}
	start := time.Now().UTC().Add(-time.Duration(n) * time.Millisecond)
	for i := range n {
		on := start.Add(time.Duration(i) * time.Millisecond)
		a := &survey.SurveyAnswer{ID: store.NewAnswerID(on), Tenant: tenant.Key, Slug: x.survey.Slug, Title: x.survey.Title, CreatedOn: on}
		for j, v := range []string{fmt.Sprint(i%5 + 1), []string{"Red", "Green", "Blue"}[i%3], fmt.Sprintf("answer number %d", i)} {
			q := x.survey.Questions[j]
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
		}
		x.answers = append(x.answers, a)
	}
	if err := storetest.PutAnswers(ctx, st, x.survey, x.answers, pending); err != nil {
		tb.Fatal(err)
	}
	x.xfer = worker.NewTransfers(st, tenants, postgres.New(pgtest.Allow), transferConfig, quiet)
	return x
}

// run requests a copy and runs it, and returns its status.
func (x *segmentedTransfer) run(tb testing.TB) *store.TransferStatus {
	tb.Helper()
	ctx := context.Background()
	if err := x.requests.Request(ctx, x.survey.Tenant, x.survey.Slug); err != nil {
		tb.Fatal(err)
	}
	if n, err := x.xfer.RunOnce(ctx); n != 1 || err != nil {
		tb.Fatalf("RunOnce took %d requests: %v", n, err)
	}
	s, err := x.requests.Status(ctx, x.survey.Tenant, x.survey.Slug)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// blobGets counts the blob reads so far.
func blobGets(st *counting.Store) int64 {
	for _, c := range st.Snapshot() {
		if c.Op == (counting.Op{Service: "blob", Kind: "get"}) {
			return c.Calls
		}
	}
	return 0
}

// TestTransferReadsSegments: the copy reads the answers from the survey's
// segments, a segment at a time, and the newest, merged into the summary
// but not in a segment yet, from their own blobs: every answer arrives
// once, and the blob reads are a handful, not one per answer.
func TestTransferReadsSegments(t *testing.T) {
	const n, pending = 2500, 3
	x := newSegmentedTransfer(t, n, pending)
	before := blobGets(x.st)
	s := x.run(t)
	reads := blobGets(x.st) - before
	if s.State != store.TransferDone || s.Answers != n || s.Rows != 3*n {
		t.Fatalf("status after the copy = %+v; want %d answers, %d rows", s, n, 3*n)
	}
	ctx := context.Background()
	conn, err := pgtest.Admin(ctx, x.database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var answers int
	var first, last string
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT answer_id), min(answer_id), max(answer_id) FROM answers`).Scan(&answers, &first, &last); err != nil {
		t.Fatal(err)
	}
	if answers != n || first != x.answers[0].ID || last != x.answers[n-1].ID {
		t.Errorf("database holds %d answers, %s to %s; want %d, %s to %s", answers, first, last, n, x.answers[0].ID, x.answers[n-1].ID)
	}
	// The tenant, survey, status and request reads, the segments, the
	// list's chunk and the summary, and one read per answer not in a
	// segment: far fewer than one per answer.
	segments := int64((n-pending)/store.SegmentMaxAnswers + 1)
	if reads > segments+pending+12 {
		t.Errorf("the copy read %d blobs; want at most %d", reads, segments+pending+12)
	}
	t.Logf("copy of %d answers: %d blob reads", n, reads)
}

// BenchmarkTransfer100k copies 100,000 answers of a survey (300,000 rows)
// into PostgreSQL through the transfer worker, which reads them from the
// survey's segments, and reports answers/s.
func BenchmarkTransfer100k(b *testing.B) {
	const n = 100_000
	start := time.Now()
	x := newSegmentedTransfer(b, n, 0)
	b.Logf("stored %d answers in %s", n, time.Since(start).Round(time.Millisecond))
	var runs int64
	before := x.st.Total("")
	for b.Loop() {
		if s := x.run(b); s.State != store.TransferDone || s.Answers != n {
			b.Fatalf("status after the copy = %+v", s)
		}
		runs++
	}
	b.ReportMetric(float64(n*runs)/b.Elapsed().Seconds(), "answers/s")
	b.ReportMetric(float64(x.st.Total("")-before)/float64(n*runs), "storage-ops/answer")
}
