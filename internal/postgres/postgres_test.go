package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/surveys-dev/surveys/internal/postgres"
	"github.com/surveys-dev/surveys/internal/postgres/pgtest"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newTestDatabase returns a fresh database of the test server, as the
// subscriber's role sees it.
func newTestDatabase(t *testing.T) (postgres.Database, string) {
	t.Helper()
	name := pgtest.NewDatabase(t)
	return postgres.Database{Connection: pgtest.ConnectionString(name), Password: pgtest.Password}, name
}

func testSurvey(tenant, slug string) *survey.Survey {
	return &survey.Survey{
		Tenant: tenant, Slug: slug, Title: "Survey " + slug, State: survey.Published,
		CreatedOn: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), PublishedOn: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC),
		Questions: []survey.Question{
			{ID: "q1", Text: "What did you like?", Type: survey.SimpleText},
			{ID: "q2", Text: "Which colour?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
			{ID: "q3", Text: "How many stars?", Type: survey.FiveStars},
		},
	}
}

// answers makes n answers; answer i likes "text i", picks colour i%3 and
// gives i%5+1 stars.
func answers(sv *survey.Survey, from, n int) []*survey.SurveyAnswer {
	colours := []string{"Red", "Green", "Blue"}
	var out []*survey.SurveyAnswer
	for i := from; i < from+n; i++ {
		out = append(out, &survey.SurveyAnswer{
			ID: fmt.Sprintf("%019d-x", i), Tenant: sv.Tenant, Slug: sv.Slug, Title: sv.Title,
			CreatedOn: time.Date(2026, 2, 1, 0, 0, i, 0, time.UTC),
			Answers: []survey.QuestionAnswer{
				{QuestionID: "q1", Type: survey.SimpleText, Answer: fmt.Sprintf("text %d, with 'quotes' and ünïcode", i)},
				{QuestionID: "q2", Type: survey.MultipleChoice, Answer: colours[i%3]},
				{QuestionID: "q3", Type: survey.FiveStars, Answer: fmt.Sprint(i%5 + 1)},
			},
		})
	}
	return out
}

func each(list []*survey.SurveyAnswer) postgres.Answers {
	return func(yield func(*survey.SurveyAnswer) error) error {
		for _, a := range list {
			if err := yield(a); err != nil {
				return err
			}
		}
		return nil
	}
}

// query runs a query as the superuser and returns its rows as strings.
func query(t *testing.T, database, sql string, args ...any) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgtest.Admin(ctx, database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		vals, err := r.Values()
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		return strings.Join(parts, "|"), err
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return got
}

func equal(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestTest(t *testing.T) {
	db, _ := newTestDatabase(t)
	v, err := postgres.New(pgtest.Allow).Test(context.Background(), db)
	if err != nil || !strings.HasPrefix(v, "PostgreSQL 1") {
		t.Fatalf("Test = %q, %v; want a PostgreSQL version", v, err)
	}
}

// TestLocalAddressesRefused: a store that allows no private range does not
// connect to the test server on loopback, by address or by name, and says
// why; nothing is written.
func TestLocalAddressesRefused(t *testing.T) {
	ctx := context.Background()
	db, name := newTestDatabase(t)
	byName := postgres.Database{Connection: strings.Replace(db.Connection, "127.0.0.1", "localhost", 1), Password: db.Password}
	sv := testSurvey("adatum", "feedback")
	for _, d := range []postgres.Database{db, byName} {
		_, err := postgres.New().Test(ctx, d)
		if err == nil || !errors.Is(err, postgres.ErrAddressNotAllowed) || !strings.Contains(postgres.Message(err), "private or local address") {
			t.Errorf("Test(%s) = %v, want a refused address", d.Connection, err)
		}
		if _, err := postgres.New().Transfer(ctx, d, sv, each(answers(sv, 0, 3))); !errors.Is(err, postgres.ErrAddressNotAllowed) {
			t.Errorf("Transfer(%s) = %v, want a refused address", d.Connection, err)
		}
	}
	equal(t, "tables", query(t, name, `SELECT count(*) FROM pg_tables WHERE tablename IN ('surveys', 'questions', 'answers')`), "0")
}

func TestTransferWritesReplacesAndIsolates(t *testing.T) {
	ctx := context.Background()
	db, name := newTestDatabase(t)
	s := &postgres.SurveySQLStore{Batch: 7, Allow: []netip.Prefix{pgtest.Allow}} // several COPY batches
	sv := testSurvey("adatum", "feedback")
	first := answers(sv, 0, 10)
	res, err := s.Transfer(ctx, db, sv, each(first))
	if err != nil {
		t.Fatal(err)
	}
	if res.Answers != 10 || res.Rows != 30 || res.Duration <= 0 {
		t.Fatalf("first transfer = %+v, want 10 answers, 30 rows", res)
	}
	equal(t, "surveys", query(t, name, `SELECT tenant, slug, title, state, answers FROM surveys`), "adatum|feedback|Survey feedback|published|10")
	equal(t, "questions", query(t, name, `SELECT question_id, position, type, array_to_string(possible_answers, ',') FROM questions ORDER BY position`),
		"q1|1|SimpleText|", "q2|2|MultipleChoice|Red,Green,Blue", "q3|3|FiveStars|")
	equal(t, "answers per question", query(t, name, `SELECT question_id, count(*) FROM answers GROUP BY 1 ORDER BY 1`), "q1|10", "q2|10", "q3|10")
	equal(t, "choices", query(t, name, `SELECT answer, count(*) FROM answers WHERE question_id = 'q2' GROUP BY 1 ORDER BY 1`), "Blue|3", "Green|3", "Red|4")
	equal(t, "stars", query(t, name, `SELECT stars, count(*), bool_and(answer = stars::text) FROM answers WHERE question_id = 'q3' GROUP BY 1 ORDER BY 1`),
		"1|2|true", "2|2|true", "3|2|true", "4|2|true", "5|2|true")
	equal(t, "a text answer", query(t, name, `SELECT answer, stars IS NULL FROM answers WHERE answer_id = $1 AND question_id = 'q1'`, first[4].ID),
		"text 4, with 'quotes' and ünïcode|true")

	// Another survey of the tenant, and another tenant's survey of the same
	// slug, in the same database.
	other := testSurvey("adatum", "other")
	if _, err := s.Transfer(ctx, db, other, each(answers(other, 0, 2))); err != nil {
		t.Fatal(err)
	}
	fab := testSurvey("fabrikam", "feedback")
	if _, err := s.Transfer(ctx, db, fab, each(answers(fab, 0, 4))); err != nil {
		t.Fatal(err)
	}

	// Again, with more answers (one listed twice): replaced, not added.
	more := append(answers(sv, 0, 15), answers(sv, 3, 1)...)
	res, err = s.Transfer(ctx, db, sv, each(more))
	if err != nil {
		t.Fatal(err)
	}
	if res.Answers != 15 || res.Rows != 45 {
		t.Fatalf("second transfer = %+v, want 15 answers, 45 rows", res)
	}
	equal(t, "rows per survey", query(t, name, `SELECT tenant, slug, count(*), count(DISTINCT (answer_id, question_id)) FROM answers GROUP BY 1, 2 ORDER BY 1, 2`),
		"adatum|feedback|45|45", "adatum|other|6|6", "fabrikam|feedback|12|12")
	equal(t, "surveys", query(t, name, `SELECT tenant, slug, answers FROM surveys ORDER BY 1, 2`),
		"adatum|feedback|15", "adatum|other|2", "fabrikam|feedback|4")
	equal(t, "questions per survey", query(t, name, `SELECT tenant, slug, count(*) FROM questions GROUP BY 1, 2 ORDER BY 1, 2`),
		"adatum|feedback|3", "adatum|other|3", "fabrikam|feedback|3")

	// A survey with no answers yet: its row and questions, no answers.
	empty := testSurvey("fabrikam", "empty")
	if res, err := s.Transfer(ctx, db, empty, each(nil)); err != nil || res.Rows != 0 {
		t.Fatalf("empty transfer = %+v, %v", res, err)
	}
	equal(t, "empty survey", query(t, name, `SELECT count(*) FROM questions WHERE slug = 'empty'`), "3")
}

func TestErrorsAreClear(t *testing.T) {
	ctx := context.Background()
	s := postgres.New(pgtest.Allow)
	db, name := newTestDatabase(t)
	sv := testSurvey("adatum", "feedback")
	list := answers(sv, 0, 3)
	cases := []struct {
		name string
		db   postgres.Database
		want string
	}{
		{"wrong password", postgres.Database{Connection: db.Connection, Password: "not-it"}, `refused the password of user "surveys"`},
		{"no password", postgres.Database{Connection: db.Connection}, `refused the password of user "surveys"`},
		{"unknown role", postgres.Database{Connection: strings.Replace(db.Connection, "surveys@", "nobody@", 1), Password: pgtest.Password}, `refused the password of user "nobody"`},
		{"unknown database", postgres.Database{Connection: pgtest.ConnectionString("nosuchdb"), Password: pgtest.Password}, `There is no database "nosuchdb" on 127.0.0.1:`},
		{"closed port", postgres.Database{Connection: fmt.Sprintf("postgres://surveys@127.0.0.1:%d/x?sslmode=disable", pgtest.ClosedPort(t)), Password: "x"}, "Could not reach 127.0.0.1:"},
		{"unknown host", postgres.Database{Connection: "postgres://surveys@no-such-host.invalid:5432/x", Password: "x"}, `the host name "no-such-host.invalid" is not known`},
		{"password in the string", postgres.Database{Connection: "postgres://surveys:secret@127.0.0.1/x", Password: "x"}, "Leave the password out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Test(ctx, c.db)
			if err == nil || !strings.Contains(postgres.Message(err), c.want) {
				t.Errorf("Test = %v, want %q", err, c.want)
			}
			_, err = s.Transfer(ctx, c.db, sv, each(list))
			if err == nil || !strings.Contains(postgres.Message(err), c.want) {
				t.Errorf("Transfer = %v, want %q", err, c.want)
			}
			if strings.Contains(postgres.Message(err), pgtest.Password) || strings.Contains(postgres.Message(err), "not-it") {
				t.Errorf("the message shows the password: %v", err)
			}
		})
	}

	// A revoked permission: the transfer fails and changes nothing; granted
	// again, it succeeds.
	if _, err := s.Transfer(ctx, db, sv, each(list)); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, name, "REVOKE INSERT ON answers FROM "+pgtest.Role)
	_, err := s.Transfer(ctx, db, sv, each(answers(sv, 0, 5)))
	if err == nil || !strings.Contains(postgres.Message(err), `User "surveys" may not write the answers: permission denied for table answers`) {
		t.Fatalf("after REVOKE, Transfer = %v", err)
	}
	equal(t, "rows kept after the failed transfer", query(t, name, `SELECT count(*) FROM answers`), "9")
	pgtest.Exec(t, name, "GRANT INSERT ON answers TO "+pgtest.Role)
	if res, err := s.Transfer(ctx, db, sv, each(answers(sv, 0, 5))); err != nil || res.Rows != 15 {
		t.Fatalf("after GRANT, Transfer = %+v, %v", res, err)
	}

	// Revoked on the schema, before the tables exist.
	db2, name2 := newTestDatabase(t)
	pgtest.Exec(t, name2, "ALTER SCHEMA public OWNER TO postgres", "REVOKE ALL ON SCHEMA public FROM PUBLIC", "GRANT USAGE ON SCHEMA public TO "+pgtest.Role)
	_, err = s.Transfer(ctx, db2, sv, each(list))
	if err == nil || !strings.Contains(postgres.Message(err), `User "surveys" may not create the tables: permission denied for schema public`) {
		t.Fatalf("without CREATE on the schema, Transfer = %v", err)
	}
	// A table of the tenant's own named answers: told, and a schema of
	// their own (search_path) then works.
	db3, name3 := newTestDatabase(t)
	pgtest.Exec(t, name3, "CREATE TABLE answers (id serial PRIMARY KEY, note text)", "ALTER TABLE answers OWNER TO "+pgtest.Role,
		"CREATE SCHEMA copies AUTHORIZATION "+pgtest.Role)
	_, err = s.Transfer(ctx, db3, sv, each(list))
	if err == nil || !strings.Contains(postgres.Message(err), "already has a table named surveys, questions or answers that is not this server's") {
		t.Fatalf("over a table of the tenant's own, Transfer = %v", err)
	}
	equal(t, "the tenant's own table after the failed transfer", query(t, name3, `SELECT count(*) FROM public.answers`), "0")
	db3.Connection += "&search_path=copies"
	if res, err := s.Transfer(ctx, db3, sv, each(list)); err != nil || res.Rows != 9 {
		t.Fatalf("in a schema of its own, Transfer = %+v, %v", res, err)
	}
	equal(t, "rows in the schema of its own", query(t, name3, `SELECT count(*) FROM copies.answers`), "9")
}

// BenchmarkTransfer10k copies a survey of 10,000 answers (30,000 rows) into
// a fresh database, again each iteration (a replace after the first).
func BenchmarkTransfer10k(b *testing.B) {
	name := pgtest.NewDatabase(b)
	db := postgres.Database{Connection: pgtest.ConnectionString(name), Password: pgtest.Password}
	sv := testSurvey("adatum", "bench")
	list := answers(sv, 0, 10000)
	s := postgres.New(pgtest.Allow)
	var rows int64
	for b.Loop() {
		res, err := s.Transfer(context.Background(), db, sv, each(list))
		if err != nil {
			b.Fatal(err)
		}
		rows += res.Rows
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// Answers and definitions stored before text was cleaned may hold a NUL,
// a direction override or bytes that are not UTF-8; PostgreSQL refuses a
// NUL in text, which made every copy of such a survey fail. The copy
// drops them and writes the rest.
func TestTransferCleansOldText(t *testing.T) {
	ctx := context.Background()
	db, name := newTestDatabase(t)
	s := postgres.New(pgtest.Allow)
	sv := testSurvey("adatum", "nul")
	sv.Title = "Old\x00 title"
	sv.Questions[0].Text = "What\x00 did you like?"
	sv.Questions[1].PossibleAnswers = []string{"Red\x00", "Green", "Blue"}
	list := answers(sv, 0, 3)
	list[1].Answers[0].Answer = "nul\x00 here\xff and\u202e there\nnext line"
	res, err := s.Transfer(ctx, db, sv, each(list))
	if err != nil {
		t.Fatalf("Transfer of old text: %v", err)
	}
	if res.Answers != 3 {
		t.Errorf("transferred %d answers, want 3", res.Answers)
	}
	equal(t, "title", query(t, name, `SELECT title FROM surveys`), "Old title")
	equal(t, "question", query(t, name, `SELECT text, array_to_string(possible_answers, ',') FROM questions WHERE question_id = 'q1' OR question_id = 'q2' ORDER BY 1`),
		"What did you like?|", "Which colour?|Red,Green,Blue")
	equal(t, "answer", query(t, name, `SELECT answer FROM answers WHERE answer_id = $1 AND question_id = 'q1'`, list[1].ID), "nul here and there\nnext line")
}

// TestTransferEveryKind copies answers of a survey with a question of every
// kind: each answer gives its kind's rows, with numbers in the numeric
// column and dates in the date column, and the questions their settings.
func TestTransferEveryKind(t *testing.T) {
	ctx := context.Background()
	db, name := newTestDatabase(t)
	sv, forms := surveytest.ExampleSurvey("adatum", "kinds")
	sv.CreatedOn = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := rand.New(rand.NewPCG(7, 8))
	var list []*survey.SurveyAnswer
	want := 0
	wantNumbers, wantDates := 0, 0
	for i := 0; i < 40; i++ {
		a, err := survey.NewAnswer(sv, forms(r))
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = fmt.Sprintf("%019d", i+1), sv.CreatedOn
		for _, qa := range a.Answers {
			k, _ := survey.KindOf(qa.Type)
			q, _ := sv.Question(qa.QuestionID)
			for _, row := range k.SQLRows(q, qa) {
				want++
				if row.Number != "" {
					wantNumbers++
				}
				if row.Date != "" {
					wantDates++
				}
			}
		}
		list = append(list, &a)
	}
	res, err := postgres.New(pgtest.Allow).Transfer(ctx, db, sv, each(list))
	if err != nil {
		t.Fatal(err)
	}
	if res.Answers != 40 || res.Rows != int64(want) {
		t.Fatalf("transfer = %+v, want 40 answers, %d rows", res, want)
	}
	equal(t, "typed columns", query(t, name, `SELECT count(number), count(date) FROM answers`), fmt.Sprintf("%d|%d", wantNumbers, wantDates))
	equal(t, "numbers are the answers", query(t, name, `SELECT count(*) FROM answers WHERE number IS NOT NULL AND item = '' AND type <> 'FiveStars' AND number::text <> answer`), "0")
	equal(t, "questions", query(t, name, `SELECT count(*) FROM questions`), fmt.Sprint(len(sv.Questions)))
	for _, q := range sv.Questions {
		if q.Other {
			equal(t, "settings of "+q.ID, query(t, name, `SELECT settings->>'other' FROM questions WHERE question_id = $1`, q.ID), "true")
		}
	}
}

// TestTransferUpgradesTables: tables made by the first version (no item,
// number or date; the answers' key without item) gain them on a transfer.
func TestTransferUpgradesTables(t *testing.T) {
	ctx := context.Background()
	db, name := newTestDatabase(t)
	for _, q := range []string{
		`CREATE TABLE surveys (tenant text NOT NULL, slug text NOT NULL, title text NOT NULL, state text NOT NULL,
			created_on timestamptz NOT NULL, published_on timestamptz, answers bigint NOT NULL, transferred_on timestamptz NOT NULL,
			PRIMARY KEY (tenant, slug))`,
		`CREATE TABLE questions (tenant text NOT NULL, slug text NOT NULL, question_id text NOT NULL, position integer NOT NULL,
			text text NOT NULL, type text NOT NULL, possible_answers text[] NOT NULL, PRIMARY KEY (tenant, slug, question_id),
			FOREIGN KEY (tenant, slug) REFERENCES surveys ON DELETE CASCADE)`,
		`CREATE TABLE answers (tenant text NOT NULL, slug text NOT NULL, answer_id text NOT NULL, question_id text NOT NULL,
			created_on timestamptz NOT NULL, type text NOT NULL, answer text NOT NULL, stars smallint CHECK (stars BETWEEN 1 AND 5),
			PRIMARY KEY (tenant, slug, answer_id, question_id), FOREIGN KEY (tenant, slug) REFERENCES surveys ON DELETE CASCADE)`,
		`INSERT INTO surveys VALUES ('fabrikam', 'old', 'Old', 'published', now(), NULL, 1, now())`,
		`INSERT INTO answers VALUES ('fabrikam', 'old', '1', 'q1', now(), 'FiveStars', '4', 4)`,
		`ALTER TABLE surveys OWNER TO ` + pgtest.Role,
		`ALTER TABLE questions OWNER TO ` + pgtest.Role,
		`ALTER TABLE answers OWNER TO ` + pgtest.Role,
	} {
		pgtest.Exec(t, name, q)
	}
	sv := testSurvey("adatum", "feedback")
	if _, err := postgres.New(pgtest.Allow).Transfer(ctx, db, sv, each(answers(sv, 0, 5))); err != nil {
		t.Fatal(err)
	}
	equal(t, "the old row", query(t, name, `SELECT answer, stars, item, number IS NULL, partial FROM answers WHERE tenant = 'fabrikam'`), "4|4||true|false")
	equal(t, "stars copied as numbers too", query(t, name, `SELECT count(*) FROM answers WHERE tenant = 'adatum' AND type = 'FiveStars' AND number = stars`), "5")
	equal(t, "the key", query(t, name, `SELECT count(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
		WHERE i.indrelid = 'answers'::regclass AND i.indisprimary`), "5")
}

// TestTransferHiddenFields: an answer's hidden values are answer rows of
// their own (question_id hidden:<name>, type hidden); an answer without
// any has none.
func TestTransferHiddenFields(t *testing.T) {
	ctx := context.Background()
	db, name := newTestDatabase(t)
	sv := testSurvey("adatum", "hidden")
	sv.HiddenFields = []string{"source", "panel_id"}
	list := answers(sv, 0, 2)
	list[0].Hidden = map[string]string{"source": "news'letter", "panel_id": "42"}
	if _, err := postgres.New(pgtest.Allow).Transfer(ctx, db, sv, each(list)); err != nil {
		t.Fatal(err)
	}
	equal(t, "hidden rows", query(t, name, `SELECT answer_id, question_id, type, answer FROM answers WHERE type = 'hidden' ORDER BY question_id`),
		list[0].ID+"|hidden:panel_id|hidden|42", list[0].ID+"|hidden:source|hidden|news'letter")
	equal(t, "rows of the answer without", query(t, name, `SELECT count(*) FROM answers WHERE answer_id = $1`, list[1].ID), "3")
}

// TestTransferPartial: every row of a partial answer (its questions',
// hidden fields' and variables') is marked partial, a complete answer's
// none; a table of an earlier version gains the column, its rows false.
func TestTransferPartial(t *testing.T) {
	ctx := context.Background()
	db, name := newTestDatabase(t)
	pgtest.Exec(t, name,
		`CREATE TABLE surveys (tenant text NOT NULL, slug text NOT NULL, title text NOT NULL, state text NOT NULL,
			created_on timestamptz NOT NULL, published_on timestamptz, answers bigint NOT NULL, transferred_on timestamptz NOT NULL,
			PRIMARY KEY (tenant, slug))`,
		`CREATE TABLE answers (tenant text NOT NULL, slug text NOT NULL, answer_id text NOT NULL, question_id text NOT NULL,
			created_on timestamptz NOT NULL, type text NOT NULL, answer text NOT NULL, stars smallint CHECK (stars BETWEEN 1 AND 5),
			item text NOT NULL DEFAULT '', number numeric, date date,
			PRIMARY KEY (tenant, slug, answer_id, question_id, item), FOREIGN KEY (tenant, slug) REFERENCES surveys ON DELETE CASCADE)`,
		`INSERT INTO surveys VALUES ('fabrikam', 'old', 'Old', 'published', now(), NULL, 1, now())`,
		`INSERT INTO answers VALUES ('fabrikam', 'old', '1', 'q1', now(), 'FiveStars', '4', 4, '', 4, NULL)`,
		`ALTER TABLE surveys OWNER TO `+pgtest.Role,
		`ALTER TABLE answers OWNER TO `+pgtest.Role)
	sv := testSurvey("adatum", "partial")
	sv.HiddenFields = []string{"source"}
	sv.Variables = []survey.Variable{{Name: "stars2", Func: "sum", Args: []string{"q3", "q3"}}}
	list := answers(sv, 0, 3)
	list[1].Partial = true
	list[1].Answers = list[1].Answers[:2]
	list[1].Hidden = map[string]string{"source": "mail"}
	list[1].Values = map[string]string{"stars2": "4"}
	if _, err := postgres.New(pgtest.Allow).Transfer(ctx, db, sv, each(list)); err != nil {
		t.Fatal(err)
	}
	equal(t, "rows by answer and partial", query(t, name, `SELECT answer_id, partial, count(*) FROM answers WHERE tenant = 'adatum' GROUP BY answer_id, partial ORDER BY answer_id`),
		list[0].ID+"|false|4", list[1].ID+"|true|4", list[2].ID+"|false|4")
	equal(t, "the partial answer's rows", query(t, name, `SELECT question_id FROM answers WHERE partial ORDER BY question_id`),
		"hidden:source", "q1", "q2", "var:stars2")
	equal(t, "the old row", query(t, name, `SELECT answer, partial FROM answers WHERE tenant = 'fabrikam'`), "4|false")
}
