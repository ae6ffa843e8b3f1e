package survey

import "slices"

// The respondent's path as pages show it: which pages a respondent goes
// through, and which questions a page shows, from the answers they gave so
// far (later unanswered rules evaluated as they stand now, so the path may
// grow or shrink as answers change).

// HasLogic reports whether a question or a section of the survey has a
// condition, a section jumps, or a quota skips to a section.
func (s *Survey) HasLogic() bool {
	return slices.ContainsFunc(s.Questions, func(q Question) bool { return q.ShowIf != nil }) ||
		slices.ContainsFunc(s.Sections, Section.hasLogic) || slices.ContainsFunc(s.Quotas, Quota.Skips)
}

// Given are the answers forms give that their kinds accept, by question
// ID, as NewAnswer reads them: what the logic looks at while the answer
// is not yet whole. A question forms do not name is left out.
func (s *Survey) Given(forms map[string]Form) map[string]QuestionAnswer {
	given := make(map[string]QuestionAnswer, len(forms))
	for _, q := range s.Questions {
		f, ok := forms[q.ID]
		if !ok || len(f) == 0 {
			continue
		}
		k, ok := KindOf(q.Type)
		if !ok {
			continue
		}
		if v, problem := k.answer(q, cleanForm(f)); problem.IsZero() && v != "" {
			given[q.ID] = QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v}
		}
	}
	return given
}

// Holds reports whether r holds for answers, the survey being s.
func (r Rule) Holds(s *Survey, answers map[string]QuestionAnswer) bool { return r.holds(s, answers) }

// OnPage reports, for rule r of a condition of question q, whether r looks
// at a question of q's own section: the page decides it as the
// respondent answers.
func (s *Survey) OnPage(q Question, r Rule) bool {
	o, ok := s.Question(r.Question)
	return ok && s.sectionIndex(o) == s.sectionIndex(q)
}

// PageShows reports whether a page shows question q to a respondent whose
// path keeps answers (DropHidden): when its condition holds, or, live,
// when the condition depends on an answer of the same page: the rules on
// earlier pages do not decide it (none fails for "all", none holds for
// "any"), and the page's rules (OnPage) will. The page's script then shows
// it or not as the respondent answers; without the script it is shown
// with its condition, and NewAnswer drops its answer if that fails.
func (s *Survey) PageShows(q Question, answers map[string]QuestionAnswer) (show, live bool) {
	c := q.ShowIf
	switch {
	case q.Hidden:
		return false, false
	case c == nil:
		return true, false
	case !slices.ContainsFunc(c.Rules, func(r Rule) bool { return s.OnPage(q, r) }):
		return c.Holds(s, answers), false
	}
	for _, r := range c.Rules {
		if s.OnPage(q, r) {
			continue
		}
		h := r.holds(s, answers)
		if c.Match == MatchAny && h {
			return true, false
		}
		if c.Match != MatchAny && !h {
			return false, false
		}
	}
	return true, true
}

// PagePath is the respondent's path through pages (s.Pages()): the
// indexes of the pages of the sections on their Path for kept (the
// answers their path keeps: DropHidden), less those that would show no
// question (PageShows). It always has a page: the first when nothing
// else.
func (s *Survey) PagePath(pages []Page, kept map[string]QuestionAnswer) []int {
	var out []int
	for _, id := range s.Path(kept) {
		i := slices.IndexFunc(pages, func(p Page) bool { return p.Section.ID == id })
		if i < 0 || slices.Contains(out, i) {
			continue
		}
		if slices.ContainsFunc(pages[i].Questions, func(q Question) bool { show, _ := s.PageShows(q, kept); return show }) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		out = []int{0}
	}
	return out
}
