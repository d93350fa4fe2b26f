// Package web serves the watching of a running weir over HTTP (weir serve
// --http ADDR): /metrics in Prometheus' text format (metrics.go) and the
// live page at / with its Server-Sent Events (page.go). Everything it
// shows comes from engine.Monitor; it reads no store and runs no SQL.
package web

import (
	"net/http"

	"github.com/weir-sql/weir/engine"
)

// Handler serves eng's monitoring.
func Handler(eng *engine.Engine) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", newMetrics(eng))
	registerPage(mux, eng)
	return mux
}
