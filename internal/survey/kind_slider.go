package survey

import (
	"strconv"
	"strings"
)

// Slider is the type of a question answered by moving a slider.
const Slider QuestionType = "Slider"

// Bounds of a slider: whole numbers of at most MaxSliderValue either side
// of zero, and at most MaxSliderPositions positions from Min to Max.
const (
	MaxSliderValue     = 1000000
	MaxSliderPositions = 201
	DefaultSliderMin   = 0
	DefaultSliderMax   = 100
	DefaultSliderStep  = 1
	// sliderBars is the most bars a slider's chart shows: more positions
	// are counted in bars of several.
	sliderBars = 20
)

// slider is a whole number from Min to Max (0 and 100 when unset) in
// steps of Step (1 when unset), with optional labels of both ends; stored
// as the number ("35"). Its summary counts each position (Choices, every
// position from Min to Max in order), from which the mean and the median
// are exact.
//
// The input is a native range (keyboard operable: arrows, Page Up/Down,
// Home/End), which always holds a value: left untouched, it would send its
// starting position as an answer nobody gave. So the range is not the
// answer on its own: beside it is a tick box, "I have set the slider to my
// answer", which sends the range's value when ticked; unticked, nothing is
// sent, without JavaScript. (With JavaScript, pages.js ticks it as soon as
// the slider moves and shows the value.) Its fields: q-<ID>-slider the
// range, q-<ID>-set the box. An API client sends the number itself in the
// question's own field (q-<ID>), which wins.
type slider struct{}

func (slider) Type() QuestionType { return Slider }
func (slider) Key() string        { return "slider" }
func (slider) Label() string      { return "Slider" }
func (slider) Settings() Settings {
	return Settings{Bounds: "number", Step: true, ScaleLabels: true}
}

// normalize writes the bounds and the step as plain whole numbers when
// they are ("+05" is "5"), and gives the defaults to those unset.
func (slider) normalize(q *Question) {
	for _, b := range []struct {
		v   *string
		def int
	}{{&q.Min, DefaultSliderMin}, {&q.Max, DefaultSliderMax}, {&q.Step, DefaultSliderStep}} {
		*b.v = strings.TrimSpace(CleanLine(*b.v))
		if *b.v == "" {
			*b.v = strconv.Itoa(b.def)
		} else if n, ok := sliderNumber(*b.v); ok {
			*b.v = strconv.Itoa(n)
		}
	}
}

// sliderNumber reads a whole number of at most MaxSliderValue either side
// of zero.
func sliderNumber(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < -MaxSliderValue || n > MaxSliderValue {
		return 0, false
	}
	return n, true
}

func (slider) validate(q Question, key string, f fieldErrors) {
	min, okMin := sliderNumber(q.Min)
	max, okMax := sliderNumber(q.Max)
	step, okStep := sliderNumber(q.Step)
	if !okMin {
		f.add(key+".min", "Give the smallest value as a whole number from -%d to %d.", MaxSliderValue, MaxSliderValue)
	}
	if !okMax {
		f.add(key+".max", "Give the largest value as a whole number from -%d to %d.", MaxSliderValue, MaxSliderValue)
	}
	if !okStep || step < 1 {
		f.add(key+".step", "Give the step as a whole number of at least 1.")
		okStep = false
	}
	validateScaleLabels(q, key, f)
	if !okMin || !okMax || !okStep {
		return
	}
	switch {
	case max <= min:
		f.add(key+".max", "The largest value must be above the smallest (%d).", min)
	case (max-min)%step != 0:
		f.add(key+".step", "From %d to %d is not a whole number of steps of %d: change the step or the bounds.", min, max, step)
	case (max-min)/step+1 > MaxSliderPositions:
		f.add(key+".step", "A slider has at most %d positions: from %d to %d in steps of %d makes %d. Take a larger step.", MaxSliderPositions, min, max, step, (max-min)/step+1)
	}
}

// sliderRange is q's bounds and step, or the defaults when they are not
// valid (a question known from its answers alone).
func sliderRange(q Question) (min, max, step int) {
	min, ok1 := sliderNumber(q.Min)
	max, ok2 := sliderNumber(q.Max)
	step, ok3 := sliderNumber(q.Step)
	if !ok1 || !ok2 || !ok3 || step < 1 || max <= min || (max-min)%step != 0 || (max-min)/step+1 > MaxSliderPositions {
		return DefaultSliderMin, DefaultSliderMax, DefaultSliderStep
	}
	return min, max, step
}

func (slider) required() Msg {
	return M("Please set the slider to your answer and tick the box under it.")
}

func (slider) answer(q Question, f Form) (string, Msg) {
	v := f.Get("")
	if v == "" && f.Get("set") != "" {
		v = f.Get("slider")
	}
	if v == "" {
		return "", Msg{}
	}
	min, max, step := sliderRange(q)
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < min || n > max:
		return "", M("Please choose a whole number from %d to %d.", min, max)
	case (n-min)%step != 0:
		return "", M("Please choose a value from %d to %d in steps of %d.", min, max, step)
	}
	return strconv.Itoa(n), Msg{}
}

func (slider) form(_ Question, stored string) Form { return Value(stored) }

// newSummary: every position, at zero, so that the chart shows those
// nobody chose; none for a question known from its answers alone (its
// bounds unknown), whose chart shows the positions answered.
func (slider) newSummary(q Question, qs *QuestionAnswersSummary) {
	if q.Min == "" && q.Max == "" && q.Step == "" {
		return
	}
	min, max, step := sliderRange(q)
	qs.Choices = make([]ChoiceCount, 0, (max-min)/step+1)
	for n := min; n <= max; n += step {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: strconv.Itoa(n)})
	}
}

func (slider) add(qs *QuestionAnswersSummary, answer string) {
	if _, err := strconv.Atoi(answer); err == nil {
		qs.Choices = addChoice(qs.Choices, answer)
	}
}

// Chart: the mean and the median, exact, and the distribution: a bar per
// position, or, past sliderBars positions, per run of neighbouring
// positions ("0–9").
func (slider) Chart(qs *QuestionAnswersSummary) Chart {
	points, count, sum := scaleChart(qs)
	c := Chart{Labels: []string{}, Counts: []int64{}}
	if count == 0 {
		return c
	}
	c.Figures = meanMedian(points, count, sum)
	per := (len(points.Labels) + sliderBars - 1) / sliderBars
	for i := 0; i < len(points.Labels); i += per {
		j := min(i+per, len(points.Labels))
		label := points.Labels[i]
		if j-1 > i {
			label += "–" + points.Labels[j-1]
		}
		var n int64
		for _, k := range points.Counts[i:j] {
			n += k
		}
		c.Labels, c.Counts = append(c.Labels, label), append(c.Counts, n)
	}
	return c
}

func (slider) Columns(Question) []string { return []string{""} }

// CellTypes: the value, a number.
func (slider) CellTypes(Question) []CellType { return []CellType{CellNumber} }

func (slider) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is the number.
func (slider) Value(_ Question, qa QuestionAnswer) any { return intValue(qa.Answer) }

// SQLRows: the number in the numeric column.
func (slider) SQLRows(_ Question, qa QuestionAnswer) []SQLRow { return scaleSQLRows(qa) }

// StatVars: those of the CSV export's columns, as they are.
func (k slider) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k slider) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }
