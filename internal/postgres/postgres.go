// Package postgres is the SurveySqlStore: it copies a survey's answers into
// the subscriber's own PostgreSQL database (pgx), in three tables of its
// own, and tests a connection for the settings page.
//
// The tables, created when missing, in the connection's schema:
//
//	surveys   (tenant, slug)                        title, state, dates, answers, transferred_on
//	questions (tenant, slug, question_id)           position, text, type, possible_answers
//	answers   (tenant, slug, answer_id, question_id) created_on, type, answer, stars
//
// A transfer deletes the survey's rows and writes them again (COPY, in
// batches) in one transaction, so a repeated transfer replaces the rows and
// never duplicates them, and readers see the old rows or the new, never
// half. Other surveys' and other tenants' rows are not touched.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

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
	`CREATE TABLE IF NOT EXISTS answers (
		tenant text NOT NULL,
		slug text NOT NULL,
		answer_id text NOT NULL,
		question_id text NOT NULL,
		created_on timestamptz NOT NULL,
		type text NOT NULL,
		answer text NOT NULL,
		stars smallint CHECK (stars BETWEEN 1 AND 5),
		PRIMARY KEY (tenant, slug, answer_id, question_id),
		FOREIGN KEY (tenant, slug) REFERENCES surveys ON DELETE CASCADE)`,
}

var (
	questionColumns = []string{"tenant", "slug", "question_id", "position", "text", "type", "possible_answers"}
	answerColumns   = []string{"tenant", "slug", "answer_id", "question_id", "created_on", "type", "answer", "stars"}
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
		for i, q := range sv.Questions {
			choices := make([]string, 0, len(q.PossibleAnswers))
			for _, c := range q.PossibleAnswers {
				choices = append(choices, survey.CleanLine(c))
			}
			rows = append(rows, []any{sv.Tenant, sv.Slug, q.ID, i + 1, survey.CleanLine(q.Text), string(q.Type), choices})
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
				// Text stored before answers were cleaned may hold a NUL or
				// bytes that are not UTF-8, which PostgreSQL refuses: drop
				// them here, or the copy would fail on every attempt.
				rows = append(rows, []any{sv.Tenant, sv.Slug, a.ID, qa.QuestionID, a.CreatedOn, string(qa.Type), survey.CleanText(qa.Answer), stars(qa)})
				if len(rows) >= batch {
					if err := flush(); err != nil {
						return copyError{err}
					}
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

// copyError marks an error of the database met while answers are read.
type copyError struct{ error }

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// stars is the 1–5 rating of a FiveStars answer; NULL for the other kinds.
func stars(qa survey.QuestionAnswer) any {
	k, ok := survey.KindOf(qa.Type)
	if !ok || qa.Type != survey.FiveStars {
		return nil
	}
	rows := k.SQLRows(survey.Question{ID: qa.QuestionID, Type: qa.Type}, qa)
	n, err := strconv.Atoi(rows[0].Number)
	if err != nil {
		return nil
	}
	return int16(n)
}

// String describes a result for logs and pages.
func (r Result) String() string {
	return fmt.Sprintf("%d answers, %d rows in %s", r.Answers, r.Rows, r.Duration.Round(time.Millisecond))
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
