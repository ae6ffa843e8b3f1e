package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

func TestMain(m *testing.M) { azuritetest.Main(m) }

// newStorage returns an initialised storage of each backend, and a tenant
// key of the test's own.
func eachBackend(t *testing.T, f func(t *testing.T, st storage.Storage, tenant string)) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		if err := store.Init(context.Background(), st); err != nil {
			t.Fatalf("Init: %v", err)
		}
		f(t, st, newTenant())
	})
}

func newTenant() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "t" + hex.EncodeToString(b)
}

func sample(tenant, title string) *survey.Survey {
	return &survey.Survey{Tenant: tenant, Title: title, Questions: []survey.Question{
		{Text: "Rate us", Type: survey.FiveStars},
		{Text: "Pick one", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
		{Text: "Tell us more", Type: survey.SimpleText},
		{Text: "Rate us", Type: survey.FiveStars}, // same text, another question
	}}
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if survey.ErrorCode(err) != code {
		t.Fatalf("%s: got %v, want code %s", what, err, code)
	}
}

func TestSurveyLifecycle(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "  Customer Satisfaction  ")
		if err := ss.Create(ctx, s); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if s.Slug != "customer-satisfaction" || s.State != survey.Draft || s.CreatedOn.IsZero() {
			t.Fatalf("created %+v", s)
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got.Title != "Customer Satisfaction" || len(got.Questions) != 4 {
			t.Fatalf("Get = %+v", got)
		}
		for i, q := range got.Questions {
			if q.ID != s.Questions[i].ID || q.Text != s.Questions[i].Text || q.Type != s.Questions[i].Type {
				t.Errorf("question %d = %+v, want %+v", i, q, s.Questions[i])
			}
		}
		if strings.Join(got.Questions[1].PossibleAnswers, ",") != "Red,Green,Blue" {
			t.Errorf("possible answers = %v", got.Questions[1].PossibleAnswers)
		}
		if got.Questions[0].ID == got.Questions[3].ID {
			t.Error("two questions share an ID")
		}

		// The same title again gets the next free slug.
		again := sample(tenant, "Customer satisfaction")
		if err := ss.Create(ctx, again); err != nil {
			t.Fatalf("Create again: %v", err)
		}
		if again.Slug != "customer-satisfaction-2" {
			t.Errorf("second slug = %q", again.Slug)
		}

		// A draft can change; nothing of the old question set shows.
		got.Title = "Customer satisfaction, take two"
		got.Questions = got.Questions[1:3]
		if err := ss.Update(ctx, got); err != nil {
			t.Fatalf("Update: %v", err)
		}
		updated, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatalf("Get after Update: %v", err)
		}
		if updated.Title != got.Title || len(updated.Questions) != 2 || updated.Questions[0].Text != "Pick one" {
			t.Fatalf("after Update: %+v", updated)
		}

		// An invalid update changes nothing.
		bad := *updated
		bad.Questions = nil
		wantCode(t, "Update with no questions", ss.Update(ctx, &bad), survey.EINVALID)
		if same, _ := ss.Get(ctx, tenant, s.Slug); len(same.Questions) != 2 {
			t.Fatalf("invalid update changed the questions: %+v", same.Questions)
		}

		// Publish it.
		pub, err := ss.SetState(ctx, tenant, s.Slug, survey.Published)
		if err != nil || pub.State != survey.Published || pub.PublishedOn.IsZero() {
			t.Fatalf("publish: %+v %v", pub, err)
		}
		// A published survey can change too; its questions keep their IDs.
		edit := *updated
		edit.Questions = append([]survey.Question(nil), updated.Questions...)
		edit.Questions[0].Text = "Pick one, please"
		if err := ss.Update(ctx, &edit); err != nil {
			t.Fatalf("Update of a published survey: %v", err)
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.State != survey.Published || got.Questions[0].ID != updated.Questions[0].ID || got.Questions[0].Text != "Pick one, please" {
			t.Fatalf("after editing the published survey: %+v", got)
		}
		_, err = ss.SetState(ctx, tenant, again.Slug, survey.Closed)
		wantCode(t, "closing a draft", err, survey.ECONFLICT)
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Closed); err != nil {
			t.Fatalf("close: %v", err)
		}

		list, err := ss.List(ctx, tenant)
		if err != nil || len(list) != 2 {
			t.Fatalf("List = %v, %v", list, err)
		}
		if list[0].Slug != "customer-satisfaction" || list[0].State != survey.Closed || list[1].State != survey.Draft {
			t.Errorf("List = %+v %+v", list[0], list[1])
		}
		_, err = ss.Get(ctx, tenant, "no-such-survey")
		wantCode(t, "Get of a missing survey", err, survey.ENOTFOUND)
		_, err = ss.Get(ctx, tenant, "../etc")
		wantCode(t, "Get of an invalid slug", err, survey.ENOTFOUND)
	})
}

func TestInvalidSurveyWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Broken")
		s.Questions[1].PossibleAnswers = []string{"only one"}
		wantCode(t, "Create invalid", ss.Create(ctx, s), survey.EINVALID)
		list, err := ss.List(ctx, tenant)
		if err != nil || len(list) != 0 {
			t.Fatalf("List after invalid create = %v, %v", list, err)
		}
		page, err := st.QueryPartition(ctx, store.QuestionsTable, tenant+"_broken", storage.Query{})
		if err != nil || len(page.Entities) != 0 {
			t.Fatalf("questions after invalid create: %d, %v", len(page.Entities), err)
		}
		wantCode(t, "Create for a bad tenant", ss.Create(ctx, sample("Bad Tenant", "x")), survey.EINVALID)
	})
}

// Odd titles and two tenants with the same title all give valid, distinct
// names for every table key, container and blob.
func TestOddTitlesAndTenants(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss, as := store.NewSurveyStore(st), store.NewSurveyAnswerStore(st)
		other := newTenant()
		titles := []string{"😀🎉", "???", strings.Repeat("A very long title that goes on ", 6), "Ünïcödé — Umfrage für Kunden", "日本語のアンケート"}
		for _, tn := range []string{tenant, other, strings.Repeat("z", survey.MaxTenantKeyLength-len(tenant)) + tenant} {
			for _, title := range titles {
				s := sample(tn, title)
				if err := ss.Create(ctx, s); err != nil {
					t.Fatalf("Create(%q, %q): %v", tn, title, err)
				}
				c := store.AnswersContainer(tn, s.Slug)
				if err := storage.ValidateContainerName(c); err != nil {
					t.Fatalf("container for %q: %v", title, err)
				}
				a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{s.Questions[0].ID: "3", s.Questions[1].ID: "Red", s.Questions[2].ID: "fine", s.Questions[3].ID: "4"}))
				if err != nil {
					t.Fatal(err)
				}
				a.ID = store.NewAnswerID(time.Now())
				if fresh, err := as.File(ctx, &a, "msg-1"); err != nil || !fresh {
					t.Fatalf("File answer to %q: %v, %v", title, fresh, err)
				}
				back, err := as.Get(ctx, tn, s.Slug, a.ID)
				if err != nil || back.Answers[1].Answer != "Red" {
					t.Fatalf("Get answer of %q: %+v %v", title, back, err)
				}
			}
		}
		mine, _ := ss.List(ctx, tenant)
		theirs, _ := ss.List(ctx, other)
		if len(mine) != len(titles) || len(theirs) != len(titles) || mine[0].Slug != theirs[0].Slug {
			t.Errorf("tenants' lists: %d and %d surveys", len(mine), len(theirs))
		}
		// Another tenant's answer is not reachable through this tenant.
		count := 0
		if err := as.ListAll(ctx, tenant, mine[0].Slug, func(string) error { count++; return nil }); err != nil || count != 1 {
			t.Errorf("ListAll = %d answers, %v", count, err)
		}
	})
}

func TestAnswersAndList(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss, as := store.NewSurveyStore(st), store.NewSurveyAnswerStore(st)
		s := sample(tenant, "Answers")
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		a := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: tenant, Slug: s.Slug, Answers: []survey.QuestionAnswer{{QuestionID: s.Questions[0].ID, Type: survey.FiveStars, Answer: "5"}}}
		if fresh, err := as.File(ctx, &a, "msg-1"); err != nil || !fresh {
			t.Fatalf("File: %v, %v", fresh, err)
		}
		// Filed again by the same message (a redelivery): still its own.
		if fresh, err := as.File(ctx, &a, "msg-1"); err != nil || !fresh {
			t.Fatalf("File by the same message: %v, %v", fresh, err)
		}
		// Filed by another message (the form submitted twice): not its own.
		dup := a
		dup.Answers = nil
		if fresh, err := as.File(ctx, &dup, "msg-2"); err != nil || fresh {
			t.Fatalf("File by another message: %v, %v", fresh, err)
		}
		bad := a
		bad.ID = "../x"
		_, err := as.File(ctx, &bad, "msg-3")
		wantCode(t, "File with a bad ID", err, survey.EINVALID)
		if got, err := as.Get(ctx, tenant, s.Slug, a.ID); err != nil || len(got.Answers) != 1 {
			t.Fatalf("Get = %+v, %v; the first filing must stand", got, err)
		}
		_, err = as.Get(ctx, tenant, s.Slug, "0000000000000000000-000000")
		wantCode(t, "Get of a missing answer", err, survey.ENOTFOUND)
		_, err = as.Get(ctx, newTenant(), s.Slug, a.ID)
		wantCode(t, "Get through another tenant", err, survey.ENOTFOUND)

		// The list: positional appends across a chunk boundary.
		var ids []string
		now := time.Now()
		for i := 0; i < store.ListChunkSize+250; i++ {
			ids = append(ids, store.NewAnswerID(now))
		}
		var tail *store.ListTail
		for i := 0; i < len(ids); i += 300 {
			batch := ids[i:min(i+300, len(ids))]
			if tail, err = as.AppendAt(ctx, tenant, s.Slug, tail, i, batch); err != nil {
				t.Fatalf("AppendAt: %v", err)
			}
			// Written again, from an unknown tail, and from an old one:
			// a batch is listed once wherever its appender saw the end.
			if _, err := as.AppendAt(ctx, tenant, s.Slug, nil, i, batch); err != nil {
				t.Fatalf("AppendAt again: %v", err)
			}
		}
		if _, err := as.AppendAt(ctx, tenant, s.Slug, nil, 0, ids[:300]); err != nil {
			t.Fatalf("AppendAt of the first batch, late: %v", err)
		}
		if _, err := as.AppendAt(ctx, tenant, s.Slug, nil, len(ids)+5, ids[:1]); err == nil {
			t.Fatal("AppendAt past the end made a gap")
		}
		n, err := as.Count(ctx, tenant, s.Slug)
		if err != nil || n != len(ids) {
			t.Fatalf("Count = %d, %v; want %d", n, err, len(ids))
		}
		page, total, err := as.Page(ctx, tenant, s.Slug, store.ListChunkSize-5, 10)
		if err != nil || total != len(ids) || len(page) != 10 {
			t.Fatalf("Page = %d ids, total %d, %v", len(page), total, err)
		}
		for i, id := range page {
			if id != ids[store.ListChunkSize-5+i] {
				t.Fatalf("page[%d] = %s, want %s", i, id, ids[store.ListChunkSize-5+i])
			}
		}
		last, total, err := as.Page(ctx, tenant, s.Slug, len(ids)-3, 10)
		if err != nil || len(last) != 3 || total != len(ids) || last[2] != ids[len(ids)-1] {
			t.Fatalf("tail page = %v, total %d, %v", last, total, err)
		}
		// Latest: newest first, across the chunk boundary, and past the start.
		for _, c := range []struct{ skip, limit, from, n int }{
			{0, 20, len(ids) - 1, 20}, {245, 10, store.ListChunkSize + 4, 10}, {len(ids) - 3, 20, 2, 3}, {len(ids), 20, 0, 0}, {len(ids) + 7, 20, 0, 0},
		} {
			got, total, err := as.Latest(ctx, tenant, s.Slug, c.skip, c.limit)
			if err != nil || total != len(ids) || len(got) != c.n {
				t.Fatalf("Latest(%d, %d) = %d ids, total %d, %v; want %d", c.skip, c.limit, len(got), total, err, c.n)
			}
			for i, id := range got {
				if id != ids[c.from-i] {
					t.Fatalf("Latest(%d, %d)[%d] = %s, want %s", c.skip, c.limit, i, id, ids[c.from-i])
				}
			}
		}
		none, total, err := as.Page(ctx, tenant, "nothing-here", 0, 10)
		if err != nil || len(none) != 0 || total != 0 {
			t.Fatalf("page of an empty survey = %v %d %v", none, total, err)
		}

		// Delete removes the answers, the list and the summary too.
		sums := store.NewSurveyAnswersSummaryStore(st)
		if _, err := sums.Put(ctx, &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s)}, ""); err != nil {
			t.Fatal(err)
		}
		if err := ss.Delete(ctx, tenant, s.Slug); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		_, err = ss.Get(ctx, tenant, s.Slug)
		wantCode(t, "Get after Delete", err, survey.ENOTFOUND)
		_, err = as.Get(ctx, tenant, s.Slug, a.ID)
		wantCode(t, "answer after Delete", err, survey.ENOTFOUND)
		if n, err := as.Count(ctx, tenant, s.Slug); err != nil || n != 0 {
			t.Errorf("list after Delete: %d, %v", n, err)
		}
		_, _, err = sums.Get(ctx, tenant, s.Slug)
		wantCode(t, "summary after Delete", err, survey.ENOTFOUND)
		page2, _ := st.QueryPartition(ctx, store.QuestionsTable, tenant+"_"+s.Slug, storage.Query{})
		if len(page2.Entities) != 0 {
			t.Errorf("%d questions left after Delete", len(page2.Entities))
		}
	})
}

func TestSummaryETags(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		sums := store.NewSurveyAnswersSummaryStore(st)
		s := sample(tenant, "Sum")
		s.Slug = "sum"
		_, _, err := sums.Get(ctx, tenant, "sum")
		wantCode(t, "Get of a missing summary", err, survey.ENOTFOUND)
		sum := &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s)}
		etag, err := sums.Put(ctx, sum, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = sums.Put(ctx, sum, "")
		wantCode(t, "second first write", err, survey.ECONFLICT)
		sum.TotalAnswers = 7
		if _, err := sums.Put(ctx, sum, etag); err != nil {
			t.Fatal(err)
		}
		_, err = sums.Put(ctx, sum, etag)
		wantCode(t, "write with a stale ETag", err, survey.ECONFLICT)
		got, _, err := sums.Get(ctx, tenant, "sum")
		if err != nil || got.TotalAnswers != 7 {
			t.Fatalf("Get = %+v, %v", got, err)
		}
	})
}

func TestTenants(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		ts := store.NewTenantStore(st)
		tn := &survey.Tenant{Key: key, Name: "Contoso", Plan: survey.Standard, HostGeoLocation: "westeurope"}
		if err := ts.Create(ctx, tn); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "Create twice", ts.Create(ctx, &survey.Tenant{Key: key, Name: "Other", Plan: survey.Trial}), survey.ECONFLICT)
		wantCode(t, "Create invalid", ts.Create(ctx, &survey.Tenant{Key: "api", Name: "x", Plan: survey.Trial}), survey.EINVALID)
		tn.Name, tn.RequireTwoFactor = "Contoso Ltd", true
		if err := ts.Update(ctx, tn); err != nil {
			t.Fatal(err)
		}
		got, err := ts.Get(ctx, key)
		if err != nil || got.Name != "Contoso Ltd" || got.HostGeoLocation != "westeurope" || got.CreatedOn.IsZero() || !got.RequireTwoFactor {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		wantCode(t, "Update of a missing tenant", ts.Update(ctx, &survey.Tenant{Key: newTenant(), Name: "x", Plan: survey.Trial}), survey.ENOTFOUND)
		all, err := ts.List(ctx)
		found := false
		for _, x := range all {
			found = found || x.Key == key
		}
		if err != nil || !found {
			t.Fatalf("List = %d tenants without %s, %v", len(all), key, err)
		}
		if err := ts.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		_, err = ts.Get(ctx, key)
		wantCode(t, "Get after Delete", err, survey.ENOTFOUND)
	})
}

func TestSeedOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, _ string) {
		ctx := context.Background()
		created, err := store.Seed(ctx, st)
		if err != nil || !created {
			t.Fatalf("first Seed = %v, %v", created, err)
		}
		created, err = store.Seed(ctx, st)
		if err != nil || created {
			t.Fatalf("second Seed = %v, %v; want nothing created", created, err)
		}
		for _, key := range []string{"adatum", "fabrikam"} {
			tn, err := store.NewTenantStore(st).Get(ctx, key)
			if err != nil {
				t.Fatalf("tenant %s: %v", key, err)
			}
			list, err := store.NewSurveyStore(st).List(ctx, key)
			if err != nil || len(list) != 1 || list[0].State != survey.Published {
				t.Fatalf("%s surveys = %+v, %v", tn.Name, list, err)
			}
			s, err := store.NewSurveyStore(st).Get(ctx, key, list[0].Slug)
			if err != nil {
				t.Fatal(err)
			}
			types := map[survey.QuestionType]bool{}
			for _, q := range s.Questions {
				types[q.Type] = true
			}
			// Adatum's sample asks a question of every kind (its
			// picture choice's pictures stored with it, each served);
			// Fabrikam's is a survey of its own.
			for _, q := range s.Questions {
				for _, p := range q.Pictures {
					if _, ct, err := store.NewLogoStore(st).Get(ctx, p.Image); err != nil || ct != "image/png" {
						t.Errorf("%s's picture %q: %q %v", key, p.Label, ct, err)
					}
				}
			}
			if key == "adatum" && len(types) != len(survey.Kinds()) || key != "adatum" && len(types) < 3 {
				t.Errorf("%s sample survey has types %v", key, types)
			}
			// Fabrikam's shows what a survey carries beyond its
			// questions: pages, a hidden field, piping, a scored quiz
			// with outcomes, partial answers kept.
			if key == "fabrikam" && (len(s.Pages()) != 3 || !s.HasHidden("source") || !s.HasPiping() || !s.IsQuiz() || len(s.Outcomes) != 2 || s.KeepPartial == 0) {
				t.Errorf("Fabrikam's sample survey lacks what it shows: %d pages, hidden %v, outcomes %d, partial after %v", len(s.Pages()), s.HiddenFields, len(s.Outcomes), s.KeepPartial)
			}
		}
	})
}

func TestQueues(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		as := store.NewSurveyAnswerStore(st)
		var answers []survey.SurveyAnswer
		for i := 0; i < 30; i++ {
			answers = append(answers, survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: tenant, Slug: "q", Answers: []survey.QuestionAnswer{
				{QuestionID: "x", Type: survey.SimpleText, Answer: strings.Repeat("words ", 500)},
			}})
		}
		// One answer larger than a message, spilled to a blob; one answer
		// sent twice, queued once.
		huge := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: tenant, Slug: "q", Answers: []survey.QuestionAnswer{
			{QuestionID: "x", Type: survey.SimpleText, Answer: strings.Repeat("<words> ", 8000)},
		}}
		answers = append(answers, huge)
		if err := as.Enqueue(ctx, append(answers, answers[3])); err != nil {
			t.Fatalf("Enqueue: %v", err)
		}
		if err := store.NewSurveyTransferStore(st).Request(ctx, tenant, "q"); err != nil {
			t.Fatalf("Request: %v", err)
		}
		// Other tests share the queues: count only this tenant's messages.
		seen := map[string]int{}
		spilled := map[string]string{}
		transfers := 0
		deadline := time.Now().Add(2 * time.Minute)
		for (len(seen) < len(answers) || transfers == 0) && time.Now().Before(deadline) {
			for _, q := range []string{store.AnswersQueue, store.TransfersQueue} {
				msgs, err := st.Dequeue(ctx, q, 32, 30*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range msgs {
					if len(m.Data) > storage.MaxMessageSize {
						t.Fatalf("message of %d bytes", len(m.Data))
					}
					if q == store.TransfersQueue {
						var r store.TransferRequest
						if json.Unmarshal(m.Data, &r) == nil && r.Tenant == tenant {
							transfers++
						}
					} else {
						var am store.AnswerMessage
						if err := json.Unmarshal(m.Data, &am); err != nil {
							t.Fatal(err)
						}
						pending, repeats := am.Pending()
						if repeats != 0 {
							t.Fatalf("a message repeats %d answers", repeats)
						}
						for _, a := range pending {
							if a.Tenant == tenant {
								seen[a.ID]++
								if a.Spilled() != "" {
									spilled[a.ID] = a.Spilled()
								}
							}
						}
					}
					_ = st.DeleteMessage(ctx, q, m.ID, m.PopReceipt)
				}
			}
		}
		if len(seen) != len(answers) || transfers != 1 {
			t.Fatalf("dequeued %d of %d answers and %d transfers", len(seen), len(answers), transfers)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("answer %s queued %d times", id, n)
			}
		}
		if len(spilled) != 1 || spilled[huge.ID] == "" {
			t.Fatalf("spilled answers %v, want the huge one only", spilled)
		}
		got, err := as.Resolve(ctx, pendingOf(t, spilled[huge.ID], huge), map[string]store.Question{"x": {Type: survey.SimpleText}})
		if err != nil || got.Answers[0].Answer != huge.Answers[0].Answer {
			t.Fatalf("the spilled answer reads back wrong (%v)", err)
		}
		if err := as.DeleteSpills(ctx, []string{spilled[huge.ID]}); err != nil {
			t.Fatal(err)
		}
		if _, err := as.Resolve(ctx, pendingOf(t, spilled[huge.ID], huge), nil); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a deleted spill reads as %v, want not found", err)
		}
	})
}

// pendingOf is the pending answer of a message naming a's spill blob.
func pendingOf(t *testing.T, spill string, a survey.SurveyAnswer) store.PendingAnswer {
	t.Helper()
	m := store.AnswerMessage{Queued: []store.QueuedAnswer{{ID: a.ID, Tenant: a.Tenant, Slug: a.Slug, CreatedOn: a.CreatedOn, Spill: spill}}}
	p, _ := m.Pending()
	return p[0]
}

func TestNames(t *testing.T) {
	tests := []struct{ tenant, slug string }{
		{"adatum", "customer-satisfaction"},
		{"ab", "s"},
		{strings.Repeat("a", 24), strings.Repeat("b", 48)},
		{strings.Repeat("a", 24), strings.Repeat("b-", 24) + "2"},
		{"x1", strings.Repeat("c", 45) + "-" + "d"},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		c := store.AnswersContainer(tc.tenant, tc.slug)
		if err := storage.ValidateContainerName(c); err != nil {
			t.Errorf("AnswersContainer(%q, %q) = %q: %v", tc.tenant, tc.slug, c, err)
		}
		if prev, ok := seen[c]; ok {
			t.Errorf("%q and %s/%s share container %q", prev, tc.tenant, tc.slug, c)
		}
		seen[c] = fmt.Sprintf("%s/%s", tc.tenant, tc.slug)
	}
	if c := store.AnswersContainer("adatum", "feedback"); c != "surveyanswers-adatum-feedback" {
		t.Errorf("short name = %q, want the design's layout", c)
	}
	id := store.NewAnswerID(time.Now())
	if !store.ValidAnswerID(id) || store.ValidAnswerID("../"+id[3:]) || store.ValidAnswerID(id+"x") {
		t.Errorf("ValidAnswerID disagrees with NewAnswerID (%s)", id)
	}
	a, b := store.NewAnswerID(time.Unix(0, 0)), store.NewAnswerID(time.Unix(0, 0))
	if a[:19] >= b[:19] {
		t.Errorf("IDs not increasing: %s then %s", a, b)
	}
	// An ID tells when it was made (to the tick, or a little later under
	// load: IDs only increase).
	now := time.Now()
	if at, ok := store.AnswerIDTime(store.NewAnswerID(now)); !ok || at.Before(now.Truncate(100)) || at.Sub(now) > time.Second {
		t.Errorf("AnswerIDTime = %v, %v; made at %v", at, ok, now)
	}
	if _, ok := store.AnswerIDTime("x" + id[1:]); ok {
		t.Error("AnswerIDTime read a broken ID")
	}
}

func TestUsersAndSessions(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us := store.NewUserStore(st)
		store.SetUserCost(us) // what is tested is who may do what, not the hash
		if _, err := us.Add(ctx, tenant, "Ana@Example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		_, err := us.Add(ctx, tenant, "ana@example.com", "another password here")
		wantCode(t, "Add twice", err, survey.ECONFLICT)
		_, err = us.Add(ctx, tenant, "not an email", "correct horse battery")
		wantCode(t, "Add with a bad email", err, survey.EINVALID)
		_, err = us.Add(ctx, tenant, "bob@example.com", "short")
		wantCode(t, "Add with a short password", err, survey.EINVALID)
		_, err = us.Authenticate(ctx, tenant, "ana@example.com", "wrong password")
		wantCode(t, "wrong password", err, survey.EFORBIDDEN)
		u, err := us.Authenticate(ctx, tenant, " ANA@example.com", "correct horse battery")
		if err != nil || u.Email != "ana@example.com" || u.Tenant != tenant {
			t.Fatalf("Authenticate = %+v, %v", u, err)
		}
		_, err = us.Authenticate(ctx, newTenant(), "ana@example.com", "correct horse battery")
		wantCode(t, "another tenant", err, survey.EFORBIDDEN)
		token, err := us.NewSession(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		s, err := us.Session(ctx, token)
		if err != nil || s.Tenant != tenant || s.Email != u.Email {
			t.Fatalf("Session = %+v, %v", s, err)
		}
		if err := us.EndSession(ctx, token); err != nil {
			t.Fatal(err)
		}
		_, err = us.Session(ctx, token)
		wantCode(t, "ended session", err, survey.ENOTFOUND)
	})
}

func TestTenantSecrets(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		k1, k2 := make([]byte, secret.KeySize), make([]byte, secret.KeySize)
		k2[0] = 1
		box, _ := secret.New(k1)
		wrong, _ := secret.New(k2)
		ts := store.NewTenantStore(st).WithSecrets(box)
		tn := &survey.Tenant{Key: key, Name: "Contoso", Plan: survey.Standard,
			IssuerURL: "https://login.contoso.test", ClientID: "surveys", ClientSecret: "oidc-s3cret",
			SQLConnection: "postgres://surveys@db.contoso.test/answers", SQLPassword: "pg-s3cret"}
		if err := ts.Create(ctx, tn); err != nil {
			t.Fatal(err)
		}
		raw, err := st.GetBlob(ctx, store.TenantsContainer, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, plain := range []string{"oidc-s3cret", "pg-s3cret"} {
			if strings.Contains(string(raw.Data), plain) {
				t.Fatalf("the tenant blob holds %q in the clear: %s", plain, raw.Data)
			}
		}
		got, err := ts.Get(ctx, key)
		if err != nil || got.ClientSecret != "oidc-s3cret" || got.SQLPassword != "pg-s3cret" || got.ClientID != "surveys" {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		// Without the key, or with another, the tenant does not open, and
		// CheckSecrets says why.
		for name, other := range map[string]*store.TenantStore{
			"no key":    store.NewTenantStore(st),
			"wrong key": store.NewTenantStore(st).WithSecrets(wrong),
		} {
			if _, err := other.Get(ctx, key); err == nil {
				t.Fatalf("%s: Get opened the secrets", name)
			}
			if err := other.CheckSecrets(ctx); err == nil {
				t.Fatalf("%s: CheckSecrets passed", name)
			}
		}
		// A store without a key refuses to save a secret, and saves nothing.
		nokey := store.NewTenantStore(st)
		other := &survey.Tenant{Key: newTenant(), Name: "Other", Plan: survey.Trial, ClientSecret: "x"}
		wantCode(t, "Create with a secret and no key", nokey.Create(ctx, other), survey.EINVALID)
		_, err = nokey.Get(ctx, other.Key)
		wantCode(t, "Get after a refused Create", err, survey.ENOTFOUND)
		// Clearing the secrets removes them from the blob.
		got.ClientSecret, got.SQLPassword = "", ""
		if err := ts.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		if _, err := nokey.Get(ctx, key); err != nil {
			t.Fatalf("a tenant with no secrets left should open without a key: %v", err)
		}
		if err := ts.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
	})
}
