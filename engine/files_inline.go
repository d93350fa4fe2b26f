package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// read_files(...) (and cloud_files(...)) in a streaming table's query:
// before planning, each call is replaced by a reference to an inline
// files source relation, as nexmark() calls are (source_inline.go). Its
// definition is made at CREATE — the schema inferred from the files there
// then — and stored with the streaming table (catalog.StreamingTable.Files);
// re-planning at a restart uses the stored definition of the call at the
// same position, so the table keeps its columns whatever has arrived.

// inlineReadFiles returns st with its read_files FROM items replaced by
// inline source references (st itself when it has none). stored are the
// definitions kept for the table being re-planned (nil at CREATE).
func (s *Session) inlineReadFiles(st *parse.StreamingStmt, stored []catalog.FilesSource) (*parse.StreamingStmt, error) {
	lower := strings.ToLower(st.Query)
	if !strings.Contains(lower, "read_files") && !strings.Contains(lower, "cloud_files") {
		return st, nil
	}
	st, calls, ok := findFromCalls(st, isFilesCall) // inline_calls.go
	if !ok || len(calls) == 0 {
		return st, nil
	}
	// bare: a call without an alias of its own, whose replacement takes
	// the function's name as alias (the name its columns are known by).
	bare := make([]bool, len(calls))
	for k, c := range calls {
		fname := c.fc.Funcname[0].GetString_().GetSval()
		if c.alias == "" {
			c.alias, bare[k] = fname, !c.inner
		}
		if c.ordinality {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, c.start+1, "WITH ORDINALITY is not supported on %s", fname)
		}
		var def *catalog.FilesSource
		for i := range stored {
			if stored[i].Input == k {
				d := stored[i]
				def = &d
			}
		}
		if def == nil {
			opts, err := planner.FilesCallOptions(c.fc)
			if err != nil {
				return nil, err
			}
			fo := make([]catalog.FilesOption, len(opts))
			for i, o := range opts {
				fo[i] = catalog.FilesOption{Name: o.Name, Value: o.Value}
			}
			if def, err = s.newFilesDefinition(fo, nil); err != nil {
				return nil, atCall(err, c.start)
			}
			def.Input = k
		}
		c.name = s.eng.inlineFilesRelation(def, st.Query[c.start:c.end]).Name
	}
	out := *st
	q := st.Query
	for i := len(calls) - 1; i >= 0; i-- {
		c := calls[i]
		ref := `"` + c.name + `"`
		if bare[i] {
			ref += " AS " + c.alias
		}
		q = q[:c.start] + ref + q[c.end:]
	}
	out.Query = q
	// The STREAM-marked calls become stream inputs by their new names,
	// matched in order of appearance by alias.
	used := make([]bool, len(calls))
	out.Inputs = append([]parse.StreamInput(nil), st.Inputs...)
	for i, in := range out.Inputs {
		if !in.Func || !planner.IsFilesFunction(in.Name) {
			continue
		}
		alias := in.Alias
		if alias == "" {
			alias = in.Name
		}
		for k, c := range calls {
			if !used[k] && c.alias == alias {
				used[k] = true
				out.Inputs[i].Name, out.Inputs[i].Func = c.name, false
				if in.Alias == "" {
					out.Inputs[i].Alias = c.alias
				}
				break
			}
		}
	}
	return &out, nil
}

// atCall gives an error without a position the call's.
func atCall(err error, start int) error {
	if se, ok := err.(*sqlerr.Error); ok && se.Position == 0 {
		cp := *se
		cp.Position = start + 1
		return &cp
	}
	return err
}

func isFilesCall(fc *pg_query.FuncCall) bool {
	return fc != nil && len(fc.Funcname) == 1 && planner.IsFilesFunction(fc.Funcname[0].GetString_().GetSval())
}
