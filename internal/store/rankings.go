package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Ranked lists, as Bid Now kept them: Azure tables have no TOP or ORDER BY,
// so a ranked list is a table whose keys order it, and the top N are its
// first N rows.
//
// RanksTable holds, per tenant (PartitionKey tenant):
//   - s_<slug>: the survey's pointer row: its title, state, listing, dates,
//     answers and views, and the keys of its rows in PublicRanksTable;
//   - a_<inverted answers>_<slug>: the tenant's most-answered list;
//   - v_<inverted views>_<slug>: the tenant's most-viewed list.
//
// All three share the tenant's partition, so a change of count moves the
// list rows and updates the pointer in one entity-group transaction: the
// tenant's lists are exact whatever crashes.
//
// PublicRanksTable holds the public home page's lists across tenants; as in
// Bid Now's MostViewedItems, the rank is the PartitionKey and the RowKey is
// tenant_slug:
//   - a<inverted answers>: most answered;
//   - n<inverted publication ticks>: newest;
//   - c<close ticks>: closing soon (read from now on).
//
// A move there spans two partitions and cannot be atomic. The pointer row
// is the record of intent: a writer first writes the pointer (with the
// tenant's rows) naming the new home keys (Home) and the keys to remove
// (Stale), then inserts the new rows, then deletes the stale ones. So at
// every instant a listed survey has its old row or its new one: never none.
// A crash after the pointer write leaves either the old row alone (the
// survey is shown with its old count) or both rows; readers keep one row
// per survey, the one of the highest Seq (every pointer write increments
// it, and rows carry the Seq of the write that made them). The next pass
// on the survey, by any process, sees a pointer it did not complete itself
// (this store remembers the Seq of the writes it completed), and first
// repairs: it writes every Home row and deletes every Stale row. The
// answers worker moves a survey before it deletes the batch's messages, so
// a crash mid-move leaves the messages to be delivered again, and that
// delivery's pass repairs the survey: a duplicate or stale row lasts no
// longer than one worker pass, and readers never show it.
//
// Two live writers of one survey: the first, stalled between its pointer
// write and its row insert for the whole of the second's pass, may insert
// its row after the second deleted it. So a writer that inserted rows reads
// the pointer back, and deletes those a later write no longer names (a row
// of lower Seq, which readers would not show meanwhile).
const (
	RanksTable       = "SurveyRanks"
	PublicRanksTable = "PublicRanks"
)

const (
	pointerPrefix  = "s_"
	answersPrefix2 = "a_"
	viewsPrefix    = "v_"

	homeAnswered = "a"
	homeNewest   = "n"
	homeClosing  = "c"
)

// inverted is a count as a key that sorts the largest first.
func inverted(n int64) string { return fmt.Sprintf("%019d", math.MaxInt64-max(n, 0)) }

// rankState is a survey's pointer row.
type rankState struct {
	Tenant, Slug, Title  string
	State                survey.State
	Listed               bool
	PublishedOn, CloseOn time.Time
	Answers, Views       int64
	// Deleted is how many answers the summary whose count Answers is had
	// deleted: with Answers, it orders the counts a summary goes through
	// (see newerCount).
	Deleted int64
	// Seq counts the pointer's writes; rows in PublicRanksTable carry the
	// Seq of the write that made them.
	Seq int64
	// Home holds the PublicRanksTable keys the survey should have; Stale
	// those it may still have and should not.
	Home, Stale []string
	// ViewMsgs holds the view messages applied lately, with the time, so
	// that a message delivered again is not counted twice.
	ViewMsgs map[string]int64
	// Funnel counts the respondents who left each page of a multi-page
	// survey for the next (store.SurveyViews.Pages).
	Funnel []int64

	etag string // "" for a pointer not yet stored
}

func (p *rankState) key() string { return p.Tenant + "/" + p.Slug }

// homeKeys are the PublicRanksTable partitions a survey belongs in: a
// listed, published survey is on all three lists (closing soon only with a
// close date).
func (p *rankState) homeKeys() []string {
	if p.State != survey.Published || !p.Listed {
		return nil
	}
	keys := []string{homeAnswered + inverted(p.Answers), homeNewest + inverted(ticks(p.PublishedOn))}
	if !p.CloseOn.IsZero() {
		keys = append(keys, homeClosing+fmt.Sprintf("%019d", ticks(p.CloseOn)))
	}
	return keys
}

// answersKey and viewsKey are the tenant list rows; drafts are on neither.
func (p *rankState) answersKey() string {
	if p.State == survey.Draft || p.State == "" {
		return ""
	}
	return answersPrefix2 + inverted(p.Answers) + "_" + p.Slug
}

func (p *rankState) viewsKey() string {
	if p.State == survey.Draft || p.State == "" {
		return ""
	}
	return viewsPrefix + inverted(p.Views) + "_" + p.Slug
}

func (p *rankState) entity() storage.Entity {
	props := map[string]any{
		"Slug": p.Slug, "Title": p.Title, "State": string(p.State), "Listed": p.Listed,
		"Answers": p.Answers, "Views": p.Views, "Seq": p.Seq, "Deleted": p.Deleted,
		"Home": strings.Join(p.Home, " "), "Stale": strings.Join(p.Stale, " "),
	}
	if !p.PublishedOn.IsZero() {
		props["PublishedOn"] = p.PublishedOn
	}
	if !p.CloseOn.IsZero() {
		props["CloseOn"] = p.CloseOn
	}
	if len(p.ViewMsgs) > 0 {
		raw, _ := json.Marshal(p.ViewMsgs)
		props["ViewMsgs"] = string(raw)
	}
	if len(p.Funnel) > 0 {
		raw, _ := json.Marshal(p.Funnel)
		props["Funnel"] = string(raw)
	}
	return storage.Entity{PartitionKey: p.Tenant, RowKey: pointerPrefix + p.Slug, Properties: props}
}

func rankStateFrom(e storage.Entity) *rankState {
	p := &rankState{
		Tenant: e.PartitionKey, Slug: e.String("Slug"), Title: e.String("Title"),
		State: survey.State(e.String("State")), Listed: e.Bool("Listed"),
		PublishedOn: e.Time("PublishedOn"), CloseOn: e.Time("CloseOn"),
		Answers: e.Int("Answers"), Views: e.Int("Views"), Seq: e.Int("Seq"), Deleted: e.Int("Deleted"),
		Home: strings.Fields(e.String("Home")), Stale: strings.Fields(e.String("Stale")),
		etag: e.ETag,
	}
	if raw := e.String("ViewMsgs"); raw != "" {
		_ = json.Unmarshal([]byte(raw), &p.ViewMsgs)
	}
	if raw := e.String("Funnel"); raw != "" {
		_ = json.Unmarshal([]byte(raw), &p.Funnel)
	}
	return p
}

// listRow is a row of a tenant's list.
func (p *rankState) listRow(key string, count int64) storage.Entity {
	return storage.Entity{PartitionKey: p.Tenant, RowKey: key, Properties: map[string]any{
		"Slug": p.Slug, "Title": p.Title, "State": string(p.State), "Count": count,
	}}
}

// homeRow is the survey's row in PublicRanksTable partition pk.
func (p *rankState) homeRow(pk string) storage.Entity {
	props := map[string]any{
		"Tenant": p.Tenant, "Slug": p.Slug, "Title": p.Title, "Answers": p.Answers,
		"PublishedOn": p.PublishedOn, "Seq": p.Seq,
	}
	if !p.CloseOn.IsZero() {
		props["CloseOn"] = p.CloseOn
	}
	return storage.Entity{PartitionKey: pk, RowKey: surveyRowKey(p.Tenant, p.Slug), Properties: props}
}

// RankingStore keeps the ranked lists. Every method is safe to call again
// after a failure, and from several processes at once.
type RankingStore struct {
	st  storage.Storage
	now func() time.Time

	mu sync.Mutex
	// done holds, by survey, the Seq of the last pointer write this store
	// made and completed (its home rows written and deleted): a pointer
	// read back at that Seq needs no repair.
	done map[string]int64
	// kept holds, by survey, the pointer as this store's last completed
	// move read it back (with its ETag), so that the next move of the
	// survey (the answers worker's next batch) need not read it first: a
	// move writes the pointer If-Match its ETag, so a pointer another
	// writer changed since fails the write, and the move reads it again.
	// A move takes the survey's entry out and puts it back only once it
	// has completed: a move that failed part-way reads the pointer again
	// and repairs.
	kept map[string]*rankState
}

// maxKeptPointers bounds RankingStore.kept.
const maxKeptPointers = 10_000

// NewRankingStore returns a RankingStore over st.
func NewRankingStore(st storage.Storage) *RankingStore {
	return &RankingStore{st: st, now: time.Now, done: map[string]int64{}, kept: map[string]*rankState{}}
}

// take returns the pointer kept for a survey, and forgets it.
func (rs *RankingStore) take(tenant, slug string) *rankState {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	key := tenant + "/" + slug
	p := rs.kept[key]
	delete(rs.kept, key)
	return p
}

// keep remembers a pointer as read back after a completed move.
func (rs *RankingStore) keep(p *rankState) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.kept) >= maxKeptPointers {
		rs.kept = map[string]*rankState{}
	}
	rs.kept[p.key()] = p
}

// errNoSurvey: the survey is gone; there is nothing to rank.
var errNoSurvey = errors.New("no such survey")

// load reads a survey's pointer row, or makes one from its Surveys row (and
// its summary's count, for a survey answered before ranks were kept). With
// openOnly, a survey that is not published gets no new pointer: a late
// answer or view must not bring back the ranks of a survey being deleted.
func (rs *RankingStore) load(ctx context.Context, tenant, slug string, openOnly bool) (*rankState, error) {
	e, err := rs.st.GetEntity(ctx, RanksTable, tenant, pointerPrefix+slug)
	if err == nil {
		return rankStateFrom(e), nil
	}
	if !errors.Is(err, storage.ErrNotFound) {
		return nil, mapErr(err, "Survey ranks")
	}
	se, err := rs.st.GetEntity(ctx, SurveysTable, tenant, surveyRowKey(tenant, slug))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, errNoSurvey
	}
	if err != nil {
		return nil, mapErr(err, "Survey")
	}
	p := &rankState{Tenant: tenant, Slug: slug}
	setSurvey(p, surveyFromEntity(se))
	if openOnly && p.State != survey.Published {
		return nil, errNoSurvey
	}
	if p.State != survey.Draft {
		sum, _, err := NewSurveyAnswersSummaryStore(rs.st).Get(ctx, tenant, slug)
		switch {
		case err == nil:
			p.Answers, p.Deleted = sum.TotalAnswers, sum.DeletedCount()
		case survey.ErrorCode(err) != survey.ENOTFOUND:
			return nil, err
		}
	}
	return p, nil
}

func setSurvey(p *rankState, s *survey.Survey) {
	p.Title, p.State, p.Listed, p.PublishedOn, p.CloseOn = s.Title, s.State, s.Listed && !s.Trashed(), s.PublishedOn, s.CloseOn
}

// update applies change to a survey's pointer and moves its rows: the
// tenant's in one transaction with the pointer, then the home page's. It
// retries when another writer was first. change reports whether it changed
// anything.
func (rs *RankingStore) update(ctx context.Context, tenant, slug string, openOnly bool, change func(p *rankState) bool) error {
	lenient := false
	kept := rs.take(tenant, slug)
	for attempt := 0; attempt < 20; attempt++ {
		p, err := kept, error(nil)
		if kept == nil {
			p, err = rs.load(ctx, tenant, slug, openOnly)
		}
		kept = nil // a retry reads the pointer
		if errors.Is(err, errNoSurvey) {
			return nil
		}
		if err != nil {
			return err
		}
		m, changed := rs.prepare(p, change)
		if !changed {
			return rs.settle(ctx, m)
		}
		m.next()
		ops, later := rs.tenantOps(&m.old, p, lenient)
		if err := rs.st.Transact(ctx, RanksTable, tenant, ops); err != nil {
			switch {
			case errors.Is(err, storage.ErrPrecondition), errors.Is(err, storage.ErrExists):
				continue // another writer was first
			case errors.Is(err, storage.ErrNotFound):
				// The pointer went (a delete) or a list row was missing:
				// try again, deleting list rows one by one.
				lenient = true
				continue
			}
			return mapErr(err, "Survey ranks")
		}
		if err := rs.deleteListRows(ctx, tenant, later); err != nil {
			return err
		}
		return rs.moveHome(ctx, m)
	}
	return fmt.Errorf("store: ranks of %s/%s: too many conflicting writers", tenant, slug)
}

// rankMove is one pass of update over a survey: its pointer as read (old)
// and as changed (p), and the home keys p belongs in.
type rankMove struct {
	old  rankState
	p    *rankState
	home []string
	// clean: this store made and completed the pointer's last write, so
	// its home rows need no repair.
	clean bool
}

// prepare applies change to p, the pointer as read or kept, and reports
// whether the pointer must be written: change said so, or the survey's
// home keys, title or state differ from the pointer's.
func (rs *RankingStore) prepare(p *rankState, change func(p *rankState) bool) (*rankMove, bool) {
	rs.mu.Lock()
	clean := p.etag != "" && rs.done[p.key()] == p.Seq
	rs.mu.Unlock()
	m := &rankMove{old: *p, p: p, clean: clean}
	m.old.Home, m.old.Stale = slices.Clone(p.Home), slices.Clone(p.Stale)
	changed := change(p)
	m.home = p.homeKeys()
	if !slices.Equal(m.home, m.old.Home) || p.Title != m.old.Title || p.State != m.old.State {
		changed = true
	}
	return m, changed
}

// settle ends a pass that changes nothing: it completes the home rows of
// a pointer this store did not complete, and remembers the pointer.
func (rs *RankingStore) settle(ctx context.Context, m *rankMove) error {
	p := m.p
	if !m.clean && (len(p.Home) > 0 || len(p.Stale) > 0) {
		// Finish what the pointer's writer may not have.
		if err := rs.writeHome(ctx, p, p.Home, p.Stale); err != nil {
			return err
		}
	}
	rs.markDone(p)
	if m.clean {
		// Unchanged, and as this store left it: kept again.
		rs.keep(&m.old)
	}
	return nil
}

// next makes p the pointer's next write: the next Seq, the home keys the
// survey belongs in, and as stale those it had and no longer has (with
// those the last writer may not have removed).
func (m *rankMove) next() {
	p := m.p
	p.Seq++
	p.Home = m.home
	p.Stale = nil
	if !m.clean {
		// The last writer may not have removed its stale rows.
		p.Stale = append(p.Stale, m.old.Stale...)
	}
	for _, k := range m.old.Home {
		if !slices.Contains(m.home, k) && !slices.Contains(p.Stale, k) {
			p.Stale = append(p.Stale, k)
		}
	}
}

// deleteListRows deletes a tenant's old list rows one by one, as a
// lenient tenantOps left them, tolerating a missing row.
func (rs *RankingStore) deleteListRows(ctx context.Context, tenant string, keys []string) error {
	for _, k := range keys {
		if err := rs.st.DeleteEntity(ctx, RanksTable, tenant, k, ""); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return mapErr(err, "Survey ranks")
		}
	}
	return nil
}

// moveHome moves the survey's rows on the home page's lists once its
// pointer is written: new rows first, then the stale ones go, so the
// survey is never missing from a list it stays on. It then reads the
// pointer back (checkWritten) and keeps it for the survey's next move.
func (rs *RankingStore) moveHome(ctx context.Context, m *rankMove) error {
	p := m.p
	write := m.toWrite()
	if err := rs.writeHome(ctx, p, write, p.Stale); err != nil {
		return err
	}
	var now *rankState
	if len(write) > 0 {
		var err error
		if now, err = rs.checkWritten(ctx, p, write); err != nil {
			return err
		}
	}
	rs.markDone(p)
	if now != nil && now.Seq == p.Seq {
		// The pointer as written, with its ETag: the next move of the
		// survey starts from it.
		rs.keep(now)
	}
	return nil
}

// toWrite is the home keys whose rows the move writes: all of them, but
// after a pointer this store completed only those the survey was not in.
func (m *rankMove) toWrite() []string {
	if !m.clean {
		return m.home
	}
	var write []string
	for _, k := range m.home {
		if !slices.Contains(m.old.Home, k) {
			write = append(write, k)
		}
	}
	return write
}

// tenantOps is the transaction that stores p (read as old) with its tenant
// list rows. In lenient mode the old rows' deletes are returned apart, to be
// made one by one (tolerating a missing row).
func (rs *RankingStore) tenantOps(old, p *rankState, lenient bool) (ops []storage.TableOp, later []string) {
	e := p.entity()
	if p.etag == "" {
		ops = append(ops, storage.TableOp{Kind: storage.OpInsert, Entity: e})
	} else {
		ops = append(ops, storage.TableOp{Kind: storage.OpUpdate, Entity: e, IfMatch: p.etag})
	}
	sameContent := old.Title == p.Title && old.State == p.State
	for _, l := range []struct {
		oldKey, newKey string
		count          int64
	}{
		{old.answersKey(), p.answersKey(), p.Answers},
		{old.viewsKey(), p.viewsKey(), p.Views},
	} {
		if l.newKey != "" && (l.newKey != l.oldKey || !sameContent || p.etag == "") {
			ops = append(ops, storage.TableOp{Kind: storage.OpUpsert, Entity: p.listRow(l.newKey, l.count)})
		}
		if l.oldKey != "" && l.oldKey != l.newKey && p.etag != "" {
			if lenient {
				later = append(later, l.oldKey)
			} else {
				ops = append(ops, storage.TableOp{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: p.Tenant, RowKey: l.oldKey}, IfMatch: storage.ETagAny})
			}
		}
	}
	return ops, later
}

// writeHome writes p's rows in partitions write, then deletes its rows in
// partitions stale.
func (rs *RankingStore) writeHome(ctx context.Context, p *rankState, write, stale []string) error {
	for _, pk := range write {
		if _, err := rs.st.UpsertEntity(ctx, PublicRanksTable, p.homeRow(pk)); err != nil {
			return mapErr(err, "Home page list")
		}
	}
	rk := surveyRowKey(p.Tenant, p.Slug)
	for _, pk := range stale {
		if slices.Contains(p.Home, pk) {
			continue
		}
		if err := rs.st.DeleteEntity(ctx, PublicRanksTable, pk, rk, ""); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return mapErr(err, "Home page list")
		}
	}
	return nil
}

// checkWritten reads the pointer back after p's rows in partitions write
// were written: if another writer moved the survey meanwhile, it may have
// deleted them before they were written, so the ones the pointer no longer
// names are deleted now. Without this, a writer stalled for the whole of
// another's pass would leave a row that no pointer names. It returns the
// pointer read (nil when it is gone).
func (rs *RankingStore) checkWritten(ctx context.Context, p *rankState, write []string) (*rankState, error) {
	e, err := rs.st.GetEntity(ctx, RanksTable, p.Tenant, pointerPrefix+p.Slug)
	var now *rankState
	switch {
	case err == nil:
		now = rankStateFrom(e)
		if now.Seq == p.Seq {
			return now, nil
		}
	case errors.Is(err, storage.ErrNotFound):
		now = &rankState{} // removed meanwhile
	default:
		return nil, mapErr(err, "Survey ranks")
	}
	var gone []string
	for _, k := range write {
		if !slices.Contains(now.Home, k) {
			gone = append(gone, k)
		}
	}
	q := *p
	q.Home = now.Home
	return nil, rs.writeHome(ctx, &q, nil, gone)
}

func (rs *RankingStore) markDone(p *rankState) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.done) > 100_000 {
		rs.done = map[string]int64{}
	}
	rs.done[p.key()] = p.Seq
}

// Sync brings a survey's ranks in line with its definition: its title,
// state, listing and dates. The survey store calls it after each change;
// calling it again repairs what a crash left half done.
func (rs *RankingStore) Sync(ctx context.Context, s *survey.Survey) error {
	return rs.update(ctx, s.Tenant, s.Slug, false, func(p *rankState) bool {
		before := *p
		setSurvey(p, s)
		return before.Listed != p.Listed || !before.PublishedOn.Equal(p.PublishedOn) || !before.CloseOn.Equal(p.CloseOn) || p.etag == ""
	})
}

// SetAnswers records the answer count of a summary from which no answer
// was deleted, and moves the survey in the lists: SetCount(total, 0).
func (rs *RankingStore) SetAnswers(ctx context.Context, tenant, slug string, total int64) error {
	return rs.SetCount(ctx, tenant, slug, total, 0)
}

// SetCount moves a survey to the count of a summary that counts total
// answers and has had deleted answers deleted (len(Deleted)): the answers
// worker after each merge, and DeleteAnswer after each deletion, so that
// every page shows the summary's count. A count older than the one the
// ranks hold (newerCount) changes nothing, so writers that race, or one
// that comes again after a crash, leave the newest.
func (rs *RankingStore) SetCount(ctx context.Context, tenant, slug string, total, deleted int64) error {
	return rs.update(ctx, tenant, slug, true, func(p *rankState) bool {
		if !newerCount(total, deleted, p.Answers, p.Deleted) {
			return p.etag == ""
		}
		p.Answers, p.Deleted = total, deleted
		return true
	})
}

// newerCount reports whether a summary's count (total answers, deleted
// answers) comes after the count (oldTotal, oldDeleted). A summary's
// writes never lower the answers it has ever counted (total + deleted: a
// merge adds to total, a deletion moves one from total to deleted) nor
// its deleted answers, so its counts are ordered by the first, then by
// the second.
func newerCount(total, deleted, oldTotal, oldDeleted int64) bool {
	ever, oldEver := total+deleted, oldTotal+oldDeleted
	return ever > oldEver || ever == oldEver && deleted > oldDeleted
}

// viewMsgTTL is how long a view message's ID is kept on the pointers it
// was applied to: longer than any redelivery (the views worker's
// visibility timeout times its attempts).
const viewMsgTTL = 30 * time.Minute

// maxViewMsgs bounds the IDs kept on a pointer (a property is ≤ 64 KiB).
const maxViewMsgs = 800

// ViewCounts are the views and funnel counts of one views message for one
// survey.
type ViewCounts struct {
	N     int64
	Pages []int64
}

// AddViews adds a survey's views and funnel counts from several messages
// (by message ID) and moves it in the most-viewed list. A message already
// applied to this survey is skipped, so a redelivered message does not
// count twice.
func (rs *RankingStore) AddViews(ctx context.Context, tenant, slug string, byMessage map[string]ViewCounts) error {
	return rs.update(ctx, tenant, slug, true, func(p *rankState) bool {
		now := rs.now().Unix()
		var delta int64
		changed := false
		for id, c := range byMessage {
			if _, seen := p.ViewMsgs[id]; seen || c.N < 0 || (c.N == 0 && len(c.Pages) == 0) {
				continue
			}
			if p.ViewMsgs == nil {
				p.ViewMsgs = map[string]int64{}
			}
			p.ViewMsgs[id] = now
			delta += c.N
			if len(c.Pages) > 0 && len(c.Pages) <= MaxFunnelPages {
				p.Funnel = addPages(p.Funnel, c.Pages)
			}
			changed = true
		}
		if !changed {
			return p.etag == ""
		}
		p.Views += delta
		for id, at := range p.ViewMsgs {
			if now-at > int64(viewMsgTTL/time.Second) {
				delete(p.ViewMsgs, id)
			}
		}
		for len(p.ViewMsgs) > maxViewMsgs {
			oldest, at := "", int64(math.MaxInt64)
			for id, t := range p.ViewMsgs {
				if t < at {
					oldest, at = id, t
				}
			}
			delete(p.ViewMsgs, oldest)
		}
		return true
	})
}

// Funnel is a survey's views and the respondents who left each of its pages
// for the next (nil before any).
func (rs *RankingStore) Funnel(ctx context.Context, tenant, slug string) (views int64, pages []int64, err error) {
	e, err := rs.st.GetEntity(ctx, RanksTable, tenant, pointerPrefix+slug)
	if isNotFound(err) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, mapErr(err, "Survey ranks")
	}
	p := rankStateFrom(e)
	return p.Views, p.Funnel, nil
}

// Remove deletes a survey's ranks: its home rows first, then, in one
// transaction, its pointer and its tenant list rows. A crash between leaves the
// pointer, and Remove called again finishes.
func (rs *RankingStore) Remove(ctx context.Context, tenant, slug string) error {
	for attempt := 0; attempt < 20; attempt++ {
		e, err := rs.st.GetEntity(ctx, RanksTable, tenant, pointerPrefix+slug)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return mapErr(err, "Survey ranks")
		}
		p := rankStateFrom(e)
		gone := *p
		gone.Home = nil
		if err := rs.writeHome(ctx, &gone, nil, append(slices.Clone(p.Home), p.Stale...)); err != nil {
			return err
		}
		ops := []storage.TableOp{{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: tenant, RowKey: pointerPrefix + slug}, IfMatch: p.etag}}
		var rows []string
		for _, k := range []string{p.answersKey(), p.viewsKey()} {
			if k != "" {
				rows = append(rows, k)
				ops = append(ops, storage.TableOp{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: tenant, RowKey: k}, IfMatch: storage.ETagAny})
			}
		}
		err = rs.st.Transact(ctx, RanksTable, tenant, ops)
		if errors.Is(err, storage.ErrPrecondition) {
			continue
		}
		if errors.Is(err, storage.ErrNotFound) && len(rows) > 0 {
			// A list row is missing (it should not be): delete one by one.
			if err = rs.st.DeleteEntity(ctx, RanksTable, tenant, pointerPrefix+slug, p.etag); errors.Is(err, storage.ErrPrecondition) {
				continue
			}
			for _, k := range rows {
				if err == nil || errors.Is(err, storage.ErrNotFound) {
					err = rs.st.DeleteEntity(ctx, RanksTable, tenant, k, "")
				}
			}
		}
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return mapErr(err, "Survey ranks")
		}
		rs.mu.Lock()
		delete(rs.done, tenant+"/"+slug)
		delete(rs.kept, tenant+"/"+slug)
		rs.mu.Unlock()
		return nil
	}
	return fmt.Errorf("store: remove ranks of %s/%s: too many conflicting writers", tenant, slug)
}

// ranksMarker is written once every survey has been ranked.
const ranksMarker = "ranks-backfilled"

// Backfill ranks every survey of tenants that has no pointer row yet: the
// surveys of a store made before ranks were kept. It runs once per store (a
// marker blob records it), at start-up, and is safe to run again. It
// returns the number of surveys ranked.
func (rs *RankingStore) Backfill(ctx context.Context, tenants []*survey.Tenant) (int, error) {
	if _, err := rs.st.GetBlob(ctx, SystemContainer, ranksMarker); err == nil {
		return 0, nil
	} else if !isNotFound(err) {
		return 0, mapErr(err, "Ranks marker")
	}
	ss := NewSurveyStore(rs.st)
	n := 0
	for _, t := range tenants {
		list, err := ss.List(ctx, t.Key)
		if err != nil {
			return n, err
		}
		ranked, err := rs.Tenant(ctx, t.Key, 1)
		if err != nil {
			return n, err
		}
		for _, s := range list {
			if _, ok := ranked.Counts[s.Slug]; ok {
				continue
			}
			if err := rs.Sync(ctx, s); err != nil {
				return n, err
			}
			n++
		}
	}
	_, err := rs.st.PutBlob(ctx, SystemContainer, ranksMarker, []byte("ranked"), storage.PutOptions{ContentType: "text/plain"})
	return n, mapErr(err, "Ranks marker")
}
