// Package pgsink is the postgres sink: a streaming table's changes
// written to a PostgreSQL table, exactly once.
//
// Each epoch's changes and the sink's progress row (sink, epoch) in
// weir_sink_progress commit in one PostgreSQL transaction, after weir's
// own commit of the epoch (connector.Sink's Committed). LastCommitted
// reads the progress row, so recovery re-runs only the epochs PostgreSQL
// does not have, and an epoch already there is skipped: every change
// arrives once whatever crashes between the two commits.
//
// Append-mode tables send INSERTs. Update- and complete-mode tables send
// changes (_change_type 'insert' / 'delete'): with a primary key, a
// delete removes the key's row and an insert upserts it (INSERT ... ON
// CONFLICT (key) DO UPDATE); without one, a delete removes one row equal
// to the old row in every column and an insert adds a row.
package pgsink

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// sinkBatchRows is the statements sent in one round trip.
const sinkBatchRows = 1000

// ProgressTable is where sinks record the last epoch they committed.
const ProgressTable = "weir_sink_progress"

// Column is one column the sink writes (the streaming table's).
type Column struct {
	Name string
	Type types.T
}

// Options are a postgres sink's.
type Options struct {
	URL   string // connection string, password resolved
	Table string // the target table, [schema.]name
	// Name identifies the sink's progress row (its qualified name and
	// OID: a sink dropped and created again starts over).
	Name string
	// Keys is the primary key the upserts use (none: see the package doc).
	Keys []string
	// Columns are the table's columns; Changes says the batches carry
	// _change_type and _commit_version after them (not append mode).
	Columns []Column
	Changes bool
}

// Sink writes to PostgreSQL (see the package doc).
type Sink struct {
	o Options
	// mu serialises the connection's use: the table's job commits epochs
	// while SHOW SINKS asks LastCommitted from a session's goroutine, and
	// a pgx.Conn serves one caller at a time.
	mu     sync.Mutex
	conn   *pgx.Conn
	staged map[int64][]arrow.RecordBatch
}

var _ connector.Sink = (*Sink)(nil)

// Open connects and creates the progress table when missing.
func Open(ctx context.Context, o Options) (*Sink, error) {
	s := &Sink{o: o, staged: map[int64][]arrow.RecordBatch{}}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	// connector.Sink has no Close: the engine lets a sink go when its
	// table stops or the sink is dropped, and the connection goes with it.
	runtime.SetFinalizer(s, (*Sink).Close)
	return s, nil
}

func (s *Sink) connect(ctx context.Context) error {
	if s.conn != nil && !s.conn.IsClosed() {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(s.o.URL)
	if err != nil {
		return sqlerr.New(sqlerr.InvalidParameterValue, "postgres sink: invalid url: %v", err)
	}
	// Every statement carries its values as literals, so each is new:
	// sent unnamed, not prepared and cached.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	c, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pgError(err)
		}
		return sqlerr.New("08001", "postgres sink: could not connect: %v", err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+ProgressTable+" (sink text PRIMARY KEY, epoch bigint NOT NULL)"); err != nil {
		c.Close(ctx)
		return pgError(err)
	}
	s.conn = c
	return nil
}

// Check confirms at CREATE SINK that the target table is there.
func Check(ctx context.Context, o Options) error {
	s, err := Open(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	var ok bool
	if err := s.conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", o.Table).Scan(&ok); err != nil {
		return pgError(err)
	}
	if !ok {
		return sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist in the sink's database", o.Table).
			WithHint("Create the target table in PostgreSQL first, with the streaming table's columns.")
	}
	return nil
}

// Close closes the connection.
func (s *Sink) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeConn()
}

func (s *Sink) closeConn() {
	if s.conn != nil {
		s.conn.Close(context.Background())
		s.conn = nil
	}
}

// Write stages an epoch's changes: nothing reaches PostgreSQL before
// weir's commit of the epoch.
func (s *Sink) Write(_ *state.Txn, epoch int64, changes []arrow.RecordBatch) error {
	for _, b := range changes {
		b.Retain()
	}
	s.staged[epoch] = append(s.staged[epoch], changes...)
	return nil
}

// Committed writes the epoch's changes and its progress row in one
// PostgreSQL transaction, unless PostgreSQL has the epoch already.
func (s *Sink) Committed(epoch int64) error {
	batches := s.staged[epoch]
	delete(s.staged, epoch)
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	return s.retrying(func() error { return s.commit(epoch, batches) })
}

// commit is one try of Committed: a try cut by a lost connection may or
// may not have committed, which the progress row read first tells.
func (s *Sink) commit(epoch int64, batches []arrow.RecordBatch) error {
	ctx := context.Background()
	last, err := s.lastCommitted()
	if err != nil {
		return err
	}
	if epoch <= last {
		return nil
	}
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return s.fail(err)
	}
	defer tx.Rollback(ctx)
	// The statements go in pipelined batches: one round trip per
	// sinkBatchRows changes, not per change; in order, so a delete and the
	// insert of the same key apply as the changes say.
	var sql strings.Builder
	batch := &pgx.Batch{}
	send := func() error {
		if batch.Len() == 0 {
			return nil
		}
		err := tx.SendBatch(ctx, batch).Close()
		batch = &pgx.Batch{}
		return err
	}
	for _, b := range batches {
		for i := 0; i < int(b.NumRows()); i++ {
			sql.Reset()
			s.statement(&sql, b, i)
			batch.Queue(sql.String())
			if batch.Len() >= sinkBatchRows {
				if err := send(); err != nil {
					return s.fail(err)
				}
			}
		}
	}
	batch.Queue("INSERT INTO "+ProgressTable+" VALUES ($1, $2) ON CONFLICT (sink) DO UPDATE SET epoch = EXCLUDED.epoch", s.o.Name, epoch)
	if err := send(); err != nil {
		return s.fail(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.fail(err)
	}
	return nil
}

// LastCommitted is the last epoch PostgreSQL holds (0: none).
func (s *Sink) LastCommitted() (int64, error) {
	var last int64
	err := s.retrying(func() (err error) {
		last, err = s.lastCommitted()
		return err
	})
	return last, err
}

func (s *Sink) lastCommitted() (int64, error) {
	ctx := context.Background()
	if err := s.connect(ctx); err != nil {
		return 0, err
	}
	var epoch int64
	err := s.conn.QueryRow(ctx, "SELECT epoch FROM "+ProgressTable+" WHERE sink = $1", s.o.Name).Scan(&epoch)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail(err)
	}
	return epoch, nil
}

// fail drops a broken connection (the next call reconnects) and returns
// the error with its SQLSTATE.
func (s *Sink) fail(err error) error {
	if s.conn != nil && s.conn.IsClosed() {
		s.conn = nil
	}
	return pgError(err)
}

// statement writes row i of b as one SQL statement.
func (s *Sink) statement(sql *strings.Builder, b arrow.RecordBatch, i int) {
	n := len(s.o.Columns)
	del := false
	if s.o.Changes {
		del = b.Column(n).(interface{ Value(int) string }).Value(i) == "delete"
	}
	if del {
		sql.WriteString("DELETE FROM " + s.o.Table)
		if len(s.o.Keys) > 0 {
			sql.WriteString(" WHERE ")
			for k, key := range s.o.Keys {
				if k > 0 {
					sql.WriteString(" AND ")
				}
				j := s.index(key)
				sql.WriteString(quoteIdent(key) + " IS NOT DISTINCT FROM ")
				s.literal(sql, b, j, i)
			}
			return
		}
		sql.WriteString(" WHERE ctid = (SELECT ctid FROM " + s.o.Table + " WHERE ")
		for j, c := range s.o.Columns {
			if j > 0 {
				sql.WriteString(" AND ")
			}
			sql.WriteString(quoteIdent(c.Name) + " IS NOT DISTINCT FROM ")
			s.literal(sql, b, j, i)
		}
		sql.WriteString(" LIMIT 1)")
		return
	}
	sql.WriteString("INSERT INTO " + s.o.Table + " (")
	for j, c := range s.o.Columns {
		if j > 0 {
			sql.WriteString(", ")
		}
		sql.WriteString(quoteIdent(c.Name))
	}
	sql.WriteString(") VALUES (")
	for j := range s.o.Columns {
		if j > 0 {
			sql.WriteString(", ")
		}
		s.literal(sql, b, j, i)
	}
	sql.WriteString(")")
	if s.o.Changes && len(s.o.Keys) > 0 {
		sql.WriteString(" ON CONFLICT (")
		for k, key := range s.o.Keys {
			if k > 0 {
				sql.WriteString(", ")
			}
			sql.WriteString(quoteIdent(key))
		}
		sql.WriteString(") DO UPDATE SET ")
		for j, c := range s.o.Columns {
			if j > 0 {
				sql.WriteString(", ")
			}
			sql.WriteString(quoteIdent(c.Name) + " = EXCLUDED." + quoteIdent(c.Name))
		}
	}
}

func (s *Sink) index(name string) int {
	for j, c := range s.o.Columns {
		if c.Name == name {
			return j
		}
	}
	return -1
}

// literal writes column j of row i as a typed SQL literal.
func (s *Sink) literal(sql *strings.Builder, b arrow.RecordBatch, j, i int) {
	if j < 0 || b.Column(j).IsNull(i) {
		sql.WriteString("NULL")
		return
	}
	t := s.o.Columns[j].Type
	text := types.AppendText(nil, t, b.Column(j), i, nil)
	sql.WriteString("'" + strings.ReplaceAll(string(text), "'", "''") + "'::" + t.String())
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func pgError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return sqlerr.New(pe.Code, "postgres sink: %s", pe.Message)
	}
	return sqlerr.New("08006", "postgres sink: %v", err)
}
