package web

import (
	"net/http"

	"github.com/weir-sql/weir/engine"
)

// registerPage adds the live page (/, its assets and its event stream) to
// mux (to be built).
func registerPage(mux *http.ServeMux, eng *engine.Engine) {}
