package wire_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/wire"
)

// rawClient speaks the protocol message by message, for what drivers do
// not expose (row limits, named portals, Flush).
type rawClient struct {
	t  *testing.T
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	c := &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "tester", "database": "db"}})
	msgs := c.until("ReadyForQuery")
	if msgs[0] != "AuthenticationOk" || !strings.HasPrefix(msgs[len(msgs)-2], "BackendKeyData") {
		t.Fatalf("startup: %q", msgs)
	}
	return c
}

func (c *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

// until reads messages up to and including one whose description starts
// with stop, and returns their descriptions.
func (c *rawClient) until(stop string) []string {
	c.t.Helper()
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			c.t.Fatalf("after %q: %v", out, err)
		}
		d := describeMsg(m)
		out = append(out, d)
		if strings.HasPrefix(d, stop) {
			return out
		}
	}
}

func describeMsg(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.DataRow:
		var vals []string
		for _, v := range m.Values {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		return "DataRow " + strings.Join(vals, ",")
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.ErrorResponse:
		return "ErrorResponse " + m.Severity + " " + m.Code
	case *pgproto3.RowDescription:
		var names []string
		for _, f := range m.Fields {
			names = append(names, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.Format))
		}
		return "RowDescription " + strings.Join(names, ",")
	case *pgproto3.ParameterDescription:
		return fmt.Sprint("ParameterDescription ", m.ParameterOIDs)
	case *pgproto3.ParameterStatus:
		return "ParameterStatus " + m.Name
	case *pgproto3.BackendKeyData:
		return "BackendKeyData"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
}

func expectMsgs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("messages\n got %q\nwant %q", got, want)
	}
}

func TestPortalRowLimits(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	c := dialRaw(t, ts.addr)

	c.send(&pgproto3.Parse{Name: "s", Query: "select many"},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s"},
		&pgproto3.Describe{ObjectType: 'P', Name: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"),
		"ParseComplete", "ParameterDescription []", "RowDescription n:20:0",
		"BindComplete", "RowDescription n:20:0",
		"DataRow 1", "DataRow 2", "PortalSuspended",
		"DataRow 3", "DataRow 4", "PortalSuspended",
		"ReadyForQuery I")

	// Outside a transaction block the portal ended at Sync.
	c.send(&pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "ErrorResponse ERROR 34000", "ReadyForQuery I")

	// Inside one it lives across Syncs until closed.
	c.send(&pgproto3.Query{String: "begin"})
	expectMsgs(t, c.until("ReadyForQuery"), "CommandComplete BEGIN", "ReadyForQuery T")
	c.send(&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", ResultFormatCodes: []int16{0}},
		&pgproto3.Execute{Portal: "p", MaxRows: 3}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "BindComplete", "DataRow 1", "DataRow 2", "DataRow 3", "PortalSuspended", "ReadyForQuery T")
	c.send(&pgproto3.Execute{Portal: "p", MaxRows: 3}, &pgproto3.Execute{Portal: "p", MaxRows: 3},
		&pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"),
		"DataRow 4", "DataRow 5", "DataRow 6", "PortalSuspended",
		"DataRow 7", "CommandComplete SELECT 1",
		"CommandComplete SELECT 0", "ReadyForQuery T")
	c.send(&pgproto3.Close{ObjectType: 'P', Name: "p"}, &pgproto3.Close{ObjectType: 'P', Name: "never"},
		&pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "CloseComplete", "CloseComplete", "ErrorResponse ERROR 34000", "ReadyForQuery T")

	// A named portal may not be bound twice.
	c.send(&pgproto3.Bind{DestinationPortal: "q", PreparedStatement: "s"},
		&pgproto3.Bind{DestinationPortal: "q", PreparedStatement: "s"}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "BindComplete", "ErrorResponse ERROR 42P03", "ReadyForQuery T")
	c.send(&pgproto3.Query{String: "commit"})
	expectMsgs(t, c.until("ReadyForQuery"), "CommandComplete COMMIT", "ReadyForQuery I")

	// Binary result format for the unnamed portal; Close S.
	c.send(&pgproto3.Bind{PreparedStatement: "s", ResultFormatCodes: []int16{1}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{MaxRows: 1},
		&pgproto3.Close{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{PreparedStatement: "s"}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "BindComplete", "RowDescription n:20:1",
		"DataRow \x00\x00\x00\x00\x00\x00\x00\x01", "PortalSuspended", "CloseComplete",
		"ErrorResponse ERROR 26000", "ReadyForQuery I")
}

func TestExtendedProtocolDetails(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	c := dialRaw(t, ts.addr)

	// Flush delivers what is pending without ending the pipeline.
	c.send(&pgproto3.Parse{Query: "select $1"}, &pgproto3.Flush{})
	expectMsgs(t, c.until("ParseComplete"), "ParseComplete")
	c.send(&pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Flush{})
	expectMsgs(t, c.until("RowDescription"), "ParameterDescription [23]", "RowDescription x:23:0")

	// After an error everything up to Sync is skipped, even a Query.
	c.send(&pgproto3.Parse{Query: "syntax error"}, &pgproto3.Query{String: "select rows"},
		&pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "ErrorResponse ERROR 42601", "ReadyForQuery I")

	// Bad result-format counts and codes.
	c.send(&pgproto3.Parse{Name: "r", Query: "select rows"},
		&pgproto3.Bind{PreparedStatement: "r", ResultFormatCodes: []int16{0, 1}}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "ParseComplete", "ErrorResponse ERROR 08P01", "ReadyForQuery I")
	c.send(&pgproto3.Bind{PreparedStatement: "r", ResultFormatCodes: []int16{7}}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "ErrorResponse ERROR 22023", "ReadyForQuery I")

	// Per-column formats, text rows with NULL.
	c.send(&pgproto3.Bind{PreparedStatement: "r", ResultFormatCodes: []int16{0, 0, 0}},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	got := c.until("ReadyForQuery")
	expectMsgs(t, got[:3], "BindComplete", "DataRow 1,alpha,2024-01-02 03:04:05+00", "DataRow 2,NULL,2024-06-30 12:00:00.000123+00")
	expectMsgs(t, got[4:], "CommandComplete SELECT 3", "ReadyForQuery I")

	// Empty statement: Execute answers EmptyQueryResponse, Describe NoData.
	c.send(&pgproto3.Parse{Query: "  "}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "ParseComplete", "BindComplete", "NoData", "EmptyQueryResponse", "ReadyForQuery I")

	// Describe P of a statement whose columns are known only at run time
	// answers NoData, and Execute then leads with a RowDescription.
	c.send(&pgproto3.Parse{Query: "show thing"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	expectMsgs(t, c.until("ReadyForQuery"), "ParseComplete", "BindComplete", "NoData",
		"RowDescription thing:25:0", "DataRow on", "CommandComplete SHOW", "ReadyForQuery I")

	// An unknown message type is a protocol violation that ends the session.
	if _, err := c.nc.Write([]byte{'@', 0, 0, 0, 4}); err != nil {
		t.Fatal(err)
	}
	expectMsgs(t, c.until("ErrorResponse"), "ErrorResponse FATAL 08P01")
	if _, err := c.fe.Receive(); err == nil {
		t.Fatal("connection still open after a protocol violation")
	}
}

func TestMalformedStartup(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	for _, pkt := range [][]byte{
		{0, 0, 0, 8, 0, 2, 0, 0},                          // protocol 2.0
		{0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0},              // absurd length
		{0, 0, 0, 9, 0, 3, 0, 0, 'u'},                     // parameters not terminated
		{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f},              // SSLRequest, then EOF
		{0, 0, 0, 12, 0x04, 0xd2, 0x16, 0x2e, 0, 0, 0, 1}, // short CancelRequest
	} {
		nc, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		nc.Write(pkt)
		nc.(*net.TCPConn).CloseWrite()
		buf := make([]byte, 512)
		for {
			if _, err := nc.Read(buf); err != nil {
				break // the server closed the connection; good
			}
		}
		nc.Close()
	}
	// Still serving.
	c := dialRaw(t, ts.addr)
	c.send(&pgproto3.Query{String: "select many"})
	if got := c.until("ReadyForQuery"); len(got) != 10 {
		t.Fatalf("%q", got)
	}
}

func TestClientDisconnectMidResult(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	c := dialRaw(t, ts.addr)
	c.send(&pgproto3.Query{String: "select big"})
	expectMsgs(t, c.until("DataRow"), "RowDescription n:20:0", "DataRow 0")
	c.nc.Close()
	select {
	case <-h.bigClosed:
	case <-time.After(10 * time.Second):
		t.Fatal("the result was not closed after the client left")
	}
	c2 := dialRaw(t, ts.addr)
	c2.send(&pgproto3.Query{String: "select many"})
	if got := c2.until("ReadyForQuery"); len(got) != 10 {
		t.Fatalf("%q", got)
	}
}
