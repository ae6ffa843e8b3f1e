package survey

import "strconv"

// NetPromoterScore is "how likely are you to recommend us", from 0 to 10,
// stored as "0" to "10". Its summary counts each point (Choices "0" to
// "10"); its chart gives the NPS: the per cent of promoters (9 and 10)
// less the per cent of detractors (0 to 6).
const NetPromoterScore QuestionType = "NetPromoterScore"

// The labels of an NPS question's ends when it has none of its own.
const (
	DefaultNPSLowLabel  = "Not at all likely"
	DefaultNPSHighLabel = "Extremely likely"
)

type netPromoterScore struct{}

func (netPromoterScore) Type() QuestionType { return NetPromoterScore }
func (netPromoterScore) Key() string        { return "nps" }
func (netPromoterScore) Label() string      { return "Net Promoter Score" }
func (netPromoterScore) Settings() Settings { return Settings{ScaleLabels: true} }

func (netPromoterScore) normalize(q *Question) {
	if q.LowLabel == "" {
		q.LowLabel = DefaultNPSLowLabel
	}
	if q.HighLabel == "" {
		q.HighLabel = DefaultNPSHighLabel
	}
}

func (netPromoterScore) validate(q Question, key string, f fieldErrors) {
	validateScaleLabels(q, key, f)
}

func (netPromoterScore) required() Msg { return M("Please choose a number from 0 to 10.") }

func (netPromoterScore) answer(_ Question, f Form) (string, Msg) {
	return scalePoint(f.Get(""), 0, 10)
}

func (netPromoterScore) form(_ Question, stored string) Form { return Value(stored) }

func (netPromoterScore) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Choices = scaleChoices(0, 10)
}

func (netPromoterScore) add(qs *QuestionAnswersSummary, answer string) {
	if _, err := strconv.Atoi(answer); err == nil {
		qs.Choices = addChoice(qs.Choices, answer)
	}
}

// NPS is the net promoter score of counts by point (0 to 10): the per
// cent of promoters less the per cent of detractors, rounded to a whole
// number (halves away from zero), and the three groups' counts.
func NPS(points map[int]int64) (score int64, promoters, passives, detractors int64) {
	for n, c := range points {
		switch {
		case n >= 9 && n <= 10:
			promoters += c
		case n >= 7 && n <= 8:
			passives += c
		case n >= 0 && n <= 6:
			detractors += c
		}
	}
	return percent(promoters-detractors, promoters+passives+detractors), promoters, passives, detractors
}

// percent is 100·part/total rounded to a whole number, halves away from
// zero, exactly; 0 when total is 0.
func percent(part, total int64) int64 {
	if total == 0 {
		return 0
	}
	neg := part < 0
	if neg {
		part = -part
	}
	p := (200*part + total) / (2 * total)
	if neg {
		return -p
	}
	return p
}

// signed writes n with its sign: "+42", "-17", "0".
func signed(n int64) string {
	if n > 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// Chart: the NPS (its Score), the promoters, passives and detractors (its
// Stack: counts and shares of the answers) and the count of each point
// from 0 to 10.
func (netPromoterScore) Chart(qs *QuestionAnswersSummary) Chart {
	c, count, _ := scaleChart(qs)
	if count == 0 {
		return c
	}
	points := map[int]int64{}
	for i, l := range c.Labels {
		n, _ := strconv.Atoi(l)
		points[n] += c.Counts[i]
	}
	score, pro, pas, det := NPS(points)
	total := pro + pas + det
	c.Score = &Figure{M("NPS").String(), signed(score)}
	c.Stack = []Part{
		{Key: "promoters", Label: M("Promoters (9–10)").String(), Count: pro, Percent: percent(pro, total)},
		{Key: "passives", Label: M("Passives (7–8)").String(), Count: pas, Percent: percent(pas, total)},
		{Key: "detractors", Label: M("Detractors (0–6)").String(), Count: det, Percent: percent(det, total)},
	}
	return c
}

func (netPromoterScore) Columns(Question) []string { return []string{""} }

// CellTypes: the point, a number.
func (netPromoterScore) CellTypes(Question) []CellType { return []CellType{CellNumber} }

func (netPromoterScore) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is the point as a number.
func (netPromoterScore) Value(_ Question, qa QuestionAnswer) any { return intValue(qa.Answer) }

// SQLRows: the point in the numeric column.
func (netPromoterScore) SQLRows(_ Question, qa QuestionAnswer) []SQLRow { return scaleSQLRows(qa) }

// picks: 0 to 10.
func (netPromoterScore) picks(Question) []string { return points(0, 10) }

// StatVars: the point from 0 to 10, its ends named by the scale's labels.
func (netPromoterScore) StatVars(q Question) []StatVar {
	return []StatVar{{Type: CellNumber, Values: scaleValues(0, 10, q.LowLabel, q.HighLabel), Scale: true}}
}

// StatCells: the point.
func (netPromoterScore) StatCells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// categories: the points 0 to 10, its ends with their labels.
func (netPromoterScore) categories(q Question) ([]string, bool) {
	return pointCategories(0, 10, q.LowLabel, q.HighLabel), false
}

func (netPromoterScore) categoriesOf(_ Question, stored string, dst []int) []int {
	return pointCategory(stored, 0, 10, dst)
}
