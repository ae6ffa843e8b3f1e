package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestDeleteAnswerPage: the browse page deletes the answer it shows; the
// summary drops by one, the export leaves it out, asking again changes
// nothing, and an answer the survey never had is 404.
func TestDeleteAnswerPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	var ids []string
	for range 3 {
		token := app.token(t, app.path())
		if code, _, _ := app.do(t, "POST", app.path(), app.complete(token), nil); code != 303 {
			t.Fatal("answer refused")
		}
		ids = append(ids, answerID(token))
	}
	app.stored(t)
	base := "/adatum/surveys/" + app.adatum.Slug
	total := func() int64 {
		t.Helper()
		sum, _, err := store.NewSurveyAnswersSummaryStore(app.st).Get(ctx, "adatum", app.adatum.Slug)
		if err != nil {
			t.Fatal(err)
		}
		return sum.TotalAnswers
	}
	before := total()
	if code, _, body := app.get(t, base+"/answers?i=1", c); code != 200 || !strings.Contains(body, "/answers/"+ids[1]+"/delete") {
		t.Fatalf("browse = %d, without a delete button for the answer it shows", code)
	}
	del := base + "/answers/" + ids[1] + "/delete"
	// The answer page's button asks first: the confirmation page names the
	// answer and what it holds, and deletes nothing.
	if code, _, body := app.get(t, del+"?i=1", c); code != 200 || !strings.Contains(body, "Delete this answer?") || !strings.Contains(body, "Faster pages, please") ||
		!strings.Contains(body, `name="confirm" value="1"`) || !strings.Contains(body, `href="`+base+`/answers?i=1">Keep it</a>`) {
		t.Fatalf("confirmation page = %d\n%s", code, body)
	}
	// A form posted without the confirmation (the old button, sent twice
	// by a double click) shows the confirmation page and deletes nothing.
	for range 2 {
		if code, _, body := app.do(t, "POST", del, url.Values{"i": {"1"}}, cookie); code != 200 || !strings.Contains(body, "Delete this answer?") {
			t.Fatalf("unconfirmed delete = %d", code)
		}
	}
	if got := total(); got != before {
		t.Fatalf("an unconfirmed delete took the summary from %d to %d answers", before, got)
	}
	// The confirmation posted twice deletes one answer, and goes to the
	// table of answers (no "Delete" button there), never to the next answer.
	for range 2 {
		code, h, _ := app.do(t, "POST", del, url.Values{"i": {"1"}, "confirm": {"1"}}, cookie)
		if code != http.StatusSeeOther || h.Get("Location") != base+"/answers/table?deleted=1" {
			t.Fatalf("delete = %d %q", code, h.Get("Location"))
		}
	}
	if got := total(); got != before-1 {
		t.Errorf("summary counts %d answers after the delete, want %d", got, before-1)
	}
	if code, _, body := app.get(t, base+"/answers/table?deleted=1", c); code != 200 || !strings.Contains(body, "Answer deleted") || strings.Contains(body, "/delete") || !strings.Contains(body, "2 answers") {
		t.Errorf("table after the delete = %d", code)
	}
	if code, _, _ := app.get(t, del, c); code != http.StatusNotFound {
		t.Errorf("the confirmation page of a deleted answer = %d, want 404", code)
	}
	code, _, csv := app.get(t, base+"/export.csv", c)
	if code != 200 || strings.Contains(csv, ids[1]) || !strings.Contains(csv, ids[0]) || !strings.Contains(csv, ids[2]) {
		t.Errorf("export after the delete = %d: %s", code, csv)
	}
	if code, _, _ := app.do(t, "POST", base+"/answers/"+store.NewAnswerID(app.adatum.CreatedOn)+"/delete", url.Values{"confirm": {"1"}}, cookie); code != http.StatusNotFound {
		t.Errorf("deleting an answer never given = %d, want 404", code)
	}
}
