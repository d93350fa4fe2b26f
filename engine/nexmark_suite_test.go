package engine_test

// TestNexmarkSuite runs the Nexmark queries of Flink's and RisingWave's
// benchmark (testdata/nexmark/qN.sql, weir's spelling of each) as
// streaming tables over person, auction and bid tables fed in
// micro-batches from nexmark(), and checks every one against PostgreSQL
// running the query's batch form over the same rows:
//
//   - a query weir accepts as a streaming table must, once caught up, hold
//     exactly PostgreSQL's rows (as a multiset) and count no late row;
//   - a query weir refuses must be refused with the SQLSTATE and message
//     recorded in nexmarkRefused — so that the test fails, and the table
//     must be updated, when someone makes it work (or breaks it);
//   - the batch form of EVERY query, refused ones included, run by weir
//     over its own tables must equal PostgreSQL's.
//
// Each qN.sql holds a comment, "-- streams: t, ..." (the stream inputs,
// whose rows the table's input_rows counts), "-- streaming:" and the query
// of CREATE STREAMING TABLE, and "-- batch:" and the PostgreSQL query that
// gives the expected rows. Windowed queries run in append mode, so their
// batch form keeps only the windows the final watermark closed
// (max(date_time) - 2 seconds, the tables' WATERMARK FOR).
//
// The generator's disorder (2 seconds) equals the watermark delay, and a
// micro-batch holds consecutive events, so no row is ever late: a row's
// date_time is at least its event time less 2 s, and no watermark passed
// that before it arrived.
//
//	go test ./engine -run TestNexmarkSuite -v                       # 30000 events
//	go test ./engine -run TestNexmarkSuite -nexmark.events=100000 -nexmark.batches=20

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/connector/nexmark"
	"github.com/weir-sql/weir/internal/nexmarkq"
	"github.com/weir-sql/weir/internal/pgtest"
)

var (
	nexmarkEvents  = flag.Int64("nexmark.events", 30000, "TestNexmarkSuite: events generated (person, auction and bid together)")
	nexmarkBatches = flag.Int("nexmark.batches", 7, "TestNexmarkSuite: micro-batches the events are inserted in")
)

// nexmarkRefusal is how weir refuses a query as a streaming table today.
type nexmarkRefusal struct {
	code, message string
}

// nexmarkRefused are the queries weir refuses as streaming tables today.
// When a change makes one of them work, the test fails: delete its line
// (the suite then checks its rows against PostgreSQL's).
var nexmarkRefused = map[string]nexmarkRefusal{}

// nexmarkQuery is one file of testdata/nexmark.
type nexmarkQuery struct {
	name      string   // "q5"
	title     string   // "q5: Hot Items."
	streams   []string // the stream inputs
	streaming string   // the query of CREATE STREAMING TABLE
	batch     string   // the same result as batch SQL
}

// loadNexmarkQueries reads testdata/nexmark/q*.sql in query order.
func loadNexmarkQueries(t testing.TB, dir string) []nexmarkQuery {
	t.Helper()
	files, err := nexmarkq.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]nexmarkQuery, len(files))
	for i, f := range files {
		qs[i] = nexmarkQuery{name: f.Name, title: f.Title, streams: f.Streams, streaming: f.Streaming, batch: f.Batch}
	}
	return qs
}

// nexmarkTables are the three tables' columns in PostgreSQL's spelling;
// weir's tables add the watermark.
var nexmarkTables = []struct{ name, cols string }{
	{"person", "id bigint, name text, email_address text, credit_card text, city text, state text, date_time timestamp, extra text"},
	{"auction", "id bigint, item_name text, description text, initial_bid bigint, reserve bigint, date_time timestamp, expires timestamp, seller bigint, category bigint, extra text"},
	{"bid", "auction bigint, bidder bigint, price bigint, channel text, url text, date_time timestamp, extra text"},
}

const (
	nexmarkWatermark = ", WATERMARK FOR date_time AS date_time - INTERVAL '2 seconds'"
	nexmarkOptions   = ", seed => 7, events_per_second => 200, disorder => '2 seconds'"
	// side_input of q13: the same rows on both servers.
	nexmarkSideInput = "CREATE TABLE side_input (key bigint, value text)"
	nexmarkSideRows  = "INSERT INTO side_input SELECT g, 'side-' || g FROM generate_series(0, 9999) g"
)

// nexmarkExec runs sql over the simple protocol and returns the server's
// error, if any.
func nexmarkExec(c *pgx.Conn, sql string) (*pgconn.PgError, error) {
	_, err := c.Exec(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe, nil
	}
	return nil, err
}

// nexmarkWait polls streaming_progress until every table of want has
// consumed exactly its rows, failing on a failed table, on input_rows
// beyond the rows inserted, or after the deadline.
func nexmarkWait(t *testing.T, w *pgx.Conn, want map[string]int64, deadline time.Duration) {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		p := readProgress(t, w)
		done := true
		for name, rows := range want {
			pr, ok := p[name]
			switch {
			case !ok:
				t.Fatalf("streaming table %s missing from streaming_progress", name)
			case pr.status == "failed":
				t.Fatalf("streaming table %s failed: %s", name, pr.lastError)
			case pr.input > rows:
				t.Fatalf("streaming table %s: input_rows %d > %d rows inserted", name, pr.input, rows)
			case pr.input < rows:
				done = false
			}
		}
		if done {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("after %v the streaming tables have not caught up with %v: %+v", deadline, want, p)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestNexmarkSuite(t *testing.T) {
	queries := loadNexmarkQueries(t, filepath.Join("..", "testdata", "nexmark"))
	events, batches := *nexmarkEvents, *nexmarkBatches
	if events < 50 || batches < 1 {
		t.Fatalf("-nexmark.events %d, -nexmark.batches %d", events, batches)
	}

	pgConn, err := pgx.Connect(context.Background(), pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgConn.Close(context.Background()) })
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	var sltOut *nexmarkSLTWriter // nexmark_slt_test.go
	if *nexmarkSLT != "" {
		sltOut = &nexmarkSLTWriter{}
	}
	for _, tb := range nexmarkTables {
		sltOut.statement("CREATE TABLE " + tb.name + " (" + tb.cols + nexmarkWatermark + ")")
		sdExec(t, w, "weir", "CREATE TABLE "+tb.name+" ("+tb.cols+nexmarkWatermark+")")
		sdExec(t, pgConn, "PostgreSQL", "CREATE TABLE "+tb.name+" ("+tb.cols+")")
	}
	for _, c := range []*pgx.Conn{w, pgConn} {
		sdExec(t, c, "setup", nexmarkSideInput)
		sdExec(t, c, "setup", nexmarkSideRows)
	}
	sltOut.statement(nexmarkSideInput)
	sltOut.statement(nexmarkSideRows)

	// The streaming tables: each accepted, or refused as recorded.
	type result struct {
		streaming string // "pass", "refused 0A000", "FAIL"
		batch     string
		rows      int
	}
	results := map[string]*result{}
	var accepted []nexmarkQuery
	for _, q := range queries {
		r := &result{}
		results[q.name] = r
		pe, err := nexmarkExec(w, "CREATE STREAMING TABLE nx_"+q.name+" AS "+q.streaming)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		want, refused := nexmarkRefused[q.name]
		switch {
		case pe == nil && refused:
			// Its rows are checked below all the same, to say whether it
			// works or only is accepted.
			t.Errorf("%s is accepted as a streaming table now (it was refused with %s %q): delete its line from nexmarkRefused", q.name, want.code, want.message)
			accepted = append(accepted, q)
		case pe == nil:
			accepted = append(accepted, q)
			sltOut.statement("CREATE STREAMING TABLE nx_" + q.name + " AS " + q.streaming)
		case !refused:
			r.streaming = "FAIL"
			t.Errorf("%s: CREATE STREAMING TABLE refused: %s %s", q.name, pe.Code, pe.Message)
		case pe.Code != want.code || pe.Message != want.message:
			r.streaming = "FAIL"
			t.Errorf("%s: refused with %s %q, recorded as %s %q", q.name, pe.Code, pe.Message, want.code, want.message)
		default:
			r.streaming = "refused " + pe.Code
		}
	}

	// The events in micro-batches: batch k holds the events up to
	// events*k/batches, each table's rows of them by OFFSET into the
	// generator's (deterministic) sequence.
	inserted := map[string]int64{}
	started := time.Now()
	for k := 1; k <= batches; k++ {
		upTo := events * int64(k) / int64(batches)
		for _, tb := range nexmarkTables {
			table, _ := nexmark.TableByName(tb.name)
			rows := nexmark.RowsIn(table, upTo)
			if rows == inserted[tb.name] {
				continue
			}
			ins := fmt.Sprintf("INSERT INTO %s SELECT * FROM nexmark('%s', max_events => %d%s) OFFSET %d",
				tb.name, tb.name, upTo, nexmarkOptions, inserted[tb.name])
			sdExec(t, w, "weir", ins)
			sltOut.statement(ins)
			inserted[tb.name] = rows
		}
		want := map[string]int64{}
		for _, q := range accepted {
			for _, s := range q.streams {
				want["nx_"+q.name] += inserted[s]
			}
		}
		nexmarkWait(t, w, want, 60*time.Second)
	}
	t.Logf("%d events (%d people, %d auctions, %d bids) in %d micro-batches through %d streaming tables in %v",
		events, inserted["person"], inserted["auction"], inserted["bid"], batches, len(accepted), time.Since(started).Round(time.Millisecond))

	// The same rows into PostgreSQL, by COPY of weir's tables.
	for _, tb := range nexmarkTables {
		rows := textRows(t, w, "SELECT * FROM "+tb.name)
		if int64(len(rows)) != inserted[tb.name] {
			t.Fatalf("weir's %s has %d rows, %d were inserted", tb.name, len(rows), inserted[tb.name])
		}
		data := strings.Join(rows, "\n") + "\n"
		if _, err := pgConn.PgConn().CopyFrom(context.Background(), bytes.NewBufferString(data), "COPY "+tb.name+" FROM STDIN"); err != nil {
			t.Fatalf("COPY %s into PostgreSQL: %v", tb.name, err)
		}
	}

	prog := readProgress(t, w)
	for _, q := range queries {
		r := results[q.name]
		want := runQuery(pgConn, q.batch)
		if want.err != "" {
			t.Errorf("%s: PostgreSQL cannot run the batch form: %s\n%s", q.name, want.err, q.batch)
			r.batch = "FAIL"
			continue
		}
		r.rows = len(want.rows)
		if len(want.rows) == 0 {
			t.Errorf("%s: the batch form gives no rows on PostgreSQL: the query tests nothing", q.name)
		}
		// weir's batch SQL over its own tables.
		if d := diffOutcomes(want, runQuery(w, q.batch), false); d != "" {
			r.batch = "FAIL"
			t.Errorf("%s: weir's batch form differs from PostgreSQL's: %s\n%s", q.name, d, q.batch)
		} else {
			r.batch = "pass"
		}
		if r.streaming != "" {
			continue
		}
		// The streaming table.
		got := runQuery(w, "SELECT * FROM nx_"+q.name)
		if got.err != "" {
			r.streaming = "FAIL"
			t.Errorf("%s: SELECT from the streaming table: %s", q.name, got.err)
			continue
		}
		slices.Sort(got.rows)
		wantRows := slices.Clone(want.rows)
		slices.Sort(wantRows)
		if got.cols != want.cols {
			r.streaming = "FAIL"
			t.Errorf("%s: the streaming table has %d columns, PostgreSQL's batch form %d", q.name, got.cols, want.cols)
		} else if d, n := diffSorted(wantRows, got.rows, 10); n > 0 {
			r.streaming = "FAIL"
			t.Errorf("%s: %d rows differ (PostgreSQL %d rows, weir's streaming table %d; - only in PostgreSQL, + only in weir):%s",
				q.name, n, len(wantRows), len(got.rows), d)
		} else if late := prog["nx_"+q.name].late; late != 0 {
			r.streaming = "FAIL"
			t.Errorf("%s: %d late rows, want 0", q.name, late)
		} else {
			r.streaming = "pass"
			sltOut.query(t, pgConn, "nx_"+q.name, q.batch, want.cols)
		}
	}
	sltOut.write(t, *nexmarkSLT, events, batches)

	// The summary.
	var b strings.Builder
	pass, refused := 0, 0
	fmt.Fprintf(&b, "Nexmark suite, %d events:\n", events)
	for _, q := range queries {
		r := results[q.name]
		switch {
		case r.streaming == "pass":
			pass++
		case strings.HasPrefix(r.streaming, "refused"):
			refused++
		}
		fmt.Fprintf(&b, "  %-4s streaming %-14s batch %-5s %7d rows  %s\n", q.name, r.streaming, r.batch, r.rows, q.title)
	}
	fmt.Fprintf(&b, "  %d of %d pass as streaming tables, %d refused (as recorded), %d fail", pass, len(queries), refused, len(queries)-pass-refused)
	t.Log(b.String())
}
