package files

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weir-sql/weir/connector/sourcetest"
	"github.com/weir-sql/weir/state"
)

// The kill -9 test: a child process runs a files source the way a
// streaming table does — read from the committed offset, then commit the
// batches read (as chunks of relation 1) together with the new offset in
// one transaction, an "epoch" — while the parent lands files in the
// folder and kills the child at random moments: during a Read (after its
// log entries committed, before the epoch did), between epochs, anywhere.
// At the end every row of every file is in the committed output exactly
// once.

const (
	srcKillStoreEnv = "WEIR_FILES_KILL_STORE"
	srcKillDirEnv   = "WEIR_FILES_KILL_DIR"
)

var srcCommittedKey = []byte("test/committed")

func srcCommitted(st *state.Store) (int64, error) {
	tx := st.Begin(false)
	defer tx.Discard()
	v, err := tx.Get(srcCommittedKey)
	if errors.Is(err, state.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// epoch reads from the committed offset and commits what it read; it
// reports whether there was anything.
func runEpoch(st *state.Store, s *Source, max int) (bool, error) {
	from, err := srcCommitted(st)
	if err != nil {
		return false, err
	}
	rd, err := s.Read(context.Background(), from, max)
	if err != nil || len(rd.Batches) == 0 {
		return false, err
	}
	tx := st.Begin(true)
	defer tx.Discard()
	if err := tx.AppendChunks(1, rd.Batches); err != nil {
		return false, err
	}
	if err := tx.Set(srcCommittedKey, binary.BigEndian.AppendUint64(nil, uint64(rd.Next))); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

func srcKillSource(st *state.Store, dir string) (*Source, error) {
	cfg := Tuning{Settle: 20 * time.Millisecond, Relist: 50 * time.Millisecond, BatchRows: 3}.config()
	cfg.decode = srcTestDecode
	o := srcOptions(dir)
	o.MaxFilesPerTrigger = 2
	return openWith(st, []byte("o/files/kill/"), o, srcTestSchema, cfg)
}

func TestSourceKill9Child(t *testing.T) {
	storeDir, dir := os.Getenv(srcKillStoreEnv), os.Getenv(srcKillDirEnv)
	if storeDir == "" {
		t.Skip("only run as the child of TestSourceKill9")
	}
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(1)
	}
	st, err := state.Open(storeDir, state.Options{Sync: state.SyncGroup})
	if err != nil {
		fail(err)
	}
	s, err := srcKillSource(st, dir)
	if err != nil {
		fail(err)
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for n := 0; ; {
		did, err := runEpoch(st, s, 1+rng.Intn(4))
		if err != nil {
			fail(err)
		}
		if did {
			fmt.Printf("ack %d\n", n)
			n++
			continue
		}
		time.Sleep(2 * time.Millisecond) // a streaming table's idle poll
	}
}

func TestSourceKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	storeDir, dir := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewSource(11))
	var want []int64
	files := 0
	land := func(k int) {
		for i := 0; i < k; i++ {
			n := 1 + rng.Intn(7)
			srcRenameRows(t, filepath.Join(dir, fmt.Sprintf("f%03d.txt", files)), files*100, n)
			want = append(want, intsFrom(files*100, n)...)
			files++
		}
	}
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSourceKill9Child$", "-test.count=1")
		cmd.Env = append(os.Environ(), srcKillStoreEnv+"="+storeDir, srcKillDirEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Five files of at least one batch each, read at most four
		// batches an epoch: at least two epochs to wait for.
		land(5)
		acks := 1 + rng.Intn(2)
		lines := bufio.NewScanner(out)
		got := 0
		deadline := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		for got < acks && lines.Scan() {
			line := lines.Text()
			if strings.HasPrefix(line, "error") {
				t.Fatalf("round %d: child: %s", round, line)
			}
			if strings.HasPrefix(line, "ack") {
				got++
			}
		}
		deadline.Stop()
		if got < acks {
			t.Fatalf("round %d: the child acknowledged %d epochs of %d", round, got, acks)
		}
		// Sometimes right away, sometimes a moment later (mid-Read, or
		// idle): kill -9.
		time.Sleep(time.Duration(rng.Intn(3)) * time.Millisecond) // where the kill lands, not synchronisation
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
	}
	// Restart once more, in this process, and run to the end.
	st, err := state.Open(storeDir, state.Options{Sync: state.SyncGroup})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := srcKillSource(st, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitUntil(t, "the last files", 10*time.Second, func() bool {
		for {
			did, err := runEpoch(st, s, 4)
			if err != nil {
				t.Fatal(err)
			}
			if !did {
				break
			}
		}
		n, _ := s.Backlog()
		return n == 0
	})
	bs, err := st.ScanTable(1, sourcetest.Schema)
	if err != nil {
		t.Fatal(err)
	}
	got := batchValues(bs)
	slices.Sort(got)
	slices.Sort(want)
	srcSameInts(t, "committed rows after 8 kills", got, want)
	logged, _ := ProcessedFiles(st, []byte("o/files/kill/"))
	t.Logf("%d files, %d rows, %d in the log, committed offset %d", files, len(want), len(logged), srcMustOffset(t, st))
}

func srcMustOffset(t *testing.T, st *state.Store) int64 {
	off, err := srcCommitted(st)
	if err != nil {
		t.Fatal(err)
	}
	return off
}
