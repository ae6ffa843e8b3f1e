package survey_test

import (
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		noun string
		want string
	}{
		{0, "answer", "0 answers"},
		{1, "answer", "1 answer"},
		{2, "answer", "2 answers"},
		{-1, "answer", "-1 answers"},
		{1, "survey", "1 survey"},
		{3, "survey", "3 surveys"},
		{2, "entity", "2 entities"},
		{2, "day", "2 days"},
		{2, "box", "2 boxes"},
		{2, "match", "2 matches"},
		{2, "person", "2 people"},
		{1, "is", "1 is"},
		{2, "is", "2 are"},
	} {
		if got := survey.Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
	if got := survey.Count(uint8(1), "row"); got != "1 row" {
		t.Errorf("Count(uint8(1), row) = %q", got)
	}
	if got := survey.Noun(int32(7), "page"); got != "pages" {
		t.Errorf("Noun(7, page) = %q", got)
	}
}
