package web

import (
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The designer's logic, without JavaScript: each question has "Show this
// question only if…", each section "Show this section only if…" and
// "After this section, go to…" (jumps), each a condition of rules (the
// page calls them conditions) on earlier questions. A condition travels
// in the form under a prefix P ("q.N.if", "s.K.if", "s.K.j.M.if"):
// P.match (all or any), P.n its count of rules, and per rule R
// P.R.question (a question's ID), P.R.op, P.R.values (the choices ticked,
// for a question with choices) or P.R.value (typed; "is one of" splits it
// at commas). A section's jumps are s.K.nj and s.K.j.M.to. The buttons
// are "addrule.P", "rmrule.P.R", "apply.P.R" (the page again, showing the
// choices of the rule's question), "addjump.K" and "rmjump.K.M". Rules
// name questions by ID: a new question is given a temporary one
// (newQuestionIDs) that the store renames on saving.

// designerCondition is a condition as typed: no rules is no condition.
type designerCondition struct {
	Match string
	Rules []designerRule
	// Errors are the problems of the condition as a whole ("" for
	// "match" and "rules" alike).
	Errors map[string]string

	// Name and ID are its form name's and its controls' ids' prefixes
	// ("q.3.if", "q3-if"); Jump the 1-based number of its jump (0 for a
	// ShowIf); all three set for the page (prepareLogic).
	Name, ID string
	Jump     int
	// Lead starts the sentence of its select of all or any ("Show this
	// question if").
	Lead string
	// Focus is the id of the page's control to focus.
	Focus string
}

// designerRule is one rule (a "condition" to people) as typed.
type designerRule struct {
	Question, Op string
	Values       []string
	// Errors are the problems beside its controls: "question", "op",
	// "values".
	Errors map[string]string

	// Set for the page (prepareLogic): its number from 1, form name and
	// id prefixes, the questions it may look at (its select's options),
	// and the choices of its question (nil: its value is typed, Text).
	Num      int
	Name, ID string
	Options  []ruleOption
	Choices  []ruleChoice
	Text     string
	Label    string // "Condition 2" or "Jump 1, condition 2": for aria-labels
}

// ruleOption is an option of a rule's select of questions.
type ruleOption struct {
	Value, Label string
	Selected     bool
}

// ruleChoice is a choice of a rule's question, ticked or not; Gone when
// the question no longer has it (a rule's value kept as typed).
type ruleChoice struct {
	Value         string
	Checked, Gone bool
}

// designerJump is one jump of a section as typed.
type designerJump struct {
	To string
	If designerCondition
	// Errors: "to".
	Errors map[string]string
	// Num (from 1) and the options of its select of sections, for the
	// page.
	Num     int
	Targets []ruleOption
}

// ruleOps are the ops the designer offers, in words.
var ruleOps = []struct{ Value, Label string }{
	{survey.OpEquals, "is"}, {survey.OpNotEquals, "is not"}, {survey.OpOneOf, "is one of"},
	{survey.OpGreaterThan, "is more than"}, {survey.OpLessThan, "is less than"},
	{survey.OpAnswered, "is answered"}, {survey.OpNotAnswered, "is not answered"},
}

// Ops are the ops a rule may have, in words.
func (designerRule) Ops() []struct{ Value, Label string } { return ruleOps }

// NoValue reports whether the rule's op takes no value (its value control
// is hidden by designer.js).
func (r designerRule) NoValue() bool {
	return r.Op == survey.OpAnswered || r.Op == survey.OpNotAnswered
}

// Field is the id of the rule's control of field; FName its form name.
func (r designerRule) Field(field string) string { return r.ID + "-" + field }
func (r designerRule) FName(field string) string { return r.Name + "." + field }

// Err is the rule's problem beside field; Aria marks the control.
func (r designerRule) Err(field string) string { return r.Errors[field] }
func (r designerRule) Aria(field string) template.HTMLAttr {
	if r.Err(field) == "" {
		return ""
	}
	return template.HTMLAttr(` aria-invalid="true" aria-describedby="` + template.HTMLEscapeString(r.Field(field)+"-err") + `"`)
}

// RemoveLabel names the rule's remove button for people.
func (r designerRule) RemoveLabel() string { return "Remove " + r.Label }

// Err is the condition's own problem.
func (c designerCondition) Err() string { return c.Errors[""] }

// Open reports whether the condition's block is shown open: it has rules
// or a problem.
func (c designerCondition) Open() bool { return len(c.Rules) > 0 || len(c.Errors) > 0 }

// parseCondition reads the condition under prefix p of the designer's
// form.
func parseCondition(f url.Values, p string) designerCondition {
	c := designerCondition{Match: f.Get(p + ".match")}
	n, _ := strconv.Atoi(f.Get(p + ".n"))
	n = min(max(n, 0), survey.MaxRules+1)
	for i := range n {
		rp := p + "." + strconv.Itoa(i) + "."
		r := designerRule{Question: strings.TrimSpace(f.Get(rp + "question")), Op: f.Get(rp + "op")}
		for _, v := range f[rp+"values"] {
			if v = strings.TrimSpace(v); v != "" && !slices.Contains(r.Values, v) && len(r.Values) <= survey.MaxRuleValues {
				r.Values = append(r.Values, v)
			}
		}
		typed := strings.TrimSpace(f.Get(rp + "value"))
		parts := []string{typed}
		if r.Op == survey.OpOneOf {
			parts = strings.Split(typed, ",")
		}
		for _, v := range parts {
			if v = strings.TrimSpace(v); v != "" && !slices.Contains(r.Values, v) && len(r.Values) <= survey.MaxRuleValues {
				r.Values = append(r.Values, v)
			}
		}
		c.Rules = append(c.Rules, r)
	}
	return c
}

// parseJumps reads the jumps s.K.j.M.* of section k.
func parseJumps(f url.Values, k int) []designerJump {
	p := "s." + strconv.Itoa(k) + "."
	n, _ := strconv.Atoi(f.Get(p + "nj"))
	n = min(max(n, 0), survey.MaxJumps+1)
	var out []designerJump
	for m := range n {
		jp := p + "j." + strconv.Itoa(m) + "."
		out = append(out, designerJump{To: strings.TrimSpace(f.Get(jp + "to")), If: parseCondition(f, jp+"if")})
	}
	return out
}

// condition is the survey.Condition c defines; nil for no rules. The
// values of a rule whose op takes none are dropped (typed before the op
// changed).
func (c designerCondition) condition() *survey.Condition {
	if len(c.Rules) == 0 {
		return nil
	}
	out := &survey.Condition{Match: c.Match}
	for _, r := range c.Rules {
		sr := survey.Rule{Question: r.Question, Op: r.Op, Values: slices.Clone(r.Values)}
		if r.NoValue() {
			sr.Values = nil
		}
		out.Rules = append(out.Rules, sr)
	}
	return out
}

// jumps are the survey.Jumps of js (a jump without rules keeps an empty
// condition, which survey.Validate refuses beside it).
func jumps(js []designerJump) []survey.Jump {
	var out []survey.Jump
	for _, j := range js {
		c := j.If.condition()
		if c == nil {
			c = &survey.Condition{Match: j.If.Match}
		}
		out = append(out, survey.Jump{If: *c, To: j.To})
	}
	return out
}

// designerConditionOf is a stored condition as the designer shows it.
func designerConditionOf(c *survey.Condition) designerCondition {
	if c == nil {
		return designerCondition{}
	}
	out := designerCondition{Match: c.Match}
	for _, r := range c.Rules {
		out.Rules = append(out.Rules, designerRule{Question: r.Question, Op: r.Op, Values: slices.Clone(r.Values)})
	}
	return out
}

func designerJumpsOf(js []survey.Jump) []designerJump {
	var out []designerJump
	for _, j := range js {
		out = append(out, designerJump{To: j.To, If: designerConditionOf(&j.If)})
	}
	return out
}

// newQuestionIDPrefix starts the temporary IDs of new questions, which
// rules name until the store gives the questions theirs.
const newQuestionIDPrefix = "new-"

// newQuestionIDs gives each question without an ID a temporary one that
// no other question has.
func newQuestionIDs(qs []designerQuestion) {
	used := map[string]bool{}
	for _, q := range qs {
		used[q.Q.ID] = true
	}
	n := 1
	for i := range qs {
		if qs[i].Q.ID != "" {
			continue
		}
		for used[newQuestionIDPrefix+strconv.Itoa(n)] {
			n++
		}
		qs[i].Q.ID = newQuestionIDPrefix + strconv.Itoa(n)
		used[qs[i].Q.ID] = true
	}
}

// ruleQuestionLabel names question q (at 1-based position pos) in a
// rule's select.
func ruleQuestionLabel(q designerQuestion) string {
	text := strings.TrimSpace(q.Q.Text)
	if text == "" {
		text = "(no text yet)"
	}
	if utf8.RuneCountInString(text) > 60 {
		text = string([]rune(text)[:59]) + "…"
	}
	return "Question " + strconv.Itoa(q.Pos) + ": " + text
}

// prepareLogic sets, for the page, each condition's names and ids, each
// rule's select of the questions it may look at (those asked before; the
// one it names is kept as an option even when it may not, so that its
// problem shows beside it), its choices, and each jump's select of the
// sections it may go to. The questions are in their final order.
func (p *designerPage) prepareLogic() {
	qs := p.Questions
	// Questions a rule may name: visible ones, before index `before`.
	allowed := func(before int) []designerQuestion {
		var out []designerQuestion
		for _, q := range qs[:min(max(before, 0), len(qs))] {
			if !q.Q.Hidden {
				out = append(out, q)
			}
		}
		return out
	}
	for i := range qs {
		c := &qs[i].If
		c.Name, c.ID, c.Jump, c.Lead = "q."+strconv.Itoa(i)+".if", "q"+strconv.Itoa(i)+"-if", 0, "Show this question if"
		p.prepareCondition(c, allowed(i), "")
	}
	p.prepareQuotas(allowed(len(qs)))
	// first[k] is the index of section k's first question.
	first := make([]int, len(p.Sections)+1)
	for k := range first {
		first[k] = len(qs)
		if at := slices.IndexFunc(qs, func(q designerQuestion) bool { return q.Sec >= k }); at >= 0 {
			first[k] = at
		}
	}
	for k := range p.Sections {
		s := &p.Sections[k]
		s.If.Name, s.If.ID, s.If.Jump, s.If.Lead = "s."+strconv.Itoa(k)+".if", "s"+strconv.Itoa(k)+"-if", 0, "Show this section if"
		p.prepareCondition(&s.If, allowed(first[k]), "")
		for m := range s.Jumps {
			j := &s.Jumps[m]
			j.Num = m + 1
			j.If.Name, j.If.ID, j.If.Jump, j.If.Lead = "s."+strconv.Itoa(k)+".j."+strconv.Itoa(m)+".if", "s"+strconv.Itoa(k)+"-j"+strconv.Itoa(m)+"-if", m+1, "Take this jump if"
			p.prepareCondition(&j.If, allowed(first[k+1]), "Jump "+strconv.Itoa(m+1)+", ")
			j.Targets = nil
			found := j.To == ""
			for n := k + 1; n < len(p.Sections); n++ {
				o := p.Sections[n]
				j.Targets = append(j.Targets, ruleOption{Value: o.ID, Label: sectionLabel(o), Selected: o.ID == j.To})
				found = found || o.ID == j.To
			}
			j.Targets = append(j.Targets, ruleOption{Value: survey.JumpEnd, Label: "End of the survey", Selected: j.To == survey.JumpEnd})
			found = found || j.To == survey.JumpEnd
			if !found {
				// Backwards, itself, or gone: kept, so that its problem
				// shows beside it.
				label := "A section that was removed"
				if at := slices.IndexFunc(p.Sections, func(o designerSection) bool { return o.ID == j.To }); at >= 0 {
					label = sectionLabel(p.Sections[at]) + " (not after this one)"
				}
				j.Targets = append([]ruleOption{{Value: j.To, Label: label, Selected: true}}, j.Targets...)
			}
		}
	}
}

// sectionLabel names a section in a jump's select.
func sectionLabel(s designerSection) string {
	l := "Section " + strconv.Itoa(s.Pos)
	if t := strings.TrimSpace(s.Title); t != "" {
		if utf8.RuneCountInString(t) > 50 {
			t = string([]rune(t)[:49]) + "…"
		}
		l += ": " + t
	}
	return l
}

// prepareCondition sets the rules of c for the page: ok are the
// questions they may look at; label prefixes their aria-labels.
func (p *designerPage) prepareCondition(c *designerCondition, ok []designerQuestion, label string) {
	if c.Match != survey.MatchAny {
		c.Match = survey.MatchAll
	}
	c.Focus = p.Focus
	for r := range c.Rules {
		rule := &c.Rules[r]
		rule.Num, rule.Name, rule.ID = r+1, c.Name+"."+strconv.Itoa(r), c.ID+"-"+strconv.Itoa(r)
		rule.Label = label + "condition " + strconv.Itoa(r+1)
		if label == "" {
			rule.Label = "Condition " + strconv.Itoa(r+1)
		}
		rule.Options = nil
		if rule.Question == "" {
			rule.Options = append(rule.Options, ruleOption{Label: "Choose a question", Selected: true})
		}
		found := rule.Question == ""
		for _, q := range ok {
			rule.Options = append(rule.Options, ruleOption{Value: q.Q.ID, Label: ruleQuestionLabel(q), Selected: q.Q.ID == rule.Question})
			found = found || q.Q.ID == rule.Question
		}
		// The hidden fields' values are known from the first page: any
		// rule may look at them.
		for _, n := range p.hiddenFieldNames() {
			ref := survey.HiddenRef(n)
			rule.Options = append(rule.Options, ruleOption{Value: ref, Label: "Hidden field “" + n + "”", Selected: ref == rule.Question})
			found = found || ref == rule.Question
		}
		// The variables, known when the questions they add up are
		// (survey.Validate says when they are not).
		for _, n := range p.variableNames() {
			ref := survey.VarRef(n)
			rule.Options = append(rule.Options, ruleOption{Value: ref, Label: "Variable “" + n + "”", Selected: ref == rule.Question})
			found = found || ref == rule.Question
		}
		if n, isVar := survey.VarName(rule.Question); !found && isVar {
			rule.Options = append(rule.Options, ruleOption{Value: rule.Question, Label: "Variable “" + n + "” (no longer defined)", Selected: true})
			found = true
		}
		if n, hidden := survey.HiddenName(rule.Question); !found && hidden {
			rule.Options = append(rule.Options, ruleOption{Value: rule.Question, Label: "Hidden field “" + n + "” (no longer declared)", Selected: true})
			found = true
		}
		if !found {
			l := "A question that was removed"
			if at := slices.IndexFunc(p.Questions, func(q designerQuestion) bool { return q.Q.ID == rule.Question }); at >= 0 {
				l = ruleQuestionLabel(p.Questions[at])
				if p.Questions[at].Q.Hidden {
					l += " (hidden)"
				} else {
					l += " (not asked before)"
				}
			}
			rule.Options = append(rule.Options, ruleOption{Value: rule.Question, Label: l, Selected: true})
		}
		rule.Choices, rule.Text = nil, strings.Join(rule.Values, ", ")
		at := slices.IndexFunc(p.Questions, func(q designerQuestion) bool { return q.Q.ID == rule.Question })
		if at < 0 || !p.Questions[at].Settings.Choices || p.Questions[at].Settings.Rows {
			continue
		}
		var choices []string
		for _, l := range lines(p.Questions[at].Choices) {
			if l = strings.TrimSpace(l); l != "" && !slices.Contains(choices, l) {
				choices = append(choices, l)
			}
		}
		if len(choices) == 0 {
			continue
		}
		for _, ch := range choices {
			rule.Choices = append(rule.Choices, ruleChoice{Value: ch, Checked: slices.ContainsFunc(rule.Values, func(v string) bool { return strings.EqualFold(v, ch) })})
		}
		for _, v := range rule.Values {
			if !slices.ContainsFunc(choices, func(ch string) bool { return strings.EqualFold(v, ch) }) {
				rule.Choices = append(rule.Choices, ruleChoice{Value: v, Checked: true, Gone: true})
			}
		}
	}
}

// defaultRule is a new rule of a condition that may look at the
// questions before index before: on the last of them.
func (p *designerPage) defaultRule(before int) designerRule {
	r := designerRule{Op: survey.OpEquals}
	for i := min(before, len(p.Questions)) - 1; i >= 0; i-- {
		if !p.Questions[i].Q.Hidden {
			r.Question = p.Questions[i].Q.ID
			break
		}
	}
	return r
}

// logicAction applies a button of the logic editor (see the top of this
// file). It returns the id of the control to focus, and ok false when
// action is not the logic editor's. The questions are ordered and
// numbered, and have their IDs (the posted form's indexes are those of
// the questions' orig).
func (p *designerPage) logicAction(action string) (focus string, ok bool) {
	verb, arg, _ := strings.Cut(action, ".")
	switch verb {
	case "addrule", "rmrule", "apply":
	case "addjump":
		k, err := strconv.Atoi(arg)
		if err != nil || k < 0 || k >= len(p.Sections) {
			return "", true
		}
		s := &p.Sections[k]
		if len(s.Jumps) >= survey.MaxJumps {
			return "", true
		}
		end := len(p.Questions)
		if at := slices.IndexFunc(p.Questions, func(q designerQuestion) bool { return q.Sec > k }); at >= 0 {
			end = at
		}
		to := survey.JumpEnd
		if k+1 < len(p.Sections) {
			to = p.Sections[k+1].ID
		}
		s.Jumps = append(s.Jumps, designerJump{To: to, If: designerCondition{Match: survey.MatchAll, Rules: []designerRule{p.defaultRule(end)}}})
		m := len(s.Jumps) - 1
		return "s" + strconv.Itoa(k) + "-j" + strconv.Itoa(m) + "-if-0-question", true
	case "rmjump":
		ks, ms, _ := strings.Cut(arg, ".")
		k, err1 := strconv.Atoi(ks)
		m, err2 := strconv.Atoi(ms)
		if err1 != nil || err2 != nil || k < 0 || k >= len(p.Sections) || m < 0 || m >= len(p.Sections[k].Jumps) {
			return "", true
		}
		s := &p.Sections[k]
		s.Jumps = slices.Delete(s.Jumps, m, m+1)
		return "s" + strconv.Itoa(k) + "-addjump", true
	default:
		return "", false
	}
	target, rule := arg, -1
	if verb != "addrule" {
		at := strings.LastIndex(arg, ".")
		if at < 0 {
			return "", true
		}
		n, err := strconv.Atoi(arg[at+1:])
		if err != nil {
			return "", true
		}
		target, rule = arg[:at], n
	}
	c, before, id := p.conditionOf(target)
	if c == nil {
		return "", true
	}
	switch verb {
	case "addrule":
		if len(c.Rules) >= survey.MaxRules {
			return id + "-add", true
		}
		c.Rules = append(c.Rules, p.defaultRule(before))
		return id + "-" + strconv.Itoa(len(c.Rules)-1) + "-question", true
	case "rmrule":
		if rule < 0 || rule >= len(c.Rules) {
			return "", true
		}
		c.Rules = slices.Delete(c.Rules, rule, rule+1)
		if len(c.Rules) == 0 {
			c.Errors = nil
		}
		return id + "-add", true
	}
	// apply: the page again, its value showing the question's choices.
	if rule < 0 || rule >= len(c.Rules) {
		return "", true
	}
	return id + "-" + strconv.Itoa(rule) + "-op", true
}

// conditionOf finds the condition a button names by its posted form
// prefix ("q.N.if", "s.K.if", "s.K.j.M.if"): the condition, the index of
// the first question its rules may not look at, and its controls' id
// prefix on the page to come.
func (p *designerPage) conditionOf(target string) (c *designerCondition, before int, id string) {
	parts := strings.Split(target, ".")
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			return -1
		}
		return n
	}
	switch {
	case len(parts) == 3 && parts[0] == "quota" && parts[2] == "if":
		k := num(parts[1])
		if k >= 0 && k < len(p.Quotas) {
			return &p.Quotas[k].If, len(p.Questions), "quota" + strconv.Itoa(k) + "-if"
		}
	case len(parts) == 3 && parts[0] == "q" && parts[2] == "if":
		orig := num(parts[1])
		for i := range p.Questions {
			if p.Questions[i].orig == orig && orig >= 0 {
				return &p.Questions[i].If, i, "q" + strconv.Itoa(i) + "-if"
			}
		}
	case len(parts) >= 3 && parts[0] == "s":
		k := num(parts[1])
		if k < 0 || k >= len(p.Sections) {
			return nil, 0, ""
		}
		first := func(k int) int {
			if at := slices.IndexFunc(p.Questions, func(q designerQuestion) bool { return q.Sec >= k }); at >= 0 {
				return at
			}
			return len(p.Questions)
		}
		s := &p.Sections[k]
		if len(parts) == 3 && parts[2] == "if" {
			return &s.If, first(k), "s" + strconv.Itoa(k) + "-if"
		}
		if len(parts) == 5 && parts[2] == "j" && parts[4] == "if" {
			m := num(parts[3])
			if m >= 0 && m < len(s.Jumps) {
				return &s.Jumps[m].If, first(k + 1), "s" + strconv.Itoa(k) + "-j" + strconv.Itoa(m) + "-if"
			}
		}
	}
	return nil, 0, ""
}

// setLogicErrors shows survey.Validate's problems of the conditions and
// jumps ("questions.N.showIf…", "sections.K.showIf…", "sections.K.jumps",
// "sections.K.jumps.M.to", "sections.K.jumps.M.if…") beside their
// controls, and returns them for the page's summary, in the page's
// order.
func (p *designerPage) setLogicErrors(errs map[string]string, used map[string]bool) []designerProblem {
	var out []designerProblem
	for i := range p.Questions {
		key := "questions." + strconv.Itoa(i) + ".showIf"
		c := &p.Questions[i].If
		c.Name, c.ID = "q."+strconv.Itoa(i)+".if", "q"+strconv.Itoa(i)+"-if"
		out = append(out, setConditionErrors(c, key, errs, used, "Question "+strconv.Itoa(i+1)+", show only if: ")...)
	}
	for k := range p.Sections {
		s := &p.Sections[k]
		key := "sections." + strconv.Itoa(k)
		s.If.Name, s.If.ID = "s."+strconv.Itoa(k)+".if", "s"+strconv.Itoa(k)+"-if"
		what := "Section " + strconv.Itoa(k+1)
		out = append(out, setConditionErrors(&s.If, key+".showIf", errs, used, what+", show only if: ")...)
		if m := errs[key+".jumps"]; m != "" {
			used[key+".jumps"] = true
			if s.Errors == nil {
				s.Errors = map[string]string{}
			}
			s.Errors["jumps"] = m
			out = append(out, designerProblem{Field: s.Field("addjump"), Message: what + ": " + m})
		}
		for m := range s.Jumps {
			j := &s.Jumps[m]
			jk := key + ".jumps." + strconv.Itoa(m)
			j.Errors = nil
			j.If.Name, j.If.ID = "s."+strconv.Itoa(k)+".j."+strconv.Itoa(m)+".if", "s"+strconv.Itoa(k)+"-j"+strconv.Itoa(m)+"-if"
			jwhat := what + ", jump " + strconv.Itoa(m+1) + ": "
			out = append(out, setConditionErrors(&j.If, jk+".if", errs, used, jwhat)...)
			if msg := errs[jk+".to"]; msg != "" {
				used[jk+".to"] = true
				j.Errors = map[string]string{"to": msg}
				out = append(out, designerProblem{Field: s.JumpField(m, "to"), Message: jwhat + msg})
			}
		}
	}
	return out
}

// setConditionErrors puts the problems under key (the condition's own,
// and its rules') beside c's controls.
func setConditionErrors(c *designerCondition, key string, errs map[string]string, used map[string]bool, what string) []designerProblem {
	var out []designerProblem
	c.Errors = nil
	for r := range c.Rules {
		c.Rules[r].Errors = nil
	}
	for _, k := range []string{key, key + ".match", key + ".rules"} {
		if m := errs[k]; m != "" {
			used[k] = true
			if c.Errors == nil {
				c.Errors = map[string]string{}
			}
			if c.Errors[""] != "" {
				c.Errors[""] += " "
			}
			c.Errors[""] += m
			out = append(out, designerProblem{Field: c.ID + "-add", Message: what + m})
		}
	}
	for r := range c.Rules {
		rule := &c.Rules[r]
		rk := key + ".rules." + strconv.Itoa(r) + "."
		for _, f := range []string{"question", "op", "values"} {
			m := errs[rk+f]
			if m == "" {
				continue
			}
			used[rk+f] = true
			if rule.Errors == nil {
				rule.Errors = map[string]string{}
			}
			rule.Errors[f] = m
			field := c.ID + "-" + strconv.Itoa(r) + "-" + f
			if f == "values" {
				field = c.ID + "-" + strconv.Itoa(r) + "-value"
			}
			out = append(out, designerProblem{Field: field, Message: what + "condition " + strconv.Itoa(r+1) + ": " + m})
		}
	}
	return out
}

// JumpField is the id of jump m's control of field.
func (s designerSection) JumpField(m int, field string) string {
	return "s" + strconv.Itoa(s.Pos-1) + "-j" + strconv.Itoa(m) + "-" + field
}

// JumpName is the form name of jump m's field.
func (s designerSection) JumpName(m int, field string) string {
	return "s." + strconv.Itoa(s.Pos-1) + ".j." + strconv.Itoa(m) + "." + field
}

// NextLabel says where the section goes when no jump applies.
func (p designerPage) NextLabel(k int) string {
	if k+1 < len(p.Sections) {
		return sectionLabel(p.Sections[k+1])
	}
	return "the end of the survey"
}
