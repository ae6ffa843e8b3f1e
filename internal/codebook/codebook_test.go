package codebook_test

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/codebook"
	"github.com/surveys-dev/surveys/internal/survey"
)

// longText is a question's text longer than a line of SPSS syntax takes
// (in pieces joined by "+") and than a variable label (cut to 255 bytes).
var longText = strings.Repeat("Une très 'longue' question, ", 12)

// teamSurvey is a survey of several kinds, with texts that need escaping
// (quotes, an apostrophe, letters beyond ASCII), a hidden field and four
// answers (one leaves the optional questions out).
func teamSurvey(t *testing.T) (*survey.Survey, []*survey.SurveyAnswer) {
	t.Helper()
	sv := &survey.Survey{Tenant: "adatum", Slug: "team-day", Title: `Team "day" survey`, State: survey.Published, HiddenFields: []string{"source"},
		Questions: []survey.Question{
			{ID: "q1", Text: `Which "colour" do you like?`, Type: survey.MultipleChoice, PossibleAnswers: []string{`Red "cherry"`, "Grün", "Blue"}, Other: true, Optional: true},
			{ID: "q2", Text: "What do you bring?", Type: survey.Checkboxes, PossibleAnswers: []string{"Cake", "Tea", "Games"}, Optional: true},
			{ID: "q3", Text: "Will you come back?", Type: survey.YesNo},
			{ID: "q4", Text: "Rate the day", Type: survey.Matrix, Rows: []string{"Food", "Venue"}, PossibleAnswers: []string{"Bad", "OK", "Good"}, Optional: true},
			{ID: "q5", Text: "What matters most?", Type: survey.Ranking, PossibleAnswers: []string{"People", "Place", "Programme"}, Optional: true},
			{ID: "q6", Text: "Where do you work?", Type: survey.Dropdown, PossibleAnswers: []string{"Zürich", "L'Aquila", "Oslo"}, Optional: true},
			{ID: "q7", Text: "How many hours?", Type: survey.Number, Optional: true},
			{ID: "q8", Text: "When did you arrive?", Type: survey.Date, Optional: true},
			{ID: "q9", Text: "Anything else?", Type: survey.SimpleText, Optional: true},
			{ID: "q10", Text: "Would you recommend it?", Type: survey.NetPromoterScore, Optional: true},
			{ID: "q11", Text: longText, Type: survey.Number, Optional: true},
		}}
	sv.Normalize()
	if err := sv.Validate(); err != nil {
		t.Fatal(err)
	}
	forms := []map[string]survey.Form{
		{"q1": survey.Value(`Red "cherry"`), "q2": {"": {"Cake", "Games"}}, "q3": survey.Value("Yes"), "q4": {"0": {"Good"}, "1": {"Bad"}},
			"q5": {"0": {"2"}, "1": {"1"}, "2": {"3"}}, "q6": survey.Value("Zürich"), "q7": survey.Value("2.5"), "q8": survey.Value("2026-05-03"),
			"q9": survey.Value("He said \"hi\",\nthen left"), "q10": survey.Value("9")},
		{"q1": {"other": {"Mauve, 'light'"}}, "q2": {"": {"Tea"}}, "q3": survey.Value("No"), "q4": {"0": {"Good"}, "1": {"OK"}},
			"q5": {"0": {"1"}, "1": {"2"}, "2": {"3"}}, "q6": survey.Value("L'Aquila"), "q7": survey.Value("12"), "q8": survey.Value("2026-05-04"),
			"q9": survey.Value("Été"), "q10": survey.Value("10"), "q11": survey.Value("1")},
		{"q1": survey.Value("Grün"), "q2": {"": {"Cake"}}, "q3": survey.Value("Yes"), "q4": {"0": {"OK"}},
			"q5": {"0": {"1"}, "1": {"3"}, "2": {"2"}}, "q6": survey.Value("Zürich"), "q7": survey.Value("-1.25"), "q10": survey.Value("3")},
		{"q3": survey.Value("Yes")},
	}
	var answers []*survey.SurveyAnswer
	for i, f := range forms {
		a, err := survey.NewAnswerWith(sv, f, map[string]string{"source": []string{"mail", "intranet", "mail", ""}[i]})
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		a.ID = "answer-" + string(rune('a'+i))
		a.CreatedOn = time.Date(2026, 5, 3+i, 9, 30, 0, 0, time.UTC)
		answers = append(answers, &a)
	}
	return sv, answers
}

// written is the book of sv's answers, its data file and syntax (SPSS,
// or R when r), in dir.
func written(t *testing.T, dir string, r bool) *codebook.Book {
	t.Helper()
	sv, answers := teamSurvey(t)
	var data bytes.Buffer
	b := codebook.New(sv, "team-day.csv", &data, nil)
	if err := b.Header(); err != nil {
		t.Fatal(err)
	}
	for _, a := range answers {
		if err := b.Write(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	var syntax bytes.Buffer
	name := "team-day.sps"
	write := b.SPSS
	if r {
		name, write = "team-day.R", b.R
	}
	if err := write(&syntax, time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "team-day.csv"), data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), syntax.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNames: the variables' names, from the questions' numbers, their
// kinds' suffixes and the hidden field's name.
func TestNames(t *testing.T) {
	b := written(t, t.TempDir(), false)
	var names []string
	for _, v := range b.Vars {
		names = append(names, v.Name)
	}
	want := []string{"answer_id", "created_on", "q1", "q1_other", "q2_1", "q2_2", "q2_3", "q3", "q4_1", "q4_2", "q5_1", "q5_2", "q5_3",
		"q6", "q7", "q8", "q9", "q10", "q11", "source"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("names\n got %q\nwant %q", names, want)
	}
}

// The known counts of teamSurvey's answers, by variable label, then by
// value label ("" for the missing), written out from the answers above.
var knownCounts = map[string]map[string]int{
	`Which "colour" do you like?`:         {`Red "cherry"`: 1, "Grün": 1, "Other": 1, "": 1},
	`Which "colour" do you like? [Other]`: {"Mauve, 'light'": 1, "": 3},
	"What do you bring? [Cake]":           {"Chosen": 2, "Not chosen": 1, "": 1},
	"What do you bring? [Tea]":            {"Chosen": 1, "Not chosen": 2, "": 1},
	"Will you come back?":                 {"Yes": 3, "No": 1},
	"Rate the day [Food]":                 {"Good": 2, "OK": 1, "": 1},
	"Rate the day [Venue]":                {"Bad": 1, "OK": 1, "": 2},
	"What matters most? [Rank 1]":         {"People": 2, "Place": 1, "": 1},
	"What matters most? [Rank 3]":         {"Programme": 2, "Place": 1, "": 1},
	"Where do you work?":                  {"Zürich": 2, "L'Aquila": 1, "": 1},
	"Anything else?":                      {`He said "hi", then left`: 1, "Été": 1, "": 2},
}

// TestPSPP runs the SPSS syntax in PSPP (Debian's pspp, which make test
// installs), and compares its frequencies with the known counts.
func TestPSPP(t *testing.T) {
	pspp, err := exec.LookPath("pspp")
	if err != nil {
		t.Fatal("pspp is not installed: make test installs Debian's pspp package")
	}
	dir := t.TempDir()
	written(t, dir, false)
	// The syntax as it is, then frequencies and the mean of the numbers.
	run := "INCLUDE FILE='team-day.sps'.\n" +
		"FREQUENCIES /VARIABLES=q1 q1_other q2_1 q2_2 q3 q4_1 q4_2 q5_1 q5_3 q6 q9.\nDESCRIPTIVES /VARIABLES=q7 q10 q11.\nLIST /VARIABLES=answer_id created_on q8.\n"
	if err := os.WriteFile(filepath.Join(dir, "run.sps"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(pspp, "-O", "format=csv", "-o", "out.csv", "run.sps")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pspp: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The syntax runs clean: no error, no warning.
	if strings.Contains(string(raw), "error:") || strings.Contains(string(raw), "warning:") {
		t.Fatalf("PSPP complains:\n%s", raw)
	}
	tables := psppTables(t, raw)
	for label, want := range knownCounts {
		rows, ok := tables[label]
		if !ok {
			t.Errorf("no frequencies of %q in PSPP's output:\n%s", label, raw)
			continue
		}
		got, section := map[string]int{}, ""
		for _, row := range rows {
			if len(row) < 3 || row[2] == "Frequency" {
				continue
			}
			if row[0] != "" {
				section = row[0]
			}
			switch section {
			case "Total":
			case "Missing":
				got[""] += atoi(t, row[2])
			default:
				got[row[1]] += atoi(t, row[2])
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: PSPP counts %v, want %v", label, got, want)
		}
	}
	// The long label, whole up to 255 bytes (a character cut at the end
	// is left out).
	label := longText[:255]
	label = label[:strings.LastIndex(label, " ")]
	if !strings.Contains(string(raw), label) {
		t.Errorf("PSPP's output lacks the long label %q:\n%s", label, raw)
	}
	// The numbers: N, mean, standard deviation, least and most (the
	// scale's top named by its label); the days and moments, as read.
	for _, want := range []string{"How many hours?,3,4.42,6.83,-1.25,12.00", "Would you recommend it?,3,7.33,3.79,3,Extremely likely",
		"answer-a,2026-05-03 09:30:00,2026/05/03", "answer-b,2026-05-04 09:30:00,2026/05/04", "answer-c,2026-05-05 09:30:00,."} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("PSPP's output lacks %q:\n%s", want, raw)
		}
	}
}

// psppTables are the tables of PSPP's CSV output, by title ("Table: "
// and the variable's label), their rows after the title.
func psppTables(t *testing.T, raw []byte) map[string][][]string {
	t.Helper()
	tables := map[string][][]string{}
	title := ""
	for _, block := range strings.Split(string(raw), "\n\n") {
		r := csv.NewReader(strings.NewReader(block))
		r.FieldsPerRecord = -1
		records, err := r.ReadAll()
		if err != nil || len(records) == 0 {
			continue
		}
		head, ok := strings.CutPrefix(records[0][0], "Table: ")
		if !ok {
			continue
		}
		title = head
		if title == "Statistics" {
			continue
		}
		tables[title] = records[1:]
	}
	return tables
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("%q is not a count", s)
		}
		n = 10*n + int(r-'0')
	}
	return n
}

// TestRscript runs the R script in R (Debian's r-base-core, which make
// test installs), and compares the factors' counts and the labels with the
// known ones.
func TestRscript(t *testing.T) {
	rscript, err := exec.LookPath("Rscript")
	if err != nil {
		t.Fatal("Rscript is not installed: make test installs Debian's r-base-core package")
	}
	dir := t.TempDir()
	written(t, dir, true)
	// For each variable, its label, then each level and its count (and
	// the missing), one per line.
	run := `source("team-day.R", encoding = "UTF-8")
for (name in names(data)) {
  x <- data[[name]]
  cat("V", attr(x, "label"), "\n", sep = "\t")
  if (is.factor(x)) {
    counts <- table(x, useNA = "always")
    for (i in seq_along(counts)) cat("L", ifelse(is.na(names(counts)[i]), "", names(counts)[i]), counts[[i]], "\n", sep = "\t")
  } else if (is.character(x)) {
    counts <- table(x, useNA = "always")
    for (i in seq_along(counts)) cat("L", ifelse(is.na(names(counts)[i]), "", names(counts)[i]), counts[[i]], "\n", sep = "\t")
  } else if (inherits(x, "Date") || inherits(x, "POSIXct")) {
    cat("C", class(x)[1], format(min(x, na.rm = TRUE)), "\n", sep = "\t")
  } else {
    cat("C", class(x)[1], format(mean(x, na.rm = TRUE)), "\n", sep = "\t")
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "run.R"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rscript, "--vanilla", "run.R")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Rscript: %v\n%s", err, out)
	}
	got := map[string]map[string]int{}
	classes := map[string]string{}
	label := ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		switch f[0] {
		case "V":
			label = f[1]
			got[label] = map[string]int{}
		case "L":
			if n := atoi(t, f[2]); n > 0 {
				got[label][f[1]] = n
			}
		case "C":
			classes[label] = f[1] + " " + strings.TrimSpace(f[2])
		}
	}
	for label, want := range knownCounts {
		if !reflect.DeepEqual(got[label], want) {
			t.Errorf("%s: R counts %v, want %v\n%s", label, got[label], want, out)
		}
	}
	long := longText[:strings.LastIndex(longText[:255], " ")]
	if !strings.Contains(string(out), "V\t"+long) {
		t.Errorf("R lacks the long label %q:\n%s", long, out)
	}
	for label, want := range map[string]string{"How many hours?": "numeric 4.416667", "Would you recommend it?": "numeric 7.333333",
		"When did you arrive?": "Date 2026-05-03", "Received (UTC)": "POSIXct 2026-05-03 09:30:00"} {
		if classes[label] != want {
			t.Errorf("%s: R has %q, want %q\n%s", label, classes[label], want, out)
		}
	}
}

// TestNamesCollide: hidden fields named as a question's variable, a
// fixed column or a reserved word, or beginning with a digit, get names
// of their own; the status column of a survey that keeps partial answers
// too.
func TestNamesCollide(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Slug: "s", Title: "S", KeepPartial: time.Hour,
		HiddenFields: []string{"q1", "answer_id", "2nd-wave", "and", "Q1", "status"},
		Questions:    []survey.Question{{ID: "a", Text: "Why?", Type: survey.SimpleText}}}
	b := codebook.New(sv, "s.csv", &bytes.Buffer{}, nil)
	var names []string
	for _, v := range b.Vars {
		names = append(names, v.Name)
	}
	want := []string{"answer_id", "created_on", "q1", "q1_2", "answer_id_2", "v2nd_wave", "v_and", "Q1_3", "status", "status_2"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("names\n got %q\nwant %q", names, want)
	}
}
