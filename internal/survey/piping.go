package survey

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Piping (recall): a question's text or help, or a section's title or
// description, may name an answer given on an earlier page, or a hidden
// field, between double braces: {{<question ID>}} or {{<hidden field>}},
// with a fallback after a bar, {{q3|your favourite}}, shown when there is
// no answer (nothing when none is given). The respondent's pages show the
// answer as people read it (AnswerText) in place; it is text, escaped as
// any (html/template). A reference to a later question, one on the same
// page (its answer is not known when the page is shown), a question the
// survey does not have, or a hidden field it does not declare is refused.
//
// The stored texts name questions by ID (RenameQuestions follows them);
// the designer shows and reads them as {{q<position>}}.
//
// A choice's label (a choice question's possible answers, a ranking's
// items, a matrix's rows and columns) may recall answers too: the page
// shows it piped, but what the respondent's choice sends, and the answer
// stores, is the designer's label as it is, references and all, so that
// summaries, logic and exports read the same choices whatever was
// recalled.

// pipeRE matches a reference: its name (a question's ID, a hidden field's
// name, or hidden:<name>) and its fallback.
var pipeRE = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_:\-]{1,60})\s*(?:\|([^{}]{0,200}))?\}\}`)

// PipeRef is one reference of a text.
type PipeRef struct {
	Name, Fallback string
}

// PipeRefs are the references of text, in order.
func PipeRefs(text string) []PipeRef {
	if !strings.Contains(text, "{{") {
		return nil
	}
	var out []PipeRef
	for _, m := range pipeRE.FindAllStringSubmatch(text, -1) {
		out = append(out, PipeRef{Name: m[1], Fallback: strings.TrimSpace(m[2])})
	}
	return out
}

// pipeHidden is the hidden field ref names, when it names one of s's:
// "source" or "hidden:source" (a question's ID first: a question whose
// ID is a hidden field's name is the question).
func (s *Survey) pipeHidden(ref string) (string, bool) {
	if _, ok := s.Question(ref); ok {
		return "", false
	}
	if n, ok := HiddenName(ref); ok {
		ref = n
	}
	return ref, s.HasHidden(ref)
}

// pipeVar is the variable reference ref names, when it names one of
// s's (or its score): "total" or "var:total" (a question or a hidden
// field of that name first).
func (s *Survey) pipeVar(ref string) (string, bool) {
	if _, ok := s.Question(ref); ok {
		return "", false
	}
	n, ok := VarName(ref)
	if !ok {
		if s.HasHidden(ref) {
			return "", false
		}
		n = ref
	}
	return VarRef(n), s.HasVariable(n)
}

// HasPiping reports whether a text of the survey's questions (their
// choices too) or sections (or of their translations) names an answer or
// a hidden field.
func (s *Survey) HasPiping() bool {
	pipes := func(l string) bool { return strings.Contains(l, "{{") }
	for _, q := range s.Questions {
		if strings.Contains(q.Text, "{{") || strings.Contains(q.Help, "{{") ||
			(!TakesFiles(q) && (slices.ContainsFunc(q.PossibleAnswers, pipes) || slices.ContainsFunc(q.Rows, pipes))) {
			return true
		}
	}
	for _, sc := range s.Sections {
		if strings.Contains(sc.Title, "{{") || strings.Contains(sc.Description, "{{") {
			return true
		}
	}
	for _, t := range s.Translations {
		for _, qt := range t.Questions {
			if strings.Contains(qt.Text, "{{") || strings.Contains(qt.Help, "{{") ||
				slices.ContainsFunc(slices.Collect(maps.Values(qt.Choices)), pipes) || slices.ContainsFunc(slices.Collect(maps.Values(qt.Rows)), pipes) {
				return true
			}
		}
		for _, st := range t.Sections {
			if strings.Contains(st.Title, "{{") || strings.Contains(st.Description, "{{") {
				return true
			}
		}
	}
	return false
}

// validatePipe adds the problem of the references of text under key: a
// text of section `section` (an index of s.Sections; 0 for a survey
// without sections) may name the questions of the sections before it,
// and the hidden fields.
func (s *Survey) validatePipe(text, key string, section int, f fieldErrors) {
	for _, r := range PipeRefs(text) {
		if _, ok := s.pipeHidden(r.Name); ok {
			continue
		}
		if ref, ok := s.pipeVar(r.Name); ok {
			before := slices.IndexFunc(s.Questions, func(q Question) bool { return s.sectionIndex(q) >= section })
			if before < 0 {
				before = len(s.Questions)
			}
			if p := s.varRefProblem(ref, before); p != "" {
				f.add(key, "{{%s}}: %s", CleanLine(r.Name), p)
			}
			continue
		}
		at := slices.IndexFunc(s.Questions, func(q Question) bool { return q.ID == r.Name })
		switch {
		case at < 0 || s.Questions[at].Hidden:
			f.add(key, "{{%s}} names no question and no hidden field of this survey.", CleanLine(r.Name))
		case s.sectionIndex(s.Questions[at]) >= section:
			f.add(key, "{{%s}} names a question on the same page or a later one: recall only the answers of earlier pages.", CleanLine(r.Name))
		}
	}
}

// validatePiping adds the problems of the references of every text that
// may have them: "questions.N.text", ".help", ".choices", ".rows",
// "sections.N.title" and ".description".
func (s *Survey) validatePiping(f fieldErrors) {
	for i, q := range s.Questions {
		k := s.sectionIndex(q)
		key := "questions." + strconv.Itoa(i)
		s.validatePipe(q.Text, key+".text", k, f)
		s.validatePipe(q.Help, key+".help", k, f)
		if !TakesFiles(q) {
			// (A file question's "choices" are kinds of file.)
			s.validatePipe(strings.Join(q.PossibleAnswers, "\n"), key+".choices", k, f)
			s.validatePipe(strings.Join(q.Rows, "\n"), key+".rows", k, f)
		}
	}
	for k, sc := range s.Sections {
		key := "sections." + strconv.Itoa(k)
		s.validatePipe(sc.Title, key+".title", k, f)
		s.validatePipe(sc.Description, key+".description", k, f)
	}
	// The thank-you message comes after every page.
	s.validatePipe(s.ThankYou, "thankYou", max(len(s.Sections), 1), f)
}

// MaxRecalled bounds each answer the thank-you page recalls, in
// characters: it travels in the page's address (web).
const MaxRecalled = 200

// Recalled are what the thank-you message (and its translations) recall
// of answers and hidden values, by reference name, as Pipe shows them
// (cut to MaxRecalled characters), with what the texts of the quiz
// questions it lists (ShowCorrect) recall: what the thank-you page needs,
// and nothing more. nil when it recalls nothing.
func (s *Survey) Recalled(answers map[string]QuestionAnswer, hidden map[string]string) map[string]string {
	return s.recalled(s.recallTexts(), answers, hidden)
}

// RecalledOf is Recalled of an answer's answers, as a list: the map of
// them Recalled reads is made only when a text recalls something.
func (s *Survey) RecalledOf(answers []QuestionAnswer, hidden map[string]string) map[string]string {
	texts := s.recallTexts()
	if !slices.ContainsFunc(texts, func(t string) bool { return len(PipeRefs(t)) > 0 }) {
		return nil
	}
	byID := make(map[string]QuestionAnswer, len(answers))
	for _, qa := range answers {
		byID[qa.QuestionID] = qa
	}
	return s.recalled(texts, byID, hidden)
}

// recallTexts are the texts of the thank-you page that may recall
// answers (Recalled).
func (s *Survey) recallTexts() []string {
	texts := []string{s.ThankYou}
	for _, o := range s.Outcomes {
		texts = append(texts, o.Message)
	}
	for _, t := range s.Translations {
		texts = append(texts, t.ThankYou)
		texts = append(texts, t.Outcomes...)
	}
	if s.ShowCorrect {
		for _, q := range s.Questions {
			if len(q.Correct) == 0 {
				continue
			}
			texts = append(texts, q.Text)
			for _, t := range s.Translations {
				texts = append(texts, t.Questions[q.ID].Text)
			}
		}
	}
	return texts
}

// recalled is what texts recall of answers and hidden values (Recalled).
func (s *Survey) recalled(texts []string, answers map[string]QuestionAnswer, hidden map[string]string) map[string]string {
	var out map[string]string
	for _, text := range texts {
		for _, r := range PipeRefs(text) {
			v := s.Pipe("{{"+r.Name+"}}", answers, hidden)
			if v == "" {
				continue
			}
			if rs := []rune(v); len(rs) > MaxRecalled {
				v = string(rs[:MaxRecalled-1]) + "…"
			}
			if out == nil {
				out = map[string]string{}
			}
			out[r.Name] = v
		}
	}
	return out
}

// PipeRecalled is text with its references replaced by recalled (by
// reference name, Recalled), else their fallbacks.
func PipeRecalled(text string, recalled map[string]string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	return replacePipes(text, func(name, fallback string) string { return or(recalled[name], fallback) })
}

// Pipe is text with its references replaced: by the answer to the
// question named (as people read it, AnswerText), by the hidden field's
// value, else by the reference's fallback. answers are by question ID,
// hidden values by name.
func (s *Survey) Pipe(text string, answers map[string]QuestionAnswer, hidden map[string]string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	return replacePipes(text, func(name, fallback string) string {
		if n, ok := s.pipeHidden(name); ok {
			return or(hidden[n], fallback)
		}
		if ref, ok := s.pipeVar(name); ok {
			return or(s.varAnswer(ref, answers).Answer, fallback)
		}
		qa, ok := answers[name]
		if !ok || qa.Answer == "" {
			return fallback
		}
		q, _ := s.Question(name)
		if k, ok := KindOf(qa.Type); ok {
			if q.Type != qa.Type {
				q = Question{ID: qa.QuestionID, Text: qa.QuestionText, Type: qa.Type}
			}
			return or(AnswerText(k, q, qa), fallback)
		}
		return or(qa.Answer, fallback)
	})
}

// renameChoicePipes renames the references of q's choices and rows, and
// of what names them (points, correct choices, hidden ones); the pairs
// of changed, old label to new, for the rules and translations that name
// them. A file question's "choices" are kinds of file: left alone.
func renameChoicePipes(q *Question, renamed map[string]string, changed map[string]string) {
	if TakesFiles(*q) {
		return
	}
	rn := func(ls []string) {
		for i, l := range ls {
			if n := renamePipes(l, renamed); n != l {
				changed[l], ls[i] = n, n
			}
		}
	}
	rn(q.PossibleAnswers)
	rn(q.Rows)
	rn(q.HiddenChoices)
	rn(q.HiddenRows)
	rn(q.Correct)
	for c, p := range q.Points {
		if n := renamePipes(c, renamed); n != c {
			delete(q.Points, c)
			q.Points[n] = p
		}
	}
}

// renameLabels is m (translations by original label) with its keys and
// values' references renamed.
func renameLabels(m map[string]string, renamed, changed map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[or(changed[k], k)] = renamePipes(v, renamed)
	}
	return out
}

// replacePipes is text with each of its references replaced by what
// with gives for its name and its fallback (trimmed): one pass over the
// text (pipeMatches; a page recalls answers in many texts).
func replacePipes(text string, with func(name, fallback string) string) string {
	ms := pipeMatches(text)
	if ms == nil {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m[0]])
		fallback := ""
		if m[4] >= 0 {
			fallback = text[m[4]:m[5]]
		}
		b.WriteString(with(text[m[2]:m[3]], strings.TrimSpace(fallback)))
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// renamePipes is text with its references to questions renamed.
func renamePipes(text string, renamed map[string]string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	return pipeRE.ReplaceAllStringFunc(text, func(m string) string {
		sub := pipeRE.FindStringSubmatch(m)
		id, ok := renamed[sub[1]]
		if !ok || id == "" {
			return m
		}
		if sub[2] != "" {
			return "{{" + id + "|" + sub[2] + "}}"
		}
		return "{{" + id + "}}"
	})
}

// RenamePipes is text with each reference whose name has a new one in
// names renamed: the designer's {{q3}} to the question's ID, and back.
func RenamePipes(text string, names map[string]string) string { return renamePipes(text, names) }

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Numbered is s with the references of its texts naming the questions by
// their numbers, {{q3}}, as the designer shows them: for the pages and
// exports that show the texts to subscribers. s itself when it recalls
// nothing; otherwise a copy (its questions and sections new slices).
func (s *Survey) Numbered() *Survey {
	if !s.HasPiping() && !strings.Contains(s.ThankYou, "{{") {
		return s
	}
	names := make(map[string]string, len(s.Questions))
	for i, q := range s.Questions {
		names[q.ID] = "q" + strconv.Itoa(i+1)
	}
	cp := *s
	cp.Questions = slices.Clone(s.Questions)
	for i := range cp.Questions {
		q := &cp.Questions[i]
		q.Text, q.Help = renamePipes(q.Text, names), renamePipes(q.Help, names)
		// Its choices stay as stored: the answers' values are those.
	}
	cp.Sections = slices.Clone(s.Sections)
	for i := range cp.Sections {
		sc := &cp.Sections[i]
		sc.Title, sc.Description = renamePipes(sc.Title, names), renamePipes(sc.Description, names)
	}
	cp.ThankYou = renamePipes(s.ThankYou, names)
	return &cp
}

// pipeMatches is pipeRE.FindAllStringSubmatchIndex(text, -1), found by
// hand: a page pipes its texts on every request, and the regexp was a
// fifth of a piped page's time (FuzzPipeMatches compares the two).
func pipeMatches(text string) [][]int {
	var out [][]int
	for i := 0; ; {
		k := strings.Index(text[i:], "{{")
		if k < 0 {
			return out
		}
		i += k
		if m := pipeAt(text, i); m != nil {
			out = append(out, m)
			i = m[1]
			continue
		}
		i++
	}
}

// pipeAt is pipeRE's match starting at text[i:], which begins with
// "{{", or nil: the name (1 to 60 of [A-Za-z0-9_:-]) between spaces,
// then "|" and a fallback of at most 200 characters other than braces,
// or not, then "}}".
func pipeAt(text string, i int) []int {
	j := skipSpace(text, i+2)
	n := j
	for n < len(text) && n-j <= 60 && isPipeName(text[n]) {
		n++
	}
	if n == j || n-j > 60 {
		return nil
	}
	e := skipSpace(text, n)
	fs, fe := -1, -1
	if e < len(text) && text[e] == '|' {
		f, runes := e+1, 0 // the fallback's end; its characters
		for f < len(text) && runes <= 200 && text[f] != '{' && text[f] != '}' {
			_, w := utf8.DecodeRuneInString(text[f:])
			f += w
			runes++
		}
		if runes <= 200 && strings.HasPrefix(text[f:], "}}") {
			return []int{i, f + 2, j, n, e + 1, f}
		}
	}
	if !strings.HasPrefix(text[e:], "}}") {
		return nil
	}
	return []int{i, e + 2, j, n, fs, fe}
}

// skipSpace is the index of the first byte from i that is not in \s.
func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\f' || text[i] == '\r') {
		i++
	}
	return i
}

func isPipeName(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':' || c == '-'
}
