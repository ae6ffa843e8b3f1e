package survey

import (
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

// Chart: a bar per point, in the scale's order, and the mean.
func (linearScale) Chart(qs *QuestionAnswersSummary) Chart {
	c, count, sum := scaleChart(qs)
	if count > 0 {
		c.Average, c.Averaged = float64(sum)/float64(count), true
	}
	return c
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

// categories: the points of the scale, its ends with their labels.
func (linearScale) categories(q Question) ([]string, bool) {
	return pointCategories(1, scaleTop(q), q.LowLabel, q.HighLabel), false
}

func (linearScale) categoriesOf(q Question, stored string, dst []int) []int {
	return pointCategory(stored, 1, scaleTop(q), dst)
}
