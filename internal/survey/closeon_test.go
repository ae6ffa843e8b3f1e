package survey_test

import (
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestOpenThroughCloseOn: a survey takes answers through the whole of its
// last day (UTC), wherever the clock that asks is, and not a moment after.
func TestOpenThroughCloseOn(t *testing.T) {
	last := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	s := &survey.Survey{State: survey.Published, CloseOn: last}
	if got, want := s.ClosesAt(), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("ClosesAt = %v, want %v", got, want)
	}
	tokyo := time.FixedZone("Tokyo", 9*3600)
	for _, tc := range []struct {
		now  time.Time
		open bool
	}{
		{last.AddDate(0, 0, -1), true},
		{last, true},
		{last.Add(12 * time.Hour), true},
		{last.Add(24*time.Hour - time.Nanosecond), true},
		{last.Add(24 * time.Hour), false},
		{last.AddDate(0, 0, 2), false},
		{time.Date(2027, 1, 1, 8, 59, 0, 0, tokyo), true}, // 23:59 UTC on the last day
		{time.Date(2027, 1, 1, 9, 0, 0, 0, tokyo), false},
	} {
		if got := s.Open(tc.now); got != tc.open {
			t.Errorf("Open(%v) = %v, want %v", tc.now, got, tc.open)
		}
	}
	for _, st := range []survey.State{survey.Draft, survey.Closed} {
		c := *s
		c.State = st
		if c.Open(last) {
			t.Errorf("a %s survey is open", st)
		}
	}
	if none := (&survey.Survey{State: survey.Published}); !none.Open(last.AddDate(10, 0, 0)) || !none.ClosesAt().IsZero() {
		t.Error("a survey without a close date closes")
	}
}
