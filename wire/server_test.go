package wire_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/wire"
)

type testServer struct {
	srv  *wire.Server
	h    *testHandler
	addr string
	done chan error
}

func startServer(t *testing.T, h *testHandler, cfg wire.Config) *testServer {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{srv: wire.NewServer(h, cfg), h: h, addr: l.Addr().String(), done: make(chan error, 1)}
	go func() { ts.done <- ts.srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return ts
}

func (ts *testServer) url(user, password string) string {
	u := user
	if password != "" {
		u += ":" + password
	}
	return fmt.Sprintf("postgres://%s@%s/db?sslmode=disable", u, ts.addr)
}

func (ts *testServer) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(testCtx(t), ts.url("tester", ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func pgErrCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestSimpleQuery(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)

	results, err := conn.PgConn().Exec(ctx, "select rows; select many").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("got %d results, want 2", len(results))
	}
	r := results[0]
	if got := r.CommandTag.String(); got != "SELECT 3" {
		t.Errorf("tag %q", got)
	}
	if len(r.FieldDescriptions) != 3 || r.FieldDescriptions[0].Name != "id" || r.FieldDescriptions[2].DataTypeOID != 1184 || r.FieldDescriptions[0].Format != 0 {
		t.Errorf("fields %+v", r.FieldDescriptions)
	}
	if len(r.Rows) != 3 || string(r.Rows[0][0]) != "1" || string(r.Rows[0][1]) != "alpha" || r.Rows[1][1] != nil {
		t.Errorf("rows %q", r.Rows)
	}
	if string(r.Rows[2][1]) != "gamma\twith tab" {
		t.Errorf("text value %q", r.Rows[2][1])
	}
	if got := results[1].CommandTag.String(); got != "SELECT 7" || len(results[1].Rows) != 7 {
		t.Errorf("second result %q with %d rows", got, len(results[1].Rows))
	}

	// An error stops the rest of the string; the session carries on.
	results, err = conn.PgConn().Exec(ctx, "select rows; fail; select many").ReadAll()
	if pgErrCode(err) != "42P01" {
		t.Fatalf("want 42P01, got %v", err)
	}
	if len(results) != 1 || len(results[0].Rows) != 3 {
		t.Errorf("results before the error: %d", len(results))
	}

	// Empty and comment-only queries: EmptyQueryResponse (pgx Ping relies on it).
	if err := conn.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, ";"); err != nil {
		t.Fatal(err)
	}
	if _, err = conn.Exec(ctx, "syntax error"); pgErrCode(err) != "42601" {
		t.Fatalf("want 42601, got %v", err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Position != 1 {
		t.Errorf("position %d", pe.Position)
	}
	tag, err := conn.Exec(ctx, "notice")
	if err != nil || tag.String() != "DO" {
		t.Fatalf("notice: %v %q", err, tag)
	}
}

func TestNoticeAndParameterStatus(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	var notices []string
	cfg, err := pgx.ParseConfig(ts.url("tester", ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+" "+n.Message) }
	conn, err := pgx.ConnectConfig(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if got := conn.PgConn().ParameterStatus("server_version"); got != "15.18" {
		t.Errorf("server_version %q", got)
	}
	if conn.PgConn().PID() == 0 {
		t.Error("no BackendKeyData pid")
	}
	if _, err := conn.Exec(testCtx(t), "notice"); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || notices[0] != "NOTICE hello from the engine" {
		t.Errorf("notices %q", notices)
	}
}

func TestPreparedStatements(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)

	// Default mode: Parse/Describe, then Bind with a binary int4 param and
	// binary results.
	for _, want := range []int32{42, -7, 42} {
		var got int32
		if err := conn.QueryRow(ctx, "select $1", want).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("echo %d, got %d", want, got)
		}
	}
	var null *int32
	if err := conn.QueryRow(ctx, "select $1", nil).Scan(&null); err != nil || null != nil {
		t.Fatalf("NULL param: %v %v", err, null)
	}
	// Text params and results (exec mode Exec: Parse, Bind, Describe P, Execute).
	var s string
	if err := conn.QueryRow(ctx, "select $1", pgx.QueryExecModeExec, "5").Scan(&s); err != nil || s != "5" {
		t.Fatalf("text echo: %v %q", err, s)
	}

	// Binary timestamptz and int4 results, NULL in between.
	rows, err := conn.Query(ctx, "select rows")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for rows.Next() {
		var id int32
		var name *string
		var tstz time.Time
		if err := rows.Scan(&id, &name, &tstz); err != nil {
			t.Fatal(err)
		}
		if id != int32(n+1) || !tstz.Equal(rowsTimes[n]) || (n == 1) != (name == nil) {
			t.Errorf("row %d: %d %v %v", n, id, name, tstz)
		}
		if fd := rows.FieldDescriptions(); fd[0].Format != 1 || fd[2].Format != 1 {
			t.Errorf("formats %+v", fd)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 3 {
		t.Fatalf("rows: %v, %d", err, n)
	}
	if tag := rows.CommandTag().String(); tag != "SELECT 3" {
		t.Errorf("tag %q", tag)
	}

	// An extended-protocol error skips to Sync and the session recovers.
	if _, err := conn.Exec(ctx, "fail", pgx.QueryExecModeExec); pgErrCode(err) != "42P01" {
		t.Fatalf("want 42P01, got %v", err)
	}
	var got int32
	if err := conn.QueryRow(ctx, "select $1", 9).Scan(&got); err != nil || got != 9 {
		t.Fatalf("after error: %v %d", err, got)
	}

	// SHOW-like statements: no columns at Describe, rows at Execute.
	var v string
	if err := conn.QueryRow(ctx, "show thing").Scan(&v); err != nil || v != "on" {
		t.Fatalf("show: %v %q", err, v)
	}
}

func TestPreparedErrors(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)
	pc := conn.PgConn()

	if _, err := pc.Prepare(ctx, "two", "select rows; select many", nil); pgErrCode(err) != "42601" ||
		!strings.Contains(err.Error(), "cannot insert multiple commands into a prepared statement") {
		t.Fatalf("multi-statement Parse: %v", err)
	}
	if _, err := pc.Prepare(ctx, "s1", "select $1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Prepare(ctx, "s1", "select $1", nil); pgErrCode(err) != "42P05" {
		t.Fatalf("duplicate: %v", err)
	}
	res := pc.ExecPrepared(ctx, "s1", [][]byte{[]byte("1"), []byte("2")}, nil, nil).Read()
	if pgErrCode(res.Err) != "08P01" {
		t.Fatalf("wrong param count: %v", res.Err)
	}
	res = pc.ExecPrepared(ctx, "nope", nil, nil, nil).Read()
	if pgErrCode(res.Err) != "26000" {
		t.Fatalf("missing statement: %v", res.Err)
	}
	res = pc.ExecPrepared(ctx, "s1", [][]byte{[]byte("12")}, nil, nil).Read()
	if res.Err != nil || string(res.Rows[0][0]) != "12" {
		t.Fatalf("after errors: %v %q", res.Err, res.Rows)
	}
	sd, err := pc.Prepare(ctx, "", "", nil)
	if err != nil || len(sd.Fields) != 0 {
		t.Fatalf("empty statement: %v", err)
	}
}

func TestSendBatchPipelined(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)

	b := &pgx.Batch{}
	for i := range 5 {
		b.Queue("select $1", int32(i*10))
	}
	b.Queue("select many")
	br := conn.SendBatch(ctx, b)
	for i := range 5 {
		var got int32
		if err := br.QueryRow().Scan(&got); err != nil || got != int32(i*10) {
			t.Fatalf("batch item %d: %v %d", i, err, got)
		}
	}
	rows, err := br.Query()
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		sum += n
	}
	if rows.Err() != nil || sum != 28 {
		t.Fatalf("many: %v sum %d", rows.Err(), sum)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}

	// An error in the middle of a pipeline fails the rest up to Sync.
	b = &pgx.Batch{}
	b.Queue("select $1", int32(1))
	b.Queue("fail")
	b.Queue("select $1", int32(3))
	br = conn.SendBatch(ctx, b)
	var got int32
	if err := br.QueryRow().Scan(&got); err != nil || got != 1 {
		t.Fatalf("first: %v", err)
	}
	if _, err := br.Exec(); pgErrCode(err) != "42P01" {
		t.Fatalf("second: %v", err)
	}
	if err := br.QueryRow().Scan(&got); err == nil {
		t.Fatal("third statement ran after the error")
	}
	br.Close()
	if err := conn.QueryRow(ctx, "select $1", 4).Scan(&got); err != nil || got != 4 {
		t.Fatalf("after batch: %v", err)
	}
}

func TestCopyFromBinary(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	conn := ts.connect(t)
	name2 := "second"
	rows := [][]any{{int32(1), "first"}, {int32(2), &name2}, {int32(3), nil}}
	for i := 4; i <= 10000; i++ {
		rows = append(rows, []any{int32(i), "bulk"})
	}
	n, err := conn.CopyFrom(testCtx(t), pgx.Identifier{"t"}, []string{"id", "name"}, pgx.CopyFromRows(rows))
	if err != nil {
		t.Fatal(err)
	}
	if n != 10000 {
		t.Fatalf("copied %d", n)
	}
	got := h.copiedRows()
	if len(got) != 10000 || got[0] != [2]string{"1", "first"} || got[1] != [2]string{"2", "second"} || got[2] != [2]string{"3", "<NULL>"} || got[9999] != [2]string{"10000", "bulk"} {
		t.Fatalf("copied rows %v ... (%d)", got[:3], len(got))
	}
}

func TestCopyFromText(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)
	pc := conn.PgConn()

	data := "1\tplain\n2\t\\N\n3\ttab\\there\\\\slash\\nnl\n4\t\\x41\\101\r\n5\t\n"
	tag, err := pc.CopyFrom(ctx, strings.NewReader(data), "copy t from stdin")
	if err != nil || tag.String() != "COPY 5" {
		t.Fatalf("text copy: %v %q", err, tag)
	}
	want := [][2]string{{"1", "plain"}, {"2", "<NULL>"}, {"3", "tab\there\\slash\nnl"}, {"4", "AA"}, {"5", ""}}
	if got := h.copiedRows(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("text rows\n got %q\nwant %q", got, want)
	}
}

func TestCopyFromCSV(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	pc := ts.connect(t).PgConn()
	ctx := testCtx(t)

	data := "id,name\n1,\"quoted, comma\"\n2,\n3,\"\"\n4,\"multi\nline \"\"q\"\"\"\n5,plain\n"
	tag, err := pc.CopyFrom(ctx, strings.NewReader(data), "copy t from stdin csv header")
	if err != nil || tag.String() != "COPY 5" {
		t.Fatalf("csv copy: %v %q", err, tag)
	}
	want := [][2]string{{"1", "quoted, comma"}, {"2", "<NULL>"}, {"3", ""}, {"4", "multi\nline \"q\""}, {"5", "plain"}}
	if got := h.copiedRows(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("csv rows\n got %q\nwant %q", got, want)
	}
}

func TestCopyFromCSVOptions(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	pc := ts.connect(t).PgConn()
	ctx := testCtx(t)

	data := "1,\"a\\\"b\\\\c\"\n2,NULL\n3,\"NULL\"\n4,\n"
	tag, err := pc.CopyFrom(ctx, strings.NewReader(data), "copy t from stdin csv escape backslash null marker")
	if err != nil || tag.String() != "COPY 4" {
		t.Fatalf("csv copy: %v %q", err, tag)
	}
	want := [][2]string{{"1", `a"b\c`}, {"2", "<NULL>"}, {"3", "NULL"}, {"4", ""}}
	if got := h.copiedRows(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("csv rows\n got %q\nwant %q", got, want)
	}
	h.mu.Lock()
	h.copied = nil
	h.mu.Unlock()
	data = "1,'it''s, quoted'\n"
	if _, err := pc.CopyFrom(ctx, strings.NewReader(data), "copy t from stdin csv quote single"); err != nil {
		t.Fatal(err)
	}
	if got := h.copiedRows(); len(got) != 1 || got[0][1] != "it's, quoted" {
		t.Fatalf("single quote: %q", got)
	}
}

// A reader that hands out its data in tiny pieces so records straddle
// CopyData messages.
type trickleReader struct {
	data []byte
}

func (r *trickleReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), 3, len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

func TestCopyFromSplitMessages(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	pc := ts.connect(t).PgConn()
	data := "1;\"a;b\"\n2;\"x\ny\"\n3;z"
	tag, err := pc.CopyFrom(testCtx(t), &trickleReader{data: []byte(data)}, "copy t from stdin csv delimiter semicolon")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("%v %q", err, tag)
	}
	want := [][2]string{{"1", "a;b"}, {"2", "x\ny"}, {"3", "z"}}
	if got := h.copiedRows(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows\n got %q\nwant %q", got, want)
	}
}

func TestCopyFromErrors(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	conn := ts.connect(t)
	pc := conn.PgConn()
	ctx := testCtx(t)

	// A bad value on line 3: the error names the line and column, and the
	// rest of the stream (many more lines) is consumed first.
	var sb strings.Builder
	sb.WriteString("1\ta\n2\tb\nabc\tc\n")
	for i := range 5000 {
		fmt.Fprintf(&sb, "%d\tfiller\n", i)
	}
	_, err := pc.CopyFrom(ctx, strings.NewReader(sb.String()), "copy t from stdin")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22P02" || pe.Where != `COPY t, line 3, column id: "abc"` {
		t.Fatalf("bad value: %#v", err)
	}

	cases := []struct {
		data, code, where string
	}{
		{"1\ta\textra\n", "22P04", "COPY t, line 1: \"1\ta\textra\""},
		{"1\ta\n2\n", "22P04", `COPY t, line 2: "2"`},
	}
	for _, c := range cases {
		_, err := pc.CopyFrom(ctx, strings.NewReader(c.data), "copy t from stdin")
		if !errors.As(err, &pe) || pe.Code != c.code || pe.Where != c.where {
			t.Errorf("%q: %#v", c.data, err)
		}
	}
	_, err = pc.CopyFrom(ctx, strings.NewReader("1,\"open\n"), "copy t from stdin csv")
	if pgErrCode(err) != "22P04" || !strings.Contains(err.Error(), "unterminated CSV quoted field") {
		t.Errorf("unterminated quote: %v", err)
	}
	_, err = pc.CopyFrom(ctx, strings.NewReader("not a binary header at all"), "copy t from stdin binary")
	if pgErrCode(err) != "22P04" || !strings.Contains(err.Error(), "COPY file signature not recognized") {
		t.Errorf("binary signature: %v", err)
	}

	// CopyFail from the client (a failing reader).
	_, err = pc.CopyFrom(ctx, io.MultiReader(strings.NewReader("1\ta\n"), errReader{}), "copy t from stdin")
	if !errors.As(err, &pe) || pe.Code != "57014" || !strings.HasPrefix(pe.Message, "COPY from stdin failed: ") {
		t.Errorf("CopyFail: %#v", err)
	}

	// The connection is still in sync after all that.
	var got int32
	if err := conn.QueryRow(ctx, "select $1", 77).Scan(&got); err != nil || got != 77 {
		t.Fatalf("after copy errors: %v %d", err, got)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("client gave up") }

func TestCopyTo(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	pc := ts.connect(t).PgConn()
	ctx := testCtx(t)

	var buf bytes.Buffer
	tag, err := pc.CopyTo(ctx, &buf, "copy out")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("copy out: %v %q", err, tag)
	}
	want := "1\talpha\t2024-01-02 03:04:05+00\n" +
		"2\t\\N\t2024-06-30 12:00:00.000123+00\n" +
		"3\tgamma\\twith tab\t1999-12-31 23:59:59+00\n"
	if buf.String() != want {
		t.Errorf("text copy out\n got %q\nwant %q", buf.String(), want)
	}
	buf.Reset()
	if _, err := pc.CopyTo(ctx, &buf, "copy out binary"); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if !bytes.HasPrefix(out, []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00\x01")) ||
		!bytes.HasSuffix(out, []byte{0xff, 0xff}) {
		t.Errorf("binary copy out: %q", out)
	}
	buf.Reset()
	if _, err := pc.CopyTo(ctx, &buf, "copy out csv"); err != nil {
		t.Fatal(err)
	}
	want = "id,name,ts\n1,alpha,2024-01-02 03:04:05+00\n2,,2024-06-30 12:00:00.000123+00\n3,gamma\twith tab,1999-12-31 23:59:59+00\n"
	if buf.String() != want {
		t.Errorf("csv copy out\n got %q\nwant %q", buf.String(), want)
	}
}

func TestCancelRequest(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)

	errc := make(chan error, 1)
	go func() {
		_, err := conn.PgConn().Exec(ctx, "sleep").ReadAll()
		errc <- err
	}()
	select {
	case <-h.sleepers:
	case <-ctx.Done():
		t.Fatal("statement never started")
	}
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if pgErrCode(err) != "57014" {
			t.Fatalf("want 57014, got %v", err)
		}
	case <-ctx.Done():
		t.Fatal("cancel did not stop the statement")
	}
	var got int32
	if err := conn.QueryRow(ctx, "select $1", 1).Scan(&got); err != nil {
		t.Fatalf("after cancel: %v", err)
	}
}

func TestCancelWithWrongKeyIgnored(t *testing.T) {
	h := newTestHandler()
	ts := startServer(t, h, wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)

	errc := make(chan error, 1)
	go func() {
		_, err := conn.PgConn().Exec(ctx, "sleep").ReadAll()
		errc <- err
	}()
	<-h.sleepers
	// A CancelRequest for the right pid with a wrong key.
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte{0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e, 0, 0, 0, 0, 1, 2, 3, 4}
	pid := conn.PgConn().PID()
	msg[8], msg[9], msg[10], msg[11] = byte(pid>>24), byte(pid>>16), byte(pid>>8), byte(pid)
	nc.Write(msg)
	// The server closes the cancel socket after handling the request.
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := nc.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("cancel socket: %v", err)
	}
	nc.Close()
	select {
	case err := <-errc:
		t.Fatalf("statement ended by a wrong key: %v", err)
	default:
	}
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; pgErrCode(err) != "57014" {
		t.Fatalf("want 57014, got %v", err)
	}
}

func TestSCRAMAuthentication(t *testing.T) {
	h := newTestHandler()
	v, err := wire.SCRAMVerifier("s3cret pw")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, "SCRAM-SHA-256$4096:") || strings.Count(v, "$") != 2 {
		t.Fatalf("verifier %q", v)
	}
	h.roles["alice"] = v
	ts := startServer(t, h, wire.Config{})
	ctx := testCtx(t)

	conn, err := pgx.Connect(ctx, ts.url("alice", "s3cret%20pw"))
	if err != nil {
		t.Fatalf("right password: %v", err)
	}
	var got int32
	if err := conn.QueryRow(ctx, "select $1", 3).Scan(&got); err != nil || got != 3 {
		t.Fatalf("query after login: %v", err)
	}
	conn.Close(ctx)

	_, err = pgx.Connect(ctx, ts.url("alice", "wrong"))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Message != `password authentication failed for user "alice"` {
		t.Fatalf("wrong password: %v", err)
	}
	_, err = pgx.Connect(ctx, ts.url("alice", ""))
	if err == nil {
		t.Fatal("login without a password succeeded")
	}
	// An unknown role is answered as a wrong password, after a SCRAM
	// exchange, so that role names cannot be probed.
	_, err = pgx.Connect(ctx, ts.url("bob", "guess"))
	if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Message != `password authentication failed for user "bob"` {
		t.Fatalf("unknown role: %v", err)
	}
	_, err = pgx.Connect(ctx, fmt.Sprintf("postgres://tester@%s/nodb?sslmode=disable", ts.addr))
	if pgErrCode(err) != "3D000" {
		t.Fatalf("unknown database: %v", err)
	}
	// sslmode=prefer: SSLRequest answered 'N', same socket continues.
	conn, err = pgx.Connect(ctx, fmt.Sprintf("postgres://tester@%s/db?sslmode=prefer", ts.addr))
	if err != nil {
		t.Fatalf("sslmode=prefer: %v", err)
	}
	conn.Close(ctx)
}

// remoteConn makes a pipe look like a connection from another host.
type remoteConn struct{ net.Conn }

func (remoteConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 5555}
}

func TestPasswordlessRoleOnlyFromLoopback(t *testing.T) {
	h := newTestHandler()
	srv := wire.NewServer(h, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Shutdown(context.Background())
	cfg, err := pgx.ParseConfig("postgres://tester@10.1.2.3/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		client, server := net.Pipe()
		srv.ServeConn(remoteConn{server})
		return client, nil
	}
	_, err = pgx.ConnectConfig(testCtx(t), cfg)
	// As PostgreSQL with scram-sha-256 for a role without a password: a
	// doomed exchange, answered as a wrong password.
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Message != `password authentication failed for user "tester"` {
		t.Fatalf("remote passwordless login: %v", err)
	}
}

func TestMaxConnections(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{MaxConnections: 2})
	ctx := testCtx(t)
	a := ts.connect(t)
	_ = ts.connect(t)
	_, err := pgx.Connect(ctx, ts.url("tester", ""))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53300" || pe.Message != "sorry, too many clients already" || pe.Severity != "FATAL" {
		t.Fatalf("third connection: %v", err)
	}
	// A slot frees up when a client leaves.
	a.Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := pgx.Connect(ctx, ts.url("tester", ""))
		if err == nil {
			c.Close(ctx)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot never freed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOversizedMessage(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{MaxMessageSize: 1024})
	conn := ts.connect(t)
	ctx := testCtx(t)
	_, err := conn.Exec(ctx, "select rows -- "+strings.Repeat("x", 4096))
	if err == nil {
		t.Fatal("oversized message accepted")
	}
	if code := pgErrCode(err); code != "" && code != "08P01" {
		t.Fatalf("code %s", code)
	}
	if !conn.IsClosed() {
		if err := conn.Ping(ctx); err == nil {
			t.Fatal("connection still usable after an oversized message")
		}
	}
	// The server still serves others.
	other := ts.connect(t)
	if err := other.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPanicIsReportedAndServerSurvives(t *testing.T) {
	ts := startServer(t, newTestHandler(), wire.Config{})
	conn := ts.connect(t)
	ctx := testCtx(t)
	_, err := conn.Exec(ctx, "panic")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "XX000" || !strings.Contains(pe.Message, "boom") {
		t.Fatalf("panic: %v", err)
	}
	other := ts.connect(t)
	var got int32
	if err := other.QueryRow(ctx, "select $1", 5).Scan(&got); err != nil || got != 5 {
		t.Fatalf("after panic: %v", err)
	}
}

func TestShutdown(t *testing.T) {
	h := newTestHandler()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(h, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	ctx := testCtx(t)
	url := fmt.Sprintf("postgres://tester@%s/db?sslmode=disable", l.Addr())
	idle, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	busy, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := busy.Exec(ctx, "sleep")
		errc <- err
	}()
	<-h.sleepers

	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	if err := <-served; !errors.Is(err, wire.ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
	if err := <-errc; pgErrCode(err) != "57P01" {
		t.Errorf("running statement got %v", err)
	}
	// The idle session was told too; its next use fails.
	if err := idle.Ping(ctx); err == nil {
		t.Error("idle connection survived shutdown")
	}
	if _, err := pgx.Connect(ctx, url); err == nil {
		t.Error("connected after shutdown")
	}
}
