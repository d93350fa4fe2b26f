package web

import (
	"net/http"

	"github.com/weir-sql/weir/engine"
)

// newMetrics serves /metrics (to be built: prometheus/client_golang with
// its own registry).
func newMetrics(eng *engine.Engine) http.Handler { return http.NotFoundHandler() }
