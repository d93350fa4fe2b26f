package exec

import (
	"fmt"
	"math"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// A streaming table's state (open windows and groups, sessions, remembered
// keys, update-mode rows) lives in memory. One table whose state grows
// without bound (no watermark, an unbounded key space) must not take the
// server's memory: past StateLimit its epoch fails, with SQLSTATE 53200
// as PostgreSQL's out-of-memory, and only that table stops.

// stateLimitError is the error of an epoch that left the state over the
// limit.
func (j *StreamJob) stateLimitError(rows, bytes int64) error {
	name := j.TableName
	if name == "" {
		name = "(unnamed)"
	}
	return sqlerr.New(sqlerr.OutOfMemory, "streaming table %s: its state of %s (%d rows) is over the limit of %s", name, FormatBytes(bytes), rows, FormatBytes(j.StateLimit)).
		WithDetail("The epoch that would have grown it past the limit was not committed; the table stopped.").
		WithHint("Give the input a watermark (WATERMARK ... DELAY OF ...) so that windows close and their state is freed, group by fewer keys, or raise the limit with WITH (state_memory_limit = '...') or weir serve --streaming-state-memory; then REFRESH STREAMING TABLE.")
}

// DropState frees the job's in-memory state after an epoch failed past the
// limit, keeping its progress figures and its published rows. The job must
// be Reset and recovered from its epoch log before it runs again.
func (j *StreamJob) DropState() {
	j.setOperator()
	j.late = nil
	j.watermark = math.MinInt64
}

// FormatBytes prints a size as PostgreSQL's pg_size_pretty does for the
// units used here.
func FormatBytes(n int64) string {
	switch {
	case n >= 10<<30:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d kB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
