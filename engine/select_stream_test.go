package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// heapPeak samples the live heap (as of the latest GC, so garbage not yet
// collected does not count) until stopped, and reports the highest figure
// above the live heap at start. The server runs in the test process, so
// this is the server's heap plus the client's (which keeps no rows).
type heapPeak struct {
	base, peak uint64
	stop       chan struct{}
	done       chan struct{}
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapPeak() *heapPeak {
	runtime.GC()
	h := &heapPeak{base: liveHeap(), stop: make(chan struct{}), done: make(chan struct{})}
	h.peak = h.base
	go func() {
		defer close(h.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-tick.C:
				h.peak = max(h.peak, liveHeap())
			}
		}
	}()
	return h
}

// end stops sampling and returns the peak growth in bytes.
func (h *heapPeak) end() uint64 {
	close(h.stop)
	<-h.done
	h.peak = max(h.peak, liveHeap())
	return h.peak - h.base
}

// TestSelectLargerThanQueryMemory: a result many times the server's query
// memory is sent whole (it used to fail with 53200 "the query result"),
// and the heap stays far below the result's size.
func TestSelectLargerThanQueryMemory(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), QueryMemory: 8 << 20})
	c := srv.connect(t)
	ctx := context.Background()
	// About 200 MB of values; the peak stays near 16 MB from 1M to 3M rows.
	const n = 2000000
	h := startHeapPeak()
	rows, err := c.Query(ctx, fmt.Sprintf("SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", n), pgx.QueryResultFormats{pgx.TextFormatCode})
	if err != nil {
		t.Fatal(err)
	}
	var got, bytes int64
	for rows.Next() {
		raw := rows.RawValues()
		bytes += int64(len(raw[0]) + len(raw[1]))
		got++
	}
	rows.Close()
	peak := h.end()
	if err := rows.Err(); err != nil || got != n {
		t.Fatalf("got %d rows, err %v", got, err)
	}
	if tag := rows.CommandTag().String(); tag != fmt.Sprintf("SELECT %d", n) {
		t.Errorf("tag %q", tag)
	}
	t.Logf("result %d MB of values, query memory 8 MB, peak live heap growth %.1f MB", bytes>>20, float64(peak)/(1<<20))
	if peak > uint64(bytes)/4 {
		t.Errorf("peak heap growth %d bytes for a %d-byte result: the result is being held", peak, bytes)
	}
	if used := srv.eng.QueryMemory().Used(); used != 0 {
		t.Errorf("%d bytes of query memory held after the result", used)
	}
}

// TestSelectFirstRowEarly: the first row of a long result arrives long
// before the last row is computed.
func TestSelectFirstRowEarly(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	ctx := context.Background()
	const n = 10000000
	start := time.Now()
	rows, err := c.Query(ctx, fmt.Sprintf("SELECT g FROM generate_series(1, %d) g", n))
	if err != nil {
		t.Fatal(err)
	}
	var first time.Duration
	got := 0
	for rows.Next() {
		if got == 0 {
			first = time.Since(start)
		}
		got++
	}
	rows.Close()
	total := time.Since(start)
	if rows.Err() != nil || got != n {
		t.Fatalf("%d rows, %v", got, rows.Err())
	}
	t.Logf("%d rows: first row after %v, last after %v", n, first, total)
	if first > total/4 {
		t.Errorf("first row after %v of %v: rows wait for the end of the result", first, total)
	}
}

// TestSelectCancelWhileSending: a CancelRequest or statement_timeout while
// the rows of a long result are being sent stops it with 57014 within a
// second; the session goes on and holds no query memory.
func TestSelectCancelWhileSending(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	ctx := context.Background()
	const endless = "SELECT g, repeat('x', 50) FROM generate_series(1, 10000000000) g"
	readUntilError := func(afterRows int, act func()) (int, error, time.Duration) {
		rows, err := c.Query(ctx, endless)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		var at time.Time
		for rows.Next() {
			n++
			if n == afterRows {
				at = time.Now()
				act()
			}
		}
		return n, rows.Err(), time.Since(at)
	}
	check := func(what string, n int, err error, d time.Duration, msg string) {
		t.Helper()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != msg {
			t.Fatalf("%s: want 57014 %q, got %v after %d rows", what, msg, err, n)
		}
		t.Logf("%s: 57014 %v after the cancel, %d rows received", what, d, n)
		if d > time.Second {
			t.Errorf("%s: result went on %v after the cancel", what, d)
		}
		var one int
		if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("%s: session after the cancel: %v", what, err)
		}
		if used := srv.eng.QueryMemory().Used(); used != 0 {
			t.Errorf("%s: %d bytes of query memory held", what, used)
		}
	}
	n, err, d := readUntilError(100000, func() {
		if err := c.PgConn().CancelRequest(ctx); err != nil {
			t.Error(err)
		}
	})
	check("CancelRequest", n, err, d, "canceling statement due to user request")

	if _, err := c.Exec(ctx, "SET statement_timeout = '500ms'"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err, _ = readUntilError(1, func() {})
	d = time.Since(start) - 500*time.Millisecond
	check("statement_timeout", n, err, d, "canceling statement due to statement timeout")
	if _, err := c.Exec(ctx, "RESET statement_timeout"); err != nil {
		t.Fatal(err)
	}
}

// midResultOutcome runs sql, reading every row, and describes what came:
// the rows before the error, the error, and whether the session goes on,
// inside a transaction block too.
func midResultOutcome(t *testing.T, c *pgx.Conn, sql string) (rows int, outcome string) {
	t.Helper()
	ctx := context.Background()
	r, err := c.Query(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		rows++
	}
	r.Close()
	var pe *pgconn.PgError
	if !errors.As(r.Err(), &pe) {
		t.Fatalf("%s: want an error, got %v", sql, r.Err())
	}
	outcome = pe.Code + " " + pe.Message
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		outcome += "; then SELECT 1: " + err.Error()
	}
	// In a transaction block the error fails the block.
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	r, _ = c.Query(ctx, sql)
	for r.Next() {
	}
	r.Close()
	_, err = c.Exec(ctx, "SELECT 1")
	if errors.As(err, &pe) {
		outcome += "; in a block then " + pe.Code
	} else {
		outcome += fmt.Sprintf("; in a block then %v", err)
	}
	if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	return rows, outcome
}

// TestSelectErrorMidResult: an error raised after rows were sent comes
// after them, as in PostgreSQL (compared with it): the same error, the
// session goes on, a transaction block fails. PostgreSQL computes one row
// at a time and sends every row before the failing one; weir fails the
// whole batch of the failing row, so it sends at most as many.
func TestSelectErrorMidResult(t *testing.T) {
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	pg := pgtest.Shared(t).Connect(t)
	for _, sql := range []string{
		"SELECT 1/(1000000-g) FROM generate_series(1, 2000000) g",
		"SELECT g, (ARRAY[1,2])[g] FROM generate_series(1, 100000) g WHERE 1/(70000-g) IS NOT NULL",
	} {
		wRows, wOut := midResultOutcome(t, w, sql)
		pgRows, pgOut := midResultOutcome(t, pg, sql)
		t.Logf("%s\n  weir: %d rows then %s\n  PostgreSQL: %d rows then %s", sql, wRows, wOut, pgRows, pgOut)
		if wOut != pgOut {
			t.Errorf("%s: weir %q, PostgreSQL %q", sql, wOut, pgOut)
		}
		if wRows == 0 || wRows > pgRows {
			t.Errorf("%s: weir sent %d rows before the error, PostgreSQL %d", sql, wRows, pgRows)
		}
	}
}

// protoClient drives the extended protocol by hand, to see the messages a
// suspended portal gets.
type protoClient struct {
	nc  net.Conn
	fe  *pgproto3.Frontend
	pid int32
}

func dialProto(t *testing.T, addr, user, db string) *protoClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(60 * time.Second))
	c := &protoClient{nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
	c.fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": user, "database": db}})
	if err := c.fe.Flush(); err != nil {
		t.Fatal(err)
	}
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
			return c
		}
	}
}

// transcript sends msgs and reads up to ReadyForQuery, describing what
// came back with runs of DataRows collapsed; sum adds up the integer
// columns of the rows (in text form), the j-th counted j times.
func (c *protoClient) transcript(t *testing.T, sum *int64, msgs ...pgproto3.FrontendMessage) []string {
	t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var out []string
	rows := 0
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := msg.(*pgproto3.DataRow); ok {
			rows++
			if sum != nil {
				for j, b := range d.Values {
					var v int64
					fmt.Sscan(string(b), &v)
					*sum += v * int64(j+1)
				}
			}
			continue
		}
		if rows > 0 {
			out = append(out, fmt.Sprintf("%d DataRow", rows))
			rows = 0
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			var names []string
			for _, f := range m.Fields {
				names = append(names, string(f.Name))
			}
			out = append(out, "RowDescription "+strings.Join(names, ","))
		case *pgproto3.CommandComplete:
			out = append(out, "CommandComplete "+string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			out = append(out, "ErrorResponse "+m.Code+" "+m.Message)
		case *pgproto3.ReadyForQuery:
			return append(out, "ReadyForQuery "+string(m.TxStatus))
		case *pgproto3.NoticeResponse, *pgproto3.ParameterStatus:
		default:
			out = append(out, strings.TrimPrefix(fmt.Sprintf("%T", msg), "*pgproto3."))
		}
	}
}

// suspendedPortalScenario fetches a result 1,000 rows per Execute as
// pgjdbc does with setFetchSize inside a transaction, with another
// statement run and rows inserted between Executes (the cursor does not
// see them), then ends the block and tries the portal again.
func suspendedPortalScenario(t *testing.T, c *protoClient, table string) (transcript []string, sum int64) {
	q := func(sql string) []string { return c.transcript(t, nil, &pgproto3.Query{String: sql}) }
	add := func(lines []string) { transcript = append(transcript, lines...) }
	add(q("CREATE TABLE " + table + " (a int)"))
	add(q("INSERT INTO " + table + " SELECT g FROM generate_series(1, 5000) g"))
	add(q("BEGIN"))
	add(q("INSERT INTO " + table + " SELECT g FROM generate_series(5001, 25500) g"))
	add(c.transcript(t, &sum,
		&pgproto3.Parse{Name: "s", Query: "SELECT a, 'x' AS b FROM " + table + " UNION ALL SELECT g, 'y' FROM generate_series(1, 3) g"},
		&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "c"},
		&pgproto3.Describe{ObjectType: 'P', Name: "c"},
		&pgproto3.Execute{Portal: "c", MaxRows: 1000},
		&pgproto3.Sync{}))
	for i := 0; i < 30; i++ {
		if i == 3 {
			// Another statement on the unnamed portal between fetches,
			// and rows the open cursor must not see.
			add(c.transcript(t, nil,
				&pgproto3.Parse{Query: "INSERT INTO " + table + " SELECT g FROM generate_series(1, 10) g"},
				&pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}))
		}
		lines := c.transcript(t, &sum, &pgproto3.Execute{Portal: "c", MaxRows: 1000}, &pgproto3.Sync{})
		add(lines)
		if !strings.Contains(strings.Join(lines, ";"), "PortalSuspended") {
			break
		}
	}
	add(q("COMMIT"))
	add(c.transcript(t, nil, &pgproto3.Execute{Portal: "c", MaxRows: 1000}, &pgproto3.Sync{}))
	add(q("DROP TABLE " + table))
	return transcript, sum
}

// TestSuspendedPortal: rows of a portal arrive in pieces of the Execute's
// row limit, each later Execute continues where the last stopped, over
// many Executes and with other statements between them, and the portal
// ends with its transaction: the same messages as PostgreSQL's.
func TestSuspendedPortal(t *testing.T) {
	srv := startServer(t, t.TempDir())
	pgs := pgtest.Shared(t)
	w := dialProto(t, srv.addr, "weir", "weir")
	p := dialProto(t, fmt.Sprintf("127.0.0.1:%d", pgs.Port), "postgres", "postgres")
	wt, wsum := suspendedPortalScenario(t, w, "portal_rows")
	pt, psum := suspendedPortalScenario(t, p, fmt.Sprintf("portal_rows_%d", time.Now().UnixNano()))
	const want = 25500*25501/2 + 6
	if wsum != want || psum != want {
		t.Errorf("sum of the rows fetched: weir %d, PostgreSQL %d, want %d", wsum, psum, want)
	}
	// PostgreSQL names its own table; the transcripts do not show names.
	if strings.Join(wt, "\n") != strings.Join(pt, "\n") {
		t.Errorf("weir:\n  %s\nPostgreSQL:\n  %s", strings.Join(wt, "\n  "), strings.Join(pt, "\n  "))
	}
}

// TestAbandonedPortalFreesEverything: a portal suspended in the middle of
// a spilling sort holds its spill files and memory until it is closed; a
// Close, the end of its transaction block, a new simple query's COMMIT or
// the client's disconnect frees all of it.
func TestAbandonedPortalFreesEverything(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	admin := &session{c: srv.connect(t)}
	goroutines := sessionGoroutines()
	tmp := filepath.Join(dir, "tmp")
	spillFiles := func() int {
		n := 0
		filepath.Walk(tmp, func(path string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	freed := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for spillFiles() != 0 || srv.eng.QueryMemory().Used() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d spill files and %d bytes of query memory still held", what, spillFiles(), srv.eng.QueryMemory().Used())
			}
			time.Sleep(5 * time.Millisecond) // polling a condition, with a deadline
		}
	}
	var mu sync.Mutex // one scenario at a time on the shared server
	suspend := func(c *protoClient) {
		mu.Lock()
		defer mu.Unlock()
		c.transcript(t, nil, &pgproto3.Query{String: "SET work_mem = '64kB'; BEGIN"})
		lines := c.transcript(t, nil,
			&pgproto3.Parse{Query: "SELECT g FROM generate_series(1, 300000) g ORDER BY g DESC"},
			&pgproto3.Bind{DestinationPortal: "c"},
			&pgproto3.Execute{Portal: "c", MaxRows: 10},
			&pgproto3.Sync{})
		if got := strings.Join(lines, ";"); got != "ParseComplete;BindComplete;10 DataRow;PortalSuspended;ReadyForQuery T" {
			t.Fatalf("suspend: %s", got)
		}
		if spillFiles() == 0 {
			t.Fatal("the suspended sort holds no spill files: the test does not test what it says")
		}
	}
	for _, tc := range []struct {
		name    string
		abandon []pgproto3.FrontendMessage
	}{
		{"Close", []pgproto3.FrontendMessage{&pgproto3.Close{ObjectType: 'P', Name: "c"}, &pgproto3.Sync{}}},
		{"ROLLBACK", []pgproto3.FrontendMessage{&pgproto3.Query{String: "ROLLBACK"}}},
		{"COMMIT, extended", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "COMMIT"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}}},
		{"error in the block", []pgproto3.FrontendMessage{&pgproto3.Query{String: "SELECT 1/0"}, &pgproto3.Query{String: "ROLLBACK"}}},
	} {
		c := dialProto(t, srv.addr, "weir", "weir")
		suspend(c)
		for _, m := range tc.abandon {
			// Each ends with a Sync or is a Query: one answer each.
			if _, ok := m.(*pgproto3.Sync); ok || isQuery(m) {
				c.transcript(t, nil, m)
			} else {
				c.fe.Send(m)
			}
		}
		freed(tc.name)
		lines := c.transcript(t, nil, &pgproto3.Execute{Portal: "c", MaxRows: 10}, &pgproto3.Sync{})
		if got := strings.Join(lines, ";"); !strings.HasPrefix(got, `ErrorResponse 34000 portal "c" does not exist;ReadyForQuery`) {
			t.Errorf("%s: Execute of the abandoned portal: %s", tc.name, got)
		}
		c.nc.Close()
	}
	// Continued after an error failed its block: 25P02, as PostgreSQL.
	c := dialProto(t, srv.addr, "weir", "weir")
	suspend(c)
	c.transcript(t, nil, &pgproto3.Query{String: "SELECT 1/0"})
	lines := c.transcript(t, nil, &pgproto3.Execute{Portal: "c", MaxRows: 10}, &pgproto3.Sync{})
	if got := strings.Join(lines, ";"); got != "ErrorResponse 25P02 current transaction is aborted, commands ignored until end of transaction block;ReadyForQuery E" {
		t.Errorf("Execute in a failed block: %s", got)
	}
	c.transcript(t, nil, &pgproto3.Query{String: "ROLLBACK"})
	freed("failed block")
	c.nc.Close()

	// The client vanishes while its portal is suspended.
	c = dialProto(t, srv.addr, "weir", "weir")
	suspend(c)
	c.nc.Close()
	waitGone(t, admin, c.pid, 5*time.Second)
	freed("disconnect")
	// Every session above is gone, and nothing they ran goes on.
	deadline := time.Now().Add(5 * time.Second)
	for sessionGoroutines() > goroutines {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines of sessions or operators, %d before:\n%s", sessionGoroutines(), goroutines, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, with a deadline
	}
}

// sessionGoroutines counts the goroutines serving connections or running
// operators (Badger's and the engine's own background goroutines come and
// go on their own).
func sessionGoroutines() int {
	buf := make([]byte, 8<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "weir/wire.(*conn)") || strings.Contains(g, "weir/exec.") {
			n++
		}
	}
	return n
}

func isQuery(m pgproto3.FrontendMessage) bool {
	_, ok := m.(*pgproto3.Query)
	return ok
}

// TestSelectErrorMidResultMessages: the messages of a result that fails
// part way, in the simple protocol, the extended protocol and a portal
// fetched 1,000 rows at a time in a block, are PostgreSQL's. The failing
// row is the first of a batch (row 2·8192+1), where weir, which fails a
// whole batch, and PostgreSQL, which fails a row, have sent the same rows.
func TestSelectErrorMidResultMessages(t *testing.T) {
	srv := startServer(t, t.TempDir())
	pgs := pgtest.Shared(t)
	const sql = "SELECT 1/(16385-g) AS q FROM generate_series(1, 20000) g"
	scenario := func(c *protoClient) []string {
		var out []string
		add := func(lines ...string) { out = append(out, lines...) }
		add(c.transcript(t, nil, &pgproto3.Query{String: sql + "; SELECT 2"})...)
		add(c.transcript(t, nil, &pgproto3.Parse{Query: sql}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})...)
		add(c.transcript(t, nil, &pgproto3.Query{String: "BEGIN"})...)
		add(c.transcript(t, nil, &pgproto3.Parse{Query: sql}, &pgproto3.Bind{DestinationPortal: "p"}, &pgproto3.Execute{Portal: "p", MaxRows: 1000}, &pgproto3.Sync{})...)
		for i := 0; i < 30; i++ {
			lines := c.transcript(t, nil, &pgproto3.Execute{Portal: "p", MaxRows: 1000}, &pgproto3.Sync{})
			add(lines...)
			if !strings.Contains(strings.Join(lines, ";"), "PortalSuspended") {
				break
			}
		}
		add(c.transcript(t, nil, &pgproto3.Query{String: "SELECT 3"})...)
		add(c.transcript(t, nil, &pgproto3.Query{String: "ROLLBACK"})...)
		add(c.transcript(t, nil, &pgproto3.Query{String: "SELECT 4"})...)
		return out
	}
	w := scenario(dialProto(t, srv.addr, "weir", "weir"))
	p := scenario(dialProto(t, fmt.Sprintf("127.0.0.1:%d", pgs.Port), "postgres", "postgres"))
	t.Logf("weir:\n  %s", strings.Join(w, "\n  "))
	if strings.Join(w, "\n") != strings.Join(p, "\n") {
		t.Errorf("weir:\n  %s\nPostgreSQL:\n  %s", strings.Join(w, "\n  "), strings.Join(p, "\n  "))
	}
}

// TestCursors: DECLARE / FETCH / MOVE / CLOSE as psql's FETCH_COUNT and
// hand-written SQL use them give PostgreSQL's messages, including a
// mid-result error inside a FETCH and cursors ending with their block;
// a closed block holds no query memory.
func TestCursors(t *testing.T) {
	srv := startServer(t, t.TempDir())
	pgs := pgtest.Shared(t)
	scenario := func(c *protoClient) (out []string, sum int64) {
		for _, sql := range []string{
			"DECLARE c CURSOR FOR SELECT 1",
			"BEGIN",
			"DECLARE c NO SCROLL CURSOR FOR SELECT g, repeat('x', 3) FROM generate_series(1, 25000) g",
			"FETCH FORWARD 10000 FROM c",
			"FETCH c",
			"MOVE 100 IN c",
			"FETCH ALL FROM c",
			"FETCH NEXT FROM c",
			"CLOSE c",
			"FETCH c",
			"ROLLBACK",
			"BEGIN",
			"DECLARE d CURSOR FOR SELECT 1/(16385-g) AS q FROM generate_series(1, 20000) g",
			"DECLARE d CURSOR FOR SELECT 1",
			"ROLLBACK",
			"BEGIN",
			"DECLARE d CURSOR FOR SELECT 1/(16385-g) AS q FROM generate_series(1, 20000) g",
			"FETCH 16000 FROM d",
			"FETCH 1000 FROM d",
			"FETCH 1000 FROM d",
			"ROLLBACK",
			"BEGIN",
			"DECLARE e CURSOR FOR SELECT g FROM generate_series(1, 10) g",
			"DECLARE f CURSOR FOR SELECT g FROM generate_series(1, 10) g",
			"CLOSE ALL",
			"FETCH e",
			"ROLLBACK",
			"BEGIN",
			"DECLARE e CURSOR FOR SELECT g FROM generate_series(1, 10) g",
			"COMMIT",
			"BEGIN",
			"FETCH e",
			"ROLLBACK",
			// As psql -v FETCH_COUNT=1000 does.
			"BEGIN",
			"DECLARE _psql_cursor NO SCROLL CURSOR FOR SELECT g FROM generate_series(1, 2500) g ORDER BY g DESC",
			"FETCH FORWARD 1000 FROM _psql_cursor",
			"FETCH FORWARD 1000 FROM _psql_cursor",
			"FETCH FORWARD 1000 FROM _psql_cursor",
			"CLOSE _psql_cursor",
			"COMMIT",
		} {
			out = append(out, "> "+sql)
			out = append(out, c.transcript(t, &sum, &pgproto3.Query{String: sql})...)
		}
		// In the extended protocol, as psycopg's server-side cursors: a
		// DECLARE with a parameter, Describe of the cursor's portal, and
		// FETCHes described before they run.
		out = append(out, c.transcript(t, nil, &pgproto3.Query{String: "BEGIN"})...)
		out = append(out, c.transcript(t, nil,
			&pgproto3.Parse{Query: "DECLARE pc CURSOR FOR SELECT g, g * $1::int AS h FROM generate_series(1, 2500) g"},
			&pgproto3.Bind{Parameters: [][]byte{[]byte("3")}}, &pgproto3.Execute{},
			&pgproto3.Describe{ObjectType: 'P', Name: "pc"}, &pgproto3.Sync{})...)
		for i := 0; i < 4; i++ {
			out = append(out, c.transcript(t, &sum, &pgproto3.Parse{Query: "FETCH FORWARD 1000 FROM pc"},
				&pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})...)
		}
		out = append(out, c.transcript(t, nil, &pgproto3.Query{String: "COMMIT"})...)
		return out, sum
	}
	w, wsum := scenario(dialProto(t, srv.addr, "weir", "weir"))
	p, psum := scenario(dialProto(t, fmt.Sprintf("127.0.0.1:%d", pgs.Port), "postgres", "postgres"))
	if strings.Join(w, "\n") != strings.Join(p, "\n") || wsum != psum {
		t.Errorf("weir (sum %d):\n  %s\nPostgreSQL (sum %d):\n  %s", wsum, strings.Join(w, "\n  "), psum, strings.Join(p, "\n  "))
	}
	if used := srv.eng.QueryMemory().Used(); used != 0 {
		t.Errorf("%d bytes of query memory held after the cursors' blocks ended", used)
	}
}

// TestInterleavedPortals: two portals of one prepared statement (with a
// subquery and a correlated one), fetched in turns, each get their own
// whole result, as in PostgreSQL.
func TestInterleavedPortals(t *testing.T) {
	srv := startServer(t, t.TempDir())
	pgs := pgtest.Shared(t)
	const sql = "SELECT g, (SELECT max(x) FROM generate_series(1, 5) x), (SELECT count(*) FROM generate_series(1, g % 7) y) FROM generate_series(1, 20000) g"
	scenario := func(c *protoClient) (out []string, sums [2]int64) {
		out = append(out, c.transcript(t, nil, &pgproto3.Query{String: "BEGIN"})...)
		out = append(out, c.transcript(t, nil, &pgproto3.Parse{Name: "s", Query: sql},
			&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p0"},
			&pgproto3.Bind{PreparedStatement: "s", DestinationPortal: "p1"}, &pgproto3.Sync{})...)
		for i := 0; i < 30; i++ {
			for k, name := range []string{"p0", "p1"} {
				out = append(out, c.transcript(t, &sums[k], &pgproto3.Execute{Portal: name, MaxRows: uint32(1000 + 700*k)}, &pgproto3.Sync{})...)
			}
		}
		out = append(out, c.transcript(t, nil, &pgproto3.Query{String: "COMMIT"})...)
		return out, sums
	}
	w, wsums := scenario(dialProto(t, srv.addr, "weir", "weir"))
	p, psums := scenario(dialProto(t, fmt.Sprintf("127.0.0.1:%d", pgs.Port), "postgres", "postgres"))
	if wsums != psums || wsums[0] != wsums[1] {
		t.Errorf("sums of the rows: weir %v, PostgreSQL %v", wsums, psums)
	}
	if strings.Join(w, "\n") != strings.Join(p, "\n") {
		t.Errorf("weir:\n  %s\nPostgreSQL:\n  %s", strings.Join(w, "\n  "), strings.Join(p, "\n  "))
	}
}
