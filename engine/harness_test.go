package engine_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/wire"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// server is an in-process weir listening on a loopback port: the real
// engine and wire layer, reached over real TCP.
type server struct {
	dir  string
	eng  *engine.Engine
	srv  *wire.Server
	addr string
}

func startServer(t testing.TB, dir string) *server {
	t.Helper()
	return startServerWith(t, engine.Config{DataDir: dir})
}

// startServerWith starts an engine with the given configuration.
func startServerWith(t testing.TB, cfg engine.Config) *server {
	t.Helper()
	dir := cfg.DataDir
	eng, err := engine.Open(cfg)
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(eng, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go srv.Serve(l)
	s := &server{dir: dir, eng: eng, srv: srv, addr: l.Addr().String()}
	t.Cleanup(s.stop)
	return s
}

func (s *server) stop() {
	if s.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	s.eng.Close()
	s.srv = nil
}

func (s *server) url() string {
	return fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", s.addr)
}

func (s *server) connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.url())
	if err != nil {
		t.Fatalf("connect to weir: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}
