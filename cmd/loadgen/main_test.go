package main

import (
	"math"
	"strings"
	"testing"
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
