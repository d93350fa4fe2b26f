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
	return replaceFromCalls(st, calls, bare, planner.IsFilesFunction), nil // inline_calls.go
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
