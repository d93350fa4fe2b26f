package engine

import (
	"context"
	"fmt"
	"github.com/weir-sql/weir/state"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// Session is one client connection's state. The wire layer calls it from
// the connection's goroutine only, so it needs no locking of its own.
type Session struct {
	eng       *Engine
	user      string
	db        string
	pid       uint32
	superuser bool
	ids       sessionIdentities // authenticated and session users (set_role.go)
	client    string            // the client's address as the audit log names it (audit_connect.go)
	settings  map[string]string // lower-case name → value
	loc       *time.Location
	// storedFiles are the read_files definitions of the streaming table
	// being re-planned at start (files_inline.go); nil otherwise.
	storedFiles []catalog.FilesSource
	// filesMemo holds the files definitions made during the statement
	// running now, by their options (nil between statements).
	filesMemo map[string]*catalog.FilesSource
	// filesNotices are the statement's notices about its files inputs
	// (files_source.go: a path matching nothing yet).
	filesNotices []string
	// readsAs is the role a streaming table's query is re-planned as for
	// row-level security (its owner, row_security.go); 0: the current user.
	readsAs uint32

	// backend is the client connection (nil for internal sessions).
	// loginUser and appName are what other sessions read for
	// pg_stat_activity and pg_cancel_backend, so they are immutable or
	// atomic; the rest of Session belongs to its connection's goroutine.
	backend   wire.Backend
	loginUser string
	appName   atomic.Pointer[string]

	// runDone is the Done channel of the statement running now, for
	// functions that wait (pg_sleep) and operators' cancellation checks.
	runDone <-chan struct{}
	runIO   wire.ExecIO

	timeouts *wire.Timeouts // parsed timeout settings; nil after a change

	tx txState

	// plans caches prepared statements by query text, so that a repeated
	// simple-protocol query is parsed and bound once (a statement re-binds
	// itself when the catalog changed).
	plans map[planKey][]wire.Statement
}

// planKey identifies a cached statement list: the text, the declared
// parameter types, and the search path it was bound under.
type planKey struct {
	query, params, searchPath string
}

const maxCachedPlans = 512

// txState is the session's transaction block.
type txState struct {
	open   bool
	failed bool
	// pending holds rows written inside the block, per relation, committed
	// to the store together at COMMIT.
	pending map[uint32][]arrow.RecordBatch
	order   []uint32
	// store is the block's store transaction once a COPY streamed rows
	// into it (flushed in parts, invisible until COMMIT); streamed are the
	// relations it holds rows of.
	store    *state.Txn
	streamed []uint32
	// cursors are the block's DECLAREd cursors (cursor.go).
	cursors map[string]*sqlCursor
}

// endTx leaves the transaction block, if any, for next: a store
// transaction still open (ROLLBACK, a failed block, a closed session) is
// discarded with the parts it flushed.
func (s *Session) endTx(next txState) {
	s.tx.closeCursors()
	if s.tx.store != nil {
		s.tx.store.Discard()
	}
	s.tx = next
}

var _ wire.Session = (*Session)(nil)

func newSession(e *Engine, user, db string, pid uint32, super bool, params map[string]string) *Session {
	s := &Session{eng: e, user: user, db: db, pid: pid, superuser: super, settings: map[string]string{}, loc: time.UTC}
	for _, st := range settingList {
		s.settings[strings.ToLower(st.name)] = st.def
	}
	s.settings["session_authorization"] = user
	s.loginUser = user
	if super {
		s.settings["is_superuser"] = "on"
	}
	s.initIdentities()
	// Startup parameters other than user/database are settings, and so
	// are the -c name=value switches of options (PGOPTIONS), which come
	// after them as in PostgreSQL.
	for _, kv := range startupSettings(params) {
		k, v := kv[0], kv[1]
		if st, ok := lookupSetting(k); ok && !st.readOnly {
			if s.checkSetting(st, &v) != nil {
				continue
			}
			s.settings[strings.ToLower(st.name)] = v
		}
	}
	s.applyTimeZone()
	app := s.settings["application_name"]
	s.appName.Store(&app)
	s.ids.defaults = make(map[string]string, len(s.settings))
	for k, v := range s.settings {
		s.ids.defaults[k] = v
	}
	return s
}

func (s *Session) applyTimeZone() {
	if loc, err := loadLocation(s.settings["timezone"]); err == nil {
		s.loc = loc
	}
}

// StartupParameters implements wire.Session.
func (s *Session) StartupParameters() []wire.Parameter {
	var out []wire.Parameter
	for _, st := range sortedSettings() {
		if st.reported {
			out = append(out, wire.Parameter{Name: st.name, Value: s.settings[strings.ToLower(st.name)]})
		}
	}
	return out
}

// FormatSettings implements wire.Session.
func (s *Session) FormatSettings() types.FormatSettings {
	efd := 1
	if v := s.settings["extra_float_digits"]; v != "" && v != "1" {
		if n, err := parseInt(v); err == nil {
			efd = n
		}
	}
	fs := types.FormatSettings{Location: s.loc, ExtraFloatDigits: efd}
	fs.ByteaEscape = s.settings["bytea_output"] == "escape"
	fs.IntervalStyle, _ = types.ParseIntervalStyle(s.settings["intervalstyle"])
	fs.DateStyle, fs.DateOrder, _, _ = types.ParseDateStyle(s.settings["datestyle"], types.DateISO, types.OrderMDY)
	return fs
}

// TxStatus implements wire.Session.
func (s *Session) TxStatus() byte {
	switch {
	case s.tx.failed:
		return 'E'
	case s.tx.open:
		return 'T'
	}
	return 'I'
}

// Close implements wire.Session: an open transaction is rolled back.
func (s *Session) Close() {
	s.endTx(txState{})
	s.eng.forget(s.pid)
}

// Prepare implements wire.Session.
func (s *Session) Prepare(ctx context.Context, query string, paramTypes []uint32) ([]wire.Statement, error) {
	key := planKey{query: query, params: fmt.Sprint(paramTypes), searchPath: s.settings["search_path"]}
	if cached, ok := s.plans[key]; ok {
		if len(cached) != 1 {
			return cached, nil
		}
		st := cached[0].(*statement)
		if st.prepared && st.catVersion == s.eng.cat.Version() && st.secEnv == s.scanSecurityEnv() {
			return cached, nil
		}
		if err := st.prepare(); err != nil {
			delete(s.plans, key)
			s.countRefused(err) // server_stats.go
			s.auditRefused(query, err)
			return nil, err
		}
		return cached, nil
	}
	out, err := s.prepareNew(query, paramTypes)
	if err != nil {
		s.countRefused(err) // server_stats.go
		s.auditRefused(query, err)
		return nil, err
	}
	if s.plans == nil || len(s.plans) >= maxCachedPlans {
		s.plans = map[planKey][]wire.Statement{}
	}
	s.plans[key] = out
	return out, nil
}

func (s *Session) prepareNew(query string, paramTypes []uint32) ([]wire.Statement, error) {
	stmts, streams, err := parseWithStreaming(query)
	if err != nil {
		return nil, err
	}
	pts := make([]types.T, len(paramTypes))
	for i, o := range paramTypes {
		pts[i] = types.T{OID: o, Typmod: -1}
	}
	out := make([]wire.Statement, 0, len(stmts))
	for i, ps := range stmts {
		st := &statement{sess: s, parsed: ps, paramTypes: pts, stream: streams[i].stream, watermark: streams[i].watermark, masks: streams[i].masks}
		out = append(out, st)
	}
	// A single statement is bound now, so that Parse reports errors and
	// Describe knows parameter and result types. Statements of a
	// multi-statement string are bound as each runs, since earlier ones may
	// create what later ones use.
	if len(out) == 1 {
		if err := out[0].(*statement).prepare(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func parseInt(s string) (int, error) {
	n := 0
	neg := false
	for i, c := range s {
		if i == 0 && c == '-' {
			neg = true
			continue
		}
		if c < '0' || c > '9' {
			return 0, errBadInt
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// weirClauses are what a statement carries beyond PostgreSQL's grammar.
type weirClauses struct {
	stream    *parse.StreamingStmt // a streaming statement (parsed.Node is nil)
	watermark *parse.WatermarkSpec // CREATE TABLE ... WATERMARK FOR

	masks []parse.ColumnMaskClause // CREATE TABLE's column MASK clauses (column_masks.go)
}

// parseWithStreaming parses a query string whose statements may include
// weir's streaming statements and clauses, which PostgreSQL's grammar does
// not know. The text is split on the scanner's semicolons; each piece is
// tried as a streaming statement first, then as CREATE TABLE with a
// WATERMARK FOR element, then as plain SQL.
func parseWithStreaming(query string) ([]parse.Statement, []weirClauses, error) {
	if !mayBeStreaming(query) {
		stmts, err := parse.Parse(query)
		return stmts, make([]weirClauses, len(stmts)), err
	}
	var stmts []parse.Statement
	var extra []weirClauses
	for _, piece := range splitStatements(query) {
		written := piece.text
		piece.text = aclStatementText(piece.text) // grant_rewrite.go
		st, err := parse.ParseStreaming(piece.text)
		if err != nil {
			return nil, nil, shiftError(err, piece.offset)
		}
		if st != nil {
			stmts = append(stmts, parse.Statement{Text: piece.text, Offset: piece.offset})
			extra = append(extra, weirClauses{stream: st})
			continue
		}
		text := piece.text
		rest, wm, err := parse.ParseCreateTableWatermark(text)
		if err != nil {
			return nil, nil, shiftError(err, piece.offset)
		}
		if wm != nil {
			text = rest
		}
		rest, masks, err := parse.CutColumnMasks(text) // mask_stmt.go
		if err != nil {
			return nil, nil, shiftError(err, piece.offset)
		}
		text = rest
		if text, err = parse.CutFunctionCharacteristics(text); err != nil { // databricks_function.go
			return nil, nil, shiftError(err, piece.offset)
		}
		ps, err := parse.Parse(text)
		if err != nil {
			return nil, nil, shiftError(err, piece.offset)
		}
		for _, p := range ps {
			p.Offset += piece.offset
			if piece.text != written {
				p.Text = written // the statement as the client wrote it (grant_rewrite.go)
			}
			stmts = append(stmts, p)
			extra = append(extra, weirClauses{watermark: wm, masks: masks})
		}
	}
	return stmts, extra, nil
}

// mayBeStreaming is a cheap filter: only texts naming a streaming keyword
// take the slower path.
func mayBeStreaming(q string) bool {
	u := strings.ToUpper(q)
	if mayBeDescribe(u) { // describe.go
		return true
	}
	for _, k := range []string{"STREAM", "SUBSCRIBE", "WATERMARK", "EMIT", "SOURCE", "FLOW", "SINK", "SECRET", "MASK", "DETERMINISTIC", "CONTAINS SQL", "READS SQL", "COMMENT '", "TABLE '", "AUTO CDC", "APPLY CHANGES"} {
		if strings.Contains(u, k) {
			return true
		}
	}
	return false
}

type textPiece struct {
	text   string
	offset int
}

// splitStatements cuts a query string at top-level semicolons using
// PostgreSQL's scanner (strings and comments are respected).
func splitStatements(q string) []textPiece {
	res, err := pg_query.Scan(q)
	if err != nil {
		return []textPiece{{text: q}}
	}
	var out []textPiece
	start := 0
	for _, t := range res.Tokens {
		if t.Token == pg_query.Token_ASCII_59 {
			if strings.TrimSpace(q[start:t.Start]) != "" {
				out = append(out, textPiece{text: q[start:t.Start], offset: start})
			}
			start = int(t.End)
		}
	}
	if strings.TrimSpace(q[start:]) != "" {
		out = append(out, textPiece{text: q[start:], offset: start})
	}
	return out
}

func shiftError(err error, off int) error {
	if se, ok := err.(*sqlerr.Error); ok && se.Position > 0 && off > 0 {
		cp := *se
		cp.Position += off
		return &cp
	}
	return err
}
