package engine

import (
	"sort"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/parse"
)

// Table functions in a streaming query's FROM that stand for sources
// (nexmark(), read_files()) are replaced by inline source relations
// before planning (source_inline.go, files_inline.go). Both find their
// calls the same way, here.

// fromCall is one such call in the query's text.
type fromCall struct {
	fc         *pg_query.FuncCall
	alias      string // the FROM item's alias; "" when it has none
	ordinality bool
	inner      bool // the table argument of TUMBLE/HOP/SESSION: no alias of its own
	start, end int  // the call's text: st.Query[start:end]
	name       string
}

// findFromCalls parses st's query as the streaming front end reads it
// (Databricks' spellings too: GROUP BY ALL) and returns the calls in FROM
// that match accepts, directly or as the table argument of TUMBLE(...),
// in order of appearance, with st holding the text their offsets point
// into. ok is false when the query does not parse or a call's end is not
// found: the planner then reports what is wrong.
func findFromCalls(st *parse.StreamingStmt, match func(*pg_query.FuncCall) bool) (_ *parse.StreamingStmt, _ []*fromCall, ok bool) {
	res, text, err := parse.ParseQueryText(st.Query)
	if err != nil {
		return st, nil, false
	}
	if text != st.Query {
		cp := *st
		cp.Query = text
		st = &cp
	}
	var calls []*fromCall
	for _, raw := range res.Stmts {
		walkFrom(raw.Stmt, func(rf *pg_query.RangeFunction) {
			if len(rf.Functions) != 1 {
				return
			}
			l := rf.Functions[0].GetList()
			if l == nil || len(l.Items) == 0 {
				return
			}
			fc := l.Items[0].GetFuncCall()
			if fc == nil {
				return
			}
			c := &fromCall{fc: fc, ordinality: rf.Ordinality}
			if !match(fc) {
				// TUMBLE(read_files(...), col, size): the window functions'
				// table argument (the WINDOW clause is rewritten so).
				if len(fc.Args) == 0 || !match(fc.Args[0].GetFuncCall()) {
					return
				}
				c.fc, c.inner = fc.Args[0].GetFuncCall(), true
			}
			c.start = int(c.fc.Location)
			if rf.Alias != nil {
				c.alias = rf.Alias.Aliasname
			}
			calls = append(calls, c)
		})
	}
	if len(calls) == 0 {
		return st, nil, true
	}
	scan, err := pg_query.Scan(st.Query)
	if err != nil {
		return st, nil, false
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].start < calls[j].start })
	for _, c := range calls {
		if c.end = callEnd(scan.Tokens, c.start); c.end < 0 {
			return st, nil, false
		}
	}
	return st, calls, true
}

// replaceFromCalls returns st with each call replaced by a reference to
// its inline relation (c.name; a bare call also gets its alias), and the
// STREAM-marked calls (stream inputs whose function isFunc names) turned
// into stream inputs by their new names, matched in order of appearance
// by alias.
func replaceFromCalls(st *parse.StreamingStmt, calls []*fromCall, bare []bool, isFunc func(string) bool) *parse.StreamingStmt {
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
	used := make([]bool, len(calls))
	out.Inputs = append([]parse.StreamInput(nil), st.Inputs...)
	for i, in := range out.Inputs {
		if !in.Func || !isFunc(in.Name) {
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
	return &out
}
