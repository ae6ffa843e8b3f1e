package survey

import (
	"slices"
	"strings"
	"testing"
)

// FuzzPipeMatches: the hand-written matcher finds what pipeRE finds, at
// the same places.
func FuzzPipeMatches(f *testing.F) {
	for _, s := range []string{
		"", "plain", "{{name}}", "Hi {{ name | friend }}!", "{{a}}{{b|c}}", "{{{x}}}", "{{x|}}", "{{x |y}", "{{ }}",
		"{{" + strings.Repeat("a", 60) + "}}", "{{" + strings.Repeat("a", 61) + "}}",
		"{{x|" + strings.Repeat("é", 200) + "}}", "{{x|" + strings.Repeat("é", 201) + "}}", "{{x|a{b}}", "{{x|a}b}}",
		"{{hidden:src|web}} and {{var:total}}", "{{x\t|\ny}}", "{{x\v}}", "{{x|\xff\xfe}}", "{{-:_9}}", "{{ x y }}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := pipeRE.FindAllStringSubmatchIndex(s, -1)
		got := pipeMatches(s)
		if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Errorf("pipeMatches(%q) = %v, pipeRE finds %v", s, got, want)
		}
	})
}
