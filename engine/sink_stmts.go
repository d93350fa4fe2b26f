package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/filesink"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// CREATE SINK, DROP SINK and SHOW SINKS (dialect.md, Sinks). A sink is a
// catalog object of its own (catalog.Sink) whose typed options are all
// checked here, so that a stored sink always opens; sinks.go runs them.

// showSinksColumns is SHOW SINKS' result shape.
var showSinksColumns = []wire.Column{{Name: "name", Type: types.Text}, {Name: "from", Type: types.Text},
	{Name: "connector", Type: types.Text}, {Name: "options", Type: types.Text}, {Name: "state", Type: types.Text},
	{Name: "last_committed_epoch", Type: types.Int8}, {Name: "error", Type: types.Text}}

// sinkConnectors are dialect.md's sink connectors.
var sinkConnectors = []string{"files", "postgres", "kafka", "iceberg"}

func (s *Session) runSinkStatement(ctx context.Context, st *statement, io wire.ExecIO) (wire.Result, error) {
	ss := st.stream
	if s.tx.open && ss.Kind != parse.ShowSinks {
		return nil, sqlerr.New(sqlerr.ActiveTransaction, "sink statements cannot run inside a transaction block")
	}
	switch ss.Kind {
	case parse.CreateSink:
		return s.createSink(ctx, ss, st.parsed.Text, io)
	case parse.DropSink:
		return s.dropSinks(ss, io)
	}
	return s.showSinks(st)
}

func (s *Session) createSink(ctx context.Context, ss *parse.StreamingStmt, text string, io wire.ExecIO) (wire.Result, error) {
	if ss.Sink.AsQueryPos > 0 {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, ss.Sink.AsQueryPos, "CREATE SINK ... AS query is not supported").
			WithHint("Create a streaming table of the query (CREATE STREAMING TABLE t AS SELECT ...), then CREATE SINK " + ss.Name + " FROM t WITH (...).")
	}
	def, err := s.sinkDefinition(ss)
	if err != nil {
		return nil, err
	}
	def.Definition = text
	if err := s.checkSchemaUsage(ss.Sink.From.Schema); err != nil { // privilege_checks.go
		return nil, err
	}
	from, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Sink.From.Schema, ss.Sink.From.Name)
	if err != nil {
		return nil, err
	}
	if err := s.requireRelationPrivilege(from, catalog.PrivSelect, columnNames(from)); err != nil { // a sink reads whole rows
		return nil, err
	}
	if from.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.At(sqlerr.WrongObjectType, ss.Sink.FromPos, "\"%s\" is not a streaming table", ss.Sink.From.Name).
			WithHint("A sink reads a streaming table's changes; CREATE STREAMING TABLE t AS SELECT * FROM STREAM " + ss.Sink.From.Name + " makes one of a table.")
	}
	if from.Streaming != nil && from.Streaming.NoQuery && !onlyCDCFlow(from) {
		// Its flows commit epochs of their own: a sink's progress is one
		// epoch number, which no single flow's epochs can stand for.
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, ss.Sink.FromPos, "a sink cannot read %s, a streaming table filled by flows", from.Name).
			WithHint("Sink a streaming table that reads it: CREATE STREAMING TABLE " + from.Name + "_out AS SELECT * FROM STREAM " + from.Name + ", then CREATE SINK ... FROM " + from.Name + "_out.")
	}
	def.From = from.OID
	if from.Streaming != nil && from.Streaming.OutputMode != planner.AppendMode {
		for _, name := range []string{changeTypeColumn, commitVersionColumn} {
			if from.Column(name) >= 0 {
				return nil, sqlerr.New(sqlerr.DuplicateColumn, "streaming table %s has a column %s, which a sink of its changes adds", from.Name, name).
					WithHint("Rename the column in the table's query.")
			}
		}
	}
	if def.Schema == "" {
		sp := s.searchPath()
		if len(sp) == 0 {
			return nil, sqlerr.New(sqlerr.InvalidSchemaName, "no schema has been selected to create in")
		}
		def.Schema = sp[0]
	}
	if err := s.requireCreateIn(def.Schema); err != nil { // owner.go
		return nil, err
	}
	if ss.IfNotExists {
		if _, err := s.eng.cat.LookupSink(nil, def.Schema, def.Name); err == nil {
			io.Notice("NOTICE", sqlerr.DuplicateObject, fmt.Sprintf("sink \"%s\" already exists, skipping", def.Name))
			return commandResult("CREATE SINK"), nil
		}
	}
	if f := def.Files; f != nil {
		for _, p := range f.PartitionBy {
			if from.Column(p) < 0 {
				return nil, sqlerr.New(sqlerr.UndefinedColumn, "partition_by column \"%s\" does not exist in streaming table %s", p, from.Name)
			}
		}
		if len(f.PartitionBy) >= len(from.Columns) {
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "partition_by names every column of %s: the files would hold none", from.Name)
		}
		if err := s.checkSinkFolder(f.Path); err != nil {
			return nil, err
		}
	}
	if def.Iceberg != nil {
		if err := s.checkIcebergSink(def, from); err != nil {
			return nil, err
		}
	}
	def.Owner = s.ownerOfNew(&catalog.Relation{}) // owner.go
	if def.Kafka != nil {
		if err := s.checkKafkaSink(def, from); err != nil { // kafka_sink.go
			return nil, err
		}
	}
	created, err := s.eng.cat.CreateSink(def, ss.IfNotExists)
	if err != nil {
		return noticeOr(err, io, "CREATE SINK")
	}
	if r := s.eng.runnerFor(from.OID); r != nil && r.job != nil && r.plan != nil {
		if err := s.eng.waitStreamingTable(ctx, r); err != nil {
			// The sink exists; it starts with its table's next start.
			io.Notice("WARNING", sqlerr.Code(err), fmt.Sprintf("sink %s starts once streaming table %s runs: %s", created.Name, from.Name, sqlerr.From(err).Message))
			return commandResult("CREATE SINK"), nil
		}
		if err := s.eng.backfill(r, from, created); err != nil {
			// The sink exists, failed: SHOW SINKS says why; DROP SINK
			// removes it.
			io.Notice("WARNING", sqlerr.Code(err), fmt.Sprintf("sink %s failed: %s", created.Name, sqlerr.From(err).Message))
		}
	}
	return commandResult("CREATE SINK"), nil
}

// sinkDefinition checks CREATE SINK's options for its connector.
func (s *Session) sinkDefinition(ss *parse.StreamingStmt) (*catalog.Sink, error) {
	conn, ok := ss.Options["connector"]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "option \"connector\" is required").
			WithHint("For example WITH (connector = 'files', path = 'lake/silver', format = 'parquet').")
	}
	if err := s.requireSecretUsage(ss.Options); err != nil { // secret_usage.go
		return nil, err
	}
	conn = strings.ToLower(conn)
	def := &catalog.Sink{Schema: ss.Schema, Name: ss.Name, Connector: conn}
	switch conn {
	case "files":
		f, err := s.filesSinkOptions(ss.Options)
		if err != nil {
			return nil, err
		}
		def.Files = f
		return def, nil
	case "kafka":
		return s.kafkaSinkDefinition(def, ss.Options) // kafka_sink.go
	case "postgres":
		return s.postgresSinkDefinition(def, ss.Options) // pgsink.go
	case "iceberg":
		return s.icebergSinkDefinition(def, ss.Options)
	}
	return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"connector\": \"%s\"", conn).
		WithHint("Sink connectors: " + strings.Join(sinkConnectors, ", ") + ".")
}

// filesSinkOptions reads the files connector's options. Writing server
// files needs superuser or the privileges of pg_write_server_files, as
// COPY ... TO 'file' does in PostgreSQL.
func (s *Session) filesSinkOptions(opts map[string]string) (*catalog.FilesSink, error) {
	if !s.hasPrivsOfOID(catalog.WriteServerFilesRoleOID) {
		return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to create a files sink").
			WithDetail("Only roles with privileges of the \"pg_write_server_files\" role may write files on the server.")
	}
	f := &catalog.FilesSink{Format: filesink.FormatParquet, TargetFileSize: filesink.DefaultTargetFileSize}
	for k, v := range opts {
		switch k {
		case "connector":
		case "path":
			f.Path = v
		case "format":
			f.Format = strings.ToLower(v)
			if err := filesink.CheckFormat(f.Format); err != nil {
				return nil, err
			}
		case "target_file_size", "targetfilesize":
			n, err := filesink.ParseSize(v)
			if err != nil {
				return nil, err
			}
			f.TargetFileSize = n
		case "partition_by", "partitionby":
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					f.PartitionBy = append(f.PartitionBy, p)
				}
			}
		default:
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized option \"%s\" of a files sink", k).
				WithHint("A files sink takes path, format (parquet, json, csv), target_file_size and partition_by.")
		}
	}
	if f.Path == "" {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "option \"path\" is required").
			WithHint("The folder the files go to, e.g. path = 'lake/silver' (relative to the first --files-root).")
	}
	// Resolved and checked under the files roots, as COPY TO 'file' is
	// (a relative path is under the first root; outside every root 42501).
	abs, err := s.eng.resolveUnderRoots(f.Path) // files_access.go
	if err != nil {
		return nil, err
	}
	f.Path = abs
	return f, nil
}

// checkSinkFolder refuses a folder another sink writes to, or one that
// holds a manifest already (a dropped sink's: its epochs would be taken
// for the new sink's).
func (s *Session) checkSinkFolder(path string) error {
	for _, other := range s.eng.cat.Sinks() {
		if other.Files != nil && other.Files.Path == path {
			return sqlerr.New(sqlerr.InvalidParameterValue, "sink %s already writes to folder \"%s\"", other.Name, path)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(path, filesink.ManifestDir)); err == nil && len(ents) > 0 {
		return sqlerr.New(sqlerr.InvalidParameterValue, "folder \"%s\" holds the files of an earlier sink (%s)", path, filesink.ManifestDir).
			WithHint("Choose an empty folder, or remove that one first.")
	}
	return nil
}

func (s *Session) dropSinks(ss *parse.StreamingStmt, io wire.ExecIO) (wire.Result, error) {
	var defs []*catalog.Sink
	for _, n := range ss.Names {
		if err := s.requireNamedSchemaUsage(n.Schema); err != nil { // owner.go
			return nil, err
		}
		def, err := s.eng.cat.LookupSink(s.searchPath(), n.Schema, n.Name)
		if err != nil {
			if ss.IfExists && sqlerr.Code(err) == sqlerr.UndefinedObject {
				io.Notice("NOTICE", sqlerr.UndefinedObject, fmt.Sprintf("sink \"%s\" does not exist, skipping", n.Name))
				continue
			}
			return nil, err
		}
		if err := s.requireSinkOwner(def); err != nil { // owner.go
			return nil, err
		}
		defs = append(defs, def)
	}
	for _, def := range defs {
		if err := s.eng.dropSink(def); err != nil {
			return nil, err
		}
	}
	return commandResult("DROP SINK"), nil
}

// dropSink stops and forgets a sink. Its folder and files stay: they are
// the sink's output, now the user's.
func (e *Engine) dropSink(def *catalog.Sink) error {
	e.detachSink(def)
	closeKafkaSink(def) // kafka_sink.go
	return e.cat.DropSink(def.OID)
}

// dropTableSinks is DROP STREAMING TABLE's dependency check: with sinks
// reading the table it fails with 2BP01 as PostgreSQL does for dependent
// objects, unless CASCADE, which drops them (with a NOTICE each).
func (s *Session) dropTableSinks(rel *catalog.Relation, cascade bool, io wire.ExecIO) error {
	sinks := s.eng.cat.SinksOf(rel.OID)
	if len(sinks) == 0 {
		return nil
	}
	if !cascade {
		var lines []string
		for _, d := range sinks {
			lines = append(lines, "sink "+d.Name+" depends on streaming table "+rel.Name)
		}
		return sqlerr.New("2BP01", "cannot drop streaming table %s because other objects depend on it", rel.Name).
			WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, d := range sinks {
		io.Notice("NOTICE", sqlerr.SuccessfulCompletion, "drop cascades to sink "+d.Name)
		if err := s.eng.dropSink(d); err != nil {
			return err
		}
	}
	return nil
}

// refuseReplaceWithSinks: CREATE OR REFRESH of a streaming table that
// sinks read would re-run its epochs under a new query, which the sinks
// hold already; they are dropped first.
func (s *Session) refuseReplaceWithSinks(rel *catalog.Relation) error {
	sinks := s.eng.cat.SinksOf(rel.OID)
	if len(sinks) == 0 {
		return nil
	}
	return sqlerr.New("2BP01", "cannot replace streaming table %s because sink %s reads it", rel.Name, sinks[0].Name).
		WithHint("DROP SINK " + sinks[0].Name + " first, and create it again on the new table.")
}

func (s *Session) showSinks(st *statement) (wire.Result, error) {
	var cols [7][]any
	for _, def := range s.eng.cat.Sinks() {
		from := ""
		if rel, ok := s.eng.cat.RelationByOID(def.From); ok {
			from = rel.Name
		}
		status, lastErr, last := s.eng.sinkState(def)
		var lastV, errV any
		if last >= 0 {
			lastV = last
		}
		if lastErr != "" {
			errV = lastErr
		}
		vals := []any{def.Name, from, def.Connector, sinkOptionsText(def), status, lastV, errV}
		for i, v := range vals {
			cols[i] = append(cols[i], v)
		}
	}
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{anyBatch(st.cols, cols[:])}, tag: "SHOW"}, nil
}

// sinkOptionsText is a sink's options as SHOW SINKS prints them (a files
// sink has no secrets; a connector with credentials leaves them out).
func sinkOptionsText(def *catalog.Sink) string {
	var kv []string
	if f := def.Files; f != nil {
		kv = append(kv, "path="+f.Path, "format="+f.Format, "target_file_size="+strconv.FormatInt(f.TargetFileSize, 10))
		if len(f.PartitionBy) > 0 {
			kv = append(kv, "partition_by="+strings.Join(f.PartitionBy, ","))
		}
	}
	kv = append(kv, icebergOptionsText(def)...)
	kv = append(kv, kafkaSinkOptionsText(def)...) // kafka_sink.go
	return strings.Join(kv, ", ")
}

// onlyCDCFlow: a target filled by one AUTO CDC flow and nothing else. Its
// flow's job runs under the target's own OID (flowCheckpoint, OID 0), so
// the target's epochs are that job's, as a streaming table's with a query
// are, and a sink follows them the same way.
func onlyCDCFlow(rel *catalog.Relation) bool {
	fs := rel.Streaming.Flows
	return len(fs) == 1 && fs[0].CDC != nil && fs[0].OID == 0
}
