package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestPartialSavedAtNext: on a survey that keeps partial answers, each
// Next saves the answers so far (one blob per respondent, replaced), the
// final submit deletes it, and a survey that keeps none saves nothing.
func TestPartialSavedAtNext(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	none := app.threePages(t, "Keeps none")
	path := "/survey/adatum/" + none.Slug
	token := app.token(t, path)
	if code, _ := app.post(t, path, token, "", "next", "q-"+none.Questions[0].ID, "Ada"); code != 200 {
		t.Fatalf("next = %d", code)
	}
	if n := app.blobs(t, store.PartialsContainer); n != 0 {
		t.Fatalf("%d partial answers saved for a survey that keeps none", n)
	}

	sv := app.threePages(t, "Keeps partial answers")
	sv.KeepPartial = time.Hour
	if err := app.surveys.Update(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	path = "/survey/adatum/" + sv.Slug
	q := sv.Questions
	token = app.token(t, path)
	_, body := app.post(t, path, token, "", "next", "q-"+q[0].ID, "Ada")
	if n := app.blobs(t, store.PartialsContainer); n != 1 {
		t.Fatalf("%d partial answers after page 1, want 1", n)
	}
	_, state := formOf(t, body)
	_, body = app.post(t, path, token, state, "next", "q-"+q[2].ID, "Salad")
	if n := app.blobs(t, store.PartialsContainer); n != 1 {
		t.Fatalf("%d partial answers after page 2, want 1 (replaced)", n)
	}
	id, _, _ := strings.Cut(token, ".")
	page, err := app.st.GetBlob(context.Background(), store.PartialsContainer, "adatum/"+sv.Slug+"/"+id)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the partial answer", string(page.Data), `"answer":"Ada"`, `"answer":"Salad"`, `"partial":true`)
	_, state = formOf(t, body)
	if code, _ := app.post(t, path, token, state, "submit", "q-"+q[3].ID, "5"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	if n := app.blobs(t, store.PartialsContainer); n != 0 {
		t.Fatalf("%d partial answers after the submit", n)
	}
}

// TestDesignerKeepPartial: the designer saves the minutes after which
// partial answers are kept, shows them again, and refuses a delay out of
// bounds or not a number (422 beside the field), saving nothing.
func TestDesignerKeepPartial(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	form := func(keep string) url.Values {
		return url.Values{"title": {"Keeps partial"}, "n": {"1"}, "q.0.text": {"Anything else?"}, "q.0.type": {"SimpleText"}, "q.0.pos": {"1"},
			"keepPartial": {keep}, "action": {"save"}}
	}
	for _, bad := range []string{"2", "an hour", "20000"} {
		code, _, body := app.do(t, "POST", "/adatum/surveys/new", form(bad), cookie)
		if code != 422 || !strings.Contains(body, `id="keepPartial-err"`) {
			t.Errorf("keep partial %q = %d, want 422 beside the field", bad, code)
		}
	}
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != 1 {
		t.Fatalf("a refused form saved a survey: %d surveys", len(list))
	}
	if code, _, body := app.do(t, "POST", "/adatum/surveys/new", form("60"), cookie); code != 303 {
		t.Fatalf("save = %d\n%s", code, body)
	}
	list, _ := app.surveys.List(ctx, "adatum")
	for _, s := range list {
		if s.Title != "Keeps partial" {
			continue
		}
		sv, _ := app.surveys.Get(ctx, "adatum", s.Slug)
		if sv.KeepPartial != time.Hour {
			t.Fatalf("saved KeepPartial %v, want 1h", sv.KeepPartial)
		}
		_, _, body := app.do(t, "GET", "/adatum/surveys/"+s.Slug+"/edit", nil, cookie)
		mustContain(t, "the designer again", body, `name="keepPartial" inputmode="numeric" value="60"`, "kept after 60 minutes")
		return
	}
	t.Fatal("no survey saved")
}

// TestPartialAnswersShown: a respondent who left after page 1 of a survey
// that keeps partial answers is, once the promoter and the worker have
// run, one partial answer: counted apart on the analysis page, marked in
// the answers table and the answer page, and a status column in the
// exports; the complete answers' count does not move.
func TestPartialAnswersShown(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	sv := app.threePages(t, "Partial shown")
	sv.KeepPartial = time.Hour
	if err := app.surveys.Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	// One completes, one leaves after page 1.
	token := app.token(t, path)
	_, body := app.post(t, path, token, "", "next", "q-"+q[0].ID, "Ada")
	_, state := formOf(t, body)
	_, body = app.post(t, path, token, state, "next", "q-"+q[2].ID, "Salad")
	_, state = formOf(t, body)
	if code, _ := app.post(t, path, token, state, "submit", "q-"+q[3].ID, "5"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	token = app.token(t, path)
	app.post(t, path, token, "", "next", "q-"+q[0].ID, "Bob")
	p := worker.NewPromoter(app.st, nil)
	p.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if err := p.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n := app.storedOf(t, sv.Slug); n != 2 {
		t.Fatalf("%d answers stored, want 2", n)
	}
	base := "/adatum/surveys/" + sv.Slug
	_, _, body = app.get(t, base+"/analyze", ana)
	mustContain(t, "analysis", body, `<strong class="big-number">1</strong> answer so far.`, "And 1 partial answer, counted apart")
	_, _, body = app.get(t, base+"/answers/table", ana)
	mustContain(t, "answers table", body, `<span class="tag tag-optional">partial</span>`, "Bob")
	_, _, body = app.get(t, base+"/export.csv", ana)
	mustContain(t, "CSV", body, ",status\n", ",complete\n", ",partial\n")
	_, _, body = app.get(t, base+"/answers/table?status=partial", ana)
	mustContain(t, "partial answers only", body, "Bob", `<option value="partial" selected>`)
	mustLack(t, "partial answers only", body, "Ada")
	_, _, body = app.get(t, base+"/answers/table?status=complete", ana)
	mustContain(t, "complete answers only", body, "Ada")
	mustLack(t, "complete answers only", body, "Bob")
	if code, _, _ := app.get(t, base+"/answers/table?status=other", ana); code != 422 {
		t.Errorf("a bad status = %d, want 422", code)
	}
	_, _, body = app.get(t, base+"/export.xlsx", ana)
	rows := openXLSX(t, "XLSX", body)
	if last := len(rows[0]) - 1; len(rows) != 3 || rows[0][last].value != "status" || rows[1][last].value != "complete" || rows[2][last].value != "partial" {
		t.Errorf("XLSX rows %v", rows)
	}
	_, _, body = app.get(t, base+"/export.json", ana)
	if strings.Count(body, `"partial":true`) != 1 {
		t.Errorf("JSON export:\n%s", body)
	}
}
