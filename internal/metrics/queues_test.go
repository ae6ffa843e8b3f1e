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
	qc := NewQueueCollector(st, []string{"work", "idle"}, QueueRefresh)
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
	if calls != 4 {
		t.Errorf("a refresh cost %d queue calls, want 2 per queue", calls)
	}

	// Within the refresh interval a scrape costs nothing and reports the
	// figures read before.
	msgs, err := st.Dequeue(ctx, "work", 1, time.Hour)
	if err != nil || len(msgs) != 1 || msgs[0].ID != first {
		t.Fatalf("Dequeue = %v, %v", msgs, err)
	}
	clock = clock.Add(QueueRefresh - time.Second)
	for range 5 {
		if g := gauges(t, reg); g["surveys_queue_depth"]["work"] != 2 {
			t.Fatalf("depth within the refresh interval = %v", g["surveys_queue_depth"])
		}
	}
	if n := queueCalls(st); n != calls {
		t.Errorf("5 scrapes within the refresh interval cost %d queue calls, want none", n-calls)
	}

	// Past it, the figures are read again: the message being worked on
	// still counts in the depth, but the age is the oldest visible one's.
	clock = clock.Add(2 * time.Second)
	g = gauges(t, reg)
	if d := g["surveys_queue_depth"]["work"]; d != 2 {
		t.Errorf("depth with one message hidden = %v, want 2", d)
	}
	if a := g["surveys_queue_oldest_message_age_seconds"]["work"]; a < 59+15 || a > 61+16 {
		t.Errorf("age = %v, want about 75 s (the second message's)", a)
	}
	if n := queueCalls(st); n != calls+4 {
		t.Errorf("the second refresh cost %d queue calls, want 4", n-calls)
	}
}

// A queue that cannot be read is left out rather than reported as empty.
func TestQueueCollectorMissingQueue(t *testing.T) {
	st := newTestQueues(t, "work")
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewQueueCollector(st, []string{"work", "missing"}, QueueRefresh))
	g := gauges(t, reg)
	if _, ok := g["surveys_queue_depth"]["missing"]; ok {
		t.Errorf("a missing queue reported: %v", g)
	}
	if _, ok := g["surveys_queue_depth"]["work"]; !ok {
		t.Errorf("queue work not reported: %v", g)
	}
}
