package survey

import "strconv"

// FiveStars is a rating from 1 to 5 stars, stored as "1" to "5"; its
// summary counts each rating, from which the mean is exact.
type fiveStars struct{}

func (fiveStars) Type() QuestionType { return FiveStars }
func (fiveStars) Key() string        { return "fivestars" }
func (fiveStars) Label() string      { return "Star rating" }
func (fiveStars) Settings() Settings { return Settings{} }

func (fiveStars) normalize(*Question)                    {}
func (fiveStars) validate(Question, string, fieldErrors) {}
func (fiveStars) required() Msg                          { return M("Please give a rating from 1 to 5 stars.") }

func (fiveStars) answer(_ Question, f Form) (string, Msg) {
	v := f.Get("")
	if v == "" {
		return "", Msg{}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 5 {
		return "", M("A rating is from 1 to 5 stars.")
	}
	return strconv.Itoa(n), Msg{}
}

func (fiveStars) form(_ Question, stored string) Form { return Value(stored) }

func (fiveStars) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Stars = &[5]int64{}
}

func (fiveStars) add(qs *QuestionAnswersSummary, answer string) {
	if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= 5 {
		if qs.Stars == nil {
			qs.Stars = &[5]int64{}
		}
		qs.Stars[n-1]++
	}
}

// Chart: the count of each rating, the mean (Average) and the median.
func (fiveStars) Chart(qs *QuestionAnswersSummary) Chart {
	var c Chart
	if qs.Stars != nil {
		c.Labels, c.Counts = []string{"1 star", "2 stars", "3 stars", "4 stars", "5 stars"}, qs.Stars[:]
	}
	if n, _ := qs.StarCount(); n > 0 {
		c.Average, c.Averaged = qs.Average(), true
		c.Figures = []Figure{{M("Median").String(), median(Chart{Labels: []string{"1", "2", "3", "4", "5"}, Counts: qs.Stars[:]}, n)}}
	}
	return c
}

func (fiveStars) Columns(Question) []string { return []string{""} }

// CellTypes: the rating, a number.
func (fiveStars) CellTypes(Question) []CellType { return []CellType{CellNumber} }

func (fiveStars) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is the rating as a number.
func (fiveStars) Value(_ Question, qa QuestionAnswer) any { return intValue(qa.Answer) }

// SQLRows: the 1–5 rating in the numeric column.
func (fiveStars) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	row := SQLRow{Text: qa.Answer}
	if intValue(qa.Answer) != nil {
		row.Number = qa.Answer
	}
	return []SQLRow{row}
}

// intValue is a whole number answer as a JSON number: nil when it is none.
func intValue(s string) any {
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil
	}
	return n
}

// picks: 1 to 5 stars.
func (fiveStars) picks(Question) []string { return points(1, 5) }

// StatVars: those of the CSV export's columns, as they are.
func (k fiveStars) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k fiveStars) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }

// categories: 1 to 5 stars.
func (fiveStars) categories(Question) ([]string, bool) {
	return []string{"1 star", "2 stars", "3 stars", "4 stars", "5 stars"}, false
}

func (fiveStars) categoriesOf(_ Question, stored string, dst []int) []int {
	return pointCategory(stored, 1, 5, dst)
}
