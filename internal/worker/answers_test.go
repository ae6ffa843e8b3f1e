package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// textSurvey creates a published survey of n text questions, each asked
// in a question of qlen characters.
func textSurvey(t *testing.T, st storage.Storage, n, qlen int) *survey.Survey {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	s := &survey.Survey{Tenant: newTenant(), Title: "Long answers", State: survey.Published}
	for i := range n {
		text := fmt.Sprintf("Question %d: ", i)
		text += strings.Repeat("why? ", qlen)[:qlen-len(text)]
		s.Questions = append(s.Questions, survey.Question{Text: text, Type: survey.SimpleText})
	}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// textAnswer answers every question of s with text(question).
func textAnswer(t *testing.T, s *survey.Survey, text func(q int) string) survey.SurveyAnswer {
	t.Helper()
	values := map[string]string{}
	for i, q := range s.Questions {
		values[q.ID] = text(i)
	}
	a, err := survey.NewAnswer(s, surveytest.Forms(values))
	if err != nil {
		t.Fatal(err)
	}
	a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
	return a
}

// notifyTogether sends every answer through n at once, as concurrent
// POSTs do, and returns each outcome.
func notifyTogether(n *store.Notifier, answers []survey.SurveyAnswer, p survey.Plan) []error {
	errs := make([]error, len(answers))
	var wg sync.WaitGroup
	for i, a := range answers {
		wg.Go(func() { errs[i] = n.Notify(context.Background(), a, p) })
	}
	wg.Wait()
	return errs
}

// checkStored asserts each answer is stored as it was sent, question texts
// included, counted once in the summary and listed once, and that no
// spilled copy of one is left (another test's, on the shared Azurite, is
// not this one's to count).
func checkStored(t *testing.T, st storage.Storage, s *survey.Survey, sent []survey.SurveyAnswer) {
	t.Helper()
	f := &fixture{st: st, survey: s}
	as := store.NewSurveyAnswerStore(st)
	for _, want := range sent {
		f.ids = append(f.ids, want.ID)
		got, err := as.Get(context.Background(), s.Tenant, s.Slug, want.ID)
		if err != nil {
			t.Fatalf("answer %s: %v", want.ID, err)
		}
		if !got.CreatedOn.Equal(want.CreatedOn) || got.Title != want.Title || !reflect.DeepEqual(got.Answers, want.Answers) {
			t.Fatalf("answer %s is stored differently from what was sent", want.ID)
		}
	}
	f.check(t)
	if n := spillsOf(t, st, f.ids); n != 0 {
		t.Fatalf("%d spilled answers left after the drain", n)
	}
}

// TestLongAnswers: every answer within the per-question limits is accepted
// and counted, however long in all: an answer larger than a queue message
// is spilled to a blob, and no answer fails for its neighbours' size.
func TestLongAnswers(t *testing.T) {
	tests := []struct {
		name            string
		questions, qlen int
		long, small     int
	}{
		{"50 questions of 500 characters, 4,000-character answers", survey.MaxQuestions, survey.MaxQuestionLength, 3, 0},
		{"13 answers of 4,000 characters", 13, 20, 1, 0},
		{"one big answer among small ones, at once", 13, 20, 1, 20},
	}
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s := textSurvey(t, st, tt.questions, tt.qlen)
				var sent []survey.SurveyAnswer
				for i := range tt.long + tt.small {
					if i < tt.long {
						sent = append(sent, textAnswer(t, s, func(q int) string { return longText(i + q) }))
					} else {
						sent = append(sent, textAnswer(t, s, func(q int) string { return fmt.Sprintf("short %d", i) }))
					}
				}
				n := store.NewNotifier(store.NewSurveyAnswerStore(st), 4)
				for i, err := range notifyTogether(n, sent, survey.Standard) {
					if err != nil {
						t.Fatalf("answer %d of %d refused: %v", i, len(sent), err)
					}
				}
				drain(t, st, worker.New(st, patientConfig, quiet, nil))
				checkStored(t, st, s, sent)
			})
		}
	})
}

// gated holds every enqueue until open is closed.
type gated struct {
	storage.Storage
	open chan struct{}
}

func (g *gated) Enqueue(ctx context.Context, q string, data []byte, o storage.EnqueueOptions) (string, error) {
	<-g.open
	return g.Storage.Enqueue(ctx, q, data, o)
}

// TestSameFormPostedTogether posts each of 20 forms three times at once
// (a double click on Submit, and one more), with the queue held so that
// posts of one form may share a message or not, as they come: each form
// is one answer in the summary and the list, as a recount finds, whichever
// messages its posts landed in. (TestSameFormInTwoMessages makes each
// case happen on purpose.)
func TestSameFormPostedTogether(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		// With 13 questions, every fifth form is too large for a message.
		for _, questions := range []int{2, 13} {
			t.Run(fmt.Sprintf("questions=%d", questions), func(t *testing.T) {
				s := textSurvey(t, st, questions, 20)
				var forms, posts []survey.SurveyAnswer
				for i := range 20 {
					a := textAnswer(t, s, func(q int) string { return fmt.Sprintf("form %d", i) })
					if i%5 == 0 {
						a = textAnswer(t, s, func(q int) string { return longText(i + q) })
					}
					forms = append(forms, a)
					posts = append(posts, a, a, a)
				}
				g := &gated{Storage: st, open: make(chan struct{})}
				n := store.NewNotifier(store.NewSurveyAnswerStore(g), 1)
				done := make(chan []error)
				go func() { done <- notifyTogether(n, posts, survey.Standard) }()
				close(g.open)
				for i, err := range <-done {
					if err != nil {
						t.Fatalf("post %d: %v", i, err)
					}
				}
				drain(t, st, worker.New(st, patientConfig, quiet, nil))
				checkStored(t, st, s, forms)
			})
		}
	})
}

// TestSameFormInTwoMessages posts each of 10 forms, one message each,
// then each again in a message of its own (a resend after the first was
// queued), and drains the queue in batches of one message (the second
// copy comes after the first is merged: the answer blob, filed by the
// first message, says it is not the second's to count) and of 32 (both
// copies in one batch). Each form is one answer, small or spilled to a
// blob, on both backends.
func TestSameFormInTwoMessages(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		for _, batch := range []int{1, 32} {
			for _, questions := range []int{2, 13} {
				t.Run(fmt.Sprintf("batch=%d/questions=%d", batch, questions), func(t *testing.T) {
					s := textSurvey(t, st, questions, 20)
					var forms []survey.SurveyAnswer
					for i := range 10 {
						a := textAnswer(t, s, func(q int) string { return fmt.Sprintf("form %d", i) })
						if i%5 == 0 {
							a = textAnswer(t, s, func(q int) string { return longText(i + q) })
						}
						forms = append(forms, a)
					}
					n := store.NewNotifier(store.NewSurveyAnswerStore(st), 1)
					ctx := context.Background()
					for range 2 {
						for i, a := range forms {
							// One at a time: each its own message.
							if err := n.Notify(ctx, a, survey.Standard); err != nil {
								t.Fatalf("post %d: %v", i, err)
							}
						}
					}
					if got, err := st.ApproximateCount(ctx, store.AnswersQueue); err != nil || got != 20 {
						t.Fatalf("%d messages queued (%v), want 20: one per post", got, err)
					}
					cfg := patientConfig
					cfg.Batch = batch
					drain(t, st, worker.New(st, cfg, quiet, nil))
					checkStored(t, st, s, forms)
				})
			}
		}
	})
}

// slowFirst holds back the put of an answer blob whose body holds slow,
// so that a put of the same blob sent after it, if the worker sends both
// at once, lands first.
type slowFirst struct {
	storage.Storage
	slow string
}

func (s *slowFirst) PutBlob(ctx context.Context, container, name string, data []byte, o storage.PutOptions) (string, error) {
	if strings.Contains(string(data), s.slow) {
		time.Sleep(100 * time.Millisecond)
	}
	return s.Storage.PutBlob(ctx, container, name, data, o)
}

// TestResubmittedFormKeepsFirst sends one form three times with other
// values (the respondent went Back and changed an answer after it was
// acknowledged), each in its own message, and merges all three in one
// batch whose first filing is slow: the answer kept and counted is the
// first one sent, as when the messages are merged one by one.
func TestResubmittedFormKeepsFirst(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	s := textSurvey(t, st, 2, 20)
	first := textAnswer(t, s, func(q int) string { return "sent first" })
	n := store.NewNotifier(store.NewSurveyAnswerStore(st), 1)
	for _, v := range []string{"sent first", "sent second", "sent third"} {
		a := first
		a.Answers = nil
		for _, qa := range first.Answers {
			qa.Answer = v
			a.Answers = append(a.Answers, qa)
		}
		if err := n.Notify(ctx, a, survey.Standard); err != nil {
			t.Fatal(err)
		}
	}
	cfg := patientConfig
	cfg.Batch = 32
	drain(t, st, worker.New(&slowFirst{Storage: st, slow: "sent first"}, cfg, quiet, nil))
	checkStored(t, st, s, []survey.SurveyAnswer{first})
}

// TestAnswerTwiceInMessage: a message that carries one answer twice (as
// messages queued before the notifier removed repeats may) counts it once
// and lists it once, in either message format.
func TestAnswerTwiceInMessage(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	s := textSurvey(t, st, 2, 20)
	old := textAnswer(t, s, func(q int) string { return "first format" })
	cur := textAnswer(t, s, func(q int) string { return "current format" })
	oldMsg, err := json.Marshal(store.AnswerMessage{Answers: []survey.SurveyAnswer{old, old}})
	if err != nil {
		t.Fatal(err)
	}
	q := store.QueuedAnswer{ID: cur.ID, Tenant: cur.Tenant, Slug: cur.Slug, Title: cur.Title, CreatedOn: cur.CreatedOn}
	for _, qa := range cur.Answers {
		q.Values = append(q.Values, store.QueuedValue{Question: qa.QuestionID, Answer: qa.Answer})
	}
	curMsg, err := json.Marshal(store.AnswerMessage{Queued: []store.QueuedAnswer{q, q}})
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{oldMsg, curMsg} {
		if _, err := st.Enqueue(ctx, store.AnswersQueue, data, storage.EnqueueOptions{TTL: -1}); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, st, worker.New(st, worker.Config{Batch: 1, Visibility: time.Second, MaxAttempts: 5, MaxIdle: 50 * time.Millisecond}, quiet, nil))
	checkStored(t, st, s, []survey.SurveyAnswer{old, cur})
}

// TestEnqueueCrash kills the answer POST before and after each storage
// call of an enqueue of a small and a spilled answer (the spill's write,
// the message's enqueue): the answers not acknowledged are posted again
// (the same form, so the same IDs), and every answer is then stored and
// counted once.
func TestEnqueueCrash(t *testing.T) {
	clean := faulty.New(backends.Local(t))
	s := textSurvey(t, clean.Unwrap(), 13, 20)
	send := func(st storage.Storage) ([]survey.SurveyAnswer, []error) {
		answers := []survey.SurveyAnswer{
			textAnswer(t, s, func(q int) string { return fmt.Sprintf("small %d", q) }),
			textAnswer(t, s, func(q int) string { return longText(q) }),
		}
		return answers, store.NewSurveyAnswerStore(st).EnqueueEach(context.Background(), "", answers)
	}
	if _, errs := send(clean); errs[0] != nil || errs[1] != nil {
		t.Fatalf("a clean enqueue: %v", errs)
	}
	total := clean.Calls()
	if total < 2 {
		t.Fatalf("a clean enqueue makes %d storage calls", total)
	}
	for n := int64(1); n <= total; n++ {
		for _, after := range []bool{false, true} {
			t.Run(fmt.Sprintf("call=%d/after=%v", n, after), func(t *testing.T) {
				st := backends.Local(t)
				s = textSurvey(t, st, 13, 20)
				answers, errs := send(faulty.At(st, n, after))
				failed := 0
				for i, err := range errs {
					if err != nil {
						failed++
						// The respondent posts the form again.
						if err := store.NewSurveyAnswerStore(st).Enqueue(context.Background(), answers[i:i+1]); err != nil {
							t.Fatal(err)
						}
					}
				}
				if failed == 0 {
					t.Fatal("the crash failed no answer")
				}
				drain(t, st, worker.New(st, patientConfig, quiet, nil))
				f := &fixture{st: st, survey: s, ids: []string{answers[0].ID, answers[1].ID}}
				f.check(t)
			})
		}
	}
}
