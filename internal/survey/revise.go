package survey

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A published survey may be edited: each save is a new version of its
// question set. Answers refer to questions by ID, and a question keeps its
// ID from version to version, so answers already given keep their
// meaning. What they answered is never taken away: a question or a choice
// that has answers is hidden rather than deleted (respondents no longer
// see it; the analysis and exports do), and a question that has answers
// keeps its kind.

// Revision is a published survey's edit as it will be saved, and what it
// does to the answers already given.
type Revision struct {
	// Survey is the edit with the IDs of the questions it keeps, the
	// questions and choices it hides added back as hidden.
	Survey *Survey
	// Answers is the survey's count of answers.
	Answers int64
	// Hides are the questions and choices the edit hides, in words
	// ("Question “Rate us” (3 answers)"): a change that affects answers,
	// which the designer asks the subscriber to confirm.
	Hides []string
}

// Revise checks next, an edit of the published or closed survey cur
// (whose answers sum summarises), and returns it as it will be saved. A
// question of next keeps cur's question of the same ID (the designer
// carries each question's ID); one with an ID cur lacks, or one seen
// twice, is a new question: the first keeps its ID, which its rules name
// until the store gives it its own (a new question's later twin, and
// one without an ID, have none). A question or choice of cur that next leaves
// out is hidden if it has answers, and dropped if not. A question that
// has answers may not change its kind: the error's field is
// "questions.N.type".
func Revise(cur, next *Survey, sum *SurveyAnswersSummary) (*Revision, error) {
	counts := map[string]*QuestionAnswersSummary{}
	var total int64
	if sum != nil {
		total = sum.TotalAnswers
		for i := range sum.Questions {
			counts[sum.Questions[i].QuestionID] = &sum.Questions[i]
		}
	}
	answered := func(id string) int64 {
		if qs := counts[id]; qs != nil {
			return qs.Answered
		}
		return 0
	}
	old := map[string]Question{}
	for _, q := range cur.Questions {
		old[q.ID] = q
	}
	out := *next
	out.Questions = make([]Question, 0, len(next.Questions))
	rev := &Revision{Survey: &out, Answers: total}
	f := fieldErrors{}
	kept := map[string]bool{}
	for i, q := range next.Questions {
		was, ok := old[q.ID]
		if !ok || kept[q.ID] {
			if ok || kept[q.ID] {
				q.ID = ""
			}
			kept[q.ID] = q.ID != ""
			q.HiddenChoices, q.HiddenRows = nil, nil
			out.Questions = append(out.Questions, q)
			continue
		}
		kept[q.ID] = true
		n := answered(q.ID)
		if q.Type != was.Type && n > 0 {
			f.add("questions."+strconv.Itoa(i)+".type", "This question has %s: its kind cannot change. Add a new question instead (and remove this one: it is kept, hidden, with its answers).", Count(n, "answer"))
		}
		if q.Type == was.Type {
			qs := counts[q.ID]
			var gone []string
			q.HiddenChoices, gone = hideLines(was.PossibleAnswers, was.HiddenChoices, q.PossibleAnswers, func(c string) int64 { return choiceCount(qs, c) })
			for _, c := range gone {
				rev.Hides = append(rev.Hides, "Choice “"+c+"” of question “"+q.Text+"”")
			}
			q.HiddenRows, gone = hideLines(was.Rows, was.HiddenRows, q.Rows, func(r string) int64 { return rowCount(qs, r) })
			for _, r := range gone {
				rev.Hides = append(rev.Hides, "Row “"+r+"” of question “"+q.Text+"”")
			}
		} else {
			q.HiddenChoices, q.HiddenRows = nil, nil
		}
		if q.Hidden && !was.Hidden && n > 0 {
			rev.Hides = append(rev.Hides, "Question “"+q.Text+"” ("+Count(n, "answer")+")")
		}
		out.Questions = append(out.Questions, q)
	}
	for _, q := range cur.Questions {
		if kept[q.ID] {
			continue
		}
		if n := answered(q.ID); n > 0 {
			if !q.Hidden {
				rev.Hides = append(rev.Hides, "Question “"+q.Text+"” ("+Count(n, "answer")+")")
			}
			q.Hidden = true
			out.Questions = append(out.Questions, q)
		}
	}
	if err := f.err("The survey"); err != nil {
		return nil, err
	}
	return rev, nil
}

// hideLines returns the lines of a question's choices or rows, visible
// and hidden, that now leaves out but that have answers (count), to be
// kept hidden, and those of them that were visible until now.
func hideLines(visible, hidden, now []string, count func(string) int64) (keep, fresh []string) {
	for i, l := range append(slices.Clone(visible), hidden...) {
		if slices.Contains(now, l) || slices.Contains(keep, l) || count(l) == 0 {
			continue
		}
		keep = append(keep, l)
		if i < len(visible) {
			fresh = append(fresh, l)
		}
	}
	return keep, fresh
}

// choiceCount is how many answers chose c: as a choice, a matrix column or
// a ranked item.
func choiceCount(qs *QuestionAnswersSummary, c string) int64 {
	if qs == nil {
		return 0
	}
	var n int64
	for _, cc := range qs.Choices {
		if cc.Answer == c {
			n += cc.Count
		}
	}
	for _, r := range qs.Rows {
		for _, cc := range r.Choices {
			if cc.Answer == c {
				n += cc.Count
			}
		}
	}
	for _, r := range qs.Ranks {
		if r.Item == c {
			n += r.Count
		}
	}
	return n
}

// rowCount is how many answers a matrix's row r has.
func rowCount(qs *QuestionAnswersSummary, r string) int64 {
	if qs == nil {
		return 0
	}
	var n int64
	for _, rc := range qs.Rows {
		if rc.Row == r {
			for _, cc := range rc.Choices {
				n += cc.Count
			}
		}
	}
	return n
}

// hiddenLines cleans a question's hidden choices or rows: clean lines,
// none twice, none that is visible again.
func hiddenLines(hidden, visible []string) []string {
	var out []string
	for _, l := range normalizeLines(hidden) {
		if !slices.Contains(visible, l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// Visible is the survey as respondents see it: without its hidden
// questions (hidden choices and rows are not among a question's choices
// and rows already). It is s itself when nothing is hidden.
func (s *Survey) Visible() *Survey {
	if !slices.ContainsFunc(s.Questions, func(q Question) bool { return q.Hidden }) {
		return s
	}
	cp := *s
	cp.Questions = nil
	for _, q := range s.Questions {
		if !q.Hidden {
			cp.Questions = append(cp.Questions, q)
		}
	}
	return &cp
}

// WithHidden is the question with its hidden choices and rows among its
// choices and rows (after the visible ones): what the analysis and exports
// show of it.
func (q Question) WithHidden() Question {
	q.PossibleAnswers = withLines(q.PossibleAnswers, q.HiddenChoices)
	q.Rows = withLines(q.Rows, q.HiddenRows)
	return q
}

// withLines is lines and, after them, those of more it lacks (a new
// slice when there are any).
func withLines(lines, more []string) []string {
	for _, l := range more {
		if !slices.Contains(lines, l) {
			lines = append(slices.Clip(lines), l)
		}
	}
	return lines
}

// Everything is the survey as the analysis and exports show it: every
// question with its hidden choices and rows (WithHidden), and, hidden, any
// question the summary counts that the survey no longer has (an answer
// that was on its way when its question was deleted), with the choices it
// counts.
func (s *Survey) Everything(sum *SurveyAnswersSummary) *Survey {
	cp := *s
	cp.Questions = make([]Question, 0, len(s.Questions))
	for _, q := range s.Questions {
		cp.Questions = append(cp.Questions, q.WithHidden())
	}
	if sum == nil {
		return &cp
	}
	for _, qs := range sum.Questions {
		at := slices.IndexFunc(cp.Questions, func(q Question) bool { return q.ID == qs.QuestionID })
		if at < 0 {
			if qs.Answered == 0 {
				continue
			}
			cp.Questions = append(cp.Questions, Question{ID: qs.QuestionID, Text: qs.QuestionText, Type: qs.Type, Hidden: true, Optional: true})
			at = len(cp.Questions) - 1
		}
		q := &cp.Questions[at]
		if q.Type != qs.Type {
			continue
		}
		k, ok := KindOf(q.Type)
		if !ok {
			continue
		}
		set := k.Settings()
		if set.Choices {
			for _, c := range qs.Choices {
				if c.Count > 0 && !slices.Contains(q.PossibleAnswers, c.Answer) && !strings.HasPrefix(c.Answer, OtherMark) {
					q.PossibleAnswers = append(q.PossibleAnswers, c.Answer)
				}
			}
			for _, r := range qs.Ranks {
				if r.Count > 0 && !slices.Contains(q.PossibleAnswers, r.Item) {
					q.PossibleAnswers = append(q.PossibleAnswers, r.Item)
				}
			}
		}
		if set.Rows {
			for _, r := range qs.Rows {
				if rowCount(&qs, r.Row) > 0 && !slices.Contains(q.Rows, r.Row) {
					q.Rows = append(q.Rows, r.Row)
				}
			}
		}
	}
	return &cp
}

// AddQuestions adds to the summary an empty count of each question of s it
// lacks (a question added to a published survey), so that answers to it
// can be read and counted.
func (sum *SurveyAnswersSummary) AddQuestions(s *Survey) {
	for _, q := range s.Questions {
		if !slices.ContainsFunc(sum.Questions, func(qs QuestionAnswersSummary) bool { return qs.QuestionID == q.ID }) {
			qs := QuestionAnswersSummary{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type}
			if k, ok := KindOf(q.Type); ok {
				k.newSummary(q, &qs)
			}
			sum.Questions = append(sum.Questions, qs)
		}
	}
}

// Duplicate is a new draft of tenant made from s: titled "Copy of <title>"
// (cut to MaxTitleLength), with its settings and the questions respondents
// see, their IDs q1, q2 … (named by its rules; the store numbers them
// anew) and nothing hidden; a close
// date already past is left out. Its answers are not copied.
func (s *Survey) Duplicate(now time.Time) *Survey {
	title := []rune("Copy of " + s.Title)
	if len(title) > MaxTitleLength {
		title = title[:MaxTitleLength]
	}
	cp := &Survey{Tenant: s.Tenant, Title: strings.TrimSpace(string(title)), State: Draft, Listed: s.Listed, Challenge: s.Challenge, OnePer: s.OnePer, MayChange: s.MayChange,
		EmbedOrigins: slices.Clone(s.EmbedOrigins), PublicResults: s.PublicResults, Description: s.Description, ThankYou: s.ThankYou, Sections: slices.Clone(s.Sections),
		HiddenFields: slices.Clone(s.HiddenFields), Prefill: s.Prefill, SendCopy: s.SendCopy, Theme: s.Theme.Clone(), Quotas: cloneQuotas(s.Quotas), KeepPartial: s.KeepPartial,
		Scoring:  Scoring{Variables: cloneVariables(s.Variables), Outcomes: slices.Clone(s.Outcomes), ShowCorrect: s.ShowCorrect, Redirect: s.Redirect, RedirectFields: s.RedirectFields},
		Language: s.Language, Translations: s.cloneTranslations()}
	if !s.CloseOn.IsZero() && now.Before(s.ClosesAt()) {
		cp.CloseOn = s.CloseOn
	}
	for i := range cp.Sections {
		cp.Sections[i].ShowIf, cp.Sections[i].Jumps = cp.Sections[i].ShowIf.clone(), cloneJumps(cp.Sections[i].Jumps)
	}
	var ids []string
	for _, q := range s.Visible().Questions {
		q.HiddenChoices, q.HiddenRows = nil, nil
		q.PossibleAnswers, q.Rows, q.Parts, q.Pictures = slices.Clone(q.PossibleAnswers), slices.Clone(q.Rows), maps.Clone(q.Parts), slices.Clone(q.Pictures)
		q.ShowIf = q.ShowIf.clone()
		q.Points, q.Correct = maps.Clone(q.Points), slices.Clone(q.Correct)
		cp.Questions = append(cp.Questions, q)
		ids = append(ids, "q"+strconv.Itoa(len(ids)+1))
	}
	// The copy's questions are new (Create numbers them); until then
	// they are q1, q2 …, which its rules name.
	cp.RenameQuestions(ids)
	return cp
}
