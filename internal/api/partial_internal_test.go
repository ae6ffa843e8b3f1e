package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDefinitionKeepsPartial: a definition carries the delay after which
// partial answers are kept, and one out of bounds is refused.
func TestDefinitionKeepsPartial(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Title: "Kept", KeepPartial: 90 * time.Minute, Questions: []survey.Question{{ID: "q1", Text: "Rate", Type: survey.FiveStars}}}
	data, err := json.Marshal(DefinitionOf(sv))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"keepPartialMinutes":90`) {
		t.Fatalf("definition %s", data)
	}
	got, err := ParseDefinition("adatum", data)
	if err != nil {
		t.Fatal(err)
	}
	if got.KeepPartial != 90*time.Minute {
		t.Fatalf("imported KeepPartial %v, want 1h30m", got.KeepPartial)
	}
	bad := strings.Replace(string(data), `"keepPartialMinutes":90`, `"keepPartialMinutes":2`, 1)
	if _, err := ParseDefinition("adatum", []byte(bad)); err == nil {
		t.Fatal("a delay of 2 minutes was taken")
	}
}
