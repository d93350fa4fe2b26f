package planner

import (
	"reflect"
	"strings"
	"unicode"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Messages about what weir does not do name the construct as SQL writes
// it, never a Go type: a client sees "CREATE TABLE AS is not supported",
// not "*pg_query.Node_CreateTableAsStmt".

// sqlNames are the constructs whose SQL name the type name does not
// spell; the rest are read from the type name (CreateTableAsStmt:
// CREATE TABLE AS).
var sqlNames = map[string]string{
	"NamedArgExpr":              "named function argument (name => value)",
	"CollateClause":             "COLLATE",
	"GroupingFunc":              "GROUPING()",
	"SetToDefault":              "DEFAULT",
	"CurrentOfExpr":             "WHERE CURRENT OF",
	"XmlExpr":                   "XML functions",
	"XmlSerialize":              "XMLSERIALIZE",
	"MergeSupportFunc":          "MERGE_ACTION()",
	"JsonObjectConstructor":     "JSON_OBJECT",
	"JsonArrayConstructor":      "JSON_ARRAY",
	"JsonArrayQueryConstructor": "JSON_ARRAY(query)",
	"JsonObjectAgg":             "JSON_OBJECTAGG",
	"JsonArrayAgg":              "JSON_ARRAYAGG",
	"JsonIsPredicate":           "IS JSON",
	"JsonFuncExpr":              "SQL/JSON query functions (JSON_VALUE, JSON_QUERY, JSON_EXISTS)",
	"JsonParseExpr":             "JSON()",
	"JsonScalarExpr":            "JSON_SCALAR",
	"JsonSerializeExpr":         "JSON_SERIALIZE",
	"JsonTable":                 "JSON_TABLE",
	"RangeTableSample":          "TABLESAMPLE",
	"RangeTableFunc":            "XMLTABLE",
	"MultiAssignRef":            "multiple-column assignment",
	"IndexStmt":                 "CREATE INDEX",
	"CreatedbStmt":              "CREATE DATABASE",
	"DropdbStmt":                "DROP DATABASE",
	"AlterDatabaseStmt":         "ALTER DATABASE",
	"CreateSeqStmt":             "CREATE SEQUENCE",
	"AlterSeqStmt":              "ALTER SEQUENCE",
	"CreateTrigStmt":            "CREATE TRIGGER",
	"CreateEventTrigStmt":       "CREATE EVENT TRIGGER",
	"CreatePlangStmt":           "CREATE LANGUAGE",
	"RuleStmt":                  "CREATE RULE",
	"ViewStmt":                  "CREATE VIEW",
	"RenameStmt":                "ALTER … RENAME",
	"SecLabelStmt":              "SECURITY LABEL",
	"CompositeTypeStmt":         "CREATE TYPE",
	"CreateEnumStmt":            "CREATE TYPE … AS ENUM",
	"CreateRangeStmt":           "CREATE TYPE … AS RANGE",
	"DefineStmt":                "CREATE AGGREGATE, OPERATOR or TYPE",
	"CreateFunctionStmt":        "CREATE FUNCTION",
	"CreateStmt":                "CREATE TABLE",
	"VacuumStmt":                "VACUUM",
	"DoStmt":                    "DO",
	"CheckPointStmt":            "CHECKPOINT",
	"ClusterStmt":               "CLUSTER",
	"ReindexStmt":               "REINDEX",
	"CopyStmt":                  "COPY",
	"ExplainStmt":               "EXPLAIN",
	"AlterTableStmt":            "ALTER TABLE",
	"AlterObjectSchemaStmt":     "ALTER … SET SCHEMA",
	"AlterOwnerStmt":            "ALTER … OWNER TO",
	"CreateForeignTableStmt":    "CREATE FOREIGN TABLE",
	"CreateFdwStmt":             "CREATE FOREIGN DATA WRAPPER",
	"CreatePolicyStmt":          "CREATE POLICY",
	"CreatePublicationStmt":     "CREATE PUBLICATION",
	"CreateSubscriptionStmt":    "CREATE SUBSCRIPTION",
	"CreateStatsStmt":           "CREATE STATISTICS",
	"CreateTableSpaceStmt":      "CREATE TABLESPACE",
	"PrepareStmt":               "PREPARE",
	"ExecuteStmt":               "EXECUTE",
	"TruncateStmt":              "TRUNCATE",
	"UpdateStmt":                "UPDATE",
	"DeleteStmt":                "DELETE",
	"MergeStmt":                 "MERGE",
	"LockStmt":                  "LOCK",
	"CallStmt":                  "CALL",
	"LoadStmt":                  "LOAD",
	"DiscardStmt":               "DISCARD",
	"NotifyStmt":                "NOTIFY",
	"ReturnStmt":                "RETURN",
	"PlassignStmt":              "PL/pgSQL assignment",
}

// NodeName is the SQL name of a parse tree node's construct.
func NodeName(n *pg_query.Node) string {
	if n == nil || n.GetNode() == nil {
		return "an empty statement"
	}
	return typeSQLName(reflect.TypeOf(n.GetNode()).Elem().Name())
}

// typeSQLName reads a pg_query type name (Node_CreateTableAsStmt) as SQL
// (CREATE TABLE AS).
func typeSQLName(t string) string {
	t = strings.TrimPrefix(t, "Node_")
	if s, ok := sqlNames[t]; ok {
		return s
	}
	t = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(t, "Stmt"), "A_"), "_")
	var words []string
	start := 0
	rs := []rune(t)
	for i := 1; i <= len(rs); i++ {
		if i == len(rs) || unicode.IsUpper(rs[i]) && !unicode.IsUpper(rs[i-1]) {
			words = append(words, strings.ToUpper(string(rs[start:i])))
			start = i
		}
	}
	return strings.Join(words, " ")
}

// planNodeName is what a plan node stands for in the query, for messages
// about queries a streaming table cannot run.
func planNodeName(n Node) string {
	switch x := n.(type) {
	case *Sort:
		return "ORDER BY"
	case *Limit:
		return "LIMIT / OFFSET"
	case *Distinct:
		if x.On != nil {
			return "DISTINCT ON"
		}
		return "DISTINCT"
	case *SetOp:
		return "UNION, INTERSECT and EXCEPT"
	case *Values:
		return "VALUES"
	case *FunctionScan:
		return "a table function in FROM"
	case *ProjectSet:
		return "a set-returning function in the select list"
	case *Window:
		return "a window function (OVER)"
	case *WindowAssign:
		return "an event-time window"
	case *Aggregate:
		return "aggregation"
	case *Join:
		return "JOIN"
	case *Filter:
		return "WHERE"
	case *Project:
		return "a select list"
	case *Scan:
		return "a relation"
	}
	return "this query shape"
}

// nodeLocation is the location of a node that has one, -1 otherwise.
func nodeLocation(n *pg_query.Node) int32 {
	m := n.ProtoReflect()
	for m.IsValid() {
		fds := m.Descriptor().Fields()
		if fd := fds.ByName("location"); fd != nil {
			return int32(m.Get(fd).Int())
		}
		// A Node is a oneof: step into the set member.
		od := m.Descriptor().Oneofs().ByName("node")
		if od == nil {
			return -1
		}
		fd := m.WhichOneof(od)
		if fd == nil || fd.Message() == nil {
			return -1
		}
		m = m.Get(fd).Message()
	}
	return -1
}
