package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/connector/kafka"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// CREATE SOURCE name [(columns)] WITH (connector = 'kafka', ...): a named
// Kafka source (connector/kafka). Its options are read_kafka's
// (Databricks' names; RisingWave's topic, bootstrap_servers and startup
// are accepted too). format raw (the default) gives read_kafka's columns;
// json and csv decode each message into the declared columns, with the
// rescued-data column (rescuedDataColumn, default _rescued_data) for what
// does not fit. CREATE connects: an unreachable broker is 08001, refused
// credentials 28000, a topic that does not exist 42P01. Every streaming
// table reading the source keeps its own offset log (kafka_input.go).

func (s *Session) createKafkaSource(ss *parse.StreamingStmt, text string, io wire.ExecIO) (wire.Result, error) {
	var opts []catalog.FilesOption
	for k, v := range ss.Options {
		if k != "connector" {
			opts = append(opts, catalog.FilesOption{Name: k, Value: v})
		}
	}
	sort.Slice(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
	var declared []catalog.Column
	if ss.SourceColumns != "" {
		cols, err := sourceColumnList(ss) // files_source_stmt.go
		if err != nil {
			return nil, err
		}
		declared = cols
	}
	def, o, err := s.eng.newKafkaDefinition(s.currentRoleOID(), opts, declared)
	if err != nil {
		return nil, err
	}
	if err := kafka.Check(context.Background(), o); err != nil {
		return nil, err
	}
	rel := &catalog.Relation{Schema: ss.Schema, Name: ss.Name, Kind: catalog.KindSource, ViewSQL: readKafkaQuery(def),
		Columns: kafkaColumns(def), Source: &catalog.Source{Connector: "kafka", Kafka: def, Definition: text}}
	return s.storeSource(ss, rel, io) // source_stmts.go
}

// newKafkaDefinition checks a Kafka source's options (secrets resolved
// for the check only: the definition keeps secret('name')) and columns.
func (e *Engine) newKafkaDefinition(role uint32, opts []catalog.FilesOption, declared []catalog.Column) (*catalog.KafkaSource, kafka.Options, error) {
	o, err := e.kafkaOptions(role, opts)
	if err != nil {
		return nil, kafka.Options{}, err
	}
	def := &catalog.KafkaSource{Options: opts, Format: o.Format}
	rescued := "_rescued_data" // as a files source's
	for _, op := range opts {
		if kafka.Canonical(op.Name) == "rescuedDataColumn" {
			rescued = op.Value
		}
	}
	switch o.Format {
	case "raw":
		if declared != nil {
			return nil, o, sqlerr.New("42611", "a Kafka source of format raw has read_kafka's columns; it takes no column list").
				WithHint("Its columns are key, value, topic, partition, offset, timestamp, timestamptype and headers. Give format = 'json' or 'csv' to declare typed columns.")
		}
	default:
		if declared == nil {
			return nil, o, sqlerr.New(sqlerr.InvalidParameterValue, "a Kafka source of format %s needs its column list", o.Format).
				WithHint("For example CREATE SOURCE orders (order_id bigint, amount numeric(18,2)) WITH (connector = 'kafka', ..., format = '" + o.Format + "').")
		}
		for _, c := range declared {
			if c.Name == rescued {
				return nil, o, sqlerr.New(sqlerr.DuplicateColumn, "column \"%s\" is the source's rescued-data column", c.Name).
					WithHint("Leave it out of the list, or name another with rescuedDataColumn.")
			}
		}
		def.Columns, def.Rescued = declared, rescued
	}
	return def, o, nil
}

// kafkaOptions are a definition's options typed, secrets resolved for
// role (who the source runs as).
func (e *Engine) kafkaOptions(role uint32, opts []catalog.FilesOption) (kafka.Options, error) {
	m := make(map[string]string, len(opts))
	for _, op := range opts {
		m[op.Name] = op.Value
	}
	m, err := e.resolveSecrets(role, m) // secrets.go: role needs USAGE on the secrets named
	if err != nil {
		return kafka.Options{}, err
	}
	return kafka.ParseOptions(m)
}

// kafkaSchema is the connector's form of a definition's columns.
func kafkaSchema(def *catalog.KafkaSource) files.Schema {
	s := files.Schema{Rescued: def.Rescued, Version: 1}
	for _, c := range def.Columns {
		s.Columns = append(s.Columns, files.Column{Name: c.Name, Type: c.Type})
	}
	return s
}

// kafkaColumns are a Kafka relation's columns.
func kafkaColumns(def *catalog.KafkaSource) []catalog.Column {
	if def.Format == "raw" {
		out := make([]catalog.Column, len(kafka.RawColumns))
		for i, c := range kafka.RawColumns {
			out[i] = catalog.Column{Name: c.Name, Type: c.Type}
		}
		return out
	}
	cols := append([]catalog.Column(nil), def.Columns...)
	if def.Rescued != "" {
		cols = append(cols, catalog.Column{Name: def.Rescued, Type: types.JSONB})
	}
	return cols
}

// readKafkaQuery is the batch query reading a Kafka source (what
// pg_get_viewdef shows for it).
func readKafkaQuery(def *catalog.KafkaSource) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM read_kafka(")
	for i, o := range def.Options {
		if i > 0 {
			b.WriteString(", ")
		}
		name := o.Name
		if strings.Contains(name, ".") {
			name = `"` + name + `"`
		}
		b.WriteString(name + " => " + quoteLiteral(o.Value))
	}
	b.WriteString(")")
	return b.String()
}

// kafkaSubscription is what SHOW SOURCES shows in its path column for a
// Kafka source: the topics, the pattern or the assignment.
func kafkaSubscription(def *catalog.KafkaSource) string {
	for _, o := range def.Options {
		switch kafka.Canonical(o.Name) {
		case "subscribe", "subscribePattern", "assign":
			return o.Value
		}
	}
	return ""
}

// maxKafkaBatchRows bounds a batch SELECT of a Kafka source.
const maxKafkaBatchRows = 10_000_000

// readKafkaNow is a batch SELECT's read of a Kafka source: what its
// topics hold now.
func (e *Engine) readKafkaNow(ctx context.Context, rel *catalog.Relation, schema *arrow.Schema) ([]arrow.RecordBatch, error) {
	def := rel.Source.Kafka
	o, err := e.kafkaOptions(rel.Owner, def.Options)
	if err != nil {
		return nil, err
	}
	bs, err := kafka.ReadNow(ctx, o, kafkaSchema(def), 0, maxKafkaBatchRows)
	if err != nil {
		return nil, err
	}
	for i, b := range bs {
		if int(b.NumCols()) != schema.NumFields() {
			return nil, sqlerr.New(sqlerr.InternalError, "kafka source %s: %d columns read, %d planned", rel.Name, b.NumCols(), schema.NumFields())
		}
		bs[i] = array.NewRecordBatch(schema, b.Columns(), b.NumRows())
	}
	return bs, nil
}
