package parse

import "github.com/weir-sql/weir/sql/sqlerr"

// dropFlow reads DROP FLOW [IF EXISTS] [schema.]name: the flow's name goes
// to Name and Spec.Flow, its schema (the target's) to Schema.
func (p *stmtParser) dropFlow(st *StreamingStmt) error {
	i := 2
	if p.isWord(i, "if") && p.isWord(i+1, "exists") {
		st.IfExists = true
		i += 2
	}
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a flow name", p.describe(i))
	}
	st.Spec = &TableSpec{Flow: parts[len(parts)-1]}
	st.Name = st.Spec.Flow
	if len(parts) >= 2 {
		st.Schema = parts[len(parts)-2]
	}
	if next < p.end() {
		return p.errAt(sqlerr.SyntaxError, next, "syntax error at or near %s: expected end of statement after the flow name", p.describe(next))
	}
	return nil
}
