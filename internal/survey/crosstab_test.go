package survey

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestCategories: each categorical kind's categories, and those a stored
// answer falls into, as a person reads them.
func TestCategories(t *testing.T) {
	mc := Question{ID: "mc", Type: MultipleChoice, PossibleAnswers: []string{"Web", "App"}, Other: true}
	cb := Question{ID: "cb", Type: Checkboxes, PossibleAnswers: []string{"Reports", "Alerts", "Offline"}, Other: true}
	tests := []struct {
		q        Question
		labels   []string
		multiple bool
		stored   string
		in       []int
	}{
		{mc, []string{"Web", "App", "Other"}, false, "App", []int{1}},
		{mc, []string{"Web", "App", "Other"}, false, OtherMark + "Fax", []int{2}},
		{mc, []string{"Web", "App", "Other"}, false, "Gone choice", nil},
		{Question{Type: MultipleChoice, PossibleAnswers: []string{"A", "B"}}, []string{"A", "B"}, false, OtherMark + "x", nil},
		{cb, []string{"Reports", "Alerts", "Offline", "Other"}, true, `["Reports","Offline","\u001fMate"]`, []int{0, 2, 3}},
		{cb, []string{"Reports", "Alerts", "Offline", "Other"}, true, `not json`, nil},
		{Question{Type: Dropdown, PossibleAnswers: []string{"France", "Spain"}}, []string{"France", "Spain"}, false, "Spain", []int{1}},
		{Question{Type: YesNo}, []string{"Yes", "No"}, false, "No", []int{1}},
		{Question{Type: PictureChoice, PossibleAnswers: []string{"Dark", "Light"}}, []string{"Dark", "Light"}, false, `["Light"]`, []int{1}},
		{Question{Type: PictureChoice, PossibleAnswers: []string{"Dark", "Light"}, Multiple: true}, []string{"Dark", "Light"}, true, `["Dark","Light"]`, []int{0, 1}},
		{Question{Type: LinearScale, Scale: 4, LowLabel: "Hard", HighLabel: "Easy"}, []string{"1 (Hard)", "2", "3", "4 (Easy)"}, false, "4", []int{3}},
		{Question{Type: LinearScale, Scale: 4}, []string{"1", "2", "3", "4"}, false, "5", nil},
		{Question{Type: FiveStars}, []string{"1 star", "2 stars", "3 stars", "4 stars", "5 stars"}, false, "2", []int{1}},
		{Question{Type: NetPromoterScore}, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, false, "0", []int{0}},
		{Question{Type: NetPromoterScore, LowLabel: "No", HighLabel: "Yes"}, []string{"0 (No)", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10 (Yes)"}, false, "10", []int{10}},
	}
	for _, tc := range tests {
		labels, multiple, ok := Categories(tc.q)
		in := CategoriesOf(tc.q, QuestionAnswer{Type: tc.q.Type, Answer: tc.stored}, nil)
		if !ok || !slices.Equal(labels, tc.labels) || multiple != tc.multiple || !slices.Equal(in, tc.in) {
			t.Errorf("%s %q: %q (multiple %v, %v), in %v; want %q (multiple %v), in %v", tc.q.Type, tc.stored, labels, multiple, ok, in, tc.labels, tc.multiple, tc.in)
		}
	}
	// Kinds without categories, and an answer of another kind.
	for _, q := range []Question{{Type: SimpleText}, {Type: Number}, {Type: Matrix}, {Type: Ranking}, {Type: Date}, {Type: QuestionType("Nope")}} {
		if _, _, ok := Categories(q); ok {
			t.Errorf("%s has categories", q.Type)
		}
	}
	if in := CategoriesOf(Question{Type: YesNo}, QuestionAnswer{Type: Dropdown, Answer: "Yes"}, nil); len(in) != 0 {
		t.Errorf("an answer of another kind falls into %v", in)
	}
}

// crossSurvey asks a multiple choice and checkboxes, carries a hidden
// field and keeps partial answers.
func crossSurvey() *Survey {
	return &Survey{Tenant: "adatum", Slug: "x", KeepPartial: 1, HiddenFields: []string{"source"}, Questions: []Question{
		{ID: "q1", Text: "Which device?", Type: MultipleChoice, PossibleAnswers: []string{"Phone", "Laptop"}},
		{ID: "q2", Text: "What do you use?", Type: Checkboxes, PossibleAnswers: []string{"Mail", "Chat", "Files"}},
		{ID: "q3", Text: "Anything else?", Type: SimpleText},
	}}
}

// crossAnswer is an answer to crossSurvey: its device, the boxes checked
// and its source.
func crossAnswer(device string, boxes []string, source string, partial bool) *SurveyAnswer {
	a := &SurveyAnswer{Partial: partial}
	if device != "" {
		a.Answers = append(a.Answers, QuestionAnswer{QuestionID: "q1", Type: MultipleChoice, Answer: device})
	}
	if boxes != nil {
		a.Answers = append(a.Answers, QuestionAnswer{QuestionID: "q2", Type: Checkboxes, Answer: encodeJSON(boxes)})
	}
	if source != "" {
		a.Hidden = map[string]string{"source": source}
	}
	return a
}

func TestCrossVariables(t *testing.T) {
	sv := crossSurvey()
	var refs, labels []string
	for _, v := range sv.CrossVariables() {
		refs, labels = append(refs, v.Ref), append(labels, v.Label)
	}
	if want := []string{"q1", "q2", "hidden:source", StatusRef}; !slices.Equal(refs, want) {
		t.Errorf("refs %q, want %q", refs, want)
	}
	if want := []string{"1. Which device?", "2. What do you use?", "Hidden field “source”", "Complete or partial"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	for _, ref := range []string{"q3", "hidden:nope", "var:score", "", "q9"} {
		if _, ok := sv.CrossVariable(ref); ok {
			t.Errorf("%q is a variable", ref)
		}
	}
	sv.KeepPartial = 0
	if _, ok := sv.CrossVariable(StatusRef); !ok {
		t.Error("the status is no variable of a survey that keeps no partial answers")
	}
}

// TestCrossTable counts known answers and checks every figure against the
// table worked out by hand.
func TestCrossTable(t *testing.T) {
	sv := crossSurvey()
	v := func(ref string) CrossVariable {
		x, ok := sv.CrossVariable(ref)
		if !ok {
			t.Fatalf("no variable %q", ref)
		}
		return x
	}
	answers := []*SurveyAnswer{
		crossAnswer("Phone", []string{"Mail", "Chat"}, "mail", false),
		crossAnswer("Phone", []string{"Chat"}, "ad", false),
		crossAnswer("Laptop", []string{"Mail", "Chat", "Files"}, "mail", false),
		crossAnswer("Laptop", []string{"Files"}, "", false),
		crossAnswer("Laptop", nil, "mail", false),     // no boxes: out of q1 × q2
		crossAnswer("", []string{"Mail"}, "ad", true), // no device: out of q1 × anything
		crossAnswer("Phone", nil, "", true),
	}
	count := func(row, col string) *CrossTable {
		c := NewCrossCounter(v(row), v(col))
		for _, a := range answers {
			c.Add(a)
		}
		return c.Table()
	}

	// Device × boxes: several boxes per answer.
	tb := count("q1", "q2")
	if !slices.Equal(tb.Rows, []string{"Phone", "Laptop"}) || !slices.Equal(tb.Cols, []string{"Mail", "Chat", "Files"}) || !tb.Col.Multiple || tb.Row.Multiple {
		t.Fatalf("categories %q × %q", tb.Rows, tb.Cols)
	}
	wantCounts := [][]int64{{1, 2, 0}, {1, 1, 2}}
	if fmt.Sprint(tb.Counts) != fmt.Sprint(wantCounts) || !slices.Equal(tb.RowTotals, []int64{2, 2}) || !slices.Equal(tb.ColTotals, []int64{2, 3, 2}) || tb.Total != 4 {
		t.Errorf("counts %v, rows %v, columns %v, total %d; want %v, [2 2], [2 3 2], 4", tb.Counts, tb.RowTotals, tb.ColTotals, tb.Total, wantCounts)
	}
	// The test counts the choices: R's chisq.test(matrix(c(1,2,0,1,1,2), 2, byrow=TRUE), correct=FALSE).
	if tb.Test.DF != 2 || math.Abs(tb.Test.Statistic-2.23611111111111116) > 1e-9 || math.Abs(tb.Test.P-0.32691484476680421) > 1e-9 || tb.Test.Low != 6 {
		t.Errorf("test %+v", tb.Test)
	}

	// Boxes × status: the partial answer with boxes only counts here.
	tb = count("q2", StatusRef)
	if !slices.Equal(tb.Cols, []string{"Complete", "Partial"}) || fmt.Sprint(tb.Counts) != "[[2 1] [3 0] [2 0]]" || !slices.Equal(tb.ColTotals, []int64{4, 1}) || !slices.Equal(tb.RowTotals, []int64{3, 3, 2}) || tb.Total != 5 {
		t.Errorf("boxes × status: %q %v %v %v %d", tb.Cols, tb.Counts, tb.RowTotals, tb.ColTotals, tb.Total)
	}

	// Source (values, most common first) × device.
	tb = count("hidden:source", "q1")
	if !slices.Equal(tb.Rows, []string{"mail", "ad"}) || fmt.Sprint(tb.Counts) != "[[1 2] [1 0]]" || tb.Total != 4 {
		t.Errorf("source × device: %q %v %d", tb.Rows, tb.Counts, tb.Total)
	}
}

// TestCrossTableBounded: a hidden field of many values shows the most
// common MaxCrossCategories-1 and "Other values"; values past
// maxCrossValues go there at once; the counts stay whole.
func TestCrossTableBounded(t *testing.T) {
	sv := crossSurvey()
	row, _ := sv.CrossVariable("hidden:source")
	col, _ := sv.CrossVariable("q1")
	c := NewCrossCounter(row, col)
	// Value v0 is given 3 times, v1 to v59 twice, then maxCrossValues
	// values once each.
	add := func(v string, n int) {
		for range n {
			c.Add(crossAnswer("Phone", nil, v, false))
		}
	}
	add("v0", 3)
	for i := 1; i < 60; i++ {
		add(fmt.Sprintf("v%02d", i), 2)
	}
	for i := range maxCrossValues {
		add(fmt.Sprintf("once-%d", i), 1)
	}
	tb := c.Table()
	n := 3 + 59*2 + maxCrossValues
	if len(tb.Rows) != MaxCrossCategories || tb.Rows[0] != "v0" || tb.Rows[1] != "v01" || tb.Rows[48] != "v48" || tb.Rows[49] != OtherValues {
		t.Fatalf("%d rows: %q", len(tb.Rows), tb.Rows)
	}
	var sum int64
	for i, r := range tb.Counts {
		sum += r[0]
		if r[0] != tb.RowTotals[i] {
			t.Errorf("row %q: %d, total %d", tb.Rows[i], r[0], tb.RowTotals[i])
		}
	}
	if want := int64(n - 3 - 48*2); tb.RowTotals[49] != want || sum != int64(n) || tb.Total != int64(n) {
		t.Errorf("other values %d (want %d), sum %d, total %d (want %d)", tb.RowTotals[49], want, sum, tb.Total, n)
	}
	if len(c.rowV.labels) != maxCrossValues {
		t.Errorf("%d values counted apart, want %d", len(c.rowV.labels), maxCrossValues)
	}
}

// TestCrossTableSegment: a saved segment as a variable has two
// categories, in it and not in it, which every answer falls into one of;
// each table is checked against the answers counted by hand.
func TestCrossTableSegment(t *testing.T) {
	sv := crossSurvey()
	answers := []*SurveyAnswer{
		crossAnswer("Phone", []string{"Mail", "Chat"}, "mail", false),           // 1
		crossAnswer("Phone", []string{"Chat"}, "ad", false),                     // 2
		crossAnswer("Laptop", []string{"Mail", "Chat", "Files"}, "mail", false), // 3
		crossAnswer("Laptop", []string{"Files"}, "", false),                     // 4
		crossAnswer("Laptop", nil, "mail", false),                               // 5
		crossAnswer("", []string{"Mail"}, "ad", true),                           // 6
		crossAnswer("Phone", nil, "", true),                                     // 7
	}
	seg := func(id, name, query string) CrossVariable {
		v, err := SegmentVariable(sv, &Segment{Tenant: sv.Tenant, Slug: sv.Slug, ID: id, Name: name, Query: query})
		if err != nil {
			t.Fatalf("segment %s: %v", query, err)
		}
		return v
	}
	q := func(ref string) CrossVariable {
		v, ok := sv.CrossVariable(ref)
		if !ok {
			t.Fatalf("no variable %q", ref)
		}
		return v
	}
	mail := seg("s1", "From mail", "q=hidden%3Asource&a=mail")
	chat := seg("s2", "Chat users", "c=q2%3DChat")
	partial := seg("s3", "Unfinished", "status=partial")
	for _, tc := range []struct {
		name       string
		row, col   CrossVariable
		rows, cols []string
		counts     string
		rowT, colT []int64
		total      int64
		stat, p    float64 // R's chisq.test(…, correct=FALSE); stat 0: no test
		partialToo bool
	}{
		// In: 1, 3, 5; not in: 2, 4, 7 (6 has no device).
		{"segment × device", mail, q("q1"), []string{"In “From mail”", "Not in “From mail”"}, []string{"Phone", "Laptop"},
			"[[1 2] [2 1]]", []int64{3, 3}, []int64{3, 3}, 6, 0.6666666666666666, 0.41421617824252516, false},
		// In: 1, 2, 3; not in: 4, 5, 7.
		{"a picked checkbox × device", chat, q("q1"), []string{"In “Chat users”", "Not in “Chat users”"}, []string{"Phone", "Laptop"},
			"[[2 1] [1 2]]", []int64{3, 3}, []int64{3, 3}, 6, 0.6666666666666666, 0.41421617824252516, false},
		// Answers with boxes: 1, 2, 3, 4 complete, 6 partial (Mail).
		{"boxes × a segment of the status", q("q2"), partial, []string{"Mail", "Chat", "Files"}, []string{"In “Unfinished”", "Not in “Unfinished”"},
			"[[1 2] [0 3] [0 2]]", []int64{3, 3, 2}, []int64{1, 4}, 5, 0, 0, true},
		// Every answer: in both 1, 3; mail only 5; chat only 2; neither 4, 6, 7.
		{"segment × segment", mail, chat, []string{"In “From mail”", "Not in “From mail”"}, []string{"In “Chat users”", "Not in “Chat users”"},
			"[[2 1] [1 3]]", []int64{3, 4}, []int64{3, 4}, 7, 1.2152777777777777, 0.2702893848016987, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCrossCounter(tc.row, tc.col)
			for _, a := range answers {
				c.Add(a)
			}
			tb := c.Table()
			if !slices.Equal(tb.Rows, tc.rows) || !slices.Equal(tb.Cols, tc.cols) || fmt.Sprint(tb.Counts) != tc.counts ||
				!slices.Equal(tb.RowTotals, tc.rowT) || !slices.Equal(tb.ColTotals, tc.colT) || tb.Total != tc.total {
				t.Errorf("%q × %q: %v, rows %v, columns %v, total %d", tb.Rows, tb.Cols, tb.Counts, tb.RowTotals, tb.ColTotals, tb.Total)
			}
			if tc.stat > 0 && (!tb.Test.Valid || tb.Test.DF != 1 || math.Abs(tb.Test.Statistic-tc.stat) > 1e-9 || math.Abs(tb.Test.P-tc.p) > 1e-9) {
				t.Errorf("test %+v, want %v, p %v", tb.Test, tc.stat, tc.p)
			}
			if got := tc.row.CountsPartial() || tc.col.CountsPartial(); got != tc.partialToo {
				t.Errorf("counts partial answers: %v", got)
			}
		})
	}
	if mail.Ref != "segment:s1" || mail.Label != "Segment “From mail”" || mail.Multiple {
		t.Errorf("variable %+v", mail)
	}
	if id, ok := SegmentOfRef(mail.Ref); !ok || id != "s1" {
		t.Errorf("SegmentOfRef = %q %v", id, ok)
	}
	// A segment whose question is gone no longer reads.
	if _, err := SegmentVariable(sv, &Segment{Name: "Gone", Query: "c=q9%3DYes"}); ErrorCode(err) != EINVALID {
		t.Errorf("a segment of a question gone: %v", err)
	}
}
