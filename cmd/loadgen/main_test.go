package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestMetrics(t *testing.T) {
	text := `# HELP x y
surveys_storage_operations_total{kind="put",service="blob"} 12
surveys_storage_operations_total{kind="get",service="table"} 3
surveys_summary_delay_seconds_bucket{le="0.1"} 10
surveys_summary_delay_seconds_bucket{le="1"} 90
surveys_summary_delay_seconds_bucket{le="+Inf"} 100
surveys_summary_delay_seconds_count 100
surveys_worker_answers_total 7
`
	m, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if m.value("surveys_worker_answers_total") != 7 || m.storageOps("surveys_storage_operations_total")["blob.put"] != 12 {
		t.Fatalf("scrape = %+v", m)
	}
	h := m.histogram("surveys_summary_delay_seconds")
	if v, over := bucketQuantile(.5, h); over || math.Abs(v-0.55) > 1e-9 {
		t.Errorf("p50 = %v %v, want 0.55", v, over)
	}
	if v, over := bucketQuantile(.05, h); over || math.Abs(v-0.05) > 1e-9 {
		t.Errorf("p5 = %v %v, want 0.05", v, over)
	}
	if v, over := bucketQuantile(.99, h); !over || v != 1 {
		t.Errorf("p99 = %v %v, want > 1", v, over)
	}
	d := bucketDelta(h, h)
	if v, _ := bucketQuantile(.5, d); !math.IsNaN(v) {
		t.Errorf("quantile of an empty delta = %v", v)
	}
}

func TestMergeDelays(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	obs := []observation{{at(0), 5}, {at(100), 5}, {at(200), 6}, {at(300), 8}, {at(400), 8}}
	tests := []struct {
		name string
		acks []time.Time
		want []time.Duration
	}{
		{"one each", []time.Time{at(50), at(250)}, []time.Duration{150 * time.Millisecond, 50 * time.Millisecond}},
		{"two in one batch", []time.Time{at(50), at(220), at(230)}, []time.Duration{150 * time.Millisecond, 80 * time.Millisecond, 70 * time.Millisecond}},
		{"not merged", []time.Time{at(0), at(10), at(20), at(30)}, []time.Duration{200 * time.Millisecond, 290 * time.Millisecond, 280 * time.Millisecond, -1}},
		// A scrape before the 303 came back (the merge raced the response).
		{"merged before the 303 was read", []time.Time{at(260)}, []time.Duration{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeDelays(tt.acks, 5, obs)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("delay %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
