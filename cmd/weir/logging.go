package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// newLogger is the server's one structured logger (weir serve
// --log-format, --log-level): every line of the server, the engine's
// events included, goes through it.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(strings.TrimSpace(level))); err != nil {
		return nil, fmt.Errorf("--log-level must be debug, info, warn or error, not %q", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, not %q", format)
}

// sqlerrMessage is err's message without its SQLSTATE decoration.
func sqlerrMessage(err error) string { return sqlerr.From(err).Message }
