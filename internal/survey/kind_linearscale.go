package survey

import (
	"math/big"
	"sort"
	"strconv"
	"unicode/utf8"
)

// LinearScale is a whole number from 1 to the question's Scale (2 to 10,
// 5 when unset), with optional labels for both ends; stored as "1" to
// "10". Its summary counts each point of the scale (Choices "1" to
// Scale, in order), from which the mean is exact.
const LinearScale QuestionType = "LinearScale"

// Bounds of a linear scale.
const (
	MinScale          = 2
	MaxScale          = 10
	DefaultScale      = 5
	MaxScaleLabelSize = 60
)

type linearScale struct{}

func (linearScale) Type() QuestionType { return LinearScale }
func (linearScale) Key() string        { return "linearscale" }
func (linearScale) Label() string      { return "Linear scale" }
func (linearScale) Settings() Settings { return Settings{Scale: true, ScaleLabels: true} }

func (linearScale) normalize(q *Question) {
	if q.Scale == 0 {
		q.Scale = DefaultScale
	}
}

func (linearScale) validate(q Question, key string, f fieldErrors) {
	if q.Scale < MinScale || q.Scale > MaxScale {
		f.add(key+".scale", "A scale goes from 1 to a number from %d to %d.", MinScale, MaxScale)
	}
	validateScaleLabels(q, key, f)
}

// validateScaleLabels checks the labels of a scale's ends.
func validateScaleLabels(q Question, key string, f fieldErrors) {
	for _, l := range []string{q.LowLabel, q.HighLabel} {
		switch {
		case utf8.RuneCountInString(l) > MaxScaleLabelSize:
			f.add(key+".labels", "Keep the labels of the scale's ends to %d characters each.", MaxScaleLabelSize)
		case !IsCleanLine(l):
			f.add(key+".labels", "A label may not contain control characters or direction overrides.")
		}
	}
}

// scaleTop is the top of q's scale: its Scale, or the default when it has
// none (a question known from its answers alone).
func scaleTop(q Question) int {
	if q.Scale >= MinScale && q.Scale <= MaxScale {
		return q.Scale
	}
	return DefaultScale
}

func (linearScale) required() Msg { return M("Please choose a number on the scale.") }

func (linearScale) answer(q Question, f Form) (string, Msg) {
	return scalePoint(f.Get(""), 1, scaleTop(q))
}

// scalePoint checks a point of a scale from low to high: the stored
// answer, or a problem.
func scalePoint(v string, low, high int) (string, Msg) {
	if v == "" {
		return "", Msg{}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < low || n > high {
		return "", M("Please choose a whole number from %d to %d.", low, high)
	}
	return strconv.Itoa(n), Msg{}
}

func (linearScale) form(_ Question, stored string) Form { return Value(stored) }

func (linearScale) newSummary(q Question, qs *QuestionAnswersSummary) {
	qs.Choices = scaleChoices(1, scaleTop(q))
}

// scaleChoices are the empty counts of the points low to high.
func scaleChoices(low, high int) []ChoiceCount {
	cs := make([]ChoiceCount, 0, high-low+1)
	for n := low; n <= high; n++ {
		cs = append(cs, ChoiceCount{Answer: strconv.Itoa(n)})
	}
	return cs
}

func (linearScale) add(qs *QuestionAnswersSummary, answer string) {
	if _, err := strconv.Atoi(answer); err == nil {
		qs.Choices = addChoice(qs.Choices, answer)
	}
}

// Chart: the count of each point, in the scale's order, and the mean and
// median (exact, from the counts).
func (linearScale) Chart(qs *QuestionAnswersSummary) Chart {
	c, count, sum := scaleChart(qs)
	if count > 0 {
		c.Average, c.Averaged = float64(sum)/float64(count), true
		c.Figures = meanMedian(c, count, sum)
	}
	return c
}

// meanMedian are the figures "Mean" (to two decimals at most) and
// "Median" of count answers summing to sum, counted by point (points:
// whole numbers in increasing order, as scaleChart gives them).
func meanMedian(points Chart, count, sum int64) []Figure {
	if count == 0 {
		return nil
	}
	return []Figure{
		{M("Mean").String(), roundRat(big.NewRat(sum, count), 2)},
		{M("Median").String(), median(points, count)},
	}
}

// median is the median of count answers counted by point (points: whole
// numbers in increasing order): the middle one, or the mean of the
// middle two.
func median(points Chart, count int64) string {
	at := func(k int64) int64 { // the k-th answer's value, from 0
		for i, n := range points.Counts {
			if k < n {
				v, _ := strconv.ParseInt(points.Labels[i], 10, 64)
				return v
			}
			k -= n
		}
		return 0
	}
	lo, hi := at((count-1)/2), at(count/2)
	return roundRat(big.NewRat(lo+hi, 2), 1)
}

// scaleChart is a bar per point of a scale, ordered by number, and the
// exact count and sum of the answers.
func scaleChart(qs *QuestionAnswersSummary) (c Chart, count, sum int64) {
	type point struct {
		n     int
		count int64
	}
	var points []point
	for _, cc := range qs.Choices {
		if n, err := strconv.Atoi(cc.Answer); err == nil {
			points = append(points, point{n, cc.Count})
		}
	}
	sort.SliceStable(points, func(i, j int) bool { return points[i].n < points[j].n })
	c.Labels, c.Counts = []string{}, []int64{}
	for _, p := range points {
		c.Labels, c.Counts = append(c.Labels, strconv.Itoa(p.n)), append(c.Counts, p.count)
		count += p.count
		sum += int64(p.n) * p.count
	}
	return c, count, sum
}

func (linearScale) Columns(Question) []string { return []string{""} }

// CellTypes: the point, a number.
func (linearScale) CellTypes(Question) []CellType { return []CellType{CellNumber} }

func (linearScale) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is the point as a number.
func (linearScale) Value(_ Question, qa QuestionAnswer) any { return intValue(qa.Answer) }

// SQLRows: the point in the numeric column.
func (linearScale) SQLRows(_ Question, qa QuestionAnswer) []SQLRow { return scaleSQLRows(qa) }

func scaleSQLRows(qa QuestionAnswer) []SQLRow {
	row := SQLRow{Text: qa.Answer}
	if intValue(qa.Answer) != nil {
		row.Number = qa.Answer
	}
	return []SQLRow{row}
}

// picks: the scale's points.
func (linearScale) picks(q Question) []string { return points(1, max(q.Scale, 2)) }

// StatVars: the point, a number, its ends named by the scale's labels.
func (linearScale) StatVars(q Question) []StatVar {
	return []StatVar{{Type: CellNumber, Values: scaleValues(1, q.Scale, q.LowLabel, q.HighLabel), Scale: true}}
}

// StatCells: the point.
func (linearScale) StatCells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// categories: the points of the scale, its ends with their labels.
func (linearScale) categories(q Question) ([]string, bool) {
	return pointCategories(1, scaleTop(q), q.LowLabel, q.HighLabel), false
}

func (linearScale) categoriesOf(q Question, stored string, dst []int) []int {
	return pointCategory(stored, 1, scaleTop(q), dst)
}
