package survey

import "testing"

func TestWritten(t *testing.T) {
	text := Question{Type: SimpleText}
	choice := Question{Type: MultipleChoice, PossibleAnswers: []string{"Tea", "Coffee"}, Other: true}
	plain := Question{Type: MultipleChoice, PossibleAnswers: []string{"Tea", "Coffee"}}
	for _, c := range []struct {
		q      Question
		stored string
		want   string
		has    bool
	}{
		{text, "Faster pages, please", "Faster pages, please", true},
		{text, "", "", true},
		{choice, "Tea", "", true},
		{choice, OtherMark + "Mate", "Mate", true},
		{plain, "Coffee", "", false},
		{Question{Type: FiveStars}, "4", "", false},
		{Question{Type: "NoSuchKind"}, "text", "", false},
	} {
		if got := Written(c.q, c.stored); got != c.want {
			t.Errorf("Written(%s, %q) = %q, want %q", c.q.Type, c.stored, got, c.want)
		}
		if got := HasWritten(c.q); got != c.has {
			t.Errorf("HasWritten(%s, other %v) = %v, want %v", c.q.Type, c.q.Other, got, c.has)
		}
	}
}
