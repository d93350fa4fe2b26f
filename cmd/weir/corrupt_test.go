package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	corruptRuns = flag.Int("corrupt.runs", 16, "TestCorruptionIsNeverServed: damaged copies to try")
	corruptSeed = flag.Uint64("corrupt.seed", 0, "TestCorruptionIsNeverServed: seed (0: from the clock)")
)

// lockedBuffer is a log a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// corruptServer is a weir process on a (possibly damaged) data directory.
type corruptServer struct {
	url    string
	cmd    *exec.Cmd
	log    *lockedBuffer
	exited chan error
}

// startOn starts weir on dir; it returns an error (and the log) when the
// server exits before it accepts connections.
func startOn(t *testing.T, dir string) (*corruptServer, error) {
	t.Helper()
	port := freePort(t)
	s := &corruptServer{url: fmt.Sprintf("postgres://weir@127.0.0.1:%d/weir?sslmode=disable", port),
		log: &lockedBuffer{}, exited: make(chan error, 1)}
	s.cmd = exec.Command(weirBinary, "serve", "--data", dir, "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.url)
		cancel()
		if err == nil {
			c.Close(context.Background())
			return s, nil
		}
		select {
		case err := <-s.exited:
			return nil, fmt.Errorf("weir exited during start (%v): %s", err, s.log)
		default:
		}
		if time.Now().After(deadline) {
			s.stop(t)
			t.Fatalf("weir did not accept connections within 30s:\n%s", s.log)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}

// stop shuts the server down with SIGTERM and waits for it to exit.
func (s *corruptServer) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
		t.Fatalf("weir did not stop within 20s:\n%s", s.log)
	}
}

func (s *corruptServer) connect(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.url)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.log)
	}
	return c
}

// corruptTables are what each damaged copy is read through, each as text
// rows in a fixed order.
var corruptTables = []struct{ name, query string }{
	{"big", "SELECT id::text, payload FROM big ORDER BY id"},
	{"small", "SELECT id::text, v FROM small ORDER BY id"},
	{"ev", "SELECT k::text, v::text FROM ev ORDER BY k, v"},
	{"agg", "SELECT k::text, n::text, total::text FROM agg ORDER BY k"},
}

// readRows runs q and returns its rows as text, or the error.
func readRows(c *pgx.Conn, q string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprint(vals...))
	}
	return out, rows.Err()
}

// writeCorruptFixture fills a fresh data directory through a real server:
// table big has chunks far above Badger's value threshold (they go to the
// value log), table small one short row per chunk (they stay in the LSM
// tree's table files), and the streaming table agg aggregates input ev,
// which gets both kinds of chunk.
func writeCorruptFixture(t *testing.T, dir string) {
	t.Helper()
	s, err := startOn(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	c := s.connect(t)
	ctx := context.Background()
	stmts := []string{
		"CREATE TABLE big (id int, payload text)",
		"CREATE TABLE small (id int, v text)",
		"CREATE TABLE ev (k int, v int)",
		"CREATE STREAMING TABLE agg AS SELECT k, count(*) AS n, sum(v) AS total FROM ev GROUP BY k",
	}
	for i := 0; i < 8; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO big SELECT g, repeat(md5(g::text), 3) FROM generate_series(%d, %d) g", i*1000, i*1000+999))
	}
	for i := 0; i < 300; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO small VALUES (%d, 'row %d')", i, i))
	}
	for i := 0; i < 40; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO ev VALUES (%d, %d), (%d, %d)", i%7, i, (i*3)%11, i*2))
	}
	stmts = append(stmts, "INSERT INTO ev SELECT g % 13, g FROM generate_series(1, 5000) g")
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v\n%s", q, err, s.log)
		}
	}
	// Wait until the streaming table has read all of its input.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int64
		if err := c.QueryRow(ctx, "SELECT coalesce(sum(n), 0)::bigint FROM agg").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 5080 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("agg counted %d of 5080 input rows after 30s", n)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
	c.Close(ctx)
	s.stop(t)
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// dirDigest hashes every file's name, size, mode and contents.
func dirDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(n)
		fmt.Fprintf(h, "%s %d %v %s\n", n, len(data), st.Mode(), st.ModTime())
		h.Write(data)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// runVerify runs `weir verify` and returns its exit code and output.
func runVerify(t *testing.T, dir string) (int, string) {
	t.Helper()
	cmd := exec.Command(weirBinary, "verify", "--data", dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("weir verify: %v", err)
	return 0, ""
}

func dataFiles(t *testing.T, dir, ext string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil || len(names) == 0 {
		t.Fatalf("no %s file in %s (%v)", ext, dir, err)
	}
	sort.Strings(names)
	return names
}

// flip64 XORs 64 bytes of file at off (clamped to the file) with random
// non-zero bytes.
func flip64(t *testing.T, file string, off int64, r *rand.Rand) int64 {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	off = min(off, int64(len(data))-64)
	for i := int64(0); i < 64; i++ {
		data[off+i] ^= byte(1 + r.IntN(255))
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return off
}

// TestCorruptionIsNeverServed writes tables and a streaming table through a
// real server, stops it, and then, on copies of its data directory with 64
// bytes flipped at random offsets of a value-log or table file, checks that
// `weir verify` finds the damage, and that a server on the copy either
// fails the SELECT of a damaged table with XX001 naming it (the session
// goes on) or returns exactly the original rows: never different rows
// without an error. The original verifies clean and is not modified.
func TestCorruptionIsNeverServed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts many servers")
	}
	seed := *corruptSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (reproduce: go test ./cmd/weir -run TestCorruptionIsNeverServed -corrupt.seed=%d -corrupt.runs=%d)", seed, seed, *corruptRuns)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	root := t.TempDir()
	fixture := filepath.Join(root, "fixture")
	writeCorruptFixture(t, fixture)
	pristine := filepath.Join(root, "pristine")
	copyDir(t, fixture, pristine)

	// The reference rows, read from a server on an undamaged copy.
	want := map[string][]string{}
	{
		ref := filepath.Join(root, "reference")
		copyDir(t, pristine, ref)
		s, err := startOn(t, ref)
		if err != nil {
			t.Fatal(err)
		}
		c := s.connect(t)
		for _, tb := range corruptTables {
			rows, err := readRows(c, tb.query)
			if err != nil || len(rows) == 0 {
				t.Fatalf("reference %s: %d rows, %v", tb.name, len(rows), err)
			}
			want[tb.name] = rows
		}
		c.Close(context.Background())
		s.stop(t)
	}

	before := dirDigest(t, pristine)
	if code, out := runVerify(t, pristine); code != 0 || !strings.Contains(out, "no damage found") {
		t.Fatalf("verify of the undamaged directory: exit %d\n%s", code, out)
	}
	if after := dirDigest(t, pristine); after != before {
		t.Fatal("weir verify modified the data directory")
	}

	var detected, startRefused, corrupted, intact int
	for run := 0; run < *corruptRuns; run++ {
		dir := filepath.Join(root, fmt.Sprintf("damaged-%d", run))
		copyDir(t, pristine, dir)
		ext := ".vlog"
		if run%2 == 1 {
			ext = ".sst"
		}
		files := dataFiles(t, dir, ext)
		file := files[r.IntN(len(files))]
		st, _ := os.Stat(file)
		off := flip64(t, file, r.Int64N(st.Size()), r)
		what := fmt.Sprintf("run %d: 64 bytes at offset %d of %s (%d bytes)", run, off, filepath.Base(file), st.Size())

		code, out := runVerify(t, dir)
		if code != 0 {
			detected++
			if code != 1 || !strings.Contains(out, "DAMAGED") {
				t.Errorf("%s: verify exit %d without naming damage:\n%s", what, code, out)
			}
		}

		s, err := startOn(t, dir)
		if err != nil {
			// Damage Badger cannot open past (a table file's index or last
			// block) stops the server at start, loudly.
			startRefused++
			if code == 0 {
				t.Errorf("%s: the server refused to start but verify found nothing:\n%v", what, err)
			}
			if msg := lastLine(err.Error()); !strings.Contains(msg, "checksum") && !strings.Contains(msg, "damaged") {
				t.Errorf("%s: the server refused to start without saying the data is damaged: %s", what, msg)
			}
			t.Logf("%s: server refused to start: %v", what, lastLine(err.Error()))
			os.RemoveAll(dir)
			continue
		}
		c := s.connect(t)
		damaged := 0
		for _, tb := range corruptTables {
			rows, err := readRows(c, tb.query)
			var pe *pgconn.PgError
			switch {
			case err == nil:
				if strings.Join(rows, "\n") != strings.Join(want[tb.name], "\n") {
					t.Errorf("%s: SELECT from %s returned %d rows that differ from the original's %d, without an error",
						what, tb.name, len(rows), len(want[tb.name]))
				}
			case errors.As(err, &pe) && pe.Code == "XX001":
				damaged++
				if !strings.Contains(pe.Message, `"`) {
					t.Errorf("%s: XX001 does not name the table: %s", what, pe.Message)
				}
				if !strings.Contains(pe.Detail, "key ") && !strings.Contains(pe.Detail, "file ") {
					t.Errorf("%s: XX001 does not say where: %s", what, pe.Detail)
				}
				if verbose := testing.Verbose(); verbose && run < 4 {
					t.Logf("%s: %s: %s (%s)", what, tb.name, pe.Message, pe.Detail)
				}
				// The session goes on.
				var one int
				if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
					t.Errorf("%s: session after XX001: %v", what, err)
				}
			default:
				t.Errorf("%s: SELECT from %s: %v (want rows or XX001)\nverify said:\n%s\nserver log:\n%s", what, tb.name, err, out, s.log)
			}
		}
		if damaged > 0 {
			corrupted++
			if !strings.Contains(s.log.String(), "DATA CORRUPTION") {
				t.Errorf("%s: XX001 but the server log does not say where:\n%s", what, s.log)
			}
			if code == 0 {
				t.Errorf("%s: the server found damage that verify did not:\n%s", what, out)
			}
		} else {
			intact++
		}
		c.Close(context.Background())
		s.stop(t)
		os.RemoveAll(dir)
	}
	t.Logf("%d damaged copies: verify found damage in %d; the server refused to start on %d, answered XX001 on %d, served the original rows on %d",
		*corruptRuns, detected, startRefused, corrupted, intact)
	if detected == 0 {
		t.Error("verify found none of the damage")
	}
	if code, out := runVerify(t, pristine); code != 0 {
		t.Fatalf("verify of the undamaged directory after the runs: exit %d\n%s", code, out)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestNoDamageAfterKill: a server killed with SIGKILL in the middle of
// writes, again and again, leaves a directory that verifies clean and
// restarts without any damage reported (a torn log tail is not damage).
func TestNoDamageAfterKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ctx := context.Background()
	var total int64
	for kill := 0; kill < 5; kill++ {
		s, err := startOn(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s.log.String(), "DATA CORRUPTION") {
			t.Fatalf("kill %d: damage reported after a plain SIGKILL:\n%s", kill, s.log)
		}
		c := s.connect(t)
		var n int64
		if kill == 0 {
			_, err = c.Exec(ctx, "CREATE TABLE big (id int, payload text); CREATE TABLE ev (k int, v int); CREATE STREAMING TABLE agg AS SELECT k, count(*) AS n FROM ev GROUP BY k; "+flowsDDL) // flows_crash_test.go
		} else {
			err = c.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&n)
		}
		if err != nil || n < total {
			t.Fatalf("kill %d: %d rows of %d acknowledged, %v", kill, n, total, err)
		}
		acked := make(chan int64, 1)
		go func(first int64) {
			rows := int64(0)
			defer func() { acked <- rows }()
			for i := first; ; i++ {
				if _, err := c.Exec(ctx, fmt.Sprintf("INSERT INTO big SELECT g, repeat(md5(g::text), 3) FROM generate_series(%d, %d) g; INSERT INTO ev VALUES (%d, %d)", i*500, i*500+499, i%5, i)); err != nil {
					return // the kill
				}
				rows += 500
			}
		}(int64(kill) * 1000)
		// Kill once a few more commits are in.
		deadline := time.Now().Add(30 * time.Second)
		for {
			probe := s.connect(t)
			var m int64
			err := probe.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&m)
			probe.Close(ctx)
			if err == nil && m >= n+2500 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no commits within 30s (%v)", err)
			}
			time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
		}
		s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.exited
		total = n + <-acked
		if code, out := runVerify(t, dir); code != 0 {
			t.Fatalf("kill %d: verify after SIGKILL: exit %d\n%s", kill, code, out)
		}
	}
	if copies, _ := filepath.Glob(filepath.Join(dir, "*.damaged-*")); len(copies) > 0 {
		t.Fatalf("log files copied aside after plain SIGKILLs: %v", copies)
	}
	checkFlowsAfterKills(t, dir) // flows_crash_test.go
}
