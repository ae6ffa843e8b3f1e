package web_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// cardRE finds each question card of the designer and whether it is open.
var cardRE = regexp.MustCompile(`(?s)<div class="dq[^"]*" id="q-(\d+)" data-q="\d+">.*?<details class="dq-card"( open)?>`)

// openCardsIn are the positions (1-based) of the open cards in body.
func openCardsIn(t *testing.T, body string) (open []int, cards int) {
	t.Helper()
	for _, m := range cardRE.FindAllStringSubmatch(body, -1) {
		cards++
		if m[2] != "" {
			n, _ := strconv.Atoi(m[1])
			open = append(open, n)
		}
	}
	return open, cards
}

// TestDesignerCards: each question is a card shown as its one line but
// for those being edited: the ones open in the browser (their field
// "open") stay open through any button, a new or duplicated question
// opens alone, a question with a problem opens, and a survey's only
// question is open. A card moved by its handle (arrow keys: up/down with
// focus=handle; dropped: moved.N with the positions and sections as they
// stand) lands where it was put, the focus on its handle.
func TestDesignerCards(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	live := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin), "X-Designer": "live"}

	cases := []struct {
		name   string
		kv     []string
		status int
		open   []int    // the open cards' positions
		cards  int      // how many
		shown  []string // in the block sent back
	}{
		{"open ones stay open", []string{"action", "up.1", "q.1.open", "1", "q.3.open", "1"}, 200, []int{1, 4}, 4,
			[]string{`id="q0-down" name="action" value="down.0" formaction="/adatum/surveys/new#q-2" autofocus`, `<span class="dq-line-text">Which fuel?</span>`}},
		{"moved by the arrow keys on its handle", []string{"action", "down.0", "focus", "handle"}, 200, nil, 4,
			[]string{`id="q1-handle" hidden aria-describedby="dq-handle-hint" autofocus`}},
		{"dropped into another section", []string{"action", "moved.1", "q.0.pos", "1", "q.2.pos", "2", "q.1.pos", "3", "q.1.section", "1", "q.3.pos", "4", "q.0.open", "1"}, 200, []int{1}, 4,
			[]string{`name="q.1.text" value="How do you get to work?"`, `name="q.2.text" value="Your age"`, `<option value="1" selected>Section 2: Commute</option>`,
				`id="q2-handle" hidden aria-describedby="dq-handle-hint" autofocus`}},
		{"a new question opens alone", []string{"action", "add", "q.0.open", "1", "q.2.open", "1"}, 200, []int{5}, 5,
			[]string{`<span class="dq-line-text dq-untitled">Untitled question</span>`}},
		{"a copy opens alone", []string{"action", "dup.1", "q.0.open", "1"}, 200, []int{3}, 5,
			[]string{`<span class="dq-line-text">Your age (copy)</span>`}},
		{"a question with a problem opens", []string{"action", "save", "q.2.text", ""}, 422, []int{3}, 4,
			[]string{`<span class="dq-tag dq-line-err">Has a problem</span>`}},
		{"a survey's only question is open", []string{"n", "1", "ns", "0", "q.0.if.n", "0", "action", "refresh.0"}, 200, []int{1}, 1, nil},
		{"an optional question says so on its line", []string{"action", "refresh.0", "q.0.open", "1"}, 200, []int{1}, 4,
			[]string{`<span class="dq-line-text">Your age</span> <span class="dq-line-tags"><span class="dq-kind">Number</span> <span class="dq-tag dq-line-req">Optional</span>`,
				`<span class="dl-badge">↳ 1 condition</span>`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.do(t, "POST", "/adatum/surveys/new", with(carForm(), tc.kv...), live)
			if code != tc.status {
				t.Fatalf("status %d, want %d:\n%s", code, tc.status, body)
			}
			open, cards := openCardsIn(t, body)
			if cards != tc.cards || !slices.Equal(open, tc.open) {
				t.Errorf("%d cards, open %v; want %d, open %v", cards, open, tc.cards, tc.open)
			}
			mustContain(t, tc.name, body, tc.shown...)
		})
	}
	// Opened again, a saved survey shows its questions as their lines.
	if code, _, body := app.do(t, "POST", "/adatum/surveys/new", carForm(), live); code != http.StatusSeeOther {
		t.Fatalf("save = %d:\n%s", code, body)
	}
	_, _, body := app.do(t, "GET", "/adatum/surveys/getting-to-work/edit", nil, live)
	if open, cards := openCardsIn(t, body); cards != 4 || len(open) != 0 {
		t.Errorf("the saved survey's designer: %d cards, open %v", cards, open)
	}
}
