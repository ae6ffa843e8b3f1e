package web

import (
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// unmatchedRoute is the route label of requests no route matched, so that
// probes of random paths do not grow the label set.
const unmatchedRoute = "unmatched"

// httpMetrics measures every request by method, chi route pattern (never
// the raw path: tenants and slugs would explode the label set) and status.
type httpMetrics struct {
	inFlight prometheus.Gauge
	duration *prometheus.HistogramVec

	// observers caches the histogram child of each label set, so that the
	// hot path takes a read lock and a map lookup, and allocates nothing.
	mu        sync.RWMutex
	observers map[routeKey]prometheus.Observer
}

type routeKey struct {
	method, route string
	code          int
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "surveys_http_requests_in_flight", Help: "Requests being served."}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "surveys_http_request_duration_seconds",
			Help:    "Time to serve a request, by method, route pattern (\"unmatched\" when none matched) and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route", "code"}),
		observers: map[routeKey]prometheus.Observer{},
	}
}

func (m *httpMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.inFlight, m.duration}
}

// middleware must be the router's first, so that the route pattern is
// known when the inner handlers return.
func (m *httpMetrics) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		m.inFlight.Inc()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			m.inFlight.Dec()
			m.observer(r, sw.status()).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(sw, r)
	})
}

func (m *httpMetrics) observer(r *http.Request, code int) prometheus.Observer {
	route := unmatchedRoute
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			route = p
		}
	}
	k := routeKey{method: methodLabel(r.Method), route: route, code: code}
	m.mu.RLock()
	o, ok := m.observers[k]
	m.mu.RUnlock()
	if ok {
		return o
	}
	o = m.duration.WithLabelValues(k.method, k.route, statusLabel(code))
	m.mu.Lock()
	m.observers[k] = o
	m.mu.Unlock()
	return o
}

// methodLabel keeps the method label to the methods HTTP defines.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

func statusLabel(code int) string {
	if code < 100 || code > 999 {
		return "other"
	}
	return string([]byte{byte('0' + code/100), byte('0' + code/10%10), byte('0' + code%10)})
}

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets streaming handlers (the analyze page's updates) flush.
func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap serves http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
