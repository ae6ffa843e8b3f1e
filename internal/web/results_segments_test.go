package web_test

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestSegmentsSavedAndCompared: answers picked on three conditions are
// saved as a segment by an editor (a name missing or taken asked again,
// nothing saved; a viewer may not save), listed on the analysis, answers
// and table pages for the whole team, shown as the current one, compared
// side by side with everyone (each chart counting its own answers), and
// deleted.
func TestSegmentsSavedAndCompared(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	q := app.adatum.Questions // stars, product, NPS, text, checkboxes …
	// Four answers: (stars, product, NPS).
	for _, a := range [][3]string{{"5", "Mobile app", "10"}, {"5", "Mobile app", "9"}, {"4", "Mobile app", "10"}, {"5", "Web portal", "10"}} {
		v := app.complete(app.token(t, app.path()))
		v.Set("q-"+q[0].ID, a[0])
		v.Set("q-"+q[1].ID, a[1])
		v.Set("q-"+q[2].ID, a[2])
		if code, _, body := app.do(t, "POST", app.path(), v, nil); code != 303 {
			t.Fatalf("answer refused: %d\n%s", code, body)
		}
	}
	app.stored(t)
	editor := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ed@adatum.example", survey.Editor)}
	viewer := map[string]string{"Cookie": sessionOf(t, app, "adatum", "vi@adatum.example", survey.Viewer)}
	base := "/adatum/surveys/" + app.adatum.Slug

	// Three conditions picked from the pickers: five stars, the mobile
	// app, a 10.
	picked := url.Values{"c": {q[0].ID + "=5", q[1].ID + "=Mobile app", q[2].ID + "=10"}}
	code, _, body := app.do(t, "GET", base+"/analyze?"+picked.Encode(), nil, editor)
	if code != 200 || !strings.Contains(body, `<strong class="big-number">1</strong> of 4 answers`) {
		t.Fatalf("three conditions = %d:\n%s", code, body)
	}
	for _, want := range []string{
		`<option value="` + q[1].ID + `=Mobile app" selected>Mobile app</option>`,
		`<optgroup label="3. ` + html.EscapeString(q[2].Text) + `">`,
		`<input type="hidden" name="query" value="c=` + q[0].ID + `%3D5&amp;c=`,
		`Save this filter as a segment`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the filtered analysis lacks %q", want)
		}
	}
	save := func(who map[string]string, name string) (int, string) {
		code, h, body := app.do(t, "POST", base+"/segments", url.Values{"name": {name}, "query": {picked.Encode()}, "page": {"answers/table"}}, who)
		return code, h.Get("Location") + body
	}
	if code, _ := save(viewer, "Fans"); code != 403 {
		t.Errorf("a viewer saves a segment: %d", code)
	}
	if code, body := save(editor, "  "); code != 422 || !strings.Contains(body, "Give the segment a name.") || !strings.Contains(body, `aria-invalid="true"`) {
		t.Errorf("no name = %d:\n%s", code, body)
	}
	code, where := save(editor, "Fans on mobile")
	if code != 303 || !strings.HasPrefix(where, base+"/answers/table?") {
		t.Fatalf("save = %d %q", code, where)
	}
	if code, body := save(editor, "FANS ON MOBILE"); code != 422 || !strings.Contains(body, "has that name") {
		t.Errorf("a name taken = %d", code)
	}
	list, err := store.NewSavedSegmentStore(app.st).List(ctx, "adatum", app.adatum.Slug)
	if err != nil || len(list) != 1 || list[0].CreatedBy != "ed@adatum.example" {
		t.Fatalf("saved: %+v, %v", list, err)
	}
	seg := list[0]

	// Every page of the team lists it; the page it applies to marks it.
	for _, page := range []string{"/analyze", "/answers", "/answers/table"} {
		_, _, body := app.do(t, "GET", base+page, nil, viewer)
		if !strings.Contains(body, `>Fans on mobile</a>`) || !strings.Contains(body, `href="`+base+`/compare">Compare two segments`) || strings.Contains(body, "Save this filter") {
			t.Errorf("%s for a viewer lacks the segment (or offers to save):\n%s", page, body)
		}
		_, _, body = app.do(t, "GET", base+page+"?"+seg.Query, nil, editor)
		if !regexp.MustCompile(`<a href="[^"]*" aria-current="true">Fans on mobile</a>`).MatchString(body) || !strings.Contains(body, `Delete the segment “Fans on mobile”`) {
			t.Errorf("%s with the segment does not mark it current", page)
		}
	}

	// Compared with everyone: each side counts its own answers.
	code, _, body = app.do(t, "GET", base+"/compare", nil, viewer)
	if code != 200 || !strings.Contains(body, "<dt>Fans on mobile</dt><dd>1 answer") || !strings.Contains(body, "<dt>Everyone</dt><dd>4 answers") {
		t.Fatalf("compare = %d:\n%s", code, body)
	}
	if n := strings.Count(body, `class="question compare-q"`); n != len(app.adatum.Questions) {
		t.Errorf("compare shows %d questions, want %d", n, len(app.adatum.Questions))
	}
	if code, _, body := app.do(t, "GET", base+"/compare?a="+seg.ID+"&b=0123456789ab", nil, viewer); code != 422 || !strings.Contains(body, `id="cmp-b-error"`) {
		t.Errorf("compare with a segment not the survey's = %d", code)
	}
	// Another tenant's member cannot reach it.
	fred := map[string]string{"Cookie": sessionOf(t, app, "fabrikam", "fred@fabrikam.example", survey.Admin)}
	if code, _, _ := app.do(t, "GET", base+"/compare", nil, fred); code != 403 && code != 404 {
		t.Errorf("Fabrikam compares Adatum's segments: %d", code)
	}

	// The API lists it, and /answers and /export take it by ID.
	token, _ := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	code, got, _ := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/segments", token, "")
	if segs, _ := got["segments"].([]any); code != 200 || len(segs) != 1 || segs[0].(map[string]any)["name"] != "Fans on mobile" || segs[0].(map[string]any)["query"] != seg.Query {
		t.Errorf("API segments = %d %v", code, got)
	}
	code, got, _ = app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/answers?segment="+seg.ID+"&q=nosuch", token, "")
	if code != 200 || got["total"] != float64(1) {
		t.Errorf("API answers of the segment = %d %v", code, got)
	}
	code, _, csv := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/export?format=csv&segment="+seg.ID, token, "")
	if code != 200 || strings.Count(strings.TrimSpace(csv), "\n") != 1 {
		t.Errorf("API export of the segment = %d:\n%s", code, csv)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/answers?segment=0123456789ab", token, ""); code != 404 {
		t.Errorf("API answers of no segment = %d", code)
	}
	otherToken, _ := store.NewTokenStore(app.st).Create(ctx, "fabrikam", "test")
	if code, _, _ := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/segments", otherToken, ""); code != 404 {
		t.Errorf("Fabrikam lists Adatum's segments = %d", code)
	}

	// Deleted.
	if code, _, _ := app.do(t, "POST", base+"/segments/"+seg.ID+"/delete", url.Values{"page": {"analyze"}}, viewer); code != 403 {
		t.Errorf("a viewer deletes a segment: %d", code)
	}
	if code, h, _ := app.do(t, "POST", base+"/segments/"+seg.ID+"/delete", url.Values{"page": {"analyze"}}, editor); code != 303 || h.Get("Location") != base+"/analyze" {
		t.Fatalf("delete = %d %q", code, h.Get("Location"))
	}
	if list, _ := store.NewSavedSegmentStore(app.st).List(ctx, "adatum", app.adatum.Slug); len(list) != 0 {
		t.Errorf("segments left: %v", list)
	}
}
