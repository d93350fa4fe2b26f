package web

import (
	"time"

	"github.com/weir-sql/weir/engine"
)

// pageSnapshot is one frame of the live page's event stream: engine.Monitor
// at one moment, in the shape app.js reads (lower-case JSON names, times as
// RFC 3339, durations in milliseconds, the watermark's lag already worked
// out against the snapshot's own clock). Seq counts the frames of this
// server process from 1; a page that sees it go down knows the server
// restarted.
type pageSnapshot struct {
	Seq     int64        `json:"seq"`
	Time    time.Time    `json:"time"`
	Sources []pageSource `json:"sources"`
	Tables  []pageTable  `json:"tables"`
	Sinks   []pageSink   `json:"sinks"`
	Server  pageServer   `json:"server"`
}

type pageSource struct {
	Name      string `json:"name"`
	Connector string `json:"connector"`
}

// pageTable is one streaming table's job (or one flow's). ID tells two
// flows of one table apart: "name" or "name/flow".
type pageTable struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Flow      string   `json:"flow,omitempty"`
	Status    string   `json:"status"`
	LastError string   `json:"lastError,omitempty"`
	Mode      string   `json:"mode"`
	Inputs    []string `json:"inputs"`

	Epoch       int64   `json:"epoch"`
	InputRows   int64   `json:"inputRows"`
	OutputRows  int64   `json:"outputRows"`
	LateRows    int64   `json:"lateRows"`
	BacklogRows int64   `json:"backlogRows"`
	InputRate   float64 `json:"inputRate"`   // rows per second read, last epoch
	ProcessRate float64 `json:"processRate"` // rows per second processed, last epoch
	LastBatchMs float64 `json:"lastBatchMs"`
	StateRows   int64   `json:"stateRows"`
	StateBytes  int64   `json:"stateBytes"`
	// Watermark and WatermarkLagSeconds are absent while the job has none.
	Watermark           *time.Time `json:"watermark,omitempty"`
	WatermarkLagSeconds *float64   `json:"watermarkLagSeconds,omitempty"`

	// Files is set when the job reads files: what it found and has not read.
	Files *pageFilesBacklog `json:"files,omitempty"`

	Answers      []string          `json:"answers"`
	Expectations []pageExpectation `json:"expectations"`
	// RejectedRows is the rows dropped by DROP ROW expectations (the rows
	// the quarantine gets); a warn expectation's failed rows are kept, so
	// they are not counted here but in WarnedRows. A row that fails two
	// DROP ROW expectations counts for each.
	RejectedRows int64       `json:"rejectedRows"`
	WarnedRows   int64       `json:"warnedRows"`
	Batches      []pageBatch `json:"batches"`
}

type pageFilesBacklog struct {
	Files int64 `json:"files"`
	Bytes int64 `json:"bytes"`
}

type pageExpectation struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	Passed int64  `json:"passed"`
	Failed int64  `json:"failed"`
}

type pageBatch struct {
	Epoch       int64      `json:"epoch"`
	Start       time.Time  `json:"start"`
	DurationMs  float64    `json:"durationMs"`
	ReadMs      float64    `json:"readMs"`
	ProcessMs   float64    `json:"processMs"`
	CommitMs    float64    `json:"commitMs"`
	InputRows   int64      `json:"inputRows"`
	InputRate   float64    `json:"inputRate"`
	ProcessRate float64    `json:"processRate"`
	Watermark   *time.Time `json:"watermark,omitempty"`
	StateRows   int64      `json:"stateRows"`
	StateBytes  int64      `json:"stateBytes"`
	LateRows    int64      `json:"lateRows"`
	OutputRows  int64      `json:"outputRows"`
}

type pageSink struct {
	Name      string `json:"name"`
	Connector string `json:"connector"`
	From      string `json:"from"`
	Status    string `json:"status"`
	LastError string `json:"lastError,omitempty"`
	LastEpoch int64  `json:"lastEpoch"` // -1: unknown
}

type pageServer struct {
	Connections int64            `json:"connections"`
	Queries     int64            `json:"queries"`
	Errors      map[string]int64 `json:"errors"`
	StoreBytes  int64            `json:"storeBytes"`
}

// newPageSnapshot is m as frame seq. Empty lists are [] (never null), so
// the page needs no null checks.
func newPageSnapshot(seq int64, m engine.Monitor) pageSnapshot {
	s := pageSnapshot{Seq: seq, Time: m.Time, Sources: []pageSource{}, Tables: []pageTable{}, Sinks: []pageSink{},
		Server: pageServer{Connections: m.Server.Connections, Queries: m.Server.Queries, Errors: map[string]int64{}, StoreBytes: m.Server.StoreBytes}}
	for class, n := range m.Server.Errors {
		s.Server.Errors[class] = n
	}
	for _, src := range m.Sources {
		s.Sources = append(s.Sources, pageSource{Name: src.Name, Connector: src.Connector})
	}
	for _, t := range m.Tables {
		s.Tables = append(s.Tables, newPageTable(m.Time, t))
	}
	for _, k := range m.Sinks {
		s.Sinks = append(s.Sinks, pageSink{Name: k.Name, Connector: k.Connector, From: k.From, Status: k.Status, LastError: k.LastError, LastEpoch: k.LastEpoch})
	}
	return s
}

func newPageTable(now time.Time, t engine.MonitorTable) pageTable {
	p := t.Progress
	id := t.Name
	if t.Flow != "" {
		id += "/" + t.Flow
	}
	pt := pageTable{ID: id, Name: t.Name, Flow: t.Flow, Status: t.Status, LastError: t.LastError, Mode: t.Mode,
		Inputs: append([]string{}, t.Inputs...), Epoch: p.Epoch, InputRows: p.InputRows, OutputRows: p.OutputRows,
		LateRows: p.LateRows, BacklogRows: p.BacklogRows, InputRate: p.InputRowsPerSecond, ProcessRate: p.ProcessedRowsPerSecond,
		LastBatchMs: ms(p.LastBatchDuration), StateRows: p.StateRows, StateBytes: p.StateBytes,
		Answers: append([]string{}, t.Answers...), Expectations: []pageExpectation{}, Batches: []pageBatch{}}
	if p.HasWatermark {
		wm := time.UnixMicro(p.Watermark).UTC()
		lag := now.Sub(wm).Seconds()
		pt.Watermark, pt.WatermarkLagSeconds = &wm, &lag
	}
	if t.HasFiles {
		pt.Files = &pageFilesBacklog{Files: t.BacklogFiles, Bytes: t.BacklogBytes}
	}
	for _, e := range t.Expectations {
		pt.Expectations = append(pt.Expectations, pageExpectation{Name: e.Name, Action: e.Action, Passed: e.Passed, Failed: e.Failed})
		switch e.Action {
		case "drop":
			pt.RejectedRows += e.Failed
		case "warn":
			pt.WarnedRows += e.Failed
		}
	}
	for _, b := range t.Batches {
		pb := pageBatch{Epoch: b.Epoch, Start: b.Start, DurationMs: ms(b.Duration), ReadMs: ms(b.ReadDuration),
			ProcessMs: ms(b.ProcessDuration), CommitMs: ms(b.CommitDuration), InputRows: b.InputRows,
			InputRate: b.InputRowsPerSecond, ProcessRate: b.ProcessedRowsPerSecond, StateRows: b.StateRows,
			StateBytes: b.StateBytes, LateRows: b.LateRows, OutputRows: b.OutputRows}
		if b.HasWatermark {
			wm := time.UnixMicro(b.Watermark).UTC()
			pb.Watermark = &wm
		}
		pt.Batches = append(pt.Batches, pb)
	}
	return pt
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
