package web

import (
	"context"
	"errors"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// SurveyEditor is what the designer needs of the survey store.
type SurveyEditor interface {
	Create(ctx context.Context, s *survey.Survey) error
	Update(ctx context.Context, s *survey.Survey) error
	Revision(ctx context.Context, s *survey.Survey) (*survey.Revision, error)
	SetState(ctx context.Context, tenant, slug string, state survey.State) (*survey.Survey, error)
	SetChallenge(ctx context.Context, tenant, slug string, on bool) error
	SetTranslations(ctx context.Context, tenant, slug, language string, translations map[string]survey.Translation) error
	Trash(ctx context.Context, tenant, slug string) error
	Restore(ctx context.Context, tenant, slug string) error
	Delete(ctx context.Context, tenant, slug string) error
}

type designerPage struct {
	Tenant string
	Survey *survey.Survey // the stored survey when editing; nil when new
	Title  string
	Listed bool
	// Challenge asks respondents' browsers for a proof of work.
	Challenge bool
	CloseOn   string // YYYY-MM-DD, or ""
	// EmbedOrigins are the sites that may frame the survey, one a line.
	EmbedOrigins string
	// PublicResults shows the charts of the questions marked InResults on
	// a public page.
	PublicResults bool
	// HiddenFields are the names of the survey's hidden fields, one a
	// line, as typed; Prefill lets the link prefill its questions.
	HiddenFields string
	Prefill      bool
	// SendCopy lets respondents e-mail themselves a copy of their
	// answers from the thank-you page.
	SendCopy bool
	// Variables and Outcomes are the scoring's lines as typed
	// (designer_scoring.go), ShowCorrect, Redirect and RedirectFields
	// the survey's.
	Variables, Outcomes, Redirect string
	ShowCorrect, RedirectFields   bool
	// KeepPartial is the minutes after which partial answers are kept,
	// as typed ("" or "0": none).
	KeepPartial string
	// OnePer and MayChange: one answer per browser or personal link
	// (share_personallinks.go), as typed.
	OnePer      string
	MayChange   bool
	Description string
	ThankYou    string
	Questions   []designerQuestion
	// Sections are the survey's sections (designer_sections.go); none is
	// one page.
	Sections []designerSection
	// Quotas are the survey's quotas (designer_quotas.go).
	Quotas []designerQuota
	// Errors are the problems by survey.Validate's keys; Problems the
	// same, in the page's order, for the summary at its top, each linked
	// to the field it is shown beside.
	Errors   map[string]string
	Problems []designerProblem
	// Frozen: a survey in the trash, shown, not edited.
	Frozen bool
	// Answers counts the survey's answers, Answered each question's, by
	// ID (a published or closed survey's).
	Answers  int64
	Answered map[string]int64
	// Action is the form's URL (this page's); the buttons that land on a
	// question add its fragment (#q-N).
	Action string
	// Focus is the id of the control to focus when the page loads.
	Focus   string
	Kinds   []survey.Kind
	Message string
	// Saved: the page comes after saving an edit of a published survey.
	Saved bool
	// Version is the stored survey's version the form was made from
	// (survey.Survey.Version): a save of a survey changed since is
	// refused. EditedBy is who saves, from the session.
	Version, EditedBy string
	// Conflict: the save was refused, the survey having been saved by
	// someone else since (Message says who and when).
	Conflict bool
	// pictureProblems are the problems of the pictures uploaded with the
	// form (uploadPictures), by survey.Validate's keys.
	pictureProblems map[string]string
}

// Autosave: a new survey or a draft is saved as it is typed (with
// JavaScript, designer_live.go); a published one by its Save button.
func (p designerPage) Autosave() bool {
	return !p.Frozen && (p.Survey == nil || p.Survey.State == survey.Draft)
}

// settingsFields are the controls of the designer's settings panel.
var settingsFields = []string{"listed", "publicResults", "challenge", "onePer", "mayChange", "closeOn", "embedOrigins"}

// SettingsOpen: the settings panel shows its controls (it is closed to a
// line that says what they are) when one of them has a problem or the
// focus.
func (p designerPage) SettingsOpen() bool {
	for _, f := range settingsFields {
		if p.Errors[f] != "" || p.Focus == f {
			return true
		}
	}
	return false
}

// SettingsNow says the survey's settings in a line, for the closed panel.
func (p designerPage) SettingsNow() string {
	var out []string
	switch p.OnePer {
	case string(survey.OnePerBrowser):
		out = append(out, "one answer per browser")
	case string(survey.OnePerLink):
		out = append(out, "personal links only")
	default:
		out = append(out, "anyone may answer")
	}
	if p.CloseOn != "" {
		out = append(out, "last day "+p.CloseOn)
	}
	if p.Listed {
		out = append(out, "listed on the home page")
	}
	if p.PublicResults {
		out = append(out, "public results")
	}
	if p.Challenge {
		out = append(out, "robot check")
	}
	if p.SendCopy {
		out = append(out, "copies of answers by e-mail")
	}
	if n := len(strings.Fields(p.EmbedOrigins)); n > 0 {
		out = append(out, "embedded in "+survey.Count(int64(n), "site"))
	}
	return strings.Join(out, " · ")
}

// hiddenFieldNames are the names of the hidden fields as typed: one a
// line (or separated by spaces or commas), in lower case.
func (p designerPage) hiddenFieldNames() []string {
	var out []string
	for _, n := range strings.FieldsFunc(p.HiddenFields, func(r rune) bool { return r == '\n' || r == '\r' || r == ' ' || r == '\t' || r == ',' }) {
		out = append(out, strings.ToLower(n))
	}
	return out
}

// HiddenOpen: the hidden fields' panel shows its controls when the survey
// has hidden fields or allows prefill, or one of them has a problem or
// the focus.
func (p designerPage) HiddenOpen() bool {
	return strings.TrimSpace(p.HiddenFields) != "" || p.Prefill || p.Errors["hiddenFields"] != "" || p.Focus == "hiddenFields"
}

// HiddenNow says the hidden fields in a line, for the closed panel.
func (p designerPage) HiddenNow() string {
	names := p.hiddenFieldNames()
	out := "none"
	if len(names) > 0 {
		out = strings.Join(names, ", ")
	}
	if p.Prefill {
		out += " · questions prefilled from the link"
	}
	return out
}

// LinkExample is the survey's link with its first hidden field, for the
// hint ("/survey/adatum/slug?source=…").
func (p designerPage) LinkExample() string {
	u := "/survey/" + p.Tenant + "/"
	if p.Survey != nil {
		u += p.Survey.Slug
	} else {
		u += "…"
	}
	if names := p.hiddenFieldNames(); len(names) > 0 {
		return u + "?" + url.QueryEscape(names[0]) + "=…"
	}
	return u + "?source=newsletter"
}

// designerProblem is one line of the error summary: a link to the field
// (its id) and the problem.
type designerProblem struct {
	Field, Message string
}

// designerQuestion is one question of the designer as typed: the settings
// a question may have, whatever its kind (a kind that lacks one carries
// it in a hidden field, so that changing the kind back loses nothing;
// Normalize drops it on save), and the settings its kind shows.
type designerQuestion struct {
	Pos int // 1-based
	// Q holds the text, type, help, optional and the settings that are
	// not lists or numbers as typed.
	Q survey.Question
	// Choices and Rows are the lists, one per line; Scale as typed.
	// Points ("Choice = 3") and Correct (choices), one a line.
	Choices, Rows, Scale, Points, Correct string
	// Pictures are a picture choice's rows (designer_pictures.go).
	Pictures []designerPicture
	// Label is the kind's name for people; Settings what it shows.
	Label    string
	Settings survey.Settings
	// Errors are the problems beside the fields, by the field ("text",
	// "type", "help", "choices", "rows", "min", "max", "scale",
	// "format", "labels").
	Errors map[string]string

	// Sec is the index of the question's section (0 without sections);
	// Sections the survey's count of sections.
	Sec, Sections int

	// If is "Show this question only if…" (designer_logic.go).
	If designerCondition

	// Open: its card is shown whole, not as its one line (openCards).
	Open bool

	orig  int // the row's index in the posted form
	moved int // -1 moved up, +1 moved down by its position field
}

// Idx is the question's index in the form.
func (q designerQuestion) Idx() int { return q.Pos - 1 }

// designerFields are the fields of a question that may show a problem, in
// the page's order; the keys survey.Validate gives them after
// "questions.N.". A problem of a field the kind does not show is shown
// beside the kind's select.
var designerFields = []string{"text", "type", "section", "help", "choices", "pictures", "rows", "min", "max", "scale", "format", "step", "labels", "statement", "parts", "pattern", "patternMessage", "points", "correct", "feedback"}

// shown reports whether the question shows field.
func (q designerQuestion) shown(field string) bool {
	s := q.Settings
	switch field {
	case "choices":
		return s.Choices
	case "rows":
		return s.Rows
	case "min", "max":
		return s.Bounds != ""
	case "scale":
		return s.Scale
	case "format":
		return s.Format
	case "labels":
		return s.ScaleLabels
	case "statement":
		return s.Statement
	case "step":
		return s.Step
	case "parts":
		return s.Parts
	case "pictures":
		return s.Pictures
	case "pattern", "patternMessage":
		return s.Pattern
	case "section":
		return q.Sections > 1
	case "points", "correct", "feedback":
		return q.Scorable()
	}
	return true
}

// MinLabel and MaxLabel name the bounds of an answer for people.
func (q designerQuestion) MinLabel() string { return boundLabels(q.Settings.Bounds)[0] }
func (q designerQuestion) MaxLabel() string { return boundLabels(q.Settings.Bounds)[1] }

// BoundInput is the input type of the bounds: a date picker for dates,
// whole numbers for lengths and counts, text for numbers (decimals and
// signs as typed; the kind checks them).
func (q designerQuestion) BoundInput() string {
	switch q.Settings.Bounds {
	case "date":
		return "date"
	case "length", "selections":
		return "number"
	}
	return "text"
}

func boundLabels(bounds string) [2]string {
	switch bounds {
	case "length":
		return [2]string{"Fewest characters", "Most characters"}
	case "number":
		return [2]string{"Smallest", "Largest"}
	case "date":
		return [2]string{"Earliest", "Latest"}
	case "selections":
		return [2]string{"Fewest selections", "Most selections"}
	case "files":
		return [2]string{"Fewest files", "Most files (1 when empty)"}
	}
	return [2]string{"Lowest", "Highest"}
}

// designerFormats are the formats a short text may ask for.
var designerFormats = []struct{ Value, Label string }{{"", "Free text"}, {"email", "E-mail address"}, {"url", "Web address"}}

// designerParts reads a contact question's parts (fields q.<i>.part.<key>:
// "", "optional" or "required"): nil when the form has none of the
// fields (the defaults), empty when it asks none (refused).
func designerParts(f url.Values, p string) map[string]string {
	var parts map[string]string
	for _, cp := range survey.ContactParts {
		vs, ok := f[p+"part."+cp.Key]
		if !ok {
			continue
		}
		if parts == nil {
			parts = map[string]string{}
		}
		if len(vs) > 0 && strings.TrimSpace(vs[0]) != "" {
			parts[cp.Key] = strings.TrimSpace(vs[0])
		}
	}
	return parts
}

// designerPart is a part of a contact question as the designer shows it:
// how it is asked ("" for not asked).
type designerPart struct {
	Key, Label, How string
}

// ContactParts are the parts a contact question may ask, each with how
// the question asks it (the default parts when it names none, as saving
// it would give).
func (q designerQuestion) ContactParts() []designerPart {
	parts := q.Q.Parts
	if parts == nil {
		parts = survey.DefaultParts()
	}
	out := make([]designerPart, len(survey.ContactParts))
	for i, cp := range survey.ContactParts {
		out[i] = designerPart{Key: cp.Key, Label: cp.Label, How: parts[cp.Key]}
	}
	return out
}

// ScaleTops are the tops a scale may have.
func (q designerQuestion) ScaleTops() []int {
	if q.Settings.ScaleTops != nil {
		return q.Settings.ScaleTops
	}
	return []int{2, 3, 4, 5, 6, 7, 8, 9, 10}
}

// Formats lists the formats of a short text.
func (designerQuestion) Formats() []struct{ Value, Label string } { return designerFormats }

// Field is the id of the question's control of field; Name its form name.
func (q designerQuestion) Field(field string) string { return questionFieldID(q.Pos-1, field) }
func (q designerQuestion) Name(field string) string {
	return "q." + strconv.Itoa(q.Pos-1) + "." + field
}

// Err is the problem shown beside field ("low" and "high" share
// "labels").
func (q designerQuestion) Err(field string) string { return q.Errors[errorKey(field)] }

// ErrID is the id of the problem shown beside field.
func (q designerQuestion) ErrID(field string) string {
	return "q" + strconv.Itoa(q.Pos-1) + "-" + strings.ReplaceAll(errorKey(field), ".", "-") + "-err"
}

func errorKey(field string) string {
	if field == "low" || field == "high" {
		return "labels"
	}
	return field
}

// Aria marks field's control invalid when it has a problem and describes
// it by its problem and, when hint, its hint (id <field id>-hint).
func (q designerQuestion) Aria(field string, hint bool) template.HTMLAttr {
	var ids []string
	if q.Err(field) != "" {
		ids = append(ids, q.ErrID(field))
	}
	if hint {
		ids = append(ids, q.Field(field)+"-hint")
	}
	var b strings.Builder
	if q.Err(field) != "" {
		b.WriteString(` aria-invalid="true"`)
	}
	if len(ids) > 0 {
		b.WriteString(` aria-describedby="` + template.HTMLEscapeString(strings.Join(ids, " ")) + `"`)
	}
	return template.HTMLAttr(b.String())
}

// setKind fills the kind's label and settings from the question's type.
func (q *designerQuestion) setKind() {
	q.Label, q.Settings = "", survey.Settings{}
	if k, ok := survey.KindOf(q.Q.Type); ok {
		q.Label, q.Settings = k.Label(), k.Settings()
	}
}

// defaultKind is the kind of a new question: the registry's first.
func defaultKind() survey.QuestionType { return survey.Kinds()[0].Type() }

func newDesignerQuestion() designerQuestion {
	q := designerQuestion{Q: survey.Question{Type: defaultKind()}, orig: -1, Open: true}
	q.setKind()
	return q
}

// parseDesignerQuestion reads question i of the designer's form: fields
// q.<i>.<name>.
func parseDesignerQuestion(f url.Values, i int) designerQuestion {
	p := "q." + strconv.Itoa(i) + "."
	on := func(name string) bool { return f.Get(p+name) != "" }
	q := designerQuestion{orig: i, Q: survey.Question{
		ID: f.Get(p + "id"), Hidden: on("hidden"), InResults: on("inResults"),
		Text: f.Get(p + "text"), Type: survey.QuestionType(f.Get(p + "type")), Help: f.Get(p + "help"), Optional: on("optional"),
		Other: on("other"), Shuffle: on("shuffle"), Min: f.Get(p + "min"), Max: f.Get(p + "max"), Integer: on("integer"),
		Format: f.Get(p + "format"), LowLabel: f.Get(p + "low"), HighLabel: f.Get(p + "high"),
		Statement: f.Get(p + "statement"), Step: f.Get(p + "step"), Parts: designerParts(f, p), Multiple: on("multiple"),
		Pattern: f.Get(p + "pattern"), PatternMessage: f.Get(p + "patternMessage"), Feedback: f.Get(p + "feedback"),
	}, Choices: f.Get(p + "choices"), Rows: f.Get(p + "rows"), Points: f.Get(p + "points"), Correct: f.Get(p + "correct"), Scale: strings.TrimSpace(f.Get(p + "scale")), Open: on("open")}
	q.Pos = i + 1
	q.Sec, _ = strconv.Atoi(f.Get(p + "section"))
	q.If = parseCondition(f, p+"if")
	q.Pictures = parsePictures(f, p)
	if pos, err := strconv.Atoi(strings.TrimSpace(f.Get(p + "pos"))); err == nil {
		q.Pos = pos
	}
	q.setKind()
	return q
}

// question is the survey.Question the designer's question defines, with
// the designer's own problem of its scale ("" for none).
func (q designerQuestion) question() (survey.Question, string) {
	out := q.Q
	out.PossibleAnswers, out.Rows = lines(q.Choices), lines(q.Rows)
	out.Pictures = surveyPictures(q.Pictures)
	out.ShowIf = q.If.condition()
	out.Correct = lines(q.Correct)
	if q.Scale == "" {
		return out, ""
	}
	n, err := strconv.Atoi(q.Scale)
	if err != nil {
		return out, "Give the scale's top as a whole number from 2 to 10."
	}
	out.Scale = n
	return out, ""
}

// lines splits a textarea into its lines (Normalize drops the empty ones).
func lines(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// designerQuestionOf is a stored question as the designer shows it.
func designerQuestionOf(q survey.Question, pos int) designerQuestion {
	dq := designerQuestion{Pos: pos, Q: q, Choices: strings.Join(q.PossibleAnswers, "\n"), Rows: strings.Join(q.Rows, "\n"), If: designerConditionOf(q.ShowIf)}
	dq.Q.ShowIf = nil
	// The ID goes with the form: an edit of a published survey keeps
	// each question's (answers refer to it).
	dq.Points, dq.Correct = pointsText(q.Points, survey.PointChoices(q)), strings.Join(q.Correct, "\n")
	dq.Q.PossibleAnswers, dq.Q.Rows, dq.Q.HiddenChoices, dq.Q.HiddenRows, dq.Q.Points, dq.Q.Correct = nil, nil, nil, nil, nil, nil
	dq.Pictures, dq.Q.Pictures = designerPicturesOf(q.Pictures), nil
	if q.Scale != 0 {
		dq.Scale = strconv.Itoa(q.Scale)
	}
	dq.setKind()
	return dq
}

// designerForm decodes the designer: the survey's fields and questions
// q.N.*, ordered by their position fields (a question moved to a taken
// position goes before the one there when it moved up, after it when it
// moved down), without those marked for removal.
func designerForm(w http.ResponseWriter, r *http.Request) (page designerPage, err error) {
	// Multipart (the page's own form, which may carry pictures) or
	// urlencoded (its script's posts, and clients of old).
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		r.Body = http.MaxBytesReader(w, r.Body, maxDesignerBody)
		if err := r.ParseMultipartForm(maxDesignerFields); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return page, survey.Errorf(survey.EINVALID, "The form is too large: upload at most %d pictures at a time, each under %d KiB.", maxDesignerPictures, survey.MaxLogoBytes>>10)
			}
			return page, survey.Errorf(survey.EINVALID, "The form could not be read.")
		}
	} else {
		r.Body = http.MaxBytesReader(w, r.Body, maxDesignerFields)
		if err := r.ParseForm(); err != nil {
			return page, survey.Errorf(survey.EINVALID, "The form could not be read.")
		}
	}
	f := r.PostForm
	page = designerPage{Title: f.Get("title"), Listed: f.Get("listed") != "", Challenge: f.Get("challenge") != "",
		CloseOn: strings.TrimSpace(f.Get("closeOn")), Description: f.Get("description"), ThankYou: f.Get("thankYou"), EmbedOrigins: f.Get("embedOrigins"), PublicResults: f.Get("publicResults") != ""}
	page.OnePer, page.MayChange = f.Get("onePer"), f.Get("mayChange") != ""
	page.HiddenFields, page.Prefill = f.Get("hiddenFields"), f.Get("prefill") != ""
	page.SendCopy = f.Get("sendCopy") != ""
	page.Variables, page.Outcomes, page.ShowCorrect = f.Get("variables"), f.Get("outcomes"), f.Get("showCorrect") != ""
	page.Redirect, page.RedirectFields = f.Get("redirect"), f.Get("redirectFields") != ""
	page.KeepPartial = strings.TrimSpace(f.Get("keepPartial"))
	page.Version = f.Get("version")
	page.Questions = parseQuestions(f)
	page.Sections = parseSections(f)
	page.Quotas = parseQuotas(f)
	groupQuestions(page.Questions, len(page.Sections))
	newQuestionIDs(page.Questions)
	page.readRefs()
	return page, nil
}

// readRefs makes the references of the texts typed in the designer,
// {{q3}} for the question shown third, name the questions' IDs, as the
// survey stores them (survey.Pipe): the numbers are those of the page the
// form was sent from, the posted indexes. A number of no question (one
// removed) is left as typed, and refused as unknown.
func (p *designerPage) readRefs() {
	names := map[string]string{}
	for _, q := range p.Questions {
		if q.orig >= 0 {
			names["q"+strconv.Itoa(q.orig+1)] = q.Q.ID
		}
	}
	p.renameRefs(names)
}

// showRefs makes the references of the texts name the questions by their
// numbers on the page about to be shown, {{q3}}, and so do the problems'
// messages.
func (p *designerPage) showRefs() {
	names := map[string]string{}
	for i, q := range p.Questions {
		if q.Q.ID != "" {
			names[q.Q.ID] = "q" + strconv.Itoa(i+1)
		}
	}
	p.renameRefs(names)
	for k, m := range p.Errors {
		p.Errors[k] = survey.RenamePipes(m, names)
	}
	for i := range p.Problems {
		p.Problems[i].Message = survey.RenamePipes(p.Problems[i].Message, names)
	}
	for i := range p.Questions {
		for k, m := range p.Questions[i].Errors {
			p.Questions[i].Errors[k] = survey.RenamePipes(m, names)
		}
	}
	for i := range p.Sections {
		for k, m := range p.Sections[i].Errors {
			p.Sections[i].Errors[k] = survey.RenamePipes(m, names)
		}
	}
}

// renameRefs renames the references of the questions' texts and helps,
// their choices and rows (and the points, correct choices and rules'
// values that name choices), the sections' titles and descriptions and
// the thank-you message.
func (p *designerPage) renameRefs(names map[string]string) {
	for i := range p.Questions {
		dq := &p.Questions[i]
		q := &dq.Q
		q.Text, q.Help = survey.RenamePipes(q.Text, names), survey.RenamePipes(q.Help, names)
		if !survey.TakesFiles(*q) {
			dq.Choices, dq.Rows = survey.RenamePipes(dq.Choices, names), survey.RenamePipes(dq.Rows, names)
			dq.Points, dq.Correct = survey.RenamePipes(dq.Points, names), survey.RenamePipes(dq.Correct, names)
		}
		renameRuleValues(&dq.If, names)
	}
	for i := range p.Quotas {
		renameRuleValues(&p.Quotas[i].If, names)
	}
	for i := range p.Sections {
		renameRuleValues(&p.Sections[i].If, names)
		for j := range p.Sections[i].Jumps {
			renameRuleValues(&p.Sections[i].Jumps[j].If, names)
		}
	}
	for i := range p.Sections {
		sc := &p.Sections[i]
		sc.Title, sc.Description = survey.RenamePipes(sc.Title, names), survey.RenamePipes(sc.Description, names)
	}
	p.ThankYou = survey.RenamePipes(p.ThankYou, names)
	p.Outcomes = survey.RenamePipes(p.Outcomes, names)
	if vs, msg := parseVariables(p.Variables, names); msg == "" {
		// Their questions renamed; one that does not read stays as typed.
		p.Variables = variablesText(vs, names)
	}
}

// renameRuleValues renames the references of c's rules' values: a rule
// on a choice that recalls an answer names it as the choice reads.
func renameRuleValues(c *designerCondition, names map[string]string) {
	for i := range c.Rules {
		for j, v := range c.Rules[i].Values {
			c.Rules[i].Values[j] = survey.RenamePipes(v, names)
		}
	}
}

// parseQuestions reads the questions q.N.* of the designer's form, in the
// order of their positions, without those marked for removal.
func parseQuestions(f url.Values) []designerQuestion {
	n, _ := strconv.Atoi(f.Get("n"))
	n = min(max(n, 0), survey.MaxQuestions+1)
	var qs []designerQuestion
	for i := 0; i < n; i++ {
		if f.Get("q."+strconv.Itoa(i)+".remove") != "" {
			continue
		}
		q := parseDesignerQuestion(f, i)
		switch {
		case q.Pos < i+1:
			q.moved = -1
		case q.Pos > i+1:
			q.moved = 1
		}
		qs = append(qs, q)
	}
	sortQuestions(qs)
	return qs
}

// sortQuestions orders questions by position, and numbers them from 1.
func sortQuestions(qs []designerQuestion) {
	sort.SliceStable(qs, func(i, j int) bool {
		if qs[i].Pos != qs[j].Pos {
			return qs[i].Pos < qs[j].Pos
		}
		return qs[i].moved < qs[j].moved
	})
	for i := range qs {
		qs[i].Pos, qs[i].moved = i+1, 0
	}
}

// questionAction applies a question's button (action "up.N", "down.N",
// "dup.N", "remove.N" or "refresh.N", N the question's index in the
// posted form; "moved.N" is question N dropped where its position field
// says, by designer.js)
// and returns the position (1-based) of the question the page lands on
// (0 for none) and the id of the control to focus there.
func questionAction(qs *[]designerQuestion, action string) (land int, focus string, ok bool) {
	verb, arg, found := strings.Cut(action, ".")
	orig, err := strconv.Atoi(arg)
	if !found || err != nil {
		return 0, "", false
	}
	at := -1
	for i, q := range *qs {
		if q.orig == orig {
			at = i
		}
	}
	if at < 0 {
		return 0, "", verb == "up" || verb == "down" || verb == "dup" || verb == "remove" || verb == "refresh" || verb == "moved"
	}
	list := *qs
	switch verb {
	case "refresh":
		// A change of kind without JavaScript: the page again, with the
		// new kind's settings and everything typed.
		focus = "type"
	case "moved":
		// Dragged and dropped: parseQuestions put it where its position
		// field says; the focus on its handle.
		focus = "handle"
	case "up":
		to := max(at-1, 0)
		if to != at && list[to].Sec != list[at].Sec {
			// At the top of its section: to the end of the one before.
			list[at].Sec, to = list[to].Sec, at
		}
		list[at], list[to] = list[to], list[at]
		at, focus = to, "up"
		if to == 0 {
			focus = "down"
		}
	case "down":
		to := min(at+1, len(list)-1)
		if to != at && list[to].Sec != list[at].Sec {
			// At the bottom of its section: to the start of the next.
			list[at].Sec, to = list[to].Sec, at
		}
		list[at], list[to] = list[to], list[at]
		at, focus = to, "down"
		if to == len(list)-1 {
			focus = "up"
		}
	case "dup":
		// A copy just after it, in its section: its kind, settings and
		// condition; a new ID (none: the page gives it one), so that no
		// rule names it yet; the focus on its text.
		if len(list) >= survey.MaxQuestions {
			return at + 1, "q" + strconv.Itoa(at) + "-dup", true
		}
		closeCards(list)
		c := list[at]
		c.Q.ID, c.orig, c.moved, c.Open = "", -1, 0, true
		c.Q.Text = strings.TrimSpace(c.Q.Text + " (copy)")
		c.Q.Hidden = false
		c.If.Rules = slices.Clone(c.If.Rules)
		list = slices.Insert(list, at+1, c)
		at, focus = at+1, "text"
	case "remove":
		list = append(list[:at], list[at+1:]...)
		at, focus = min(at, len(list)-1), "text"
	default:
		return 0, "", false
	}
	for i := range list {
		list[i].Pos = i + 1
	}
	*qs = list
	if at < 0 {
		return 0, "", true
	}
	return at + 1, "q" + strconv.Itoa(at) + "-" + focus, true
}

// parseCloseOn reads the designer's optional close date: the last day the
// survey takes answers, today or later. It returns a field error message.
func parseCloseOn(v string, now time.Time) (time.Time, string) {
	if v == "" {
		return time.Time{}, ""
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, "Give the last day as a date, YYYY-MM-DD."
	}
	if today := now.UTC().Truncate(24 * time.Hour); d.Before(today) {
		return time.Time{}, "The last day to answer has passed; choose today or later."
	}
	return d, ""
}

// definition is the survey the page defines, with the problems the
// designer finds itself (the close date, a scale that is not a number),
// by survey.Validate's keys.
func (p designerPage) definition(now time.Time) (*survey.Survey, map[string]string) {
	own := map[string]string{}
	closeOn, msg := parseCloseOn(p.CloseOn, now)
	if msg != "" && p.Survey != nil && !p.Survey.CloseOn.IsZero() && p.CloseOn == p.Survey.CloseOn.Format(time.DateOnly) {
		// The date it has (passed, when it closed by it): kept as it is.
		closeOn, msg = p.Survey.CloseOn, ""
	}
	if msg != "" {
		own["closeOn"] = msg
	}
	origins, err := survey.ParseEmbedOrigins(p.EmbedOrigins)
	var e *survey.Error
	if errors.As(err, &e) {
		own["embedOrigins"] = e.Fields["embedOrigins"]
	}
	keep, msg := parseKeepPartial(p.KeepPartial)
	if msg != "" {
		own["keepPartial"] = msg
	}
	onePer, ok := survey.ParseOnePer(p.OnePer)
	if !ok {
		own["onePer"] = "Choose none, one per browser or personal links."
	}
	sections, sectionOf := p.surveySections()
	sv := &survey.Survey{Tenant: p.Tenant, Title: p.Title, Listed: p.Listed, Challenge: p.Challenge, CloseOn: closeOn, OnePer: onePer, MayChange: p.MayChange,
		EmbedOrigins: origins, PublicResults: p.PublicResults, Description: p.Description, ThankYou: p.ThankYou, State: survey.Draft, Sections: sections,
		HiddenFields: p.hiddenFieldNames(), Prefill: p.Prefill, SendCopy: p.SendCopy, KeepPartial: keep, Quotas: p.surveyQuotas(), Version: p.Version, EditedBy: p.EditedBy,
		Scoring: survey.Scoring{ShowCorrect: p.ShowCorrect, Redirect: p.Redirect, RedirectFields: p.RedirectFields}}
	ids := map[string]string{}
	for _, dq := range p.Questions {
		if dq.Q.ID != "" {
			ids[dq.Q.ID] = dq.Q.ID
		}
	}
	sv.Variables, msg = parseVariables(p.Variables, ids)
	if msg != "" {
		own["variables"] = msg
	}
	sv.Outcomes, msg = parseOutcomes(p.Outcomes)
	if msg != "" {
		own["outcomes"] = msg
	}
	maps.Copy(own, p.pictureProblems)
	for i, dq := range p.Questions {
		q, msg := dq.question()
		q.Section = sectionOf(dq)
		if msg != "" {
			own["questions."+strconv.Itoa(i)+".scale"] = msg
		}
		if q.Points, msg = parsePoints(dq.Points); msg != "" {
			own["questions."+strconv.Itoa(i)+".points"] = msg
		}
		sv.Questions = append(sv.Questions, q)
	}
	return sv, own
}

// definitionProblems is the designer's own problems (own) and those
// survey.Validate finds in a copy of sv normalized as the store would;
// nil when there are none.
func definitionProblems(sv *survey.Survey, own map[string]string) map[string]string {
	errs := sv.Problems()
	if errs == nil && len(own) == 0 {
		return nil
	}
	if errs == nil {
		errs = map[string]string{}
	}
	maps.Copy(errs, own)
	return errs
}

// setErrors shows errs beside their fields: a question's problem of a
// setting its kind does not show goes beside its kind, and the summary
// lists each in the page's order, linked to its field.
func (p *designerPage) setErrors(errs map[string]string) {
	p.Errors, p.Problems = errs, nil
	for i := range p.Questions {
		p.Questions[i].Errors, p.Questions[i].Sections = nil, len(p.Sections)
	}
	for i := range p.Sections {
		p.Sections[i].Errors = nil
	}
	if len(errs) == 0 {
		return
	}
	used := map[string]bool{}
	for _, f := range []string{"title", "description", "thankYou", "onePer", "closeOn", "hiddenFields", "variables", "outcomes", "redirect"} {
		if m := errs[f]; m != "" {
			p.Problems, used[f] = append(p.Problems, designerProblem{Field: f, Message: m}), true
		}
	}
	p.Problems = append(p.Problems, p.setSectionErrors(errs, used)...)
	p.Problems = append(p.Problems, p.setLogicErrors(errs, used)...)
	p.Problems = append(p.Problems, p.setQuotaErrors(errs, used)...)
	for i := range p.Questions {
		q := &p.Questions[i]
		key := "questions." + strconv.Itoa(i) + "."
		var fields []string
		for k := range errs {
			if f, ok := strings.CutPrefix(k, key); ok && !used[k] {
				fields = append(fields, f)
			}
		}
		sort.Strings(fields)
		for _, f := range fields {
			to := f
			if (!slices.Contains(designerFields, f) || !q.shown(f)) && (!strings.HasPrefix(f, "pictures.") || !q.Settings.Pictures) {
				to = "type"
			}
			if q.Errors == nil {
				q.Errors = map[string]string{}
			}
			if q.Errors[to] != "" {
				q.Errors[to] += " "
			}
			q.Errors[to] += errs[key+f]
			used[key+f] = true
		}
		for _, f := range append(slices.Clone(designerFields), pictureErrorKeys(q.Errors)...) {
			if m := q.Errors[f]; m != "" {
				p.Problems = append(p.Problems, designerProblem{Field: questionFieldID(i, f), Message: "Question " + strconv.Itoa(i+1) + ": " + m})
			}
		}
	}
	var rest []string
	for k := range errs {
		if !used[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		p.Problems = append(p.Problems, designerProblem{Message: errs[k]})
	}
}

// questionFieldID is the id of question i's control of field (a field
// of a picture, "pictures.2.alt", is "q0-pictures-2-alt": an id a CSS
// selector reads as it is).
func questionFieldID(i int, field string) string {
	if field == "labels" {
		field = "low"
	}
	return "q" + strconv.Itoa(i) + "-" + strings.ReplaceAll(field, ".", "-")
}

func (s *Server) renderDesigner(w http.ResponseWriter, r *http.Request, status int, p designerPage) {
	p.Kinds = survey.Kinds()
	p.Action = r.URL.Path
	if len(p.Questions) == 0 {
		p.Questions = []designerQuestion{newDesignerQuestion()}
	}
	p.renumberSections()
	groupQuestions(p.Questions, len(p.Sections))
	newQuestionIDs(p.Questions)
	for i := range p.Questions {
		p.Questions[i].Sections = len(p.Sections)
	}
	// The texts' references as the page shows them, {{q3}}, and so the
	// problems that name them.
	p.showRefs()
	if p.Errors != nil && p.Problems == nil {
		p.setErrors(p.Errors)
	}
	p.prepareLogic()
	p.openCards()
	if len(p.Problems) > 0 || p.Message != "" {
		// A refused form: focus on its summary of problems.
		p.Focus = "designer-errors"
	}
	if liveEdit(r) {
		w.Header().Set("X-Designer", "live")
		s.renderBlock(w, r, status, "designer", "designer-live", p)
		return
	}
	s.render(w, r, status, "designer", p)
}

// closeCards shows the questions' cards as their one line, before a new
// one opens (openCards opens again those with a problem).
func closeCards(qs []designerQuestion) {
	for i := range qs {
		qs[i].Open = false
	}
}

// openCards opens the question cards that must be seen whole: the ones
// open in the browser (their field "open"), new ones, those with a
// problem, the one holding the control to focus, and a survey's only
// question. The others show their one line.
func (p *designerPage) openCards() {
	for i := range p.Questions {
		q := &p.Questions[i]
		q.Open = q.Open || len(q.Errors) > 0 || len(q.If.Errors) > 0 || len(p.Questions) == 1 ||
			(strings.HasPrefix(p.Focus, "q"+strconv.Itoa(i)+"-") && !strings.HasSuffix(p.Focus, "-handle"))
		for _, r := range q.If.Rules {
			q.Open = q.Open || len(r.Errors) > 0
		}
	}
}

// newSurvey shows an empty designer.
func (s *Server) newSurvey(w http.ResponseWriter, r *http.Request) error {
	// Not on the public home page unless the subscriber ticks it.
	s.renderDesigner(w, r, http.StatusOK, designerPage{Tenant: chi.URLParam(r, "tenant")})
	return nil
}

// saveSurvey handles the designer's buttons: add, move or remove a
// question, apply a change of kind, preview the unsaved edits, save a
// draft, or save and publish. A new survey is created; a draft is updated.
func (s *Server) saveSurvey(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	page, err := s.readDesigner(w, r, tenant, slug)
	if err != nil {
		return err
	}
	action := r.PostForm.Get("action")
	if action != "save" && action != "publish" {
		return s.designerAction(w, r, page, action, slug)
	}
	sv, own := page.definition(time.Now())
	if len(own) > 0 {
		page.Errors, page.Message = definitionProblems(sv, own), "The survey has problems; see each field."
		s.renderDesigner(w, r, http.StatusUnprocessableEntity, page)
		return nil
	}
	live := page.Survey != nil && page.Survey.State != survey.Draft
	sv, asked, err := s.writeSurvey(w, r, page, sv, action, slug, live)
	if asked || s.designerRefused(w, r, page, err) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case page.Survey == nil:
		s.audit(r, survey.AuditSurveyCreated, sv.Slug, "")
	case action == "save" || live:
		s.audit(r, survey.AuditSurveyEdited, sv.Slug, "")
	}
	if action == "publish" && !live {
		s.audit(r, survey.AuditSurveyPublished, sv.Slug, "")
	}
	switch {
	case action == "publish" && !live:
		// Published: what comes next is sharing it.
		http.Redirect(w, r, "/"+tenant+"/surveys/"+sv.Slug+"/share?published=1", http.StatusSeeOther)
	case live:
		http.Redirect(w, r, "/"+tenant+"/surveys/"+sv.Slug+"/edit?saved=1", http.StatusSeeOther)
	default:
		http.Redirect(w, r, "/"+tenant+"/surveys/"+sv.Slug+"/edit", http.StatusSeeOther)
	}
	return nil
}

// readDesigner reads the designer's form (designerForm) for survey slug
// of tenant, or a new one (slug ""): the page as typed, who edits it, and
// the survey as stored with its count of answers.
func (s *Server) readDesigner(w http.ResponseWriter, r *http.Request, tenant, slug string) (designerPage, error) {
	page, err := designerForm(w, r)
	if err != nil {
		return page, err
	}
	page.Tenant = tenant
	if sess := sessionFrom(r.Context()); sess != nil {
		page.EditedBy = sess.Email
	}
	if page.pictureProblems = s.uploadPictures(r, &page); page.pictureProblems != nil {
		// Shown whatever the button (save and the like add their own).
		page.Errors, page.Message = maps.Clone(page.pictureProblems), "A picture was not saved; see the question."
	}
	if slug != "" {
		cur, err := s.surveys.Get(r.Context(), tenant, slug)
		if err != nil {
			return page, err
		}
		page.Survey = cur
		if err := s.countAnswers(r, &page); err != nil {
			return page, err
		}
	}
	return page, nil
}

// designerAction handles the designer's buttons other than save and
// publish: back from a confirmation, add a question, preview, autosave,
// and the logic, section and question actions. Each shows the designer
// again (the page of edits, focused where the action leaves off), stores
// nothing but the autosave, and refuses an unknown action.
func (s *Server) designerAction(w http.ResponseWriter, r *http.Request, page designerPage, action, slug string) error {
	switch action {
	case "back":
		// From the confirmation of an edit: the designer again, as typed.
		s.renderDesigner(w, r, http.StatusOK, page)
		return nil
	case "add":
		if len(page.Questions) < survey.MaxQuestions {
			closeCards(page.Questions)
			q := newDesignerQuestion()
			q.Sec = max(len(page.Sections)-1, 0) // to the last section
			page.Questions = append(page.Questions, q)
			page.Focus = questionFieldID(len(page.Questions)-1, "text")
		}
		s.renderDesigner(w, r, http.StatusOK, page)
		return nil
	case "preview":
		return s.previewUnsaved(w, r, page, slug)
	case "autosave":
		return s.autosave(w, r, page, slug)
	}
	if focus, ok := page.quotaAction(action); ok {
		page.Focus = focus
		s.renderDesigner(w, r, http.StatusOK, page)
		return nil
	}
	if focus, ok := page.logicAction(action); ok {
		page.Focus = focus
		s.renderDesigner(w, r, http.StatusOK, page)
		return nil
	}
	if focus, refused, ok := page.sectionAction(action); ok {
		page.Focus = focus
		status := http.StatusOK
		if refused != "" {
			page.Message, status = refused, http.StatusUnprocessableEntity
		}
		s.renderDesigner(w, r, status, page)
		return nil
	}
	if _, focus, ok := questionAction(&page.Questions, action); ok {
		if r.PostForm.Get("focus") == "handle" && (strings.HasSuffix(focus, "-up") || strings.HasSuffix(focus, "-down")) {
			// Moved by the arrow keys on its handle: the focus stays
			// on the handle, wherever the card went.
			focus = focus[:strings.LastIndexByte(focus, '-')] + "-handle"
		}
		page.Focus = focus
		s.renderDesigner(w, r, http.StatusOK, page)
		return nil
	}
	return survey.Errorf(survey.EINVALID, "Unknown action %q.", action)
}

// writeSurvey stores sv, the definition of the designer's page: a new
// survey is created (published with action publish), a draft or a
// published (live) survey updated, and a draft published with action
// publish. An edit of a live survey not confirmed yet goes through
// updateLive. It returns the survey as stored, or asked true when the
// edit was not stored but shown for confirmation.
func (s *Server) writeSurvey(w http.ResponseWriter, r *http.Request, page designerPage, sv *survey.Survey, action, slug string, live bool) (*survey.Survey, bool, error) {
	switch {
	case page.Survey == nil:
		if action == "publish" {
			sv.State = survey.Published
		}
		return sv, false, s.editor.Create(r.Context(), sv)
	case live && r.PostForm.Get("confirm") == "":
		return s.updateLive(w, r, page, sv, slug)
	default:
		sv.Slug = slug
		err := s.editor.Update(r.Context(), sv)
		if err == nil && action == "publish" && !live {
			_, err = s.editor.SetState(r.Context(), page.Tenant, slug, survey.Published)
		}
		return sv, false, err
	}
}

// updateLive updates a published survey with sv, unless the edit hides
// questions or choices its answers refer to: then the confirmation page
// names them (confirmedit), nothing is stored, and asked is true.
func (s *Server) updateLive(w http.ResponseWriter, r *http.Request, page designerPage, sv *survey.Survey, slug string) (_ *survey.Survey, asked bool, _ error) {
	// An edit that hides what answers refer to is confirmed first.
	sv.Slug = slug
	rev, err := s.editor.Revision(r.Context(), sv)
	if err == nil && rev != nil && len(rev.Hides) > 0 {
		s.render(w, r, http.StatusOK, "confirmedit", confirmEditPage{Tenant: page.Tenant, Survey: page.Survey, Action: r.URL.Path,
			Answers: rev.Answers, Hides: rev.Hides, Fields: formFields(r.PostForm)})
		return nil, true, nil
	}
	if err == nil {
		// Nothing to confirm: saved from the form again (Revision
		// worked on sv).
		sv, _ = page.definition(time.Now())
		sv.Slug = slug
		err = s.editor.Update(r.Context(), sv)
	}
	return sv, false, err
}

// designerRefused shows the designer again, as typed, when err refused
// the save: invalid (422) or beyond the plan (403) with the problems, or
// (409) saved by someone else since the form was made. It reports whether
// it did.
func (s *Server) designerRefused(w http.ResponseWriter, r *http.Request, page designerPage, err error) bool {
	// Invalid, or beyond the plan: the form comes back as typed.
	var e *survey.Error
	if errors.As(err, &e) && (e.Code == survey.EINVALID || e.Code == survey.EFORBIDDEN) {
		page.Errors, page.Message = e.Fields, e.Message
		status := http.StatusUnprocessableEntity
		if e.Code == survey.EFORBIDDEN {
			status = http.StatusForbidden
		}
		s.renderDesigner(w, r, status, page)
		return true
	}
	if errors.As(err, &e) && e.Code == survey.ECONFLICT && page.Survey != nil {
		// Saved by someone else since this form was made: kept as typed,
		// with who and when, and the way to their version.
		page.Message, page.Conflict = e.Message, true
		s.renderDesigner(w, r, http.StatusConflict, page)
		return true
	}
	return false
}

// confirmEditPage asks before an edit of a published survey that hides
// questions or choices its answers refer to.
type confirmEditPage struct {
	Tenant string
	Survey *survey.Survey
	Action string
	// Answers is the survey's count; Hides what the edit hides.
	Answers int64
	Hides   []string
	// Fields are the designer's form as posted, sent again on confirming.
	Fields []formField
}

type formField struct{ Name, Value string }

// formFields is a posted form as hidden fields, in name order, without its
// action and confirmation.
func formFields(f url.Values) []formField {
	names := make([]string, 0, len(f))
	for k := range f {
		if k != "action" && k != "confirm" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var out []formField
	for _, k := range names {
		for _, v := range f[k] {
			out = append(out, formField{k, v})
		}
	}
	return out
}

// countAnswers gives the designer of a published or closed survey its
// answers' counts, from the summary.
func (s *Server) countAnswers(r *http.Request, p *designerPage) error {
	if p.Survey == nil || p.Survey.State == survey.Draft {
		return nil
	}
	stored, _, err := s.summaries.Get(r.Context(), p.Survey.Tenant, p.Survey.Slug)
	switch {
	case survey.ErrorCode(err) == survey.ENOTFOUND:
		return nil
	case err != nil:
		return err
	}
	p.Answers, p.Answered = stored.TotalAnswers, map[string]int64{}
	for _, qs := range stored.Questions {
		p.Answered[qs.QuestionID] = qs.Answered
	}
	return nil
}

// previewUnsaved runs the survey the designer's form defines as
// respondents would, page by page, saving nothing: its definition, sealed,
// rides in the preview's form (designer_preview.go); an invalid definition comes
// back to the designer with its problems.
func (s *Server) previewUnsaved(w http.ResponseWriter, r *http.Request, page designerPage, slug string) error {
	sv, own := page.definition(time.Now())
	if errs := definitionProblems(sv, own); errs != nil {
		page.Errors, page.Message = errs, "Please fix these problems to see the preview."
		s.renderDesigner(w, r, http.StatusUnprocessableEntity, page)
		return nil
	}
	t, err := s.tenants.Get(r.Context(), page.Tenant)
	if err != nil {
		return err
	}
	sv.Slug = slug
	sv.Normalize()
	sv = sv.Visible()
	ids := make([]string, len(sv.Questions))
	for i := range ids {
		ids[i] = "preview_" + strconv.Itoa(i+1)
	}
	sv.RenameQuestions(ids)
	link := s.previewLinkOf(t.Key, slug)
	def, err := s.previews.sealDef(link, sv)
	if err != nil {
		return err
	}
	previewHeaders(w)
	return s.renderPreview(w, r, t, sv, link, def)
}

// editSurvey shows a survey in the designer, published and closed ones too
// (with their answers' counts); one in the trash is shown, not edited.
func (s *Server) editSurvey(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	p := designerPage{Tenant: tenant, Survey: sv, Title: sv.Title, Listed: sv.Listed, Challenge: sv.Challenge, OnePer: string(sv.OnePer), MayChange: sv.MayChange,
		Description: sv.Description, ThankYou: sv.ThankYou, Frozen: sv.Trashed(), EmbedOrigins: strings.Join(sv.EmbedOrigins, "\n"), PublicResults: sv.PublicResults,
		HiddenFields: strings.Join(sv.HiddenFields, "\n"), Prefill: sv.Prefill, SendCopy: sv.SendCopy,
		Variables: variablesText(sv.Variables, nil), Outcomes: outcomesText(sv.Outcomes), ShowCorrect: sv.ShowCorrect, Redirect: sv.Redirect, RedirectFields: sv.RedirectFields,
		KeepPartial: keepPartialMinutes(sv.KeepPartial), Quotas: designerQuotasOf(sv.Quotas)}
	if r.URL.Query().Get("saved") == "1" {
		p.Saved = true
	}
	p.Version = sv.Version
	if err := s.countAnswers(r, &p); err != nil {
		return err
	}
	var sectionOf func(q survey.Question) int
	p.Sections, sectionOf = designerSectionsOf(sv)
	for i, q := range sv.Questions {
		dq := designerQuestionOf(q, i+1)
		dq.Sec = sectionOf(q)
		p.Questions = append(p.Questions, dq)
	}
	if !sv.CloseOn.IsZero() {
		p.CloseOn = sv.CloseOn.Format(time.DateOnly)
	}
	s.renderDesigner(w, r, http.StatusOK, p)
	return nil
}

// surveyAction publishes, closes or deletes a survey, then returns to the
// dashboard.
func (s *Server) surveyAction(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	var err error
	switch chi.URLParam(r, "action") {
	case "publish":
		if _, err = s.editor.SetState(r.Context(), tenant, slug, survey.Published); err == nil {
			s.audit(r, survey.AuditSurveyPublished, slug, "")
			http.Redirect(w, r, "/"+tenant+"/surveys/"+slug+"/share?published=1", http.StatusSeeOther)
			return nil
		}
	case "close":
		_, err = s.editor.SetState(r.Context(), tenant, slug, survey.Closed)
	case "delete":
		// To the trash: restored, or deleted for good, from the dashboard.
		err = s.editor.Trash(r.Context(), tenant, slug)
	case "restore":
		err = s.editor.Restore(r.Context(), tenant, slug)
	case "delete-forever":
		return s.deleteForever(w, r)
	case "embed-site":
		return s.allowEmbedSite(w, r)
	case "challenge-on", "challenge-off":
		// Switched on a live survey too: that is when robots come.
		if err = s.editor.SetChallenge(r.Context(), tenant, slug, chi.URLParam(r, "action") == "challenge-on"); err == nil {
			http.Redirect(w, r, "/"+tenant+"/surveys/"+slug+"/edit", http.StatusSeeOther)
			return nil
		}
	case "duplicate", "copy":
		// A new draft with the same questions and settings, no answers.
		src, err := s.surveys.Get(r.Context(), tenant, slug)
		if err != nil {
			return err
		}
		cp := src.Duplicate(time.Now())
		if err := s.editor.Create(r.Context(), cp); err != nil {
			return err
		}
		s.audit(r, survey.AuditSurveyCreated, cp.Slug, "a copy of "+slug)
		http.Redirect(w, r, "/"+tenant+"/surveys/"+cp.Slug+"/edit", http.StatusSeeOther)
		return nil
	default:
		return notFound("Page not found.")
	}
	if err != nil {
		return err
	}
	if a, ok := surveyActionAudits[chi.URLParam(r, "action")]; ok {
		s.audit(r, a, slug, "")
	}
	http.Redirect(w, r, "/"+tenant+"/surveys", http.StatusSeeOther)
	return nil
}

// surveyActionAudits are the audit actions of surveyAction's actions
// that end on the dashboard.
var surveyActionAudits = map[string]string{"close": survey.AuditSurveyClosed, "delete": survey.AuditSurveyTrashed, "restore": survey.AuditSurveyRestored}

// parseKeepPartial reads the designer's minutes after which partial
// answers are kept: "" or "0" keeps none; survey.Validate checks the
// bounds.
func parseKeepPartial(v string) (time.Duration, string) {
	if v == "" || v == "0" {
		return 0, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, "Enter a number of minutes, such as 60 (or leave it empty)."
	}
	return time.Duration(n) * time.Minute, ""
}

// keepPartialMinutes is the designer's field for d ("" when none are kept).
func keepPartialMinutes(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return strconv.Itoa(int(d / time.Minute))
}
