package survey

import (
	"sort"
	"strconv"
	"strings"
)

// Ranking is the type of a question that puts items in order.
const Ranking QuestionType = "Ranking"

// ranking orders its two to MaxChoices items (PossibleAnswers): the
// respondent gives each item its position, 1 (first) to the number of
// items, each position once (a form sends item i's position as
// Form["i"], i the item's place in the question). Stored canonically as a
// JSON array of the items in ranked order: ["Price","Quality","Delivery"].
// Its summary sums each item's positions (QuestionAnswersSummary.Ranks).
type ranking struct{}

func (ranking) Type() QuestionType { return Ranking }
func (ranking) Key() string        { return "ranking" }
func (ranking) Label() string      { return "Ranking" }
func (ranking) Settings() Settings {
	return Settings{Choices: true, MaxChoices: MaxChoices, Shuffle: true}
}

func (ranking) normalize(q *Question) { q.PossibleAnswers = normalizeLines(q.PossibleAnswers) }

func (ranking) validate(q Question, key string, f fieldErrors) {
	validateLines(q.PossibleAnswers, 2, MaxChoices, "item", key+".choices", f)
}

func (ranking) required() Msg {
	return M("Please put the items in order: give each one a position.")
}

func (ranking) answer(q Question, f Form) (string, Msg) {
	n := len(q.PossibleAnswers)
	ranked := make([]string, n)
	var missing []string
	given := 0
	for i, item := range q.PossibleAnswers {
		v := f.Get(strconv.Itoa(i))
		if v == "" {
			missing = append(missing, item)
			continue
		}
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > n {
			return "", M("Give each item a position from 1 to %d (%q has %q).", n, item, v)
		}
		if ranked[p-1] != "" {
			return "", M("%q and %q are both at position %d: give each item a position of its own.", ranked[p-1], item, p)
		}
		ranked[p-1] = item
		given++
	}
	switch {
	case given == 0:
		return "", Msg{}
	case len(missing) > 0:
		return "", M("Please give every item a position from 1 to %d: %s.", n, notAnswered(missing))
	}
	return encodeJSON(ranked), Msg{}
}

func (ranking) form(q Question, stored string) Form {
	f := Form{}
	for p, item := range decodeList(stored) {
		for i, c := range q.PossibleAnswers {
			if c == item {
				f[strconv.Itoa(i)] = []string{strconv.Itoa(p + 1)}
			}
		}
	}
	return f
}

func (ranking) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, item := range q.PossibleAnswers {
		qs.Ranks = append(qs.Ranks, RankSum{Item: item})
	}
}

// add sums each item's position (from 1); an item the summary lacks (an
// answer to an older definition) is added at the end.
func (ranking) add(qs *QuestionAnswersSummary, answer string) {
	for p, item := range decodeList(answer) {
		i := 0
		for i < len(qs.Ranks) && qs.Ranks[i].Item != item {
			i++
		}
		if i == len(qs.Ranks) {
			qs.Ranks = append(qs.Ranks, RankSum{Item: item})
		}
		qs.Ranks[i].Count++
		qs.Ranks[i].Sum += int64(p + 1)
		if p == 0 {
			qs.Ranks[i].First++
		}
	}
}

// Chart: the items by average position (its Positions), first the best
// placed (ties, and the items no one ranked last, in the question's
// order), each with how many ranked it first; as Figures, each item's
// average position ("not ranked" for none).
func (ranking) Chart(qs *QuestionAnswersSummary) Chart {
	ranks := append([]RankSum(nil), qs.Ranks...)
	sort.SliceStable(ranks, func(i, j int) bool {
		a, b := ranks[i], ranks[j]
		if (a.Count == 0) != (b.Count == 0) {
			return b.Count == 0
		}
		return a.Average() < b.Average()
	})
	c := Chart{Positions: []Position{}}
	n := float64(len(ranks))
	for _, r := range ranks {
		p := Position{Item: r.Item, Ranked: r.Count, First: r.First}
		avg := "not ranked"
		if r.Count > 0 {
			avg = strconv.FormatFloat(r.Average(), 'f', 2, 64)
			p.Average = avg
			p.Width = min(max(100*(n+1-r.Average())/n, 0), 100)
		}
		c.Positions = append(c.Positions, p)
		c.Figures = append(c.Figures, Figure{Label: r.Item, Value: avg})
	}
	if qs.Answered > 0 {
		c.Note = "Items by average position (1 is first): the nearer an item is to the first place, the longer its bar."
	}
	return c
}

// Columns: one per item, holding its position.
func (ranking) Columns(q Question) []string {
	if len(q.PossibleAnswers) == 0 {
		return []string{""}
	}
	return q.PossibleAnswers
}

// CellTypes: each item's position, a number; one text cell for a
// question without items.
func (ranking) CellTypes(q Question) []CellType {
	if len(q.PossibleAnswers) == 0 {
		return []CellType{CellText}
	}
	return cellTypes(len(q.PossibleAnswers), CellNumber)
}

// Cells: each item's position (1 first). A question without items (its
// settings unknown) has one cell: the items in order, with "; " between
// them.
func (ranking) Cells(q Question, qa QuestionAnswer) []string {
	ranked := decodeList(qa.Answer)
	if len(q.PossibleAnswers) == 0 {
		return []string{strings.Join(ranked, "; ")}
	}
	cells := make([]string, len(q.PossibleAnswers))
	for p, item := range ranked {
		for i, c := range q.PossibleAnswers {
			if c == item {
				cells[i] = strconv.Itoa(p + 1)
			}
		}
	}
	return cells
}

// Value is the items in ranked order, first first.
func (ranking) Value(_ Question, qa QuestionAnswer) any {
	if l := decodeList(qa.Answer); l != nil {
		return l
	}
	return nil
}

// SQLRows: one row per item (Item the item, Number and Text its position).
func (ranking) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	ranked := decodeList(qa.Answer)
	rows := make([]SQLRow, len(ranked))
	for p, item := range ranked {
		pos := strconv.Itoa(p + 1)
		rows[p] = SQLRow{Item: item, Text: pos, Number: pos}
	}
	return rows
}

// StatVars: one per rank, 1 first: the item ranked there, coded 1, 2 …
// in the order of the items. A question without items (its settings
// unknown) has the CSV's text.
func (k ranking) StatVars(q Question) []StatVar {
	if len(q.PossibleAnswers) == 0 {
		return plainVariables(k, q)
	}
	out := make([]StatVar, len(q.PossibleAnswers))
	for i := range out {
		out[i] = StatVar{Suffix: "_" + strconv.Itoa(i+1), Label: "Rank " + strconv.Itoa(i+1), Type: CellNumber, Values: choiceValues(q.PossibleAnswers, false)}
	}
	return out
}

// StatCells: the code of the item at each rank, "" past the last ranked.
func (k ranking) StatCells(q Question, qa QuestionAnswer) []string {
	if len(q.PossibleAnswers) == 0 {
		return k.Cells(q, qa)
	}
	out := make([]string, len(q.PossibleAnswers))
	for p, item := range decodeList(qa.Answer) {
		if p < len(out) {
			out[p] = choiceCode(q.PossibleAnswers, item)
		}
	}
	return out
}
