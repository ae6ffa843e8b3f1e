// Package metrics exports the application's counters in the Prometheus
// text format.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/surveys-dev/surveys/internal/storage/counting"
)

// storageCollector reads the counting layer at each scrape.
type storageCollector struct {
	counts *counting.Store
	calls  *prometheus.Desc
	errors *prometheus.Desc
}

func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.calls
	ch <- c.errors
}

func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	for _, row := range c.counts.Snapshot() {
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(row.Calls), row.Op.Service, row.Op.Kind)
		ch <- prometheus.MustNewConstMetric(c.errors, prometheus.CounterValue, float64(row.Errors), row.Op.Service, row.Op.Kind)
	}
}

// Registry holds the process's metrics.
type Registry struct {
	reg *prometheus.Registry
}

// New returns a registry with the Go runtime's metrics and the storage
// operation counts of st.
func New(st *counting.Store) *Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(&storageCollector{
		counts: st,
		calls: prometheus.NewDesc("surveys_storage_operations_total",
			"Storage operations, by service (table, blob, queue) and kind.", []string{"service", "kind"}, nil),
		errors: prometheus.NewDesc("surveys_storage_errors_total",
			"Storage operations that returned an error, by service and kind.", []string{"service", "kind"}, nil),
	})
	return &Registry{reg: reg}
}

// Register adds collectors (the worker's, the web server's).
func (r *Registry) Register(cs ...prometheus.Collector) { r.reg.MustRegister(cs...) }

// Handler serves /metrics.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}
