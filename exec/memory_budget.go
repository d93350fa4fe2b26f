package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// MemoryBudget is the server-wide bound on the memory batch queries hold
// (weir serve --query-memory). Every query's operators reserve what they
// hold from it; a reservation that would pass the limit fails the query
// that asked with 53200, and no other: the memory already granted to other
// queries stays theirs. Safe for concurrent use.
type MemoryBudget struct {
	limit int64
	used  atomic.Int64
}

// NewMemoryBudget returns a budget of limit bytes (<= 0: no limit).
func NewMemoryBudget(limit int64) *MemoryBudget { return &MemoryBudget{limit: limit} }

// Limit is the budget's size in bytes (<= 0: none).
func (b *MemoryBudget) Limit() int64 { return b.limit }

// Used is how many bytes running queries hold now.
func (b *MemoryBudget) Used() int64 { return b.used.Load() }

func (b *MemoryBudget) tryReserve(n int64) bool {
	if b.limit <= 0 {
		b.used.Add(n)
		return true
	}
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (b *MemoryBudget) release(n int64) { b.used.Add(-n) }

// QueryMemory is one query's memory account: what its operators hold, the
// work_mem each operator may hold before it spills, and the directory its
// spill files go to. Close returns everything to the server budget and
// removes the query's spill files, whether the query ended or failed.
type QueryMemory struct {
	budget  *MemoryBudget
	workMem int64
	tempDir string // "" = operators cannot spill

	held atomic.Int64

	mu     sync.Mutex
	dir    string // this query's own directory under tempDir, made on first spill
	files  int
	closed bool
}

var (
	querySeq   atomic.Int64
	spillFiles atomic.Int64
)

// SpillFilesCreated is how many spill files queries have written since the
// process started (tests, monitoring).
func SpillFilesCreated() int64 { return spillFiles.Load() }

// NewQueryMemory opens a query's account against budget (nil: unbounded)
// with the given work_mem in bytes and the server's temporary directory
// (where spill files go; "" disables spilling).
func NewQueryMemory(budget *MemoryBudget, workMem int64, tempDir string) *QueryMemory {
	if budget == nil {
		budget = NewMemoryBudget(0)
	}
	return &QueryMemory{budget: budget, workMem: workMem, tempDir: tempDir}
}

// WorkMem is the bytes one operator may hold before it spills.
func (q *QueryMemory) WorkMem() int64 { return q.workMem }

// Held is how many bytes the query's operators hold now.
func (q *QueryMemory) Held() int64 { return q.held.Load() }

// Close gives back what the query still holds and removes its spill files.
func (q *QueryMemory) Close() {
	if n := q.held.Swap(0); n != 0 {
		q.budget.release(n)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.dir != "" {
		os.RemoveAll(q.dir)
		q.dir = ""
	}
}

// newSpillFile creates a temporary file for one spilled run or partition.
func (q *QueryMemory) newSpillFile(what string) (*os.File, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tempDir == "" || q.closed {
		return nil, sqlerr.New(sqlerr.OutOfMemory, "out of memory").WithDetail("spilling to disk is not available here")
	}
	if q.dir == "" {
		dir, err := os.MkdirTemp(q.tempDir, "q"+strconv.FormatInt(querySeq.Add(1), 10)+"-")
		if err != nil {
			return nil, spillIOError(err)
		}
		q.dir = dir
	}
	q.files++
	spillFiles.Add(1)
	f, err := os.Create(filepath.Join(q.dir, fmt.Sprintf("%s-%d.arrow", what, q.files)))
	if err != nil {
		return nil, spillIOError(err)
	}
	return f, nil
}

func spillIOError(err error) error {
	return sqlerr.New("53100", "could not write temporary file: %v", err)
}

// memAccount is what one operator holds: it grows as the operator buffers
// rows or groups and tells the operator when it is past work_mem. A nil
// *QueryMemory (tests, streaming jobs) makes an account without limits
// that never asks to spill.
type memAccount struct {
	q    *QueryMemory
	op   string // the operator, for error details
	held int64
}

func newMemAccount(env *Env, op string) *memAccount {
	var q *QueryMemory
	if env != nil {
		q = env.Memory
	}
	return &memAccount{q: q, op: op}
}

// grow records n more bytes held; it fails with 53200 when the server's
// query memory cannot grant them.
func (a *memAccount) grow(n int64) error {
	if n <= 0 || a.q == nil {
		if n < 0 {
			a.shrink(-n)
		} else {
			a.held += n
		}
		return nil
	}
	if !a.q.budget.tryReserve(n) {
		return sqlerr.New(sqlerr.OutOfMemory, "out of memory").WithDetail(fmt.Sprintf(
			"Failed on request of size %d in %s holding %d bytes; this query holds %d bytes and all queries %d of the server's query memory of %d bytes (weir serve --query-memory).",
			n, a.op, a.held, a.q.Held(), a.q.budget.Used(), a.q.budget.Limit()))
	}
	a.q.held.Add(n)
	a.held += n
	return nil
}

// resize sets the bytes held to n.
func (a *memAccount) resize(n int64) error { return a.grow(n - a.held) }

func (a *memAccount) shrink(n int64) {
	n = min(n, a.held)
	a.held -= n
	if a.q != nil && n > 0 {
		a.q.held.Add(-n)
		a.q.budget.release(n)
	}
}

// releaseAll gives back everything the account holds.
func (a *memAccount) releaseAll() { a.shrink(a.held) }

// overWorkMem tells whether the operator should spill: it holds more than
// work_mem and spilling is possible.
func (a *memAccount) overWorkMem() bool {
	return a.q != nil && a.q.tempDir != "" && a.q.workMem > 0 && a.held > a.q.workMem
}

// batchBytes is the memory a batch's buffers take.
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += arrayBytes(c.Data())
	}
	return n
}

func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}
