package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// NotifyConfig tunes the members' notifications.
type NotifyConfig struct {
	// Cap is the most per-answer e-mails one member gets of one survey in
	// an hour; the answers beyond it are told in one "N more answers"
	// e-mail when the hour is over.
	Cap int64
	// Tick is how often the digest worker looks for digests due and
	// folded answers to tell (one table query per tick when idle).
	Tick time.Duration
	// DigestEvery is the time between two digests of one subscription.
	DigestEvery time.Duration
}

// DefaultNotifyConfig is the configuration of surveys serve: 20 e-mails of
// single answers an hour at most; a tick every 15 minutes (4 queries an
// hour when idle); a digest a day.
var DefaultNotifyConfig = NotifyConfig{Cap: 20, Tick: 15 * time.Minute, DigestEvery: 24 * time.Hour}

// Limits of a per-answer e-mail: it shows at most notifyParts questions,
// each answer cut to notifyAnswerRunes characters on one line.
const (
	notifyParts       = 20
	notifyAnswerRunes = 300
)

// Notify queues the members' notifications: an e-mail per new answer (from
// the answers worker, Answers), and, from its own loop (Run), the daily
// digests and the "N more answers" e-mails of answers beyond the hourly
// cap. A survey without subscribers costs nothing per answer: the
// subscriptions of a tenant are cached (one query per 30 s while it has
// answers). Notifications never hold answers back: a failure is logged.
type Notify struct {
	subs    *store.NotificationStore
	surveys *store.SurveyStore
	sums    *store.SurveyAnswersSummaryStore
	outbox  *mail.Outbox
	tpl     *mail.Templates
	key     []byte
	base    string
	cfg     NotifyConfig
	log     *slog.Logger
	// Now is the clock (tests move it).
	Now func() time.Time

	queued prometheus.Counter
}

// NewNotify returns the notifications of subs, queued on outbox with the
// templates tpl; links start with publicURL and unsubscribe links are
// signed with key.
func NewNotify(st storage.Storage, subs *store.NotificationStore, outbox *mail.Outbox, tpl *mail.Templates, key []byte, publicURL string, cfg NotifyConfig, log *slog.Logger) *Notify {
	if log == nil {
		log = slog.Default()
	}
	return &Notify{subs: subs, surveys: store.NewSurveyStore(st), sums: store.NewSurveyAnswersSummaryStore(st), outbox: outbox, tpl: tpl, key: key,
		base: strings.TrimRight(publicURL, "/"), cfg: cfg, log: log, Now: time.Now,
		queued: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_notifications_queued_total", Help: "Notification e-mails (new answers, more answers, digests) queued."})}
}

// Collectors returns the notifications' metrics, to register.
func (n *Notify) Collectors() []prometheus.Collector { return []prometheus.Collector{n.queued} }

// answerPart is one question of a per-answer e-mail.
type answerPart struct{ Question, Answer string }

// Answers queues, for each member who asked for an e-mail per answer of
// the survey, one e-mail per answer of ids (the answers just counted,
// at list positions from base), up to the hourly cap; the rest are counted
// on the subscription, for one "N more answers" e-mail. It is called once
// the answers are counted (after the summary write): a crash between the
// two loses these e-mails (the digest still counts the answers); an
// answer is never e-mailed twice.
func (n *Notify) Answers(ctx context.Context, tenant, slug string, base int64, ids []string, known map[string]*survey.SurveyAnswer) {
	if n == nil || len(ids) == 0 {
		return
	}
	subs, err := n.subs.Subscribers(ctx, tenant, slug)
	if err != nil {
		n.log.Warn("notify: read the subscribers", "tenant", tenant, "survey", slug, "err", err)
		return
	}
	var each []*store.Subscription
	for _, s := range subs {
		if s.EachAnswer {
			each = append(each, s)
		}
	}
	if len(each) == 0 {
		return
	}
	// The survey (its questions' settings, for the values) is read once a
	// batch, and only when an e-mail is due: a burst beyond the cap costs
	// one write of each subscription a batch.
	var sv *survey.Survey
	now := n.Now().UTC()
	for _, sub := range each {
		mails, flush, since, err := n.take(ctx, sub, int64(len(ids)), now)
		if err != nil {
			n.log.Warn("notify: count the e-mails of a subscriber", "tenant", tenant, "survey", slug, "err", err)
			continue
		}
		if mails+flush == 0 {
			continue
		}
		if sv == nil {
			if sv, err = n.surveys.Get(ctx, tenant, slug); err != nil {
				n.log.Warn("notify: read the survey", "tenant", tenant, "survey", slug, "err", err)
				return
			}
		}
		if flush > 0 {
			n.more(ctx, sub, sv.Title, flush, since)
		}
		for i := range mails {
			a := known[ids[i]]
			if a == nil {
				continue
			}
			n.answer(ctx, sub, sv, a, base+int64(i), sub.WindowSent-mails+int64(i)+1 == n.cfg.Cap)
		}
	}
}

// take writes how many of count answers sub is e-mailed now (its hourly
// cap) and how many are folded; it returns how many to e-mail, and the
// answers folded in the hour before (to tell first) with their start.
func (n *Notify) take(ctx context.Context, sub *store.Subscription, count int64, now time.Time) (mails, flush int64, since time.Time, err error) {
	for range 5 {
		s := *sub
		flush, since = 0, time.Time{}
		if s.WindowStart.IsZero() || now.Sub(s.WindowStart) >= time.Hour {
			flush, since = s.Folded, s.FoldedSince
			s.WindowStart, s.WindowSent, s.Folded, s.FoldedSince = now, 0, 0, time.Time{}
		}
		mails = max(min(n.cfg.Cap-s.WindowSent, count), 0)
		s.WindowSent += mails
		if rest := count - mails; rest > 0 {
			if s.Folded == 0 {
				s.FoldedSince = now
			}
			s.Folded += rest
		}
		err = n.subs.Update(ctx, &s)
		if err == nil {
			*sub = s
			n.subs.Keep(sub)
			return mails, flush, since, nil
		}
		if !store.Changed(err) {
			return 0, 0, time.Time{}, err
		}
		// Another worker counted answers meanwhile: read it again.
		fresh, err := n.subs.Subscription(ctx, sub.Tenant, sub.Slug, sub.Email)
		if err != nil {
			return 0, 0, time.Time{}, err
		}
		if !fresh.EachAnswer {
			n.subs.Forget(sub.Tenant)
			return 0, 0, time.Time{}, nil
		}
		*sub = *fresh
	}
	return 0, 0, time.Time{}, errors.New("notify: the subscription keeps changing")
}

// links are a survey's links in its notifications.
func (n *Notify) link(tenant, slug, path string) string {
	return n.base + "/" + tenant + "/surveys/" + slug + "/" + path
}

func (n *Notify) unsubscribe(sub *store.Subscription, what string) string {
	return unsubscribeLink(n.base, n.key, survey.Unsubscribe{Tenant: sub.Tenant, Slug: sub.Slug, Email: sub.Email, What: what})
}

// answer queues the e-mail of one answer, at list position pos.
func (n *Notify) answer(ctx context.Context, sub *store.Subscription, sv *survey.Survey, a *survey.SurveyAnswer, pos int64, capped bool) {
	ex := survey.ExportAnswer(sv, a)
	var parts []answerPart
	for _, p := range ex.Answers {
		if len(parts) == notifyParts {
			break
		}
		parts = append(parts, answerPart{Question: short(p.QuestionText), Answer: short(p.Answer)})
	}
	data := struct {
		Survey, Tenant, Received, Link, Settings, Unsubscribe string
		Parts                                                 []answerPart
		Hidden                                                int
		Capped                                                bool
		Cap                                                   int64
	}{short(sv.Title), sub.Tenant, a.CreatedOn.UTC().Format("2 Jan 2006 15:04 UTC"), n.link(sub.Tenant, sub.Slug, "answers?i="+strconv.FormatInt(pos, 10)),
		n.link(sub.Tenant, sub.Slug, "notifications"), n.unsubscribe(sub, survey.NotifyEachAnswer), parts, len(ex.Answers) - len(parts), capped, n.cfg.Cap}
	n.send(ctx, "newanswer", sub.Email, data)
}

// more queues the e-mail of count answers beyond the cap since since.
func (n *Notify) more(ctx context.Context, sub *store.Subscription, title string, count int64, since time.Time) {
	data := struct {
		Survey, Tenant, Since, Link, Settings, Unsubscribe string
		Count, Cap                                         int64
	}{short(title), sub.Tenant, since.UTC().Format("2 Jan 2006 15:04 UTC"), n.link(sub.Tenant, sub.Slug, "answers/table"),
		n.link(sub.Tenant, sub.Slug, "notifications"), n.unsubscribe(sub, survey.NotifyEachAnswer), count, n.cfg.Cap}
	n.send(ctx, "moreanswers", sub.Email, data)
}

func (n *Notify) send(ctx context.Context, name, to string, data any) {
	msg, err := n.tpl.Render(name, to, data)
	if err == nil {
		err = n.outbox.Enqueue(ctx, msg)
	}
	if err != nil {
		n.log.Warn("notify: queue an e-mail", "mail", name, "err", err)
		return
	}
	n.queued.Inc()
}

// short is s on one line, cut to notifyAnswerRunes characters.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= notifyAnswerRunes {
		return s
	}
	r := []rune(s)
	return string(r[:notifyAnswerRunes-1]) + "…"
}

// Run ticks every cfg.Tick until ctx is done.
func (n *Notify) Run(ctx context.Context) error {
	t := time.NewTicker(n.cfg.Tick)
	defer t.Stop()
	for {
		if err := n.Tick(ctx); err != nil && ctx.Err() == nil {
			n.log.Warn("notify: tick", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Tick reads every subscription (one query per 1,000) and, for each,
// queues the "N more answers" e-mail of answers folded in an hour that is
// over, and the digest when one is due (reading the survey's summary then,
// and its definition when there are new answers). The subscription is
// written before the e-mails are queued, under its ETag, so that two
// instances ticking together send one digest: a crash between the two
// loses that day's digest, never doubles it.
func (n *Notify) Tick(ctx context.Context) error {
	now := n.Now().UTC()
	return n.subs.Each(ctx, func(sub *store.Subscription) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := n.due(ctx, sub, now); err != nil {
			n.log.Warn("notify: a subscription's digest", "tenant", sub.Tenant, "survey", sub.Slug, "err", err)
		}
		return nil
	})
}

type digestData struct {
	Survey, Tenant, Since, Link, Settings, Unsubscribe string
	Count, Total                                       int64
	Highlights                                         []string
}

func (n *Notify) due(ctx context.Context, sub *store.Subscription, now time.Time) error {
	s := *sub
	var flush int64
	var since time.Time
	if s.Folded > 0 && now.Sub(s.WindowStart) >= time.Hour {
		flush, since = s.Folded, s.FoldedSince
		s.Folded, s.FoldedSince, s.WindowStart, s.WindowSent = 0, time.Time{}, time.Time{}, 0
	}
	var digest *digestData
	var title string
	if s.Digest && now.Sub(s.DigestAt) >= n.cfg.DigestEvery {
		total, sum, err := n.total(ctx, sub)
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return n.subs.Delete(ctx, sub) // the survey is gone
		}
		if err != nil {
			return err
		}
		if total > s.DigestTotal {
			sv, err := n.surveys.Get(ctx, sub.Tenant, sub.Slug)
			if survey.ErrorCode(err) == survey.ENOTFOUND {
				return n.subs.Delete(ctx, sub)
			}
			if err != nil {
				return err
			}
			title = sv.Title
			digest = &digestData{Survey: short(sv.Title), Tenant: sub.Tenant, Since: s.DigestAt.UTC().Format("2 Jan 2006 15:04 UTC"),
				Link: n.link(sub.Tenant, sub.Slug, "analyze"), Settings: n.link(sub.Tenant, sub.Slug, "notifications"),
				Unsubscribe: n.unsubscribe(sub, survey.NotifyDigest), Count: total - s.DigestTotal, Total: total, Highlights: highlights(sum, 3)}
		}
		s.DigestAt, s.DigestTotal = now, total
	} else if flush == 0 {
		return nil
	}
	if flush > 0 && title == "" {
		sv, err := n.surveys.Get(ctx, sub.Tenant, sub.Slug)
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return n.subs.Delete(ctx, sub)
		}
		if err != nil {
			return err
		}
		title = sv.Title
	}
	if err := n.subs.Update(ctx, &s); store.Changed(err) {
		return nil // another instance took it
	} else if err != nil {
		return err
	}
	n.subs.Forget(sub.Tenant)
	if flush > 0 && s.EachAnswer {
		n.more(ctx, &s, title, flush, since)
	}
	if digest != nil {
		n.send(ctx, "digest", sub.Email, digest)
	}
	return nil
}

// total is the survey's count of answers, and its summary (nil before
// its first answer).
func (n *Notify) total(ctx context.Context, sub *store.Subscription) (int64, *survey.SurveyAnswersSummary, error) {
	sum, _, err := n.sums.Get(ctx, sub.Tenant, sub.Slug)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		// No answer yet, or no survey.
		if _, err := n.surveys.Get(ctx, sub.Tenant, sub.Slug); err != nil {
			return 0, nil, err
		}
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return sum.TotalAnswers, &sum.SurveyAnswersSummary, nil
}

// highlights are up to most lines about the survey's answers so far: the
// average of ratings, the most chosen choice, the most used words.
func highlights(sum *survey.SurveyAnswersSummary, most int) []string {
	if sum == nil {
		return nil
	}
	var out []string
	for i := range sum.Questions {
		if len(out) == most {
			break
		}
		q := &sum.Questions[i]
		text := short(q.QuestionText)
		switch {
		case q.Stars != nil:
			if count, _ := q.StarCount(); count > 0 {
				out = append(out, fmt.Sprintf("%s: %.1f stars on average", text, q.Average()))
			}
		case len(q.Choices) > 0:
			best := q.Choices[0]
			for _, c := range q.Choices[1:] {
				if c.Count > best.Count {
					best = c
				}
			}
			if best.Count > 0 {
				out = append(out, fmt.Sprintf("%s: “%s” is the most chosen (%d)", text, short(best.Answer), best.Count))
			}
		case len(q.Words) > 0:
			var words []string
			for _, w := range q.TopWords(3) {
				words = append(words, w.Word)
			}
			if len(words) > 0 {
				out = append(out, fmt.Sprintf("%s: most used words: %s", text, strings.Join(words, ", ")))
			}
		}
	}
	return out
}
