package survey

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// A cross-tabulation counts a survey's answers by two variables at once:
// a question whose kind sorts its answers into categories (a choice, a
// rating, yes or no …), a hidden field, the score or a variable (their
// values), or whether the answer is complete or partial.

// categorical is the trait of a kind whose answers fall into categories,
// so that a cross-tabulation can count them: each such kind says which in
// its own file (kind_*.go).
type categorical interface {
	// categories are q's categories for people, in order, and whether
	// one answer may fall into several (checkboxes).
	categories(q Question) (labels []string, multiple bool)
	// categoriesOf appends to dst the indexes in categories(q) of those
	// stored answer falls into (none for an answer none fits).
	categoriesOf(q Question, stored string, dst []int) []int
}

// Categories are the categories of q's answers, in order, and whether an
// answer may fall into several; ok is false when q's kind has none.
func Categories(q Question) (labels []string, multiple, ok bool) {
	k, known := KindOf(q.Type)
	c, isCat := k.(categorical)
	if !known || !isCat {
		return nil, false, false
	}
	labels, multiple = c.categories(q)
	return labels, multiple, true
}

// CategoriesOf appends to dst the indexes in Categories(q) of those answer
// qa falls into: none when it is not an answer to q as q now is (no
// answer, or one of another kind).
func CategoriesOf(q Question, qa QuestionAnswer, dst []int) []int {
	if qa.Answer == "" || qa.Type != q.Type {
		return dst
	}
	k, _ := KindOf(q.Type)
	if c, ok := k.(categorical); ok {
		return c.categoriesOf(q, qa.Answer, dst)
	}
	return dst
}

// choiceCategories are the categories of a question of choices: its
// choices, then Other when it has it.
func choiceCategories(q Question) []string {
	labels := slices.Clone(q.PossibleAnswers)
	if q.Other {
		labels = append(labels, OtherLabel)
	}
	return labels
}

// choiceCategory appends the index of stored choice v among
// choiceCategories(q): an Other text is Other.
func choiceCategory(q Question, v string, dst []int) []int {
	if len(v) > 0 && v[0] == OtherMark[0] {
		if q.Other {
			dst = append(dst, len(q.PossibleAnswers))
		}
		return dst
	}
	if i := slices.Index(q.PossibleAnswers, v); i >= 0 {
		dst = append(dst, i)
	}
	return dst
}

// pointCategories are the points low to high of a scale, its ends
// with their labels when it has them: "1 (Very hard)", "2", …
func pointCategories(low, high int, lowLabel, highLabel string) []string {
	out := make([]string, 0, high-low+1)
	for n := low; n <= high; n++ {
		l := strconv.Itoa(n)
		switch {
		case n == low && lowLabel != "":
			l += " (" + lowLabel + ")"
		case n == high && highLabel != "":
			l += " (" + highLabel + ")"
		}
		out = append(out, l)
	}
	return out
}

// pointCategory appends the index of stored point v of a scale from low
// to high.
func pointCategory(v string, low, high int, dst []int) []int {
	if n, err := strconv.Atoi(v); err == nil && n >= low && n <= high {
		dst = append(dst, n-low)
	}
	return dst
}

// Cross-tabulation variables that are not questions.
const (
	// StatusRef names the answer's status: complete or partial.
	StatusRef = "answer:status"
	// OtherValues labels the values of a hidden field or a variable past
	// the MaxCrossCategories-1 most common.
	OtherValues = "Other values"
	// MaxCrossCategories bounds the categories of a variable of values (a
	// hidden field's, a variable's) or of a single choice (a long
	// dropdown): the most common are kept, the others counted as
	// OtherValues in one more.
	MaxCrossCategories = 50
	// maxCrossValues bounds the distinct values counted apart while
	// counting, before the most common are kept: values first seen past
	// it are counted as OtherValues at once.
	maxCrossValues = 5000
)

// Status labels of StatusRef's categories.
const (
	StatusComplete = "Complete"
	StatusPartial  = "Partial"
)

// CrossVariable is one variable a cross-tabulation may count answers by.
type CrossVariable struct {
	// Ref names it in a query: a question's ID, HiddenRef, VarRef or
	// StatusRef.
	Ref string
	// Label names it for people: "3. Which product?", "Hidden field
	// “source”", "Score", "Complete or partial".
	Label string
	// Multiple: an answer may fall into several categories.
	Multiple bool

	q      Question
	fixed  []string // a question's or the status's categories; nil for values
	hidden string   // a hidden field's name
	varN   string   // a variable's name
	// seg is a saved segment's filter: its categories are in the segment
	// and not in it.
	seg *AnswerFilter
}

// SegmentRefPrefix begins the reference of a saved segment as a
// cross-tabulation variable: "segment:<id>".
const SegmentRefPrefix = "segment:"

// SegmentRef is the reference of the saved segment id as a variable.
func SegmentRef(id string) string { return SegmentRefPrefix + id }

// SegmentOfRef is the saved segment's id that ref names, and whether it
// names one.
func SegmentOfRef(ref string) (id string, ok bool) {
	return strings.CutPrefix(ref, SegmentRefPrefix)
}

// SegmentVariable is saved segment g of survey sv as a variable of a
// cross-tabulation: two categories, the answers its filter picks
// (In “name”) and the others (Not in “name”). They never overlap, so the
// chi-square test holds as for a question of one answer. An error when
// the segment's filter no longer reads on sv (a question it names is
// gone).
func SegmentVariable(sv *Survey, g *Segment) (CrossVariable, error) {
	f, err := g.Filter(sv)
	if err != nil {
		return CrossVariable{}, err
	}
	return CrossVariable{Ref: SegmentRef(g.ID), Label: "Segment “" + g.Name + "”",
		fixed: []string{"In “" + g.Name + "”", "Not in “" + g.Name + "”"}, seg: &f}, nil
}

// CountsPartial reports whether counting by v counts partial answers
// too: by their status, or by a segment that picks complete or partial
// answers (its categories would be one empty and one full of the
// complete answers else).
func (v CrossVariable) CountsPartial() bool {
	return v.Ref == StatusRef || v.seg != nil && v.seg.Status != ""
}

// Values reports whether the variable's categories are the values the
// answers carry (a hidden field's, a variable's), found while counting.
func (v CrossVariable) Values() bool { return v.fixed == nil }

// CrossVariables are the variables of s a cross-tabulation may count its
// answers by, in order: its questions of a categorical kind, its hidden
// fields, its score and variables, and, when it keeps partial answers,
// their status.
func (s *Survey) CrossVariables() []CrossVariable {
	var out []CrossVariable
	for i, q := range s.Questions {
		if labels, multiple, ok := Categories(q); ok && len(labels) > 0 {
			out = append(out, CrossVariable{Ref: q.ID, Label: strconv.Itoa(i+1) + ". " + q.Text, Multiple: multiple, q: q, fixed: labels})
		}
	}
	for _, n := range s.HiddenFields {
		out = append(out, CrossVariable{Ref: HiddenRef(n), Label: "Hidden field “" + n + "”", hidden: n})
	}
	for _, n := range s.VarNames() {
		l := "Variable “" + n + "”"
		if n == ScoreName {
			l = "Score"
		}
		out = append(out, CrossVariable{Ref: VarRef(n), Label: l, varN: n})
	}
	if s.KeepPartial > 0 {
		out = append(out, statusVariable())
	}
	return out
}

func statusVariable() CrossVariable {
	return CrossVariable{Ref: StatusRef, Label: "Complete or partial", fixed: []string{StatusComplete, StatusPartial}}
}

// CrossVariable is the variable ref names among s's CrossVariables (the
// status whether or not s keeps partial answers); false when none.
func (s *Survey) CrossVariable(ref string) (CrossVariable, bool) {
	if ref == StatusRef {
		return statusVariable(), true
	}
	for _, v := range s.CrossVariables() {
		if v.Ref == ref {
			return v, true
		}
	}
	return CrossVariable{}, false
}

// CrossCounter counts answers into a cross-tabulation of two variables.
// It holds the counts of the pairs of categories met, bounded by the
// categories (maxCrossValues for a variable of values), not by the
// answers.
type CrossCounter struct {
	row, col     CrossVariable
	rowV, colV   valueIndex
	cells        map[[2]int]int64
	rowN, colN   map[int]int64
	n            int64
	rowIx, colIx []int // scratch
}

// valueIndex numbers the values of a variable of values as they come,
// maxCrossValues of them; the others are one more index, overflow.
type valueIndex struct {
	index  map[string]int
	labels []string
}

const overflow = maxCrossValues

func (vi *valueIndex) of(v string) int {
	if i, ok := vi.index[v]; ok {
		return i
	}
	if len(vi.labels) >= maxCrossValues {
		return overflow
	}
	if vi.index == nil {
		vi.index = map[string]int{}
	}
	vi.index[v] = len(vi.labels)
	vi.labels = append(vi.labels, v)
	return len(vi.labels) - 1
}

// NewCrossCounter counts answers by row and col.
func NewCrossCounter(row, col CrossVariable) *CrossCounter {
	return &CrossCounter{row: row, col: col, cells: map[[2]int]int64{}, rowN: map[int]int64{}, colN: map[int]int64{}}
}

// categoriesOf appends the indexes of the categories of v that a falls
// into.
func categoriesOf(v CrossVariable, vi *valueIndex, a *SurveyAnswer, dst []int) []int {
	switch {
	case v.Ref == StatusRef:
		if a.Partial {
			return append(dst, 1)
		}
		return append(dst, 0)
	case v.seg != nil:
		if v.seg.Match(a) {
			return append(dst, 0)
		}
		return append(dst, 1)
	case v.hidden != "":
		if s := a.Hidden[v.hidden]; s != "" {
			dst = append(dst, vi.of(s))
		}
		return dst
	case v.varN != "":
		if s := a.Values[v.varN]; s != "" {
			dst = append(dst, vi.of(s))
		}
		return dst
	}
	qa, _ := a.Answer(v.Ref)
	return CategoriesOf(v.q, qa, dst)
}

// Add counts answer a: once in each pair of its categories, once in each
// of its categories' totals and once in the whole, when it falls into a
// category of both variables; not at all otherwise.
func (c *CrossCounter) Add(a *SurveyAnswer) {
	c.rowIx = categoriesOf(c.row, &c.rowV, a, c.rowIx[:0])
	if len(c.rowIx) == 0 {
		return
	}
	c.colIx = categoriesOf(c.col, &c.colV, a, c.colIx[:0])
	if len(c.colIx) == 0 {
		return
	}
	c.n++
	for _, i := range c.rowIx {
		c.rowN[i]++
		for _, j := range c.colIx {
			c.cells[[2]int{i, j}]++
		}
	}
	for _, j := range c.colIx {
		c.colN[j]++
	}
}

// CrossTable is a cross-tabulation: the answers counted by the categories
// of two variables, with its test of independence.
type CrossTable struct {
	Row, Col CrossVariable
	// Rows and Cols are the categories' labels.
	Rows, Cols []string
	// Counts[i][j] counts the answers in row i and column j.
	Counts [][]int64
	// RowTotals and ColTotals count the answers in each row and column,
	// each answer once: with a variable of several categories per
	// answer, a row's counts add up to more than its total.
	RowTotals, ColTotals []int64
	// Total counts the answers in the table, each once.
	Total int64
	// Test is the chi-square test of independence of Counts.
	Test ChiSquare
}

// Table is the cross-tabulation of the answers counted so far. A
// question's categories are all shown, in its order (but for a single
// choice of more than MaxCrossCategories: the most common are kept and
// the rest counted as OtherValues); the values of a hidden field or a
// variable are the MaxCrossCategories-1 most common, most common first,
// and OtherValues.
func (c *CrossCounter) Table() *CrossTable {
	t := &CrossTable{Row: c.row, Col: c.col, Total: c.n}
	var rowMap, colMap map[int]int
	t.Rows, t.RowTotals, rowMap = keepCategories(c.row, &c.rowV, c.rowN)
	t.Cols, t.ColTotals, colMap = keepCategories(c.col, &c.colV, c.colN)
	t.Counts = make([][]int64, len(t.Rows))
	for i := range t.Counts {
		t.Counts[i] = make([]int64, len(t.Cols))
	}
	for k, n := range c.cells {
		t.Counts[rowMap[k[0]]][colMap[k[1]]] += n
	}
	t.Test = ChiSquareTest(t.Counts)
	return t
}

// keepCategories are the labels of v's categories shown, their totals,
// and where each index counted (overflow included) goes among them.
func keepCategories(v CrossVariable, vi *valueIndex, totals map[int]int64) (labels []string, kept []int64, to map[int]int) {
	all := v.fixed
	if v.Values() {
		all = vi.labels
	}
	order := make([]int, 0, len(all))
	for i := range all {
		order = append(order, i)
	}
	if v.Values() {
		order = slices.DeleteFunc(order, func(i int) bool { return totals[i] == 0 })
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Or(cmp.Compare(totals[b], totals[a]), cmp.Compare(all[a], all[b]))
		})
	}
	fold := totals[overflow] > 0 || len(order) > MaxCrossCategories && !v.Multiple
	if fold && len(order) > MaxCrossCategories-1 {
		// The most common, in their order.
		top := slices.Clone(order)
		slices.SortStableFunc(top, func(a, b int) int { return cmp.Compare(totals[b], totals[a]) })
		keep := map[int]bool{}
		for _, i := range top[:MaxCrossCategories-1] {
			keep[i] = true
		}
		order = slices.DeleteFunc(order, func(i int) bool { return !keep[i] })
	}
	to = make(map[int]int, len(order)+1)
	for k, i := range order {
		to[i] = k
		labels = append(labels, all[i])
		kept = append(kept, totals[i])
	}
	if fold {
		var rest int64
		for i, n := range totals {
			if _, ok := to[i]; !ok {
				rest += n
				to[i] = len(order)
			}
		}
		labels = append(labels, OtherValues)
		kept = append(kept, rest)
	}
	return labels, kept, to
}
