package web

import (
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestCopyToken: a copy token opens for its survey until it expires;
// after, for another survey or tenant, or altered, it does not.
func TestCopyToken(t *testing.T) {
	p := newPageSealer([]byte("0123456789abcdef0123456789abcdef"))
	now := time.Now()
	id := store.NewAnswerID(now)
	sealed := p.sealCopy("adatum", "poll", copyClaim{ID: id, Email: "ana@example.com", Until: now.Add(copyTokenLife).Unix()})
	if c, ok := p.openCopy("adatum", "poll", sealed, now); !ok || c.ID != id || c.Email != "ana@example.com" {
		t.Fatalf("open = %+v %v", c, ok)
	}
	for name, open := range map[string]func() bool{
		"expired": func() bool {
			_, ok := p.openCopy("adatum", "poll", sealed, now.Add(copyTokenLife+time.Second))
			return ok
		},
		"another survey": func() bool { _, ok := p.openCopy("adatum", "other", sealed, now); return ok },
		"another tenant": func() bool { _, ok := p.openCopy("fabrikam", "poll", sealed, now); return ok },
		"altered":        func() bool { _, ok := p.openCopy("adatum", "poll", sealed[:len(sealed)-2]+"AA", now); return ok },
		"another key": func() bool {
			_, ok := newPageSealer([]byte("fedcba9876543210fedcba9876543210")).openCopy("adatum", "poll", sealed, now)
			return ok
		},
	} {
		if open() {
			t.Errorf("a token %s opens", name)
		}
	}
	// A page state or a thank-you recall of the same survey is no copy
	// token.
	if _, ok := p.openCopy("adatum", "poll", p.sealRecalled("adatum", "poll", map[string]string{"i": id}), now); ok {
		t.Error("a thank-you recall opens as a copy token")
	}
}

// TestTranslatedChoices: a copy's line of choices reads in the
// respondent's language where the translation has them; other lines, and
// a list with a choice it lacks, stay as they are.
func TestTranslatedChoices(t *testing.T) {
	qt := survey.QuestionText{Choices: map[string]string{"Cake": "Gâteau", "Fruit": "Fruits"}}
	for line, want := range map[string]string{
		"Cake":                  "Gâteau",
		"Cake, Fruit":           "Gâteau, Fruits",
		"Cake, Ice cream":       "Cake, Ice cream",
		"I liked the cake":      "I liked the cake",
		"Other: a cheese board": "Other: a cheese board",
	} {
		if got := translatedChoices(qt, line); got != want {
			t.Errorf("%q → %q, want %q", line, got, want)
		}
	}
	if got := translatedChoices(survey.QuestionText{}, "Cake"); got != "Cake" {
		t.Errorf("without a translation: %q", got)
	}
}
