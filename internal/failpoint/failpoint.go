// Package failpoint lets a test crash the real weir process between two
// writes of a commit. WEIR_FAILPOINT=<name>[:<n>] makes the n-th (default
// first) pass through Hit(<name>) kill the process with SIGKILL, exactly
// as an external kill -9 would at that instant. Without the variable, Hit
// is one atomic load.
//
// A name ending in "-error" does not kill: the n-th Err(<name without
// -error>) returns a storage error once, as a full or failing disk would.
//
// Points: "epoch-before-commit" (an epoch computed, its log record not
// written), "epoch-after-commit" (the record durable, the epoch's rows not
// yet visible), "write-before-commit" (an INSERT/COPY/COMMIT's chunks
// built, not committed), "write-after-commit" (committed, not yet
// acknowledged to the client); a files sink's "filesink-after-write",
// "filesink-after-rename", "filesink-after-manifest" (connector/filesink's
// doc.go); a files source's schema evolution: "files-evolve-recorded",
// "files-evolve-before-catalog", "files-evolve-after-catalog",
// "files-evolve-before-readers" (engine/files_evolve.go).
package failpoint

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

var (
	armed   atomic.Bool
	name    string
	remains atomic.Int64
)

func init() { Arm(os.Getenv("WEIR_FAILPOINT")) }

// Arm sets the failpoint as WEIR_FAILPOINT would (tests in one process);
// "" disarms it.
func Arm(v string) {
	armed.Store(false)
	if v == "" {
		return
	}
	n := int64(1)
	if i := strings.LastIndexByte(v, ':'); i > 0 {
		if k, err := strconv.ParseInt(v[i+1:], 10, 64); err == nil && k > 0 {
			n = k
		}
		v = v[:i]
	}
	name = v
	remains.Store(n)
	armed.Store(true)
}

// Hit marks a pass through the named point.
func Hit(point string) {
	if !armed.Load() || point != name {
		return
	}
	if remains.Add(-1) == 0 {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

// Err returns an error at the armed "<point>-error" failpoint's n-th pass,
// once; nil otherwise.
func Err(point string) error {
	if !armed.Load() || name != point+"-error" {
		return nil
	}
	if remains.Add(-1) == 0 {
		return errInjected
	}
	return nil
}

var errInjected = &injectedError{}

type injectedError struct{}

func (*injectedError) Error() string { return "injected failure: no space left on device" }

// Injected reports whether err came from Err.
func Injected(err error) bool { return err == errInjected }
