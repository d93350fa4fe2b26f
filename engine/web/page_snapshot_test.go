package web

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/exec"
)

// everyPartMonitor is a Monitor with every part the page can show filled:
// a flow of a paused table reading files, with a watermark, expectations
// and batches; a failed sink; server figures. (The figures other helpers
// are still filling in - expectation counts, batches, server stats - are
// zero in a running engine today.)
func everyPartMonitor(now time.Time) engine.Monitor {
	batch := func(epoch int64, start time.Time) engine.BatchRow {
		return engine.BatchRow{Epoch: epoch, Start: start, Duration: 120 * time.Millisecond, ReadDuration: 20 * time.Millisecond,
			ProcessDuration: 60 * time.Millisecond, CommitDuration: 40 * time.Millisecond, InputRows: 100, InputRowsPerSecond: 50,
			ProcessedRowsPerSecond: 833.3, Watermark: start.UnixMicro(), HasWatermark: true, StateRows: 10, StateBytes: 2048, OutputRows: 98}
	}
	return engine.Monitor{Time: now,
		Sources: []engine.MonitorSource{{Name: "public.landing", Connector: "files"}},
		Tables: []engine.MonitorTable{{Name: "public.silver", Flow: "from_landing", Status: "paused", Mode: "append",
			LastError: "", Inputs: []string{"public.landing"},
			Progress: exec.Progress{Epoch: 7, InputRows: 1234, LateRows: 5, Watermark: now.Add(-90 * time.Second).UnixMicro(), HasWatermark: true,
				StateRows: 10, StateBytes: 2048, InputRowsPerSecond: 50, ProcessedRowsPerSecond: 40, BacklogRows: 30,
				LastBatchDuration: 1500 * time.Millisecond, OutputRows: 1200},
			HasFiles: true, BacklogFiles: 3, BacklogBytes: 4096,
			Answers: []string{"Where progress is stored: here", "What a crash does: nothing", "How much state: little", "Late data: dropped",
				"Delivery guarantee: exactly once", "Latency target: seconds", "Cost: low"},
			Expectations: []engine.ExpectationCount{{Name: "valid_id", Action: "drop", Passed: 1200, Failed: 34}, {Name: "positive", Action: "warn", Passed: 1230, Failed: 4}},
			Batches:      []engine.BatchRow{batch(5, now.Add(-3*time.Second)), batch(6, now.Add(-2*time.Second)), batch(7, now.Add(-time.Second))},
		}},
		Sinks:  []engine.MonitorSink{{Name: "public.silver_out", Connector: "kafka", From: "public.silver", Status: "failed", LastError: "broker unreachable", LastEpoch: -1}},
		Server: engine.ServerStats{Connections: 3, Queries: 42, Errors: map[string]int64{"42": 2, "23": 1}, StoreBytes: 5 << 20},
	}
}

// TestPageSnapshotShape: engine.Monitor as the page reads it: the flow's
// id, the watermark and its lag against the snapshot's clock, durations in
// milliseconds, rejected rows summed over the DROP ROW expectations (warned ones apart), files backlog,
// batches; no watermark fields at all for a job without one, and [] for
// empty lists.
func TestPageSnapshotShape(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := newPageSnapshot(9, everyPartMonitor(now))
	tb := s.Tables[0]
	if s.Seq != 9 || tb.ID != "public.silver/from_landing" || tb.Flow != "from_landing" {
		t.Errorf("seq %d, id %q", s.Seq, tb.ID)
	}
	if tb.Watermark == nil || !tb.Watermark.Equal(now.Add(-90*time.Second)) || tb.WatermarkLagSeconds == nil || *tb.WatermarkLagSeconds != 90 {
		t.Errorf("watermark %v, lag %v", tb.Watermark, tb.WatermarkLagSeconds)
	}
	if tb.LastBatchMs != 1500 || tb.RejectedRows != 34 || tb.WarnedRows != 4 || tb.Files == nil || tb.Files.Files != 3 || tb.Files.Bytes != 4096 {
		t.Errorf("last batch %v ms, rejected %d, warned %d, files %+v", tb.LastBatchMs, tb.RejectedRows, tb.WarnedRows, tb.Files)
	}
	if len(tb.Batches) != 3 || tb.Batches[2].Epoch != 7 || tb.Batches[2].DurationMs != 120 || tb.Batches[2].CommitMs != 40 || tb.Batches[2].Watermark == nil {
		t.Errorf("batches %+v", tb.Batches)
	}
	if s.Server.Errors["42"] != 2 || s.Sinks[0].LastEpoch != -1 {
		t.Errorf("server %+v, sinks %+v", s.Server, s.Sinks)
	}

	bare := newPageSnapshot(1, engine.Monitor{Time: now, Tables: []engine.MonitorTable{{Name: "public.t", Status: "stopped",
		Progress: exec.Progress{Watermark: math.MinInt64}}}})
	js, err := json.Marshal(bare)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sources":[]`, `"sinks":[]`, `"inputs":[]`, `"answers":[]`, `"expectations":[]`, `"batches":[]`, `"errors":{}`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("%s not in %s", want, js)
		}
	}
	for _, absent := range []string{"watermark", "files", "flow", "lastError"} {
		if strings.Contains(string(js), `"`+absent) {
			t.Errorf("%q in %s", absent, js)
		}
	}
}
