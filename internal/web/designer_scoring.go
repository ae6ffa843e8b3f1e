package web

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The designer's scoring, as lines of text (scoring.go in survey): a
// question's points "Choice = 3", one a line, and its correct choices,
// one a line; the survey's variables "total = sum(q1, q2, 3)" and its
// outcomes "total >= 10: message", one a line. The designer reads
// questions as q<N> (their numbers on the page) and the domain stores
// their IDs.

// parsePoints reads "Choice = 3" lines; a line that does not read gives
// a problem naming it.
func parsePoints(text string) (map[string]float64, string) {
	var out map[string]float64
	for _, l := range lines(text) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		i := strings.LastIndex(l, "=")
		if i < 0 {
			return out, "Write each line as a choice, =, and its points: “Blue = 3”."
		}
		c, v := strings.TrimSpace(survey.CleanLine(l[:i])), strings.TrimSpace(l[i+1:])
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || c == "" {
			return out, "Write each line as a choice, =, and its points: “Blue = 3” (" + strconv.Quote(survey.CleanLine(l)) + " is not)."
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[c] = n
	}
	return out, ""
}

// pointsText is points as the designer shows them, in the order of
// choices.
func pointsText(points map[string]float64, choices []string) string {
	var out []string
	for _, c := range choices {
		if p, ok := points[c]; ok {
			out = append(out, c+" = "+survey.FormatValue(p))
		}
	}
	return strings.Join(out, "\n")
}

// varLineRE reads a variable's line: name = func(args).
var varLineRE = regexp.MustCompile(`^\s*([^=\s]+)\s*=\s*([A-Za-z]+)\s*\(([^()]*)\)\s*$`)

// parseVariables reads the variables' lines, their questions named as
// names maps them (q<N> to the question's ID).
func parseVariables(text string, names map[string]string) ([]survey.Variable, string) {
	var out []survey.Variable
	for _, l := range lines(text) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := varLineRE.FindStringSubmatch(l)
		if m == nil {
			return out, "Write each variable as a name, =, and a function of questions, variables and numbers: “total = sum(q1, q2, 3)” (" + strconv.Quote(survey.CleanLine(l)) + " is not)."
		}
		v := survey.Variable{Name: m[1], Func: strings.ToLower(m[2])}
		for _, a := range strings.Split(m[3], ",") {
			if a = strings.TrimSpace(a); a == "" {
				continue
			}
			if id, ok := names[a]; ok {
				a = id
			} else if _, err := strconv.ParseFloat(a, 64); err != nil && !strings.HasPrefix(a, survey.VarPrefix) && !strings.HasPrefix(a, "q") {
				a = survey.VarRef(a) // a variable, by its name
			}
			v.Args = append(v.Args, a)
		}
		out = append(out, v)
	}
	return out, ""
}

// variablesText is variables as the designer shows them, their
// questions named as names maps their IDs (to q<N>).
func variablesText(vs []survey.Variable, names map[string]string) string {
	var out []string
	for _, v := range vs {
		args := make([]string, len(v.Args))
		for i, a := range v.Args {
			if n, ok := names[a]; ok {
				a = n
			} else if n, ok := survey.VarName(a); ok {
				a = n
			}
			args[i] = a
		}
		out = append(out, v.Name+" = "+v.Func+"("+strings.Join(args, ", ")+")")
	}
	return strings.Join(out, "\n")
}

// outcomeLineRE reads an outcome's line: variable >= number: message.
var outcomeLineRE = regexp.MustCompile(`^\s*([^\s>=:]+)\s*(?:>=|≥)\s*(-?[0-9.]+)\s*:\s*(.*)$`)

// parseOutcomes reads the outcomes' lines.
func parseOutcomes(text string) ([]survey.Outcome, string) {
	var out []survey.Outcome
	for _, l := range lines(text) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := outcomeLineRE.FindStringSubmatch(l)
		n, err := 0.0, error(nil)
		if m != nil {
			n, err = strconv.ParseFloat(m[2], 64)
		}
		if m == nil || err != nil {
			return out, "Write each outcome as a variable, >=, a number, a colon and the message: “total >= 10: Well done!” (" + strconv.Quote(survey.CleanLine(l)) + " is not)."
		}
		out = append(out, survey.Outcome{Var: m[1], Min: n, Message: m[3]})
	}
	return out, ""
}

// outcomesText is outcomes as the designer shows them.
func outcomesText(os []survey.Outcome) string {
	var out []string
	for _, o := range os {
		out = append(out, o.Var+" >= "+survey.FormatValue(o.Min)+": "+o.Message)
	}
	return strings.Join(out, "\n")
}

// ScoringOpen: the scoring panel shows its controls when the survey has
// variables, outcomes or a redirect, or one of them has a problem.
func (p designerPage) ScoringOpen() bool {
	return strings.TrimSpace(p.Variables+p.Outcomes+p.Redirect) != "" || p.ShowCorrect ||
		p.Errors["variables"] != "" || p.Errors["outcomes"] != "" || p.Errors["redirect"] != ""
}

// Scorable: the question's kind may have points and correct answers.
func (q designerQuestion) Scorable() bool { return survey.Scorable(q.Q.Type) }

// variableNames are the names of the variables as typed, and the score
// when a question has points or correct answers: what a rule may look at.
func (p designerPage) variableNames() []string {
	var out []string
	for _, q := range p.Questions {
		if q.Scorable() && strings.TrimSpace(q.Points+q.Correct) != "" {
			out = append(out, survey.ScoreName)
			break
		}
	}
	vs, _ := parseVariables(p.Variables, nil)
	for _, v := range vs {
		if survey.ValidVariableName(v.Name) && v.Name != survey.ScoreName {
			out = append(out, v.Name)
		}
	}
	return out
}
