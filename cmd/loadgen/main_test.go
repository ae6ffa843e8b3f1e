package main

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParsePage(t *testing.T) {
	page := `<form method="post" action="/survey/a/b">
    <input type="hidden" name="token" value="0000000000000000001-abcdef">
    <input type="radio" id="f-1-5" name="q-1" value="5" required>
    <input type="radio" id="f-1-4" name="q-1" value="4" required>
    <label class="choice"><input type="radio" name="q-2" value="Web portal" required> <span>Web portal</span></label>
    <label class="choice"><input type="radio" name="q-2" value="Fish &amp; chips" required> <span>x</span></label>
    <textarea id="f-3" name="q-3" rows="4" maxlength="4000" required></textarea>
  </form>`
	f, err := parsePage([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if f.token != "0000000000000000001-abcdef" || len(f.fields) != 3 {
		t.Fatalf("form = %+v", f)
	}
	if got := strings.Join(f.fields[1].choices, "|"); got != "Web portal|Fish & chips" {
		t.Errorf("choices = %q", got)
	}
	if !f.fields[2].text || f.fields[0].text || len(f.fields[0].choices) != 2 {
		t.Errorf("fields = %+v", f.fields)
	}
	v := f.answer(rand.New(rand.NewPCG(1, 1)))
	if v.Get("token") == "" || v.Get("q-3") == "" || (v.Get("q-1") != "5" && v.Get("q-1") != "4") {
		t.Errorf("answer = %v", v)
	}
	if _, err := parsePage([]byte(`<p>no form</p>`)); err == nil {
		t.Error("a page without a token parsed")
	}
}

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
