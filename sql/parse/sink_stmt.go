package parse

import (
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Sink statements (dialect.md, Sinks):
//
//	CREATE SINK [IF NOT EXISTS] name FROM streaming_table WITH ( option = value [, ...] )
//	CREATE SINK name AS query ...          (RisingWave's form: read, refused with a hint)
//	DROP SINK [IF EXISTS] name [, ...] [CASCADE | RESTRICT]
//	SHOW SINKS
//
// They are read by the same token pass as the streaming statements and
// come back as a StreamingStmt of kind CreateSink, DropSink or ShowSinks;
// CREATE SINK's FROM relation is in Sink.

// The statement kinds of this file (numbered apart from the others').
const (
	CreateSink StreamingKind = 300 + iota // CREATE SINK name FROM table WITH (...)
	DropSink                              // DROP SINK [IF EXISTS] name [, ...]
	ShowSinks                             // SHOW SINKS
)

// IsSink reports whether kind is one of this file's statements.
func IsSink(kind StreamingKind) bool {
	return kind == CreateSink || kind == DropSink || kind == ShowSinks
}

// SinkSpec is what CREATE SINK names besides the sink and its options.
type SinkSpec struct {
	// From is the streaming table the sink reads; FromPos its 1-based
	// position.
	From    QualifiedName
	FromPos int
	// AsQueryPos is the position of AS in CREATE SINK name AS query (0:
	// the FROM form was written).
	AsQueryPos int
}

// sinkStatement dispatches the sink statements; ok is false when the text
// is not one.
func (p *stmtParser) sinkStatement(st *StreamingStmt) (ok bool, err error) {
	switch {
	case p.isWord(0, "create") && p.isWord(1, "sink"):
		return true, p.createSink(st)
	case p.isWord(0, "drop") && p.isWord(1, "sink"):
		return true, p.dropSink(st)
	case p.isWord(0, "show") && p.isWord(1, "sinks"):
		st.Kind = ShowSinks
		if p.end() > 2 {
			return true, p.errAt(sqlerr.SyntaxError, 2, "syntax error at or near %s: SHOW SINKS takes no arguments", p.describe(2))
		}
		return true, nil
	}
	return false, nil
}

// createSink reads CREATE SINK ... (CREATE is token 0).
func (p *stmtParser) createSink(st *StreamingStmt) error {
	st.Kind = CreateSink
	st.Sink = &SinkSpec{}
	i := 2
	if p.isWord(i, "if") && p.isWord(i+1, "not") && p.isWord(i+2, "exists") {
		st.IfNotExists = true
		i += 3
	}
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a sink name", p.describe(i))
	}
	st.Name = parts[len(parts)-1]
	if len(parts) >= 2 {
		st.Schema = parts[len(parts)-2]
	}
	i = next
	switch {
	case p.isWord(i, "as"):
		// RisingWave's CREATE SINK ... AS SELECT: the engine refuses it.
		st.Sink.AsQueryPos = p.pos(i)
		return nil
	case !p.isWord(i, "from"):
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected FROM streaming_table WITH ( connector = '...', ... )", p.describe(i))
	}
	i++
	parts, next, ok = p.qualifiedName(i)
	if !ok {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected the name of the streaming table the sink reads", p.describe(i))
	}
	st.Sink.From = QualifiedName{Name: parts[len(parts)-1]}
	if len(parts) >= 2 {
		st.Sink.From.Schema = parts[len(parts)-2]
	}
	st.Sink.FromPos = p.pos(i)
	i = next
	if !p.isWord(i, "with") || !p.is(i+1, tokLParen) {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected WITH ( connector = '...', option = value [, ...] )", p.describe(i))
	}
	var err error
	if i, err = p.options(st, i+1); err != nil {
		return err
	}
	if i < p.end() {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of CREATE SINK", p.describe(i))
	}
	return nil
}

// dropSink reads DROP SINK [IF EXISTS] name [, ...] [CASCADE | RESTRICT].
func (p *stmtParser) dropSink(st *StreamingStmt) error {
	st.Kind = DropSink
	return p.dropNames(st, "sink", "DROP SINK") // source_stmt.go
}

// dropStreamingName reads DROP STREAMING TABLE's name and an optional
// CASCADE (which drops the sinks reading the table, as PostgreSQL's
// drops dependent objects) or RESTRICT (the default).
func (p *stmtParser) dropStreamingName(st *StreamingStmt, i int) error {
	i, err := p.name(st, i)
	if err != nil {
		return err
	}
	switch {
	case p.isWord(i, "cascade"):
		st.Cascade = true
		i++
	case p.isWord(i, "restrict"):
		i++
	}
	if i < p.end() {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of statement after the table name", p.describe(i))
	}
	return nil
}
