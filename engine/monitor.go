package engine

import (
	"sort"
	"strings"
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
)

// Monitor is what the watching surfaces show of the pipeline as it is now:
// the /metrics handler and the live page (package engine/web), which read
// nothing of the engine but this. It is a copy: the caller may keep it.
//
// Contract: Monitor never blocks on a running epoch (it reads the jobs'
// published figures), never fails (a figure that cannot be read is left
// zero) and never holds a secret (connector options are not in it).
type Monitor struct {
	Time    time.Time
	Sources []MonitorSource
	Tables  []MonitorTable
	Sinks   []MonitorSink
	Server  ServerStats
}

// MonitorSource is one named source (CREATE SOURCE).
type MonitorSource struct {
	Name      string // schema-qualified
	Connector string // "files", "nexmark", …
	// SlotLagBytes is a postgres-cdc source's replication slot lag: the
	// WAL PostgreSQL keeps for it beyond what weir confirmed; HasSlotLag
	// is false for other sources and while the replicator is not running.
	SlotLagBytes int64
	HasSlotLag   bool
}

// MonitorPartitionLag is one Kafka partition a job reads, and how many
// records it holds that the job has not read.
type MonitorPartitionLag struct {
	Topic     string
	Partition int32
	Lag       int64
}

// MonitorTable is one streaming table's job, or one flow's (Flow set).
type MonitorTable struct {
	Name      string // schema-qualified
	Flow      string // the flow's name, "" for a table's own query
	Status    string // running, idle, failed, stopped, paused, done
	LastError string
	Mode      string // append, update, complete
	// Inputs are the schema-qualified names of the relations and sources
	// the job reads as streams (the edges of the pipeline graph).
	Inputs   []string
	Progress exec.Progress
	// HasFiles: the job reads files; BacklogFiles/Bytes are what it has
	// found and not read yet.
	HasFiles                   bool
	BacklogFiles, BacklogBytes int64
	// KafkaLag is each Kafka partition the job reads and its lag (records
	// not read yet).
	KafkaLag []MonitorPartitionLag
	// Answers are EXPLAIN's seven answers ("Where progress is stored: …").
	Answers []string
	// Expectations are the per-expectation counts (expectations).
	Expectations []ExpectationCount
	// Batches are the most recent epochs, oldest first (streaming_batches).
	Batches []BatchRow
}

// MonitorSink is one sink (CREATE SINK).
type MonitorSink struct {
	Name      string // schema-qualified
	Connector string
	From      string // the streaming table it reads, schema-qualified
	Status    string
	LastError string
	// LastEpoch is the newest epoch the sink committed (-1: unknown).
	LastEpoch int64
}

// ExpectationCount is one expectation of a streaming table: its rows
// passed and failed so far (committed with the epochs).
type ExpectationCount struct {
	Name   string
	Action string // warn, drop, fail
	Passed int64
	Failed int64
}

// BatchRow is one epoch of a streaming table (weir_catalog.streaming_batches).
type BatchRow struct {
	Epoch                  int64
	Start                  time.Time
	Duration               time.Duration
	ReadDuration           time.Duration
	ProcessDuration        time.Duration
	CommitDuration         time.Duration
	InputRows              int64
	InputRowsPerSecond     float64
	ProcessedRowsPerSecond float64
	Watermark              int64 // microseconds; HasWatermark says whether it is set
	HasWatermark           bool
	StateRows, StateBytes  int64
	LateRows               int64
	OutputRows             int64
}

// ServerStats are the server-wide figures of /metrics.
type ServerStats struct {
	Connections       int64 // open client connections
	ConnectionsOpened int64 // client connections opened since start
	Queries           int64 // statements run since start
	// Errors counts the errors sent to clients since start, by SQLSTATE
	// class (the first two characters: "42", "23", …).
	Errors     map[string]int64
	StoreBytes int64 // size of the data directory's store files
	// CommitLatency and FsyncLatency are the store's commit and group
	// fsync durations since start (server_stats.go).
	CommitLatency, FsyncLatency LatencyHistogram
}

// Monitor returns the pipeline as it is now.
func (e *Engine) Monitor() Monitor {
	m := Monitor{Time: time.Now(), Server: e.serverStats()}
	for _, rel := range e.cat.Relations() {
		switch rel.Kind {
		case catalog.KindSource:
			conn := ""
			if rel.Source != nil {
				conn = rel.Source.Connector
			}
			src := MonitorSource{Name: qualifiedName(rel.Schema, rel.Name), Connector: conn}
			src.SlotLagBytes, src.HasSlotLag = e.pgcdcLag(rel) // pgcdc_source.go
			m.Sources = append(m.Sources, src)
		case catalog.KindStreamingTable:
			m.Tables = append(m.Tables, e.monitorTables(rel)...)
		}
	}
	for _, def := range e.cat.Sinks() {
		status, lastErr, last := e.sinkState(def)
		from := ""
		if rel, ok := e.cat.RelationByOID(def.From); ok {
			from = qualifiedName(rel.Schema, rel.Name)
		}
		m.Sinks = append(m.Sinks, MonitorSink{Name: qualifiedName(def.Schema, def.Name), Connector: def.Connector, From: from,
			Status: status, LastError: lastErr, LastEpoch: last})
	}
	sort.Slice(m.Sources, func(i, j int) bool { return m.Sources[i].Name < m.Sources[j].Name })
	sort.Slice(m.Tables, func(i, j int) bool {
		if m.Tables[i].Name != m.Tables[j].Name {
			return m.Tables[i].Name < m.Tables[j].Name
		}
		return m.Tables[i].Flow < m.Tables[j].Flow
	})
	sort.Slice(m.Sinks, func(i, j int) bool { return m.Sinks[i].Name < m.Sinks[j].Name })
	return m
}

// monitorTables is the Monitor entry of each job of streaming table rel
// (one, or one per flow).
func (e *Engine) monitorTables(rel *catalog.Relation) []MonitorTable {
	name := qualifiedName(rel.Schema, rel.Name)
	mode := ""
	if rel.Streaming != nil {
		mode = rel.Streaming.OutputMode
	}
	jobs := []namedRunner{{r: e.runnerFor(rel.OID)}}
	if rel.Streaming != nil && rel.Streaming.NoQuery {
		jobs = e.flowRunners(rel)
	}
	var out []MonitorTable
	for _, nr := range jobs {
		t := MonitorTable{Name: name, Flow: nr.flow, Status: statusStopped, Mode: mode}
		if r := nr.r; r != nil {
			e.monitorJob(&t, r)
		}
		out = append(out, t)
	}
	return out
}

// monitorJob fills t from the running job r.
func (e *Engine) monitorJob(t *MonitorTable, r *runner) {
	t.Status, t.LastError = r.state()
	if nf, nb, ok := e.filesBacklog(r.oid); ok {
		t.HasFiles, t.BacklogFiles, t.BacklogBytes = true, nf, nb
	}
	for _, l := range e.kafkaLag(r.oid) { // kafka_input.go
		t.KafkaLag = append(t.KafkaLag, MonitorPartitionLag{Topic: l.Topic, Partition: l.Partition, Lag: l.Lag})
	}
	if r.plan != nil {
		t.Inputs = e.planInputs(r.plan)
		for _, l := range explainStreaming(t.Name, r.plan, r.trigger) {
			if isAnswer(l) {
				t.Answers = append(t.Answers, strings.TrimSpace(l))
			}
		}
	}
	if r.job != nil {
		t.Progress = r.job.Progress()
	}
	t.Expectations = e.expectationCounts(r.oid)
	t.Batches = e.recentBatches(r.oid, monitorBatches)
}

// planInputs are the schema-qualified names of what plan reads as streams.
func (e *Engine) planInputs(plan *planner.StreamPlan) []string {
	var out []string
	if plan.Tree != nil {
		for _, l := range plan.Tree.Sources {
			if l.Input != nil {
				out = append(out, e.relName(l.Input.OID, l.Input.Name))
			}
		}
		return out
	}
	if plan.Input != nil {
		out = append(out, e.relName(plan.Input.OID, plan.Input.Name))
	}
	return out
}

// monitorBatches is how many recent epochs Monitor gives of each job.
const monitorBatches = 60

// answerPrefixes are the seven answers' line prefixes in EXPLAIN.
var answerPrefixes = []string{"Where progress is stored", "What a crash does", "How much state", "Late data", "Delivery guarantee", "Latency target", "Cost"}

func isAnswer(line string) bool {
	l := strings.TrimSpace(line)
	for _, p := range answerPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// relName is the schema-qualified name of relation oid (name when it is
// gone).
func (e *Engine) relName(oid uint32, name string) string {
	if rel, ok := e.cat.RelationByOID(oid); ok {
		return qualifiedName(rel.Schema, rel.Name)
	}
	return name
}

func qualifiedName(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}
