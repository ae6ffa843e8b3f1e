// Package surveytest holds what tests need of the survey domain: an
// example question of every kind of question with a source of what a
// respondent may send to it (examples.go), surveys made of them, and
// forms of one value per question. Only tests import it; the binary never does.
package surveytest

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// An example is a definition of a kind's question and a source of what a
// respondent may send to it. It makes a new question at each call, so
// that a test may change the one it gets.
type example func() (q survey.Question, form func(r *rand.Rand) survey.Form)

// Lookup returns the example question of kind t and a source of what a
// respondent may send to it; ok is false when t has none.
func Lookup(t survey.QuestionType) (q survey.Question, form func(r *rand.Rand) survey.Form, ok bool) {
	ex, ok := examples[t]
	if !ok {
		return survey.Question{}, nil, false
	}
	q, form = ex()
	return q, form, true
}

// Example returns kind k's example question and a source of what a
// respondent may send to it: for tests and benchmarks that cover every
// kind. It panics when k has none: every registered kind has one, which
// TestExamples and the survey package's TestKindConformance check.
func Example(k survey.Kind) (survey.Question, func(r *rand.Rand) survey.Form) {
	q, form, ok := Lookup(k.Type())
	if !ok {
		panic("surveytest: kind " + string(k.Type()) + " has no example (examples.go)")
	}
	return q, form
}

// OfTenant is q with its pictures' images named as tenant's (an
// example's are Adatum's), so that a survey of tenant may ask it.
func OfTenant(q survey.Question, tenant string) survey.Question {
	q.Pictures = slices.Clone(q.Pictures)
	for j := range q.Pictures {
		if rest, ok := strings.CutPrefix(q.Pictures[j].Image, "adatum-"); ok {
			q.Pictures[j].Image = tenant + "-" + rest
		}
	}
	return q
}

// ExampleSurvey is a survey of tenant with one example question of every
// kind (IDs q1, q2, … in the registry's order), normalized, and a source
// of forms a respondent may send to all of them.
func ExampleSurvey(tenant, slug string) (*survey.Survey, func(r *rand.Rand) map[string]survey.Form) {
	s := &survey.Survey{Tenant: tenant, Slug: slug, Title: "Every kind of question", State: survey.Published}
	var forms []func(*rand.Rand) survey.Form
	for i, k := range survey.Kinds() {
		q, form := Example(k)
		q.ID = "q" + strconv.Itoa(i+1)
		// A question answered with files is optional here: a form sent
		// without its files (url-encoded, as most tests send it) is an
		// answer still; the domain's tests answer it with its example.
		q.Optional = q.Optional || survey.TakesFiles(q)
		q = OfTenant(q, tenant)
		s.Questions = append(s.Questions, q)
		forms = append(forms, form)
	}
	s.Normalize()
	return s, func(r *rand.Rand) map[string]survey.Form {
		out := make(map[string]survey.Form, len(forms))
		for i, form := range forms {
			out[s.Questions[i].ID] = form(r)
		}
		return out
	}
}

// Forms is the forms of one value per question, by question ID: what a
// form of single-valued questions sends.
func Forms(values map[string]string) map[string]survey.Form {
	out := make(map[string]survey.Form, len(values))
	for id, v := range values {
		out[id] = survey.Value(v)
	}
	return out
}
