package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/wire"
)

// op is one write: its rows carry (op id, i) for i < size.
type op struct{ id, size int }

const durabilityDirEnv = "WEIR_DURABILITY_CHILD_DIR"

// TestDurabilityChild is the server process of TestAcknowledgedWritesSurviveKill9:
// the real engine and wire layer on a loopback port, until it is killed.
func TestDurabilityChild(t *testing.T) {
	dir := os.Getenv(durabilityDirEnv)
	if dir == "" {
		t.Skip("only run as the child of TestAcknowledgedWritesSurviveKill9")
	}
	eng, err := engine.Open(engine.Config{DataDir: dir})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("listening", l.Addr().String())
	srv := wire.NewServer(eng, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.Serve(l)
	os.Exit(0)
}

type childServer struct {
	cmd  *exec.Cmd
	addr string
}

func startChild(t *testing.T, dir string) *childServer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDurabilityChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), durabilityDirEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	deadline := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for lines.Scan() {
		if addr, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
			go io.Copy(io.Discard, out)
			return &childServer{cmd: cmd, addr: addr}
		}
	}
	t.Fatalf("child server did not start")
	return nil
}

func (c *childServer) kill() {
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.cmd.Wait()
}

// TestAcknowledgedWritesSurviveKill9 writes through INSERT, COPY and
// transaction blocks, kills the server process with SIGKILL at a random
// moment, restarts it on the same data directory, and checks that every
// acknowledged write is there and that no write is there in part.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	ctx := context.Background()
	acked := map[int]op{}
	attempted := map[int]op{}
	next := 0
	const kills = 5
	for round := 0; round <= kills; round++ {
		srv := startChild(t, dir)
		conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", srv.addr))
		if err != nil {
			srv.kill()
			t.Fatalf("connect after restart %d: %v", round, err)
		}
		if round == 0 {
			if _, err := conn.Exec(ctx, "CREATE TABLE w (op int NOT NULL, i int NOT NULL)"); err != nil {
				t.Fatal(err)
			}
		}
		verify(t, conn, round, acked, attempted)
		if round == kills {
			conn.Close(ctx)
			srv.kill()
			break
		}
		// Kill after a random number of acknowledged ops, from another
		// goroutine, while the writer is mid-flight.
		killAt := 5 + rand.IntN(30)
		ackCh := make(chan struct{}, 1000)
		go func() {
			for n := 0; n < killAt; n++ {
				<-ackCh
			}
			srv.kill()
		}()
		for {
			o := op{id: next, size: 1 + rand.IntN(3)}
			next++
			attempted[o.id] = o
			var err error
			switch o.id % 3 {
			case 0: // one INSERT of several rows
				vals := make([]string, o.size)
				for i := range vals {
					vals[i] = fmt.Sprintf("(%d, %d)", o.id, i)
				}
				_, err = conn.Exec(ctx, "INSERT INTO w VALUES "+strings.Join(vals, ", "))
			case 1: // COPY
				o.size = 200 + rand.IntN(2000)
				attempted[o.id] = o
				rows := make([][]any, o.size)
				for i := range rows {
					rows[i] = []any{int32(o.id), int32(i)}
				}
				_, err = conn.CopyFrom(ctx, pgx.Identifier{"w"}, []string{"op", "i"}, pgx.CopyFromRows(rows))
			case 2: // a transaction block of single-row INSERTs
				var tx pgx.Tx
				if tx, err = conn.Begin(ctx); err == nil {
					for i := 0; i < o.size && err == nil; i++ {
						_, err = tx.Exec(ctx, "INSERT INTO w VALUES ($1, $2)", o.id, i)
					}
					if err == nil {
						err = tx.Commit(ctx)
					}
				}
			}
			if err != nil {
				break // the server is gone
			}
			acked[o.id] = o
			ackCh <- struct{}{}
		}
		srv.cmd.Wait()
		conn.Close(ctx)
	}
	t.Logf("%d kills survived, %d writes acknowledged", kills, len(acked))
}

// verify checks the table against what was acknowledged: every
// acknowledged op complete, every other op complete or absent.
func verify(t *testing.T, conn *pgx.Conn, round int, acked, attempted map[int]op) {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT op, count(*), count(DISTINCT i), min(i), max(i) FROM w GROUP BY op")
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	seen := map[int]bool{}
	for rows.Next() {
		var op, n, distinct, lo, hi int
		if err := rows.Scan(&op, &n, &distinct, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		seen[op] = true
		want, ok := attempted[op]
		if !ok {
			t.Errorf("round %d: rows of op %d, which was never written", round, op)
			continue
		}
		if n != want.size || distinct != want.size || lo != 0 || hi != want.size-1 {
			t.Errorf("round %d: op %d has %d rows (%d distinct, %d..%d), want all %d: a write is visible in part", round, op, n, distinct, lo, hi, want.size)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id := range acked {
		if !seen[id] {
			t.Errorf("round %d: acknowledged op %d is missing after kill -9", round, id)
		}
	}
}
