package engine

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/nexmark"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Inline sources: nexmark('bid', max_events => N, ...) in the FROM clause
// of a streaming query (dialect.md: SELECT * FROM STREAM nexmark('bid',
// max_events => 1000000)) is read as a source, not as a table function.
// Before planning, each such call is replaced by a reference to an inline
// source relation: not a catalog object, but registered in memory under a
// name and OID that are a hash of its options, so that re-planning the
// same definition (after a restart) finds the same input. Its options are
// the nexmark() table function's (paced only when asked or unbounded), and
// a paced one counts its feed from the streaming table's creation.

// inlineOIDBase marks an inline source's OID (catalog OIDs grow from
// 16384 and never get near it).
const inlineOIDBase = 0xF0000000

// inlineSchema is the schema an inline source is shown in (a name that
// resolves only to inline sources: the query refers to them unqualified).
const inlineSchema = "weir_inline"

// inlineNexmark returns st with its nexmark() FROM items replaced by
// inline source references (st itself when it has none).
func (e *Engine) inlineNexmark(st *parse.StreamingStmt) (*parse.StreamingStmt, error) {
	if !strings.Contains(strings.ToLower(st.Query), "nexmark") {
		return st, nil
	}
	st, calls, ok := findFromCalls(st, isNexmarkCall) // inline_calls.go
	if !ok || len(calls) == 0 {
		return st, nil
	}
	for _, c := range calls {
		if c.ordinality {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "WITH ORDINALITY is not supported on nexmark() in a streaming table")
		}
		rel, err := inlineSource(c.fc, st.Query[c.start:c.end])
		if err != nil {
			return nil, err
		}
		e.inline.Store(rel.OID, rel)
		c.name = rel.Name
	}
	out := *st
	q := st.Query
	for i := len(calls) - 1; i >= 0; i-- { // from the end: offsets before stay true
		c := calls[i]
		ref := `"` + c.name + `"`
		if c.alias == "" && !c.inner {
			ref += " AS nexmark" // the name the function's columns are known by
		}
		q = q[:c.start] + ref + q[c.end:]
	}
	out.Query = q
	// The STREAM-marked calls become stream inputs by their new names:
	// matched in order of appearance by alias.
	used := make([]bool, len(calls))
	out.Inputs = append([]parse.StreamInput(nil), st.Inputs...)
	for i, in := range out.Inputs {
		if !in.Func || in.Name != "nexmark" {
			continue
		}
		for k, c := range calls {
			if !used[k] && c.alias == in.Alias {
				used[k] = true
				out.Inputs[i].Name, out.Inputs[i].Func = c.name, false
				break
			}
		}
	}
	return &out, nil
}

func isNexmarkCall(fc *pg_query.FuncCall) bool {
	return fc != nil && len(fc.Funcname) == 1 && fc.Funcname[0].GetString_().GetSval() == "nexmark"
}

// callEnd is the byte offset after the ')' closing the call whose name
// starts at start, or -1.
func callEnd(toks []*pg_query.ScanToken, start int) int {
	for i, t := range toks {
		if int(t.Start) != start {
			continue
		}
		depth := 0
		for _, u := range toks[i+1:] {
			switch u.Token {
			case pg_query.Token_ASCII_40:
				depth++
			case pg_query.Token_ASCII_41:
				depth--
				if depth == 0 {
					return int(u.End)
				}
			}
		}
	}
	return -1
}

// inlineSource checks a nexmark() call's options and returns its inline
// source relation.
func inlineSource(fc *pg_query.FuncCall, text string) (*catalog.Relation, error) {
	var settings []connector.Setting
	for i, a := range fc.Args {
		name, arg := "", a
		if na := a.GetNamedArgExpr(); na != nil {
			name, arg = strings.ToLower(na.Name), na.Arg
		} else if i == 0 {
			name = "table"
		} else {
			return nil, sqlerr.At(sqlerr.InvalidParameterValue, int(fc.Location)+1, "nexmark takes the table and then named options (name => value)").
				WithHint("For example nexmark('bid', max_events => 1000000, seed => 1).")
		}
		v, ok := constText(arg)
		if !ok {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, int(fc.Location)+1, "the arguments of nexmark() in a streaming table must be constants (\"%s\" is not)", name)
		}
		settings = append(settings, connector.Setting{Name: name, Value: v})
	}
	o, err := nexmark.ParseOptions(settings)
	if err != nil {
		return nil, err
	}
	if _, err := nexmark.NewGenerator(o.Config); err != nil {
		return nil, err
	}
	n := catalogNexmark(o)
	// The OID is part of the streaming table's state identity, so the
	// key spells out every option (adding an option must not change the
	// key of calls that do not use it).
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%d|%d|%d|%d|%d|%g|%d|%t", n.Table, n.EventsPerSecond, n.MaxEvents, n.Seed, n.BatchRows,
		n.DisorderUS, n.LateFraction, n.LateByUS, n.Paced)
	oid := inlineOIDBase | h.Sum32()&0x0FFFFFFF
	rel := &catalog.Relation{OID: oid, Schema: inlineSchema, Name: fmt.Sprintf("nexmark$%08x", oid), Kind: catalog.KindSource,
		ViewSQL: "SELECT * FROM " + text, Source: &catalog.Source{Connector: "nexmark", Nexmark: n, Definition: text}}
	for _, c := range nexmark.Columns[o.Table] {
		rel.Columns = append(rel.Columns, catalog.Column{Name: c.Name, Type: c.T})
	}
	return rel, nil
}

// constText is a constant argument's value as option text.
func constText(n *pg_query.Node) (string, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return "", false
	}
	switch {
	case c.GetIval() != nil:
		return strconv.FormatInt(int64(c.GetIval().Ival), 10), true
	case c.GetFval() != nil:
		return c.GetFval().Fval, true
	case c.GetSval() != nil:
		return c.GetSval().Sval, true
	case c.GetBoolval() != nil:
		return strconv.FormatBool(c.GetBoolval().Boolval), true
	}
	return "", false
}

// inlineRelation is the inline source called name, if one is registered.
func (e *Engine) inlineRelation(schema, name string) *catalog.Relation {
	if schema != "" && schema != inlineSchema {
		return nil
	}
	hex, ok := strings.CutPrefix(name, "nexmark$")
	if !ok {
		if hex, ok = strings.CutPrefix(name, "files$"); !ok { // files_source.go
			if hex, ok = strings.CutPrefix(name, "kafka$"); !ok { // kafka_inline.go
				return nil
			}
		}
	}
	oid, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return nil
	}
	if r, ok := e.inline.Load(uint32(oid)); ok {
		return r.(*catalog.Relation)
	}
	return nil
}

// walkFrom calls f on every function in a FROM clause of the statement n:
// in joins, subqueries, CTEs and set operations.
func walkFrom(n *pg_query.Node, f func(*pg_query.RangeFunction)) {
	if n == nil {
		return
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_SelectStmt:
		s := x.SelectStmt
		for _, item := range s.FromClause {
			walkFrom(item, f)
		}
		if s.WithClause != nil {
			for _, cte := range s.WithClause.Ctes {
				walkFrom(cte, f)
			}
		}
		if s.Larg != nil {
			walkFrom(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: s.Larg}}, f)
		}
		if s.Rarg != nil {
			walkFrom(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: s.Rarg}}, f)
		}
	case *pg_query.Node_CommonTableExpr:
		walkFrom(x.CommonTableExpr.Ctequery, f)
	case *pg_query.Node_JoinExpr:
		walkFrom(x.JoinExpr.Larg, f)
		walkFrom(x.JoinExpr.Rarg, f)
	case *pg_query.Node_RangeSubselect:
		walkFrom(x.RangeSubselect.Subquery, f)
	case *pg_query.Node_RangeFunction:
		f(x.RangeFunction)
	}
}
