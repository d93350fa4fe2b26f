package wire_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/wire"
)

// stallInSCRAM opens a socket that starts a SCRAM login as user and stops
// after the server's first challenge, the way a slow-loris client would.
func stallInSCRAM(t *testing.T, addr, user string) (net.Conn, string) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": user}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	msg, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := msg.(*pgproto3.AuthenticationSASL); !ok {
		t.Fatalf("want AuthenticationSASL, got %#v", msg)
	}
	fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=stallnonce")})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	msg, err = fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	cont, ok := msg.(*pgproto3.AuthenticationSASLContinue)
	if !ok {
		t.Fatalf("want AuthenticationSASLContinue, got %#v", msg)
	}
	nc.SetDeadline(time.Time{})
	// The salt and iteration count, without the server's nonce.
	var salt []string
	for _, kv := range strings.Split(string(cont.Data), ",") {
		if !strings.HasPrefix(kv, "r=") {
			salt = append(salt, kv)
		}
	}
	return nc, strings.Join(salt, ",")
}

func slotsHandler(t *testing.T) *testHandler {
	h := newTestHandler()
	v, err := wire.SCRAMVerifier("alice pw")
	if err != nil {
		t.Fatal(err)
	}
	h.roles["alice"] = v
	h.roles["carol"] = "" // a normal role, trusted from loopback
	return h
}

func TestStalledHandshakesDoNotLockOut(t *testing.T) {
	ts := startServer(t, slotsHandler(t), wire.Config{MaxConnections: 10})
	for i := 0; i < 300; i++ {
		user := "alice"
		if i%2 == 1 {
			user = "nobody" // unknown roles get the same mock exchange
		}
		stallInSCRAM(t, ts.addr, user)
	}
	for _, user := range []string{"tester", "carol", "alice"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		pw := ""
		if user == "alice" {
			pw = "alice%20pw"
		}
		c, err := pgx.Connect(ctx, ts.url(user, pw))
		cancel()
		if err != nil {
			t.Fatalf("%s could not log in past 300 stalled handshakes: %v", user, err)
		}
		c.Close(context.Background())
	}
}

func TestSuperuserReservedConnections(t *testing.T) {
	ts := startServer(t, slotsHandler(t), wire.Config{MaxConnections: 10})
	ctx := testCtx(t)
	var conns []*pgx.Conn
	defer func() {
		for _, c := range conns {
			c.Close(context.Background())
		}
	}()
	connect := func(user string) error {
		c, err := pgx.Connect(ctx, ts.url(user, ""))
		if err == nil {
			conns = append(conns, c)
		}
		return err
	}
	for i := 0; i < 7; i++ {
		if err := connect("carol"); err != nil {
			t.Fatalf("normal connection %d: %v", i+1, err)
		}
	}
	err := connect("carol")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53300" || pe.Severity != "FATAL" ||
		pe.Message != "remaining connection slots are reserved for non-replication superuser connections" {
		t.Fatalf("8th normal connection: %v", err)
	}
	for i := 0; i < 3; i++ {
		if err := connect("tester"); err != nil {
			t.Fatalf("superuser connection %d into the reserved slots: %v", i+1, err)
		}
	}
	err = connect("tester")
	if !errors.As(err, &pe) || pe.Code != "53300" || pe.Message != "sorry, too many clients already" {
		t.Fatalf("11th connection: %v", err)
	}
}

// TestUnknownRoleLooksLikeWrongPassword: the exchange for a role that does
// not exist offers the same mechanism, a salt that is the same every time
// and 4096 iterations, and ends with the wrong-password error.
func TestUnknownRoleLooksLikeWrongPassword(t *testing.T) {
	ts := startServer(t, slotsHandler(t), wire.Config{})
	_, s1 := stallInSCRAM(t, ts.addr, "ghost")
	_, s2 := stallInSCRAM(t, ts.addr, "ghost")
	_, s3 := stallInSCRAM(t, ts.addr, "ghost2")
	_, real := stallInSCRAM(t, ts.addr, "alice")
	if s1 != s2 || s1 == s3 || !strings.HasSuffix(s1, ",i=4096") || len(s1) != len(real) {
		t.Fatalf("mock salts %q %q %q, real %q", s1, s2, s3, real)
	}
	_, err := pgx.Connect(testCtx(t), ts.url("ghost", "pw"))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Message != `password authentication failed for user "ghost"` {
		t.Fatalf("unknown role: %v", err)
	}
	_, err = pgx.Connect(testCtx(t), ts.url("alice", "pw"))
	if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Message != `password authentication failed for user "alice"` {
		t.Fatalf("wrong password: %v", err)
	}
}

// TestStartupBounds: past MaxStartups the oldest unauthenticated socket is
// closed, and one that says nothing is closed at StartupTimeout.
func TestStartupBounds(t *testing.T) {
	ts := startServer(t, slotsHandler(t), wire.Config{MaxStartups: 5, StartupTimeout: 300 * time.Millisecond})
	first, _ := stallInSCRAM(t, ts.addr, "alice")
	var last net.Conn
	for i := 0; i < 5; i++ {
		last, _ = stallInSCRAM(t, ts.addr, "alice")
	}
	first.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := first.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("oldest stalled handshake still open past MaxStartups: %v", err)
	}

	// A handshake stalled mid-SCRAM ends at StartupTimeout.
	last.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(last); err != nil && !isReset(err) {
		t.Fatalf("stalled handshake not closed at StartupTimeout: %v", err)
	}

	silent, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	start := time.Now()
	silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("silent socket: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("silent socket closed after %v, StartupTimeout is 300ms", d)
	}
	c, err := pgx.Connect(testCtx(t), ts.url("tester", ""))
	if err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}
