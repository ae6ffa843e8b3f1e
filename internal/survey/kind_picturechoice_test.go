package survey

import (
	"reflect"
	"strings"
	"testing"
)

// pics are three pictures of tenant adatum.
func pics() []Picture {
	return []Picture{
		{Label: "Red", Alt: "A shop front painted red", Image: "adatum-0a1b2c3d4e5f.png"},
		{Label: "Green", Alt: "A shop front painted green", Image: "adatum-00000000beef.jpg"},
		{Label: "White", Alt: "A shop front painted white", Image: "adatum-ffffffffffff.png"},
	}
}

func TestPictureChoiceSettings(t *testing.T) {
	with := func(edit func(ps []Picture) []Picture) []Picture { return edit(pics()) }
	tests := []struct {
		name string
		q    Question
		want map[string]string // field → a part of its problem; nil: valid
	}{
		{"three pictures", Question{Pictures: pics()}, nil},
		{"several, bounded", Question{Pictures: pics(), Multiple: true, Min: "1", Max: "02"}, nil},
		{"one picture", Question{Pictures: pics()[:1]}, map[string]string{"questions.0.pictures": "at least two"}},
		{"too many", Question{Pictures: with(func(ps []Picture) []Picture {
			for i := 0; len(ps) <= MaxPictures; i++ {
				ps = append(ps, Picture{Label: "Colour " + strings.Repeat("x", i), Alt: "A colour", Image: "adatum-0a1b2c3d4e5f.png"})
			}
			return ps
		})}, map[string]string{"questions.0.pictures": "at most 20"}},
		{"alt text missing", Question{Pictures: with(func(ps []Picture) []Picture { ps[1].Alt = "  "; return ps })}, map[string]string{"questions.0.pictures.1.alt": "alt text"}},
		{"alt text too long", Question{Pictures: with(func(ps []Picture) []Picture { ps[0].Alt = strings.Repeat("a", MaxAltLength+1); return ps })}, map[string]string{"questions.0.pictures.0.alt": "250 characters"}},
		{"label missing", Question{Pictures: with(func(ps []Picture) []Picture { ps[2].Label = ""; return ps })}, map[string]string{"questions.0.pictures.2.label": "Give the picture a label"}},
		{"label twice", Question{Pictures: with(func(ps []Picture) []Picture { ps[2].Label = "Red"; return ps })}, map[string]string{"questions.0.pictures.2.label": "another picture"}},
		{"image missing", Question{Pictures: with(func(ps []Picture) []Picture { ps[0].Image = ""; return ps })}, map[string]string{"questions.0.pictures.0.image": "Upload an image"}},
		{"not an image's name", Question{Pictures: with(func(ps []Picture) []Picture { ps[0].Image = "../adatum-0a1b2c3d4e5f.png"; return ps })}, map[string]string{"questions.0.pictures.0.image": "not the name"}},
		{"an svg", Question{Pictures: with(func(ps []Picture) []Picture { ps[0].Image = "adatum-0a1b2c3d4e5f.svg"; return ps })}, map[string]string{"questions.0.pictures.0.image": "not the name"}},
		{"another tenant's image", Question{Pictures: with(func(ps []Picture) []Picture { ps[1].Image = "fabrikam-0a1b2c3d4e5f.png"; return ps })}, map[string]string{"questions.0.pictures.1.image": "another account"}},
		{"a tenant whose key begins with this one's", Question{Pictures: with(func(ps []Picture) []Picture { ps[1].Image = "adatum-x-0a1b2c3d4e5f.png"; return ps })}, map[string]string{"questions.0.pictures.1.image": "another account"}},
		{"more picks than pictures", Question{Pictures: pics(), Multiple: true, Max: "4"}, map[string]string{"questions.0.max": "only 3"}},
		{"bounds reversed", Question{Pictures: pics(), Multiple: true, Min: "3", Max: "2"}, map[string]string{"questions.0.max": "below the minimum"}},
		// One choice: the bounds are dropped, whatever they were.
		{"one choice, bounds dropped", Question{Pictures: pics(), Min: "9", Max: "x"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.ID, q.Text, q.Type = "q1", "Which colour?", PictureChoice
			got := kindsAFields(q)
			if tc.want == nil {
				if got != nil {
					t.Fatalf("refused: %v", got)
				}
				return
			}
			for field, part := range tc.want {
				if !strings.Contains(got[field], part) {
					t.Errorf("problem of %s = %q, want one with %q (all: %v)", field, got[field], part, got)
				}
			}
		})
	}
}

func TestPictureChoiceNormalize(t *testing.T) {
	q := Question{ID: "q1", Text: "Which?", Type: PictureChoice, Min: "01", Max: "2", Other: true, Pictures: []Picture{
		{Label: " Red ", Alt: " A red door\x00 ", Image: " adatum-0a1b2c3d4e5f.png"},
		{},
		{Label: "Green", Alt: "A green door", Image: "adatum-00000000beef.jpg"},
	}}
	s := &Survey{Tenant: "adatum", Questions: []Question{q}}
	s.Normalize()
	got := s.Questions[0]
	want := []Picture{{Label: "Red", Alt: "A red door", Image: "adatum-0a1b2c3d4e5f.png"}, {Label: "Green", Alt: "A green door", Image: "adatum-00000000beef.jpg"}}
	if !reflect.DeepEqual(got.Pictures, want) || !reflect.DeepEqual(got.PossibleAnswers, []string{"Red", "Green"}) {
		t.Errorf("pictures %+v, choices %q; want %+v and their labels", got.Pictures, got.PossibleAnswers, want)
	}
	if got.Min != "" || got.Max != "" || got.Other {
		t.Errorf("a question of one choice keeps min %q, max %q, other %v", got.Min, got.Max, got.Other)
	}
	// Another kind keeps no pictures.
	s.Questions[0].Type = MultipleChoice
	s.Questions[0].Multiple = true
	s.Normalize()
	if s.Questions[0].Pictures != nil || s.Questions[0].Multiple {
		t.Errorf("a multiple choice question keeps pictures %v, multiple %v", s.Questions[0].Pictures, s.Questions[0].Multiple)
	}
}

func TestPictureChoiceAnswer(t *testing.T) {
	one := Question{Text: "Which colour?", Type: PictureChoice, Pictures: pics()}
	several := Question{Text: "Which colours?", Type: PictureChoice, Pictures: pics(), Multiple: true, Min: "2", Max: "2"}
	free := Question{Text: "Which colours?", Type: PictureChoice, Pictures: pics(), Multiple: true}
	tests := []struct {
		name       string
		q          Question
		sent       []string
		want, prob string
	}{
		{"one", one, []string{"Green"}, `["Green"]`, ""},
		{"one, trimmed", one, []string{" White "}, `["White"]`, ""},
		{"one sent twice", one, []string{"Red", "Red"}, `["Red"]`, ""},
		{"two for one", one, []string{"Red", "Green"}, "", "Please choose one answer."},
		{"not offered", one, []string{"Blue"}, "", "Please choose one of the answers offered."},
		{"none", one, nil, "", "Please choose one answer."},
		{"a label's case", one, []string{"red"}, "", "Please choose one of the answers offered."},
		{"two of several, in the question's order", several, []string{"White", "Red"}, `["Red","White"]`, ""},
		{"too few", several, []string{"Red"}, "", "Please choose at least two answers (you chose 1)."},
		{"too many", several, []string{"Red", "Green", "White"}, "", "Please choose at most two answers (you chose 3)."},
		{"not offered of several", several, []string{"Red", "Blue"}, "", "Please choose only among the answers offered."},
		{"none of several", free, []string{""}, "", "Please choose at least one answer."},
		{"all of several", free, []string{"White", "Green", "Red"}, `["Red","Green","White"]`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, prob := kindsAAnswer(t, tc.q, Form{"": tc.sent})
			if got != tc.want || prob != tc.prob {
				t.Errorf("%q: got %q, %q; want %q, %q", tc.sent, got, prob, tc.want, tc.prob)
			}
		})
	}
}

// TestPictureChoiceExport: the label(s), as the other choice kinds give
// them, in cells, JSON values, SQL rows and piping.
func TestPictureChoiceExport(t *testing.T) {
	k := pictureChoice{}
	one := Question{ID: "q1", Text: "Which colour?", Type: PictureChoice, Pictures: pics(), PossibleAnswers: []string{"Red", "Green", "White"}}
	several := one
	several.Multiple = true
	unknown := Question{ID: "q1", Text: "Which colour?", Type: PictureChoice}
	tests := []struct {
		name   string
		q      Question
		stored string
		cols   []string
		cells  []string
		value  any
		rows   []SQLRow
		piped  string
	}{
		{"one", one, `["Green"]`, []string{""}, []string{"Green"}, "Green", []SQLRow{{Item: "Green", Text: "Green"}}, "Green"},
		{"several", several, `["Red","White"]`, []string{"Red", "Green", "White"}, []string{"Red", "", "White"}, []string{"Red", "White"},
			[]SQLRow{{Item: "Red", Text: "Red"}, {Item: "White", Text: "White"}}, "Red; White"},
		{"settings unknown", unknown, `["Red","White"]`, []string{""}, []string{"Red; White"}, []string{"Red", "White"},
			[]SQLRow{{Item: "Red", Text: "Red"}, {Item: "White", Text: "White"}}, "Red; White"},
		{"no answer", several, "", []string{"Red", "Green", "White"}, []string{"", "", ""}, nil, []SQLRow{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qa := QuestionAnswer{QuestionID: "q1", Type: PictureChoice, Answer: tc.stored}
			if got := k.Columns(tc.q); !reflect.DeepEqual(got, tc.cols) {
				t.Errorf("columns %q, want %q", got, tc.cols)
			}
			if got := k.Cells(tc.q, qa); !reflect.DeepEqual(got, tc.cells) {
				t.Errorf("cells %q, want %q", got, tc.cells)
			}
			if got := k.Value(tc.q, qa); !reflect.DeepEqual(got, tc.value) {
				t.Errorf("value %#v, want %#v", got, tc.value)
			}
			if got := k.SQLRows(tc.q, qa); !reflect.DeepEqual(got, tc.rows) {
				t.Errorf("SQL rows %+v, want %+v", got, tc.rows)
			}
			if got := AnswerText(k, tc.q, qa); got != tc.piped {
				t.Errorf("piped %q, want %q", got, tc.piped)
			}
		})
	}
}

// TestPictureChoiceSummary: 4 answers of known choices: Red 3, Green 1,
// White 2; the note says some chose several.
func TestPictureChoiceSummary(t *testing.T) {
	s := &Survey{Tenant: "adatum", Questions: []Question{{ID: "q1", Text: "Which?", Type: PictureChoice, Pictures: pics(), Multiple: true}}}
	s.Normalize()
	sum := NewSummary(s)
	for _, v := range []string{`["Red"]`, `["Red","White"]`, `["Green","White"]`, `["Red"]`} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: PictureChoice, Answer: v}}})
	}
	c := pictureChoice{}.Chart(&sum.Questions[0])
	if !reflect.DeepEqual(c.Labels, []string{"Red", "Green", "White"}) || !reflect.DeepEqual(c.Counts, []int64{3, 1, 2}) {
		t.Errorf("chart %q %v, want Red Green White: 3 1 2", c.Labels, c.Counts)
	}
	if !strings.Contains(c.Note, "4 respondents chose 6 in all") {
		t.Errorf("note %q", c.Note)
	}
	// One answer each: no note.
	one := NewSummary(s)
	one.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: PictureChoice, Answer: `["Green"]`}}})
	if c := (pictureChoice{}).Chart(&one.Questions[0]); c.Note != "" || !reflect.DeepEqual(c.Counts, []int64{0, 1, 0}) {
		t.Errorf("one answer: counts %v, note %q", c.Counts, c.Note)
	}
}

// TestPictureChoiceInLogic: a rule on a picture choice looks at its
// labels, as on a multiple choice's.
func TestPictureChoiceInLogic(t *testing.T) {
	s := &Survey{Tenant: "adatum", Title: "T", State: Published, Questions: []Question{
		{ID: "a", Text: "Colours?", Type: PictureChoice, Pictures: pics(), Multiple: true},
		{ID: "b", Text: "Why red?", Type: SimpleText, Optional: true, ShowIf: &Condition{Match: MatchAll, Rules: []Rule{{Question: "a", Op: "equals", Values: []string{"Red"}}}}},
		{ID: "c", Text: "Why not white?", Type: SimpleText, Optional: true, ShowIf: &Condition{Match: MatchAll, Rules: []Rule{{Question: "a", Op: "not_equals", Values: []string{"White"}}}}},
	}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sent []string
		b, c bool
	}{{[]string{"Red"}, true, true}, {[]string{"Red", "White"}, true, false}, {[]string{"Green"}, false, true}} {
		a, err := NewAnswer(s, map[string]Form{"a": {"": tc.sent}})
		if err != nil {
			t.Fatal(err)
		}
		given := map[string]QuestionAnswer{}
		for _, qa := range a.Answers {
			given[qa.QuestionID] = qa
		}
		if shown := s.Shown(given); shown["b"] != tc.b || shown["c"] != tc.c {
			t.Errorf("%q: shown b %v c %v, want %v %v", tc.sent, shown["b"], shown["c"], tc.b, tc.c)
		}
	}
}

// TestPictureChoiceTranslation: the alt texts are translated by their
// picture's label; those of labels gone are dropped; a long one refused.
func TestPictureChoiceTranslation(t *testing.T) {
	s := &Survey{Tenant: "adatum", Title: "T", State: Draft, Questions: []Question{{ID: "q1", Text: "Which?", Type: PictureChoice, Pictures: pics()}},
		Translations: map[string]Translation{"fr": {Questions: map[string]QuestionText{"q1": {
			Choices: map[string]string{"Red": "Rouge"},
			Alts:    map[string]string{"Red": " Une devanture peinte en rouge ", "Blue": "Bleu"},
		}}}}}
	s.Normalize()
	qt := s.Translations["fr"].Questions["q1"]
	if want := map[string]string{"Red": "Une devanture peinte en rouge"}; !reflect.DeepEqual(qt.Alts, want) {
		t.Errorf("alts %v, want %v", qt.Alts, want)
	}
	if got := qt.Alt("Red", "A shop front painted red"); got != "Une devanture peinte en rouge" {
		t.Errorf("Alt of Red = %q", got)
	}
	if got := qt.Alt("Green", "A shop front painted green"); got != "A shop front painted green" {
		t.Errorf("Alt of Green, untranslated = %q", got)
	}
	qt.Alts["Green"] = strings.Repeat("é", MaxAltLength+1)
	if p := s.TranslationProblems(Translation{Questions: map[string]QuestionText{"q1": qt}}); !strings.Contains(p["questions.q1.alts.1"], "250 characters") {
		t.Errorf("problems %v, want one of questions.q1.alts.1", p)
	}
}

func TestValidImageName(t *testing.T) {
	for name, want := range map[string]bool{
		"adatum-0a1b2c3d4e5f.png": true, "adatum-0a1b2c3d4e5f.jpg": true, "ada-x-0a1b2c3d4e5f.png": true,
		"adatum-0a1b2c3d4e5.png": false, "adatum-0A1B2C3D4E5F.png": false, "adatum_0a1b2c3d4e5f.png": false,
		"-0a1b2c3d4e5f.png": false, "0a1b2c3d4e5f.png": false, "adatum-0a1b2c3d4e5f.gif": false, "a/b-0a1b2c3d4e5f.png": false,
		"adatum-0a1b2c3d4e5g.png": false, "": false, "Adatum-0a1b2c3d4e5f.png": false,
	} {
		if got := ValidImageName(name); got != want {
			t.Errorf("ValidImageName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPictureChoiceQuotaAndFilter: a quota counts a picture's label, as a
// multiple choice's; a filter picks the answers that chose it.
func TestPictureChoiceQuotaAndFilter(t *testing.T) {
	s := &Survey{Tenant: "adatum", Title: "T", State: Published, Questions: []Question{
		{ID: "a", Text: "Colours?", Type: PictureChoice, Pictures: pics(), Multiple: true},
	}, Quotas: []Quota{{Name: "Reds", Limit: 10, If: Condition{Match: MatchAll, Rules: []Rule{{Question: "a", Op: OpEquals, Values: []string{"red"}}}}}}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := *s
	bad.Quotas = []Quota{{Name: "Blues", Limit: 10, If: Condition{Match: MatchAll, Rules: []Rule{{Question: "a", Op: OpEquals, Values: []string{"Blue"}}}}}}
	if p := bad.Problems(); !strings.Contains(p["quotas.0.if.rules.0.values"], "not one of the question's choices") {
		t.Errorf("a quota on a choice not offered: %v", p)
	}
	f, err := ParseAnswerFilter(s, map[string][]string{"q": {"a"}, "a": {"White"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sent        []string
		cells       []string
		filterPicks bool
	}{{[]string{"Red"}, []string{"Reds"}, false}, {[]string{"Green", "White"}, nil, true}, {[]string{"Red", "White"}, []string{"Reds"}, true}} {
		a, err := NewAnswer(s, map[string]Form{"a": {"": tc.sent}})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.QuotaCells(&a); !reflect.DeepEqual(got, tc.cells) {
			t.Errorf("%q: quota cells %q, want %q", tc.sent, got, tc.cells)
		}
		if got := f.Match(&a); got != tc.filterPicks {
			t.Errorf("%q: the filter on White picks it: %v", tc.sent, got)
		}
	}
}
