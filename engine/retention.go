package engine

import (
	"encoding/binary"
	"strings"
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Input retention: WITH (retention = '24 hours') on a table removes its
// rows once they are older than that — but never rows a streaming table
// may still re-read after a restart (before its resume offset), so
// recovery stays exact. A table's chunks form a log; retention removes a
// prefix of it and remembers how long that prefix was, so positions in the
// log (the offsets streaming tables record) keep their meaning.
//
// Keys (prefix r/):
//
//	r/<table>/<n>   commit time (µs) by which the table's first n chunks existed
//	r/<table>.trim  how many chunks retention removed

const prefixRetention = "r/"

func retentionPrefix(rel uint32) []byte {
	k := append([]byte(prefixRetention), binary.BigEndian.AppendUint32(nil, rel)...)
	return append(k, '/')
}

func trimKey(rel uint32) []byte {
	k := append([]byte(prefixRetention), binary.BigEndian.AppendUint32(nil, rel)...)
	return append(k, ".trim"...)
}

// parseRetention reads a retention option; 0 means keep forever.
func parseRetention(v string) (time.Duration, error) {
	if strings.TrimSpace(v) == "" {
		return 0, nil
	}
	iv, err := types.ParseInterval(v)
	if err != nil || iv.Months != 0 || iv.Days < 0 || iv.Nanoseconds < 0 {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"retention\": \"%s\"", v).
			WithHint("Use an interval in days or less, such as '24 hours'.")
	}
	return time.Duration(int64(iv.Days)*types.MicrosPerDay+iv.Nanoseconds/1000) * time.Microsecond, nil
}

// trimmedChunks is how many chunks retention removed from a table.
func (e *Engine) trimmedChunks(rel uint32) (int, error) {
	n, err := e.store.ReadUint64(trimKey(rel))
	return int(n), err
}

// noteCommitTime records, for a table with retention, that its chunks up
// to the current count existed at this time. It runs after the commit, so
// a crash in between only makes rows live longer.
func (e *Engine) noteCommitTime(rel uint32) {
	r, ok := e.cat.RelationByOID(rel)
	if !ok || r.Options["retention"] == "" {
		return
	}
	count, err := e.store.ChunkCount(rel)
	if err != nil {
		return
	}
	trimmed, err := e.trimmedChunks(rel)
	if err != nil {
		return
	}
	n := uint64(trimmed + count)
	tx := e.store.Begin(true)
	defer tx.Discard()
	key := binary.BigEndian.AppendUint64(retentionPrefix(rel), n)
	if tx.Set(key, binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixMicro()))) == nil {
		tx.Commit()
	}
}

// applyRetention removes, for every table with retention, the chunks
// older than it that no streaming table may need again.
func (e *Engine) applyRetention() {
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindTable || rel.Options["retention"] == "" {
			continue
		}
		keep, err := parseRetention(rel.Options["retention"])
		if err != nil || keep <= 0 {
			continue
		}
		e.trimTable(rel.OID, time.Now().Add(-keep))
	}
}

func (e *Engine) trimTable(rel uint32, cutoff time.Time) {
	trimmed, err := e.trimmedChunks(rel)
	if err != nil {
		return
	}
	// The longest prefix known to be older than the cutoff.
	old := 0
	tx := e.store.Begin(false)
	tx.IteratePrefix(retentionPrefix(rel), func(k, v []byte) error {
		if len(v) == 8 && len(k) >= 8 && int64(binary.BigEndian.Uint64(v)) <= cutoff.UnixMicro() {
			old = max(old, int(binary.BigEndian.Uint64(k[len(k)-8:])))
		}
		return nil
	})
	tx.Discard()
	// Never past what a streaming table reading it may re-read. The lock is
	// held through the trim: a streaming table being replaced (REFRESH,
	// CREATE OR REFRESH) has no runner for a moment, and the trim must not
	// fall into that moment, when its resume offset is not known.
	var streaming []uint32
	for _, r := range e.cat.Relations() {
		if r.Kind == catalog.KindStreamingTable {
			streaming = append(streaming, r.OID)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, oid := range streaming {
		r := e.runners[oid]
		if r == nil {
			return // starting or being replaced: try again next time
		}
		if r.plan != nil && r.plan.Input.OID == rel {
			if r.job == nil || r.guard == nil {
				return
			}
			old = min(old, int(r.guard.ResumeOffset(0)))
		}
	}
	n := old - trimmed
	if n <= 0 {
		return
	}
	e.trimMu.Lock()
	defer e.trimMu.Unlock()
	e.store.TrimTable(rel, n, trimKey(rel), binary.BigEndian.AppendUint64(nil, uint64(trimmed+n)))
}

// retentionLoop applies retention every second until the engine closes.
func (e *Engine) retentionLoop() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-e.closing:
			return
		case <-t.C:
			e.applyRetention()
		}
	}
}
