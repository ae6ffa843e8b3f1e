package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// answered stores a summary of answers to s: each answer a map of
// question index to value.
func answered(t *testing.T, st storage.Storage, s *survey.Survey, answers ...map[int]string) {
	t.Helper()
	sum := store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s)}
	for _, values := range answers {
		a := survey.SurveyAnswer{Tenant: s.Tenant, Slug: s.Slug}
		for i, v := range values {
			q := s.Questions[i]
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
		}
		sum.Add(a)
	}
	if _, err := store.NewSurveyAnswersSummaryStore(st).Put(context.Background(), &sum, ""); err != nil {
		t.Fatal(err)
	}
}

// TestEditPublishedSurvey: each save of a published survey is a new
// question-set version; questions keep their IDs; a question or choice
// with answers is hidden, not deleted; one without answers goes; a
// question with answers keeps its kind; the old version's rows go.
func TestEditPublishedSurvey(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Live survey")
		s.State = survey.Published
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		answered(t, st, s, map[int]string{0: "4", 1: "Red", 2: "great food"}, map[int]string{0: "5", 1: "Green"})
		cur, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{cur.Questions[0].ID, cur.Questions[1].ID, cur.Questions[2].ID, cur.Questions[3].ID}
		version := func() string {
			t.Helper()
			e, err := st.GetEntity(ctx, store.SurveysTable, tenant, tenant+"_"+s.Slug)
			if err != nil {
				t.Fatal(err)
			}
			return e.String("Version")
		}
		before := version()

		// Fix a typo, take "Red" (answered) and "Blue" (not) off, add
		// "Yellow", drop "Tell us more" (answered) and the second "Rate
		// us" (not), add a question.
		edit := *cur
		edit.Title = "Live survey, fixed"
		edit.CloseOn = cur.CloseOn
		edit.ThankYou = "Thanks a lot!"
		edit.Listed = true
		edit.Questions = []survey.Question{cur.Questions[0], cur.Questions[1], {Text: "Anything else?", Type: survey.SimpleText, Optional: true}}
		edit.Questions[0].Text = "Rate us, please"
		edit.Questions[0].Help = "Five is best."
		edit.Questions[1].PossibleAnswers = []string{"Green", "Yellow"}

		preview := edit
		preview.Questions = slices.Clone(edit.Questions)
		rev, err := ss.Revision(ctx, &preview)
		if err != nil {
			t.Fatal(err)
		}
		if rev.Answers != 2 || len(rev.Hides) != 2 || !strings.Contains(rev.Hides[0], "“Red”") || !strings.Contains(rev.Hides[1], "“Tell us more” (1 answer)") {
			t.Fatalf("revision: %d answers, hides %q", rev.Answers, rev.Hides)
		}
		if version() != before {
			t.Fatal("Revision saved something")
		}

		if err := ss.Update(ctx, &edit); err != nil {
			t.Fatalf("Update: %v", err)
		}
		got, err := ss.Get(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if version() == before || got.State != survey.Published || got.Title != "Live survey, fixed" || got.ThankYou != "Thanks a lot!" || !got.Listed || got.PublishedOn.IsZero() {
			t.Fatalf("after Update: %+v", got)
		}
		if len(got.Questions) != 4 {
			t.Fatalf("questions after Update: %+v", got.Questions)
		}
		q0, q1, added, hidden := got.Questions[0], got.Questions[1], got.Questions[2], got.Questions[3]
		if q0.ID != ids[0] || q0.Text != "Rate us, please" || q0.Help != "Five is best." || q0.Hidden {
			t.Errorf("renamed question = %+v", q0)
		}
		if q1.ID != ids[1] || strings.Join(q1.PossibleAnswers, ",") != "Green,Yellow" || strings.Join(q1.HiddenChoices, ",") != "Red" {
			t.Errorf("choice question = %+v", q1)
		}
		if slices.Contains(ids, added.ID) || added.Text != "Anything else?" || added.Hidden {
			t.Errorf("added question = %+v", added)
		}
		if hidden.ID != ids[2] || !hidden.Hidden || hidden.Text != "Tell us more" {
			t.Errorf("answered question taken off = %+v, want it hidden", hidden)
		}
		if v := got.Visible(); len(v.Questions) != 3 || slices.ContainsFunc(v.Questions, func(q survey.Question) bool { return q.ID == ids[2] }) {
			t.Errorf("respondents see %+v", v.Questions)
		}
		// The earlier version's rows stay, for answers on their way that
		// name a question the edit dropped; Get reads the new one only.
		page, err := st.QueryPartition(ctx, store.QuestionsTable, tenant+"_"+s.Slug, storage.Query{})
		if err != nil || len(page.Entities) != 8 {
			t.Fatalf("question rows after Update: %d, %v", len(page.Entities), err)
		}
		ever, err := ss.QuestionsEver(ctx, tenant, s.Slug)
		if err != nil || len(ever) != 5 || ever[0].Text != "Rate us, please" || ever[3].ID != ids[3] || ever[4].ID != added.ID {
			t.Fatalf("QuestionsEver = %+v, %v", ever, err)
		}

		// A question with answers keeps its kind: refused beside its kind,
		// nothing saved.
		bad := *got
		bad.Questions = slices.Clone(got.Questions)
		bad.Questions[0].Type = survey.SimpleText
		err = ss.Update(ctx, &bad)
		wantCode(t, "changing the kind of an answered question", err, survey.EINVALID)
		if e, ok := err.(*survey.Error); !ok || !strings.Contains(e.Fields["questions.0.type"], "2 answers") {
			t.Errorf("error = %#v", err)
		}
		at := version()
		// One without answers may change its kind.
		ok := *got
		ok.Questions = slices.Clone(got.Questions)
		ok.Questions[2].Type = survey.FiveStars
		if err := ss.Update(ctx, &ok); err != nil {
			t.Fatalf("changing the kind of an unanswered question: %v", err)
		}
		if version() == at {
			t.Error("no new version")
		}
		// A hidden question is shown again by unticking it; hidden ones
		// alone are no survey.
		again, _ := ss.Get(ctx, tenant, s.Slug)
		again.Questions[3].Hidden = false
		if err := ss.Update(ctx, again); err != nil {
			t.Fatal(err)
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.Questions[3].Hidden || got.Questions[3].ID != ids[2] {
			t.Errorf("unhidden = %+v", got.Questions[3])
		}
		none, _ := ss.Get(ctx, tenant, s.Slug)
		for i := range none.Questions {
			none.Questions[i].Hidden = true
		}
		wantCode(t, "hiding every question", ss.Update(ctx, none), survey.EINVALID)
		// A closed survey is edited the same way.
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Closed); err != nil {
			t.Fatal(err)
		}
		closed, _ := ss.Get(ctx, tenant, s.Slug)
		closed.Questions = closed.Questions[:1]
		if err := ss.Update(ctx, closed); err != nil {
			t.Fatal(err)
		}
		if got, _ := ss.Get(ctx, tenant, s.Slug); got.State != survey.Closed || len(got.Questions) != 3 || len(got.Visible().Questions) != 1 {
			t.Errorf("closed survey after its edit: %+v", got.Questions)
		}
	})
}

// TestQuestionIDsOfOldRows: a question row written before question IDs
// were kept across versions (no ID property) reads with its row key as
// its ID; an ID kept from an earlier version is read from the row.
func TestQuestionIDsOfOldRows(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Old rows")
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		page, err := st.QueryPartition(ctx, store.QuestionsTable, tenant+"_"+s.Slug, storage.Query{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			if _, ok := e.Properties["ID"]; ok {
				t.Errorf("a first version's row %s has an ID property", e.RowKey)
			}
		}
		if _, err := ss.SetState(ctx, tenant, s.Slug, survey.Published); err != nil {
			t.Fatal(err)
		}
		cur, _ := ss.Get(ctx, tenant, s.Slug)
		cur.Questions[1].Text = "Pick one colour"
		if err := ss.Update(ctx, cur); err != nil {
			t.Fatal(err)
		}
		page, err = st.QueryPartition(ctx, store.QuestionsTable, tenant+"_"+s.Slug, storage.Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entities) != 8 {
			t.Fatalf("%d rows, want both versions' 8", len(page.Entities))
		}
		for i, e := range page.Entities[4:] {
			if id := e.String("ID"); id != s.Questions[i].ID || id == e.RowKey {
				t.Errorf("row %s: ID %q, want %q", e.RowKey, id, s.Questions[i].ID)
			}
		}
	})
}

// TestCachedSurveyHidesHidden: respondents' cached survey has no hidden
// question, and is one value while cached (forms rendered once are kept
// by it).
func TestCachedSurveyHidesHidden(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSurveyStore(st)
		s := sample(tenant, "Cached")
		s.State = survey.Published
		if err := ss.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		cur, _ := ss.Get(ctx, tenant, s.Slug)
		cur.Questions[2].Hidden = true
		if err := ss.Update(ctx, cur); err != nil {
			t.Fatal(err)
		}
		c := store.NewCachedSurveys(ss, store.NewTenantStore(st), time.Minute)
		a, err := c.Survey(ctx, tenant, s.Slug)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := c.Survey(ctx, tenant, s.Slug)
		if a != b || len(a.Questions) != 3 || slices.ContainsFunc(a.Questions, func(q survey.Question) bool { return q.Hidden }) {
			t.Fatalf("cached: %p %p %+v", a, b, a.Questions)
		}
	})
}
