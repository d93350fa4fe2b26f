package web

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/weir-sql/weir/engine"
)

// newMetrics serves /metrics in Prometheus' text format (or OpenMetrics or
// protobuf, as the scraper asks) from a registry of its own: the pipeline
// collector (metrics_collector.go), which reads engine.Monitor once per
// scrape, and the Go runtime and process collectors. The global registry
// is not used, so that nothing a library registers there leaks into
// weir's metrics and two engines in one process (tests) do not collide.
func newMetrics(eng *engine.Engine) http.Handler {
	return promhttp.HandlerFor(newRegistry(eng), promhttp.HandlerOpts{
		// A metric that cannot be encoded is left out and the rest
		// served: a scrape should not go blank for one odd figure.
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// newRegistry is /metrics' registry for eng.
func newRegistry(eng *engine.Engine) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		newPipelineCollector(eng.Monitor),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}
