package web

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// FuzzDesignerLogicForm posts any form and any button to the designer's
// logic: its parser stays within the limits, never panics, and every
// problem of a condition or a jump is shown beside a control.
func FuzzDesignerLogicForm(f *testing.F) {
	base := "n=3&ns=2&s.0.id=s1&s.1.id=s2&q.0.id=car&q.0.text=Car&q.0.type=MultipleChoice&q.0.choices=Yes%0ANo&q.1.text=Age&q.1.type=Number&q.2.id=x&q.2.text=X&q.2.type=SimpleText&q.2.section=1"
	f.Add(base+"&q.2.if.n=1&q.2.if.0.question=car&q.2.if.0.op=equals&q.2.if.0.values=Yes", "save")
	f.Add(base+"&s.0.nj=1&s.0.j.0.to=s2&s.0.j.0.if.n=2&s.0.j.0.if.0.question=new-1&s.0.j.0.if.0.op=greater_than&s.0.j.0.if.0.value=3", "addrule.s.0.j.0.if")
	f.Add(base+"&s.1.if.n=99&s.1.if.0.question=x&s.1.if.0.op=one_of&s.1.if.0.value=a,b,,c", "rmrule.s.1.if.0")
	f.Add(base+"&s.0.nj=11&s.0.j.3.to=s1", "rmjump.0.3")
	f.Add(base+"&q.1.if.n=1&q.1.if.0.question=car&q.1.if.0.values=Maybe", "apply.q.1.if.0")
	f.Add(base, "addjump.1")
	f.Fuzz(func(t *testing.T, raw, action string) {
		form, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p := designerPage{Questions: parseQuestions(form), Sections: parseSections(form)}
		groupQuestions(p.Questions, len(p.Sections))
		newQuestionIDs(p.Questions)
		limits := func(c designerCondition) {
			if len(c.Rules) > survey.MaxRules+1 {
				t.Fatalf("%d rules", len(c.Rules))
			}
			for _, r := range c.Rules {
				if len(r.Values) > survey.MaxRuleValues+1 {
					t.Fatalf("%d values", len(r.Values))
				}
			}
		}
		for _, q := range p.Questions {
			limits(q.If)
		}
		for _, s := range p.Sections {
			limits(s.If)
			if len(s.Jumps) > survey.MaxJumps+1 {
				t.Fatalf("%d jumps", len(s.Jumps))
			}
			for _, j := range s.Jumps {
				limits(j.If)
			}
		}
		p.logicAction(action)
		sv, own := p.definition(time.Now())
		errs := definitionProblems(sv, own)
		newQuestionIDs(p.Questions)
		p.setErrors(errs)
		p.prepareLogic()
		for k, m := range errs {
			if !strings.Contains(k, ".showIf") && !strings.Contains(k, ".jumps") {
				continue
			}
			shown := false
			for _, pr := range p.Problems {
				shown = shown || (pr.Field != "" && strings.HasSuffix(pr.Message, m))
			}
			if !shown {
				t.Fatalf("%s (%q) is not beside a control: %+v", k, m, p.Problems)
			}
		}
	})
}
