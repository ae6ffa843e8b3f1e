package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDefinitionSendCopy: the "e-mail a copy of the answers" switch
// travels in a definition (sendCopy) and comes back on import; a
// definition without it (made before it, or with it off) imports off.
func TestDefinitionSendCopy(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Title: "T", SendCopy: true, Questions: []survey.Question{{ID: "q1", Text: "Q", Type: survey.SimpleText}}}
	raw, err := json.Marshal(DefinitionOf(sv))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"sendCopy":true`) {
		t.Fatalf("definition without sendCopy: %s", raw)
	}
	back, err := ParseDefinition("contoso", raw)
	if err != nil || !back.SendCopy {
		t.Fatalf("imported: %+v %v", back, err)
	}
	sv.SendCopy = false
	raw, _ = json.Marshal(DefinitionOf(sv))
	if strings.Contains(string(raw), "sendCopy") {
		t.Fatalf("definition of a survey without copies names them: %s", raw)
	}
	if back, err = ParseDefinition("contoso", raw); err != nil || back.SendCopy {
		t.Fatalf("imported: %+v %v", back, err)
	}
}
