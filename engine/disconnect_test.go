package engine_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// rawClient is a hand-driven connection, so a test can drop the socket
// in the middle of a statement.
type rawClient struct {
	nc  *net.TCPConn
	fe  *pgproto3.Frontend
	pid int32
}

func dialRawClient(t *testing.T, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	c := &rawClient{nc: nc.(*net.TCPConn), fe: pgproto3.NewFrontend(nc, nc)}
	c.fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "weir", "database": "weir"}})
	c.fe.Flush()
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.BackendKeyData:
			c.pid = int32(m.ProcessID)
		case *pgproto3.ErrorResponse:
			t.Fatalf("login: %s", m.Message)
		case *pgproto3.ReadyForQuery:
			nc.SetDeadline(time.Time{})
			return c
		}
	}
}

// TestDisconnectStopsStatement drops the client of a running statement
// and checks, from another session, that the session is gone within about
// a second, for a sleeping statement, busy scans and a result the client
// stopped reading.
func TestDisconnectStopsStatement(t *testing.T) {
	w := startServer(t, t.TempDir())
	admin := &session{c: w.connect(t)}
	for _, tc := range []struct {
		name, sql string
		reset     bool // RST instead of FIN
	}{
		{"pg_sleep", "SELECT pg_sleep(60)", false},
		{"pg_sleep, reset", "SELECT pg_sleep(60)", true},
		{"scan", "SELECT count(*) FROM generate_series(1, 10000000000) g", false},
		{"join", "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b WHERE a.a + b.b < 0", false},
		{"unread rows", "SELECT g, repeat('x', 100) FROM generate_series(1, 100000000) g", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRawClient(t, w.addr)
			c.fe.Send(&pgproto3.Query{String: tc.sql})
			c.fe.Flush()
			waitActive(t, admin, c.pid)
			if tc.reset {
				c.nc.SetLinger(0)
			}
			c.nc.Close()
			d := waitGone(t, admin, c.pid, 10*time.Second)
			t.Logf("%s: session gone %v after the client", tc.name, d)
			if d > 1500*time.Millisecond {
				t.Errorf("%s: session lived on %v after its client left", tc.name, d)
			}
		})
	}
}

// TestShutdownCancelsStatements: Shutdown stops running statements at
// once and their clients get FATAL 57P01.
func TestShutdownCancelsStatements(t *testing.T) {
	w := startServer(t, t.TempDir())
	admin := &session{c: w.connect(t)}
	var runs []<-chan string
	for _, q := range []string{"SELECT pg_sleep(60)", "SELECT count(*) FROM generate_series(1, 10000000000) g"} {
		s := &session{c: w.connect(t)}
		if err := s.c.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&s.pid); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, s.start(q))
		waitActive(t, admin, s.pid)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %v with running statements", d)
	}
	for i, r := range runs {
		got := outcomeWithin(t, r, 5*time.Second)
		if got != "FATAL 57P01 terminating connection due to administrator command" {
			t.Errorf("statement %d at shutdown: %s", i, got)
		}
	}
	w.eng.Close()
	w.srv = nil
}
