package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The designer's Quotas panel, without JavaScript: each quota travels in
// the form as quota.K.name, .limit, .message, .action (end or skip),
// .section (where a quota that skips sends a respondent) and its condition under
// quota.K.if (designer_logic.go's editor: rules on any question, equals
// or one of its choices, or on a hidden field); nquota is their count.
// The buttons are "addquota" and "rmquota.K"; the condition's own buttons
// are the logic editor's (addrule.quota.K.if …).

// designerQuota is a quota as typed.
type designerQuota struct {
	Name, Limit, Message string
	// Action is survey.QuotaEnd or survey.QuotaSkip; Section the section
	// a quota that skips goes to.
	Action, Section string
	If              designerCondition
	// Errors are the problems beside its fields: "name", "limit",
	// "message", "action", "section".
	Errors map[string]string
	// Pos is its number from 1, and Targets the options of its select of
	// sections (set for the page).
	Pos     int
	Targets []ruleOption
}

// Skips reports whether the quota skips to a section when full.
func (q designerQuota) Skips() bool { return q.Action == survey.QuotaSkip }

// Field is the id of the quota's control of field; FName its form name.
func (q designerQuota) Field(field string) string {
	return "quota" + strconv.Itoa(q.Pos-1) + "-" + field
}
func (q designerQuota) FName(field string) string {
	return "quota." + strconv.Itoa(q.Pos-1) + "." + field
}

// Err is the quota's problem beside field.
func (q designerQuota) Err(field string) string { return q.Errors[field] }

// parseQuotas reads the quotas of the designer's form.
func parseQuotas(f url.Values) []designerQuota {
	n, _ := strconv.Atoi(f.Get("nquota"))
	n = min(max(n, 0), survey.MaxQuotas+1)
	var out []designerQuota
	for k := range n {
		p := "quota." + strconv.Itoa(k)
		out = append(out, designerQuota{Name: f.Get(p + ".name"), Limit: strings.TrimSpace(f.Get(p + ".limit")), Message: f.Get(p + ".message"),
			Action: strings.TrimSpace(f.Get(p + ".action")), Section: strings.TrimSpace(f.Get(p + ".section")), If: parseCondition(f, p+".if")})
	}
	return out
}

// designerQuotasOf are a stored survey's quotas as the designer shows
// them.
func designerQuotasOf(qs []survey.Quota) []designerQuota {
	var out []designerQuota
	for _, q := range qs {
		out = append(out, designerQuota{Name: q.Name, Limit: strconv.Itoa(q.Limit), Message: q.Message, Action: q.Action, Section: q.Section, If: designerConditionOf(&q.If)})
	}
	return out
}

// surveyQuotas are the survey.Quotas the page defines: a limit that is not
// a whole number is 0, refused beside it (survey.Validate).
func (p designerPage) surveyQuotas() []survey.Quota {
	var out []survey.Quota
	for _, q := range p.Quotas {
		limit, err := strconv.Atoi(q.Limit)
		if err != nil {
			limit = 0
		}
		c := q.If.condition()
		if c == nil {
			c = &survey.Condition{Match: q.If.Match}
		}
		qt := survey.Quota{Name: q.Name, Limit: limit, Message: q.Message, Action: q.Action, If: *c}
		if q.Skips() {
			// The section select is there for every quota: only one
			// that skips goes to it.
			qt.Section = q.Section
		}
		out = append(out, qt)
	}
	return out
}

// QuotasOpen reports whether the Quotas panel is shown open.
func (p designerPage) QuotasOpen() bool {
	return len(p.Quotas) > 0 || p.Errors["quotas"] != "" || p.Focus == "addquota"
}

// QuotasNow says what the panel holds, closed.
func (p designerPage) QuotasNow() string {
	if len(p.Quotas) == 0 {
		return "None"
	}
	return survey.Count(int64(len(p.Quotas)), "quota")
}

// quotaAction applies the Quotas panel's buttons; ok false when action is
// not one of them.
func (p *designerPage) quotaAction(action string) (focus string, ok bool) {
	verb, arg, _ := strings.Cut(action, ".")
	switch verb {
	case "addquota":
		if len(p.Quotas) >= survey.MaxQuotas {
			return "addquota", true
		}
		// A first rule on the last question with choices.
		r := designerRule{Op: survey.OpEquals}
		for i := len(p.Questions) - 1; i >= 0; i-- {
			if q := p.Questions[i]; !q.Q.Hidden && q.Settings.Choices && !q.Settings.Rows {
				r.Question = q.Q.ID
				break
			}
		}
		p.Quotas = append(p.Quotas, designerQuota{Limit: "100", If: designerCondition{Match: survey.MatchAll, Rules: []designerRule{r}}})
		return "quota" + strconv.Itoa(len(p.Quotas)-1) + "-name", true
	case "rmquota":
		k, err := strconv.Atoi(arg)
		if err != nil || k < 0 || k >= len(p.Quotas) {
			return "", true
		}
		p.Quotas = slices.Delete(p.Quotas, k, k+1)
		return "addquota", true
	}
	return "", false
}

// prepareQuotas sets each quota's number, the options of its select of
// sections and its condition's names for the page; its rules may look at
// every question.
func (p *designerPage) prepareQuotas(allowed []designerQuestion) {
	for k := range p.Quotas {
		q := &p.Quotas[k]
		q.Pos = k + 1
		// Every section but the first: which are after the quota's
		// questions is survey.Validate's to say, beside the select.
		q.Targets = []ruleOption{{Value: "", Label: "Choose a section", Selected: q.Section == ""}}
		found := q.Section == ""
		for n, o := range p.Sections {
			if n > 0 {
				q.Targets = append(q.Targets, ruleOption{Value: o.ID, Label: sectionLabel(o), Selected: o.ID == q.Section})
				found = found || o.ID == q.Section
			}
		}
		if !found {
			q.Targets = append(q.Targets, ruleOption{Value: q.Section, Label: "A section that was removed", Selected: true})
		}
		c := &q.If
		c.Name, c.ID, c.Jump, c.Lead = "quota."+strconv.Itoa(k)+".if", "quota"+strconv.Itoa(k)+"-if", 0, "Count an answer in this quota if"
		p.prepareCondition(c, allowed, "Quota "+strconv.Itoa(k+1)+", ")
	}
}

// setQuotaErrors shows survey.Validate's problems of the quotas
// ("quotas", "quotas.K.name", ".limit", ".message", ".action", ".section",
// ".if…") beside their
// controls, and returns them for the page's summary.
func (p *designerPage) setQuotaErrors(errs map[string]string, used map[string]bool) []designerProblem {
	var out []designerProblem
	if m := errs["quotas"]; m != "" {
		used["quotas"] = true
		out = append(out, designerProblem{Field: "addquota", Message: "Quotas: " + m})
	}
	for k := range p.Quotas {
		q := &p.Quotas[k]
		q.Pos, q.Errors = k+1, nil
		key := "quotas." + strconv.Itoa(k)
		what := "Quota " + strconv.Itoa(k+1) + ": "
		for _, f := range []string{"name", "limit", "message", "action", "section"} {
			if m := errs[key+"."+f]; m != "" {
				used[key+"."+f] = true
				if q.Errors == nil {
					q.Errors = map[string]string{}
				}
				q.Errors[f] = m
				out = append(out, designerProblem{Field: q.Field(f), Message: what + m})
			}
		}
		q.If.Name, q.If.ID = "quota."+strconv.Itoa(k)+".if", "quota"+strconv.Itoa(k)+"-if"
		out = append(out, setConditionErrors(&q.If, key+".if", errs, used, what)...)
	}
	return out
}
