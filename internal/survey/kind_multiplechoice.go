package survey

import (
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// MultipleChoice is one of two to MaxChoices possible answers; its summary
// counts each, in the order the question offers them.
type multipleChoice struct{}

func (multipleChoice) Type() QuestionType { return MultipleChoice }
func (multipleChoice) Key() string        { return "multiplechoice" }
func (multipleChoice) Label() string      { return "Multiple choice" }

// normalize cleans the possible answers (CleanLine), trims their white
// space and drops the empty ones.
func (multipleChoice) normalize(q *Question) {
	var choices []string
	for _, c := range q.PossibleAnswers {
		if c = strings.TrimSpace(CleanLine(c)); c != "" {
			choices = append(choices, c)
		}
	}
	q.PossibleAnswers = choices
}

func (multipleChoice) validate(q Question, key string, f fieldErrors) {
	seen := map[string]bool{}
	switch {
	case len(q.PossibleAnswers) < 2:
		f.add(key+".choices", "A multiple-choice question needs at least two possible answers.")
	case len(q.PossibleAnswers) > MaxChoices:
		f.add(key+".choices", "A question has at most %d possible answers.", MaxChoices)
	}
	for _, c := range q.PossibleAnswers {
		switch {
		case strings.TrimSpace(c) == "":
			f.add(key+".choices", "A possible answer is empty.")
		case utf8.RuneCountInString(c) > MaxChoiceLength:
			f.add(key+".choices", "Keep each possible answer to %d characters.", MaxChoiceLength)
		case !IsCleanLine(c):
			f.add(key+".choices", "A possible answer may not contain control characters or direction overrides.")
		case seen[c]:
			f.add(key+".choices", "%q is listed twice.", c)
		}
		seen[c] = true
	}
}

func (multipleChoice) answer(q Question, v string) (string, string) {
	switch {
	case v == "":
		return v, "Please choose one answer."
	case !contains(q.PossibleAnswers, v):
		return v, "Please choose one of the answers offered."
	}
	return v, ""
}

func (multipleChoice) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, c := range q.PossibleAnswers {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: c})
	}
}

func (multipleChoice) add(qs *QuestionAnswersSummary, answer string) {
	for i := range qs.Choices {
		if qs.Choices[i].Answer == answer {
			qs.Choices[i].Count++
			return
		}
	}
	qs.Choices = append(qs.Choices, ChoiceCount{Answer: answer, Count: 1})
}

func (multipleChoice) merge(qs, o *QuestionAnswersSummary) {
	for _, oc := range o.Choices {
		found := false
		for i := range qs.Choices {
			if qs.Choices[i].Answer == oc.Answer {
				qs.Choices[i].Count += oc.Count
				found = true
				break
			}
		}
		if !found {
			qs.Choices = append(qs.Choices, oc)
		}
	}
}

func (multipleChoice) restore(*QuestionAnswersSummary) {}

func (multipleChoice) Chart(qs *QuestionAnswersSummary) Chart {
	c := Chart{Labels: []string{}, Counts: []int64{}}
	for _, cc := range qs.Choices {
		c.Labels, c.Counts = append(c.Labels, cc.Answer), append(c.Counts, cc.Count)
	}
	return c
}

func (multipleChoice) ExportCells(qa QuestionAnswer) []string { return []string{qa.Answer} }

func (multipleChoice) CopyNumber(QuestionAnswer) (int64, bool) { return 0, false }

func (multipleChoice) example() (Question, func(*rand.Rand) string) {
	q := Question{Text: "Which of our products do you use most?", Type: MultipleChoice,
		PossibleAnswers: []string{"Coffee", " Tea", "Cake", ""}}
	return q, func(r *rand.Rand) string { return []string{"Coffee", "Tea", "Cake ", "Coffee"}[r.IntN(4)] }
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
