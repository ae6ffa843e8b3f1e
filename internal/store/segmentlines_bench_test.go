//go:build linux

package store

import (
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// benchSegmentLines are 1,000 lines of answers to a survey of every kind, as
// the worker writes them, and the survey.
func benchSegmentLines(b *testing.B) ([][]byte, *survey.Survey) {
	sv, forms := surveytest.ExampleSurvey("adatum", "lines")
	r := rand.New(rand.NewPCG(9, 10))
	lines := make([][]byte, 1000)
	for i := range lines {
		a, err := survey.NewAnswer(sv, forms(r))
		if err != nil {
			b.Fatal(err)
		}
		a.Tenant, a.Slug, a.ID = sv.Tenant, sv.Slug, NewAnswerID(a.CreatedOn)
		if lines[i], err = encodeJSON(&a); err != nil {
			b.Fatal(err)
		}
	}
	return lines, sv
}

// BenchmarkSegmentDecode decodes lines of answers to every kind whole, as
// a scan does: ns/op is a line's.
func BenchmarkSegmentDecode(b *testing.B) {
	lines, _ := benchSegmentLines(b)
	var d lineDecoder
	var a survey.SurveyAnswer
	cpuPerOp(b, func(i int) {
		if err := d.decode(lines[i%len(lines)], &a); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSegmentPeek reads what a filter of two questions looks at in
// lines of answers to every kind, as ScanFiltered does: ns/op is a
// line's.
func BenchmarkSegmentPeek(b *testing.B) {
	lines, sv := benchSegmentLines(b)
	f, err := survey.ParseAnswerFilter(sv, url.Values{"c": {"q2=Coffee", "q14=Yes"}, "from": {"2026-01-31"}})
	if err != nil {
		b.Fatal(err)
	}
	fields := f.Fields()
	var d lineDecoder
	var a survey.SurveyAnswer
	cpuPerOp(b, func(i int) {
		if !d.peek(lines[i%len(lines)], &fields, &a) {
			b.Fatal("not peeked")
		}
	})
}
