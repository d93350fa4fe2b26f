package wire_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/wire"
)

// lockedBuffer collects log output from connection goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startupPacket() []byte {
	var sm pgproto3.StartupMessage
	sm.ProtocolVersion = pgproto3.ProtocolVersion30
	sm.Parameters = map[string]string{"user": "tester", "database": "db"}
	b, _ := sm.Encode(nil)
	return b
}

func frontendBytes(msgs ...pgproto3.FrontendMessage) []byte {
	var out []byte
	for _, m := range msgs {
		out, _ = m.Encode(out)
	}
	return out
}

// FuzzStartupAndMessages feeds arbitrary bytes to a server over net.Pipe,
// either as the very first bytes or after a valid startup. No panic may
// happen (recovered ones are logged and fail the test too), the connection
// must end once the client hangs up, and the server must then still serve a
// well-behaved client.
func FuzzStartupAndMessages(f *testing.F) {
	f.Add(true, frontendBytes(&pgproto3.Query{String: "select rows"}))
	f.Add(true, frontendBytes(&pgproto3.Parse{Name: "a", Query: "select $1"}, &pgproto3.Bind{PreparedStatement: "a", Parameters: [][]byte{[]byte("1")}, ResultFormatCodes: []int16{1}}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{}))
	f.Add(true, frontendBytes(&pgproto3.Query{String: "copy t from stdin csv"}, &pgproto3.CopyData{Data: []byte("1,\"x\n2,y\n")}, &pgproto3.CopyDone{}))
	f.Add(true, frontendBytes(&pgproto3.Query{String: "copy t from stdin binary"}, &pgproto3.CopyData{Data: []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x04\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff")}, &pgproto3.CopyDone{}))
	f.Add(true, frontendBytes(&pgproto3.Describe{ObjectType: 'P', Name: "x"}, &pgproto3.Close{ObjectType: 'X'}, &pgproto3.Sync{}))
	f.Add(true, []byte{'B', 0, 0, 0, 5, 0})
	f.Add(true, []byte{'Q', 0xff, 0xff, 0xff, 0xff})
	f.Add(false, startupPacket())
	f.Add(false, []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f, 0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x30})
	f.Add(false, []byte{0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e, 0, 0, 3, 0xe9, 1, 2, 3, 4})

	logs := &lockedBuffer{}
	h := newTestHandler()
	h.noPanic = true
	srv := wire.NewServer(h, wire.Config{
		MaxMessageSize: 1 << 16,
		Logger:         slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})

	f.Fuzz(func(t *testing.T, afterStartup bool, data []byte) {
		client, server := net.Pipe()
		if !srv.ServeConn(server) {
			t.Fatal("server refused a connection")
		}
		drained := make(chan struct{})
		go func() {
			io.Copy(io.Discard, client)
			close(drained)
		}()
		client.SetDeadline(time.Now().Add(10 * time.Second))
		if afterStartup {
			client.Write(startupPacket())
		}
		client.Write(data)
		client.Close()
		<-drained

		if s := logs.String(); strings.Contains(s, "panic") {
			t.Fatalf("connection panicked on %q:\n%s", data, s)
		}
		if !serves(t, srv) {
			t.Fatal("server stopped serving")
		}
	})
}

// serves runs one simple query on a fresh pipe connection.
func serves(t *testing.T, srv *wire.Server) bool {
	client, server := net.Pipe()
	defer client.Close()
	if !srv.ServeConn(server) {
		return false
	}
	client.SetDeadline(time.Now().Add(10 * time.Second))
	fe := pgproto3.NewFrontend(client, client)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "tester"}})
	fe.Send(&pgproto3.Query{String: "select many"})
	go fe.Flush() // net.Pipe writes block until the server reads
	rfq := 0
	rows := 0
	for rfq < 2 {
		m, err := fe.Receive()
		if err != nil {
			t.Logf("receive: %v", err)
			return false
		}
		switch m.(type) {
		case *pgproto3.ReadyForQuery:
			rfq++
		case *pgproto3.DataRow:
			rows++
		}
	}
	return rows == 7
}
