package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/xuri/excelize/v2"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// kindStep is one question of TestBrowserEveryKind: its text, its kind,
// the settings typed into the designer after "Change kind", and how a
// respondent answers it in the browser (within its fieldset, fs).
type kindStep struct {
	text     string
	kind     survey.QuestionType
	settings func(i string) []chromedp.Action
	answer   func(fs string) []chromedp.Action
}

// byXPath is an action on the element an XPath expression finds.
var byXPath = chromedp.BySearch

// TestBrowserEveryKind is the end-to-end test of issue 12: a new
// subscriber signs up in Chromium, builds a survey with a question of every
// kind in the designer (each kind's own settings), publishes it; a
// respondent on a phone first sends it empty (422: focus on the list of
// problems), then answers every question with the mouse and keyboard; the
// subscriber sees each kind's chart on the analysis page and exports the
// answer as CSV and JSON. axe-core checks the designer, the survey, the
// refused survey, the thank-you page and the analysis page.
func TestBrowserEveryKind(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx, axeCheck := newBrowser(t), newAxeCheck(t)
	run := browserRun(t, ctx)
	shot := func(name string) chromedp.Action { return screenshot(t, name) }
	base := "http://" + m.Addr()

	// 1. A new subscriber signs up.
	run("sign up",
		chromedp.EmulateViewport(1200, 900),
		chromedp.Navigate(base+"/onboarding"),
		chromedp.WaitVisible(`#name`),
		chromedp.SendKeys(`#name`, "Northwind Traders"),
		chromedp.SendKeys(`#email`, "nancy@northwind.example"),
		chromedp.SendKeys(`#password`, "a long enough password"),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`main h1`))
	// A trial asks at most 10 questions: the operator gives the tenant a
	// plan, as `surveys tenant plan` does.
	tenants := store.NewTenantStore(m.Storage)
	tn, err := tenants.Get(context.Background(), "northwindtraders")
	if err != nil {
		t.Fatalf("the new tenant: %v", err)
	}
	tn.Plan = survey.Standard
	if err := tenants.Update(context.Background(), tn); err != nil {
		t.Fatal(err)
	}

	// The respondent's file.
	ticket := filepath.Join(t.TempDir(), "ticket.pdf")
	if err := os.WriteFile(ticket, []byte("%PDF-1.4\n% a ticket\n"+strings.Repeat("x", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The designer's pictures: two small PNGs.
	pictures := make([]string, 2)
	for n, c := range []color.RGBA{{R: 40, G: 140, B: 60, A: 255}, {R: 200, G: 180, B: 120, A: 255}} {
		img := image.NewRGBA(image.Rect(0, 0, 80, 60))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = c.R, c.G, c.B, c.A
		}
		f, err := os.Create(filepath.Join(t.TempDir(), "room"+strconv.Itoa(n)+".png"))
		if err == nil {
			err = png.Encode(f, img)
			_ = f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		pictures[n] = f.Name()
	}
	set := func(i, field, value string) chromedp.Action {
		return chromedp.SetValue(`#q`+i+`-`+field, value, chromedp.ByQuery)
	}
	keys := func(i, field, value string) chromedp.Action {
		return chromedp.SendKeys(`#q`+i+`-`+field, value, chromedp.ByQuery)
	}
	click := func(i, field string) chromedp.Action { return chromedp.Click(`#q`+i+`-`+field, chromedp.ByQuery) }
	label := func(fs, text string) chromedp.Action {
		return chromedp.Click(fs+`//label[normalize-space(.)="`+text+`"]`, byXPath)
	}
	steps := []kindStep{
		{"What did you enjoy most?", survey.SimpleText,
			func(i string) []chromedp.Action { return []chromedp.Action{keys(i, "help", "A sentence or two.")} },
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.SendKeys(fs+`//textarea`, "The lovely garden terrace", byXPath)}
			}},
		{"Your e-mail address", survey.ShortText,
			func(i string) []chromedp.Action {
				return []chromedp.Action{set(i, "format", "email"), click(i, "optional")}
			},
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.SendKeys(fs+`//input[@type="email"]`, "guest@example.com", byXPath)}
			}},
		{"Favourite drink", survey.MultipleChoice,
			func(i string) []chromedp.Action {
				return []chromedp.Action{keys(i, "choices", "Coffee\nTea\nJuice"), click(i, "other")}
			},
			func(fs string) []chromedp.Action { return []chromedp.Action{label(fs, "Tea")} }},
		{"Which snacks did you try?", survey.Checkboxes,
			func(i string) []chromedp.Action { return []chromedp.Action{keys(i, "choices", "Crisps\nFruit\nNuts")} },
			func(fs string) []chromedp.Action { return []chromedp.Action{label(fs, "Fruit"), label(fs, "Nuts")} }},
		{"Your city", survey.Dropdown,
			func(i string) []chromedp.Action { return []chromedp.Action{keys(i, "choices", "Lisbon\nOslo\nRome")} },
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.SetValue(fs+`//select`, "Oslo", byXPath)}
			}},
		{"Rate the venue", survey.FiveStars, nil,
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.Click(fs+`//label[@title="4 stars"]`, byXPath)}
			}},
		{"How busy was it?", survey.LinearScale,
			func(i string) []chromedp.Action {
				return []chromedp.Action{set(i, "scale", "7"), keys(i, "low", "Quiet"), keys(i, "high", "Packed")}
			},
			func(fs string) []chromedp.Action { return []chromedp.Action{label(fs, "6")} }},
		{"Would you recommend us to a friend?", survey.NetPromoterScore, nil,
			func(fs string) []chromedp.Action { return []chromedp.Action{label(fs, "9")} }},
		{"How many people came with you?", survey.Number,
			func(i string) []chromedp.Action {
				return []chromedp.Action{click(i, "integer"), keys(i, "min", "0"), keys(i, "max", "20")}
			},
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.SendKeys(fs+`//input[@type="text"]`, "3", byXPath)}
			}},
		{"When did you visit?", survey.Date,
			func(i string) []chromedp.Action { return []chromedp.Action{set(i, "min", "2026-01-01")} },
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.SetValue(fs+`//input[@type="date"]`, "2026-03-14", byXPath)}
			}},
		{"Rate each part of the visit", survey.Matrix,
			func(i string) []chromedp.Action {
				return []chromedp.Action{keys(i, "rows", "Food\nService"), keys(i, "choices", "Poor\nGood\nGreat")}
			},
			func(fs string) []chromedp.Action {
				return []chromedp.Action{
					chromedp.Click(fs+`//tr[th[.="Food"]]//label[.//input[@value="Great"]]`, byXPath),
					chromedp.Click(fs+`//tr[th[.="Service"]]//label[.//input[@value="Good"]]`, byXPath),
				}
			}},
		{"Rank these by importance", survey.Ranking,
			func(i string) []chromedp.Action { return []chromedp.Action{keys(i, "choices", "Price\nTaste\nSpeed")} },
			func(fs string) []chromedp.Action {
				item := func(name, pos string) chromedp.Action {
					return chromedp.SetValue(fs+`//div[@class="ranking-item"][.//label[contains(., "`+name+`")]]//select`, pos, byXPath)
				}
				return []chromedp.Action{item("Taste", "1"), item("Price", "2"), item("Speed", "3")}
			}},
		{"A photo of your ticket", survey.FileUpload,
			func(i string) []chromedp.Action { return []chromedp.Action{keys(i, "choices", "PDF\nImages")} },
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.SetUploadFiles(fs+`//input[@type="file"]`, []string{ticket}, byXPath)}
			}},
		{"Did you find parking?", survey.YesNo, nil,
			func(fs string) []chromedp.Action { return []chromedp.Action{label(fs, "Yes")} }},
		{"Your consent", survey.Consent,
			func(i string) []chromedp.Action {
				return []chromedp.Action{keys(i, "statement", "Northwind may keep my answers for a year.")}
			},
			func(fs string) []chromedp.Action {
				return []chromedp.Action{label(fs, "Northwind may keep my answers for a year.")}
			}},
		{"How far did you travel, in miles?", survey.Slider,
			func(i string) []chromedp.Action {
				return []chromedp.Action{keys(i, "min", "0"), keys(i, "max", "10"), keys(i, "step", "2"), keys(i, "low", "Next door"), keys(i, "high", "Far")}
			},
			// By keyboard: the range starts at 4, one step right is 6,
			// which ticks its box (slider.js).
			func(fs string) []chromedp.Action {
				return []chromedp.Action{chromedp.Focus(fs+`//input[@type="range"]`, byXPath), chromedp.KeyEvent(kb.ArrowRight)}
			}},
		{"How can we reach you?", survey.Contact,
			func(i string) []chromedp.Action { return []chromedp.Action{set(i, "part-phone", "optional")} },
			func(fs string) []chromedp.Action {
				return []chromedp.Action{
					chromedp.SendKeys(fs+`//input[@autocomplete="name"]`, "Guest Visitor", byXPath),
					chromedp.SendKeys(fs+`//input[@autocomplete="email"]`, "guest@example.com", byXPath),
					chromedp.SendKeys(fs+`//input[@type="tel"]`, "+44 20 7946 0000", byXPath),
				}
			}},
		// Last: its files go with the form when it is published (the
		// designer's script sends a form with a file chosen by a page load).
		{"Which room did you like best?", survey.PictureChoice,
			func(i string) []chromedp.Action {
				return []chromedp.Action{
					keys(i, "pictures-0-label", "Garden room"), keys(i, "pictures-0-alt", "A green room opening on the garden"),
					chromedp.SetUploadFiles(`#q`+i+`-pictures-0-image`, []string{pictures[0]}, chromedp.ByQuery),
					keys(i, "pictures-1-label", "Hall"), keys(i, "pictures-1-alt", "A sand-coloured hall with long tables"),
					chromedp.SetUploadFiles(`#q`+i+`-pictures-1-image`, []string{pictures[1]}, chromedp.ByQuery),
				}
			},
			func(fs string) []chromedp.Action { return []chromedp.Action{label(fs, "Hall")} }},
	}
	if len(steps) != len(survey.Kinds()) {
		t.Fatalf("the test covers %d kinds, %d are registered", len(steps), len(survey.Kinds()))
	}

	// 2. The designer: a question of every kind, each with its settings.
	run("new survey",
		chromedp.Navigate(base+"/northwindtraders/surveys/new"),
		chromedp.WaitVisible(`#title`),
		chromedp.SendKeys(`#title`, "Northwind visit"),
		chromedp.SendKeys(`#description`, "Two minutes about your visit."))
	for n, st := range steps {
		i := strconv.Itoa(n)
		if n > 0 {
			run("add question "+i, clickAndLoad(`button[value=add]`, chromedp.ByQuery), chromedp.WaitVisible(`#q`+i+`-text`))
		}
		run("question "+i,
			keys(i, "text", st.text),
			chooseKind(i, string(st.kind)),
			chromedp.WaitVisible(`#q`+i+`-text`))
		if st.settings != nil {
			run("settings of question "+i, st.settings(i)...)
		}
	}
	run("designer", shot("every-kind-designer"), axeCheck("designer (every kind)"))
	// Publishing lands on the share page.
	run("publish", clickAndLoad(`button[value=publish]`, chromedp.ByQuery), chromedp.WaitVisible(`img.qr`))
	sv, err := store.NewSurveyStore(m.Storage).Get(context.Background(), "northwindtraders", "northwind-visit")
	if err != nil {
		t.Fatalf("the published survey: %v", err)
	}
	if sv.State != survey.Published || len(sv.Questions) != len(steps) {
		t.Fatalf("published %s with %d questions", sv.State, len(sv.Questions))
	}
	for n, st := range steps {
		if q := sv.Questions[n]; q.Type != st.kind || q.Text != st.text {
			t.Errorf("question %d is %s %q, want %s %q", n+1, q.Type, q.Text, st.kind, st.text)
		}
	}
	if q := sv.Questions[9]; q.Min != "2026-01-01" {
		t.Errorf("the date's earliest is %q", q.Min)
	}
	if q := sv.Questions[10]; strings.Join(q.Rows, ",") != "Food,Service" || strings.Join(q.PossibleAnswers, ",") != "Poor,Good,Great" {
		t.Errorf("the matrix is %v × %v", q.Rows, q.PossibleAnswers)
	}
	if q := sv.Questions[len(steps)-1]; len(q.Pictures) != 2 || q.Pictures[1].Label != "Hall" || !strings.HasPrefix(q.Pictures[1].Image, "northwindtraders-") {
		t.Errorf("the pictures are %+v", q.Pictures)
	}

	// 3. A respondent on a phone: the empty form is refused, then answered.
	page := base + "/survey/northwindtraders/northwind-visit"
	noRequired := chromedp.Evaluate(`document.querySelectorAll('[required]').forEach(e => e.removeAttribute('required'))`, nil)
	var focused string
	run("the survey on a phone",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(page),
		chromedp.WaitVisible(`form`),
		shot("every-kind-survey-phone"),
		noSidewaysScroll(t, "survey of every kind"),
		axeCheck("survey of every kind (390 px)"),
		noRequired,
		clickAndLoad(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#form-errors`),
		chromedp.Evaluate(`document.activeElement.id`, &focused),
		shot("every-kind-refused-phone"),
		noSidewaysScroll(t, "refused survey of every kind"),
		axeCheck("refused survey of every kind (390 px)"))
	if focused != "form-errors" {
		t.Errorf("after a refused submit the focus is on %q, want the list of problems", focused)
	}
	for _, st := range steps {
		fs := `//fieldset[contains(@class, "question")][.//legend[contains(., "` + st.text + `")]]`
		run("answer "+st.text, st.answer(fs)...)
	}
	run("submit", clickAndLoad(`button[type=submit]`, chromedp.ByQuery), chromedp.WaitVisible(`.thanks`),
		shot("every-kind-thankyou-phone"), axeCheck("thank-you (every kind)"))

	// 4. The analysis page shows each kind's chart.
	var total, analysis string
	for deadline := time.Now().Add(2 * time.Minute); total != "1" && time.Now().Before(deadline); {
		run("analysis", chromedp.Navigate(base+"/northwindtraders/surveys/northwind-visit/analyze"), bigNumber(&total))
		time.Sleep(200 * time.Millisecond)
	}
	if total != "1" {
		t.Fatalf("the analysis page counts %q answers, want 1", total)
	}
	run("analysis page", chromedp.Text(`main`, &analysis, chromedp.ByQuery), shot("every-kind-analysis-phone"),
		noSidewaysScroll(t, "analysis of every kind"), axeCheck("analysis of every kind (390 px)"))
	for _, want := range []string{"terrace", "Tea", "Fruit", "Oslo", "4.00", "NPS", "+100", "HISTOGRAM", "Answers per month", "Mar 2026", "Food", "Service", "average position 1.00", "Taste", "ACCEPTED", "MEDIAN", "Phone number"} {
		if !strings.Contains(analysis, want) {
			t.Errorf("the analysis page lacks %q", want)
		}
	}

	// The answer page shows each kind as people read it: lists, a grid's
	// table, the ranking in order, a date in words, the file's link.
	var shown struct {
		Items, Ranked, Pictures []string
		Grid                    int
		Date, File              string
	}
	run("the answer page",
		chromedp.Navigate(base+"/northwindtraders/surveys/northwind-visit/answers"),
		chromedp.WaitVisible(`dl.answer`, chromedp.ByQuery),
		chromedp.Evaluate(`({
			items: [...document.querySelectorAll("dl.answer ul.ans-list li")].map(e => e.textContent.trim()),
			ranked: [...document.querySelectorAll("dl.answer ol.ans-ranked li")].map(e => e.textContent.trim()),
			grid: document.querySelectorAll("dl.answer table.ans-grid tr").length,
			date: document.querySelector("dl.answer time")?.textContent ?? "",
			file: document.querySelector("dl.answer a[download]")?.textContent ?? "",
			pictures: [...document.querySelectorAll("dl.answer ul.ans-pictures li")].map(e => e.textContent.trim()),
		})`, &shown),
		shot("every-kind-answer-phone"),
		noSidewaysScroll(t, "answer of every kind"),
		axeCheck("answer of every kind (390 px)"))
	if !slices.Contains(shown.Items, "Fruit") || !slices.Contains(shown.Items, "Nuts") || strings.Join(shown.Ranked, ",") != "Taste,Price,Speed" ||
		shown.Grid != 2 || shown.Date != "14 March 2026" || shown.File != "ticket.pdf" || strings.Join(shown.Pictures, ",") != "Hall" {
		t.Errorf("the answer page shows %+v", shown)
	}
	// The table on a phone: a card per answer, each answer named by its
	// question; the columns picked.
	var card struct {
		Display, Label, Head string
		Cells                int
	}
	run("the answers table",
		chromedp.Navigate(base+"/northwindtraders/surveys/northwind-visit/answers/table"),
		chromedp.WaitVisible(`.answers-table td.received a`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			const td = document.querySelector(".answers-table td[data-label]");
			return {display: getComputedStyle(document.querySelector(".answers-table tr")).display,
				label: getComputedStyle(td, "::before").content,
				head: getComputedStyle(document.querySelector(".answers-table thead")).position,
				cells: document.querySelectorAll(".answers-table tbody td[data-label]").length};
		})()`, &card),
		shot("every-kind-table-phone"),
		noSidewaysScroll(t, "answers table"),
		axeCheck("answers table (390 px)"),
		chromedp.Click(`.column-picker summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`.column-picker fieldset`, chromedp.ByQuery),
		axeCheck("answers table's column picker (390 px)"))
	if card.Display != "block" || card.Head != "absolute" || card.Label != `"What did you enjoy most?"` || card.Cells < len(sv.Questions)-1 {
		t.Errorf("the table on a phone: %+v", card)
	}

	// 5. The exports, with the browser's session.
	fetch := withSession(t, run, base)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(fetch("/northwindtraders/surveys/northwind-visit/export.csv"), "\uFEFF"))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("CSV: %d rows, %v", len(rows), err)
	}
	cell := map[string]string{}
	for i, h := range rows[0] {
		cell[h] = rows[1][i]
	}
	for col, want := range map[string]string{
		"What did you enjoy most?":              "The lovely garden terrace",
		"Your e-mail address":                   "guest@example.com",
		"Favourite drink":                       "Tea",
		"Which snacks did you try? [Fruit]":     "Fruit",
		"Which snacks did you try? [Crisps]":    "",
		"Your city":                             "Oslo",
		"Rate the venue":                        "4",
		"How busy was it?":                      "6",
		"Would you recommend us to a friend?":   "9",
		"How many people came with you?":        "3",
		"When did you visit?":                   "2026-03-14",
		"Rate each part of the visit [Food]":    "Great",
		"Rate each part of the visit [Service]": "Good",
		"Rank these by importance [Taste]":      "1",
		"Rank these by importance [Speed]":      "3",
		"A photo of your ticket":                "ticket.pdf",
		"Did you find parking?":                 "Yes",
		"Your consent":                          "accepted",
		"How far did you travel, in miles?":     "6",
		"How can we reach you? [Name]":          "Guest Visitor",
		"How can we reach you? [Phone number]":  "'+44 20 7946 0000", // a spreadsheet would take "+…" for a formula
		"Which room did you like best?":         "Hall",
	} {
		if got, ok := cell[col]; !ok || got != want {
			t.Errorf("CSV column %q = %q (present %v), want %q", col, got, ok, want)
		}
	}
	var line struct {
		Answers []struct {
			QuestionText string `json:"questionText"`
			Value        any    `json:"value"`
		} `json:"answers"`
	}
	if err := json.Unmarshal([]byte(fetch("/northwindtraders/surveys/northwind-visit/export.json")), &line); err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, a := range line.Answers {
		b, _ := json.Marshal(a.Value)
		values[a.QuestionText] = string(b)
	}
	for q, want := range map[string]string{
		"How many people came with you?":      `3`,
		"Would you recommend us to a friend?": `9`,
		"Which snacks did you try?":           `{"choices":["Fruit","Nuts"]}`,
		"Rank these by importance":            `["Taste","Price","Speed"]`,
		"Rate each part of the visit":         `{"Food":"Great","Service":"Good"}`,
		"When did you visit?":                 `"2026-03-14"`,
		"A photo of your ticket":              `[{"name":"ticket.pdf","size":5020,"type":"application/pdf"}]`,
	} {
		if values[q] != want {
			t.Errorf("JSON value of %q = %s, want %s", q, values[q], want)
		}
	}
	// The file itself, from the answer page's link.
	if got := fetch("/northwindtraders/surveys/northwind-visit/answers/" + cell["answer_id"] + "/files/" + sv.Questions[12].ID + "/0"); !strings.HasPrefix(got, "%PDF-1.4\n% a ticket") || len(got) != 5020 {
		t.Errorf("the file downloaded: %d bytes", len(got))
	}
	// The XLSX export: the CSV's columns, in cells typed by each kind.
	wb, err := excelize.OpenReader(strings.NewReader(fetch("/northwindtraders/surveys/northwind-visit/export.xlsx")))
	if err != nil {
		t.Fatalf("XLSX: excelize cannot open it: %v", err)
	}
	defer wb.Close()
	sheet, err := wb.GetRows("Answers")
	if err != nil || len(sheet) != 2 || strings.Join(sheet[0], "|") != strings.Join(rows[0], "|") {
		t.Fatalf("XLSX: %v, %d rows, header %q, want the CSV's %q", err, len(sheet), sheet, rows[0])
	}
	kindOf := func(ref string) string {
		typ, _ := wb.GetCellType("Answers", ref)
		raw, _ := wb.GetCellValue("Answers", ref, excelize.Options{RawCellValue: true})
		switch {
		case raw == "":
			return "empty"
		case typ == excelize.CellTypeInlineString:
			return "text"
		case typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber:
			return fmt.Sprint("type ", typ)
		}
		if id, _ := wb.GetCellStyle("Answers", ref); id != 0 {
			if st, _ := wb.GetStyle(id); st != nil && st.CustomNumFmt != nil && strings.HasPrefix(*st.CustomNumFmt, "yyyy-mm-dd") {
				return "date"
			}
		}
		return "number"
	}
	for col, want := range map[string]string{
		"created_on":                          "date",
		"What did you enjoy most?":            "text",
		"Favourite drink":                     "text",
		"Which snacks did you try? [Fruit]":   "text",
		"Which snacks did you try? [Crisps]":  "empty",
		"Rate the venue":                      "number",
		"How busy was it?":                    "number",
		"Would you recommend us to a friend?": "number",
		"How many people came with you?":      "number",
		"When did you visit?":                 "date",
		"Rate each part of the visit [Food]":  "text",
		"Rank these by importance [Taste]":    "number",
	} {
		i := slices.Index(sheet[0], col)
		ref, _ := excelize.CoordinatesToCellName(i+1, 2)
		if got := kindOf(ref); i < 0 || got != want {
			t.Errorf("XLSX column %q (%s) is %s, want %s", col, ref, got, want)
		}
		if value, _ := wb.GetCellValue("Answers", ref); col != "created_on" && value != cell[col] {
			t.Errorf("XLSX column %q shows %q, the CSV %q", col, value, cell[col])
		}
	}
}
