package web

import (
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// renderDesignerPage renders the designer's page for no one signed in.
func renderDesignerPage(t *testing.T, p designerPage) string {
	t.Helper()
	v, err := newViews()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{views: v}
	p.Kinds = survey.Kinds()
	b, err := s.renderBytes("designer", p, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	fieldRE    = regexp.MustCompile(`<(input|textarea|select)\b([^>]*)>`)
	attrRE     = regexp.MustCompile(`\b(name|value|type|id)="([^"]*)"`)
	checkedRE  = regexp.MustCompile(`\bchecked\b`)
	optionRE   = regexp.MustCompile(`<option value="([^"]*)"([^>]*)>`)
	textareaRE = regexp.MustCompile(`(?s)<textarea\b[^>]*\bname="([^"]*)"[^>]*>(.*?)</textarea>`)
)

// postedValues is what a browser would post of the rendered page's form
// (without the buttons): inputs, checked boxes, textareas, selected
// options.
func postedValues(t *testing.T, page string) url.Values {
	t.Helper()
	un := strings.NewReplacer("&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&#43;", "+", "&amp;", "&")
	v := url.Values{}
	for _, m := range textareaRE.FindAllStringSubmatch(page, -1) {
		v.Add(m[1], un.Replace(strings.TrimPrefix(m[2], "\n")))
	}
	rest := textareaRE.ReplaceAllString(page, "")
	for _, sel := range regexp.MustCompile(`(?s)<select\b[^>]*\bname="([^"]*)"[^>]*>(.*?)</select>`).FindAllStringSubmatch(rest, -1) {
		opts := optionRE.FindAllStringSubmatch(sel[2], -1)
		val := ""
		if len(opts) > 0 {
			val = opts[0][1]
		}
		for _, o := range opts {
			if strings.Contains(o[2], "selected") {
				val = o[1]
			}
		}
		v.Add(sel[1], un.Replace(val))
	}
	for _, m := range fieldRE.FindAllStringSubmatch(rest, -1) {
		if m[1] != "input" {
			continue
		}
		a := map[string]string{}
		for _, at := range attrRE.FindAllStringSubmatch(m[2], -1) {
			a[at[1]] = un.Replace(at[2])
		}
		if a["name"] == "" || (a["type"] == "checkbox" && !checkedRE.MatchString(m[2])) {
			continue
		}
		v.Add(a["name"], a["value"])
	}
	return v
}

// allSettings is a test-only view of a kind with every setting, the way
// a kind the registry does not hold yet would show them.
var allSettings = survey.Settings{Choices: true, MaxChoices: 20, Rows: true, Other: true, Shuffle: true, Bounds: "number",
	Integer: true, Format: true, Scale: true, ScaleLabels: true}

// TestDesignerSettingsRoundTrip: a question shown with its kind's settings
// and posted back unchanged is the same question, whatever the settings
// (those of the kinds registered today, and a test-only kind with all).
func TestDesignerSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	full := survey.Question{Text: "Rate the rooms", Type: "Test", Help: "Each row once", Optional: true,
		PossibleAnswers: []string{"Poor", "Fair", "Good"}, Rows: []string{"Bed", "Bath"}, Other: true, Shuffle: true,
		Min: "1.5", Max: "10", Integer: true, Format: "email", Scale: 7, LowLabel: "Bad", HighLabel: "Great & fine",
		Pictures: []survey.Picture{{Label: "Poor", Alt: "A poor room", Image: "adatum-0a1b2c3d4e5f.png"}, {Label: "Fair", Alt: "A \"fair\" room", Image: "adatum-00000000beef.jpg"}}, Multiple: true}
	cases := []struct {
		name     string
		settings survey.Settings
		labels   []string // shown
		hidden   []string // never shown as a control
	}{
		{"every setting", allSettings, []string{">Columns<", ">Rows<", ">Smallest ", ">Largest ", "Whole numbers only", "E-mail address", "Scale from 1 to", "Label of the low end", "Other (please specify)", "Shuffle the choices"}, nil},
		{"none", survey.Settings{}, nil, []string{"q0-choices", "q0-rows", "q0-min", "q0-max", "q0-integer", "q0-format", "q0-scale", "q0-low", "q0-other", "q0-shuffle"}},
		{"choices only", survey.Settings{Choices: true, Other: true}, []string{">Choices<", "One per line."}, []string{"q0-rows", "q0-min", "q0-scale", "q0-shuffle"}},
		{"length", survey.Settings{Bounds: "length", Format: true}, []string{">Fewest characters ", ">Most characters ", `type="number"`, "Web address"}, []string{"q0-choices"}},
		{"dates", survey.Settings{Bounds: "date"}, []string{">Earliest ", ">Latest ", `type="date"`}, []string{"q0-scale"}},
		{"selections", survey.Settings{Choices: true, Bounds: "selections"}, []string{">Fewest selections ", ">Most selections "}, nil},
		{"pictures", survey.Settings{Choices: true, MaxChoices: 20, Bounds: "selections", Pictures: true}, []string{">Pictures<", `<label for="q0-pictures-1-alt">Alt text 2</label>`,
			`value="A &#34;fair&#34; room"`, `<img class="dq-picture-img" src="/logos/adatum-00000000beef.jpg"`, `<label for="q0-pictures-3-image">Image 4</label>`, "Several may be chosen"}, []string{"q0-choices"}},
		{"scale", survey.Settings{Scale: true, ScaleLabels: true}, []string{"Scale from 1 to", `<option value="7" selected>`, `value="Great &amp; fine"`}, []string{"q0-choices"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dq := designerQuestionOf(full, 1)
			dq.Settings, dq.Label = c.settings, "Test kind"
			page := renderDesignerPage(t, designerPage{Tenant: "adatum", Title: "T", Questions: []designerQuestion{dq}})
			for _, l := range c.labels {
				if !strings.Contains(page, l) {
					t.Errorf("the page lacks %q", l)
				}
			}
			for _, id := range c.hidden {
				if strings.Contains(page, `id="`+id+`"`) {
					t.Errorf("the page shows %s, which the kind does not have", id)
				}
			}
			v := postedValues(t, page)
			v.Set("q.0.type", "Test") // not a registered kind: no option selected
			got, msg := parseDesignerQuestion(v, 0).question()
			if msg != "" || !reflect.DeepEqual(got, full) {
				t.Errorf("posted back:\n got %+v\nwant %+v (%s)", got, full, msg)
			}
		})
	}
	if os.Getenv("DESIGNER_HTML") != "" {
		dq := designerQuestionOf(full, 1)
		dq.Settings, dq.Label = allSettings, "Test kind"
		p := designerPage{Tenant: "adatum", Title: "T", Questions: []designerQuestion{dq, designerQuestionOf(survey.Question{Text: "Why?", Type: survey.SimpleText}, 2)}}
		p.setErrors(map[string]string{"title": "Give the survey a title.", "questions.0.labels": "Too long.", "questions.1.text": "Write the question."})
		p.Focus = "designer-errors"
		_ = os.WriteFile(os.Getenv("DESIGNER_HTML"), []byte(renderDesignerPage(t, p)), 0o644)
	}
}

// TestDesignerErrorsBesideFields: each of survey.Validate's keys shows
// beside its field, with aria-invalid and aria-describedby, and in the
// summary linked to that field; a problem of a setting the kind does not
// show goes beside the kind.
func TestDesignerErrorsBesideFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key      string
		settings survey.Settings
		field    string // the id of the control it is shown beside
		errID    string
	}{
		{"title", survey.Settings{}, "title", "title-err"},
		{"description", survey.Settings{}, "description", "description-err"},
		{"thankYou", survey.Settings{}, "thankYou", "thankYou-err"},
		{"questions.0.text", survey.Settings{}, "q0-text", "q0-text-err"},
		{"questions.0.help", survey.Settings{}, "q0-help", "q0-help-err"},
		{"questions.0.type", survey.Settings{}, "q0-type", "q0-type-err"},
		{"questions.0.choices", allSettings, "q0-choices", "q0-choices-err"},
		{"questions.0.rows", allSettings, "q0-rows", "q0-rows-err"},
		{"questions.0.min", allSettings, "q0-min", "q0-min-err"},
		{"questions.0.max", allSettings, "q0-max", "q0-max-err"},
		{"questions.0.scale", allSettings, "q0-scale", "q0-scale-err"},
		{"questions.0.format", allSettings, "q0-format", "q0-format-err"},
		{"questions.0.labels", allSettings, "q0-low", "q0-labels-err"},
		// Settings the kind does not show: beside its kind.
		{"questions.0.rows", survey.Settings{Choices: true}, "q0-type", "q0-type-err"},
		{"questions.0.scale", survey.Settings{}, "q0-type", "q0-type-err"},
		{"questions.0.labels", survey.Settings{Scale: true}, "q0-type", "q0-type-err"},
		{"questions.0.colour", allSettings, "q0-type", "q0-type-err"},
	}
	for _, c := range cases {
		t.Run(c.key+"/"+c.field, func(t *testing.T) {
			dq := designerQuestionOf(survey.Question{Text: "Q", Type: "Test"}, 1)
			dq.Settings = c.settings
			p := designerPage{Tenant: "adatum", Title: "T", Questions: []designerQuestion{dq}}
			msg := "Problem of " + c.key + "."
			p.setErrors(map[string]string{c.key: msg})
			page := renderDesignerPage(t, p)
			ctl := regexp.MustCompile(`<(input|textarea|select) id="` + c.field + `"[^>]*>`).FindString(page)
			if ctl == "" || !strings.Contains(ctl, `aria-invalid="true"`) || !regexp.MustCompile(`aria-describedby="[^"]*\b`+c.errID+`\b`).MatchString(ctl) {
				t.Errorf("control %s: %s", c.field, ctl)
			}
			if !strings.Contains(page, `id="`+c.errID+`">`+msg+`</p>`) {
				t.Errorf("no problem %s beside %s", c.errID, c.field)
			}
			if !strings.Contains(page, `<li><a href="#`+c.field+`">`) || !strings.Contains(page, `id="designer-errors"`) {
				t.Errorf("the summary does not link to %s", c.field)
			}
			if n := strings.Count(page, msg); n != 2 {
				t.Errorf("the problem shows %d times, want 2 (beside the field, in the summary)", n)
			}
		})
	}
}

// TestQuestionOrder: positions typed into the "Position" field and the Up
// and Down buttons put questions where asked.
func TestQuestionOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		pos     []int    // the position fields posted, per question
		actions []string // then buttons, pressed one after the other (by the page's indexes)
		want    string
	}{
		{"unchanged", []int{1, 2, 3, 4, 5}, nil, "ABCDE"},
		{"5 to 1 by position", []int{1, 2, 3, 4, 1}, nil, "EABCD"},
		{"1 to 5 by position", []int{5, 2, 3, 4, 5}, nil, "BCDEA"},
		{"3 to 2 by position", []int{1, 2, 2, 4, 5}, nil, "ACBDE"},
		{"2 to 4 by position", []int{1, 4, 3, 4, 5}, nil, "ACDBE"},
		{"past the end", []int{9, 2, 3, 4, 5}, nil, "BCDEA"},
		{"5 to 1 by Up", []int{1, 2, 3, 4, 5}, []string{"up.4", "up.3", "up.2", "up.1"}, "EABCD"},
		{"1 to 5 by Down", []int{1, 2, 3, 4, 5}, []string{"down.0", "down.1", "down.2", "down.3"}, "BCDEA"},
		{"Up on the first", []int{1, 2, 3, 4, 5}, []string{"up.0"}, "ABCDE"},
		{"Down on the last", []int{1, 2, 3, 4, 5}, []string{"down.4"}, "ABCDE"},
		{"remove", []int{1, 2, 3, 4, 5}, []string{"remove.2"}, "ABDE"},
		{"duplicate", []int{1, 2, 3, 4, 5}, []string{"dup.1"}, "ABB (copy)CDE"},
		{"duplicate the last", []int{1, 2, 3, 4, 5}, []string{"dup.4"}, "ABCDEE (copy)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := url.Values{"n": {strconv.Itoa(len(c.pos))}}
			for i, p := range c.pos {
				f.Set("q."+strconv.Itoa(i)+".text", string(rune('A'+i)))
				f.Set("q."+strconv.Itoa(i)+".pos", strconv.Itoa(p))
			}
			order := func(qs []designerQuestion) string {
				var b strings.Builder
				for _, q := range qs {
					b.WriteString(q.Q.Text)
				}
				return b.String()
			}
			qs := parseQuestions(f)
			for _, a := range c.actions {
				// Each press posts the page as it was rendered.
				g := url.Values{"n": {strconv.Itoa(len(qs))}}
				for i, q := range qs {
					g.Set("q."+strconv.Itoa(i)+".text", q.Q.Text)
					g.Set("q."+strconv.Itoa(i)+".pos", strconv.Itoa(q.Pos))
				}
				qs = parseQuestions(g)
				if _, _, ok := questionAction(&qs, a); !ok {
					t.Fatalf("%s refused", a)
				}
			}
			if got := order(qs); got != c.want {
				t.Errorf("order %s, want %s", got, c.want)
			}
			for i, q := range qs {
				if q.Pos != i+1 {
					t.Errorf("question %d has position %d", i+1, q.Pos)
				}
			}
		})
	}
}
