package web_test

import (
	"context"
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// carForm is the designer's form of a three-section survey with logic:
// section 1 asks "Do you own a car?" (and an age), and jumps to section 3
// when the answer is No; section 2 asks about the commute; section 3's
// question about fuel is shown only to car owners.
func carForm() url.Values {
	return url.Values{"title": {"Getting to work"}, "n": {"4"}, "ns": {"3"},
		"s.0.id": {"s1"}, "s.0.title": {"You"}, "s.1.id": {"s2"}, "s.1.title": {"Commute"}, "s.2.id": {"s3"}, "s.2.title": {"Car"},
		"q.0.id": {"car"}, "q.0.text": {"Do you own a car?"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Yes\nNo"}, "q.0.section": {"0"},
		"q.1.id": {"age"}, "q.1.text": {"Your age"}, "q.1.type": {"Number"}, "q.1.section": {"0"}, "q.1.optional": {"1"},
		"q.2.id": {"commute"}, "q.2.text": {"How do you get to work?"}, "q.2.type": {"SimpleText"}, "q.2.section": {"1"},
		"q.3.id": {"fuel"}, "q.3.text": {"Which fuel?"}, "q.3.type": {"SimpleText"}, "q.3.section": {"2"},
		"q.3.if.match": {"all"}, "q.3.if.n": {"1"}, "q.3.if.0.question": {"car"}, "q.3.if.0.op": {"equals"}, "q.3.if.0.values": {"Yes"},
		"s.0.nj": {"1"}, "s.0.j.0.to": {"s3"}, "s.0.j.0.if.n": {"1"}, "s.0.j.0.if.0.question": {"car"}, "s.0.j.0.if.0.op": {"equals"}, "s.0.j.0.if.0.values": {"No"},
		"action": {"save"}}
}

// with is form with the fields of kv (name, value …) set; a value "-"
// deletes the field.
func with(form url.Values, kv ...string) url.Values {
	v := maps.Clone(form)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "-" {
			v.Del(kv[i])
			continue
		}
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// TestDesignerLogic: the designer saves conditions and jumps as typed
// (read back from the store and shown again), and refuses bad logic with
// a 422 whose message is beside the rule's control, saving nothing.
func TestDesignerLogic(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	count := func() int {
		list, err := app.surveys.List(ctx, "adatum")
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}

	saved := []struct {
		name  string
		form  url.Values
		check func(t *testing.T, sv *survey.Survey)
		shown []string // in the designer of the saved survey
	}{
		{"a jump and a condition", carForm(), func(t *testing.T, sv *survey.Survey) {
			car := sv.Questions[0].ID
			want := &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: car, Op: "equals", Values: []string{"Yes"}}}}
			if car == "car" || !equalCondition(sv.Questions[3].ShowIf, want) || sv.Questions[1].ShowIf != nil {
				t.Errorf("conditions %+v", sv.Questions)
			}
			if j := sv.Sections[0].Jumps; len(j) != 1 || j[0].To != "s3" || !equalCondition(&j[0].If, &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: car, Op: "equals", Values: []string{"No"}}}}) {
				t.Errorf("jumps %+v", sv.Sections)
			}
		}, []string{`name="q.3.if.n" value="1"`, `name="q.3.if.0.values" value="Yes" checked`, `name="q.3.if.0.values" value="No">`,
			`name="s.0.j.0.if.0.values" value="No" checked`, `<option value="s3" selected>Section 3: Car</option>`, `<option value="end">End of the survey</option>`,
			`aria-label="Condition 1: the question it looks at"`, `aria-label="Jump 1, condition 1: how to compare"`, `<span class="dl-badge">1 condition</span>`}},
		{"any, numbers, is one of typed", with(carForm(), "q.3.if.match", "any", "q.3.if.n", "3",
			"q.3.if.1.question", "age", "q.3.if.1.op", "greater_than", "q.3.if.1.value", " 17 ",
			"q.3.if.2.question", "commute", "q.3.if.2.op", "one_of", "q.3.if.2.value", "Car, Van,, Truck",
			"s.2.if.n", "1", "s.2.if.0.question", "age", "s.2.if.0.op", "answered", "s.2.if.0.value", "left over"),
			func(t *testing.T, sv *survey.Survey) {
				want := &survey.Condition{Match: "any", Rules: []survey.Rule{{Question: sv.Questions[0].ID, Op: "equals", Values: []string{"Yes"}},
					{Question: sv.Questions[1].ID, Op: "greater_than", Values: []string{"17"}}, {Question: sv.Questions[2].ID, Op: "one_of", Values: []string{"Car", "Van", "Truck"}}}}
				if !equalCondition(sv.Questions[3].ShowIf, want) {
					t.Errorf("condition %+v", sv.Questions[3].ShowIf)
				}
				if !equalCondition(sv.Sections[2].ShowIf, &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: sv.Questions[1].ID, Op: "answered"}}}) {
					t.Errorf("section's condition %+v", sv.Sections[2].ShowIf)
				}
			}, []string{`<option value="any" selected>any</option>`, `name="q.3.if.1.value" value="17"`, `name="q.3.if.2.value" value="Car, Van, Truck"`,
				`<option value="greater_than" selected>is more than</option>`, `<option value="answered" selected>is answered</option>`, `<span class="dl-badge">3 conditions</span>`}},
		{"no logic", with(carForm(), "q.3.if.n", "0", "s.0.nj", "0"), func(t *testing.T, sv *survey.Survey) {
			if sv.Questions[3].ShowIf != nil || len(sv.Sections[0].Jumps) != 0 {
				t.Errorf("logic %+v %+v", sv.Questions[3], sv.Sections[0])
			}
		}, []string{`name="q.3.if.n" value="0"`, `name="s.0.nj" value="0"`}},
	}
	for _, tc := range saved {
		t.Run(tc.name, func(t *testing.T) {
			before := count()
			code, h, body := app.do(t, "POST", "/adatum/surveys/new", tc.form, cookie)
			if code != http.StatusSeeOther {
				t.Fatalf("save = %d\n%s", code, problems(body))
			}
			slug := strings.TrimSuffix(strings.TrimPrefix(h.Get("Location"), "/adatum/surveys/"), "/edit")
			sv, err := app.surveys.Get(ctx, "adatum", slug)
			if err != nil || count() != before+1 {
				t.Fatalf("get %q: %v", slug, err)
			}
			tc.check(t, sv)
			_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, cookie)
			mustContain(t, "shown", body, tc.shown...)
			// Saved again as shown: the same logic.
			again := designerFormOf(t, body)
			again.Set("action", "save")
			if code, _, body := app.do(t, "POST", "/adatum/surveys/"+slug+"/edit", again, cookie); code != http.StatusSeeOther {
				t.Fatalf("save again = %d\n%s", code, problems(body))
			}
			sv2, _ := app.surveys.Get(ctx, "adatum", slug)
			tc.check(t, sv2)
		})
	}

	refused := []struct {
		name string
		form url.Values
		// id is the control the message is beside (its -err paragraph).
		id, message string
	}{
		{"a condition on a later question", with(carForm(), "q.2.if.n", "1", "q.2.if.0.question", "fuel", "q.2.if.0.op", "answered"),
			"q2-if-0-question", "A rule can only look at a question asked before."},
		{"a condition on itself", with(carForm(), "q.2.if.n", "1", "q.2.if.0.question", "commute", "q.2.if.0.op", "answered"),
			"q2-if-0-question", "A rule can only look at a question asked before."},
		{"a jump backwards", with(carForm(), "s.2.nj", "1", "s.2.j.0.to", "s1", "s.2.j.0.if.n", "1", "s.2.j.0.if.0.question", "fuel", "s.2.j.0.if.0.op", "answered"),
			"s2-j0-to", "Jumps go forward only"},
		{"a jump in a circle", with(carForm(), "s.1.nj", "1", "s.1.j.0.to", "s2", "s.1.j.0.if.n", "1", "s.1.j.0.if.0.question", "car", "s.1.j.0.if.0.op", "answered"),
			"s1-j0-to", "A section cannot go to itself"},
		{"a jump to a removed section", with(carForm(), "s.0.j.0.to", "s9"), "s0-j0-to", "This survey has no such section"},
		{"a jump's condition on a later section's question", with(carForm(), "s.0.j.0.if.0.question", "commute"),
			"s0-j0-if-0-question", "A rule can only look at a question asked before."},
		{"a rule on a question removed in the same save", with(carForm(), "q.0.remove", "1"),
			"q2-if-0-question", "This survey no longer has that question"},
		{"a rule on a question moved after it", with(carForm(), "q.0.section", "2", "q.0.pos", "4"),
			"q2-if-0-question", "A rule can only look at a question asked before."},
		{"a section's condition on its own question", with(carForm(), "s.1.if.n", "1", "s.1.if.0.question", "commute", "s.1.if.0.op", "answered"),
			"s1-if-0-question", "A rule can only look at a question asked before."},
		{"more than on text", with(carForm(), "q.3.if.0.question", "commute", "q.3.if.0.op", "greater_than", "q.3.if.0.values", "-", "q.3.if.0.value", "3"),
			"q3-if-0-op", "Greater than and less than compare numbers"},
		{"more than a word", with(carForm(), "q.3.if.0.question", "age", "q.3.if.0.op", "greater_than", "q.3.if.0.values", "-", "q.3.if.0.value", "old"),
			"q3-if-0-values", "Give a number."},
		{"is without an answer", with(carForm(), "q.3.if.0.values", "-"), "q3-if-0-values", "Give one answer to compare with."},
		{"is with two answers", func() url.Values { v := carForm(); v.Add("q.3.if.0.values", "No"); return v }(), "q3-if-0-values", "Give one answer to compare with."},
		{"no question chosen", with(carForm(), "q.3.if.0.question", ""), "q3-if-0-question", "Choose the question the rule looks at."},
		{"an unknown comparison", with(carForm(), "q.3.if.0.op", "contains"), "q3-if-0-op", "Choose how to compare"},
		{"a jump without conditions", with(carForm(), "s.0.j.0.if.n", "0"), "s0-j0-if", "Add a rule, or remove the condition."},
		{"a condition on the first section", with(carForm(), "s.0.if.n", "1", "s.0.if.0.question", "car", "s.0.if.0.op", "answered"),
			"s0-if", "The first section is always shown."},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			before := count()
			code, _, body := app.do(t, "POST", "/adatum/surveys/new", tc.form, cookie)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("= %d, want 422\n%s", code, problems(body))
			}
			if n := count(); n != before {
				t.Errorf("%d surveys after a refused save, want %d", n, before)
			}
			// The message is in the paragraph beside the control, which
			// is marked invalid and described by it; the summary links
			// to it.
			at := strings.Index(body, `id="`+tc.id+`-err"`)
			if at < 0 {
				t.Fatalf("no %s-err in the page; problems: %s", tc.id, problems(body))
			}
			if p := body[at:min(at+400, len(body))]; !strings.Contains(p, tc.message) {
				t.Errorf("beside %s: %q, want %q", tc.id, p, tc.message)
			}
			if !strings.Contains(body, `aria-describedby="`+tc.id+`-err"`) {
				t.Errorf("no control described by %s-err", tc.id)
			}
		})
	}
}

// TestDesignerLogicButtons: "Add a condition" adds a rule on the question
// just before, "Remove" removes it, "Add a jump" adds one to the next
// section, and choosing another question shows its choices, all without
// JavaScript and without saving.
func TestDesignerLogicButtons(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	list, _ := app.surveys.List(ctx, "adatum")
	for _, tc := range []struct {
		name, action string
		form         url.Values
		want, lack   []string
	}{
		{"add a condition", "addrule.q.2.if", carForm(), []string{`name="q.2.if.n" value="1"`, `<option value="age" selected>Question 2: Your age</option>`,
			`id="q2-if-0-question"`, `autofocus`}, nil},
		{"add a second", "addrule.q.3.if", carForm(), []string{`name="q.3.if.n" value="2"`, `name="q.3.if.1.value" value=""`}, nil},
		{"remove one", "rmrule.q.3.if.0", carForm(), []string{`name="q.3.if.n" value="0"`}, []string{`id="q3-if-0-question"`}},
		{"add a jump", "addjump.1", carForm(), []string{`name="s.1.nj" value="1"`, `<option value="s3" selected>Section 3: Car</option>`,
			`<option value="commute" selected>Question 3: How do you get to work?</option>`}, nil},
		{"remove a jump", "rmjump.0.0", carForm(), []string{`name="s.0.nj" value="0"`}, []string{`id="s0-j0-to"`}},
		{"another question's choices", "apply.q.3.if.0", with(carForm(), "q.3.if.0.question", "commute", "q.3.if.0.values", "-", "q.3.if.0.value", "Bus"),
			[]string{`name="q.3.if.0.value" value="Bus"`}, []string{`name="q.3.if.0.values"`}},
		{"a new question's temporary ID", "addrule.q.1.if", with(carForm(), "q.0.id", "-"),
			[]string{`name="q.0.id" value="new-1"`, `<option value="new-1" selected>Question 1: Do you own a car?</option>`}, nil},
		{"a rule on a removed question kept", "remove.0", carForm(), []string{`<option value="car" selected>A question that was removed</option>`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.do(t, "POST", "/adatum/surveys/new", with(tc.form, "action", tc.action), cookie)
			if code != 200 {
				t.Fatalf("= %d\n%s", code, problems(body))
			}
			mustContain(t, tc.name, body, tc.want...)
			mustLack(t, tc.name, body, tc.lack...)
		})
	}
	if now, _ := app.surveys.List(ctx, "adatum"); len(now) != len(list) {
		t.Errorf("the buttons saved a survey")
	}
}

// TestDesignerLogicPublished: an edit of a published survey adds a
// question and a condition on it in one save; the question gets its ID
// and the rule names it.
func TestDesignerLogicPublished(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", with(carForm(), "action", "publish"), cookie)
	if code != http.StatusSeeOther {
		t.Fatalf("publish = %d\n%s", code, problems(body))
	}
	slug := strings.Split(strings.TrimPrefix(h.Get("Location"), "/adatum/surveys/"), "/")[0]
	_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, cookie)
	v := designerFormOf(t, body)
	v.Set("n", "5")
	v.Set("q.4.text", "Electric?")
	v.Set("q.4.type", "MultipleChoice")
	v.Set("q.4.choices", "Yes\nNo")
	v.Set("q.4.section", "1")
	v.Set("q.4.id", "new-1")
	v.Set("q.3.if.n", "2")
	v.Set("q.3.if.1.question", "new-1")
	v.Set("q.3.if.1.op", "not_equals")
	v.Set("q.3.if.1.values", "Yes")
	v.Set("action", "save")
	if code, _, body := app.do(t, "POST", "/adatum/surveys/"+slug+"/edit", v, cookie); code != http.StatusSeeOther {
		t.Fatalf("edit = %d\n%s", code, problems(body))
	}
	sv, _ := app.surveys.Get(ctx, "adatum", slug)
	var electric string
	for _, q := range sv.Questions {
		if q.Text == "Electric?" {
			electric = q.ID
		}
	}
	fuel, _ := sv.Question(sv.Questions[len(sv.Questions)-1].ID)
	if electric == "" || strings.HasPrefix(electric, "new-") || fuel.ShowIf == nil || len(fuel.ShowIf.Rules) != 2 || fuel.ShowIf.Rules[1].Question != electric {
		t.Errorf("after the edit %+v", sv.Questions)
	}
}

func equalCondition(a, b *survey.Condition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Match == b.Match && slices.EqualFunc(a.Rules, b.Rules, func(x, y survey.Rule) bool {
		return x.Question == y.Question && x.Op == y.Op && slices.Equal(x.Values, y.Values)
	})
}

// problems is the designer's summary of problems in body, for failures.
func problems(body string) string {
	at := strings.Index(body, `id="designer-errors"`)
	if at < 0 {
		return "(no problems shown)"
	}
	end := strings.Index(body[at:], "</div>")
	return body[at : at+max(end, 0)]
}

var (
	formTag   = regexp.MustCompile(`(?s)<(input|select|textarea)\b([^>]*)>`)
	attrRe    = regexp.MustCompile(`([a-zA-Z-]+)(?:="([^"]*)")?`)
	optionTag = regexp.MustCompile(`<option\b([^>]*)>`)
)

// designerFormOf is what a browser posts of the designer's form in body
// (without its buttons): its inputs, checked boxes, selects' chosen
// options and textareas.
func designerFormOf(t testing.TB, body string) url.Values {
	t.Helper()
	start := strings.Index(body, `id="designer"`)
	end := strings.Index(body[max(start, 0):], "</form>")
	if start < 0 || end < 0 {
		t.Fatal("no designer form in the page")
	}
	form := body[start : start+end]
	attrs := func(s string) map[string]string {
		out := map[string]string{}
		for _, m := range attrRe.FindAllStringSubmatch(s, -1) {
			out[m[1]] = html.UnescapeString(m[2])
		}
		return out
	}
	v := url.Values{}
	for _, m := range formTag.FindAllStringSubmatchIndex(form, -1) {
		tag, a := form[m[2]:m[3]], attrs(form[m[4]:m[5]])
		name := a["name"]
		if name == "" {
			continue
		}
		switch tag {
		case "input":
			if (a["type"] == "checkbox" || a["type"] == "radio") && !strings.Contains(form[m[4]:m[5]], " checked") {
				continue
			}
			v.Add(name, a["value"])
		case "textarea":
			rest := form[m[1]:]
			v.Add(name, html.UnescapeString(strings.TrimPrefix(rest[:strings.Index(rest, "</textarea>")], "\n")))
		case "select":
			rest := form[m[1]:]
			rest = rest[:strings.Index(rest, "</select>")]
			opts := optionTag.FindAllStringSubmatch(rest, -1)
			chosen := ""
			for i, o := range opts {
				oa := attrs(o[1])
				if i == 0 || strings.Contains(o[1], " selected") {
					chosen = oa["value"]
				}
			}
			v.Add(name, chosen)
		}
	}
	return v
}
