package state

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

const killDirEnv = "WEIR_STATE_KILL_TEST_DIR"

// Commit c of the kill test appends chunksOf(c) chunks of rowsPerChunk rows;
// row r of chunk k has id c*1000 + k*100 + r. Every third commit is split
// into parts (PartChunks = 2), so a kill can land between parts.
const rowsPerChunk = 50

func chunksOf(c int) int {
	if c%3 == 2 {
		return 5
	}
	return 1
}

// TestKill9Child is the child process of TestKill9: it commits until it is
// killed, printing "ack N" after commit N returned.
func TestKill9Child(t *testing.T) {
	dir := os.Getenv(killDirEnv)
	if dir == "" {
		t.Skip("only run as the child of TestKill9")
	}
	s, err := Open(dir, Options{Sync: SyncGroup, PartChunks: 2})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for c := 0; c < 100000; c++ {
		bs := make([]arrow.RecordBatch, chunksOf(c))
		for k := range bs {
			bs[k] = makeBatch(c*1000+k*100, rowsPerChunk)
		}
		tx := s.Begin(true)
		if err := tx.AppendChunks(1, bs); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if err := tx.Commit(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Printf("ack %d\n", c) // stdout is unbuffered: the parent sees it at once
	}
	os.Exit(0)
}

func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Child$", "-test.count=1")
	cmd.Env = append(os.Environ(), killDirEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killAfter := 10 + rand.IntN(40)
	acked := -1
	lines := bufio.NewScanner(out)
	killed := false
	for lines.Scan() {
		line := lines.Text()
		n, ok := strings.CutPrefix(line, "ack ")
		if !ok {
			t.Fatalf("child: %s", line)
		}
		if acked, err = strconv.Atoi(n); err != nil {
			t.Fatal(err)
		}
		if !killed && acked >= killAfter {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true // keep reading: acks already written count too
		}
	}
	cmd.Wait()
	if !killed {
		t.Fatalf("child exited after %d acks before being killed", acked)
	}

	s := openTest(t, dir, Options{})
	defer s.Close()
	bs, err := s.ScanTable(1, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	chunksPerCommit := map[int]int{}
	for _, b := range bs {
		idc := b.Column(0).(*array.Int64)
		if b.NumRows() != rowsPerChunk {
			t.Fatalf("partial chunk of %d rows", b.NumRows())
		}
		first := int(idc.Value(0))
		for r := 0; r < rowsPerChunk; r++ {
			if int(idc.Value(r)) != first+r {
				t.Fatalf("chunk starting at %d is corrupt at row %d", first, r)
			}
		}
		chunksPerCommit[first/1000]++
	}
	for c := 0; c <= acked; c++ {
		if chunksPerCommit[c] != chunksOf(c) {
			t.Errorf("acknowledged commit %d has %d of %d chunks", c, chunksPerCommit[c], chunksOf(c))
		}
	}
	for c, n := range chunksPerCommit {
		if n != chunksOf(c) {
			t.Errorf("commit %d is partly visible: %d of %d chunks", c, n, chunksOf(c))
		}
	}
	t.Logf("killed after %d acknowledged commits; %d commits visible", acked+1, len(chunksPerCommit))
}
