package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// ParseStreaming recognises one weir streaming statement (see dialect.md).
// It returns (nil, nil) when the text is not one, so that the caller falls
// back to Parse; the filled statement when it is; or a *sqlerr.Error: 42601
// with a position inside the offending clause, 22023 for window sizes and
// delays that cannot work, 0A000 for what weir does not do yet.
//
// A bare query (SELECT, WITH, VALUES, TABLE, parenthesised) is returned as
// Kind StreamingQuery when it uses any weir spelling that PostgreSQL's
// grammar would not take (STREAM, WATERMARK ... DELAY OF, WINDOW TUMBLING,
// window(...), INTERVAL 5 MINUTES); plain PostgreSQL gives (nil, nil).
func ParseStreaming(sql string) (st *StreamingStmt, err error) {
	defer func() {
		// The token pass is written to stay in range; this only keeps a
		// bug from taking a connection down (design.md: no panics for
		// user input).
		if r := recover(); r != nil {
			st, err = nil, sqlerr.New(sqlerr.InternalError, "streaming statement front end failed: %v", r)
		}
	}()
	toks, err := tokens(sql)
	if err != nil {
		if looksStreaming(sql) {
			return nil, err
		}
		return nil, nil
	}
	ts := &tokenStream{sql: sql, toks: toks}
	if len(toks) == 0 {
		return nil, nil
	}
	p := &stmtParser{tokenStream: ts}
	st, err = p.statement()
	if err != nil {
		return nil, err
	}
	return st, nil
}

// looksStreaming is used only when the scanner fails (an unterminated
// literal): it decides whether the error belongs to a streaming statement
// or should be left for Parse to report.
func looksStreaming(sql string) bool {
	f := strings.Fields(strings.ToLower(sql))
	for i, w := range f {
		if i > 4 {
			break
		}
		if w == "streaming" || w == "subscribe" || i == 1 && w == "flow" && f[0] == "create" || strings.HasPrefix(w, "(subscribe") || i == 1 && (w == "source" || w == "sources" || w == "sink" || w == "sinks") && (f[0] == "create" || f[0] == "drop" || f[0] == "show") {
			return true
		}
	}
	return false
}

type stmtParser struct {
	*tokenStream
}

// end is the index of the statement's last token plus one, ignoring
// trailing semicolons.
func (p *stmtParser) end() int {
	n := len(p.toks)
	for n > 0 && p.toks[n-1].kind == tokSemi {
		n--
	}
	return n
}

func (p *stmtParser) statement() (*StreamingStmt, error) {
	st := &StreamingStmt{Pos: p.pos(0)}
	if ok, err := p.sourceStatement(st); ok {
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if ok, err := p.maskStatement(st); ok { // mask_stmt.go
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if ok, err := p.secretStatement(st); ok { // secret_stmt.go
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if ok, err := p.sinkStatement(st); ok { // sink_stmt.go
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if ok, err := p.describeStatement(st); ok { // describe_stmt.go
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if p.isWord(0, "create") && (p.isWord(1, "flow") || p.isWord(1, "or") && p.isWord(2, "refresh") && p.isWord(3, "flow")) || p.isWord(0, "alter") && p.isWord(1, "streaming") && p.is(2, pg_query.Token_TABLE) ||
		p.createStreaming(0) {
		// The legacy LIVE. prefix goes before anything is read.
		p = p.stripLive(0, p.end())
	}
	if p.isWord(0, "create") && p.is(1, pg_query.Token_TABLE) {
		if ok, err := p.changelogTable(st); ok { // changelog_table.go
			return st, err
		}
	}
	if p.isWord(0, "apply") && p.isWord(1, "changes") && p.isWord(2, "into") {
		// Delta Live Tables' standalone form: a flow named after its target.
		p = p.stripLive(0, p.end())
		st.Kind, st.Spec = CreateFlow, &TableSpec{}
		err := p.autoCDC(st, st.Spec, 0) // auto_cdc.go
		st.Spec.Flow = st.Spec.FlowTarget.Name
		return st, err
	}
	switch p.word(0) {
	case "create":
		if p.isWord(1, "flow") {
			st.Kind = CreateFlow
			return st, p.createFlow(st, 2)
		}
		if p.isWord(1, "or") && p.isWord(2, "refresh") && p.isWord(3, "flow") {
			st.Kind, st.OrReplace = CreateFlow, true
			return st, p.createFlow(st, 4)
		}
		if !p.createStreaming(0) {
			return nil, nil
		}
		st.Kind = CreateStreamingTable
		return st, p.create(st, 0)
	case "alter":
		if !p.isWord(1, "streaming") || !p.is(2, pg_query.Token_TABLE) {
			return nil, nil
		}
		st.Kind = AlterStreamingTable
		return st, p.alterStreaming(st)
	case "explain":
		if p.createStreaming(1) {
			st.Kind = ExplainCreateStreamingTable
			return st, p.create(st, 1)
		}
		if p.isWord(1, "streaming") && p.is(2, pg_query.Token_TABLE) {
			st.Kind = ExplainStreamingTable
			return st, p.nameThenEnd(st, 3, false)
		}
		return nil, nil
	case "drop":
		if p.isWord(1, "flow") {
			st.Kind = DropFlow
			return st, p.dropFlow(st)
		}
		if !p.isWord(1, "streaming") || !p.is(2, pg_query.Token_TABLE) {
			return nil, nil
		}
		st.Kind = DropStreamingTable
		i := 3
		if p.isWord(i, "if") && p.isWord(i+1, "exists") {
			st.IfExists = true
			i += 2
		}
		return st, p.dropStreamingName(st, i) // sink_stmt.go: CASCADE drops the table's sinks
	case "refresh":
		if !p.isWord(1, "streaming") || !p.is(2, pg_query.Token_TABLE) {
			return nil, nil
		}
		st.Kind = RefreshStreamingTable
		return st, p.nameThenEnd(st, 3, true)
	case "show":
		if !p.isWord(1, "streaming") {
			return nil, nil
		}
		if !p.isWord(2, "tables") {
			return nil, p.errAt(sqlerr.SyntaxError, 2, "syntax error at or near %s: expected SHOW STREAMING TABLES", p.describe(2))
		}
		st.Kind = ShowStreamingTables
		if p.end() > 3 {
			return nil, p.errAt(sqlerr.SyntaxError, 3, "syntax error at or near %s: SHOW STREAMING TABLES takes no arguments", p.describe(3))
		}
		return st, nil
	case "subscribe":
		st.Kind = Subscribe
		i, err := p.subscribeTarget(st, 1)
		if err != nil {
			return nil, err
		}
		if i < p.end() {
			return nil, p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of SUBSCRIBE", p.describe(i))
		}
		return st, nil
	case "copy":
		if !p.is(1, tokLParen) || !p.isWord(2, "subscribe") {
			return nil, nil
		}
		st.Kind = Subscribe
		st.CopyOut = true
		return st, p.copySubscribe(st)
	case "select", "with", "values", "table":
		return p.bareQuery(st)
	}
	if p.is(0, tokLParen) {
		return p.bareQuery(st)
	}
	return nil, nil
}

// createStreaming reports whether CREATE [OR REFRESH|REPLACE] STREAMING
// [LIVE] TABLE starts at i.
func (p *stmtParser) createStreaming(i int) bool {
	_, _, ok := p.createStreamingAt(i)
	return ok
}

// name reads a table name at i into st.
func (p *stmtParser) name(st *StreamingStmt, i int) (int, error) {
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return i, p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a table name", p.describe(i))
	}
	st.Name = strings.Join(parts, ".")
	if len(parts) >= 2 {
		st.Schema = parts[len(parts)-2]
	}
	return next, nil
}

// nameThenEnd reads "name [FULL]" and requires the statement to end there.
func (p *stmtParser) nameThenEnd(st *StreamingStmt, i int, fullAllowed bool) error {
	i, err := p.name(st, i)
	if err != nil {
		return err
	}
	if fullAllowed && p.isWord(i, "full") {
		st.Full = true
		i++
	}
	if i < p.end() {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of statement after the table name", p.describe(i))
	}
	return nil
}

func (p *stmtParser) subscribeTarget(st *StreamingStmt, i int) (int, error) {
	if p.isWord(i, "to") {
		i++
	}
	return p.name(st, i)
}

// copySubscribe reads COPY (SUBSCRIBE [TO] name) TO STDOUT [[WITH] (options)].
func (p *stmtParser) copySubscribe(st *StreamingStmt) error {
	i, err := p.subscribeTarget(st, 3)
	if err != nil {
		return err
	}
	if !p.is(i, tokRParen) {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected ) after SUBSCRIBE TO name", p.describe(i))
	}
	i++
	if !p.isWord(i, "to") || !p.isWord(i+1, "stdout") {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected TO STDOUT", p.describe(i))
	}
	i += 2
	if p.isWord(i, "with") {
		i++
	}
	if p.is(i, tokLParen) {
		if i, err = p.options(st, i); err != nil {
			return err
		}
	}
	if i < p.end() {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of COPY", p.describe(i))
	}
	return nil
}

// create reads CREATE [OR REFRESH] STREAMING [LIVE] TABLE ... starting
// at the CREATE token i (streaming_ddl.go has the Databricks clauses).
func (p *stmtParser) create(st *StreamingStmt, i int) error {
	spec := &TableSpec{}
	st.Spec = spec
	defer func() {
		if spec.empty() {
			st.Spec = nil // nothing beyond weir's own CREATE STREAMING TABLE
		}
	}()
	if p.isWord(i+1, "or") {
		st.OrReplace = true
	}
	spec.Private = p.isWord(i+1, "private") || p.isWord(i+3, "private")
	i, live, _ := p.createStreamingAt(i)
	spec.Live = live
	if p.isWord(i, "if") && p.isWord(i+1, "not") && p.isWord(i+2, "exists") {
		st.IfNotExists = true
		i += 3
	}
	i, err := p.name(st, i)
	if err != nil {
		return err
	}
	if p.is(i, tokLParen) {
		if i, err = p.tableSpec(spec, i); err != nil {
			return err
		}
	}
	for {
		next, ok, err := p.tableClause(st, spec, i)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		i = next
	}
	end := p.end()
	switch {
	case i >= end:
		// Declared without a query: flows fill it.
		spec.NoQuery = true
		return nil
	case p.is(i, pg_query.Token_AS):
		i++
	case p.isWord(i, "flow") && p.isWord(i+1, "insert") && p.isWord(i+2, "by") && p.isWord(i+3, "name"):
		// The table's own flow: the same as AS query.
		i += 4
	case p.isWord(i, "flow") && p.isWord(i+1, "auto") && p.isWord(i+2, "cdc"):
		// The table's own AUTO CDC flow (auto_cdc.go), named after it.
		st.Kind, spec.NoQuery, spec.TableFlow, spec.Flow = CreateFlow, true, true, lastPart(st.Name)
		spec.FlowTarget = QualifiedName{Schema: st.Schema, Name: lastPart(st.Name)}
		spec.CDC = &AutoCDC{SCDType: 1}
		return p.cdcBody(spec.CDC, i+3, i)
	case p.isWord(i, "flow"):
		return p.errAt(sqlerr.FeatureNotSupported, i, "only FLOW INSERT BY NAME query and FLOW AUTO CDC are supported (REPLACE WHERE flows are not)")
	default:
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected AS query or a table clause (COMMENT, TBLPROPERTIES, PARTITIONED BY, CLUSTER BY, SCHEDULE, TRIGGER ON UPDATE, WITH)", p.describe(i))
	}
	end = p.emit(st, i, end)
	if i >= end {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a query after AS", p.describe(i))
	}
	return p.query(st, i, end)
}

// emit reads a trailing EMIT ON WINDOW CLOSE | EMIT ON UPDATE (and
// ksqlDB's EMIT FINAL | EMIT CHANGES) and returns where the query ends.
func (p *stmtParser) emit(st *StreamingStmt, from, end int) int {
	switch {
	case end-4 >= from && p.isWord(end-4, "emit") && p.isWord(end-3, "on") && p.isWord(end-2, "window") && p.isWord(end-1, "close"):
		st.Emit = "window_close"
		return end - 4
	case end-3 >= from && p.isWord(end-3, "emit") && p.isWord(end-2, "on") && p.isWord(end-1, "update"):
		st.Emit = "update"
		return end - 3
	case end-2 >= from && p.isWord(end-2, "emit") && p.isWord(end-1, "final"):
		st.Emit = "window_close"
		return end - 2
	case end-2 >= from && p.isWord(end-2, "emit") && p.isWord(end-1, "changes"):
		st.Emit = "update"
		return end - 2
	}
	return end
}

// options reads ( key [=] value [, ...] ) at the '(' i; keys are lower-cased,
// values unquoted (unquoted identifiers folded to lower case).
func (p *stmtParser) options(st *StreamingStmt, i int) (int, error) {
	close := p.matchParen(i)
	if close < 0 {
		return i, p.errAt(sqlerr.SyntaxError, i, "syntax error in WITH clause: missing )")
	}
	if st.Options == nil {
		st.Options = map[string]string{}
	}
	const want = "syntax error in WITH clause at or near %s: expected option = value"
	j := i + 1
	for j < close {
		var key string
		switch {
		case p.at(j).kind == pg_query.Token_SCONST:
			k, _ := stringValue(p.at(j).text)
			key = strings.ToLower(k)
			j++
		case p.labelLike(j):
			parts := []string{identValue(p.at(j).text)}
			j++
			for p.is(j, tokDot) && p.labelLike(j+1) {
				parts = append(parts, identValue(p.at(j+1).text))
				j += 2
			}
			key = strings.Join(parts, ".")
		default:
			return j, p.errAt(sqlerr.SyntaxError, j, want, p.describe(j))
		}
		if p.is(j, tokEquals) {
			j++
		}
		start := j
		for j < close && !p.is(j, tokComma) {
			j++
		}
		if j == start {
			return j, p.errAt(sqlerr.SyntaxError, j, "syntax error in WITH clause at or near %s: expected a value for option %s", p.describe(j), key)
		}
		if _, dup := st.Options[key]; dup {
			return j, p.errAt(sqlerr.SyntaxError, start, "option %s given more than once", key)
		}
		st.Options[key] = p.optionValue(start, j)
		if p.is(j, tokComma) {
			j++
			if j == close {
				return j, p.errAt(sqlerr.SyntaxError, j, want, p.describe(j))
			}
		}
	}
	return close + 1, nil
}

func (p *stmtParser) optionValue(from, to int) string {
	if to == from+1 {
		t := p.toks[from]
		if t.kind == pg_query.Token_SCONST {
			v, _ := stringValue(t.text)
			return v
		}
		if p.labelLike(from) {
			return identValue(t.text)
		}
	}
	return p.sql[p.toks[from].start:p.toks[to-1].end]
}

// bareQuery handles a query outside CREATE STREAMING TABLE.
func (p *stmtParser) bareQuery(st *StreamingStmt) (*StreamingStmt, error) {
	end := p.emit(st, 0, p.end())
	q := newQueryRewriter(p.tokenStream, st)
	if err := q.run(0, end); err != nil {
		return nil, err
	}
	if !q.weirSyntax() && st.Emit == "" {
		return nil, nil
	}
	if !q.readsAStream() && st.Emit == "" {
		// Only spellings a batch query has too (Spark's window(),
		// INTERVAL 5 MINUTES): Parse's own rewrites read it as one. (A
		// table named stream_source brought such queries here.)
		return nil, nil
	}
	st.Kind = StreamingQuery
	return st, q.finish(0, end)
}

// query rewrites the defining query of CREATE STREAMING TABLE.
func (p *stmtParser) query(st *StreamingStmt, from, end int) error {
	q := newQueryRewriter(p.tokenStream, st)
	if err := q.run(from, end); err != nil {
		return err
	}
	return q.finish(from, end)
}
