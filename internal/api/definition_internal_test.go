package api

import "testing"

// FuzzParseDefinition: any bytes are a definition or an EINVALID error,
// never a panic, and what is accepted is a valid draft.
func FuzzParseDefinition(f *testing.F) {
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","questions":[{"text":"Q","type":"SimpleText"}]}`))
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","questions":[{"text":"Q","type":"MultipleChoice","possibleAnswers":["a","b"]}]}`))
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","questions":[{"text":"Q","type":"Number","min":1,"max":"x"}]}`))
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","sections":[{"id":"a","jumps":[{"if":{"rules":[{"question":"q1","op":"less_than","values":["3"]}]},"to":"end"}]},{"id":"b","showIf":{"match":"any","rules":[{"question":"q1","op":"answered"}]}}],` +
		`"questions":[{"id":"q1","text":"Q","type":"FiveStars","section":"a"},{"id":"q2","text":"R","type":"SimpleText","section":"a","showIf":{"rules":[{"question":"q1","op":"one_of","values":["4","5"]}]}},{"text":"S","type":"SimpleText","section":"b"}]}`))
	f.Add([]byte(`{"format":"surveys.definition/1","title":"T","questions":[{"id":"q1","text":"Q","type":"SimpleText","showIf":{"rules":[{"question":"q1","op":"equals","values":["x"]}]}}]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sv, err := ParseDefinition("adatum", data)
		if err != nil {
			return
		}
		if sv.State != "draft" || sv.Tenant != "adatum" {
			t.Fatalf("accepted as %+v", sv)
		}
		if err := sv.Validate(); err != nil {
			t.Fatalf("accepted an invalid survey: %v", err)
		}
		// As the store makes it: its questions numbered, its rules
		// following them.
		ids := make([]string, len(sv.Questions))
		for i := range ids {
			ids[i] = "v_" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		sv.RenameQuestions(ids)
		if err := sv.Validate(); err != nil {
			t.Fatalf("renumbered, invalid: %v", err)
		}
		sv.Path(nil)
	})
}
