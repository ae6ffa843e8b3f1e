package survey

import (
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Scores, calculations and quizzes. A choice question (multiple choice,
// checkboxes, dropdown, yes/no) may give points per choice (Points), and
// name its correct choices (Correct) with a line of feedback (Feedback):
// a quiz. A question answered with a number counts as that number. The
// survey's score is the sum of its questions' points, a correct answer to
// a question with Correct but no Points counting 1. Named variables
// (Variables) compute the sum, count, average, min or max of chosen
// questions, other variables and constants; the score is the variable
// ScoreName. Values are computed at submit from the answer alone
// (Survey.Values) and stored with it (SurveyAnswer.Values): the worker and
// the exports read them as columns. A rule or a text names a variable as
// VarRef(name), "var:total" ({{total}} in a text too). Outcomes choose the
// thank-you message by a variable's value; Redirect sends the respondent
// on to an https address instead.

// Limits of scoring.
const (
	MaxVariables     = 20
	MaxVariableName  = 40
	MaxVariableArgs  = 50
	MaxOutcomes      = 10
	MaxRedirectURL   = 500
	MaxFeedback      = 500
	MaxAbsConstant   = 1e9
	MaxOutcomeLength = MaxDescriptionLength
)

// ScoreName is the variable that is the survey's score.
const ScoreName = "score"

// VarPrefix starts the reference to a variable where a question's ID is
// expected (a rule's question, a filter's q, a text's reference).
const VarPrefix = "var:"

// VarRef is the reference to variable name.
func VarRef(name string) string { return VarPrefix + name }

// VarName is the variable ref names, when it names one.
func VarName(ref string) (string, bool) { return strings.CutPrefix(ref, VarPrefix) }

// Functions of a variable.
const (
	FuncSum     = "sum"
	FuncCount   = "count"
	FuncAverage = "average"
	FuncMin     = "min"
	FuncMax     = "max"
)

// Funcs are the functions a variable may have.
func Funcs() []string { return []string{FuncSum, FuncCount, FuncAverage, FuncMin, FuncMax} }

// Variable is a named value computed from answers: Func of Args, each a
// question's ID, another variable's reference (VarRef) or a constant (a
// decimal number).
type Variable struct {
	Name string   `json:"name"`
	Func string   `json:"func"`
	Args []string `json:"args"`
}

// Outcome chooses the thank-you message: the first outcome whose variable
// (Var: a variable's name, ScoreName for the score) is at least Min shows
// Message instead of the survey's ThankYou.
type Outcome struct {
	Var     string  `json:"var"`
	Min     float64 `json:"min"`
	Message string  `json:"message"`
}

// pointChoices is the trait of a kind whose choices may carry points and
// be correct: the choices of q as its form sends them.
type pointChoices interface {
	pointChoices(q Question) []string
}

// PointChoices are the choices of q that may carry points; nil when its
// kind has none.
func PointChoices(q Question) []string {
	k, ok := KindOf(q.Type)
	if !ok {
		return nil
	}
	if pc, ok := k.(pointChoices); ok {
		return pc.pointChoices(q)
	}
	return nil
}

func (multipleChoice) pointChoices(q Question) []string { return q.PossibleAnswers }
func (checkboxes) pointChoices(q Question) []string     { return q.PossibleAnswers }
func (dropdown) pointChoices(q Question) []string       { return q.PossibleAnswers }
func (yesNo) pointChoices(Question) []string            { return []string{AnswerYes, AnswerNo} }

// HasScoring reports whether the survey computes values: points, correct
// answers or variables.
func (s *Survey) HasScoring() bool {
	if len(s.Variables) > 0 {
		return true
	}
	return slices.ContainsFunc(s.Questions, func(q Question) bool { return len(q.Points) > 0 || len(q.Correct) > 0 })
}

// IsQuiz reports whether a question of the survey names correct answers.
func (s *Survey) IsQuiz() bool {
	return slices.ContainsFunc(s.Questions, func(q Question) bool { return len(q.Correct) > 0 })
}

// chosen are the choices of answer qa to q (its form's values).
func chosen(q Question, qa QuestionAnswer) []string {
	k, ok := KindOf(qa.Type)
	if !ok || qa.Answer == "" {
		return nil
	}
	return k.form(q, qa.Answer)[""]
}

// Correctly reports whether qa answers q correctly: its choices are
// exactly q's Correct ones. ok is false when q names none.
func Correctly(q Question, qa QuestionAnswer) (correct, ok bool) {
	if len(q.Correct) == 0 {
		return false, false
	}
	c := chosen(q, qa)
	if len(c) != len(q.Correct) {
		return false, true
	}
	for _, v := range c {
		if !slices.Contains(q.Correct, v) {
			return false, true
		}
	}
	return true, true
}

// questionValue is what answer qa to q counts for: its points, 1 for a
// correct answer to a quiz question without points, or its number; ok
// is false when it counts for nothing (no answer, or not a number).
func questionValue(q Question, qa QuestionAnswer) (float64, bool) {
	if qa.Answer == "" || q.Type != qa.Type {
		return 0, false
	}
	if len(q.Points) > 0 {
		sum := 0.0
		for _, c := range chosen(q, qa) {
			sum += q.Points[c]
		}
		return sum, true
	}
	if correct, ok := Correctly(q, qa); ok {
		if correct {
			return 1, true
		}
		return 0, true
	}
	if numeric(q) {
		if cells, ok := answerCells(q, qa); ok && len(cells) == 1 {
			return filterNumber(cells[0])
		}
	}
	return 0, false
}

// Score is the survey's score for answers: the sum of the values of its
// questions that have points or correct answers.
func (s *Survey) score(answers map[string]QuestionAnswer) (float64, bool) {
	sum, any := 0.0, false
	for _, q := range s.Questions {
		if len(q.Points) == 0 && len(q.Correct) == 0 {
			continue
		}
		any = true
		if v, ok := questionValue(q, answers[q.ID]); ok {
			sum += v
		}
	}
	return sum, any
}

// Variable returns the variable named name.
func (s *Survey) Variable(name string) (Variable, bool) {
	i := slices.IndexFunc(s.Variables, func(v Variable) bool { return v.Name == name })
	if i < 0 {
		return Variable{}, false
	}
	return s.Variables[i], true
}

// HasVariable reports whether name is one of the survey's variables or
// its score.
func (s *Survey) HasVariable(name string) bool {
	if name == ScoreName {
		return s.HasScoring()
	}
	_, ok := s.Variable(name)
	return ok
}

// VarValue is the value of variable name for answers (by question ID);
// ok is false when it has none (no answer among its questions, for all
// but sum).
func (s *Survey) VarValue(name string, answers map[string]QuestionAnswer) (float64, bool) {
	return s.varValue(name, answers, 0)
}

func (s *Survey) varValue(name string, answers map[string]QuestionAnswer, depth int) (float64, bool) {
	if depth > MaxVariables+1 {
		return 0, false // a cycle: never for a valid survey
	}
	v, ok := s.Variable(name)
	if !ok {
		if name == ScoreName {
			return s.score(answers)
		}
		return 0, false
	}
	var vals []float64
	for _, a := range v.Args {
		if n, ok := VarName(a); ok {
			if x, ok := s.varValue(n, answers, depth+1); ok {
				vals = append(vals, x)
			}
			continue
		}
		if q, ok := s.Question(a); ok {
			if x, ok := questionValue(q, answers[a]); ok {
				vals = append(vals, x)
			}
			continue
		}
		if x, ok := constant(a); ok {
			vals = append(vals, x)
		}
	}
	switch v.Func {
	case FuncSum:
		sum := 0.0
		for _, x := range vals {
			sum += x
		}
		return sum, true
	case FuncCount:
		return float64(len(vals)), true
	}
	if len(vals) == 0 {
		return 0, false
	}
	switch v.Func {
	case FuncAverage:
		sum := 0.0
		for _, x := range vals {
			sum += x
		}
		return sum / float64(len(vals)), true
	case FuncMin:
		return slices.Min(vals), true
	case FuncMax:
		return slices.Max(vals), true
	}
	return 0, false
}

// constant reads a constant argument: a decimal number within bounds.
func constant(a string) (float64, bool) {
	if !isDecimal(a) || len(a) > 20 {
		return 0, false
	}
	x, err := strconv.ParseFloat(a, 64)
	return x, err == nil && math.Abs(x) <= MaxAbsConstant
}

// VarNames are the names of the values an answer stores: the score (when
// the survey has points or correct answers), then its variables.
func (s *Survey) VarNames() []string {
	var out []string
	if _, ok := s.score(nil); ok {
		out = append(out, ScoreName)
	}
	for _, v := range s.Variables {
		if v.Name != ScoreName {
			out = append(out, v.Name)
		}
	}
	return out
}

// Values are the values of the survey's score and variables for an
// answer's answers, formatted (FormatValue); nil when it has none.
func (s *Survey) Values(answers []QuestionAnswer) map[string]string {
	names := s.VarNames()
	if len(names) == 0 {
		return nil
	}
	by := make(map[string]QuestionAnswer, len(answers))
	for _, qa := range answers {
		by[qa.QuestionID] = qa
	}
	out := map[string]string{}
	for _, n := range names {
		if x, ok := s.VarValue(n, by); ok {
			out[n] = FormatValue(x)
		}
	}
	return out
}

// FormatValue writes a value as a decimal number, rounded to 4 places.
func FormatValue(x float64) string {
	x = math.Round(x*1e4) / 1e4
	if x == 0 {
		x = 0 // no "-0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// VarColumns name the export's columns of the values, after the hidden
// fields' ("total (variable)").
func (s *Survey) VarColumns() []string {
	names := s.VarNames()
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + " (variable)"
	}
	return out
}

// VarCells are an answer's cells of those columns: its stored values, or
// for an answer stored without them, recomputed from its answers.
func (s *Survey) VarCells(a *SurveyAnswer) []string {
	names := s.VarNames()
	vals := a.Values
	if vals == nil && len(names) > 0 {
		vals = s.Values(a.Answers)
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = vals[n]
	}
	return out
}

// Outcome is the outcome for values (by variable name, formatted): the
// first whose variable's value is at least its Min. ok is false when none
// is.
func (s *Survey) Outcome(values map[string]string) (int, bool) {
	for i, o := range s.Outcomes {
		v, ok := values[o.Var]
		if !ok {
			continue
		}
		if x, ok := filterNumber(v); ok && x >= o.Min {
			return i, true
		}
	}
	return 0, false
}

// RedirectURL is the address the respondent is sent on to after an
// answer with values and hidden: the survey's Redirect, with the values
// and hidden fields appended (URL-escaped) when RedirectFields. "" when
// the survey has none.
func (s *Survey) RedirectURL(values, hidden map[string]string) string {
	if s.Redirect == "" {
		return ""
	}
	if !s.RedirectFields || len(values)+len(hidden) == 0 {
		return s.Redirect
	}
	u, err := url.Parse(s.Redirect)
	if err != nil {
		return s.Redirect
	}
	q := u.Query()
	for n, v := range hidden {
		q.Set(n, v)
	}
	for n, v := range values {
		q.Set(n, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// varNameRE is what a variable's name may be.
var varNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// ValidVariableName reports whether name can name a variable: 1 to
// MaxVariableName lower-case letters, digits and "_", starting with a
// letter, and not q and a number (the designer's name of a question).
func ValidVariableName(name string) bool {
	return varNameRE.MatchString(name) && !designerRef(name)
}

// normalizeScoring cleans the scoring settings.
func (s *Survey) normalizeScoring() {
	for i := range s.Questions {
		q := &s.Questions[i]
		q.Feedback = strings.TrimSpace(CleanLine(q.Feedback))
		if PointChoices(*q) == nil {
			q.Points, q.Correct = nil, nil
		}
		for c, p := range q.Points {
			if p == 0 {
				delete(q.Points, c)
			}
		}
		if len(q.Points) == 0 {
			q.Points = nil
		}
		q.Correct = normalizeLines(q.Correct)
		if len(q.Correct) == 0 && len(q.Points) == 0 {
			q.Feedback = ""
		}
	}
	var vs []Variable
	for _, v := range s.Variables {
		v.Name = strings.ToLower(strings.TrimSpace(v.Name))
		v.Func = strings.ToLower(strings.TrimSpace(v.Func))
		var args []string
		for _, a := range v.Args {
			if a = strings.TrimSpace(a); a != "" {
				args = append(args, a)
			}
		}
		v.Args = args
		if v.Name != "" || v.Func != "" || len(args) > 0 {
			vs = append(vs, v)
		}
	}
	s.Variables = vs
	for i := range s.Outcomes {
		o := &s.Outcomes[i]
		o.Var = strings.ToLower(strings.TrimSpace(o.Var))
		o.Message = strings.TrimSpace(CleanText(strings.ReplaceAll(o.Message, "\r\n", "\n")))
	}
	s.Redirect = strings.TrimSpace(s.Redirect)
	if s.Redirect == "" {
		s.RedirectFields = false
	}
}

// validateScoring adds the problems of the points, correct answers,
// variables, outcomes and redirect: keys "questions.N.points",
// ".correct", ".feedback", "variables", "outcomes", "redirect".
func (s *Survey) validateScoring(f fieldErrors) {
	for i, q := range s.Questions {
		key := "questions." + strconv.Itoa(i)
		choices := PointChoices(q)
		for c, p := range q.Points {
			switch {
			case !slices.Contains(choices, c):
				f.add(key+".points", "%q is not one of the question's choices.", CleanLine(c))
			case math.IsNaN(p) || math.Abs(p) > MaxAbsConstant:
				f.add(key+".points", "Give %q a number of points between -1000000000 and 1000000000.", c)
			}
		}
		for _, c := range q.Correct {
			if !slices.Contains(choices, c) {
				f.add(key+".correct", "%q is not one of the question's choices.", CleanLine(c))
			}
		}
		switch n := utf8.RuneCountInString(q.Feedback); {
		case n > MaxFeedback:
			f.add(key+".feedback", "Keep the feedback to %d characters (it has %d).", MaxFeedback, n)
		case !IsCleanLine(q.Feedback):
			f.add(key+".feedback", "The feedback may not contain control characters or direction overrides.")
		}
	}
	s.validateVariables(f)
	if len(s.Outcomes) > MaxOutcomes {
		f.add("outcomes", "A survey has at most %d outcomes (it has %d).", MaxOutcomes, len(s.Outcomes))
	}
	for _, o := range s.Outcomes {
		switch n := utf8.RuneCountInString(o.Message); {
		case !s.HasVariable(o.Var):
			f.add("outcomes", "An outcome names %q, which is neither the score nor a variable of this survey.", CleanLine(o.Var))
		case math.IsNaN(o.Min) || math.IsInf(o.Min, 0):
			f.add("outcomes", "An outcome's lower bound must be a number.")
		case strings.TrimSpace(o.Message) == "":
			f.add("outcomes", "Write each outcome's message.")
		case n > MaxOutcomeLength:
			f.add("outcomes", "Keep each outcome's message to %d characters (one has %d).", MaxOutcomeLength, n)
		case !IsCleanText(o.Message):
			f.add("outcomes", "An outcome's message may not contain control characters or direction overrides.")
		}
		s.validatePipe(o.Message, "outcomes", max(len(s.Sections), 1), f)
	}
	if s.Redirect != "" {
		u, err := url.Parse(s.Redirect)
		switch {
		case len(s.Redirect) > MaxRedirectURL:
			f.add("redirect", "Keep the address to %d characters.", MaxRedirectURL)
		case err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || !IsCleanLine(s.Redirect) || strings.ContainsAny(s.Redirect, " \t"):
			f.add("redirect", "Give an https:// address, such as https://example.com/thanks.")
		}
	}
}

// validateVariables adds the problems of the variables under "variables"
// (one message for the list, naming the variable at fault).
func (s *Survey) validateVariables(f fieldErrors) {
	if len(s.Variables) > MaxVariables {
		f.add("variables", "A survey has at most %d variables (it has %d).", MaxVariables, len(s.Variables))
		return
	}
	for i, v := range s.Variables {
		name := CleanLine(v.Name)
		switch {
		case v.Name == ScoreName:
			f.add("variables", "%q is the survey's score: give the variable another name.", ScoreName)
		case !ValidVariableName(v.Name):
			f.add("variables", "The name %q is not allowed: use lower-case letters, digits and _, starting with a letter (and not q and a number).", name)
		case slices.ContainsFunc(s.Variables[:i], func(o Variable) bool { return o.Name == v.Name }):
			f.add("variables", "The variable %q is named twice.", name)
		case s.HasHidden(v.Name):
			f.add("variables", "%q is a hidden field's name: give the variable another.", name)
		case !slices.Contains(Funcs(), v.Func):
			f.add("variables", "%q: choose one of %s.", name, strings.Join(Funcs(), ", "))
		case len(v.Args) == 0:
			f.add("variables", "%q: name the questions, variables or numbers it is computed from.", name)
		case len(v.Args) > MaxVariableArgs:
			f.add("variables", "%q: at most %d questions, variables and numbers.", name, MaxVariableArgs)
		}
		for _, a := range v.Args {
			if n, ok := VarName(a); ok {
				if !s.HasVariable(n) {
					f.add("variables", "%q names %q, which is not a variable of this survey.", name, CleanLine(n))
				}
				continue
			}
			if q, ok := s.Question(a); ok {
				if !q.Hidden && !numeric(q) && len(q.Points) == 0 && len(q.Correct) == 0 {
					f.add("variables", "%q names a question that has neither points nor a number for an answer.", name)
				}
				continue
			}
			if _, ok := constant(a); !ok {
				f.add("variables", "%q names %q, which is neither a question, a variable nor a number.", name, CleanLine(a))
			}
		}
	}
	// Cycles: a variable may not depend on itself.
	for _, v := range s.Variables {
		if s.dependsOn(v.Name, v.Name, 0) {
			f.add("variables", "%q depends on itself: break the cycle.", CleanLine(v.Name))
			return
		}
	}
}

// dependsOn reports whether variable name is computed from variable
// target, however indirectly.
func (s *Survey) dependsOn(name, target string, depth int) bool {
	if depth > MaxVariables {
		return true
	}
	v, ok := s.Variable(name)
	if !ok {
		return false
	}
	for _, a := range v.Args {
		if n, ok := VarName(a); ok && (n == target || s.dependsOn(n, target, depth+1)) {
			return true
		}
	}
	return false
}

// varQuestions are the indexes of the questions variable name is computed
// from, however indirectly (every scored question for the score).
func (s *Survey) varQuestions(name string, depth int) []int {
	if depth > MaxVariables {
		return nil
	}
	var out []int
	v, ok := s.Variable(name)
	if !ok {
		if name == ScoreName {
			for i, q := range s.Questions {
				if len(q.Points) > 0 || len(q.Correct) > 0 {
					out = append(out, i)
				}
			}
		}
		return out
	}
	for _, a := range v.Args {
		if n, ok := VarName(a); ok {
			out = append(out, s.varQuestions(n, depth+1)...)
		} else if i := slices.IndexFunc(s.Questions, func(q Question) bool { return q.ID == a }); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// varRefProblem is the problem of a rule or a text naming ref, a
// variable reference, where only questions of index before `before` are
// known ("" for none).
func (s *Survey) varRefProblem(ref string, before int) string {
	n, _ := VarName(ref)
	if !s.HasVariable(n) {
		return "This survey has no variable " + strconv.Quote(CleanLine(n)) + ": choose another."
	}
	for _, i := range s.varQuestions(n, 0) {
		if i >= before {
			return "The variable " + strconv.Quote(n) + " is computed from a question asked later: a rule can only look at what is known."
		}
	}
	return ""
}

// withVars is answers with the values of the variables refs name under
// those refs, as the logic reads them.
func (s *Survey) varAnswer(ref string, answers map[string]QuestionAnswer) QuestionAnswer {
	n, _ := VarName(ref)
	x, ok := s.VarValue(n, answers)
	if !ok {
		return QuestionAnswer{QuestionID: ref}
	}
	return QuestionAnswer{QuestionID: ref, QuestionText: n, Answer: FormatValue(x)}
}

// renameVarArgs renames the questions the variables name.
func (s *Survey) renameVarArgs(renamed map[string]string) {
	for i := range s.Variables {
		for j, a := range s.Variables[i].Args {
			if id, ok := renamed[a]; ok && id != "" {
				s.Variables[i].Args[j] = id
			}
		}
	}
}

// cloneScoring gives cp its own copies of the scoring settings of s.
func cloneVariables(vs []Variable) []Variable {
	out := slices.Clone(vs)
	for i := range out {
		out[i].Args = slices.Clone(out[i].Args)
	}
	return out
}

// Scorable reports whether questions of kind t may have points and
// correct answers.
func Scorable(t QuestionType) bool {
	k, ok := KindOf(t)
	if !ok {
		return false
	}
	_, ok = k.(pointChoices)
	return ok
}

// Scoring is what a survey computes from its answers and does with the
// result: Variables are values computed from the answers, Outcomes the
// thank-you messages chosen by them, ShowCorrect shows a quiz's correct
// answers and feedback on the thank-you page, Redirect sends the
// respondent on to an https address after their answer, with the values
// and hidden fields appended when RedirectFields. Its JSON is how the API,
// definitions and the Surveys row carry it.
type Scoring struct {
	Variables      []Variable `json:"variables,omitempty"`
	Outcomes       []Outcome  `json:"outcomes,omitempty"`
	ShowCorrect    bool       `json:"showCorrect,omitempty"`
	Redirect       string     `json:"redirect,omitempty"`
	RedirectFields bool       `json:"redirectFields,omitempty"`
}
