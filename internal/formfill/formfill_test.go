package formfill

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseAndAnswer(t *testing.T) {
	page := `<form method="post"><input type="hidden" name="token" value="0001.a&amp;b">
	<input type="radio" id="f-1-1" name="q-1" value="1" required><input type="radio" name="q-1" value="2">
	<label><input type="radio" name="q-2" value="Fish &amp; chips"></label><input type="radio" name="q-2" value=""><input type="text" name="q-2-other" value="">
	<input type="checkbox" name="q-3" value="A"><input type=checkbox name=q-3 value=B checked>
	<select id="f-4" name="q-4" required><option value="">Choose…</option><option value="X">X</option><option value="Y" selected>Y</option></select>
	<select name="q-5-0"><option value="">Position</option><option value="1">1</option><option value="2">2</option></select>
	<select name="q-5-1"><option value="">Position</option><option value="1">1</option><option value="2">2</option></select>
	<input class="line-input number-input" type="text" name="q-6"><input type="date" name="q-7" min="2026-02-01" max="2026-02-03">
	<input type="email" name="q-8"><input type="url" name="q-9"><textarea name="q-10" rows="4"></textarea>
	<input type="radio" name="q-11-0" value="Good"><input type="radio" name="q-11-1" value="Poor">
	<input type="text" name="search"></form>`
	f, err := Parse([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if f.Token != "0001.a&b" || f.Questions() != 11 {
		t.Fatalf("token %q, %d questions: %+v", f.Token, f.Questions(), f.Fields)
	}
	kinds := map[string]Kind{"q-1": Radio, "q-2": Radio, "q-3": Checkbox, "q-4": Select, "q-5-0": Select, "q-6": Number, "q-7": Date, "q-8": Email, "q-9": URL, "q-10": Text, "q-11-1": Radio}
	for _, fl := range f.Fields {
		if k, ok := kinds[fl.Name]; ok && k != fl.Kind {
			t.Errorf("%s is %v, want %v", fl.Name, fl.Kind, k)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50; i++ {
		v := f.Answer(r, func(*rand.Rand) string { return "words" })
		for name, ok := range map[string]bool{
			"q-2":                             v.Get("q-2") == "Fish & chips",
			"q-4":                             v.Get("q-4") == "X" || v.Get("q-4") == "Y",
			"q-5":                             v.Get("q-5-0")+v.Get("q-5-1") == "12" || v.Get("q-5-0")+v.Get("q-5-1") == "21",
			"q-7":                             v.Get("q-7") >= "2026-02-01" && v.Get("q-7") <= "2026-02-03",
			"q-8":                             strings.HasSuffix(v.Get("q-8"), "@example.com"),
			"q-10":                            v.Get("q-10") == "words",
			"q-2-other and search left empty": v.Get("q-2-other") == "" && !v.Has("search"),
		} {
			if !ok {
				t.Fatalf("%s: answer %v", name, v)
			}
		}
	}
	for _, bad := range []string{`<p>no form</p>`, `<input name="token" value="x">`, `<input name="token" value="x"><select name="q-1"><option value="">-</option></select>`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// FuzzParse: any page parses or is refused, never a panic, and a form
// parsed gives an answer.
func FuzzParse(f *testing.F) {
	f.Add(`<input name="token" value="t"><input type="radio" name="q-1" value="a">`)
	f.Add(`<input name="token" value="t"><select name="q-1-0"><option value="1"></select><select name="q-1-1"><option value="2">`)
	f.Add(`<input name=token value=t <input type="date" name="q-1" min="x">`)
	f.Fuzz(func(t *testing.T, page string) {
		form, err := Parse([]byte(page))
		if err == nil {
			form.Answer(rand.New(rand.NewPCG(1, 1)), func(*rand.Rand) string { return "x" })
		}
	})
}
