package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// TestExportCSVFormulas: a question or an answer that begins with '=',
// '+', '-' or '@' is written to both CSV exports (the download and the
// API's ?format=csv) with a leading "'", so a spreadsheet shows it as text
// and runs no formula; the JSON export keeps it exact.
func TestExportCSVFormulas(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := &survey.Survey{Tenant: "adatum", Title: "Formulas", Questions: []survey.Question{
		{Text: `=HYPERLINK("http://evil.example","Click")`, Type: survey.SimpleText},
		{Text: "+1 or -1?", Type: survey.SimpleText},
		{Text: "@who", Type: survey.MultipleChoice, PossibleAnswers: []string{"-1", "@me"}},
		{Text: "Plain question", Type: survey.SimpleText},
	}}
	if err := app.surveys.Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if _, err := app.surveys.SetState(ctx, "adatum", sv.Slug, survey.Published); err != nil {
		t.Fatal(err)
	}
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	form := url.Values{
		"token":        {app.token(t, path)},
		"q-" + q[0].ID: {`=cmd|' /C calc'!A0`},
		"q-" + q[1].ID: {"+SUM(1,2)\nsecond line"},
		"q-" + q[2].ID: {"-1"},
		"q-" + q[3].ID: {"plain = fine"},
	}
	if code, _, body := app.do(t, "POST", path, form, nil); code != 303 {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	app.stored(t)

	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"answer_id", "created_on", `'=HYPERLINK("http://evil.example","Click")`, "'+1 or -1?", "'@who", "Plain question"}
	wantRow := []string{`'=cmd|' /C calc'!A0`, "'+SUM(1,2)\nsecond line", "-1", "plain = fine"}

	code, _, web := app.get(t, "/adatum/surveys/"+sv.Slug+"/export.csv", ana)
	apiCode, _, api := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export?format=csv", token, "")
	for name, c := range map[string]struct {
		code int
		body string
	}{"download": {code, web}, "API": {apiCode, api}} {
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(c.body, "\uFEFF"))).ReadAll()
		if c.code != 200 || err != nil || len(rows) != 2 {
			t.Fatalf("%s CSV = %d, %v\n%s", name, c.code, err, c.body)
		}
		if strings.Join(rows[0], "|") != strings.Join(wantHeader, "|") {
			t.Errorf("%s CSV header = %q\nwant %q", name, rows[0], wantHeader)
		}
		if strings.Join(rows[1][2:], "|") != strings.Join(wantRow, "|") {
			t.Errorf("%s CSV row = %q\nwant %q", name, rows[1][2:], wantRow)
		}
	}

	code, _, body := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export", token, "")
	var a survey.SurveyAnswer
	if err := json.Unmarshal([]byte(body), &a); code != 200 || err != nil {
		t.Fatalf("JSON export = %d, %v\n%s", code, err, body)
	}
	for i, want := range []string{`=cmd|' /C calc'!A0`, "+SUM(1,2)\nsecond line", "-1", "plain = fine"} {
		if got, _ := a.Answer(q[i].ID); got.Answer != want {
			t.Errorf("JSON answer %d = %q, want %q exactly", i, got.Answer, want)
		}
	}
}

// TestAnalyzeOtherWords: when a question's answers use more distinct words
// than a summary keeps, the analysis page says its words are a sample and
// how many uses are not listed.
func TestAnalyzeOtherWords(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	var words []string
	for i := range survey.MaxSummaryWords + 5 {
		words = append(words, "w"+strconv.Itoa(i)+"x")
	}
	sum := survey.NewSummary(app.adatum)
	for i := 0; i < len(words); i += 50 {
		sum.Add(survey.SurveyAnswer{Answers: []survey.QuestionAnswer{{QuestionID: app.adatum.Questions[3].ID, Type: survey.SimpleText, Answer: strings.Join(words[i:min(i+50, len(words))], " ")}}})
	}
	if _, err := store.NewSurveyAnswersSummaryStore(app.st).Put(ctx, &store.StoredSummary{SurveyAnswersSummary: *sum}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	code, _, body := app.get(t, "/adatum/surveys/"+app.adatum.Slug+"/analyze", ana)
	if want := "a fixed sample of 1000, and 5 uses of other words are not listed"; code != 200 || !strings.Contains(body, want) {
		t.Errorf("analysis = %d, lacks %q", code, want)
	}
}

// postForms turns a respondent's forms (by question ID) into the fields a
// browser posts: q-<ID> and q-<ID>-<suffix>.
func postForms(token string, forms map[string]survey.Form) url.Values {
	v := url.Values{"token": {token}}
	for id, f := range forms {
		for suffix, vs := range f {
			name := "q-" + id
			if suffix != "" {
				name += "-" + suffix
			}
			v[name] = vs
		}
	}
	return v
}

// TestExportEveryKind answers a survey with a question of every kind
// through its form, then exports it: the CSV has each kind's columns and
// a cell per column in every row, and the JSON export each answer's typed
// value, the kind's Value of what was stored.
func TestExportEveryKind(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv, forms := surveytest.ExampleSurvey("adatum", "")
	if err := app.surveys.Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if _, err := app.surveys.SetState(ctx, "adatum", sv.Slug, survey.Published); err != nil {
		t.Fatal(err)
	}
	path := "/survey/adatum/" + sv.Slug
	r := rand.New(rand.NewPCG(3, 4))
	const n = 12
	for i := 0; i < n; i++ {
		if code, _, body := app.do(t, "POST", path, postForms(app.token(t, path), forms(r)), nil); code != 303 {
			t.Fatalf("answer %d = %d\n%s", i, code, body)
		}
	}
	app.stored(t)
	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}

	code, _, body := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export?format=csv", token, "")
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	if code != 200 || err != nil || len(rows) != n+1 {
		t.Fatalf("CSV = %d, %v, %d rows\n%s", code, err, len(rows), body)
	}
	header := []string{"answer_id", "created_on"}
	for _, q := range sv.Questions {
		k, _ := survey.KindOf(q.Type)
		for _, c := range k.Columns(q) {
			if c == "" {
				header = append(header, q.Text)
			} else {
				header = append(header, q.Text+" ["+c+"]")
			}
		}
	}
	if strings.Join(rows[0], "|") != strings.Join(header, "|") {
		t.Errorf("CSV header = %q\nwant %q", rows[0], header)
	}

	code, _, body = app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export", token, "")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if code != 200 || len(lines) != n {
		t.Fatalf("JSON = %d, %d lines\n%s", code, len(lines), body)
	}
	// The API's page of answers gives them as the export does.
	code, page, raw := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/answers?limit=100", token, "")
	list, _ := page["answers"].([]any)
	if code != 200 || len(list) != n {
		t.Fatalf("API answers = %d, %d answers\n%s", code, len(list), raw)
	}
	for i, line := range lines {
		var exported any
		_ = json.Unmarshal([]byte(line), &exported)
		if a, b := mustMarshal(t, exported), mustMarshal(t, list[i]); a != b {
			t.Errorf("API answer %d:\n%s\nexport:\n%s", i, b, a)
		}
	}
	for _, line := range lines {
		var got struct {
			ID      string `json:"id"`
			Answers []struct {
				QuestionID string          `json:"questionId"`
				Answer     string          `json:"answer"`
				Value      json.RawMessage `json:"value"`
			} `json:"answers"`
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		stored, err := app.answers.Get(ctx, "adatum", sv.Slug, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Answers) != len(stored.Answers) {
			t.Fatalf("answer %s: %d parts exported, %d stored", got.ID, len(got.Answers), len(stored.Answers))
		}
		for i, part := range got.Answers {
			qa := stored.Answers[i]
			q, _ := sv.Question(qa.QuestionID)
			k, _ := survey.KindOf(q.Type)
			want, _ := json.Marshal(k.Value(q, qa))
			if part.QuestionID != qa.QuestionID || string(part.Value) != string(want) {
				t.Errorf("answer %s, %s (%s): value %s, want %s", got.ID, q.ID, q.Type, part.Value, want)
			}
			if part.Answer == "" || strings.Contains(part.Answer, survey.OtherMark) {
				t.Errorf("answer %s, %s (%s): text %q", got.ID, q.ID, q.Type, part.Answer)
			}
		}
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
