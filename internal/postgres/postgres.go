// Package postgres is the SurveySqlStore: it copies a survey's answers into
// the subscriber's own PostgreSQL database (pgx), in three tables of its
// own, and tests a connection for the settings page.
//
// The tables, created when missing, in the connection's schema:
//
//	surveys   (tenant, slug)                              title, state, dates, answers, transferred_on
//	questions (tenant, slug, question_id)                 position, text, type, possible_answers,
//	                                                      optional, help, row_labels, settings (jsonb)
//	answers   (tenant, slug, answer_id, question_id, item) created_on, type, answer, stars, number, date,
//	                                                      partial
//
// Each kind of question says which answer rows it writes (survey.Kind's
// SQLRows): one per answer, with item "", for most; one per checked choice
// (checkboxes), per matrix row or per ranked item, with item naming it.
// number holds numbers, scales and ratings (numeric), date holds dates.
// The values of the survey's hidden fields an answer carried are answer
// rows too: question_id hidden:<name>, type "hidden", the value in answer;
// and so are its score and variables: question_id var:<name>, type
// "variable", the value in answer and number. partial marks every row of
// a partial answer (survey.SurveyAnswer.Partial: what a respondent who
// left without submitting had answered), false for a complete one.
// Tables made by an earlier version gain the new columns, and the answers'
// key its item, when a transfer first meets them.
//
// A transfer deletes the survey's rows and writes them again (COPY, in
// batches) in one transaction, so a repeated transfer replaces the rows and
// never duplicates them, and readers see the old rows or the new, never
// half. Other surveys' and other tenants' rows are not touched.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/surveys-dev/surveys/internal/survey"
)

// ConnectTimeout bounds connecting to a subscriber's database.
const ConnectTimeout = 10 * time.Second

// DefaultBatch is the number of answer rows one COPY sends.
const DefaultBatch = 5000

// SurveySQLStore writes surveys' answers into subscribers' databases.
type SurveySQLStore struct {
	// Batch is the number of rows per COPY; 0 means DefaultBatch.
	Batch int
	// Allow are the non-public address ranges the store may connect to
	// (guard.go); globally routable addresses are always allowed.
	Allow []netip.Prefix
	// ConnectTimeout bounds connecting (TCP, TLS and the start-up
	// exchange); 0 means the package's ConnectTimeout.
	ConnectTimeout time.Duration
}

// New returns a SurveySQLStore that connects to public addresses and to
// those in allow.
func New(allow ...netip.Prefix) *SurveySQLStore { return &SurveySQLStore{Allow: allow} }

// Database is a subscriber's database: its connection string (checked by
// ValidateConnection) and password.
type Database struct {
	Connection string
	Password   string
}

// Answers calls yield with each answer of a survey, in order, until yield
// returns an error.
type Answers func(yield func(*survey.SurveyAnswer) error) error

// Result is what a transfer wrote.
type Result struct {
	Answers  int           // survey answers
	Rows     int64         // answers rows: one per question answered
	Duration time.Duration // from connecting to the commit
}

func (s *SurveySQLStore) connect(ctx context.Context, db Database) (*pgx.Conn, Target, error) {
	t, err := ValidateConnection(db.Connection)
	if err != nil {
		return nil, t, err
	}
	cfg, err := pgx.ParseConfig(db.Connection)
	if err != nil {
		return nil, t, &Error{Message: "The connection string could not be read.", Err: err}
	}
	// The password is the tenant's alone: never one of this server's
	// environment (PGPASSWORD) or password file.
	cfg.Password = db.Password
	// Only to addresses the operator allows (guard.go).
	cfg.DialFunc = s.dial
	limit := ConnectTimeout
	if s.ConnectTimeout > 0 {
		limit = s.ConnectTimeout
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > limit {
		cfg.ConnectTimeout = limit
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "surveys"
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, t, explain(err, t, "connect")
	}
	return conn, t, nil
}

// Test connects and returns the server's version.
func (s *SurveySQLStore) Test(ctx context.Context, db Database) (string, error) {
	conn, t, err := s.connect(ctx, db)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", explain(err, t, "answer")
	}
	return "PostgreSQL " + v, nil
}

// schema creates the tables when missing. An advisory lock keeps two
// transfers from creating them at once.
var schema = []string{
	`SELECT pg_advisory_xact_lock(7261004011)`,
	`CREATE TABLE IF NOT EXISTS surveys (
		tenant text NOT NULL,
		slug text NOT NULL,
		title text NOT NULL,
		state text NOT NULL,
		created_on timestamptz NOT NULL,
		published_on timestamptz,
		answers bigint NOT NULL,
		transferred_on timestamptz NOT NULL,
		PRIMARY KEY (tenant, slug))`,
	`CREATE TABLE IF NOT EXISTS questions (
		tenant text NOT NULL,
		slug text NOT NULL,
		question_id text NOT NULL,
		position integer NOT NULL,
		text text NOT NULL,
		type text NOT NULL,
		possible_answers text[] NOT NULL,
		PRIMARY KEY (tenant, slug, question_id),
		FOREIGN KEY (tenant, slug) REFERENCES surveys ON DELETE CASCADE)`,
	`ALTER TABLE questions ADD COLUMN IF NOT EXISTS optional boolean NOT NULL DEFAULT false`,
	`ALTER TABLE questions ADD COLUMN IF NOT EXISTS help text NOT NULL DEFAULT ''`,
	`ALTER TABLE questions ADD COLUMN IF NOT EXISTS row_labels text[] NOT NULL DEFAULT '{}'`,
	`ALTER TABLE questions ADD COLUMN IF NOT EXISTS settings jsonb NOT NULL DEFAULT '{}'`,
	`CREATE TABLE IF NOT EXISTS answers (
		tenant text NOT NULL,
		slug text NOT NULL,
		answer_id text NOT NULL,
		question_id text NOT NULL,
		created_on timestamptz NOT NULL,
		type text NOT NULL,
		answer text NOT NULL,
		stars smallint CHECK (stars BETWEEN 1 AND 5),
		item text NOT NULL DEFAULT '',
		number numeric,
		date date,
		partial boolean NOT NULL DEFAULT false,
		PRIMARY KEY (tenant, slug, answer_id, question_id, item),
		FOREIGN KEY (tenant, slug) REFERENCES surveys ON DELETE CASCADE)`,
	// Tables of an earlier version: the new columns, and the key with item.
	`ALTER TABLE answers ADD COLUMN IF NOT EXISTS item text NOT NULL DEFAULT ''`,
	`ALTER TABLE answers ADD COLUMN IF NOT EXISTS number numeric`,
	`ALTER TABLE answers ADD COLUMN IF NOT EXISTS date date`,
	`ALTER TABLE answers ADD COLUMN IF NOT EXISTS partial boolean NOT NULL DEFAULT false`,
	`DO $$ BEGIN
		IF NOT EXISTS (SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
			WHERE i.indrelid = 'answers'::regclass AND i.indisprimary AND a.attname = 'item') THEN
			ALTER TABLE answers DROP CONSTRAINT answers_pkey, ADD PRIMARY KEY (tenant, slug, answer_id, question_id, item);
		END IF;
	END $$`,
}

var (
	questionColumns = []string{"tenant", "slug", "question_id", "position", "text", "type", "possible_answers", "optional", "help", "row_labels", "settings"}
	answerColumns   = []string{"tenant", "slug", "answer_id", "question_id", "created_on", "type", "answer", "stars", "item", "number", "date", "partial"}
)

// Transfer replaces the survey's rows in db with sv and its answers, in one
// transaction. On an error nothing is changed, and the error is an *Error
// that says what to fix.
func (s *SurveySQLStore) Transfer(ctx context.Context, db Database, sv *survey.Survey, answers Answers) (Result, error) {
	start := time.Now()
	conn, t, err := s.connect(ctx, db)
	if err != nil {
		return Result{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, q := range schema {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return Result{}, explain(err, t, "create the tables")
	}

	var res Result
	step := "write the answers"
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// One transfer of a survey at a time; another waits, then replaces.
		step = "lock the survey's rows"
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, sv.Tenant+"/"+sv.Slug); err != nil {
			return err
		}
		step = "delete the survey's earlier rows"
		if _, err := tx.Exec(ctx, `DELETE FROM surveys WHERE tenant = $1 AND slug = $2`, sv.Tenant, sv.Slug); err != nil {
			return err
		}
		step = "write the survey"
		if _, err := tx.Exec(ctx, `INSERT INTO surveys (tenant, slug, title, state, created_on, published_on, answers, transferred_on)
			VALUES ($1, $2, $3, $4, $5, $6, 0, now())`,
			sv.Tenant, sv.Slug, survey.CleanLine(sv.Title), string(sv.State), sv.CreatedOn, nullTime(sv.PublishedOn)); err != nil {
			return err
		}
		step = "write the questions"
		rows := make([][]any, 0, len(sv.Questions))
		byID := make(map[string]survey.Question, len(sv.Questions))
		for i, q := range sv.Questions {
			byID[q.ID] = q
			rows = append(rows, []any{sv.Tenant, sv.Slug, q.ID, i + 1, survey.CleanLine(q.Text), string(q.Type),
				cleanLines(q.PossibleAnswers), q.Optional, survey.CleanLine(q.Help), cleanLines(q.Rows), questionSettings(q)})
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"questions"}, questionColumns, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		step = "write the answers"
		batch := s.Batch
		if batch <= 0 {
			batch = DefaultBatch
		}
		seen := map[string]bool{}
		rows = make([][]any, 0, batch)
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			n, err := tx.CopyFrom(ctx, pgx.Identifier{"answers"}, answerColumns, pgx.CopyFromRows(rows))
			res.Rows += n
			rows = rows[:0]
			return err
		}
		if err := answers(func(a *survey.SurveyAnswer) error {
			if seen[a.ID] {
				return nil // listed twice: written once
			}
			seen[a.ID] = true
			res.Answers++
			for _, qa := range a.Answers {
				for _, row := range answerRows(byID, qa) {
					// Text stored before answers were cleaned may hold a NUL
					// or bytes that are not UTF-8, which PostgreSQL refuses:
					// drop them here, or the copy would fail on every attempt.
					rows = append(rows, []any{sv.Tenant, sv.Slug, a.ID, qa.QuestionID, a.CreatedOn, string(qa.Type),
						survey.CleanText(row.Text), stars(qa, row), survey.CleanLine(row.Item), numeric(row.Number), date(row.Date), a.Partial})
				}
				if len(rows) >= batch {
					if err := flush(); err != nil {
						return copyError{err}
					}
				}
			}
			// The hidden fields' values: a row each, as the answer to
			// "hidden:<name>" of type "hidden".
			for _, name := range slices.Sorted(maps.Keys(a.Hidden)) {
				rows = append(rows, []any{sv.Tenant, sv.Slug, a.ID, survey.HiddenRef(name), a.CreatedOn, hiddenType,
					survey.CleanText(a.Hidden[name]), nil, "", nil, nil, a.Partial})
			}
			// The score and variables: a row each, as the answer to
			// "var:<name>" of type "variable", its number in number.
			names, cells := sv.VarNames(), sv.VarCells(a)
			for i, name := range names {
				if cells[i] != "" {
					rows = append(rows, []any{sv.Tenant, sv.Slug, a.ID, survey.VarRef(name), a.CreatedOn, variableType, cells[i], nil, "", numeric(cells[i]), nil, a.Partial})
				}
			}
			if len(rows) >= batch {
				if err := flush(); err != nil {
					return copyError{err}
				}
			}
			return nil
		}); err != nil {
			var ce copyError
			if errors.As(err, &ce) {
				return ce.error
			}
			return &Error{Message: "Could not read the survey's answers from this site's storage; the transfer will be tried again.", Err: err}
		}
		if err := flush(); err != nil {
			return err
		}
		step = "write the survey"
		_, err := tx.Exec(ctx, `UPDATE surveys SET answers = $3 WHERE tenant = $1 AND slug = $2`, sv.Tenant, sv.Slug, res.Answers)
		return err
	})
	if err != nil {
		return Result{}, explain(err, t, step)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// hiddenType is the type of the answers rows of hidden fields' values
// (question_id hidden:<name>).
const hiddenType = "hidden"

// variableType is the type of the answers rows of the score and
// variables (question_id var:<name>).
const variableType = "variable"

// copyError marks an error of the database met while answers are read.
type copyError struct{ error }

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// answerRows are the rows of an answer, from its kind (SQLRows); an
// answer of a kind this version does not know is copied as its text.
func answerRows(questions map[string]survey.Question, qa survey.QuestionAnswer) []survey.SQLRow {
	k, ok := survey.KindOf(qa.Type)
	if !ok {
		return []survey.SQLRow{{Text: qa.Answer}}
	}
	q, ok := questions[qa.QuestionID]
	if !ok || q.Type != qa.Type {
		// The question changed kind, or is gone: its settings are not the
		// answer's.
		q = survey.Question{ID: qa.QuestionID, Text: qa.QuestionText, Type: qa.Type}
	}
	return k.SQLRows(q, qa)
}

// stars is the 1–5 rating of a FiveStars answer (the column of the first
// version, kept for the queries written against it); NULL otherwise.
func stars(qa survey.QuestionAnswer, row survey.SQLRow) any {
	if qa.Type != survey.FiveStars {
		return nil
	}
	n, err := strconv.Atoi(row.Number)
	if err != nil || n < 1 || n > 5 {
		return nil
	}
	return int16(n)
}

// numeric is a decimal for a numeric column; NULL for "".
func numeric(s string) any {
	if s == "" {
		return nil
	}
	var n pgtype.Numeric
	if err := n.Scan(s); err != nil {
		return nil
	}
	return n
}

// date is a YYYY-MM-DD date for a date column; NULL for "".
func date(s string) any {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return nil
	}
	return pgtype.Date{Time: t, Valid: true}
}

func cleanLines(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, survey.CleanLine(l))
	}
	return out
}

// questionSettings are a question's settings past its choices, rows, help
// and whether it is optional, as the settings column's JSON object (only
// those set).
func questionSettings(q survey.Question) string {
	set := map[string]any{}
	for name, v := range map[string]any{"min": q.Min, "max": q.Max, "format": q.Format, "lowLabel": q.LowLabel, "highLabel": q.HighLabel, "step": q.Step, "pattern": q.Pattern, "patternMessage": q.PatternMessage} {
		if v != "" {
			set[name] = survey.CleanLine(v.(string))
		}
	}
	for name, v := range map[string]bool{"other": q.Other, "shuffle": q.Shuffle, "integer": q.Integer, "multiple": q.Multiple} {
		if v {
			set[name] = true
		}
	}
	if q.Scale != 0 {
		set["scale"] = q.Scale
	}
	if q.Statement != "" {
		set["statement"] = survey.CleanText(q.Statement)
	}
	if len(q.Parts) > 0 {
		set["parts"] = q.Parts
	}
	if len(q.Pictures) > 0 {
		pics := make([]survey.Picture, len(q.Pictures))
		for i, p := range q.Pictures {
			pics[i] = survey.Picture{Label: survey.CleanLine(p.Label), Alt: survey.CleanLine(p.Alt), Image: survey.CleanLine(p.Image)}
		}
		set["pictures"] = pics
	}
	b, _ := json.Marshal(set)
	return string(b)
}

// String describes a result for logs and pages.
func (r Result) String() string {
	return fmt.Sprintf("%s, %s in %s", survey.Count(r.Answers, "answer"), survey.Count(r.Rows, "row"), r.Duration.Round(time.Millisecond))
}

// Validate checks a connection string (for the settings page).
func (s *SurveySQLStore) Validate(connection string) error {
	_, err := ValidateConnection(connection)
	return err
}

// Redact removes a password from a connection string (for the settings
// page, which shows a refused string again).
func (s *SurveySQLStore) Redact(connection string) string { return Redact(connection) }

// SameDestination reports whether next reaches the same host and port as
// saved, as the same user, in the same database, over TLS at least as
// strict: only then may a saved password go with the new one.
func (s *SurveySQLStore) SameDestination(saved, next string) bool {
	return SameDestination(saved, next)
}

// TestConnection connects with a connection string and password and
// returns the server's version (for the settings page).
func (s *SurveySQLStore) TestConnection(ctx context.Context, connection, password string) (string, error) {
	return s.Test(ctx, Database{Connection: connection, Password: password})
}
