package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// ViewsQueue carries counts of survey page views, many surveys to a
// message; the views worker adds them to the ranks.
const ViewsQueue = "surveyviews"

// ViewMessage is a message of ViewsQueue: views counted by one instance
// since its last flush. ID names the counts, not the queue message: a
// message sent again (its enqueue seemed to fail, or a migration copied it
// twice) carries the same ID, and the views worker applies it once.
type ViewMessage struct {
	ID    string        `json:"id,omitempty"`
	Views []SurveyViews `json:"views"`
}

// SurveyViews is one survey's views in a ViewMessage, and its funnel:
// Pages[i] counts the respondents who left page i+1 of a multi-page
// survey for the next (Pages[0]: those who started).
type SurveyViews struct {
	Tenant string  `json:"t"`
	Slug   string  `json:"s"`
	N      int64   `json:"n"`
	Pages  []int64 `json:"p,omitempty"`
}

// MaxFunnelPages bounds the pages a survey's funnel counts.
const MaxFunnelPages = 50

// ViewCounter counts public survey page views in memory and flushes them to
// ViewsQueue every interval, in one message for all the surveys viewed (or
// a few, if they do not fit): a view costs no storage call, and a flush
// one enqueue. Counts not yet flushed are lost if the process dies; Run
// flushes them when it stops (on SIGTERM). A message whose enqueue failed
// is sent again as it was, with its ID, at the next flush: the enqueue may
// have stored it all the same.
type ViewCounter struct {
	st       storage.Storage
	interval time.Duration

	mu     sync.Mutex
	counts map[[2]string]int64
	pages  map[[2]string][]int64
	unsent []ViewMessage

	// Flushed, when set, is called after a flush wrote messages: it wakes
	// this instance's views worker (worker.Views.Wake).
	Flushed func()
}

// NewViewCounter returns a counter that flushes every interval.
func NewViewCounter(st storage.Storage, interval time.Duration) *ViewCounter {
	return &ViewCounter{st: st, interval: interval, counts: map[[2]string]int64{}, pages: map[[2]string][]int64{}}
}

// maxCountedSurveys bounds the memory of a counter between flushes.
const maxCountedSurveys = 100_000

// Add counts one view of a survey.
func (c *ViewCounter) Add(tenant, slug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := [2]string{tenant, slug}
	if _, ok := c.counts[k]; !ok && len(c.counts) >= maxCountedSurveys {
		return
	}
	c.counts[k]++
}

// AddPage counts a respondent leaving page (from 1) of a multi-page survey
// for the next: the survey's funnel, flushed with its views.
func (c *ViewCounter) AddPage(tenant, slug string, page int) {
	if page < 1 || page > MaxFunnelPages {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := [2]string{tenant, slug}
	p, ok := c.pages[k]
	if !ok && len(c.pages) >= maxCountedSurveys {
		return
	}
	for len(p) < page {
		p = append(p, 0)
	}
	p[page-1]++
	c.pages[k] = p
}

// addPages adds to into, growing it.
func addPages(into, add []int64) []int64 {
	for len(into) < len(add) {
		into = append(into, 0)
	}
	for i, n := range add {
		into[i] += n
	}
	return into
}

// maxUnsent bounds the messages kept to send again; past it, the counts
// of the oldest go back into the counter, under a new ID.
const maxUnsent = 64

// Pending is the number of views counted and not yet flushed.
func (c *ViewCounter) Pending() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, v := range c.counts {
		n += v
	}
	for _, m := range c.unsent {
		for _, v := range m.Views {
			n += v.N
		}
	}
	return n
}

// Flush puts the counts on the queue. Counts it could not enqueue are kept
// for the next flush.
func (c *ViewCounter) Flush(ctx context.Context) error {
	c.mu.Lock()
	counts, pages, msgs := c.counts, c.pages, c.unsent
	c.counts, c.pages, c.unsent = map[[2]string]int64{}, map[[2]string][]int64{}, nil
	c.mu.Unlock()
	if len(counts) == 0 && len(pages) == 0 && len(msgs) == 0 {
		return nil
	}
	for k := range pages {
		if _, ok := counts[k]; !ok {
			counts[k] = 0 // a funnel without views since the last flush
		}
	}
	cur := ViewMessage{ID: newViewID()}
	size := 0
	for k, n := range counts {
		// About the JSON size of one entry, with room to spare.
		entry := len(k[0]) + len(k[1]) + 40 + 21*len(pages[k])
		if size+entry > storage.MaxMessageSize-64 && len(cur.Views) > 0 {
			msgs = append(msgs, cur)
			cur, size = ViewMessage{ID: newViewID()}, 0
		}
		cur.Views = append(cur.Views, SurveyViews{Tenant: k[0], Slug: k[1], N: n, Pages: pages[k]})
		size += entry
	}
	if len(cur.Views) > 0 {
		msgs = append(msgs, cur)
	}
	for i, m := range msgs {
		data, err := json.Marshal(m)
		if err == nil {
			_, err = c.st.Enqueue(ctx, ViewsQueue, data, storage.EnqueueOptions{})
		}
		if err != nil {
			c.putBack(msgs[i:])
			return fmt.Errorf("store: flush views: %w", err)
		}
	}
	if c.Flushed != nil {
		c.Flushed()
	}
	return nil
}

// putBack keeps messages not sent, to send again as they are.
func (c *ViewCounter) putBack(msgs []ViewMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unsent = append(msgs, c.unsent...)
	for len(c.unsent) > maxUnsent {
		old := c.unsent[0]
		c.unsent = c.unsent[1:]
		for _, v := range old.Views {
			k := [2]string{v.Tenant, v.Slug}
			c.counts[k] += v.N
			if len(v.Pages) > 0 {
				c.pages[k] = addPages(c.pages[k], v.Pages)
			}
		}
	}
}

// newViewID returns a random ID for a views message.
func newViewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run flushes every interval until ctx is done, then flushes once more.
func (c *ViewCounter) Run(ctx context.Context) error {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			return c.Flush(fctx)
		case <-t.C:
			_ = c.Flush(ctx)
		}
	}
}
