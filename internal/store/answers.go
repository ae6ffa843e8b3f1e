package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// ListChunkSize is the number of answer IDs in one chunk of a survey's
// answer list. The list is a series of chunk blobs, so appending rewrites
// one small blob, never a growing one.
const ListChunkSize = 1000

// SurveyAnswerStore keeps answers: one JSON blob per answer in the survey's
// container, named by its ID, and the ordered list of the survey's answer
// IDs, for browsing, in chunks of ListChunkSize. A respondent's answer is
// first made durable on the answers queue (Enqueue); the worker files it
// as a blob (File) and counts it.
type SurveyAnswerStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewSurveyAnswerStore returns a SurveyAnswerStore over st.
func NewSurveyAnswerStore(st storage.Storage) *SurveyAnswerStore {
	return &SurveyAnswerStore{st: st, now: time.Now}
}

// storedAnswer is an answer blob: the answer, and the queue message that
// filed it.
type storedAnswer struct {
	survey.SurveyAnswer
	Message string `json:"message,omitempty"`
}

// File stores an answer carried by queue message msgID as its own blob,
// once. It reports whether the answer is this message's to count: true
// when it wrote the blob, or found it written by the same message (an
// earlier delivery that died before its summary); false when another
// message (the same form, submitted twice) filed it first. When the blob was
// there, a is set to what it holds. The container is
// created on its first 404, not checked before every write.
func (as *SurveyAnswerStore) File(ctx context.Context, a *survey.SurveyAnswer, msgID string) (bool, error) {
	own, _, err := as.FileLine(ctx, a, msgID)
	return own, err
}

// FileLine is File, and it also returns a's line of a segment (what
// AppendSegments writes for it, newline included) when it wrote the blob:
// the blob is made from that one encoding (answerBlob), and a writer of
// the segments that is given it (lines) does not encode a again. The line
// is nil when a was not written (the blob was there), and is a's only as
// long as a does not change.
func (as *SurveyAnswerStore) FileLine(ctx context.Context, a *survey.SurveyAnswer, msgID string) (bool, []byte, error) {
	if !ValidAnswerID(a.ID) {
		return false, nil, survey.Errorf(survey.EINVALID, "Answer ID %q is not valid.", a.ID)
	}
	if a.CreatedOn.IsZero() {
		a.CreatedOn = as.now().UTC()
	}
	line, err := segmentLine(a)
	if err != nil {
		return false, nil, err
	}
	data, err := answerBlob(line, msgID)
	if err != nil {
		return false, nil, err
	}
	container := AnswersContainer(a.Tenant, a.Slug)
	o := storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}
	_, err = as.st.PutBlob(ctx, container, a.ID, data, o)
	if isContainerNotFound(err) {
		if err := as.st.CreateContainer(ctx, container, false); err != nil {
			return false, nil, mapErr(err, "Answer container")
		}
		_, err = as.st.PutBlob(ctx, container, a.ID, data, o)
	}
	if isPrecondition(err) {
		b, err := as.st.GetBlob(ctx, container, a.ID)
		if err != nil {
			return false, nil, mapErr(err, "Answer")
		}
		var prev storedAnswer
		if err := json.Unmarshal(b.Data, &prev); err != nil {
			return false, nil, fmt.Errorf("store: decode answer %s/%s: %w", container, a.ID, err)
		}
		if prev.Message == msgID && prev.ID == a.ID {
			// Filed by an earlier delivery: the blob is the record (its
			// question texts may be an earlier version's), and what is
			// segmented and counted is what it holds.
			*a = prev.SurveyAnswer
		}
		return prev.Message == msgID, nil, nil
	}
	if err != nil {
		return false, nil, mapErr(err, "Answer")
	}
	return true, line, nil
}

// segmentLine is a's line of a segment: encodeJSON's encoding, and a
// newline (appendAnswerLine's, or encodeJSON's where it cannot). It is
// encoded into a pooled buffer, then copied out at its size: one
// allocation, not a buffer doubled from 64 bytes.
func segmentLine(a *survey.SurveyAnswer) ([]byte, error) {
	buf := lineBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledLine {
			lineBuffers.Put(buf)
		}
	}()
	buf.Reset()
	if l, ok := appendAnswerLine(buf.AvailableBuffer(), a); ok {
		if cap(l) > buf.Cap() {
			buf = bytes.NewBuffer(l[:0]) // grown: pooled so
		}
		return bytes.Clone(l), nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		return nil, fmt.Errorf("store: encode answer: %w", err)
	}
	return bytes.Clone(buf.Bytes()), nil // Encode ends it with a newline
}

// escapesHTML reports whether json.HTMLEscape would change b: whether it
// holds <, > or &, or the first byte of U+2028 and U+2029 (of other
// characters too, then escaped for nothing). Each is looked for at
// memchr's speed: json.HTMLEscape goes a byte at a time, and took as long
// as encoding the answer.
func escapesHTML(b []byte) bool {
	for _, c := range []byte{'<', '>', '&', 0xe2} {
		if bytes.IndexByte(b, c) >= 0 {
			return true
		}
	}
	return false
}

// lineBuffers are segmentLine's buffers; one that grew past
// maxPooledLine (a long answer) is dropped.
var lineBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledLine = 64 << 10

// answerBlob is the blob of the answer whose segment line is line, filed
// by message msgID: json.Marshal of the storedAnswer, byte for byte
// (FuzzAnswerBlob), made from the line rather than by encoding
// the answer again. The line is encoding/json's encoding of the answer
// without HTML escaping, so escaping it (json.HTMLEscape, which touches
// <, >, & and U+2028/9, found only in strings) gives json.Marshal's; the
// message is the object's last field.
func answerBlob(line []byte, msgID string) ([]byte, error) {
	obj := bytes.TrimSuffix(line, []byte("\n"))
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("store: encode answer: not an object")
	}
	var buf bytes.Buffer
	buf.Grow(len(obj) + len(msgID) + 16)
	if escapesHTML(obj) {
		json.HTMLEscape(&buf, obj[:len(obj)-1])
	} else {
		buf.Write(obj[:len(obj)-1]) // nothing to escape: most answers
	}
	if msgID != "" {
		if len(obj) > 2 {
			buf.WriteByte(',')
		}
		buf.WriteString(`"message":`)
		m, err := json.Marshal(msgID)
		if err != nil {
			return nil, fmt.Errorf("store: encode answer: %w", err)
		}
		buf.Write(m)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Get returns one answer.
func (as *SurveyAnswerStore) Get(ctx context.Context, tenant, slug, id string) (*survey.SurveyAnswer, error) {
	if !ValidAnswerID(id) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Answer not found.")
	}
	b, err := as.st.GetBlob(ctx, AnswersContainer(tenant, slug), id)
	if err != nil {
		return nil, mapErr(err, "Answer")
	}
	var a storedAnswer
	if err := json.Unmarshal(b.Data, &a); err != nil {
		return nil, fmt.Errorf("store: decode answer %s/%s/%s: %w", tenant, slug, id, err)
	}
	if a.Tenant != tenant || a.Slug != slug {
		return nil, survey.Errorf(survey.ENOTFOUND, "Answer not found.")
	}
	return &a.SurveyAnswer, nil
}

// ListAll calls f with every stored answer ID of a survey, in ID order,
// from the blobs themselves (not the list): for recounts and exports.
func (as *SurveyAnswerStore) ListAll(ctx context.Context, tenant, slug string, f func(id string) error) error {
	return eachBlob(ctx, as.st, AnswersContainer(tenant, slug), "", "Answers", func(it storage.BlobItem) error { return f(it.Name) })
}

// answerList is one chunk of a survey's answer list.
type answerList struct {
	IDs []string `json:"ids"`
}

// chunkName names chunk n of a survey's answer list.
func chunkName(tenant, slug string, n int) string {
	return fmt.Sprintf("%s%06d", answerListPrefix(tenant, slug), n)
}

// chunks returns the names of a survey's answer-list chunks, in order.
func (as *SurveyAnswerStore) chunks(ctx context.Context, tenant, slug string) ([]string, error) {
	var names []string
	err := eachBlob(ctx, as.st, AnswerListContainer, answerListPrefix(tenant, slug), "Answer list", func(it storage.BlobItem) error {
		names = append(names, it.Name)
		return nil
	})
	return names, err
}

func (as *SurveyAnswerStore) readChunk(ctx context.Context, name string) (answerList, string, error) {
	b, err := as.st.GetBlob(ctx, AnswerListContainer, name)
	if err != nil {
		return answerList{}, "", mapErr(err, "Answer list")
	}
	var l answerList
	if err := json.Unmarshal(b.Data, &l); err != nil {
		return answerList{}, "", fmt.Errorf("store: decode answer list %s: %w", name, err)
	}
	return l, b.ETag, nil
}

// ListTail is the end of a survey's answer list as an appender last saw
// it; a worker keeps it between batches so that an append costs one blob
// write instead of a listing, a read and a write.
type ListTail struct {
	n    int      // the last chunk's number
	ids  []string // the last chunk's IDs
	etag string   // the last chunk's ETag; "" when it does not exist yet
}

// Len is the number of IDs in the list, as the tail saw it.
func (t *ListTail) Len() int { return t.n*ListChunkSize + len(t.ids) }

// AppendAt makes positions pos, pos+1, … of a survey's answer list hold
// ids, appending those not there yet. Appends are positional so that a
// batch written twice (a worker died between the summary and the list, and
// another finished its work) is listed once. tail is where the appender
// last saw the list's end (nil when unknown); the new tail is returned.
// Concurrent appenders are serialised with ETags: a stale tail costs a
// re-read.
func (as *SurveyAnswerStore) AppendAt(ctx context.Context, tenant, slug string, tail *ListTail, pos int, ids []string) (*ListTail, error) {
	for conflicts := 0; ; {
		read := tail == nil
		if read {
			var err error
			if tail, err = as.readTail(ctx, tenant, slug); err != nil {
				return nil, err
			}
		}
		have := tail.Len()
		if have < pos {
			if !read {
				tail = nil // others appended since: look again
				continue
			}
			return nil, fmt.Errorf("store: answer list of %s/%s has %d entries, cannot write at %d", tenant, slug, have, pos)
		}
		if have >= pos+len(ids) {
			return tail, nil
		}
		todo := ids[have-pos:]
		next := &ListTail{n: tail.n, ids: append([]string(nil), tail.ids...)}
		o := storage.PutOptions{ContentType: "application/json", IfMatch: tail.etag}
		if tail.etag == "" || len(tail.ids) >= ListChunkSize {
			// A new chunk: it must not exist yet.
			o = storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}
			if tail.etag != "" {
				next = &ListTail{n: tail.n + 1}
			}
		}
		take := min(ListChunkSize-len(next.ids), len(todo))
		next.ids = append(next.ids, todo[:take]...)
		data, err := json.Marshal(answerList{IDs: next.ids})
		if err != nil {
			return nil, fmt.Errorf("store: encode answer list: %w", err)
		}
		next.etag, err = as.st.PutBlob(ctx, AnswerListContainer, chunkName(tenant, slug, next.n), data, o)
		switch {
		case err == nil:
			tail = next
		case errors.Is(err, storage.ErrPrecondition):
			// Another appender wrote first: read again.
			tail = nil
			if conflicts++; conflicts == 50 {
				return nil, survey.Errorf(survey.ECONFLICT, "The answer list of %s/%s is too busy; try again.", tenant, slug)
			}
		default:
			return nil, mapErr(err, "Answer list")
		}
	}
}

// readTail reads the end of a survey's answer list.
func (as *SurveyAnswerStore) readTail(ctx context.Context, tenant, slug string) (*ListTail, error) {
	names, err := as.chunks(ctx, tenant, slug)
	if err != nil || len(names) == 0 {
		return &ListTail{}, err
	}
	n := len(names) - 1
	last, etag, err := as.readChunk(ctx, names[n])
	if err != nil {
		return nil, err
	}
	return &ListTail{n: n, ids: last.IDs, etag: etag}, nil
}

// Count returns the number of answers in a survey's list.
func (as *SurveyAnswerStore) Count(ctx context.Context, tenant, slug string) (int, error) {
	names, err := as.chunks(ctx, tenant, slug)
	if err != nil || len(names) == 0 {
		return 0, err
	}
	last, _, err := as.readChunk(ctx, names[len(names)-1])
	if err != nil {
		return 0, err
	}
	return (len(names)-1)*ListChunkSize + len(last.IDs), nil
}

// Page returns up to limit answer IDs from position offset (from 0) of a
// survey's list, and the list's length.
func (as *SurveyAnswerStore) Page(ctx context.Context, tenant, slug string, offset, limit int) ([]string, int, error) {
	return as.span(ctx, tenant, slug, func(int) (int, int) { return offset, limit })
}

// Latest returns up to limit answer IDs of a survey's list, newest first
// (the last listed first), after skipping the skip newest; and the list's
// length. It reads the list's chunk names (one listing per 5,000 chunks)
// and the one or two chunks that hold those positions besides the last.
func (as *SurveyAnswerStore) Latest(ctx context.Context, tenant, slug string, skip, limit int) ([]string, int, error) {
	ids, total, err := as.span(ctx, tenant, slug, func(total int) (int, int) {
		end := total - max(skip, 0)
		return max(end-limit, 0), min(limit, max(end, 0))
	})
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids, total, err
}

// span returns the IDs of the positions that where gives (from, up to
// limit of them) once it knows the list's length, and the length.
func (as *SurveyAnswerStore) span(ctx context.Context, tenant, slug string, where func(total int) (offset, limit int)) ([]string, int, error) {
	names, err := as.chunks(ctx, tenant, slug)
	if err != nil || len(names) == 0 {
		return nil, 0, err
	}
	read := map[int]answerList{}
	chunk := func(n int) (answerList, error) {
		if l, ok := read[n]; ok {
			return l, nil
		}
		l, _, err := as.readChunk(ctx, names[n])
		read[n] = l
		return l, err
	}
	lastN := len(names) - 1
	last, err := chunk(lastN)
	if err != nil {
		return nil, 0, err
	}
	total := lastN*ListChunkSize + len(last.IDs)
	offset, limit := where(total)
	var out []string
	for pos := max(offset, 0); pos < total && len(out) < limit; pos++ {
		l, err := chunk(pos / ListChunkSize)
		if err != nil {
			return nil, 0, err
		}
		i := pos % ListChunkSize
		if i >= len(l.IDs) {
			break
		}
		out = append(out, l.IDs[i])
	}
	return out, total, nil
}

// deleteAll deletes a survey's answers container, segments and answer list.
func (as *SurveyAnswerStore) deleteAll(ctx context.Context, tenant, slug string) error {
	if err := as.st.DeleteContainer(ctx, AnswersContainer(tenant, slug)); err != nil && !isNotFound(err) {
		return mapErr(err, "Answers")
	}
	if err := as.deleteSegments(ctx, tenant, slug); err != nil {
		return err
	}
	names, err := as.chunks(ctx, tenant, slug)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := as.st.DeleteBlob(ctx, AnswerListContainer, name, ""); err != nil && !isNotFound(err) {
			return mapErr(err, "Answer list")
		}
	}
	return nil
}

func isNotFound(err error) bool { return errors.Is(err, storage.ErrNotFound) }

func isContainerNotFound(err error) bool { return errors.Is(err, storage.ErrContainerNotFound) }

func isPrecondition(err error) bool { return errors.Is(err, storage.ErrPrecondition) }

// AnswerMessage is a message of the answers queue: acknowledged answers;
// the queue is their durable record until the worker files them. It
// carries what the worker needs only (Queued): each answer's identity and
// its values by question ID, not the question texts, which the worker
// takes from the survey's summary. Messages of the first format, whole
// answers with their question texts (Answers), may still be queued after an
// upgrade, and are read as before.
type AnswerMessage struct {
	// Answers is the first format: whole answers.
	Answers []survey.SurveyAnswer `json:"answers,omitempty"`
	// Queued is the current format.
	Queued []QueuedAnswer `json:"queued,omitempty"`
	// Plan is the plan of the answers' tenant when they were taken: the
	// worker closes a survey that reaches its plan's answer limit.
	Plan survey.Plan `json:"plan,omitempty"`
}

// formatMark stands where the first format kept its answers, so that a
// worker of a version before this format, which knows only that field,
// cannot decode the message and moves it to the poison queue with the
// reason (where it is kept), rather than finding no answers in it and
// deleting it.
var formatMark = json.RawMessage(`{"format":2}`)

// UnmarshalJSON reads both formats: "answers" is a list of whole answers
// in the first, the format mark in the current one.
func (m *AnswerMessage) UnmarshalJSON(b []byte) error { return m.decode(b) }

// DecodeAnswerMessage reads a message of the answers queue (either
// format). It is json.Unmarshal into an AnswerMessage, which scans the
// message three times before decoding it (json.Unmarshal's check, its
// skip to the end of the value it gives UnmarshalJSON, UnmarshalJSON's own
// check); this reads a message as EnqueueEach writes it once, the direct
// way (fast), and any other once by encoding/json.
func DecodeAnswerMessage(b []byte) (AnswerMessage, error) {
	var m AnswerMessage
	err := m.decode(b)
	return m, err
}

func (m *AnswerMessage) decode(b []byte) error {
	var fast AnswerMessage
	if fast.fast(b) {
		*m = fast
		return nil
	}
	return m.decodeJSON(b)
}

// decodeJSON is decode by encoding/json.
func (m *AnswerMessage) decodeJSON(b []byte) error {
	type plain AnswerMessage
	var v struct {
		plain
		Answers json.RawMessage `json:"answers"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = AnswerMessage(v.plain)
	m.Answers = nil
	if a := bytes.TrimSpace(v.Answers); len(a) > 0 && a[0] == '[' {
		return json.Unmarshal(a, &m.Answers)
	}
	return nil
}

// QueuedAnswer is an answer on the answers queue. An answer too large for
// one message is spilled: it is written whole to a blob of SpillContainer
// first, then the message carries its identity and names the blob (Spill);
// the worker reads it from there, and deletes the blob with the message.
type QueuedAnswer struct {
	ID        string        `json:"id"`
	Tenant    string        `json:"tenant"`
	Slug      string        `json:"slug"`
	Title     string        `json:"title,omitempty"`
	CreatedOn time.Time     `json:"createdOn"`
	Values    []QueuedValue `json:"values,omitempty"`
	// Hidden are the answer's hidden fields' values (SurveyAnswer.Hidden).
	Hidden map[string]string `json:"hidden,omitempty"`
	// Vars are the answer's values of the survey's score and variables
	// (SurveyAnswer.Values).
	Vars  map[string]string `json:"vars,omitempty"`
	Spill string            `json:"spill,omitempty"`
	// Partial marks a partial answer (SurveyAnswer.Partial).
	Partial bool `json:"partial,omitempty"`
	// Quotas are the quota cells the answer took (SurveyAnswer.Quotas).
	Quotas []string `json:"quotas,omitempty"`
	// OverQuota are the full cells the answer was screened out of
	// (SurveyAnswer.OverQuota).
	OverQuota []string `json:"overQuota,omitempty"`
}

// QueuedValue is the answer to one question, by the question's ID.
type QueuedValue struct {
	Question string `json:"q"`
	Answer   string `json:"a"`
}

// PendingAnswer is one answer of a dequeued message, in either format.
type PendingAnswer struct {
	ID, Tenant, Slug string
	whole            *survey.SurveyAnswer
	queued           *QueuedAnswer
}

// Spilled names the blob a spilled answer was written to ("" if none).
func (p PendingAnswer) Spilled() string {
	if p.queued == nil {
		return ""
	}
	return p.queued.Spill
}

// Pending returns the message's answers in order, each answer ID once (a
// form posted twice at once may have put one answer twice in a message),
// and how many repeats it left out.
func (m *AnswerMessage) Pending() ([]PendingAnswer, int) {
	seen := map[string]bool{}
	var out []PendingAnswer
	repeats := 0
	add := func(p PendingAnswer) {
		if seen[p.ID] {
			repeats++
			return
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	for i := range m.Answers {
		a := &m.Answers[i]
		add(PendingAnswer{ID: a.ID, Tenant: a.Tenant, Slug: a.Slug, whole: a})
	}
	for i := range m.Queued {
		q := &m.Queued[i]
		add(PendingAnswer{ID: q.ID, Tenant: q.Tenant, Slug: q.Slug, queued: q})
	}
	return out, repeats
}

// Spills names the spill blobs of the message's answers.
func (m *AnswerMessage) Spills() []string {
	var out []string
	for _, q := range m.Queued {
		if q.Spill != "" {
			out = append(out, q.Spill)
		}
	}
	return out
}

// ErrUnknownQuestion: a queued answer names a question its survey does not
// have (the survey was deleted and made again under the same name).
var ErrUnknownQuestion = errors.New("store: the answer names a question its survey does not have")

// Question is what Resolve needs of a survey's question.
type Question struct {
	Text string
	Type survey.QuestionType
}

// Resolve returns the whole answer p stands for: as it was queued (the
// first format), or rebuilt from its values and the survey's questions (by
// ID; from the summary the worker holds), read from its spill blob first
// if it was spilled. It fails with ErrUnknownQuestion when a value names a
// question not in questions.
func (as *SurveyAnswerStore) Resolve(ctx context.Context, p PendingAnswer, questions map[string]Question) (survey.SurveyAnswer, error) {
	if p.whole != nil {
		return *p.whole, nil
	}
	q := *p.queued
	if q.Spill != "" {
		b, err := as.st.GetBlob(ctx, SpillContainer, q.Spill)
		if err != nil {
			return survey.SurveyAnswer{}, mapErr(err, "Spilled answer")
		}
		var whole QueuedAnswer
		if err := json.Unmarshal(b.Data, &whole); err != nil {
			return survey.SurveyAnswer{}, fmt.Errorf("store: decode spilled answer %s: %w", q.Spill, err)
		}
		if whole.ID != q.ID || whole.Tenant != q.Tenant || whole.Slug != q.Slug {
			return survey.SurveyAnswer{}, fmt.Errorf("store: spilled answer %s holds answer %s of %s/%s", q.Spill, whole.ID, whole.Tenant, whole.Slug)
		}
		q = whole
	}
	a := survey.SurveyAnswer{ID: q.ID, Tenant: q.Tenant, Slug: q.Slug, Title: q.Title, CreatedOn: q.CreatedOn, Hidden: q.Hidden, Quotas: q.Quotas, OverQuota: q.OverQuota, Values: q.Vars, Partial: q.Partial}
	if len(q.Values) > 0 {
		a.Answers = make([]survey.QuestionAnswer, 0, len(q.Values))
	}
	for _, v := range q.Values {
		def, ok := questions[v.Question]
		if !ok {
			return survey.SurveyAnswer{}, fmt.Errorf("%w (%s)", ErrUnknownQuestion, v.Question)
		}
		a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: v.Question, QuestionText: def.Text, Type: def.Type, Answer: v.Answer})
	}
	return a, nil
}

// DeleteSpills deletes spill blobs, once the message naming them is gone.
func (as *SurveyAnswerStore) DeleteSpills(ctx context.Context, names []string) error {
	var errs []error
	for _, name := range names {
		if err := as.st.DeleteBlob(ctx, SpillContainer, name, ""); err != nil && !isNotFound(err) {
			errs = append(errs, mapErr(err, "Spilled answer"))
		}
	}
	return errors.Join(errs...)
}

// AnswerQueues are the answers queues, in the order the worker drains
// them: Premium first.
var AnswerQueues = []string{PremiumAnswersQueue, AnswersQueue}

// AnswersQueueFor is the answers queue of a plan: Premium tenants' answers
// have their own, which the worker drains first.
func AnswersQueueFor(p survey.Plan) string {
	if p == survey.Premium {
		return PremiumAnswersQueue
	}
	return AnswersQueue
}

// Enqueue makes answers durable on the (standard) answers queue; see
// EnqueueFor.
func (as *SurveyAnswerStore) Enqueue(ctx context.Context, answers []survey.SurveyAnswer) error {
	return as.EnqueueFor(ctx, "", answers)
}

// EnqueueFor makes answers of a tenant on plan p durable on its plan's
// answers queue; see EnqueueEach. It returns the first failure.
func (as *SurveyAnswerStore) EnqueueFor(ctx context.Context, p survey.Plan, answers []survey.SurveyAnswer) error {
	for _, err := range as.EnqueueEach(ctx, p, answers) {
		if err != nil {
			return err
		}
	}
	return nil
}

// maxQueuedAnswer is the largest encoded answer carried in a message; a
// larger one is spilled. It leaves room for the message's envelope.
const maxQueuedAnswer = storage.MaxMessageSize - 256

// EnqueueEach makes answers of a tenant on plan p durable on its plan's
// answers queue, as few messages as fit storage.MaxMessageSize, and
// returns each answer's outcome (nil: durable). An answer repeated (the
// same ID) is queued once, and each of its places gets its outcome. An
// answer too large for a message is spilled to a blob first. No answer
// fails for its neighbours' size: messages are split by size.
func (as *SurveyAnswerStore) EnqueueEach(ctx context.Context, p survey.Plan, answers []survey.SurveyAnswer) []error {
	errs := make([]error, len(answers))
	type item struct {
		a     *survey.SurveyAnswer
		data  []byte
		spill string
		err   error
		at    []int // places in answers
	}
	var all []*item
	byID := map[string]*item{}
	for i := range answers {
		a := &answers[i]
		if it := byID[a.ID]; it != nil {
			it.at = append(it.at, i)
			continue
		}
		it := &item{a: a, at: []int{i}}
		byID[a.ID] = it
		all = append(all, it)
		q := QueuedAnswer{ID: a.ID, Tenant: a.Tenant, Slug: a.Slug, Title: a.Title, CreatedOn: a.CreatedOn, Hidden: a.Hidden, Quotas: a.Quotas, OverQuota: a.OverQuota, Vars: a.Values, Partial: a.Partial}
		if len(a.Answers) > 0 {
			q.Values = make([]QueuedValue, 0, len(a.Answers))
		}
		for _, qa := range a.Answers {
			q.Values = append(q.Values, QueuedValue{Question: qa.QuestionID, Answer: qa.Answer})
		}
		it.data, it.err = queuedJSON(&q)
	}
	// Spill the answers too large for a message, several at once.
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for _, it := range all {
		if it.err != nil || len(it.data) <= maxQueuedAnswer {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			if it.spill, it.err = as.spill(ctx, it.a.ID, it.data); it.err == nil {
				it.data, it.err = queuedJSON(&QueuedAnswer{ID: it.a.ID, Tenant: it.a.Tenant, Slug: it.a.Slug, CreatedOn: it.a.CreatedOn, Spill: it.spill, Partial: it.a.Partial})
			}
		}()
	}
	wg.Wait()
	var items []*item
	for _, it := range all {
		if it.err != nil {
			for _, i := range it.at {
				errs[i] = it.err
			}
			continue
		}
		items = append(items, it)
	}
	for len(items) > 0 {
		// As many items as fit one message.
		n, size := 0, 0
		for n < len(items) && (n == 0 || size+1+len(items[n].data) <= maxQueuedAnswer) {
			size += 1 + len(items[n].data)
			n++
		}
		parts := make([][]byte, n)
		for k, it := range items[:n] {
			parts[k] = it.data
		}
		_, err := as.st.Enqueue(ctx, AnswersQueueFor(p), messageJSON(parts, p), storage.EnqueueOptions{TTL: -1})
		err = mapErr(err, "Answer message")
		for _, it := range items[:n] {
			if err != nil && it.spill != "" {
				// Not acknowledged; the respondent sends it again.
				_ = as.DeleteSpills(context.WithoutCancel(ctx), []string{it.spill})
			}
			for _, i := range it.at {
				errs[i] = err
			}
		}
		items = items[n:]
	}
	return errs
}

// spill writes an encoded answer too large for a message to a blob of its
// own, named by the answer's ID and a random suffix (the same form posted
// twice is two blobs, each deleted with its own message).
func (as *SurveyAnswerStore) spill(ctx context.Context, id string, data []byte) (string, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := id + "." + hex.EncodeToString(b[:])
	o := storage.PutOptions{ContentType: "application/json"}
	_, err := as.st.PutBlob(ctx, SpillContainer, name, data, o)
	if isContainerNotFound(err) {
		if err := as.st.CreateContainer(ctx, SpillContainer, false); err != nil {
			return "", mapErr(err, "Spilled answers")
		}
		_, err = as.st.PutBlob(ctx, SpillContainer, name, data, o)
	}
	if err != nil {
		return "", mapErr(err, "Spilled answer")
	}
	return name, nil
}

// encodeJSON is json.Marshal without HTML escaping: answers often hold <,
// > and &, which would take six bytes each in a message.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("store: encode answer message: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
