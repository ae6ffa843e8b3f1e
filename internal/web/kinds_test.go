package web

import (
	"html/template"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestKindPartials: every registered kind has its input and chart
// partial, and a kind without one stops the server from starting.
func TestKindPartials(t *testing.T) {
	t.Parallel()
	v, err := newViews()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkKindPartials(v.kinds, survey.Kinds()); err != nil {
		t.Fatal(err)
	}
	k := survey.Kinds()[0]
	partial := template.Must(template.New(k.Key() + ".input.html").Parse("<p></p>"))
	err = checkKindPartials(partial, []survey.Kind{k})
	if err == nil || !strings.Contains(err.Error(), k.Key()+".chart.html") {
		t.Errorf("a kind without its chart partial: got %v", err)
	}
	// The designer offers every kind by its name for people.
	var b strings.Builder
	p := designerPage{Tenant: "adatum", Kinds: survey.Kinds(), Questions: []designerQuestion{{Pos: 1, Q: survey.Question{Type: k.Type()}}}}
	if err := v.pages["designer"].ExecuteTemplate(&b, "base", layout{Page: p}); err != nil {
		t.Fatal(err)
	}
	for _, k := range survey.Kinds() {
		if want := `<option value="` + string(k.Type()) + `"`; !strings.Contains(b.String(), want) || !strings.Contains(b.String(), ">"+k.Label()+"</option>") {
			t.Errorf("the designer does not offer %s as %q", k.Type(), k.Label())
		}
	}
}
