package web

import (
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The designer's sections: each a page for respondents, with an optional
// title and description and a shuffle option. Without JavaScript: "Add a
// page break" adds a section (the first break makes the questions so far
// section 1), each question has a select of its section (and Up at the top
// of a section moves it to the end of the one before, Down at the bottom
// to the start of the next), a section's own button adds a question to it,
// and an empty section can be removed. Sections travel in the form as
// s.N.* (N from 0, in order), "ns" their count; a question's q.N.section
// is its section's N.

// designerSection is one section of the designer as typed.
type designerSection struct {
	Pos int // 1-based
	// ID is the section's stable ID (kept across edits: rules name it).
	ID, Title, Description string
	Shuffle                bool
	// If is "Show this section only if…", Jumps "After this section, go
	// to…" (designer_logic.go).
	If    designerCondition
	Jumps []designerJump
	// Errors are the problems beside its fields ("title", "description",
	// "jumps", "" for the section as a whole).
	Errors map[string]string
}

// Field is the id of the section's control of field; Name its form name.
func (s designerSection) Field(field string) string { return "s" + strconv.Itoa(s.Pos-1) + "-" + field }
func (s designerSection) Name(field string) string  { return "s." + strconv.Itoa(s.Pos-1) + "." + field }

// Idx is the section's index in the form.
func (s designerSection) Idx() int { return s.Pos - 1 }

// designerBlock is a section with its questions, as the designer shows
// them (a survey without sections is one block without one).
type designerBlock struct {
	Section   *designerSection
	Questions []designerQuestion
}

// Blocks are the designer's sections, each with its questions (which are
// ordered by section).
func (p designerPage) Blocks() []designerBlock {
	if len(p.Sections) == 0 {
		return []designerBlock{{Questions: p.Questions}}
	}
	out := make([]designerBlock, len(p.Sections))
	for i := range p.Sections {
		out[i].Section = &p.Sections[i]
	}
	for _, q := range p.Questions {
		out[min(q.Sec, len(out)-1)].Questions = append(out[min(q.Sec, len(out)-1)].Questions, q)
	}
	return out
}

// parseSections reads the sections s.N.* of the designer's form.
func parseSections(f url.Values) []designerSection {
	n, _ := strconv.Atoi(f.Get("ns"))
	n = min(max(n, 0), survey.MaxSections+1)
	var out []designerSection
	for i := 0; i < n; i++ {
		p := "s." + strconv.Itoa(i) + "."
		out = append(out, designerSection{Pos: i + 1, ID: strings.TrimSpace(f.Get(p + "id")), Title: f.Get(p + "title"),
			Description: f.Get(p + "description"), Shuffle: f.Get(p+"shuffle") != "", If: parseCondition(f, p+"if"), Jumps: parseJumps(f, i)})
	}
	return out
}

// groupQuestions orders the questions by section (keeping their order
// within each), a question of no known section going to the last, and
// numbers them from 1.
func groupQuestions(qs []designerQuestion, sections int) {
	for i := range qs {
		qs[i].Sec = min(max(qs[i].Sec, 0), max(sections-1, 0))
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].Sec < qs[j].Sec })
	for i := range qs {
		qs[i].Pos = i + 1
	}
}

// newSection is a new section with an ID no other of secs has.
func newSection(secs []designerSection) designerSection {
	used := make([]survey.Section, len(secs))
	for i, s := range secs {
		used[i] = survey.Section{ID: s.ID}
	}
	return designerSection{ID: survey.NewSectionID(used)}
}

// sectionAction applies a section's button: "addsection" (a page break
// at the end, with a new question in it), "addto.N" (a question in
// section N), "rmsection.N" (remove section N, if it has no questions).
// It returns the id of the control to focus, and ok false when action is
// not a section's; refused is the problem when the action cannot be done.
func (p *designerPage) sectionAction(action string) (focus, refused string, ok bool) {
	verb, arg, _ := strings.Cut(action, ".")
	at, err := strconv.Atoi(arg)
	switch {
	case verb == "addsection":
		if len(p.Sections) >= survey.MaxSections {
			return "", "A survey has at most " + strconv.Itoa(survey.MaxSections) + " sections.", true
		}
		if len(p.Sections) == 0 {
			// The questions so far are the first section.
			p.Sections = append(p.Sections, newSection(nil))
		}
		p.Sections = append(p.Sections, newSection(p.Sections))
		at = len(p.Sections) - 1
		p.renumberSections()
		if len(p.Questions) < survey.MaxQuestions {
			closeCards(p.Questions)
			q := newDesignerQuestion()
			q.Sec = at
			p.Questions = append(p.Questions, q)
			groupQuestions(p.Questions, len(p.Sections))
		}
		return p.Sections[at].Field("title"), "", true
	case (verb == "addto" || verb == "rmsection") && (err != nil || at < 0 || at >= len(p.Sections)):
		return "", "", true
	case verb == "addto":
		if len(p.Questions) >= survey.MaxQuestions {
			return "", "A survey has at most " + strconv.Itoa(survey.MaxQuestions) + " questions.", true
		}
		closeCards(p.Questions)
		q := newDesignerQuestion()
		q.Sec = at
		p.Questions = append(p.Questions, q)
		groupQuestions(p.Questions, len(p.Sections))
		for _, dq := range p.Questions {
			if dq.orig == -1 {
				return questionFieldID(dq.Pos-1, "text"), "", true
			}
		}
		return "", "", true
	case verb == "rmsection":
		if slices.ContainsFunc(p.Questions, func(q designerQuestion) bool { return q.Sec == at }) {
			p.Sections[at].Errors = map[string]string{"": "This section has questions: move them to another section, or remove them, first."}
			return p.Sections[at].Field("remove"), "This section has questions: move them to another section, or remove them, first.", true
		}
		p.Sections = append(p.Sections[:at], p.Sections[at+1:]...)
		for i := range p.Questions {
			if p.Questions[i].Sec > at {
				p.Questions[i].Sec--
			}
		}
		p.renumberSections()
		if len(p.Sections) == 0 {
			return "", "", true
		}
		return p.Sections[min(at, len(p.Sections)-1)].Field("title"), "", true
	}
	return "", "", false
}

func (p *designerPage) renumberSections() {
	for i := range p.Sections {
		p.Sections[i].Pos = i + 1
	}
}

// surveySections are the sections the designer defines, and the ID of
// each question's section.
func (p designerPage) surveySections() ([]survey.Section, func(q designerQuestion) string) {
	if len(p.Sections) == 0 {
		return nil, func(designerQuestion) string { return "" }
	}
	out := make([]survey.Section, len(p.Sections))
	for i, s := range p.Sections {
		out[i] = survey.Section{ID: s.ID, Title: s.Title, Description: s.Description, Shuffle: s.Shuffle, ShowIf: s.If.condition(), Jumps: jumps(s.Jumps)}
	}
	return out, func(q designerQuestion) string { return out[min(max(q.Sec, 0), len(out)-1)].ID }
}

// designerSectionsOf are a stored survey's sections as the designer shows
// them, and the section (its index) of each of its questions.
func designerSectionsOf(sv *survey.Survey) ([]designerSection, func(q survey.Question) int) {
	var out []designerSection
	for i, s := range sv.Sections {
		out = append(out, designerSection{Pos: i + 1, ID: s.ID, Title: s.Title, Description: s.Description, Shuffle: s.Shuffle, If: designerConditionOf(s.ShowIf), Jumps: designerJumpsOf(s.Jumps)})
	}
	return out, func(q survey.Question) int {
		return max(slices.IndexFunc(sv.Sections, func(s survey.Section) bool { return s.ID == q.Section }), 0)
	}
}

// setSectionErrors shows the sections' problems (survey.Validate's keys
// "sections.N", "sections.N.title", ".description", ".id") beside them,
// and returns them for the page's summary, in order.
func (p *designerPage) setSectionErrors(errs map[string]string, used map[string]bool) []designerProblem {
	var out []designerProblem
	for i := range p.Sections {
		s := &p.Sections[i]
		key := "sections." + strconv.Itoa(i)
		for _, f := range []struct{ key, field, id string }{{key, "", s.Field("remove")}, {key + ".id", "", s.Field("remove")}, {key + ".title", "title", s.Field("title")}, {key + ".description", "description", s.Field("description")}} {
			m := errs[f.key]
			if m == "" {
				continue
			}
			if s.Errors == nil {
				s.Errors = map[string]string{}
			}
			if s.Errors[f.field] != "" {
				s.Errors[f.field] += " "
			}
			s.Errors[f.field] += m
			used[f.key] = true
			out = append(out, designerProblem{Field: f.id, Message: "Section " + strconv.Itoa(i+1) + ": " + m})
		}
	}
	return out
}

// Err is the problem shown beside the section's field ("" the section's
// own).
func (s designerSection) Err(field string) string { return s.Errors[field] }
