package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Databricks' GROUP BY ALL, ORDER BY ALL and QUALIFY reach the binder as
// markers of the parser's rewrite (sql/parse/databricks_query.go): a
// ParamRef numbered parse.AllColumns, and a select-list item named
// parse.QualifyColumn.

// isAllMarker reports whether n is the ALL of GROUP BY ALL / ORDER BY ALL.
func isAllMarker(n *pg_query.Node) bool {
	p := n.GetParamRef()
	return p != nil && p.Number == parse.AllColumns
}

// groupByAll expands GROUP BY ALL into every select-list expression that
// holds no aggregate, as Databricks does (none: one group of all rows).
func groupByAll(s *pg_query.SelectStmt, items []*pg_query.Node) []*pg_query.Node {
	if len(items) != 1 || !isAllMarker(items[0]) {
		return items
	}
	var out []*pg_query.Node
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		if rt == nil || rt.Name == parse.QualifyColumn || containsAggregate(rt.Val) {
			continue
		}
		out = append(out, rt.Val)
	}
	return out
}

// orderByAll expands ORDER BY ALL [ASC|DESC] [NULLS …] into the ordinals
// 1..width of the select list with that direction.
func orderByAll(sortClause []*pg_query.Node, width int) []*pg_query.Node {
	if len(sortClause) != 1 {
		return sortClause
	}
	sb := sortClause[0].GetSortBy()
	if sb == nil || !isAllMarker(sb.Node) {
		return sortClause
	}
	out := make([]*pg_query.Node, width)
	for i := range out {
		out[i] = &pg_query.Node{Node: &pg_query.Node_SortBy{SortBy: &pg_query.SortBy{
			Node:        &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Ival{Ival: &pg_query.Integer{Ival: int32(i + 1)}}, Location: sb.Location}}},
			SortbyDir:   sb.SortbyDir,
			SortbyNulls: sb.SortbyNulls,
			Location:    sb.Location,
		}}}
	}
	return out
}

// qualifyItem takes the QUALIFY condition out of a select list: the list
// without it, and the condition (nil when there is none).
func qualifyItem(targets []*pg_query.Node) ([]*pg_query.Node, *pg_query.ResTarget) {
	for i, t := range targets {
		if rt := t.GetResTarget(); rt != nil && rt.Name == parse.QualifyColumn {
			rest := append(append([]*pg_query.Node{}, targets[:i]...), targets[i+1:]...)
			return rest, rt
		}
	}
	return targets, nil
}

// qualifyAliases lets a QUALIFY condition name a select-list item by its
// alias (QUALIFY rank = 1), as Databricks does, when no input column has
// that name: the reference is replaced by the item's expression.
func qualifyAliases(cond *pg_query.Node, targets []*pg_query.Node, sc *scope) *pg_query.Node {
	alias := map[string]*pg_query.Node{}
	for _, t := range targets {
		if rt := t.GetResTarget(); rt != nil && rt.Name != "" {
			alias[rt.Name] = rt.Val
		}
	}
	if len(alias) == 0 {
		return cond
	}
	if r := replaceAlias(cond, alias, sc); r != nil {
		return r
	}
	// Replacements are collected first: a message is not changed while
	// its fields are ranged over.
	var apply []func()
	walkParse(cond.ProtoReflect(), func(m protoreflect.Message) bool {
		switch m.Interface().(type) {
		case *pg_query.SubLink, *pg_query.SelectStmt, *pg_query.WindowDef:
			return false
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					if n, ok := l.Get(i).Message().Interface().(*pg_query.Node); ok {
						if r := replaceAlias(n, alias, sc); r != nil {
							i := i
							apply = append(apply, func() { l.Set(i, protoreflect.ValueOfMessage(r.ProtoReflect())) })
						}
					}
				}
			case fd.Message() != nil && !fd.IsMap():
				if n, ok := v.Message().Interface().(*pg_query.Node); ok {
					if r := replaceAlias(n, alias, sc); r != nil {
						fd := fd
						apply = append(apply, func() { m.Set(fd, protoreflect.ValueOfMessage(r.ProtoReflect())) })
					}
				}
			}
			return true
		})
		return true
	})
	for _, f := range apply {
		f()
	}
	return cond
}

func replaceAlias(n *pg_query.Node, alias map[string]*pg_query.Node, sc *scope) *pg_query.Node {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return nil
	}
	name := cr.Fields[0].GetString_().Sval
	v, ok := alias[name]
	if !ok {
		return nil
	}
	if _, _, _, err := sc.resolve("", name, 0); err == nil {
		return nil // an input column wins, as in Databricks
	}
	return v
}

// qualifyNotSupported refuses QUALIFY where weir cannot filter after the
// window functions yet.
func qualifyNotSupported(rt *pg_query.ResTarget, what string) error {
	return sqlerr.At(sqlerr.FeatureNotSupported, int(rt.Location)+1, "QUALIFY with %s is not supported: filter in an outer query (SELECT * FROM (…) WHERE …)", what)
}

// volumesHint is what to do instead of reading Unity Catalog volumes.
const volumesHint = "Give a path on the server's file system under its files root (weir serve --files-root DIR), e.g. read_files('landing/events', format => 'json')."

// databricksFileFunction refuses a path in a Unity Catalog volume
// (/Volumes/…) for Databricks' file readers: weir reads the server's own
// file system (bind_read_files.go).
func databricksFileFunction(name string, fc *pg_query.FuncCall) error {
	if !IsFilesFunction(name) {
		return nil
	}
	pos := int(fc.Location) + 1
	if len(fc.Args) > 0 {
		if c := fc.Args[0].GetAConst(); c != nil && c.GetSval() != nil && strings.HasPrefix(c.GetSval().Sval, "/Volumes/") {
			return sqlerr.At(sqlerr.FeatureNotSupported, pos, "Unity Catalog volumes are not supported: weir has no file system at %s", c.GetSval().Sval).WithHint(volumesHint)
		}
	}
	return nil
}

// identifierClause reads Databricks' IDENTIFIER('schema.table') in FROM as
// the relation it names (a constant string only; IDENTIFIER(:param) is
// refused by the caller's function lookup).
func identifierClause(fc *pg_query.FuncCall, alias *pg_query.Alias) (*pg_query.RangeVar, bool) {
	if len(fc.Args) != 1 {
		return nil, false
	}
	c := fc.Args[0].GetAConst()
	if c == nil || c.GetSval() == nil {
		return nil, false
	}
	parts := splitIdentifier(c.GetSval().Sval)
	rv := &pg_query.RangeVar{Inh: true, Relpersistence: "p", Alias: alias, Location: fc.Location}
	switch len(parts) {
	case 1:
		rv.Relname = parts[0]
	case 2:
		rv.Schemaname, rv.Relname = parts[0], parts[1]
	case 3:
		rv.Catalogname, rv.Schemaname, rv.Relname = parts[0], parts[1], parts[2]
	default:
		return nil, false
	}
	return rv, true
}

// splitIdentifier splits a.b.c, with `quoted` or "quoted" parts kept as
// written and the others folded to lower case (Databricks' names do not
// depend on case; weir's, as PostgreSQL's, are stored folded).
func splitIdentifier(s string) []string {
	var parts []string
	var cur strings.Builder
	quote := rune(0)
	quoted := false
	flush := func() {
		p := cur.String()
		if !quoted {
			p = strings.ToLower(strings.TrimSpace(p))
		}
		parts = append(parts, p)
		cur.Reset()
		quoted = false
	}
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '`' || r == '"':
			quote, quoted = r, true
		case r == '.':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	for _, p := range parts {
		if p == "" {
			return nil
		}
	}
	return parts
}
