package engine_test

// TestSubscribe checks SUBSCRIBE TO over the wire: a pgx client receives
// the current rows (+1) first, then, as epochs commit, a -1 of an updated
// group's old row and a +1 of its new row; cancelling the query ends it with
// SQLSTATE 57014 and leaves the connection usable. TestSubscribePsql runs
// COPY (SUBSCRIBE TO ...) TO STDOUT through the real psql binary.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// subRow is one SUBSCRIBE row as text: "diff|region|n".
type subRow struct {
	epoch int64
	text  string
}

func setupSubscribeTables(t *testing.T, c *pgx.Conn) {
	t.Helper()
	for _, s := range []string{
		"SET TimeZone = 'UTC'",
		"CREATE TABLE sales (region text, amount bigint)",
		"INSERT INTO sales VALUES ('eu', 1), ('us', 2)",
		"CREATE STREAMING TABLE sales_by_region AS SELECT region, count(*) AS n, sum(amount) AS total FROM sales GROUP BY region",
	} {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	waitConsumed(t, c, []string{"sales_by_region"}, 2, 10*time.Second)
}

// expectRows collects rows from ch until it has exactly the wanted
// multiset (in any order) or the deadline passes; extra rows fail.
func expectRows(t *testing.T, ch <-chan subRow, errc <-chan error, what string, want ...string) int64 {
	t.Helper()
	remaining := map[string]int{}
	for _, w := range want {
		remaining[w]++
	}
	var got []string
	var epoch int64 = -1
	deadline := time.After(10 * time.Second)
	for n := 0; n < len(want); {
		select {
		case r := <-ch:
			got = append(got, r.text)
			if remaining[r.text] == 0 {
				t.Fatalf("%s: unexpected row %q (so far %q, want %q)", what, r.text, got, want)
			}
			remaining[r.text]--
			n++
			if epoch >= 0 && r.epoch < epoch {
				t.Errorf("%s: weir_epoch went back from %d to %d", what, epoch, r.epoch)
			}
			epoch = r.epoch
		case err := <-errc:
			t.Fatalf("%s: subscription ended: %v (got %q, want %q)", what, err, got, want)
		case <-deadline:
			t.Fatalf("%s: after 10s got %q, want %q", what, got, want)
		}
	}
	// Nothing more belongs to this step.
	select {
	case r := <-ch:
		t.Fatalf("%s: unexpected extra row %q after %q", what, r.text, got)
	case <-time.After(200 * time.Millisecond):
	}
	return epoch
}

func TestSubscribe(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	setupSubscribeTables(t, c)

	// Cancelling the context sends a CancelRequest and waits for the
	// server's answer (pgx's default would instead close the socket).
	cfg, err := pgx.ParseConfig(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 5 * time.Second}
	}
	sub, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := sub.Query(ctx, "SUBSCRIBE TO sales_by_region")
	if err != nil {
		t.Fatalf("SUBSCRIBE: %v", err)
	}
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	if got, want := strings.Join(cols, ","), "weir_epoch,weir_diff,region,n,total"; got != want {
		t.Errorf("SUBSCRIBE columns %s, want %s", got, want)
	}
	ch := make(chan subRow, 100)
	errc := make(chan error, 1)
	go func() {
		for rows.Next() {
			var epoch int64
			var diff int32
			var region string
			var n, total int64
			if err := rows.Scan(&epoch, &diff, &region, &n, &total); err != nil {
				errc <- fmt.Errorf("scan: %w", err)
				rows.Close()
				return
			}
			ch <- subRow{epoch: epoch, text: fmt.Sprintf("%+d|%s|%d|%d", diff, region, n, total)}
		}
		rows.Close()
		errc <- rows.Err()
	}()

	e0 := expectRows(t, ch, errc, "initial rows", "+1|eu|1|1", "+1|us|1|2")

	if _, err := c.Exec(context.Background(), "INSERT INTO sales VALUES ('eu', 10)"); err != nil {
		t.Fatal(err)
	}
	e1 := expectRows(t, ch, errc, "eu updated", "-1|eu|1|1", "+1|eu|2|11")
	if e1 <= e0 {
		t.Errorf("update arrived with weir_epoch %d, not after the initial rows' %d", e1, e0)
	}

	if _, err := c.Exec(context.Background(), "INSERT INTO sales VALUES ('apac', 5), ('us', 3), ('us', 4)"); err != nil {
		t.Fatal(err)
	}
	expectRows(t, ch, errc, "apac new, us updated", "+1|apac|1|5", "-1|us|1|2", "+1|us|3|9")

	// Cancel: the server answers 57014 and the connection stays usable.
	cancel()
	select {
	case err := <-errc:
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			t.Errorf("cancelled SUBSCRIBE ended with %v, want SQLSTATE 57014", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SUBSCRIBE did not end within 10s of cancelling")
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	var n int64
	if sub.IsClosed() {
		t.Errorf("the subscriber's connection was closed by the cancel")
	} else if err := sub.QueryRow(ctx2, "SELECT sum(n) FROM sales_by_region").Scan(&n); err != nil || n != 6 {
		t.Errorf("after cancel, the subscriber's connection: sum(n) = %d, %v; want 6, nil", n, err)
	}
	// A new connection works as well.
	if err := srv.connect(t).QueryRow(ctx2, "SELECT count(*) FROM sales_by_region").Scan(&n); err != nil || n != 3 {
		t.Errorf("new connection after cancel: count = %d, %v; want 3, nil", n, err)
	}
}

// TestSubscribePsql runs COPY (SUBSCRIBE TO ...) TO STDOUT in psql, reads
// its output line by line as it arrives and kills it once the expected
// lines (initial rows, then an update) have been seen.
func TestSubscribePsql(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	setupSubscribeTables(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// psql writes COPY data with stdio, block-buffered on a pipe: stdbuf
	// makes it unbuffered so lines arrive as weir sends them.
	argv := []string{psql}
	if sb, err := exec.LookPath("stdbuf"); err == nil {
		argv = []string{sb, "-o0", psql}
	}
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], srv.url(), "-X", "-v", "ON_ERROR_STOP=1", "-c", "COPY (SUBSCRIBE TO sales_by_region) TO STDOUT")...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	// The COPY text lines without the epoch column.
	expect := func(what string, want ...string) {
		t.Helper()
		remaining := map[string]int{}
		for _, w := range want {
			remaining[w]++
		}
		var got []string
		for n := 0; n < len(want); n++ {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("%s: psql ended (stderr %q) after %q, want %q", what, stderr.String(), got, want)
				}
				f := strings.Split(l, "\t")
				if len(f) != 5 {
					t.Fatalf("%s: psql printed %q, want 5 tab-separated fields", what, l)
				}
				row := strings.Join(f[1:], "\t")
				got = append(got, row)
				if remaining[row] == 0 {
					t.Fatalf("%s: unexpected line %q (so far %q, want %q)", what, l, got, want)
				}
				remaining[row]--
			case <-ctx.Done():
				t.Fatalf("%s: timed out with %q, want %q (stderr %q)", what, got, want, stderr.String())
			}
		}
	}
	expect("initial rows", "1\teu\t1\t1", "1\tus\t1\t2")
	if _, err := c.Exec(context.Background(), "INSERT INTO sales VALUES ('us', 40)"); err != nil {
		t.Fatal(err)
	}
	expect("us updated", "-1\tus\t1\t2", "1\tus\t2\t42")
}

// TestSubscribeManyGroups covers a table spread over several row segments:
// after an epoch that changes two groups in different segments and adds
// one, the subscriber receives exactly those changes.
func TestSubscribeManyGroups(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	for _, s := range []string{
		"CREATE TABLE m (k text, v bigint)",
		"INSERT INTO m SELECT 'k' || g, g FROM generate_series(0, 9999) g",
		"CREATE STREAMING TABLE m_by_k AS SELECT k, count(*) AS n, sum(v) AS total FROM m GROUP BY k",
	} {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	waitConsumed(t, c, []string{"m_by_k"}, 10000, 10*time.Second)
	sub := srv.connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := sub.Query(ctx, "SUBSCRIBE TO m_by_k")
	if err != nil {
		t.Fatalf("SUBSCRIBE: %v", err)
	}
	ch := make(chan subRow, 20000)
	errc := make(chan error, 1)
	go func() {
		defer rows.Close()
		for rows.Next() {
			var epoch int64
			var diff int32
			var k string
			var n, total int64
			if err := rows.Scan(&epoch, &diff, &k, &n, &total); err != nil {
				errc <- err
				return
			}
			ch <- subRow{epoch: epoch, text: fmt.Sprintf("%+d|%s|%d|%d", diff, k, n, total)}
		}
		errc <- rows.Err()
	}()
	initial := make([]string, 10000)
	for g := range initial {
		initial[g] = fmt.Sprintf("+1|k%d|1|%d", g, g)
	}
	expectRows(t, ch, errc, "initial rows", initial...)
	if _, err := c.Exec(context.Background(), "INSERT INTO m VALUES ('k5000', 1), ('k9999', 1), ('new', 7)"); err != nil {
		t.Fatal(err)
	}
	expectRows(t, ch, errc, "two updated, one new",
		"-1|k5000|1|5000", "+1|k5000|2|5001", "-1|k9999|1|9999", "+1|k9999|2|10000", "+1|new|1|7")
}
