package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// defaultWorkMem is PostgreSQL's work_mem default, 4MB.
const defaultWorkMem = 4 << 20

// tempDirName is the directory under the data directory where queries
// spill. It holds nothing durable: Open empties it, and each query removes
// its own files when it ends.
const tempDirName = "tmp"

// openTempDir empties and creates DATA/tmp: spill files left by a crash
// belong to queries that no longer exist.
func openTempDir(dataDir string) (string, error) {
	dir := filepath.Join(dataDir, tempDirName)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// QueryMemory gives the server's query memory budget (tests, monitoring).
func (e *Engine) QueryMemory() *exec.MemoryBudget { return e.queryBudget }

// queryMemory opens the memory account of one statement: the session's
// work_mem, the server's budget and spill directory. The caller closes it
// when the statement's result is gone.
func (s *Session) queryMemory() *exec.QueryMemory {
	workMem, ok := exec.ParseMemorySize(s.settings["work_mem"], 1024)
	if !ok {
		workMem = defaultWorkMem
	}
	return exec.NewQueryMemory(s.eng.queryBudget, workMem, s.eng.tempDir)
}

// checkWorkMem validates a work_mem value as PostgreSQL does (an integer
// in kB, or with a unit B, kB, MB, GB, TB; 64kB .. 2147483647kB) and
// returns it in the form SHOW prints.
func checkWorkMem(v string) (string, error) {
	n, ok := exec.ParseMemorySize(v, 1024)
	if !ok {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"work_mem\": \"%s\"", v).
			WithHint("Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".")
	}
	kb := n / 1024
	if kb < 64 || kb > 2147483647 {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "%d kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)", kb)
	}
	return exec.FormatMemorySize(kb * 1024), nil
}

// ParseMemorySize reads a positive size as the server flags
// (--query-memory, --streaming-state-memory) and the state_memory_limit
// table option take it: a plain number of bytes or a size with one of
// PostgreSQL's units, in any case (512MB, 2gb).
func ParseMemorySize(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, n > 0
	}
	lower := strings.ToLower(v)
	for _, u := range []struct{ lower, unit string }{{"tb", "TB"}, {"gb", "GB"}, {"mb", "MB"}, {"kb", "kB"}, {"b", "B"}} {
		if strings.HasSuffix(lower, u.lower) {
			n, ok := exec.ParseMemorySize(strings.TrimSpace(v[:len(v)-len(u.lower)])+u.unit, 1)
			return n, ok && n > 0
		}
	}
	return 0, false
}
