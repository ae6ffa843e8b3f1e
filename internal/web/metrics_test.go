package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// requestCounts gathers the request histogram of app: sample counts by
// "method route code".
func requestCounts(t *testing.T, reg *prometheus.Registry) (map[string]uint64, float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts, inFlight := map[string]uint64{}, -1.0
	for _, f := range families {
		switch f.GetName() {
		case "surveys_http_request_duration_seconds":
			for _, m := range f.GetMetric() {
				counts[labels(m, "method", "route", "code")] += m.GetHistogram().GetSampleCount()
			}
		case "surveys_http_requests_in_flight":
			inFlight = f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return counts, inFlight
}

func labels(m *dto.Metric, names ...string) string {
	var vals []string
	for _, n := range names {
		for _, l := range m.GetLabel() {
			if l.GetName() == n {
				vals = append(vals, l.GetValue())
			}
		}
	}
	return strings.Join(vals, " ")
}

// Requests are measured by route pattern, never by raw path: a tenant's
// name or a slug never becomes a label value.
func TestRequestMetrics(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	reg := prometheus.NewRegistry()
	reg.MustRegister(app.web.Collectors()...)
	for _, tc := range []struct {
		method, path string
		want         string // method route code
	}{
		{"GET", app.path(), "GET /survey/{tenant}/{slug} 200"},
		{"GET", app.path(), "GET /survey/{tenant}/{slug} 200"},
		{"PUT", app.path(), "PUT unmatched 405"},
		{"GET", "/survey/adatum/no-such-survey", "GET /survey/{tenant}/{slug} 404"},
		{"POST", app.path(), "POST /survey/{tenant}/{slug} 422"},
		{"GET", "/healthz", "GET /healthz 200"},
		{"GET", "/no/such/page/adatum", "GET unmatched 404"},
		{"GET", "/adatum/surveys", "GET /{tenant}/surveys 303"},
		{"GET", "/api/v1/surveys", "GET /api/v1/* 401"},
	} {
		before, _ := requestCounts(t, reg)
		var code int
		if tc.method == "POST" {
			code, _, _ = app.do(t, tc.method, tc.path, map[string][]string{"token": {app.token(t, app.path())}}, nil)
		} else {
			code, _, _ = app.do(t, tc.method, tc.path, nil, nil)
		}
		// A response with its length is whole at the client before the
		// handler returns and the middleware counts it: wait for that.
		after, inFlight := requestCounts(t, reg)
		for deadline := time.Now().Add(2 * time.Minute); (inFlight != 0 || after[tc.want] == before[tc.want]) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
			after, inFlight = requestCounts(t, reg)
		}
		if inFlight != 0 {
			t.Errorf("%s %s: %v requests in flight two minutes after it returned", tc.method, tc.path, inFlight)
		}
		if got := after[tc.want] - before[tc.want]; got != 1 {
			t.Errorf("%s %s (status %d): %q counted %d times, want once; counts %v", tc.method, tc.path, code, tc.want, got, after)
		}
	}
	after, _ := requestCounts(t, reg)
	for k := range after {
		if strings.Contains(k, "adatum") || strings.Contains(k, app.adatum.Slug) {
			t.Errorf("label set %q holds a raw path", k)
		}
	}
}
