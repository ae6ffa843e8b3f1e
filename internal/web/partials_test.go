package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
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
