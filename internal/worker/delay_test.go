package worker_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// metric gathers m's collectors and returns the one metric of the family
// name (nil when the family has none yet).
func metric(t *testing.T, m *worker.Metrics, name string) *dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m.Collectors()...)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0]
		}
	}
	return nil
}

// delaySamples is how many answers surveys_summary_delay_seconds observed.
func delaySamples(t *testing.T, m *worker.Metrics) uint64 {
	t.Helper()
	d := metric(t, m, "surveys_summary_delay_seconds")
	if d == nil {
		t.Fatal("no surveys_summary_delay_seconds")
	}
	return d.GetHistogram().GetSampleCount()
}

// TestDelayObservedOnce: the summary delay is observed once per answer,
// after the summary write that counts it succeeded: not for a write that
// failed, and not again when an ETag conflict makes the worker retry.
func TestDelayObservedOnce(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newFixture(t, st, newTenant(), 4, 4)
	m := worker.NewMetrics()
	// Every summary write fails: nothing is observed.
	refused := &failSummary{Storage: st, blob: f.survey.Tenant + "-" + f.survey.Slug}
	if _, err := worker.New(refused, testConfig, quiet, m).RunOnce(ctx); err == nil {
		t.Fatal("RunOnce with the summary refused: no error")
	}
	if n := delaySamples(t, m); n != 0 {
		t.Fatalf("%d delays observed with every summary write failed, want 0", n)
	}
	// Another writer changes the summary between the worker's read and its
	// write: the worker retries, and observes each answer once.
	empty, err := json.Marshal(store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(f.survey)})
	if err != nil {
		t.Fatal(err)
	}
	w := worker.New(&interloper{Storage: st, blob: refused.blob, empty: empty}, testConfig, quiet, m)
	drain(t, st, w)
	f.check(t)
	if n := delaySamples(t, m); n != 4 {
		t.Fatalf("%d delays observed for 4 answers", n)
	}
	if c := conflicts(t, m); c == 0 {
		t.Fatal("the summary write never conflicted: the test proves nothing")
	}
}

// conflicts reads surveys_worker_summary_conflicts_total.
func conflicts(t *testing.T, m *worker.Metrics) float64 {
	t.Helper()
	return metric(t, m, "surveys_worker_summary_conflicts_total").GetCounter().GetValue()
}

// interloper rewrites a summary blob just before the worker's first
// conditional write of it, as a second worker would.
type interloper struct {
	storage.Storage
	blob  string
	empty []byte // a summary of no answers
	done  bool
}

func (i *interloper) PutBlob(ctx context.Context, c, name string, data []byte, o storage.PutOptions) (string, error) {
	if c == store.SummariesContainer && name == i.blob && !i.done {
		i.done = true
		if o.IfMatch == "" {
			// The first write: another worker creates it first, empty.
			if _, err := i.Storage.PutBlob(ctx, c, name, i.empty, storage.PutOptions{ContentType: o.ContentType}); err != nil {
				return "", err
			}
		} else if b, err := i.Storage.GetBlob(ctx, c, name); err != nil {
			return "", err
		} else if _, err := i.Storage.PutBlob(ctx, c, name, b.Data, storage.PutOptions{ContentType: b.ContentType}); err != nil {
			return "", err
		}
	}
	return i.Storage.PutBlob(ctx, c, name, data, o)
}

// TestWordsAfterStopWords: a text question whose first answers hold only
// stop words is stored with no word counts; a later answer's words are
// still counted (the decoded summary once had no map to count them in).
func TestWordsAfterStopWords(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	s, _ := planSurvey(t, st, newTenant(), 0)
	s2 := &survey.Survey{Tenant: s.Tenant, Title: "Words", State: survey.Published,
		Questions: []survey.Question{{Text: "Say", Type: survey.SimpleText}}}
	if err := store.NewSurveyStore(st).Create(ctx, s2); err != nil {
		t.Fatal(err)
	}
	as := store.NewSurveyAnswerStore(st)
	for _, text := range []string{"the", "great service"} {
		a, err := survey.NewAnswer(s2, surveytest.Forms(map[string]string{s2.Questions[0].ID: text}))
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		if err := as.Enqueue(ctx, []survey.SurveyAnswer{a}); err != nil {
			t.Fatal(err)
		}
		drain(t, st, worker.New(st, testConfig, quiet, nil)) // a fresh worker reads the stored summary
	}
	sum, _, err := store.NewSurveyAnswersSummaryStore(st).Get(ctx, s2.Tenant, s2.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if sum.TotalAnswers != 2 || sum.Questions[0].Words["great"] != 1 {
		t.Fatalf("summary = %+v, want 2 answers and the word great once", sum.SurveyAnswersSummary)
	}
}
