package web

import "testing"

// FuzzParseDefinition: any bytes are a definition or an EINVALID error,
// never a panic, and what is accepted is a valid draft.
func FuzzParseDefinition(f *testing.F) {
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","questions":[{"text":"Q","type":"SimpleText"}]}`))
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","questions":[{"text":"Q","type":"MultipleChoice","possibleAnswers":["a","b"]}]}`))
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","questions":[{"text":"Q","type":"Number","min":1,"max":"x"}]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sv, err := parseDefinition("adatum", data)
		if err != nil {
			return
		}
		if sv.State != "draft" || sv.Tenant != "adatum" {
			t.Fatalf("accepted as %+v", sv)
		}
		if err := sv.Validate(); err != nil {
			t.Fatalf("accepted an invalid survey: %v", err)
		}
	})
}
