package survey

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PictureChoice is the type of a question whose choices are pictures.
const PictureChoice QuestionType = "PictureChoice"

// Picture choice limits.
const (
	// MaxPictures bounds a picture choice question's pictures: a phone
	// shows them two to a row, and each is an image to load.
	MaxPictures = 20
	// MaxAltLength bounds a picture's alt text: a sentence a screen
	// reader reads out, not a caption.
	MaxAltLength = 250
)

// Picture is one choice of a picture choice question: its Label is the
// answer stored (as a multiple choice's possible answer is), Alt says what
// the picture shows to whoever cannot see it, and Image is the name of the
// image the designer uploaded, in the public images' container
// (<tenant>-<random>.<ext>, served at /logos/<name>).
type Picture struct {
	Label string `json:"label"`
	Alt   string `json:"alt"`
	Image string `json:"image"`
}

// pictureChoice is one (or, when the question has Multiple, several) of
// two to MaxPictures pictures, each with a label and an alt text. Its
// PossibleAnswers are the pictures' labels, which normalize derives from
// Pictures, so that logic, quotas, filters, hidden choices and the
// translations of choices treat it as any choice question. Stored
// canonically as a JSON array of the chosen labels in the question's
// order, one or several: ["Red","Blue"]. Min and Max bound the number of
// selections of a question of several. Its summary counts each choice, as
// multipleChoice's and checkboxes' do.
type pictureChoice struct{}

func (pictureChoice) Type() QuestionType { return PictureChoice }
func (pictureChoice) Key() string        { return "picturechoice" }
func (pictureChoice) Label() string      { return "Picture choice" }
func (pictureChoice) Settings() Settings {
	return Settings{Choices: true, MaxChoices: MaxPictures, Shuffle: true, Bounds: "selections", Pictures: true}
}

// normalize cleans each picture's texts and drops the pictures left wholly
// empty (a row of the designer not filled in); the labels become the
// question's possible answers. A question of one choice has no bounds.
func (pictureChoice) normalize(q *Question) {
	var ps []Picture
	for _, p := range q.Pictures {
		p = Picture{Label: strings.TrimSpace(CleanLine(p.Label)), Alt: strings.TrimSpace(CleanLine(p.Alt)), Image: strings.TrimSpace(CleanLine(p.Image))}
		if p != (Picture{}) {
			ps = append(ps, p)
		}
	}
	q.Pictures = ps
	q.PossibleAnswers = nil
	for _, p := range ps {
		if p.Label != "" {
			q.PossibleAnswers = append(q.PossibleAnswers, p.Label)
		}
	}
	if !q.Multiple {
		q.Min, q.Max = "", ""
	}
	q.Min, q.Max = canonicalCount(q.Min), canonicalCount(q.Max)
}

// validate checks the pictures, each under key+".pictures.N.label",
// ".alt" and ".image", their number under key+".pictures", and the
// bounds of a question of several choices as checkboxes' are.
func (pictureChoice) validate(q Question, key string, f fieldErrors) {
	switch n := len(q.Pictures); {
	case n < 2:
		f.add(key+".pictures", "Give at least two pictures to choose from.")
	case n > MaxPictures:
		f.add(key+".pictures", "Give at most %d pictures (there are %d).", MaxPictures, n)
	}
	seen := map[string]bool{}
	for i, p := range q.Pictures {
		pk := key + ".pictures." + strconv.Itoa(i)
		switch {
		case p.Label == "":
			f.add(pk+".label", "Give the picture a label: it is the answer stored, and shown under the picture.")
		case utf8.RuneCountInString(p.Label) > MaxChoiceLength:
			f.add(pk+".label", "Keep the label to %d characters.", MaxChoiceLength)
		case !IsCleanLine(p.Label):
			f.add(pk+".label", "The label may not contain control characters or direction overrides.")
		case seen[p.Label]:
			f.add(pk+".label", "%q is the label of another picture too.", p.Label)
		}
		seen[p.Label] = true
		switch {
		case p.Alt == "":
			f.add(pk+".alt", "Describe the picture for people who cannot see it (its alt text).")
		case utf8.RuneCountInString(p.Alt) > MaxAltLength:
			f.add(pk+".alt", "Keep the alt text to %d characters.", MaxAltLength)
		case !IsCleanLine(p.Alt):
			f.add(pk+".alt", "The alt text may not contain control characters or direction overrides.")
		}
		switch {
		case p.Image == "":
			f.add(pk+".image", "Upload an image for this choice.")
		case !ValidImageName(p.Image):
			f.add(pk+".image", "%q is not the name of an uploaded image.", p.Image)
		}
	}
	if q.Multiple {
		validateSelections(q, len(q.PossibleAnswers), key, f)
	}
}

// validateTenant refuses an image of another tenant (ImageOfTenant).
func (pictureChoice) validateTenant(tenant string, q Question, key string, f fieldErrors) {
	for i, p := range q.Pictures {
		if p.Image != "" && ValidImageName(p.Image) && !ImageOfTenant(p.Image, tenant) {
			f.add(key+".pictures."+strconv.Itoa(i)+".image", "This image belongs to another account: upload it here.")
		}
	}
}

// ImageOfTenant reports whether the image name is tenant's: an image's
// name is its tenant's key, a hyphen and twelve hexadecimal digits
// (store.LogoStore), so that tenant "ada" cannot name "ada-x-…", an image
// of tenant "ada-x".
func ImageOfTenant(name, tenant string) bool {
	rest, ok := strings.CutPrefix(name, tenant+"-")
	return ok && len(rest) == len("0123456789ab.png")
}

// ValidImageName reports whether name is one the public images'
// container gives an upload: lower-case letters, digits and hyphens, a
// hyphen, twelve hexadecimal digits, and .png or .jpg.
func ValidImageName(name string) bool {
	base, ok := strings.CutSuffix(name, ".png")
	if !ok {
		if base, ok = strings.CutSuffix(name, ".jpg"); !ok {
			return false
		}
	}
	if len(name) > 100 || len(base) < 14 || base[len(base)-13] != '-' {
		return false
	}
	for i, r := range base {
		hex := r >= '0' && r <= '9' || r >= 'a' && r <= 'f'
		switch {
		case i >= len(base)-12 && !hex:
			return false
		case r != '-' && !hex && (r < 'a' || r > 'z'):
			return false
		}
	}
	return base[0] != '-'
}

// PictureOf is the picture of choice label, and whether q has it.
func PictureOf(q Question, label string) (Picture, bool) {
	for _, p := range q.Pictures {
		if p.Label == label {
			return p, true
		}
	}
	return Picture{}, false
}

func (pictureChoice) required() Msg { return M("Please choose at least one answer.") }

// requiredFor is the message of a question of one choice.
func (k pictureChoice) requiredFor(q Question) Msg {
	if !q.Multiple {
		return M("Please choose one answer.")
	}
	return k.required()
}

// answer takes the labels sent (each once), one, or several within the
// bounds when the question has Multiple.
func (pictureChoice) answer(q Question, f Form) (string, Msg) {
	sent := make(map[string]bool, len(f[""]))
	for _, v := range f[""] {
		if v == "" {
			continue
		}
		if !contains(q.PossibleAnswers, v) {
			if q.Multiple {
				return "", M("Please choose only among the answers offered.")
			}
			return "", M("Please choose one of the answers offered.")
		}
		sent[v] = true
	}
	var chosen []string
	for _, c := range q.PossibleAnswers {
		if sent[c] {
			chosen = append(chosen, c)
		}
	}
	switch min, max := selectionBounds(q); {
	case len(chosen) == 0:
		return "", Msg{}
	case !q.Multiple && len(chosen) > 1:
		return "", M("Please choose one answer.")
	case len(chosen) < min:
		return "", M("Please choose at least %s (you chose %d).", answersCount(min), len(chosen))
	case max >= 0 && len(chosen) > max:
		return "", M("Please choose at most %s (you chose %d).", answersCount(max), len(chosen))
	}
	return encodeJSON(chosen), Msg{}
}

func (pictureChoice) form(_ Question, stored string) Form {
	if l := decodeList(stored); len(l) > 0 {
		return Form{"": l}
	}
	return Form{}
}

func (pictureChoice) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, c := range q.PossibleAnswers {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: c})
	}
}

func (pictureChoice) add(qs *QuestionAnswersSummary, answer string) {
	for _, v := range decodeList(answer) {
		qs.Choices = addChoice(qs.Choices, v)
	}
}

// Chart: a bar per choice; when some respondents chose several, the note
// checkboxes give.
func (pictureChoice) Chart(qs *QuestionAnswersSummary) Chart {
	c := choiceChart(qs)
	if n := sumCounts(c.Counts); n > qs.Answered {
		c.Note = fmt.Sprintf("Each respondent may choose several answers: %s chose %d in all, of which the bars give the shares.", respondents(qs.Answered), n)
	}
	return c
}

// Columns: one for a question of one choice; one per choice, as
// checkboxes', for a question of several.
func (pictureChoice) Columns(q Question) []string {
	if !q.Multiple || len(q.PossibleAnswers) == 0 {
		return []string{""}
	}
	return append([]string(nil), q.PossibleAnswers...)
}

func (k pictureChoice) CellTypes(q Question) []CellType {
	return cellTypes(len(k.Columns(q)), CellText)
}

// Cells: the label under each chosen choice of a question of several;
// else the label, or the labels with "; " between them (a question whose
// settings are unknown, or that took several once).
func (k pictureChoice) Cells(q Question, qa QuestionAnswer) []string {
	cols := k.Columns(q)
	cells := make([]string, len(cols))
	chosen := decodeList(qa.Answer)
	if len(cols) == 1 && cols[0] == "" {
		cells[0] = strings.Join(chosen, "; ")
		return cells
	}
	for i, c := range cols {
		if contains(chosen, c) {
			cells[i] = c
		}
	}
	return cells
}

// Value: the label of a question of one choice, the list of labels of a
// question of several.
func (pictureChoice) Value(q Question, qa QuestionAnswer) any {
	chosen := decodeList(qa.Answer)
	switch {
	case chosen == nil:
		return nil
	case !q.Multiple && len(chosen) == 1:
		return chosen[0]
	}
	return chosen
}

// SQLRows: one row per chosen choice (Item and Text the label), as
// checkboxes'.
func (pictureChoice) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	chosen := decodeList(qa.Answer)
	rows := make([]SQLRow, 0, len(chosen))
	for _, c := range chosen {
		rows = append(rows, SQLRow{Item: c, Text: c})
	}
	return rows
}

// picks: the pictures' labels.
func (pictureChoice) picks(q Question) []string { return q.PossibleAnswers }

// StatVars: a single choice coded 1, 2 … in the pictures' order; several,
// one variable per picture, 1 when it is chosen and 0 when not (of an
// answer that has some), as checkboxes'.
func (k pictureChoice) StatVars(q Question) []StatVar {
	if len(q.PossibleAnswers) == 0 {
		return plainVariables(k, q)
	}
	if !q.Multiple {
		return []StatVar{{Type: CellNumber, Values: choiceValues(q.PossibleAnswers, false)}}
	}
	out := make([]StatVar, len(q.PossibleAnswers))
	for i, c := range q.PossibleAnswers {
		out[i] = StatVar{Suffix: "_" + strconv.Itoa(i+1), Label: c, Type: CellNumber, Values: checkedValues}
	}
	return out
}

// StatCells: the picture's code, or 1 or 0 per picture; "" for no answer.
func (k pictureChoice) StatCells(q Question, qa QuestionAnswer) []string {
	if len(q.PossibleAnswers) == 0 {
		return k.Cells(q, qa)
	}
	chosen := decodeList(qa.Answer)
	if !q.Multiple {
		if len(chosen) == 0 {
			return []string{""}
		}
		return []string{choiceCode(q.PossibleAnswers, chosen[0])}
	}
	out := make([]string, len(q.PossibleAnswers))
	if len(chosen) == 0 {
		return out
	}
	for i, c := range q.PossibleAnswers {
		out[i] = "0"
		if contains(chosen, c) {
			out[i] = "1"
		}
	}
	return out
}

// categories: the pictures' labels; an answer to a question of several
// falls into each it chose.
func (pictureChoice) categories(q Question) ([]string, bool) {
	return slices.Clone(q.PossibleAnswers), q.Multiple
}

func (pictureChoice) categoriesOf(q Question, stored string, dst []int) []int {
	for _, v := range decodeList(stored) {
		if i := slices.Index(q.PossibleAnswers, v); i >= 0 {
			dst = append(dst, i)
		}
	}
	return dst
}
