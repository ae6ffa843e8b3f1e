package survey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The files in testdata/stored were written by the code before the kinds
// had their own files (commit 2c3cfd1), from storedSurvey and storedForm:
// summary.json counts answers 0 to 7 (with more distinct words than a
// summary keeps), summary-after.json answers 0 to 11; summary-empty.json
// is an empty summary (its text questions' words omitted) and
// summary-empty-after.json the same with answer 8; answer.json is answer 0.

func storedSurvey() *Survey {
	return &Survey{Tenant: "adatum", Slug: "fixture", Title: "Fixture", State: Published, Questions: []Question{
		{ID: "1", Text: "How satisfied are you?", Type: FiveStars},
		{ID: "2", Text: "Which product?", Type: MultipleChoice, PossibleAnswers: []string{"Coffee", "Tea", "Cake"}},
		{ID: "3", Text: "What should we improve?", Type: SimpleText},
		{ID: "4", Text: "Anything else?", Type: SimpleText},
		{ID: "5", Text: "Rate the cake", Type: FiveStars},
	}}
}

func storedForm(i int) map[string]string {
	text := fmt.Sprintf("the coffee w%dx and %d-cakes were great", i, i%7)
	if i == 3 || i == 4 {
		for j := (i - 3) * 550; j < (i-2)*550; j++ {
			text += fmt.Sprintf(" v%dq", j)
		}
	}
	return map[string]string{"1": strconv.Itoa(1 + i%5), "2": []string{"Coffee", "Tea", "Cake"}[i%3], "3": text, "4": "it is the", "5": strconv.Itoa(1 + (i*3)%5)}
}

func readStored(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "stored", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

// decodeStored decodes a stored summary as the summary store does.
func decodeStored(t *testing.T, name string) *SurveyAnswersSummary {
	t.Helper()
	var sum SurveyAnswersSummary
	if err := json.Unmarshal(readStored(t, name), &sum); err != nil {
		t.Fatal(err)
	}
	sum.RestoreEmpty()
	return &sum
}

// TestStoredDataStillCounts: summaries and answers written before the kind
// seam load, count new answers to the very bytes the old code wrote, and
// merge.
func TestStoredDataStillCounts(t *testing.T) {
	s := storedSurvey()
	for _, c := range []struct {
		from, to string
		answers  []int
	}{
		{"summary.json", "summary-after.json", []int{8, 9, 10, 11}},
		{"summary-empty.json", "summary-empty-after.json", []int{8}},
	} {
		sum := decodeStored(t, c.from)
		for _, i := range c.answers {
			a, err := NewAnswer(s, forms(storedForm(i)))
			if err != nil {
				t.Fatal(err)
			}
			sum.Add(a)
		}
		got, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		if want := readStored(t, c.to); !bytes.Equal(got, want) {
			t.Errorf("%s plus answers %v:\n got %s\nwant %s", c.from, c.answers, got, want)
		}
	}

	// A merge of the stored summaries of answers 0–7 and of answer 8 is
	// the count of the nine answers.
	merged := decodeStored(t, "summary.json")
	merged.Merge(decodeStored(t, "summary-empty-after.json"))
	want := decodeStored(t, "summary.json")
	a8, _ := NewAnswer(s, forms(storedForm(8)))
	want.Add(a8)
	if g, w := mustJSON(t, merged), mustJSON(t, want); g != w {
		t.Errorf("merge of stored summaries:\n got %s\nwant %s", g, w)
	}

	// A stored answer decodes, encodes to the same bytes, and counts.
	raw := readStored(t, "answer.json")
	var a SurveyAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, a); got != string(raw) {
		t.Errorf("answer re-encoded:\n got %s\nwant %s", got, raw)
	}
	fresh, _ := NewAnswer(s, forms(storedForm(0)))
	one, two := NewSummary(s), NewSummary(s)
	one.Add(a)
	two.Add(fresh)
	if g, w := mustJSON(t, one), mustJSON(t, two); g != w {
		t.Errorf("stored answer counts differently:\n got %s\nwant %s", g, w)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
