package survey

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A survey is a list of sections, each shown to respondents on a page of
// its own. A survey without sections (every survey made before them) is
// one implicit section: one page, as it always was. A question names its
// section by ID (Question.Section); "" is the first section. A section's ID
// is stable across edits, so that rules (and answers' bookkeeping) can
// name it.

// Section is a part of a survey: a page for respondents.
type Section struct {
	ID          string
	Title       string
	Description string
	// Shuffle shows the section's questions in a new order to each
	// respondent.
	Shuffle bool
	// ShowIf, when set, shows the section only when it holds for the
	// answers to the questions of earlier sections; Jumps say where to go
	// after it (logic.go).
	ShowIf *Condition
	Jumps  []Jump
}

// Limits of sections.
const (
	MaxSections        = 20
	MaxSectionIDLength = 20
)

// ValidSectionID reports whether id can name a section: 1 to
// MaxSectionIDLength lower-case letters, digits and hyphens.
func ValidSectionID(id string) bool {
	if id == "" || len(id) > MaxSectionIDLength {
		return false
	}
	for _, c := range id {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// NewSectionID is an ID no section of sections has: s1, s2, …
func NewSectionID(sections []Section) string {
	for n := 1; ; n++ {
		id := "s" + strconv.Itoa(n)
		if !slices.ContainsFunc(sections, func(sc Section) bool { return sc.ID == id }) {
			return id
		}
	}
}

// Page is a section with its questions, as respondents see it.
type Page struct {
	Section   Section
	Questions []Question
	// First is the index in the survey of the page's first question (its
	// questions are numbered from First+1).
	First int
}

// sectionIndex is the index of the section a question belongs to: its
// Section's, the first for "" or a section the survey lacks.
func (s *Survey) sectionIndex(q Question) int {
	if i := slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == q.Section }); i >= 0 {
		return i
	}
	return 0
}

// Pages are the survey's sections with their questions, in order; a
// section without questions (all hidden) has no page. A survey without
// sections is one page.
func (s *Survey) Pages() []Page {
	if len(s.Sections) <= 1 {
		p := Page{Questions: s.Questions}
		if len(s.Sections) == 1 {
			p.Section = s.Sections[0]
		}
		return []Page{p}
	}
	by := make([][]Question, len(s.Sections))
	for _, q := range s.Questions {
		i := s.sectionIndex(q)
		by[i] = append(by[i], q)
	}
	var out []Page
	n := 0
	for i, qs := range by {
		if len(qs) == 0 {
			continue
		}
		out = append(out, Page{Section: s.Sections[i], Questions: qs, First: n})
		n += len(qs)
	}
	if len(out) == 0 {
		return []Page{{}}
	}
	return out
}

// normalizeSections cleans the sections' texts, gives an ID to each
// section without a valid one (or with one seen before), puts each
// question with no section or an unknown one in the first section, and
// orders the questions by section (stably). A single section with no
// title, description or shuffle is no section: the survey as it was.
func (s *Survey) normalizeSections() {
	for i := range s.Sections {
		sc := &s.Sections[i]
		sc.Title = strings.TrimSpace(CleanLine(sc.Title))
		sc.Description = strings.TrimSpace(CleanText(strings.ReplaceAll(sc.Description, "\r\n", "\n")))
		sc.ID = strings.TrimSpace(sc.ID)
		if !ValidSectionID(sc.ID) || slices.ContainsFunc(s.Sections[:i], func(o Section) bool { return o.ID == sc.ID }) {
			sc.ID = ""
		}
	}
	for i := range s.Sections {
		if s.Sections[i].ID == "" {
			s.Sections[i].ID = NewSectionID(s.Sections)
		}
	}
	if len(s.Sections) == 1 && s.Sections[0].Title == "" && s.Sections[0].Description == "" && !s.Sections[0].Shuffle && !s.Sections[0].hasLogic() {
		s.Sections = nil
	}
	if len(s.Sections) == 0 {
		s.Sections = nil
		for i := range s.Questions {
			s.Questions[i].Section = ""
		}
		return
	}
	known := func(id string) bool {
		return slices.ContainsFunc(s.Sections, func(sc Section) bool { return sc.ID == id })
	}
	for i := range s.Questions {
		q := &s.Questions[i]
		// A hidden question keeps no section of its own once its
		// section is gone; a visible one naming an unknown section is
		// refused by Validate.
		if q.Section == "" || (q.Hidden && !known(q.Section)) {
			q.Section = s.Sections[0].ID
		}
	}
	order := func(q Question) int {
		if i := slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == q.Section }); i >= 0 {
			return i
		}
		return len(s.Sections)
	}
	slices.SortStableFunc(s.Questions, func(a, b Question) int { return order(a) - order(b) })
}

// validateSections adds the problems of the survey's sections: keys
// "sections", "sections.N.id", ".title", ".description", "sections.N"
// (a section with no question) and "questions.N.section".
func (s *Survey) validateSections(f fieldErrors) {
	if len(s.Sections) > MaxSections {
		f.add("sections", "A survey has at most %d sections (it has %d).", MaxSections, len(s.Sections))
	}
	ids := map[string]bool{}
	for i, sc := range s.Sections {
		key := "sections." + strconv.Itoa(i)
		if !ValidSectionID(sc.ID) {
			f.add(key+".id", "A section's ID is 1 to %d lower-case letters, digits and hyphens.", MaxSectionIDLength)
		} else if sc.ID == JumpEnd {
			f.add(key+".id", "%q means the end of the survey in a jump: give the section another ID.", JumpEnd)
		} else if ids[sc.ID] {
			f.add(key+".id", "Two sections have the ID %q.", sc.ID)
		}
		ids[sc.ID] = true
		switch n := utf8.RuneCountInString(sc.Title); {
		case n > MaxTitleLength:
			f.add(key+".title", "Keep the section's title to %d characters (it has %d).", MaxTitleLength, n)
		case !IsCleanLine(sc.Title):
			f.add(key+".title", "The section's title may not contain control characters or direction overrides.")
		}
		switch n := utf8.RuneCountInString(sc.Description); {
		case n > MaxDescriptionLength:
			f.add(key+".description", "Keep the section's description to %d characters (it has %d).", MaxDescriptionLength, n)
		case !IsCleanText(sc.Description):
			f.add(key+".description", "The section's description may not contain control characters or direction overrides.")
		}
		if !slices.ContainsFunc(s.Questions, func(q Question) bool { return !q.Hidden && s.sectionIndex(q) == i }) {
			f.add(key, "Section %d has no questions: add one to it, or remove the section.", i+1)
		}
	}
	for i, q := range s.Questions {
		if q.Hidden {
			continue
		}
		if q.Section != "" && !ids[q.Section] {
			f.add("questions."+strconv.Itoa(i)+".section", "Choose a section this survey has.")
		}
	}
}
