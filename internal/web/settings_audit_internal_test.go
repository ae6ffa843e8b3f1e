package web

import (
	"strconv"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestAuditLabels: every action the log can hold has a name on the
// audit page.
func TestAuditLabels(t *testing.T) {
	for _, a := range survey.AuditActions {
		if auditLabels[a] == "" {
			t.Errorf("action %q has no label in auditLabels", a)
		}
	}
	if len(auditLabels) != len(survey.AuditActions) {
		t.Errorf("%d labels for %d actions", len(auditLabels), len(survey.AuditActions))
	}
}

// TestAutosaveNotes: one autosave event per member and survey per ten
// minutes; another member or survey has its own; the notes stay bounded.
func TestAutosaveNotes(t *testing.T) {
	var n autosaveNotes
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	steps := []struct {
		key  string
		at   time.Duration
		want bool
	}{
		{"a/s/ana", 0, true},
		{"a/s/ana", time.Second, false},
		{"a/s/ana", 9*time.Minute + 59*time.Second, false},
		{"a/s/bob", time.Minute, true},
		{"a/t/ana", time.Minute, true},
		{"a/s/ana", 10 * time.Minute, true},
		{"a/s/ana", 15 * time.Minute, false},
		// A clock set back does not silence the member for long.
		{"a/s/ana", -time.Hour, true},
	}
	for i, s := range steps {
		if got := n.due(s.key, t0.Add(s.at)); got != s.want {
			t.Fatalf("step %d (%s at %v) = %v", i, s.key, s.at, got)
		}
	}
	for i := range autosaveNotesMax * 2 {
		n.due("k"+strconv.Itoa(i), t0)
	}
	if len(n.last) > autosaveNotesMax {
		t.Fatalf("%d notes kept, bound %d", len(n.last), autosaveNotesMax)
	}
}
