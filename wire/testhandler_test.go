package wire_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// testHandler serves a handful of canned statements, recognised by their
// text, so the wire layer can be driven by real clients without an engine:
//
//	select rows           3 rows of (id int4, name text, ts timestamptz), one name NULL
//	select many           7 rows of (n int8)
//	select $1             echoes an int4 parameter
//	select "id", "name" from "t"   the shape pgx's CopyFrom asks about
//	show thing            columns known only once executed
//	fail                  42P01 at Execute
//	syntax error          42601 at Prepare
//	sleep                 blocks until cancelled
//	panic                 panics
//	notice                sends a NOTICE, no rows
//	begin / commit        move TxStatus between 'I' and 'T'
//	copy ... from stdin [csv|binary] [header]   COPY IN into (id int4, name text)
//	copy out [csv]        COPY TO STDOUT of "select rows"
type testHandler struct {
	roles map[string]string // user → SCRAM verifier; "" = no password
	super map[string]bool   // superusers (tester is one, as weir's bootstrap role)

	// timeouts, when set, are every session's Timeouts.
	timeouts wire.Timeouts

	mu        sync.Mutex
	copied    [][2]string // (id, name) of every COPY IN row; name "<NULL>" for NULL
	sleepers  chan struct{}
	sessionsN int
	noPanic   bool // the fuzz target must not trip the deliberate panic

	bigClosed chan struct{} // a "select big" Result was closed

	auth authLog // failed logins reported through wire.AuthObserver (auth_failures_test.go)
}

func newTestHandler() *testHandler {
	return &testHandler{roles: map[string]string{"tester": ""}, super: map[string]bool{"tester": true}, sleepers: make(chan struct{}, 16), bigClosed: make(chan struct{}, 16)}
}

func (h *testHandler) LookupRole(user string) (wire.Role, error) {
	v, ok := h.roles[user]
	return wire.Role{Exists: ok, Verifier: v, Superuser: h.super[user], CanLogin: true}, nil
}

func (h *testHandler) NewSession(ctx context.Context, params map[string]string, b wire.Backend) (wire.Session, error) {
	if params["database"] == "nodb" {
		return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", params["database"])
	}
	h.mu.Lock()
	h.sessionsN++
	h.mu.Unlock()
	return &testSession{h: h, tx: 'I'}, nil
}

func (h *testHandler) copiedRows() [][2]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([][2]string(nil), h.copied...)
}

type testSession struct {
	h  *testHandler
	tx byte
}

func (s *testSession) StartupParameters() []wire.Parameter {
	return []wire.Parameter{
		{Name: "client_encoding", Value: "UTF8"},
		{Name: "DateStyle", Value: "ISO, MDY"},
		{Name: "integer_datetimes", Value: "on"},
		{Name: "server_encoding", Value: "UTF8"},
		{Name: "server_version", Value: "15.18"},
		{Name: "standard_conforming_strings", Value: "on"},
		{Name: "TimeZone", Value: "Etc/UTC"},
	}
}

func (s *testSession) TxStatus() byte                       { return s.tx }
func (s *testSession) FormatSettings() types.FormatSettings { return types.DefaultFormat }
func (s *testSession) Close()                               {}
func (s *testSession) Timeouts() wire.Timeouts              { return s.h.timeouts }

func (s *testSession) Prepare(ctx context.Context, query string, paramTypes []uint32) ([]wire.Statement, error) {
	var out []wire.Statement
	for _, part := range strings.Split(query, ";") {
		text := strings.TrimSpace(part)
		for strings.HasPrefix(text, "--") {
			_, rest, _ := strings.Cut(text, "\n")
			text = strings.TrimSpace(rest)
		}
		if text == "" {
			continue
		}
		st, err := s.statement(strings.ToLower(text), paramTypes)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

var (
	rowsColumns = []wire.Column{
		{Name: "id", Type: types.Int4},
		{Name: "name", Type: types.Text},
		{Name: "ts", Type: types.TimestampTZ},
	}
	manyColumns = []wire.Column{{Name: "n", Type: types.Int8}}
	copyColumns = []wire.Column{{Name: "id", Type: types.Int4}, {Name: "name", Type: types.Text}}
)

// rowsTimes are the timestamptz values of "select rows".
var rowsTimes = []time.Time{
	time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
	time.Date(2024, 6, 30, 12, 0, 0, 123000, time.UTC),
	time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC),
}

func rowsBatch() arrow.RecordBatch {
	mem := memory.DefaultAllocator
	ids := array.NewInt32Builder(mem)
	names := array.NewStringBuilder(mem)
	ts := array.NewTimestampBuilder(mem, types.TimestampTZ.Arrow().(*arrow.TimestampType))
	ids.AppendValues([]int32{1, 2, 3}, nil)
	names.Append("alpha")
	names.AppendNull()
	names.Append("gamma\twith tab")
	for _, t := range rowsTimes {
		ts.Append(arrow.Timestamp(t.UnixMicro()))
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: types.TimestampTZ.Arrow(), Nullable: true},
	}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{ids.NewArray(), names.NewArray(), ts.NewArray()}, 3)
}

// manyBatches returns n int8 rows 1..n split over batches of 3 rows, so
// row limits cross batch boundaries.
func manyBatches(n int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	var out []arrow.RecordBatch
	for start := 1; start <= n; start += 3 {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		k := 0
		for v := start; v <= n && v < start+3; v++ {
			b.Append(int64(v))
			k++
		}
		out = append(out, array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, int64(k)))
	}
	return out
}

func (s *testSession) statement(q string, paramTypes []uint32) (wire.Statement, error) {
	switch {
	case q == "select rows":
		return &fixedStmt{cols: rowsColumns, run: func() (wire.Result, error) {
			return &sliceResult{cols: rowsColumns, batches: []arrow.RecordBatch{rowsBatch()}, tag: "SELECT 3"}, nil
		}}, nil
	case q == "select big":
		return &fixedStmt{cols: manyColumns, run: func() (wire.Result, error) {
			return &bigResult{h: s.h, left: 1 << 20}, nil
		}}, nil
	case q == "select many":
		return &fixedStmt{cols: manyColumns, run: func() (wire.Result, error) {
			return &sliceResult{cols: manyColumns, batches: manyBatches(7), tag: "SELECT 7"}, nil
		}}, nil
	case q == "select $1":
		return &echoStmt{}, nil
	case strings.HasPrefix(q, `select "id", "name" from "t"`):
		return &fixedStmt{cols: copyColumns, run: func() (wire.Result, error) {
			return &sliceResult{cols: copyColumns, tag: "SELECT 0"}, nil
		}}, nil
	case q == "show thing":
		cols := []wire.Column{{Name: "thing", Type: types.Text}}
		return &fixedStmt{run: func() (wire.Result, error) {
			b := array.NewStringBuilder(memory.DefaultAllocator)
			b.Append("on")
			schema := arrow.NewSchema([]arrow.Field{{Name: "thing", Type: arrow.BinaryTypes.String}}, nil)
			return &sliceResult{cols: cols, batches: []arrow.RecordBatch{array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, 1)}, tag: "SHOW"}, nil
		}}, nil
	case q == "fail":
		return &fixedStmt{run: func() (wire.Result, error) {
			return nil, sqlerr.New(sqlerr.UndefinedTable, `relation "nope" does not exist`)
		}}, nil
	case q == "syntax error":
		return nil, sqlerr.At(sqlerr.SyntaxError, 1, `syntax error at or near "syntax"`)
	case q == "sleep":
		return &ctxStmt{run: func(ctx context.Context, _ wire.ExecIO) (wire.Result, error) {
			select {
			case s.h.sleepers <- struct{}{}:
			default:
			}
			<-ctx.Done()
			return nil, sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
		}}, nil
	case q == "panic" && !s.h.noPanic:
		return &fixedStmt{run: func() (wire.Result, error) { panic("boom") }}, nil
	case q == "notice":
		return &ctxStmt{run: func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			io.Notice("NOTICE", "00000", "hello from the engine")
			return &sliceResult{tag: "DO"}, nil
		}}, nil
	case q == "begin":
		return &ctxStmt{run: func(context.Context, wire.ExecIO) (wire.Result, error) {
			s.tx = 'T'
			return &sliceResult{tag: "BEGIN"}, nil
		}}, nil
	case q == "commit":
		return &ctxStmt{run: func(context.Context, wire.ExecIO) (wire.Result, error) {
			s.tx = 'I'
			return &sliceResult{tag: "COMMIT"}, nil
		}}, nil
	case strings.HasPrefix(q, "copy out"), strings.HasPrefix(q, "copy") && strings.HasSuffix(q, "to stdout"):
		return &ctxStmt{run: func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			opts := wire.CopyOptions{}
			if strings.Contains(q, "csv") {
				opts.Format, opts.Header = "csv", true
			}
			if strings.Contains(q, "binary") {
				opts.Format = "binary"
			}
			n, err := io.CopyOut(ctx, opts, &sliceResult{cols: rowsColumns, batches: []arrow.RecordBatch{rowsBatch()}})
			if err != nil {
				return nil, err
			}
			return &sliceResult{tag: "COPY " + strconv.FormatInt(n, 10)}, nil
		}}, nil
	case strings.HasPrefix(q, "copy"):
		return &ctxStmt{run: func(ctx context.Context, io wire.ExecIO) (wire.Result, error) {
			return s.copyIn(q, io)
		}}, nil
	}
	return nil, sqlerr.New(sqlerr.SyntaxError, "test handler does not know %q", q)
}

func (s *testSession) copyIn(q string, io wire.ExecIO) (wire.Result, error) {
	opts := wire.CopyOptions{Table: "t", ColumnNames: []string{"id", "name"}}
	switch {
	case strings.Contains(q, "binary"):
		opts.Format = "binary"
	case strings.Contains(q, "csv"):
		opts.Format = "csv"
	}
	opts.Header = strings.Contains(q, "header")
	if strings.Contains(q, "delimiter semicolon") {
		opts.Delimiter = ";"
	}
	if strings.Contains(q, "escape backslash") {
		opts.Escape = "\\"
	}
	if strings.Contains(q, "quote single") {
		opts.Quote = "'"
	}
	if strings.Contains(q, "null marker") {
		opts.Null = "NULL"
	}
	src, err := io.CopyIn(context.Background(), opts, []types.T{types.Int4, types.Text})
	if err != nil {
		return nil, err
	}
	var got [][2]string
	for {
		b, err := src.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		ids := b.Column(0).(*array.Int32)
		names := b.Column(1).(*array.String)
		for i := 0; i < int(b.NumRows()); i++ {
			var row [2]string
			row[0] = "<NULL>"
			if ids.IsValid(i) {
				row[0] = strconv.Itoa(int(ids.Value(i)))
			}
			row[1] = "<NULL>"
			if names.IsValid(i) {
				row[1] = names.Value(i)
			}
			got = append(got, row)
		}
	}
	s.h.mu.Lock()
	s.h.copied = append(s.h.copied, got...)
	s.h.mu.Unlock()
	return &sliceResult{tag: fmt.Sprintf("COPY %d", src.Rows())}, nil
}

// fixedStmt runs a function; cols is what Describe sees (nil: not known
// before running).
type fixedStmt struct {
	cols []wire.Column
	run  func() (wire.Result, error)
}

func (st *fixedStmt) ParamTypes() []uint32   { return nil }
func (st *fixedStmt) Columns() []wire.Column { return st.cols }
func (st *fixedStmt) Execute(context.Context, []wire.Value, wire.ExecIO) (wire.Result, error) {
	return st.run()
}

type ctxStmt struct {
	run func(context.Context, wire.ExecIO) (wire.Result, error)
}

func (st *ctxStmt) ParamTypes() []uint32   { return nil }
func (st *ctxStmt) Columns() []wire.Column { return nil }
func (st *ctxStmt) Execute(ctx context.Context, _ []wire.Value, io wire.ExecIO) (wire.Result, error) {
	return st.run(ctx, io)
}

// echoStmt is "select $1" with $1 an int4, in text or binary.
type echoStmt struct{}

var echoColumns = []wire.Column{{Name: "x", Type: types.Int4}}

func (echoStmt) ParamTypes() []uint32   { return []uint32{types.OidInt4} }
func (echoStmt) Columns() []wire.Column { return echoColumns }
func (echoStmt) Execute(ctx context.Context, params []wire.Value, _ wire.ExecIO) (wire.Result, error) {
	b := array.NewInt32Builder(memory.DefaultAllocator)
	p := params[0]
	switch {
	case p.Data == nil:
		b.AppendNull()
	case p.Format == 1:
		if len(p.Data) != 4 {
			return nil, sqlerr.New(sqlerr.ProtocolViolation, "incorrect binary data format in bind parameter 1")
		}
		b.Append(int32(binary.BigEndian.Uint32(p.Data)))
	default:
		v, err := strconv.ParseInt(string(p.Data), 10, 32)
		if err != nil {
			return nil, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type integer: %q", p.Data)
		}
		b.Append(int32(v))
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	return &sliceResult{cols: echoColumns, batches: []arrow.RecordBatch{array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, 1)}, tag: "SELECT 1"}, nil
}

type sliceResult struct {
	cols    []wire.Column
	batches []arrow.RecordBatch
	tag     string
	closed  bool
}

func (r *sliceResult) Columns() []wire.Column { return r.cols }
func (r *sliceResult) Tag() string            { return r.tag }
func (r *sliceResult) Close()                 { r.closed = true }
func (r *sliceResult) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
	}
	if len(r.batches) == 0 {
		return nil, nil
	}
	b := r.batches[0]
	r.batches = r.batches[1:]
	return b, nil
}

// bigResult produces int8 rows in 8192-row batches until left runs out.
type bigResult struct {
	h    *testHandler
	left int
}

func (r *bigResult) Columns() []wire.Column { return manyColumns }
func (r *bigResult) Tag() string            { return "SELECT" }
func (r *bigResult) Close()                 { r.h.bigClosed <- struct{}{} }
func (r *bigResult) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
	}
	if r.left == 0 {
		return nil, nil
	}
	n := min(r.left, 8192)
	r.left -= n
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range n {
		b.Append(int64(i))
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, int64(n)), nil
}
