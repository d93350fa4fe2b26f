package web

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/weir-sql/weir/engine"
)

// static holds the live page: index.html, app.js (plain JavaScript, no
// framework, no build step) and style.css, compiled into the binary.
//
//go:embed static
var static embed.FS

// registerPage adds the live page to mux: the page at /, its assets under
// /static/ and its event stream at /events.
func registerPage(mux *http.ServeMux, eng *engine.Engine) {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	mux.Handle("/events", newPageEvents(eng, pageEventsInterval))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, files, "index.html")
	})
}
