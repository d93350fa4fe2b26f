package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/kafka"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// read_kafka(...) in a streaming table's query: before planning, each
// call is replaced by a reference to an inline Kafka source relation, as
// read_files calls are (files_inline.go). A read_kafka relation has the
// raw format's fixed columns, so its definition is the call's options and
// its position among the query's calls (which keys its offset log):
// re-planning the same query after a restart finds the same input.

// inlineReadKafka returns st with its read_kafka FROM items replaced by
// inline source references (st itself when it has none).
func (s *Session) inlineReadKafka(st *parse.StreamingStmt) (*parse.StreamingStmt, error) {
	if !strings.Contains(strings.ToLower(st.Query), "read_kafka") {
		return st, nil
	}
	st, calls, ok := findFromCalls(st, isKafkaCall) // inline_calls.go
	if !ok || len(calls) == 0 {
		return st, nil
	}
	bare := make([]bool, len(calls))
	for k, c := range calls {
		if c.alias == "" {
			c.alias, bare[k] = "read_kafka", !c.inner
		}
		if c.ordinality {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, c.start+1, "WITH ORDINALITY is not supported on read_kafka")
		}
		def, o, err := s.kafkaCallDefinition(c.fc)
		if err != nil {
			return nil, atCall(err, c.start)
		}
		def.Input = k
		// CREATE checks the brokers and topics; the engine's own
		// re-planning at a restart (the system session, pid 0) does not:
		// a broker down then is the running table's trouble, retried.
		if s.pid != 0 {
			if err := kafka.Check(context.Background(), o); err != nil {
				return nil, atCall(err, c.start)
			}
		}
		c.name = s.eng.inlineKafkaRelation(def, st.Query[c.start:c.end]).Name
	}
	return replaceFromCalls(st, calls, bare, planner.IsKafkaFunction), nil // inline_calls.go
}

func isKafkaCall(fc *pg_query.FuncCall) bool {
	return fc != nil && len(fc.Funcname) == 1 && planner.IsKafkaFunction(fc.Funcname[0].GetString_().GetSval())
}

// kafkaCallDefinition is a read_kafka call's definition: its options,
// format raw (read_kafka gives read_kafka's columns).
func (s *Session) kafkaCallDefinition(fc *pg_query.FuncCall) (*catalog.KafkaSource, kafka.Options, error) {
	opts, err := planner.KafkaCallOptions(fc)
	if err != nil {
		return nil, kafka.Options{}, err
	}
	return s.kafkaDefinitionOf(opts)
}

func (s *Session) kafkaDefinitionOf(opts []planner.FileOption) (*catalog.KafkaSource, kafka.Options, error) {
	ko := make([]catalog.FilesOption, 0, len(opts))
	for _, o := range opts {
		if kafka.Canonical(o.Name) == "format" && !strings.EqualFold(o.Value, "raw") {
			return nil, kafka.Options{}, sqlerr.New(sqlerr.InvalidParameterValue, "read_kafka gives the raw records; it takes no format").
				WithHint("Parse the value in the query (convert_from(value, 'UTF8')::jsonb ->> 'field'), or CREATE SOURCE ... (columns) WITH (connector = 'kafka', format = 'json').")
		}
		ko = append(ko, catalog.FilesOption{Name: o.Name, Value: o.Value})
	}
	return s.eng.newKafkaDefinition(s.currentRoleOID(), ko, nil) // kafka_source.go
}

// inlineKafkaRelation is the inline source relation of a read_kafka call
// with that definition: its OID is a hash of the definition.
func (e *Engine) inlineKafkaRelation(def *catalog.KafkaSource, text string) *catalog.Relation {
	h := fnv.New32a()
	fmt.Fprintf(h, "kafka|%d|%s", def.Input, def.Format)
	for _, o := range def.Options {
		fmt.Fprintf(h, "|%s=%s", strings.ToLower(o.Name), o.Value)
	}
	oid := inlineOIDBase | h.Sum32()&0x0FFFFFFF
	rel := &catalog.Relation{OID: oid, Schema: inlineSchema, Name: fmt.Sprintf("kafka$%08x", oid), Kind: catalog.KindSource,
		ViewSQL: "SELECT * FROM " + text, Columns: kafkaColumns(def),
		Source: &catalog.Source{Connector: "kafka", Kafka: def, Definition: text}}
	e.inline.Store(oid, rel)
	return rel
}

// KafkaRelation implements planner.KafkaCatalog: a batch read_kafka(...)
// is an inline source relation read as a batch (what the topics hold).
func (v *catalogView) KafkaRelation(options []planner.FileOption) (*planner.Relation, error) {
	def, _, err := v.s.kafkaDefinitionOf(options)
	if err != nil {
		return nil, err
	}
	rel := v.s.eng.inlineKafkaRelation(def, readKafkaQuery(def)[len("SELECT * FROM "):])
	return plannerRelation(rel), nil
}
