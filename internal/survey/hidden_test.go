package survey_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// withHidden is a two-section survey with hidden fields source and
// panel_id: the "partners" section is shown only to respondents whose
// link says source=partner.
func withHidden() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Title: "Hidden", State: survey.Draft, HiddenFields: []string{"source", "panel_id"}, Prefill: true,
		Sections: []survey.Section{
			{ID: "all", Title: "Everyone"},
			{ID: "partners", Title: "Partners", ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: "hidden:source", Op: "equals", Values: []string{"partner"}}}}},
		},
		Questions: []survey.Question{
			{ID: "q1", Text: "Role", Type: survey.MultipleChoice, PossibleAnswers: []string{"Manager", "Engineer"}, Section: "all"},
			{ID: "q2", Text: "Age", Type: survey.Number, Optional: true, Section: "all", Min: "0", Max: "120"},
			{ID: "q3", Text: "Which partner?", Type: survey.SimpleText, Section: "partners"},
		}}
}

func TestHiddenFieldsValid(t *testing.T) {
	s := withHidden()
	s.HiddenFields = []string{" Source ", "", "panel_id"}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.HiddenFields, []string{"source", "panel_id"}) {
		t.Errorf("normalized %q", s.HiddenFields)
	}
}

func TestHiddenFieldsRefused(t *testing.T) {
	many := make([]string, survey.MaxHiddenFields+1)
	for i := range many {
		many[i] = "f" + strings.Repeat("x", i)
	}
	for _, c := range []struct {
		name   string
		fields []string
		key    string
	}{
		{"twice", []string{"source", "source"}, "hiddenFields"},
		{"a space", []string{"my source"}, "hiddenFields"},
		{"a dot", []string{"utm.source"}, "hiddenFields"},
		{"too long", []string{strings.Repeat("a", survey.MaxHiddenFieldName+1)}, "hiddenFields"},
		{"a digit first", []string{"1st"}, "hiddenFields"},
		{"the link's own", []string{"lang"}, "hiddenFields"},
		{"a prefill's", []string{"q-1"}, "hiddenFields"},
		{"not ASCII", []string{"sourcé"}, "hiddenFields"},
		{"too many", many, "hiddenFields"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := withHidden()
			s.Sections[1].ShowIf = nil
			s.HiddenFields = c.fields
			var e *survey.Error
			if p := s.Problems(); p[c.key] == "" {
				t.Fatalf("Problems = %v, want one at %s", p, c.key)
			}
			s.Normalize()
			if err := s.Validate(); !errors.As(err, &e) {
				t.Fatalf("Validate = %v", err)
			}
		})
	}
	// A rule on a field the survey does not declare.
	s := withHidden()
	s.Sections[1].ShowIf.Rules[0].Question = "hidden:medium"
	if p := s.Problems(); p["sections.1.showIf.rules.0.question"] == "" {
		t.Errorf("a rule on an unknown hidden field: %v", p)
	}
	// A number op on a hidden field takes numbers.
	s = withHidden()
	s.Sections[1].ShowIf.Rules[0] = survey.Rule{Question: "hidden:panel_id", Op: "greater_than", Values: []string{"ten"}}
	if p := s.Problems(); p["sections.1.showIf.rules.0.values"] == "" {
		t.Errorf("greater than a word: %v", p)
	}
}

func TestHiddenValues(t *testing.T) {
	s := withHidden()
	long := strings.Repeat("é", survey.MaxHiddenFieldValue+10)
	for _, c := range []struct {
		name  string
		query string
		want  map[string]string
	}{
		{"none", "", nil},
		{"one", "source=newsletter", map[string]string{"source": "newsletter"}},
		{"both, and others ignored", "source=a&panel_id=42&medium=x&q-q1=Manager", map[string]string{"source": "a", "panel_id": "42"}},
		{"the first of two", "source=a&source=b", map[string]string{"source": "a"}},
		{"empty", "source=&panel_id=%20", nil},
		{"controls dropped", "source=a%00b%0Ac%E2%80%AE", map[string]string{"source": "ab c"}},
		{"markup kept as text", "source=%3Cb%3Ex", map[string]string{"source": "<b>x"}},
		{"cut to the limit", "source=" + url.QueryEscape(long), map[string]string{"source": long[:2*survey.MaxHiddenFieldValue]}},
		{"names are exact", "Source=a", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.HiddenValues(q); !reflect.DeepEqual(got, c.want) {
				t.Errorf("HiddenValues(%s) = %q, want %q", c.query, got, c.want)
			}
		})
	}
	if got := s.KeepHidden(map[string]string{"source": "a", "other": "b", "panel_id": long}); !reflect.DeepEqual(got, map[string]string{"source": "a"}) {
		t.Errorf("KeepHidden = %q", got)
	}
}

func TestPrefillForms(t *testing.T) {
	s := withHidden()
	s.Normalize()
	for _, c := range []struct {
		name    string
		query   string
		prefill bool
		want    map[string]survey.Form
	}{
		{"a choice", "q-q1=Engineer", true, map[string]survey.Form{"q1": {"": {"Engineer"}}}},
		{"not allowed", "q-q1=Engineer", false, nil},
		{"not a choice", "q-q1=Astronaut", true, nil},
		{"out of bounds", "q-q2=300", true, nil},
		{"a number and a text", "q-q2=42&q-q3=Contoso&source=x", true, map[string]survey.Form{"q2": {"": {"42"}}, "q3": {"": {"Contoso"}}}},
		{"an unknown question", "q-q9=x", true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.Prefill = c.prefill
			q, _ := url.ParseQuery(c.query)
			if got := s.PrefillForms(q); !reflect.DeepEqual(got, c.want) {
				t.Errorf("PrefillForms(%s) = %v, want %v", c.query, got, c.want)
			}
		})
	}
}

func TestHiddenLogicAndAnswer(t *testing.T) {
	s := withHidden()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		hidden map[string]string
		forms  map[string]string
		stored map[string]string
		ids    string
		err    string // the question with a problem
	}{
		{"no link values: one page", nil, map[string]string{"q1": "Manager", "q3": "dropped"}, nil, "q1", ""},
		{"a partner sees the second page", map[string]string{"source": "Partner"}, map[string]string{"q1": "Manager", "q3": "Contoso"},
			map[string]string{"source": "Partner"}, "q1,q3", ""},
		{"a partner must answer it", map[string]string{"source": "partner"}, map[string]string{"q1": "Manager"}, nil, "", "q3"},
		{"unknown fields are not stored", map[string]string{"source": "web", "medium": "x"}, map[string]string{"q1": "Engineer"},
			map[string]string{"source": "web"}, "q1", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := survey.NewAnswerWith(s, surveytest.Forms(c.forms), c.hidden)
			if c.err != "" {
				var e *survey.Error
				if !errors.As(err, &e) || e.Fields[c.err] == "" {
					t.Fatalf("NewAnswerWith = %v, want a problem at %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, qa := range a.Answers {
				ids = append(ids, qa.QuestionID)
			}
			if strings.Join(ids, ",") != c.ids || !reflect.DeepEqual(a.Hidden, c.stored) {
				t.Errorf("stored %v and %q, want %s and %q", ids, a.Hidden, c.ids, c.stored)
			}
		})
	}
	// The path follows the hidden value from the first page.
	kept := s.DropHidden(s.GivenWith(nil, map[string]string{"source": "partner"}))
	if got := s.Path(kept); !reflect.DeepEqual(got, []string{"all", "partners"}) {
		t.Errorf("path of a partner = %v", got)
	}
	if got := s.Path(s.DropHidden(s.GivenWith(nil, nil))); !reflect.DeepEqual(got, []string{"all"}) {
		t.Errorf("path of anyone = %v", got)
	}
}

func TestHiddenFilterAndExport(t *testing.T) {
	s := withHidden()
	s.Normalize()
	a := &survey.SurveyAnswer{ID: "1", CreatedOn: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Hidden: map[string]string{"source": "Newsletter", "panel_id": "42"},
		Answers: []survey.QuestionAnswer{{QuestionID: "q1", QuestionText: "Role", Type: survey.MultipleChoice, Answer: "Manager"}}}
	old := &survey.SurveyAnswer{ID: "2", CreatedOn: a.CreatedOn, Answers: a.Answers}
	for _, c := range []struct {
		q, a       string
		match, old bool
	}{
		{"hidden:source", " newsletter ", true, false},
		{"hidden:source", "web", false, false},
		{"hidden:panel_id", "42.0", true, false},
	} {
		f, err := survey.ParseAnswerFilter(s, url.Values{"q": {c.q}, "a": {c.a}})
		if err != nil {
			t.Fatal(err)
		}
		if f.Match(a) != c.match || f.Match(old) != c.old {
			t.Errorf("filter %s=%q: %v, %v", c.q, c.a, f.Match(a), f.Match(old))
		}
		if !strings.Contains(f.Describe(), "hidden field") {
			t.Errorf("Describe = %q", f.Describe())
		}
	}
	if _, err := survey.ParseAnswerFilter(s, url.Values{"q": {"hidden:medium"}, "a": {"x"}}); err == nil {
		t.Error("a filter on an undeclared hidden field was taken")
	}
	if got := s.HiddenColumns(); !reflect.DeepEqual(got, []string{"source (hidden field)", "panel_id (hidden field)"}) {
		t.Errorf("HiddenColumns = %q", got)
	}
	if got := s.HiddenCells(old); !reflect.DeepEqual(got, []string{"", ""}) {
		t.Errorf("HiddenCells of an old answer = %q", got)
	}
	raw, _ := json.Marshal(survey.ExportAnswer(s, a))
	if !strings.Contains(string(raw), `"hidden":{"panel_id":"42","source":"Newsletter"}`) {
		t.Errorf("exported %s", raw)
	}
	// An answer stored before hidden fields reads as having none, and is
	// stored the same way again.
	var back survey.SurveyAnswer
	if err := json.Unmarshal([]byte(`{"id":"2","answers":[]}`), &back); err != nil || back.Hidden != nil {
		t.Errorf("old answer: %v %v", back.Hidden, err)
	}
	if raw, _ := json.Marshal(old); strings.Contains(string(raw), "hidden") {
		t.Errorf("an answer without hidden values: %s", raw)
	}
}

func TestDuplicateKeepsHiddenFields(t *testing.T) {
	s := withHidden()
	s.Normalize()
	cp := s.Duplicate(time.Now())
	if !reflect.DeepEqual(cp.HiddenFields, s.HiddenFields) || !cp.Prefill {
		t.Errorf("copy: %q %v", cp.HiddenFields, cp.Prefill)
	}
	cp.HiddenFields[0] = "changed"
	if s.HiddenFields[0] != "source" {
		t.Error("the copy shares its hidden fields")
	}
}

// TestHiddenSummary: a summary counts each hidden field's values, the
// same whatever the order and batching of the answers (merges are
// exact), and at most MaxSummaryHiddenValues values a field, the rest
// counted apart.
func TestHiddenSummary(t *testing.T) {
	s := withHidden()
	var all []survey.SurveyAnswer
	for i := range survey.MaxSummaryHiddenValues + 50 {
		a := survey.SurveyAnswer{ID: strconv.Itoa(i), Hidden: map[string]string{"source": "v" + strconv.Itoa(i)}}
		if i%3 == 0 {
			a.Hidden["panel_id"] = "p"
		}
		all = append(all, a, survey.SurveyAnswer{ID: "n" + strconv.Itoa(i)}) // and one without
	}
	one := survey.NewSummary(s)
	for _, a := range all {
		one.Add(a)
	}
	src := one.Hidden["source"]
	if src.Answered != int64(survey.MaxSummaryHiddenValues+50) || len(src.Values) != survey.MaxSummaryHiddenValues || src.OtherValues != 50 {
		t.Fatalf("source: %d answered, %d values, %d other", src.Answered, len(src.Values), src.OtherValues)
	}
	if p := one.Hidden["panel_id"]; p.Answered != int64((survey.MaxSummaryHiddenValues+50+2)/3) || p.Values["p"] != p.Answered {
		t.Fatalf("panel_id: %+v", p)
	}
	if top := one.Hidden["panel_id"].TopValues(5); len(top) != 1 || top[0].Answer != "p" {
		t.Errorf("TopValues = %v", top)
	}
	for _, size := range []int{1, 7, 100} {
		merged := survey.NewSummary(s)
		for i := len(all); i > 0; i -= size {
			merged.AddAll(all[max(i-size, 0):i]) // backwards, in batches
		}
		if !reflect.DeepEqual(merged.Hidden, one.Hidden) {
			t.Errorf("batches of %d: the hidden counts differ", size)
		}
	}
	raw, _ := json.Marshal(survey.NewSummary(s))
	if strings.Contains(string(raw), "hidden") {
		t.Errorf("a summary without hidden values: %s", raw)
	}
}

// FuzzLinkValues: whatever a link's query holds, the hidden values read
// from it are the survey's declared fields only, clean lines within the
// value limit (and what an answer keeps as they are), and the prefilled
// forms name visible questions whose kinds accept them.
func FuzzLinkValues(f *testing.F) {
	for _, q := range []string{"source=newsletter&panel_id=42", "source=%00%E2%80%AE&q-q1=Manager", "q-q2=12&q-q2=13&q-q3-other=x", "source=" + strings.Repeat("é", 600), "%zz", "q-=x&q--=y&hidden:source=z"} {
		f.Add(q)
	}
	s := withHidden()
	s.Normalize()
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw)
		hv := s.HiddenValues(q)
		if len(hv) > survey.MaxHiddenFields {
			t.Fatalf("%d values", len(hv))
		}
		for n, v := range hv {
			if !s.HasHidden(n) || v == "" || !survey.IsCleanLine(v) || len([]rune(v)) > survey.MaxHiddenFieldValue {
				t.Fatalf("value %q of %q", v, n)
			}
		}
		if kept := s.KeepHidden(hv); !reflect.DeepEqual(kept, hv) {
			t.Fatalf("KeepHidden(%q) = %q", hv, kept)
		}
		for id, form := range s.PrefillForms(q) {
			if _, err := survey.NewAnswer(&survey.Survey{Title: "x", Questions: []survey.Question{mustQuestion(t, s, id)}}, map[string]survey.Form{id: form}); err != nil {
				t.Fatalf("prefilled %s with %v, which is not an answer: %v", id, form, err)
			}
		}
	})
}

func mustQuestion(t *testing.T, s *survey.Survey, id string) survey.Question {
	t.Helper()
	q, ok := s.Question(id)
	if !ok || q.Hidden {
		t.Fatalf("prefilled %q, which is no visible question", id)
	}
	return q
}
