package web

import (
	"math"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weir-sql/weir/engine"
)

// pipelineCollector turns one engine.Monitor, read at scrape time, into
// weir's metrics: a figure per streaming table job (labels table and flow;
// flow is "" for a table's own query), per expectation, source and sink,
// and the server-wide ones. It keeps nothing between scrapes: every
// counter is the engine's own running count (streaming_progress, the
// expectation counts committed with the epochs, the server's atomic
// counts), so a scrape can never disagree with what SQL shows.
//
// Names follow Prometheus' conventions (weir_ prefix, _total on
// counters, base units _seconds and _bytes); metrics_test.go lints them
// with promlint. docs/monitoring.md says what each one means.
type pipelineCollector struct {
	monitor func() engine.Monitor
}

var _ prometheus.Collector = (*pipelineCollector)(nil)

func newPipelineCollector(monitor func() engine.Monitor) *pipelineCollector {
	return &pipelineCollector{monitor: monitor}
}

var (
	tableLabels       = []string{"table", "flow"}
	expectationLabels = []string{"table", "flow", "expectation", "action"}
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// The streaming tables' figures: streaming_progress's columns.
var (
	descTableInfo = desc("weir_streaming_table_info",
		"A streaming table's job (1); mode is its output mode (append, update, complete).", "table", "flow", "mode")
	descTableStatus = desc("weir_streaming_status",
		"1 for the job's status now (running, idle, failed, stopped, paused, done), 0 for the others.", "table", "flow", "status")
	descInputRows = desc("weir_streaming_input_rows_total",
		"Input rows the job has read (streaming_progress.input_rows).", tableLabels...)
	descOutputRows = desc("weir_streaming_output_rows_total",
		"Rows the job has written to its table (streaming_progress.output_rows).", tableLabels...)
	descLateRows = desc("weir_streaming_late_rows_total",
		"Input rows dropped for arriving behind the watermark (streaming_progress.late_rows).", tableLabels...)
	descStateRows = desc("weir_streaming_state_rows",
		"Rows of operator state the job holds (streaming_progress.state_rows).", tableLabels...)
	descStateBytes = desc("weir_streaming_state_bytes",
		"Bytes of operator state the job holds (streaming_progress.state_bytes).", tableLabels...)
	descBacklogRows = desc("weir_streaming_backlog_rows",
		"Input rows offered and not read yet (streaming_progress.backlog_rows).", tableLabels...)
	descKafkaLag = desc("weir_streaming_kafka_partition_lag",
		"Records of a Kafka partition a job reads that it has not read yet.", append(append([]string{}, tableLabels...), "topic", "partition")...)
	descBacklogFiles = desc("weir_streaming_backlog_files",
		"Files found and not read yet, for a job reading files (streaming_progress.backlog_files).", tableLabels...)
	descBacklogBytes = desc("weir_streaming_backlog_bytes",
		"Bytes of the files found and not read yet, for a job reading files (streaming_progress.backlog_bytes).", tableLabels...)
	descInputRate = desc("weir_streaming_input_rows_per_second",
		"Rate at which rows arrived at the job's inputs over the last epoch (streaming_progress.input_rows_per_second).", tableLabels...)
	descProcessedRate = desc("weir_streaming_processed_rows_per_second",
		"Rate at which the job processed rows in the last epoch (streaming_progress.processed_rows_per_second).", tableLabels...)
	descLastBatch = desc("weir_streaming_last_batch_duration_seconds",
		"Duration of the job's last epoch (streaming_progress.last_batch_duration_ms).", tableLabels...)
	descLastBatchPhase = desc("weir_streaming_last_batch_phase_duration_seconds",
		"Duration of each phase (read, process, commit) of the job's last epoch (streaming_batches).", "table", "flow", "phase")
	descEpoch = desc("weir_streaming_epoch",
		"The job's last committed epoch (streaming_progress.epoch).", tableLabels...)
	descWatermark = desc("weir_streaming_watermark_timestamp_seconds",
		"The job's event-time watermark as a Unix time; absent while it has none.", tableLabels...)
	descWatermarkLag = desc("weir_streaming_watermark_lag_seconds",
		"How far the job's watermark is behind the server's clock (now - watermark); absent while it has none.", tableLabels...)
)

// The expectations' counts (weir_catalog.expectations).
var (
	descExpectPassed = desc("weir_expectation_passed_rows_total",
		"Rows that met the expectation (weir_catalog.expectations.passed_records).", expectationLabels...)
	descExpectFailed = desc("weir_expectation_failed_rows_total",
		"Rows that failed the expectation: kept (warn), dropped (drop) or failing the table (fail).", expectationLabels...)
)

// Sources and sinks.
var (
	descSourceInfo = desc("weir_source_info",
		"A named source (CREATE SOURCE) and its connector (1).", "source", "connector")
	descSourceSlotLag = desc("weir_source_replication_slot_lag_bytes",
		"A postgres-cdc source's replication slot lag: WAL PostgreSQL keeps for it beyond what weir confirmed.", "source")
	descSinkInfo = desc("weir_sink_info",
		"A sink (CREATE SINK), its connector and the streaming table it reads (1).", "sink", "connector", "table")
	descSinkStatus = desc("weir_sink_status",
		"1 for the sink's status now (running, failed, stopped), 0 for the others.", "sink", "status")
	descSinkEpoch = desc("weir_sink_last_committed_epoch",
		"The newest epoch the sink has committed to its destination; absent while unknown.", "sink")
)

// The server's figures.
var (
	descBuild = desc("weir_build_info",
		"The running weir's version (1).", "version", "server_version")
	descConnections = desc("weir_connections",
		"Open client connections.")
	descConnectionsOpened = desc("weir_connections_opened_total",
		"Client connections opened since the server started.")
	descStatements = desc("weir_statements_total",
		"Statements clients sent since the server started (each execution of a prepared one counts; one refused at Parse counts too).")
	descErrors = desc("weir_statement_errors_total",
		"Errors sent to clients since the server started, by SQLSTATE class (the code's first two characters).", "class")
	descCommit = desc("weir_store_commit_duration_seconds",
		"Duration of the store's write commits, as the committer waited for them (including the fsync).")
	descFsync = desc("weir_store_fsync_duration_seconds",
		"Duration of the store's group fsyncs (one serves every commit written before it started).")
	descStoreBytes = desc("weir_store_size_bytes",
		"Disk space of the store's table, value-log and memtable-log files in the data directory.")
)

// tableStatuses and sinkStatuses are the statuses a job or sink may be in;
// each gets its 0/1 gauge, so that a dashboard can sum by status.
var (
	tableStatuses = []string{"running", "idle", "failed", "stopped", "paused", "done"}
	sinkStatuses  = []string{"running", "failed", "stopped"}
)

var allDescs = []*prometheus.Desc{
	descTableInfo, descTableStatus, descInputRows, descOutputRows, descLateRows, descStateRows, descStateBytes,
	descBacklogRows, descKafkaLag, descBacklogFiles, descBacklogBytes, descInputRate, descProcessedRate, descLastBatch,
	descLastBatchPhase, descEpoch, descWatermark, descWatermarkLag,
	descExpectPassed, descExpectFailed,
	descSourceInfo, descSourceSlotLag, descSinkInfo, descSinkStatus, descSinkEpoch,
	descBuild, descConnections, descConnectionsOpened, descStatements, descErrors, descCommit, descFsync, descStoreBytes,
}

// Describe implements prometheus.Collector.
func (c *pipelineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *pipelineCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.monitor()
	out := emitter{ch: ch}
	for _, t := range m.Tables {
		out.table(m.Time, t)
	}
	for _, s := range m.Sources {
		out.gauge(descSourceInfo, 1, s.Name, s.Connector)
		if s.HasSlotLag {
			out.gauge(descSourceSlotLag, float64(s.SlotLagBytes), s.Name)
		}
	}
	for _, s := range m.Sinks {
		out.sink(s)
	}
	out.server(m.Server)
}

// emitter sends const metrics; one that cannot be built (a label value
// that is not UTF-8) is sent as an invalid metric, which the registry
// reports and promhttp leaves out (ContinueOnError), instead of panicking.
type emitter struct{ ch chan<- prometheus.Metric }

func (e emitter) send(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	e.ch <- m
}

func (e emitter) gauge(d *prometheus.Desc, v float64, labels ...string) {
	e.send(d, prometheus.GaugeValue, v, labels...)
}

func (e emitter) counter(d *prometheus.Desc, v float64, labels ...string) {
	e.send(d, prometheus.CounterValue, v, labels...)
}

// statusGauges sends 1 for status and 0 for the other known ones; a
// status outside known is sent too, so that it is never hidden.
func (e emitter) statusGauges(d *prometheus.Desc, known []string, status string, labels ...string) {
	seen := false
	for _, s := range known {
		v := 0.0
		if s == status {
			v, seen = 1, true
		}
		e.gauge(d, v, append(labels, s)...)
	}
	if !seen && status != "" {
		e.gauge(d, 1, append(labels, status)...)
	}
}

func (e emitter) table(now time.Time, t engine.MonitorTable) {
	l := []string{t.Name, t.Flow}
	p := t.Progress
	e.gauge(descTableInfo, 1, t.Name, t.Flow, t.Mode)
	e.statusGauges(descTableStatus, tableStatuses, t.Status, l...)
	e.counter(descInputRows, float64(p.InputRows), l...)
	e.counter(descOutputRows, float64(p.OutputRows), l...)
	e.counter(descLateRows, float64(p.LateRows), l...)
	e.gauge(descStateRows, float64(p.StateRows), l...)
	e.gauge(descStateBytes, float64(p.StateBytes), l...)
	e.gauge(descBacklogRows, float64(p.BacklogRows), l...)
	for _, k := range t.KafkaLag {
		e.gauge(descKafkaLag, float64(k.Lag), append(append([]string{}, l...), k.Topic, strconv.Itoa(int(k.Partition)))...)
	}
	if t.HasFiles {
		e.gauge(descBacklogFiles, float64(t.BacklogFiles), l...)
		e.gauge(descBacklogBytes, float64(t.BacklogBytes), l...)
	}
	e.gauge(descInputRate, p.InputRowsPerSecond, l...)
	e.gauge(descProcessedRate, p.ProcessedRowsPerSecond, l...)
	e.gauge(descLastBatch, p.LastBatchDuration.Seconds(), l...)
	if n := len(t.Batches); n > 0 {
		b := t.Batches[n-1]
		e.gauge(descLastBatchPhase, b.ReadDuration.Seconds(), t.Name, t.Flow, "read")
		e.gauge(descLastBatchPhase, b.ProcessDuration.Seconds(), t.Name, t.Flow, "process")
		e.gauge(descLastBatchPhase, b.CommitDuration.Seconds(), t.Name, t.Flow, "commit")
	}
	e.gauge(descEpoch, float64(p.Epoch), l...)
	if p.HasWatermark && p.Watermark != math.MinInt64 {
		wm := time.UnixMicro(p.Watermark)
		e.gauge(descWatermark, float64(p.Watermark)/1e6, l...)
		e.gauge(descWatermarkLag, now.Sub(wm).Seconds(), l...)
	}
	for _, x := range t.Expectations {
		e.counter(descExpectPassed, float64(x.Passed), t.Name, t.Flow, x.Name, x.Action)
		e.counter(descExpectFailed, float64(x.Failed), t.Name, t.Flow, x.Name, x.Action)
	}
}

func (e emitter) sink(s engine.MonitorSink) {
	e.gauge(descSinkInfo, 1, s.Name, s.Connector, s.From)
	e.statusGauges(descSinkStatus, sinkStatuses, s.Status, s.Name)
	if s.LastEpoch >= 0 {
		e.gauge(descSinkEpoch, float64(s.LastEpoch), s.Name)
	}
}

func (e emitter) server(s engine.ServerStats) {
	e.gauge(descBuild, 1, engine.Version, engine.ServerVersion)
	e.gauge(descConnections, float64(s.Connections))
	e.counter(descConnectionsOpened, float64(s.ConnectionsOpened))
	e.counter(descStatements, float64(s.Queries))
	for class, n := range s.Errors {
		e.counter(descErrors, float64(n), class)
	}
	e.histogram(descCommit, s.CommitLatency)
	e.histogram(descFsync, s.FsyncLatency)
	e.gauge(descStoreBytes, float64(s.StoreBytes))
}

func (e emitter) histogram(d *prometheus.Desc, h engine.LatencyHistogram) {
	buckets := make(map[float64]uint64, len(h.Bounds))
	for i, b := range h.Bounds {
		buckets[b] = h.Cumulative[i]
	}
	m, err := prometheus.NewConstHistogram(d, h.Count, h.Sum, buckets)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	e.ch <- m
}
