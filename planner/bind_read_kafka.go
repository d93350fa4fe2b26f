package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// read_kafka(bootstrapServers => '...', subscribe => '...', ...) in FROM
// (Databricks' table-valued function): the records a Kafka topic holds,
// as a relation. As with read_files, the planner knows nothing of Kafka:
// the catalog checks the options and gives back a source relation (a
// batch SELECT reads what the topics hold now; in a streaming table the
// engine turns the call into a Kafka source before planning).

// KafkaCatalog is implemented by catalogs that can read Kafka.
// KafkaRelation checks a read_kafka call's options and returns the
// relation its records are read as.
type KafkaCatalog interface {
	KafkaRelation(options []FileOption) (*Relation, error)
}

// IsKafkaFunction tells whether a FROM function is read_kafka.
func IsKafkaFunction(name string) bool { return name == "read_kafka" }

// KafkaCallOptions reads a read_kafka call's arguments: every one named,
// its value a constant or secret('name') (kept as written: the engine
// resolves it when the source opens).
func KafkaCallOptions(fc *pg_query.FuncCall) ([]FileOption, error) {
	pos := int(fc.Location) + 1
	hint := "For example read_kafka(bootstrapServers => '127.0.0.1:9092', subscribe => 'orders', startingOffsets => 'earliest')."
	var out []FileOption
	for _, a := range fc.Args {
		na := a.GetNamedArgExpr()
		if na == nil {
			return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "read_kafka takes named options only (name => value)").WithHint(hint)
		}
		v, ok := constOptionText(na.Arg)
		if !ok {
			if sc := na.Arg.GetFuncCall(); sc != nil && funcName(sc.Funcname) == "secret" && len(sc.Args) == 1 {
				if name, ok2 := constOptionText(sc.Args[0]); ok2 {
					v, ok = "secret('"+name+"')", true
				}
			}
		}
		if !ok {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "the options of read_kafka must be constants (\"%s\" is not)", na.Name).WithHint(hint)
		}
		out = append(out, FileOption{Name: na.Name, Value: v})
	}
	return out, nil
}

// bindReadKafka binds read_kafka(...) in FROM as the relation the catalog
// gives for it.
func (b *binder) bindReadKafka(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, parent *scope) (Node, *scope, error) {
	pos := int(fc.Location) + 1
	if rf.Ordinality {
		return nil, nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "WITH ORDINALITY is not supported on read_kafka")
	}
	kcat, ok := b.cat.(KafkaCatalog)
	if !ok {
		return nil, nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "read_kafka is not supported here")
	}
	opts, err := KafkaCallOptions(fc)
	if err != nil {
		return nil, nil, err
	}
	rel, err := kcat.KafkaRelation(opts)
	if err != nil {
		return nil, nil, sqlerr.PositionIfNone(err, pos)
	}
	alias := &pg_query.Alias{Aliasname: "read_kafka"}
	if rf.Alias != nil {
		alias = rf.Alias
	}
	return b.bindRangeVar(&pg_query.RangeVar{Schemaname: rel.Schema, Relname: rel.Name, Inh: true, Relpersistence: "p",
		Alias: alias, Location: fc.Location}, parent)
}
