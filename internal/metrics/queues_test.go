package metrics

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

// newTestQueues returns counted local storage with the queues named.
func newTestQueues(t *testing.T, queues ...string) *counting.Store {
	t.Helper()
	st, err := local.Open(filepath.Join(t.TempDir(), "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	c := counting.New(st)
	t.Cleanup(func() { _ = c.Close() })
	for _, q := range queues {
		if err := c.CreateQueue(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// gauges gathers reg and returns family → queue → value.
func gauges(t *testing.T, reg *prometheus.Registry) map[string]map[string]float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			if out[f.GetName()] == nil {
				out[f.GetName()] = map[string]float64{}
			}
			out[f.GetName()][m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
		}
	}
	return out
}

func queueCalls(c *counting.Store) int64 {
	var n int64
	for _, row := range c.Snapshot() {
		if row.Op.Service == "queue" && (row.Op.Kind == "count" || row.Op.Kind == "peek") {
			n += row.Calls
		}
	}
	return n
}

func TestQueueCollector(t *testing.T) {
	ctx := context.Background()
	st := newTestQueues(t, "work", "idle")
	first, err := st.Enqueue(ctx, "work", []byte("1"), storage.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Enqueue(ctx, "work", []byte("2"), storage.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	qc := NewQueueCollector(st, []string{"work", "idle"})
	clock := time.Now().Add(time.Minute) // the messages are a minute old
	qc.now = func() time.Time { return clock }
	reg := prometheus.NewRegistry()
	reg.MustRegister(qc)

	g := gauges(t, reg)
	depth, age := g["surveys_queue_depth"], g["surveys_queue_oldest_message_age_seconds"]
	if depth["work"] != 2 || depth["idle"] != 0 {
		t.Errorf("depth = %v, want work 2, idle 0", depth)
	}
	if age["work"] < 59 || age["work"] > 61 || age["idle"] != 0 {
		t.Errorf("age = %v, want work about 60 s, idle 0", age)
	}
	calls := queueCalls(st)
	if calls != 3 {
		t.Errorf("the first read cost %d queue calls, want 3 (a count each, a peek of the one not empty)", calls)
	}

	// Within a minute a scrape costs nothing and reports the figures read
	// before, though this process took a message.
	msgs, err := st.Dequeue(ctx, "work", 1, time.Hour)
	if err != nil || len(msgs) != 1 || msgs[0].ID != first {
		t.Fatalf("Dequeue = %v, %v", msgs, err)
	}
	clock = clock.Add(time.Minute - time.Second)
	for range 5 {
		if g := gauges(t, reg); g["surveys_queue_depth"]["work"] != 2 {
			t.Fatalf("depth within the refresh interval = %v", g["surveys_queue_depth"])
		}
	}
	if n := queueCalls(st); n != calls {
		t.Errorf("5 scrapes within a minute cost %d queue calls, want none", n-calls)
	}

	// Past it, the busy queue is read again (the message being worked on
	// still counts in the depth, but the age is the oldest visible one's);
	// the quiet one is not, for 5 minutes.
	clock = clock.Add(2 * time.Second)
	g = gauges(t, reg)
	if d := g["surveys_queue_depth"]["work"]; d != 2 {
		t.Errorf("depth with one message hidden = %v, want 2", d)
	}
	if a := g["surveys_queue_oldest_message_age_seconds"]["work"]; a < 59+60 || a > 61+61 {
		t.Errorf("age = %v, want about 120 s (the second message's)", a)
	}
	if n := queueCalls(st); n != calls+2 {
		t.Errorf("the second refresh cost %d queue calls, want 2 (work's count and peek)", n-calls)
	}
	calls = queueCalls(st)
	clock = clock.Add(4 * time.Minute)
	gauges(t, reg)
	if n := queueCalls(st); n != calls+1 {
		t.Errorf("5 minutes after the first read, a scrape cost %d queue calls, want 1 (idle's count)", n-calls)
	}

	// A poll that finds the queue empty is enough to know nothing waits:
	// the next scrape says 0 without a read.
	if err := st.DeleteMessage(ctx, "work", msgs[0].ID, msgs[0].PopReceipt); err != nil {
		t.Fatal(err)
	}
	rest, err := st.Dequeue(ctx, "work", 1, time.Hour)
	if err != nil || len(rest) != 1 {
		t.Fatalf("Dequeue = %v, %v", rest, err)
	}
	if err := st.DeleteMessage(ctx, "work", rest[0].ID, rest[0].PopReceipt); err != nil {
		t.Fatal(err)
	}
	if none, err := st.Dequeue(ctx, "work", 1, time.Hour); err != nil || len(none) != 0 {
		t.Fatalf("Dequeue of an empty queue = %v, %v", none, err)
	}
	calls = queueCalls(st)
	g = gauges(t, reg)
	if d, a := g["surveys_queue_depth"]["work"], g["surveys_queue_oldest_message_age_seconds"]["work"]; d != 0 || a != 0 {
		t.Errorf("after a poll found work empty: depth %v, age %v; want 0, 0", d, a)
	}
	if n := queueCalls(st); n != calls {
		t.Errorf("a scrape after a poll found the queue empty cost %d queue calls, want none", n-calls)
	}
}

// An idle instance, its workers polling their queues and Prometheus
// scraping every 15 s, pays for the scrapes about one count per quiet
// queue every five minutes, and nothing for the queues its workers poll.
func TestQueueCollectorIdleCost(t *testing.T) {
	ctx := context.Background()
	polled := []string{"answers", "premium", "views", "transfers", "mail", "webhooks"}
	quiet := []string{"answers-poison", "transfers-poison", "mail-poison", "webhooks-poison"}
	st := newTestQueues(t, append(append([]string{}, polled...), quiet...)...)
	qc := NewQueueCollector(st, append(append([]string{}, polled...), quiet...))
	clock := time.Now()
	qc.now = func() time.Time { return clock }
	reg := prometheus.NewRegistry()
	reg.MustRegister(qc)

	gauges(t, reg) // the first scrape reads every queue once
	if n := queueCalls(st); n != 10 {
		t.Fatalf("the first scrape cost %d queue calls, want 10 (a count each; all empty)", n)
	}
	const minutes = 20
	for range minutes * 4 {
		clock = clock.Add(15 * time.Second)
		for _, q := range polled {
			if _, err := st.Dequeue(ctx, q, 1, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		g := gauges(t, reg)
		if len(g["surveys_queue_depth"]) != 10 {
			t.Fatalf("a scrape reported %v, want every queue", g["surveys_queue_depth"])
		}
	}
	// 20 minutes: the 4 quiet queues read at 5, 10, 15 and 20 minutes.
	if n := queueCalls(st) - 10; n != 4*4 {
		t.Errorf("20 idle minutes of scrapes every 15 s cost %d queue calls, want 16 (0.8 a minute)", n)
	}
}

// A queue that cannot be read is left out rather than reported as empty.
func TestQueueCollectorMissingQueue(t *testing.T) {
	st := newTestQueues(t, "work")
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewQueueCollector(st, []string{"work", "missing"}))
	g := gauges(t, reg)
	if _, ok := g["surveys_queue_depth"]["missing"]; ok {
		t.Errorf("a missing queue reported: %v", g)
	}
	if _, ok := g["surveys_queue_depth"]["work"]; !ok {
		t.Errorf("queue work not reported: %v", g)
	}
}
