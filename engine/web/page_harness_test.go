package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/wire"
)

// pageTestServer is a weir as `weir serve --http` runs it, in process: the
// real engine, its wire server on a loopback port (reached with pgx) and
// Handler on an httptest server.
type pageTestServer struct {
	eng  *engine.Engine
	sql  *pgx.Conn
	http *httptest.Server
}

// startPageTestServer opens an engine on a fresh data directory whose files
// root is filesRoot ("": none).
func startPageTestServer(t *testing.T, filesRoot string) *pageTestServer {
	t.Helper()
	cfg := engine.Config{DataDir: t.TempDir()}
	if filesRoot != "" {
		cfg.FilesRoots = []string{filesRoot}
	}
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
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		eng.Close()
	})
	hs := httptest.NewServer(Handler(eng))
	t.Cleanup(hs.Close) // after the browser and the stream readers are gone: Close waits for open requests
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", l.Addr()))
	if err != nil {
		t.Fatalf("connect to weir: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return &pageTestServer{eng: eng, sql: c, http: hs}
}

// exec runs each statement, failing the test on an error.
func (s *pageTestServer) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := s.sql.Exec(ctx, q)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// insertOrders adds n rows to the test's orders table, ids from first,
// with event times now.
func (s *pageTestServer) insertOrders(t *testing.T, first, n int) {
	t.Helper()
	if err := s.insertOrdersErr(first, n); err != nil {
		t.Fatalf("insert orders: %v", err)
	}
}

func (s *pageTestServer) insertOrdersErr(first, n int) error {
	q := "INSERT INTO orders SELECT i, CASE WHEN i % 3 = 0 THEN 'eu' WHEN i % 3 = 1 THEN 'us' ELSE 'apac' END, (i % 250)::numeric(10,2), now() FROM generate_series($1::bigint, $2::bigint) AS i"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.sql.Exec(ctx, q, first, first+n-1)
	return err
}

// pageWaitUntil polls cond until it holds or the deadline passes.
func pageWaitUntil(t *testing.T, what string, within time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, got := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v (last: %s)", what, within, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
