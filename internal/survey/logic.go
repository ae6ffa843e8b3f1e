package survey

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Logic: a question or a section is shown only when a condition on
// earlier answers holds (ShowIf), and after a section the respondent goes
// to the first section (or the end) whose jump's condition holds. Rules
// name earlier questions only, and jumps go forward only, so a
// respondent's path has no circles and is decided by one pass over the
// survey in order. A question the path does not show is never required,
// and its answer is dropped.

// Condition holds when all (Match "all") or any (Match "any") of its
// rules hold.
type Condition struct {
	Match string `json:"match,omitempty"`
	Rules []Rule `json:"rules"`
}

// Rule compares the answer to an earlier question (by ID) with Values,
// per Op; or the value of a hidden field, Question being its HiddenRef
// ("hidden:source", hidden.go).
type Rule struct {
	Question string   `json:"question"`
	Op       string   `json:"op"`
	Values   []string `json:"values,omitempty"`
}

// Jump goes, after its section, to the section To (a later one's ID, or
// JumpEnd) when If holds.
type Jump struct {
	If Condition `json:"if"`
	To string    `json:"to"`
}

// JumpEnd is the To of a jump to the end of the survey (even when a
// section has the ID "end": no jump can name that section).
const JumpEnd = "end"

// Matches of a condition.
const (
	MatchAll = "all"
	MatchAny = "any"
)

// Ops of a rule.
const (
	OpEquals      = "equals"
	OpNotEquals   = "not_equals"
	OpOneOf       = "one_of"
	OpGreaterThan = "greater_than"
	OpLessThan    = "less_than"
	OpAnswered    = "answered"
	OpNotAnswered = "not_answered"
)

// Limits of logic.
const (
	MaxRules      = 10 // per condition
	MaxJumps      = 10 // per section
	MaxRuleValues = 20 // of a one_of rule
)

// opValues is how many values each op takes: exactly one (1), one to
// MaxRuleValues (-1), none (0).
var opValues = map[string]int{
	OpEquals: 1, OpNotEquals: 1, OpOneOf: -1, OpGreaterThan: 1, OpLessThan: 1, OpAnswered: 0, OpNotAnswered: 0,
}

// Ops are the ops a rule may have, in the order the designer offers them.
func Ops() []string {
	return []string{OpEquals, OpNotEquals, OpOneOf, OpGreaterThan, OpLessThan, OpAnswered, OpNotAnswered}
}

// numberOp reports whether op compares numbers.
func numberOp(op string) bool { return op == OpGreaterThan || op == OpLessThan }

// numeric reports whether q's answers are one number (its kind's export
// cell is a number): the questions greater_than and less_than apply to.
func numeric(q Question) bool {
	k, ok := KindOf(q.Type)
	if !ok {
		return false
	}
	t := k.CellTypes(q)
	return len(t) == 1 && t[0] == CellNumber
}

// normalize cleans a condition: the match in lower case ("" is "all"),
// the rules' question IDs and ops trimmed, their values cleaned lines with
// the empty ones dropped.
func (c *Condition) normalize() {
	if c == nil {
		return
	}
	c.Match = strings.ToLower(strings.TrimSpace(c.Match))
	if c.Match == "" {
		c.Match = MatchAll
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		r.Question = strings.TrimSpace(r.Question)
		r.Op = strings.ToLower(strings.TrimSpace(r.Op))
		var vs []string
		for _, v := range r.Values {
			if v = strings.TrimSpace(CleanLine(v)); v != "" {
				vs = append(vs, v)
			}
		}
		r.Values = vs
	}
}

// normalizeLogic cleans every condition and jump of the survey.
func (s *Survey) normalizeLogic() {
	for i := range s.Questions {
		s.Questions[i].ShowIf.normalize()
	}
	for i := range s.Sections {
		sc := &s.Sections[i]
		sc.ShowIf.normalize()
		for j := range sc.Jumps {
			sc.Jumps[j].If.normalize()
			sc.Jumps[j].To = strings.TrimSpace(sc.Jumps[j].To)
		}
	}
}

// hasLogic reports whether a section has a condition or jumps.
func (sc Section) hasLogic() bool { return sc.ShowIf != nil || len(sc.Jumps) > 0 }

// validateCondition adds the problems of c to f under key (".match",
// ".rules", ".rules.N.question", ".op", ".values"). A rule may name a
// visible question of index before `before`, and, for a section's
// condition, of a section before `section` (-1: any).
func (s *Survey) validateCondition(c *Condition, key string, before int, f fieldErrors) {
	if c.Match != MatchAll && c.Match != MatchAny {
		f.add(key+".match", "Choose whether all or any of the rules must hold.")
	}
	switch {
	case len(c.Rules) == 0:
		f.add(key+".rules", "Add a rule, or remove the condition.")
	case len(c.Rules) > MaxRules:
		f.add(key+".rules", "A condition has at most %d rules (it has %d).", MaxRules, len(c.Rules))
		return
	}
	for i, r := range c.Rules {
		rk := key + ".rules." + strconv.Itoa(i)
		at := slices.IndexFunc(s.Questions, func(q Question) bool { return q.ID == r.Question })
		_, hidden := HiddenName(r.Question)
		_, isVar := VarName(r.Question)
		switch {
		case isVar:
			if p := s.varRefProblem(r.Question, before); p != "" {
				f.add(rk+".question", "%s", p)
			}
		case hidden:
			// A hidden field's value is known from the first page.
			if p := s.hiddenRefProblem(r.Question); p != "" {
				f.add(rk+".question", "%s", p)
			}
		case r.Question == "":
			f.add(rk+".question", "Choose the question the rule looks at.")
		case at < 0 || s.Questions[at].Hidden:
			f.add(rk+".question", "This survey no longer has that question: choose another.")
		case at >= before:
			f.add(rk+".question", "A rule can only look at a question asked before.")
		case slices.ContainsFunc(s.Questions[at+1:], func(q Question) bool { return q.ID == r.Question }):
			f.add(rk+".question", "Two questions have the ID %q: give each its own.", r.Question)
		}
		n, known := opValues[r.Op]
		if !known {
			f.add(rk+".op", "Choose how to compare: %s.", strings.Join(Ops(), ", "))
			continue
		}
		switch {
		case n == 0 && len(r.Values) > 0:
			f.add(rk+".values", "This rule takes no answer to compare with.")
		case n == 1 && len(r.Values) != 1:
			f.add(rk+".values", "Give one answer to compare with.")
		case n < 0 && len(r.Values) == 0:
			f.add(rk+".values", "Give at least one answer.")
		case n < 0 && len(r.Values) > MaxRuleValues:
			f.add(rk+".values", "Give at most %d answers (there are %d).", MaxRuleValues, len(r.Values))
		}
		for _, v := range r.Values {
			switch {
			case utf8.RuneCountInString(v) > MaxFilterAnswer:
				f.add(rk+".values", "Keep each answer to %d characters.", MaxFilterAnswer)
			case !IsCleanLine(v) || strings.TrimSpace(v) == "":
				f.add(rk+".values", "An answer may not be empty or contain control characters or direction overrides.")
			}
		}
		if numberOp(r.Op) {
			if at >= 0 && !numeric(s.Questions[at]) && !isVar {
				f.add(rk+".op", "Greater than and less than compare numbers: choose a question answered with a number.")
			}
			for _, v := range r.Values {
				if _, ok := filterNumber(v); !ok {
					f.add(rk+".values", "Give a number.")
				}
			}
		}
	}
}

// validateLogic adds the problems of the survey's conditions and jumps:
// keys "questions.N.showIf…", "sections.N.showIf…", "sections.N.jumps",
// "sections.N.jumps.M.to" and "sections.N.jumps.M.if…".
func (s *Survey) validateLogic(f fieldErrors) {
	// first[k] is the index of section k's first question: a section's
	// condition looks at the questions before it.
	first := make([]int, len(s.Sections)+1)
	for k := range s.Sections {
		first[k] = slices.IndexFunc(s.Questions, func(q Question) bool { return s.sectionIndex(q) >= k })
		if first[k] < 0 {
			first[k] = len(s.Questions)
		}
	}
	for i, q := range s.Questions {
		if q.ShowIf != nil {
			s.validateCondition(q.ShowIf, "questions."+strconv.Itoa(i)+".showIf", i, f)
		}
	}
	for k, sc := range s.Sections {
		key := "sections." + strconv.Itoa(k)
		if sc.ShowIf != nil {
			if k == 0 {
				f.add(key+".showIf", "The first section is always shown.")
			} else {
				s.validateCondition(sc.ShowIf, key+".showIf", first[k], f)
			}
		}
		if len(sc.Jumps) > MaxJumps {
			f.add(key+".jumps", "A section has at most %d jumps (it has %d).", MaxJumps, len(sc.Jumps))
			continue
		}
		// A jump looks at the questions up to the end of its section.
		end := len(s.Questions)
		if k+1 < len(s.Sections) {
			end = first[k+1]
		}
		for j, jp := range sc.Jumps {
			jk := key + ".jumps." + strconv.Itoa(j)
			s.validateCondition(&jp.If, jk+".if", end, f)
			to := slices.IndexFunc(s.Sections, func(o Section) bool { return o.ID == jp.To })
			switch {
			case jp.To == JumpEnd:
			case jp.To == "":
				f.add(jk+".to", "Choose the section to go to, or the end.")
			case to < 0:
				f.add(jk+".to", "This survey has no such section: choose another, or the end.")
			case to == k:
				f.add(jk+".to", "A section cannot go to itself: choose a later section, or the end.")
			case to < k:
				f.add(jk+".to", "Jumps go forward only: choose a later section, or the end.")
			}
		}
	}
}

// answerCells are the cells a filter or a rule compares: those the kind of
// qa gives the CSV export, trimmed, for question q (its settings, when it
// still is of qa's kind). ok is false for no answer or an unknown kind.
func answerCells(q Question, qa QuestionAnswer) (cells []string, ok bool) {
	if qa.Answer == "" {
		return nil, false
	}
	k, known := KindOf(qa.Type)
	if !known {
		return nil, false
	}
	if q.Type != qa.Type {
		// The question changed kind since: its settings say nothing of
		// this answer.
		q = Question{ID: qa.QuestionID, Text: qa.QuestionText, Type: qa.Type}
	}
	cells = k.Cells(q, qa)
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells, true
}

// cellsInclude reports whether one of cells is want, ignoring case, or,
// both being numbers, the same number.
func cellsInclude(cells []string, want string) bool {
	n, isNumber := filterNumber(want)
	for _, c := range cells {
		if strings.EqualFold(c, want) {
			return true
		}
		if isNumber {
			if m, ok := filterNumber(c); ok && m == n {
				return true
			}
		}
	}
	return false
}

// holds reports whether r holds for answers, the survey being s.
func (r Rule) holds(s *Survey, answers map[string]QuestionAnswer) bool {
	q, _ := s.Question(r.Question)
	cells, answered := answerCells(q, answers[r.Question])
	if _, hidden := HiddenName(r.Question); hidden {
		// A hidden field's value is its one cell.
		v := strings.TrimSpace(answers[r.Question].Answer)
		cells, answered = []string{v}, v != ""
	}
	if _, isVar := VarName(r.Question); isVar {
		v := s.varAnswer(r.Question, answers).Answer
		cells, answered = []string{v}, v != ""
	}
	switch r.Op {
	case OpAnswered:
		return answered
	case OpNotAnswered:
		return !answered
	case OpEquals, OpOneOf:
		return answered && slices.ContainsFunc(r.Values, func(v string) bool { return cellsInclude(cells, v) })
	case OpNotEquals:
		// Not answered is not equal.
		return !answered || !slices.ContainsFunc(r.Values, func(v string) bool { return cellsInclude(cells, v) })
	case OpGreaterThan, OpLessThan:
		if !answered || len(cells) != 1 || len(r.Values) != 1 {
			return false
		}
		a, ok1 := filterNumber(cells[0])
		b, ok2 := filterNumber(r.Values[0])
		if !ok1 || !ok2 {
			return false
		}
		if r.Op == OpGreaterThan {
			return a > b
		}
		return a < b
	}
	return false
}

// Holds reports whether c holds for answers (by question ID), the survey
// being s (whose questions' settings say what their answers' cells are).
// A nil condition holds; one with no rules holds for "all" and not for
// "any".
func (c *Condition) Holds(s *Survey, answers map[string]QuestionAnswer) bool {
	if c == nil {
		return true
	}
	if c.Match == MatchAny {
		return slices.ContainsFunc(c.Rules, func(r Rule) bool { return r.holds(s, answers) })
	}
	for _, r := range c.Rules {
		if !r.holds(s, answers) {
			return false
		}
	}
	return true
}

// sectionID is the ID of section k ("" for a survey without sections).
func (s *Survey) sectionID(k int) string {
	if k < len(s.Sections) {
		return s.Sections[k].ID
	}
	return ""
}

// VisibleQuestions are the questions of the section with ID section ("" is
// the first) whose ShowIf holds for answers, in order; Hidden questions
// (kept for old answers) are left out. answers are those the respondent's
// path keeps (DropHidden).
func (s *Survey) VisibleQuestions(section string, answers map[string]QuestionAnswer) []Question {
	k := max(slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == section }), 0)
	var out []Question
	for _, q := range s.Questions {
		if !q.Hidden && s.sectionIndex(q) == k && q.ShowIf.Holds(s, answers) {
			out = append(out, q)
		}
	}
	return out
}

// NextSection is the section that follows section current for answers:
// that of a quota cell the respondent was screened out of as they left it
// (WithScreened), else that of the first of its jumps whose condition holds, else the next
// section whose ShowIf holds (and which has questions); end when there is
// none, or a jump goes to the end.
func (s *Survey) NextSection(current string, answers map[string]QuestionAnswer) (next string, end bool) {
	k := slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == current })
	if k < 0 {
		if current != "" || len(s.Sections) == 0 {
			return "", true
		}
		k = 0
	}
	from := k + 1
	if to, ok := s.quotaSkip(current, k, answers); ok {
		// Screened out of a full quota cell as they left this section
		// (quota.go): its section, whatever the jumps and its ShowIf.
		return s.Sections[to].ID, false
	}
	for _, j := range s.Sections[k].Jumps {
		if !j.If.Holds(s, answers) {
			continue
		}
		if j.To == JumpEnd {
			return "", true
		}
		to := slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == j.To })
		if to <= k {
			// Never for a valid survey: jumps go forward.
			return "", true
		}
		from = to
		// The section jumped to is shown whatever its ShowIf.
		return s.Sections[from].ID, false
	}
	for n := from; n < len(s.Sections); n++ {
		if s.Sections[n].ShowIf.Holds(s, answers) && slices.ContainsFunc(s.Questions, func(q Question) bool { return !q.Hidden && s.sectionIndex(q) == n }) {
			return s.Sections[n].ID, false
		}
	}
	return "", true
}

// Path is the sections a respondent with answers goes through, in order,
// from the first (IDs; one "" for a survey without sections).
func (s *Survey) Path(answers map[string]QuestionAnswer) []string {
	cur := s.sectionID(0)
	path := []string{cur}
	for len(path) <= len(s.Sections) {
		next, end := s.NextSection(cur, answers)
		if end {
			break
		}
		path, cur = append(path, next), next
	}
	return path
}

// Shown are the IDs of the questions a respondent with answers sees: the
// visible questions of the sections on their path. Each condition is
// evaluated on the answers to the questions shown before it only, so an
// answer to a question that ends up hidden decides nothing.
func (s *Survey) Shown(answers map[string]QuestionAnswer) map[string]bool {
	shown := make(map[string]bool, len(s.Questions))
	kept := make(map[string]QuestionAnswer, len(answers))
	for id, qa := range answers {
		if pathKey(id) {
			kept[id] = qa // known from the start
		}
	}
	cur := s.sectionID(0)
	for range len(s.Sections) + 1 {
		k := max(slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == cur }), 0)
		for _, q := range s.Questions {
			if q.Hidden || s.sectionIndex(q) != k || !q.ShowIf.Holds(s, kept) {
				continue
			}
			shown[q.ID] = true
			if qa, ok := answers[q.ID]; ok {
				kept[q.ID] = qa
			}
		}
		next, end := s.NextSection(cur, kept)
		if end {
			break
		}
		cur = next
	}
	return shown
}

// DropHidden is answers without those to questions the respondent's path
// does not show (Shown).
func (s *Survey) DropHidden(answers map[string]QuestionAnswer) map[string]QuestionAnswer {
	shown := s.Shown(answers)
	out := make(map[string]QuestionAnswer, len(answers))
	for id, qa := range answers {
		if shown[id] || pathKey(id) {
			out[id] = qa
		}
	}
	return out
}

// RenameQuestions gives question i the ID ids[i] and makes the rules that
// named its old ID name the new one: for a new survey, whose questions
// are given their IDs when it is stored (a definition's rules name the
// IDs it gave its questions). ids has one ID per question.
func (s *Survey) RenameQuestions(ids []string) {
	renamed := map[string]string{}
	for i := range s.Questions {
		if old := s.Questions[i].ID; old != "" {
			if _, twice := renamed[old]; twice {
				renamed[old] = "" // two questions had it: it names neither
			} else {
				renamed[old] = ids[i]
			}
		}
		s.Questions[i].ID = ids[i]
	}
	// Choices that recall answers (piping.go) are renamed, and so are
	// the rules' values that name them.
	changed := map[string]string{}
	for i := range s.Questions {
		renameChoicePipes(&s.Questions[i], renamed, changed)
	}
	rename := func(c *Condition) {
		if c == nil {
			return
		}
		for i := range c.Rules {
			if id, ok := renamed[c.Rules[i].Question]; ok {
				c.Rules[i].Question = id
			}
			for j, v := range c.Rules[i].Values {
				if n, ok := changed[v]; ok {
					c.Rules[i].Values[j] = n
				}
			}
		}
	}
	for i := range s.Questions {
		rename(s.Questions[i].ShowIf)
		// And the answers its texts recall (piping.go).
		q := &s.Questions[i]
		q.Text, q.Help = renamePipes(q.Text, renamed), renamePipes(q.Help, renamed)
	}
	s.ThankYou = renamePipes(s.ThankYou, renamed)
	s.renameVarArgs(renamed)
	for i := range s.Outcomes {
		s.Outcomes[i].Message = renamePipes(s.Outcomes[i].Message, renamed)
	}
	for i := range s.Quotas {
		rename(&s.Quotas[i].If)
	}
	for i := range s.Sections {
		sc := &s.Sections[i]
		sc.Title, sc.Description = renamePipes(sc.Title, renamed), renamePipes(sc.Description, renamed)
		rename(s.Sections[i].ShowIf)
		for j := range s.Sections[i].Jumps {
			rename(&s.Sections[i].Jumps[j].If)
		}
	}
	// Translations follow their questions; those of a question no longer
	// named are dropped.
	if s.Translations != nil {
		out := make(map[string]Translation, len(s.Translations))
		for lang, t := range s.Translations {
			qs := map[string]QuestionText{}
			for old, qt := range t.Questions {
				if id := renamed[old]; id != "" {
					qt.Text, qt.Help = renamePipes(qt.Text, renamed), renamePipes(qt.Help, renamed)
					qt.Choices, qt.Rows = renameLabels(qt.Choices, renamed, changed), renameLabels(qt.Rows, renamed, changed)
					qs[id] = qt
				}
			}
			secs := map[string]SectionText{}
			for id, st := range t.Sections {
				st.Title, st.Description = renamePipes(st.Title, renamed), renamePipes(st.Description, renamed)
				secs[id] = st
			}
			if t.Sections != nil {
				t.Sections = secs
			}
			t.Questions = qs
			t.ThankYou = renamePipes(t.ThankYou, renamed)
			out[lang] = t
		}
		s.Translations = out
	}
}

// clone is a copy of c that shares nothing with it.
func (c *Condition) clone() *Condition {
	if c == nil {
		return nil
	}
	out := &Condition{Match: c.Match, Rules: slices.Clone(c.Rules)}
	for i := range out.Rules {
		out.Rules[i].Values = slices.Clone(out.Rules[i].Values)
	}
	return out
}

func cloneJumps(js []Jump) []Jump {
	out := slices.Clone(js)
	for i := range out {
		out[i].If = *out[i].If.clone()
	}
	return out
}
