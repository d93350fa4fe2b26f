package planner

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// read_files('path', format => 'json', ...) and Auto Loader's legacy
// cloud_files('path', 'json', map('option', 'value', ...)) in FROM: the
// files there now, as a relation. The planner knows nothing of files: the
// catalog checks the options, who may read where, and infers the schema,
// and gives back a source relation that the FROM item then reads (a batch
// SELECT reads what is there now; in a streaming table the engine turns
// the same call into a files source before planning).

// FileOption is one option of a read_files call: the path (named "path"),
// then its named arguments as written, values as text.
type FileOption struct{ Name, Value string }

// FilesCatalog is implemented by catalogs that can read files. FilesRelation
// checks a read_files call's options (22023 naming a bad one, 42501 for
// a path the session may not read), infers the schema from the files
// there now, and returns the relation the rows are read as; that
// relation's name then resolves through LookupRelation for the rest of
// the statement. Columns marked Hidden (_metadata) are not expanded by *.
type FilesCatalog interface {
	FilesRelation(options []FileOption) (*Relation, error)
}

// IsFilesFunction tells whether a FROM function is one of the file
// readers (read_files, or cloud_files).
func IsFilesFunction(name string) bool { return name == "read_files" || name == "cloud_files" }

// FilesCallOptions reads a read_files / cloud_files call's arguments as
// options: every argument must be a constant.
func FilesCallOptions(fc *pg_query.FuncCall) ([]FileOption, error) {
	name := funcName(fc.Funcname)
	pos := int(fc.Location) + 1
	hint := "For example read_files('landing/events', format => 'json', schemaHints => 'amount decimal(18,2)')."
	var out []FileOption
	for i, a := range fc.Args {
		if na := a.GetNamedArgExpr(); na != nil {
			v, ok := constOptionText(na.Arg)
			if !ok {
				return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "the options of %s must be constants (\"%s\" is not)", name, na.Name).WithHint(hint)
			}
			out = append(out, FileOption{Name: na.Name, Value: v})
			continue
		}
		switch {
		case i == 0:
			v, ok := constOptionText(a)
			if !ok {
				return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "the path of %s must be a string constant", name).WithHint(hint)
			}
			out = append(out, FileOption{Name: "path", Value: v})
		case name == "cloud_files" && i == 1:
			v, ok := constOptionText(a)
			if !ok {
				return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "the format of cloud_files must be a string constant")
			}
			out = append(out, FileOption{Name: "format", Value: v})
		case name == "cloud_files" && i == 2:
			m := a.GetFuncCall()
			if m == nil || funcName(m.Funcname) != "map" || len(m.Args)%2 != 0 {
				return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "the third argument of cloud_files must be map('option', 'value', ...)").
					WithHint("For example cloud_files('landing/events', 'json', map('cloudFiles.schemaHints', 'amount decimal(18,2)')).")
			}
			for k := 0; k < len(m.Args); k += 2 {
				key, ok1 := constOptionText(m.Args[k])
				val, ok2 := constOptionText(m.Args[k+1])
				if !ok1 || !ok2 {
					return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "the options of cloud_files must be constants")
				}
				out = append(out, FileOption{Name: key, Value: val})
			}
		default:
			return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "%s takes the path and then named options (name => value)", name).WithHint(hint)
		}
	}
	if len(out) == 0 || out[0].Name != "path" {
		return nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "%s needs a path", name).WithHint(hint)
	}
	return out, nil
}

// constOptionText is a constant argument's value as option text.
func constOptionText(n *pg_query.Node) (string, bool) {
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

// bindReadFiles binds read_files(...) / cloud_files(...) in FROM as the
// relation the catalog gives for it.
func (b *binder) bindReadFiles(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, parent *scope) (Node, *scope, error) {
	name := funcName(fc.Funcname)
	pos := int(fc.Location) + 1
	if rf.Ordinality {
		return nil, nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "WITH ORDINALITY is not supported on %s", name)
	}
	fcat, ok := b.cat.(FilesCatalog)
	if !ok {
		return nil, nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "%s is not supported here", name)
	}
	opts, err := FilesCallOptions(fc)
	if err != nil {
		return nil, nil, err
	}
	rel, err := fcat.FilesRelation(opts)
	if err != nil {
		return nil, nil, sqlerr.PositionIfNone(err, pos)
	}
	alias := &pg_query.Alias{Aliasname: name}
	if rf.Alias != nil {
		alias = rf.Alias
	}
	return b.bindRangeVar(&pg_query.RangeVar{Schemaname: rel.Schema, Relname: rel.Name, Inh: true, Relpersistence: "p",
		Alias: alias, Location: fc.Location}, parent)
}
