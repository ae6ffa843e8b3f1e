package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

// SurveyStore keeps survey definitions: one Surveys row per survey
// (PartitionKey tenant, RowKey tenant_slug) and its questions in the
// Questions table (PartitionKey tenant_slug, RowKey version_position). A
// survey row names the version of its question set, so a question set is
// written whole in one transaction and becomes visible in one row update:
// nothing is ever half-saved.
type SurveyStore struct {
	st  storage.Storage
	now func() time.Time
	// answers is used by Delete to remove a survey's answers.
	answers *SurveyAnswerStore
	// ranks follows each change into the ranked lists.
	ranks *RankingStore
}

// NewSurveyStore returns a SurveyStore over st.
func NewSurveyStore(st storage.Storage) *SurveyStore {
	return &SurveyStore{st: st, now: time.Now, answers: NewSurveyAnswerStore(st), ranks: NewRankingStore(st)}
}

// Create stores a new survey for s.Tenant, choosing its slug from the title
// (with -2, -3 … when the tenant already has that slug), and sets s.Slug,
// s.CreatedOn and the question IDs.
func (ss *SurveyStore) Create(ctx context.Context, s *survey.Survey) error {
	if err := survey.ValidateTenantKey(s.Tenant); err != nil {
		return err
	}
	if s.State == "" {
		s.State = survey.Draft
	}
	// A new survey's questions are new: numbered by its first version
	// (below). The IDs it comes with name its questions in its rules only.
	s.Normalize()
	if err := s.Validate(); err != nil {
		return err
	}
	base := survey.Slugify(s.Title)
	taken, err := ss.slugsFrom(ctx, s.Tenant, base)
	if err != nil {
		return err
	}
	s.CreatedOn = ss.now().UTC()
	if s.State == survey.Published {
		s.PublishedOn = s.CreatedOn
	}
	for n := 1; n < 1000; n++ {
		slug := base
		if n > 1 {
			slug = base + "-" + strconv.Itoa(n)
		}
		if taken[slug] {
			continue
		}
		s.Slug = slug
		version := versionKey(ss.now())
		ids := make([]string, len(s.Questions))
		for i := range ids {
			ids[i] = fmt.Sprintf("%s_%03d", version, i)
		}
		s.RenameQuestions(ids)
		if err := ss.writeQuestions(ctx, s, version); err != nil {
			return err
		}
		_, err := ss.st.InsertEntity(ctx, SurveysTable, surveyEntity(s, version))
		if err == nil {
			s.Version, s.EditedOn = version, versionTime(version)
			// The survey is made; a failure here is repaired by its next
			// change or answers, which rank it from its Surveys row.
			_ = ss.ranks.Sync(ctx, s)
			return nil
		}
		// Another request took the slug first: its row does not name our
		// question version, so our questions are invisible; remove them.
		_ = ss.deleteQuestions(ctx, s.Tenant, slug, version)
		if !errors.Is(err, storage.ErrExists) {
			return mapErr(err, "The survey")
		}
	}
	return survey.Errorf(survey.ECONFLICT, "Too many surveys are called %q; choose another title.", s.Title)
}

// slugsFrom returns the tenant's slugs that start with base.
func (ss *SurveyStore) slugsFrom(ctx context.Context, tenant, base string) (map[string]bool, error) {
	taken := map[string]bool{}
	from := surveyRowKey(tenant, base)
	q := storage.Query{RowKeyFrom: from, RowKeyTo: from + "~"}
	for {
		page, err := ss.st.QueryPartition(ctx, SurveysTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "The survey list")
		}
		for _, e := range page.Entities {
			taken[e.String("SlugName")] = true
		}
		if page.Continuation == "" {
			return taken, nil
		}
		q.Continuation = page.Continuation
	}
}

// Get returns a survey with its questions in order.
func (ss *SurveyStore) Get(ctx context.Context, tenant, slug string) (*survey.Survey, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return nil, mapErr(err, "Survey")
	}
	s := surveyFromEntity(e)
	if s.Questions, err = ss.questions(ctx, tenant, slug, e.String("Version")); err != nil {
		return nil, err
	}
	return s, nil
}

// QuestionsEver returns every question a survey's versions have had, each
// ID once, as its newest version has it: for answers that name a question
// an edit dropped after they were given. A deleted survey has none (a
// survey made again under its name has new IDs).
func (ss *SurveyStore) QuestionsEver(ctx context.Context, tenant, slug string) ([]survey.Question, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	all, err := ss.questions(ctx, tenant, slug, "")
	if err != nil {
		return nil, err
	}
	// Row keys sort by version: a later row of an ID replaces an earlier.
	var out []survey.Question
	at := map[string]int{}
	for _, q := range all {
		if i, ok := at[q.ID]; ok {
			out[i] = q
			continue
		}
		at[q.ID] = len(out)
		out = append(out, q)
	}
	return out, nil
}

// questions reads question set version of a survey, in order ("": every
// version's).
func (ss *SurveyStore) questions(ctx context.Context, tenant, slug, version string) ([]survey.Question, error) {
	var out []survey.Question
	pk := questionsPartition(tenant, slug)
	q := storage.Query{}
	if version != "" {
		q = storage.Query{RowKeyFrom: version + "_", RowKeyTo: version + "`"}
	}
	for {
		page, err := ss.st.QueryPartition(ctx, QuestionsTable, pk, q)
		if err != nil {
			return nil, mapErr(err, "Survey questions")
		}
		for _, qe := range page.Entities {
			qs, err := questionFromEntity(qe)
			if err != nil {
				return nil, fmt.Errorf("store: question %s/%s: %w", pk, qe.RowKey, err)
			}
			out = append(out, qs)
		}
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// List returns the tenant's surveys, without their questions, in slug
// order. It reads one partition.
func (ss *SurveyStore) List(ctx context.Context, tenant string) ([]*survey.Survey, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	var out []*survey.Survey
	var q storage.Query
	for {
		page, err := ss.st.QueryPartition(ctx, SurveysTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "The survey list")
		}
		for _, e := range page.Entities {
			out = append(out, surveyFromEntity(e))
		}
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// Update saves an edit of a survey: its title, settings and questions.
// A draft's questions are replaced. A published or closed survey's edit is
// checked against its answers (survey.Revise): its questions keep their
// IDs, and a question or choice that has answers is hidden rather than
// deleted. Either way the questions are written as a new question-set
// version first and the survey's row then names it (If-Match), so that a
// crash leaves the old version or the new one, whole.
func (ss *SurveyStore) Update(ctx context.Context, s *survey.Survey) error {
	_, err := ss.revise(ctx, s, true)
	return err
}

// Revision is what Update would save of an edit of a published or closed
// survey, and the questions and choices it would hide (nil for a draft),
// saving nothing: for the designer's confirmation.
func (ss *SurveyStore) Revision(ctx context.Context, s *survey.Survey) (*survey.Revision, error) {
	return ss.revise(ctx, s, false)
}

func (ss *SurveyStore) revise(ctx context.Context, s *survey.Survey, save bool) (*survey.Revision, error) {
	e, err := ss.st.GetEntity(ctx, SurveysTable, s.Tenant, surveyRowKey(s.Tenant, s.Slug))
	if err != nil {
		return nil, mapErr(err, "Survey")
	}
	cur := surveyFromEntity(e)
	if cur.Trashed() {
		return nil, survey.Errorf(survey.ECONFLICT, "This survey is in the trash: restore it first.")
	}
	if s.Version != "" && s.Version != cur.Version {
		return nil, changedSince(cur)
	}
	s.State, s.CreatedOn, s.PublishedOn, s.TrashedOn = cur.State, cur.CreatedOn, cur.PublishedOn, cur.TrashedOn
	if s.Theme == nil {
		// An edit that does not say (the designer's, an API update
		// without one): the survey's theme stays (SetTheme changes it).
		s.Theme = cur.Theme
	}
	if s.Translations == nil && s.Language == "" {
		// An edit that does not say (the designer's): the translations
		// stay, following their questions (RenameQuestions, below).
		s.Language, s.Translations = cur.Language, cur.Translations
	}
	s.Normalize()
	var rev *survey.Revision
	if cur.State == survey.Draft {
		// No answers refer to a draft's questions: each save numbers them
		// afresh (below; until then their IDs name them in their rules).
		for i := range s.Questions {
			s.Questions[i].Hidden, s.Questions[i].HiddenChoices, s.Questions[i].HiddenRows = false, nil, nil
		}
	} else {
		old, err := ss.questions(ctx, s.Tenant, s.Slug, e.String("Version"))
		if err != nil {
			return nil, err
		}
		cur.Questions = old
		var counts *survey.SurveyAnswersSummary
		sum, _, err := NewSurveyAnswersSummaryStore(ss.st).Get(ctx, s.Tenant, s.Slug)
		switch {
		case err == nil:
			counts = &sum.SurveyAnswersSummary
		case survey.ErrorCode(err) != survey.ENOTFOUND:
			return nil, err
		}
		if rev, err = survey.Revise(cur, s, counts); err != nil {
			return nil, err
		}
		*s = *rev.Survey
	}
	// Set on the privacy page only (SetPrivacy): an edit keeps them.
	s.RetainDays, s.Receipts = cur.RetainDays, cur.Receipts
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !save {
		return rev, nil
	}
	version := versionKey(ss.now())
	if version <= e.String("Version") {
		// Clocks of two machines: a new version sorts after the old one.
		version = nextVersion(e.String("Version"))
	}
	ids := make([]string, len(s.Questions))
	for i, q := range s.Questions {
		ids[i] = fmt.Sprintf("%s_%03d", version, i)
		if _, kept := cur.Question(q.ID); kept && cur.State != survey.Draft {
			// A published survey's question keeps its ID: answers name it.
			ids[i] = q.ID
		}
	}
	// A draft's questions, and a new question of a published survey
	// (whose ID, until now, its rules name), are numbered afresh.
	s.RenameQuestions(ids)
	if err := ss.writeQuestions(ctx, s, version); err != nil {
		return nil, err
	}
	if _, err := ss.st.UpdateEntity(ctx, SurveysTable, surveyEntity(s, version), e.ETag); err != nil {
		_ = ss.deleteQuestions(ctx, s.Tenant, s.Slug, version)
		if isPrecondition(err) && s.Version != "" {
			// Saved by someone else between the read and this write.
			if e, err := ss.st.GetEntity(ctx, SurveysTable, s.Tenant, surveyRowKey(s.Tenant, s.Slug)); err == nil {
				return nil, changedSince(surveyFromEntity(e))
			}
		}
		return nil, mapErr(err, "Survey")
	}
	s.Version, s.EditedOn = version, versionTime(version)
	if cur.State == survey.Draft {
		// The old set is invisible now; a crash here leaves rows that the
		// next save, or Delete, removes.
		_ = ss.deleteOtherVersions(ctx, s.Tenant, s.Slug, version)
	}
	// A published survey's earlier versions are kept (until Delete): an
	// answer already on its way may name a question this edit dropped,
	// and the worker reads it from there (QuestionsEver).
	return rev, ss.ranks.Sync(ctx, s)
}

// changedSince is the error of an edit of a survey saved since the editor
// read it (cur is the survey as it is now): who saved it and when.
func changedSince(cur *survey.Survey) error {
	who := cur.EditedBy
	if who == "" {
		who = "someone else"
	}
	when := ""
	if !cur.EditedOn.IsZero() {
		when = " at " + cur.EditedOn.Format("15:04 MST")
	}
	return &survey.Error{Code: survey.ECONFLICT, Message: fmt.Sprintf("This survey was changed by %s%s since you opened it. Reload to see that version: your edits here were not saved.", who, when),
		Fields: map[string]string{"version": cur.Version, "editedBy": cur.EditedBy}}
}

// nextVersion is the version after v (19 digits).
func nextVersion(v string) string {
	n, _ := strconv.ParseInt(v, 10, 64)
	return fmt.Sprintf("%019d", n+1)
}

// SetChallenge switches the survey's proof-of-work challenge on or off, in
// any state: it changes what respondents' browsers do, not the questions.
func (ss *SurveyStore) SetChallenge(ctx context.Context, tenant, slug string, on bool) error {
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return mapErr(err, "Survey")
	}
	s := surveyFromEntity(e)
	if s.Challenge == on {
		return nil
	}
	s.Challenge = on
	_, err = ss.st.UpdateEntity(ctx, SurveysTable, surveyEntity(s, e.String("Version")), e.ETag)
	return mapErr(err, "Survey")
}

// SetPrivacy sets the survey's retention rule (days, survey.RetainDays:
// 0 follows the tenant's default, survey.KeepAnswers keeps its answers)
// and whether respondents get receipts, in any state but the trash.
func (ss *SurveyStore) SetPrivacy(ctx context.Context, tenant, slug string, days int, receipts bool) error {
	if days != survey.KeepAnswers {
		if err := survey.ValidRetainDays(days); err != nil {
			return &survey.Error{Code: survey.EINVALID, Message: "Nothing was saved.", Fields: map[string]string{"retainDays": survey.ErrorMessage(err)}}
		}
	}
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return mapErr(err, "Survey")
	}
	s := surveyFromEntity(e)
	if s.Trashed() {
		return survey.Errorf(survey.ECONFLICT, "This survey is in the trash: restore it first.")
	}
	if s.RetainDays == days && s.Receipts == receipts {
		return nil
	}
	s.RetainDays, s.Receipts = days, receipts
	_, err = ss.st.UpdateEntity(ctx, SurveysTable, surveyEntity(s, e.String("Version")), e.ETag)
	return mapErr(err, "Survey")
}

// SetTranslations sets the language of the survey's own texts and its
// translations (survey.Translation), in any state: they change what
// respondents read, not the questions or their answers. They are
// normalized and checked as Update does (EINVALID with the problems by
// field).
func (ss *SurveyStore) SetTranslations(ctx context.Context, tenant, slug, language string, translations map[string]survey.Translation) error {
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return mapErr(err, "Survey")
	}
	s := surveyFromEntity(e)
	if s.Trashed() {
		return survey.Errorf(survey.ECONFLICT, "This survey is in the trash: restore it first.")
	}
	if s.Questions, err = ss.questions(ctx, tenant, slug, e.String("Version")); err != nil {
		return err
	}
	if language != "" && !survey.ValidLanguage(language) {
		return &survey.Error{Code: survey.EINVALID, Message: "Unknown language.", Fields: map[string]string{"language": "Choose one of the languages " + strings.Join(survey.Languages(), ", ") + "."}}
	}
	s.Language, s.Translations = language, translations
	s.Normalize()
	if err := s.Validate(); err != nil {
		return err
	}
	_, err = ss.st.UpdateEntity(ctx, SurveysTable, surveyEntity(s, e.String("Version")), e.ETag)
	return mapErr(err, "Survey")
}

// SetTheme gives the survey its own theme (nil: its tenant's). A theme
// with problems is refused (EINVALID, fields "theme.<field>"), and
// nothing is changed. A concurrent change of the row fails the write
// (ECONFLICT) rather than being lost.
func (ss *SurveyStore) SetTheme(ctx context.Context, tenant, slug string, t *theme.Theme) error {
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return mapErr(err, "Survey")
	}
	s := surveyFromEntity(e)
	if s.Trashed() {
		return survey.Errorf(survey.ECONFLICT, "This survey is in the trash: restore it first.")
	}
	if t != nil {
		t.Normalize()
		if err := survey.CheckTheme(t, tenant); err != nil {
			return err
		}
		raw, _ := json.Marshal(t)
		e.Properties["Theme"] = string(raw)
	} else {
		delete(e.Properties, "Theme")
	}
	_, err = ss.st.UpdateEntity(ctx, SurveysTable, e, e.ETag)
	return mapErr(err, "Survey")
}

// SetState moves a survey to state: publish a draft, close a published
// survey, reopen a closed one.
func (ss *SurveyStore) SetState(ctx context.Context, tenant, slug string, state survey.State) (*survey.Survey, error) {
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return nil, mapErr(err, "Survey")
	}
	s := surveyFromEntity(e)
	switch {
	case s.Trashed():
		return nil, survey.Errorf(survey.ECONFLICT, "This survey is in the trash: restore it first.")
	case s.State == state:
		// Done before, perhaps by a request that died before its ranks
		// were moved: move them now.
		return s, ss.ranks.Sync(ctx, s)
	case state == survey.Published && (s.State == survey.Draft || s.State == survey.Closed):
		if s.PublishedOn.IsZero() {
			s.PublishedOn = ss.now().UTC()
		}
	case state == survey.Closed && s.State == survey.Published:
	default:
		return nil, survey.Errorf(survey.ECONFLICT, "A %s survey cannot become %s.", s.State, state)
	}
	s.State = state
	if _, err := ss.st.UpdateEntity(ctx, SurveysTable, surveyEntity(s, e.String("Version")), e.ETag); err != nil {
		return nil, mapErr(err, "Survey")
	}
	return s, ss.ranks.Sync(ctx, s)
}

// Trash moves a survey to the trash (a draft too): it takes no answers and
// leaves the public lists; Restore brings it back as it was. Answers already
// on the queue are still counted.
func (ss *SurveyStore) Trash(ctx context.Context, tenant, slug string) error {
	return ss.setTrashed(ctx, tenant, slug, ss.now().UTC())
}

// Restore takes a survey out of the trash.
func (ss *SurveyStore) Restore(ctx context.Context, tenant, slug string) error {
	return ss.setTrashed(ctx, tenant, slug, time.Time{})
}

func (ss *SurveyStore) setTrashed(ctx context.Context, tenant, slug string, on time.Time) error {
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return mapErr(err, "Survey")
	}
	s := surveyFromEntity(e)
	if s.Trashed() != on.IsZero() {
		// Done before, perhaps by a request that died before its ranks
		// were moved: move them now.
		return ss.ranks.Sync(ctx, s)
	}
	s.TrashedOn = on
	if _, err := ss.st.UpdateEntity(ctx, SurveysTable, surveyEntity(s, e.String("Version")), e.ETag); err != nil {
		return mapErr(err, "Survey")
	}
	return ss.ranks.Sync(ctx, s)
}

// Delete removes a survey with its ranks, questions, answers, answer list
// and summary. It closes the survey first and removes its row last, so that a
// crash part-way leaves a survey that Delete finishes when called again.
func (ss *SurveyStore) Delete(ctx context.Context, tenant, slug string) error {
	e, err := ss.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if err != nil {
		return mapErr(err, "Survey")
	}
	if s := surveyFromEntity(e); s.State != survey.Closed && s.State != survey.Draft {
		s.State = survey.Closed
		etag, err := ss.st.UpdateEntity(ctx, SurveysTable, surveyEntity(s, e.String("Version")), e.ETag)
		if err != nil {
			return mapErr(err, "Survey")
		}
		e.ETag = etag
	}
	if err := ss.ranks.Remove(ctx, tenant, slug); err != nil {
		return err
	}
	if err := ss.deleteQuestions(ctx, tenant, slug, ""); err != nil {
		return err
	}
	if err := ss.answers.deleteAll(ctx, tenant, slug); err != nil {
		return err
	}
	if err := NewUploadStore(ss.st).deleteAll(ctx, tenant, slug); err != nil {
		return err
	}
	if err := ss.st.DeleteBlob(ctx, SummariesContainer, summaryBlob(tenant, slug), ""); err != nil && !isNotFound(err) {
		return mapErr(err, "Survey summary")
	}
	if err := NewSurveyTransferStore(ss.st).deleteStatus(ctx, tenant, slug); err != nil {
		return err
	}
	if err := NewPersonalLinkStore(ss.st).deleteAll(ctx, tenant, slug); err != nil {
		return err
	}
	if err := NewResumeStore(ss.st).DeleteAll(ctx, tenant, slug); err != nil {
		return err
	}
	if err := NewPartialStore(ss.st).DeleteAll(ctx, tenant, slug); err != nil {
		return err
	}
	if err := NewQuotaStore(ss.st).Delete(ctx, tenant, slug); err != nil {
		return err
	}
	if err := NewSavedSegmentStore(ss.st).deleteAll(ctx, tenant, slug); err != nil {
		return err
	}
	if err := ss.st.DeleteEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug), e.ETag); err != nil {
		return mapErr(err, "Survey")
	}
	return nil
}

// writeQuestions inserts s's questions as question set version, in one
// transaction (RowKey version_position). A question without an ID is given
// its row key; one with an ID (a question of a published survey, kept
// from an earlier version) keeps it, in the row's ID property.
func (ss *SurveyStore) writeQuestions(ctx context.Context, s *survey.Survey, version string) error {
	pk := questionsPartition(s.Tenant, s.Slug)
	ops := make([]storage.TableOp, len(s.Questions))
	for i := range s.Questions {
		q := &s.Questions[i]
		rk := fmt.Sprintf("%s_%03d", version, i)
		if q.ID == "" {
			q.ID = rk
		}
		props := questionProperties(*q)
		if q.ID != rk {
			props["ID"] = q.ID
		}
		ops[i] = storage.TableOp{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props}}
	}
	if err := ss.st.Transact(ctx, QuestionsTable, pk, ops); err != nil {
		return mapErr(err, "Survey questions")
	}
	return nil
}

// deleteQuestions deletes question set version, or every question of the
// survey when version is "".
func (ss *SurveyStore) deleteQuestions(ctx context.Context, tenant, slug, version string) error {
	pk := questionsPartition(tenant, slug)
	q := storage.Query{}
	if version != "" {
		q = storage.Query{RowKeyFrom: version + "_", RowKeyTo: version + "`"}
	}
	for {
		// Each pass deletes what it read, so start again from the top
		// rather than from a continuation.
		page, err := ss.st.QueryPartition(ctx, QuestionsTable, pk, storage.Query{RowKeyFrom: q.RowKeyFrom, RowKeyTo: q.RowKeyTo, Top: storage.MaxTransactionOps})
		if err != nil {
			return mapErr(err, "Survey questions")
		}
		if len(page.Entities) == 0 {
			return nil
		}
		ops := make([]storage.TableOp, len(page.Entities))
		for i, e := range page.Entities {
			ops[i] = storage.TableOp{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: pk, RowKey: e.RowKey}, IfMatch: storage.ETagAny}
		}
		if err := ss.st.Transact(ctx, QuestionsTable, pk, ops); err != nil {
			return mapErr(err, "Survey questions")
		}
	}
}

// deleteOtherVersions deletes every question row of the survey but those of
// version: the versions an edit replaced, and any left by a save that died
// before its survey row named it.
func (ss *SurveyStore) deleteOtherVersions(ctx context.Context, tenant, slug, version string) error {
	pk := questionsPartition(tenant, slug)
	var stale []storage.TableOp
	q := storage.Query{}
	for {
		page, err := ss.st.QueryPartition(ctx, QuestionsTable, pk, q)
		if err != nil {
			return mapErr(err, "Survey questions")
		}
		for _, e := range page.Entities {
			if !strings.HasPrefix(e.RowKey, version+"_") {
				stale = append(stale, storage.TableOp{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: pk, RowKey: e.RowKey}, IfMatch: storage.ETagAny})
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	for len(stale) > 0 {
		n := min(len(stale), storage.MaxTransactionOps)
		if err := ss.st.Transact(ctx, QuestionsTable, pk, stale[:n]); err != nil {
			return mapErr(err, "Survey questions")
		}
		stale = stale[n:]
	}
	return nil
}

// versionKey is a question-set version: a 19-digit tick count.
func versionKey(now time.Time) string { return fmt.Sprintf("%019d", ticks(now)) }

// versionTime is when version v was made (the zero time for none).
func versionTime(v string) time.Time {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= ticksEpoch {
		return time.Time{}
	}
	return time.Unix(0, (n-ticksEpoch)*100).UTC()
}

func surveyEntity(s *survey.Survey, version string) storage.Entity {
	props := map[string]any{
		"SlugName":  s.Slug,
		"Title":     s.Title,
		"State":     string(s.State),
		"CreatedOn": s.CreatedOn,
		"Listed":    s.Listed,
		"Version":   version,
		"Questions": int64(len(s.Questions)),
	}
	if s.EditedBy != "" {
		props["EditedBy"] = s.EditedBy
	}
	if !s.PublishedOn.IsZero() {
		props["PublishedOn"] = s.PublishedOn
	}
	if !s.CloseOn.IsZero() {
		props["CloseOn"] = s.CloseOn
	}
	if s.Challenge {
		// Only when on: rows written before it read as off.
		props["Challenge"] = true
	}
	if s.PublicResults {
		props["PublicResults"] = true
	}
	if len(s.EmbedOrigins) > 0 {
		props["EmbedOrigins"] = strings.Join(s.EmbedOrigins, " ")
	}
	if s.OnePer != survey.OnePerNone {
		props["OnePer"] = string(s.OnePer)
	}
	if s.MayChange {
		props["MayChange"] = true
	}
	if s.Description != "" {
		props["Description"] = s.Description
	}
	if s.ThankYou != "" {
		props["ThankYou"] = s.ThankYou
	}
	if s.Trashed() {
		props["TrashedOn"] = s.TrashedOn
	}
	if len(s.Sections) > 0 {
		// One JSON property, split as long ones are (rows written before
		// sections have none: one page). It changes with the row that
		// names the question set, so sections and questions agree.
		raw, _ := json.Marshal(sectionsOf(s.Sections))
		putChunked(props, "Sections", []rune(string(raw)))
	}
	if len(s.HiddenFields) > 0 {
		// Rows written before hidden fields have none.
		props["HiddenFields"] = strings.Join(s.HiddenFields, " ")
	}
	if s.Prefill {
		props["Prefill"] = true
	}
	if s.SendCopy {
		// Rows written before the copies have none: off.
		props["SendCopy"] = true
	}
	if s.Theme != nil {
		// theme.Theme's JSON; rows written before themes have none (the
		// tenant's look).
		raw, _ := json.Marshal(s.Theme)
		props["Theme"] = string(raw)
	}
	if sc := s.Scoring; len(sc.Variables)+len(sc.Outcomes) > 0 || sc.ShowCorrect || sc.Redirect != "" {
		// One JSON property, split as long ones are (rows written before
		// scoring have none).
		raw, _ := json.Marshal(sc)
		putChunked(props, "Scoring", []rune(string(raw)))
	}
	if s.KeepPartial > 0 {
		// Seconds; rows written before partial answers have none.
		props["KeepPartial"] = int64(s.KeepPartial / time.Second)
	}
	if len(s.Quotas) > 0 {
		// One JSON property (survey.Quota's JSON), split as long ones
		// are; rows written before quotas have none.
		raw, _ := json.Marshal(s.Quotas)
		putChunked(props, "Quotas", []rune(string(raw)))
	}
	if s.Language != "" {
		props["Language"] = s.Language
	}
	if s.RetainDays != 0 {
		// Rows written before retention rules have none: the tenant's.
		props["RetainDays"] = int64(s.RetainDays)
	}
	if s.Receipts {
		props["Receipts"] = true
	}
	if len(s.Translations) > 0 {
		// One JSON property, split as long ones are (survey.Translation's
		// JSON; rows written before translations have none).
		raw, _ := json.Marshal(s.Translations)
		putChunked(props, "Translations", []rune(string(raw)))
	}
	return storage.Entity{PartitionKey: s.Tenant, RowKey: surveyRowKey(s.Tenant, s.Slug), Properties: props}
}

func surveyFromEntity(e storage.Entity) *survey.Survey {
	s := &survey.Survey{
		Tenant:        e.PartitionKey,
		Slug:          e.String("SlugName"),
		Title:         e.String("Title"),
		State:         survey.State(e.String("State")),
		CreatedOn:     e.Time("CreatedOn"),
		PublishedOn:   e.Time("PublishedOn"),
		Listed:        e.Bool("Listed"),
		CloseOn:       e.Time("CloseOn"),
		Challenge:     e.Bool("Challenge"),
		OnePer:        survey.OnePer(e.String("OnePer")),
		MayChange:     e.Bool("MayChange"),
		EmbedOrigins:  strings.Fields(e.String("EmbedOrigins")),
		PublicResults: e.Bool("PublicResults"),
		HiddenFields:  strings.Fields(e.String("HiddenFields")),
		Prefill:       e.Bool("Prefill"),
		SendCopy:      e.Bool("SendCopy"),
		KeepPartial:   time.Duration(e.Int("KeepPartial")) * time.Second,
		RetainDays:    int(e.Int("RetainDays")),
		Receipts:      e.Bool("Receipts"),
		TrashedOn:     e.Time("TrashedOn"),
		Description:   e.String("Description"),
		ThankYou:      e.String("ThankYou"),
		Language:      e.String("Language"),
		Version:       e.String("Version"),
		EditedBy:      e.String("EditedBy"),
		EditedOn:      versionTime(e.String("Version")),
	}
	if raw := e.String("Theme"); raw != "" {
		// A row this code wrote; one that does not read has none.
		var t theme.Theme
		if json.Unmarshal([]byte(raw), &t) == nil {
			s.Theme = &t
		}
	}
	if raw := getChunked(e, "Translations"); raw != "" {
		// A row this code wrote; one that does not read has none.
		_ = json.Unmarshal([]byte(raw), &s.Translations)
	}
	if raw := getChunked(e, "Scoring"); raw != "" {
		var sc survey.Scoring
		// A row this code wrote; one that does not read has none.
		if json.Unmarshal([]byte(raw), &sc) == nil {
			s.Scoring = sc
		}
	}
	if raw := getChunked(e, "Quotas"); raw != "" {
		// A row this code wrote; one that does not read has none.
		_ = json.Unmarshal([]byte(raw), &s.Quotas)
	}
	if raw := getChunked(e, "Sections"); raw != "" {
		var stored []storedSection
		// A row this code wrote; one that does not read is one page.
		if json.Unmarshal([]byte(raw), &stored) == nil {
			for _, sc := range stored {
				s.Sections = append(s.Sections, survey.Section{ID: sc.ID, Title: sc.Title, Description: sc.Description, Shuffle: sc.Shuffle, ShowIf: sc.ShowIf, Jumps: sc.Jumps})
			}
		}
	}
	return s
}

// storedSection is a section as the Surveys row keeps it (JSON).
type storedSection struct {
	ID          string `json:"id"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Shuffle     bool   `json:"shuffle,omitempty"`
	// ShowIf and Jumps: the section's logic (survey.Condition's JSON).
	ShowIf *survey.Condition `json:"showIf,omitempty"`
	Jumps  []survey.Jump     `json:"jumps,omitempty"`
}

func sectionsOf(sections []survey.Section) []storedSection {
	out := make([]storedSection, len(sections))
	for i, sc := range sections {
		out[i] = storedSection{ID: sc.ID, Title: sc.Title, Description: sc.Description, Shuffle: sc.Shuffle, ShowIf: sc.ShowIf, Jumps: sc.Jumps}
	}
	return out
}

// questionSettings are the settings of a question past its text, type and
// choices, stored as one JSON property ("Settings"; absent on questions
// written before them, which read as required with no settings).
type questionSettings struct {
	Help           string   `json:"help,omitempty"`
	Optional       bool     `json:"optional,omitempty"`
	Rows           []string `json:"rows,omitempty"`
	Other          bool     `json:"other,omitempty"`
	Shuffle        bool     `json:"shuffle,omitempty"`
	Min            string   `json:"min,omitempty"`
	Max            string   `json:"max,omitempty"`
	Integer        bool     `json:"integer,omitempty"`
	Format         string   `json:"format,omitempty"`
	Scale          int      `json:"scale,omitempty"`
	LowLabel       string   `json:"lowLabel,omitempty"`
	HighLabel      string   `json:"highLabel,omitempty"`
	Statement      string   `json:"statement,omitempty"`
	Step           string   `json:"step,omitempty"`
	Pattern        string   `json:"pattern,omitempty"`
	PatternMessage string   `json:"patternMessage,omitempty"`
	// Parts: a contact question's parts, part → "optional"/"required".
	Parts map[string]string `json:"parts,omitempty"`
	// Pictures and Multiple: a picture choice's pictures (label, alt
	// text, image name) and whether several may be chosen.
	Pictures []survey.Picture `json:"pictures,omitempty"`
	Multiple bool             `json:"multiple,omitempty"`
	// Hidden, HiddenChoices and HiddenRows: what an edit of a published
	// survey took away from respondents but kept for its answers.
	Hidden        bool     `json:"hidden,omitempty"`
	HiddenChoices []string `json:"hiddenChoices,omitempty"`
	HiddenRows    []string `json:"hiddenRows,omitempty"`
	// Section is the ID of the question's section (section.go).
	Section string `json:"section,omitempty"`
	// InResults: the question is on the public results page.
	InResults bool `json:"inResults,omitempty"`
	// ShowIf is the question's condition (logic).
	ShowIf *survey.Condition `json:"showIf,omitempty"`
	// Points, Correct and Feedback: the question's scoring (scoring.go).
	Points   map[string]float64 `json:"points,omitempty"`
	Correct  []string           `json:"correct,omitempty"`
	Feedback string             `json:"feedback,omitempty"`
}

// chunkRunes bounds a string property: Azure Tables holds at most 64 KiB
// (32 Ki UTF-16 units) in one, so long JSON is split over numbered
// properties (PossibleAnswers, PossibleAnswers1, …) of at most this many
// characters.
const chunkRunes = 15000

func questionProperties(q survey.Question) map[string]any {
	props := map[string]any{"Text": q.Text, "Type": string(q.Type)}
	if len(q.PossibleAnswers) > 0 {
		raw, _ := json.Marshal(q.PossibleAnswers)
		putChunked(props, "PossibleAnswers", []rune(string(raw)))
	}
	set := questionSettings{Help: q.Help, Optional: q.Optional, Rows: q.Rows, Other: q.Other, Shuffle: q.Shuffle,
		Min: q.Min, Max: q.Max, Integer: q.Integer, Format: q.Format, Scale: q.Scale, LowLabel: q.LowLabel, HighLabel: q.HighLabel, Statement: q.Statement, Step: q.Step, Parts: q.Parts, Pictures: q.Pictures, Multiple: q.Multiple, Pattern: q.Pattern, PatternMessage: q.PatternMessage,
		Hidden: q.Hidden, HiddenChoices: q.HiddenChoices, HiddenRows: q.HiddenRows, Section: q.Section, InResults: q.InResults, ShowIf: q.ShowIf,
		Points: q.Points, Correct: q.Correct, Feedback: q.Feedback}
	if raw, _ := json.Marshal(set); string(raw) != "{}" {
		putChunked(props, "Settings", []rune(string(raw)))
	}
	return props
}

func putChunked(props map[string]any, name string, r []rune) {
	for i := 0; len(r) > 0; i++ {
		n := min(len(r), chunkRunes)
		key := name
		if i > 0 {
			key = fmt.Sprintf("%s%d", name, i)
		}
		props[key], r = string(r[:n]), r[n:]
	}
}

func getChunked(e storage.Entity, name string) string {
	s := e.String(name)
	for i := 1; ; i++ {
		more := e.String(fmt.Sprintf("%s%d", name, i))
		if more == "" {
			return s
		}
		s += more
	}
}

func questionFromEntity(e storage.Entity) (survey.Question, error) {
	// A question's ID is its row key, unless an edit of its published
	// survey kept an earlier one (the ID property).
	q := survey.Question{ID: e.RowKey, Text: e.String("Text"), Type: survey.QuestionType(e.String("Type"))}
	if id := e.String("ID"); id != "" {
		q.ID = id
	}
	if raw := getChunked(e, "PossibleAnswers"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &q.PossibleAnswers); err != nil {
			return q, err
		}
	}
	if raw := getChunked(e, "Settings"); raw != "" {
		var set questionSettings
		if err := json.Unmarshal([]byte(raw), &set); err != nil {
			return q, err
		}
		q.Help, q.Optional, q.Rows, q.Other, q.Shuffle = set.Help, set.Optional, set.Rows, set.Other, set.Shuffle
		q.Min, q.Max, q.Integer, q.Format, q.Scale, q.LowLabel, q.HighLabel = set.Min, set.Max, set.Integer, set.Format, set.Scale, set.LowLabel, set.HighLabel
		q.Statement, q.Step, q.Parts, q.Pattern, q.PatternMessage = set.Statement, set.Step, set.Parts, set.Pattern, set.PatternMessage
		q.Pictures, q.Multiple = set.Pictures, set.Multiple
		q.Hidden, q.HiddenChoices, q.HiddenRows = set.Hidden, set.HiddenChoices, set.HiddenRows
		q.Section, q.InResults, q.ShowIf = set.Section, set.InResults, set.ShowIf
		q.Points, q.Correct, q.Feedback = set.Points, set.Correct, set.Feedback
	}
	return q, nil
}
