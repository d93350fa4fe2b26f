package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/connector/sinktest"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

func changeRows(b arrow.RecordBatch) []string {
	var out []string
	if b == nil {
		return nil
	}
	for i := 0; i < int(b.NumRows()); i++ {
		row := ""
		for c := 0; c < int(b.NumCols()); c++ {
			if c > 0 {
				row += "|"
			}
			row += b.Column(c).ValueStr(i)
		}
		out = append(out, row)
	}
	sort.Strings(out)
	return out
}

// Changes from the changelog fold (a row inserted then deleted within the
// epochs a client missed is not sent), and a later diff of whole contents
// accounts for what they changed.
func TestSubscribeSinkChangesThenDiff(t *testing.T) {
	s := newSubscribeSink()
	batch := func(vals ...int64) arrow.RecordBatch {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		b.AppendValues(vals, nil)
		return array.NewRecordBatch(sinktest.Schema, []arrow.Array{b.NewArray()}, int64(len(vals)))
	}
	s.Write(nil, 1, []arrow.RecordBatch{batch(1, 2)})
	s.Committed(1)
	s.take()
	// Epochs 2 and 3: 1 becomes 3, 3 becomes 4; a 9 comes and goes.
	s.WriteChanges(3, []exec.ChangeBatch{
		{Rows: batch(1, 3, 9), Diff: []int8{-1, 1, 1}},
		{Rows: batch(3, 4, 9), Diff: []int8{-1, 1, -1}},
	})
	if got := changeRows(s.take()); !slices.Equal(got, []string{"3|-1|1", "3|1|4"}) {
		t.Errorf("folded changes %q", got)
	}
	// The client holds 2 and 4; the table now holds 2, 4 and 5.
	s.Write(nil, 4, []arrow.RecordBatch{batch(2, 4, 5)})
	s.Committed(4)
	if got := changeRows(s.take()); !slices.Equal(got, []string{"4|1|5"}) {
		t.Errorf("diff after changes %q", got)
	}
	// Duplicates count: two equal rows, one deleted.
	s.WriteChanges(5, []exec.ChangeBatch{exec.Inserts(batch(7, 7))})
	s.WriteChanges(6, []exec.ChangeBatch{{Rows: batch(7), Diff: []int8{-1}}})
	s.take()
	s.Write(nil, 7, []arrow.RecordBatch{batch(2, 4, 5, 7)})
	s.Committed(7)
	if got := changeRows(s.take()); len(got) != 0 {
		t.Errorf("diff of unchanged contents %q", got)
	}
}

// A subscriber that misses epochs gets their changes folded, from the
// table's changelog, without re-reading the table.
func TestSubscribeSlowClientFromChangelog(t *testing.T) {
	eng, err := Open(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
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
	ctx := context.Background()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", l.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	run := func(sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	run("CREATE TABLE sales (region text, amount bigint)")
	run("INSERT INTO sales VALUES ('eu', 1), ('us', 2)")
	run("CREATE STREAMING TABLE by_region AS SELECT region, count(*) AS n, sum(amount) AS total FROM sales GROUP BY region")
	var r *runner
	eng.mu.Lock()
	for _, x := range eng.runners {
		if x.name == "by_region" {
			r = x
		}
	}
	eng.mu.Unlock()
	if r == nil {
		t.Fatal("no runner")
	}
	// published waits until the job has published at least n input rows.
	published := func(rows int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, epoch, _ := r.job.Publication()
			if p := r.job.Progress(); p.InputRows >= rows && p.Epoch == epoch {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the table did not publish %d input rows within 10s", rows)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	published(2)
	cols := []wire.Column{{Name: "weir_epoch", Type: types.Int8}, {Name: "weir_diff", Type: types.Int4},
		{Name: "region", Type: types.Text}, {Name: "n", Type: types.Int8}, {Name: "total", Type: types.Numeric}}
	sub := &subscription{r: r, sink: &subscribeSink{cols: cols, held: map[arrow.RecordBatch]map[string]*heldRow{}, fs: types.FormatSettings{Location: time.UTC}}}
	next := func() []string {
		t.Helper()
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		b, err := sub.Next(nctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, row := range changeRows(b) {
			out = append(out, row[len(fmt.Sprint(b.Column(0).ValueStr(0)))+1:]) // without the epoch
		}
		return out
	}
	if got := next(); !slices.Equal(got, []string{"1|eu|1|1", "1|us|1|2"}) {
		t.Errorf("initial rows %q", got)
	}
	// Three epochs the client does not read: eu changes twice, apac comes.
	run("INSERT INTO sales VALUES ('eu', 10)")
	published(3)
	run("INSERT INTO sales VALUES ('eu', 5), ('apac', 1)")
	published(5)
	run("INSERT INTO sales VALUES ('apac', -1)")
	published(6)
	if got := next(); !slices.Equal(got, []string{"-1|eu|1|1", "1|apac|2|0", "1|eu|3|16"}) {
		t.Errorf("folded changes %q", got)
	}
	if sub.sink.diffs != 1 {
		t.Errorf("the table was read and diffed %d times, want once (the first read)", sub.sink.diffs)
	}
}
