package iceberg

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Snapshot summary keys: every snapshot the sink commits carries the
// epoch it holds and the identity of the streaming table it came from.
const (
	SummaryEpoch = "weir.epoch"
	SummaryTable = "weir.table"
)

// Config is what a sink is opened with.
type Config struct {
	Options
	// Identity names the streaming table in the snapshots' summaries: it
	// must stay the same across restarts of the table and differ between
	// tables (and between a dropped table and one created again under its
	// name, whose epochs count from 1 again), e.g. "<name>#<oid>".
	Identity string
	// Columns are the streaming table's, in the order of the changes'
	// columns.
	Columns []Column
	// Updates says the table is in update or complete mode: its changes
	// are a change feed (updates.go: the table's columns, then
	// _change_type and _commit_version), which each epoch's snapshot
	// applies by rewriting the data files that hold the changed rows.
	// false: append mode, the changes are the epoch's new rows, which its
	// snapshot appends.
	Updates bool
	// GroupRows bounds the rows of a group of data files an update-mode
	// epoch rewrites whole (0: DefaultGroupRows; updates.go).
	GroupRows int64
	// Crash, if set, is called at the sink's crash points, for tests that
	// kill the process there (the engine passes internal/failpoint.Hit):
	// "iceberg-after-write" (the epoch's data files written, Write not
	// returned), "iceberg-before-commit" (Committed called, the snapshot
	// not committed), "iceberg-after-commit" (the snapshot committed,
	// Committed not returned).
	Crash func(point string)
}

// Sink writes a streaming table's epochs to an Iceberg table. See the
// package doc for how an epoch becomes one snapshot, once.
type Sink struct {
	cfg   Config
	cat   *hadoop.Catalog
	ident table.Identifier
	conv  *converter

	// mu guards what follows: the runner writes and commits, while
	// LastCommitted may be asked from another goroutine.
	mu sync.Mutex
	// tbl is the table as of the sink's last commit; nil after a commit
	// whose outcome is unknown: it is read again before anything else.
	tbl  *table.Table
	last int64 // the latest epoch a snapshot of ours holds
	// staged is the epoch Write wrote and Committed has not yet published.
	staged *stagedEpoch
	// index locates the rows of an update-mode table in its data files
	// (rowindex.go); nil until needed, and after the table is read again.
	index *rowIndex
}

type stagedEpoch struct {
	epoch int64
	files []ice.DataFile
	// rw: an update-mode epoch with changes, whose files replace those of
	// the groups it rewrote.
	rw   *rewrite
	done bool // already in the table (written again by mistake): nothing to commit
}

var _ connector.Sink = (*Sink)(nil)

// Open opens the Iceberg table of cfg, creating its namespace and the
// table (with cfg's schema and partition spec) if they do not exist. An
// existing table must have the streaming table's columns (42804
// otherwise).
func Open(cfg Config) (*Sink, error) {
	sc, kinds, err := tableSchema(cfg.Columns)
	if err != nil {
		return nil, err
	}
	cat, err := hadoop.NewCatalog("weir", cfg.Warehouse, ice.Properties{})
	if err != nil {
		return nil, ioError("could not open the Iceberg warehouse \"%s\"", cfg.Warehouse, err)
	}
	s := &Sink{cfg: cfg, cat: cat, ident: append(append(table.Identifier{}, cfg.Namespace...), cfg.Table)}
	removeStaleClaims(cfg)
	ctx := context.Background()
	tbl, err := cat.LoadTable(ctx, s.ident)
	switch {
	case errors.Is(err, catalog.ErrNoSuchTable):
		if tbl, err = s.create(ctx, sc); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, ioError("could not load Iceberg table \"%s\"", s.name(), err)
	}
	if ok, why := sameShape(tbl.Schema(), sc); !ok {
		return nil, sqlerr.New(sqlerr.DatatypeMismatch, "Iceberg table \"%s\" does not match streaming table's columns", s.name()).
			WithDetail(why + ".")
	}
	asc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InternalError, "iceberg sink: %v", err)
	}
	s.conv = &converter{cols: cfg.Columns, kinds: kinds, schema: asc, mem: memory.DefaultAllocator}
	s.setTable(tbl)
	return s, nil
}

// Check reports what Open would refuse in cfg's columns (0A000 naming
// the column) and partition_by, without touching the warehouse: CREATE
// SINK checks before it stores the sink.
func Check(cfg Config) error {
	sc, _, err := tableSchema(cfg.Columns)
	if err != nil {
		return err
	}
	_, err = partitionSpec(sc, cfg.PartitionBy)
	return err
}

// name is the Iceberg table's dotted name.
func (s *Sink) name() string { return strings.Join(s.ident, ".") }

// Table is the Iceberg table as of the sink's last commit (nil while it
// must be reloaded).
func (s *Sink) Table() *table.Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tbl
}

// create makes the namespace (if missing) and the table.
func (s *Sink) create(ctx context.Context, sc *ice.Schema) (*table.Table, error) {
	// A nested namespace's parents first (lake, then lake.silver).
	for i := 1; i < len(s.ident); i++ {
		ns := s.ident[:i]
		exists, err := s.cat.CheckNamespaceExists(ctx, ns)
		if err != nil {
			return nil, ioError("could not read Iceberg namespace \"%s\"", strings.Join(ns, "."), err)
		}
		if !exists {
			if err := s.cat.CreateNamespace(ctx, ns, nil); err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
				return nil, ioError("could not create Iceberg namespace \"%s\"", strings.Join(ns, "."), err)
			}
		}
	}
	spec, err := partitionSpec(sc, s.cfg.PartitionBy)
	if err != nil {
		return nil, err
	}
	// Every commit writes a new metadata file holding the whole history;
	// keep only the latest few of them (the snapshots stay).
	props := ice.Properties{
		table.MetadataDeleteAfterCommitEnabledKey: "true",
		table.MetadataPreviousVersionsMaxKey:      "10",
	}
	tbl, err := s.cat.CreateTable(ctx, s.ident, sc, catalog.WithPartitionSpec(&spec), catalog.WithProperties(props))
	if errors.Is(err, catalog.ErrTableAlreadyExists) {
		tbl, err = s.cat.LoadTable(ctx, s.ident)
	}
	if err != nil {
		return nil, ioError("could not create Iceberg table \"%s\"", s.name(), err)
	}
	return tbl, nil
}

// partitionSpec builds partition_by's spec over sc.
func partitionSpec(sc *ice.Schema, by []PartitionField) (ice.PartitionSpec, error) {
	var opts []ice.PartitionOption
	for _, f := range by {
		col, ok := sc.FindFieldByName(f.Column)
		if !ok {
			return ice.PartitionSpec{}, sqlerr.New(sqlerr.UndefinedColumn, "partition_by column \"%s\" does not exist", f.Column)
		}
		tr, err := ice.ParseTransform(f.Transform)
		if err != nil || !tr.CanTransform(col.Type) {
			return ice.PartitionSpec{}, sqlerr.New(sqlerr.InvalidParameterValue, "cannot partition by %s(%s): column \"%s\" is %s",
				f.Transform, f.Column, f.Column, col.Type)
		}
		name := f.Column
		if f.Transform != "identity" {
			base, _, _ := strings.Cut(f.Transform, "[")
			if base == "truncate" {
				base = "trunc"
			}
			name += "_" + base
		}
		opts = append(opts, ice.AddPartitionFieldByName(f.Column, name, tr, sc, nil))
	}
	spec, err := ice.NewPartitionSpecOpts(opts...)
	if err != nil {
		return ice.PartitionSpec{}, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"partition_by\": %v", err)
	}
	return spec, nil
}

// setTable makes tbl the sink's table and learns the last epoch it holds.
func (s *Sink) setTable(tbl *table.Table) {
	s.tbl = tbl
	s.index = nil
	s.last = lastEpoch(tbl.Metadata(), s.cfg.Identity)
}

// lastEpoch is the epoch of the newest snapshot, in the current
// snapshot's ancestry, that identity committed (0: none). Other writers'
// snapshots (a compaction, another streaming table) are passed over.
func lastEpoch(md table.Metadata, identity string) int64 {
	for snap := md.CurrentSnapshot(); snap != nil; {
		if snap.Summary != nil && snap.Summary.Properties[SummaryTable] == identity {
			if n, err := strconv.ParseInt(snap.Summary.Properties[SummaryEpoch], 10, 64); err == nil {
				return n
			}
		}
		if snap.ParentSnapshotID == nil {
			break
		}
		snap = md.SnapshotByID(*snap.ParentSnapshotID)
	}
	return 0
}

// reload reads the table again after a commit whose outcome is unknown.
func (s *Sink) reload(ctx context.Context) error {
	tbl, err := s.cat.LoadTable(ctx, s.ident)
	if err != nil {
		return ioError("could not load Iceberg table \"%s\"", s.name(), err)
	}
	s.setTable(tbl)
	return nil
}

// Write converts the epoch's changes and writes them as data files under
// the table's data folder, which no snapshot references yet. tx is not
// used: the table is outside weir's store. An epoch already in the table
// is not written again.
func (s *Sink) Write(_ *state.Txn, epoch int64, changes []arrow.RecordBatch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := context.Background()
	if s.staged != nil {
		// The previous epoch's transaction did not commit (Committed was
		// not called): its files are referenced by nothing.
		s.removeFiles(ctx, s.staged.files)
		s.staged = nil
	}
	if s.tbl == nil {
		if err := s.reload(ctx); err != nil {
			return err
		}
	}
	if epoch <= s.last {
		s.staged = &stagedEpoch{epoch: epoch, done: true}
		return nil
	}
	st := &stagedEpoch{epoch: epoch}
	if s.cfg.Updates {
		if hasRows(changes) {
			rw, err := s.rewriteEpoch(ctx, changes)
			if err != nil {
				return err
			}
			st.rw, st.files = rw, rw.newFiles()
		}
		// else nothing changed: an empty snapshot records the epoch
	} else {
		var rows []arrow.RecordBatch // of the Iceberg schema, released by writeFiles
		for _, b := range changes {
			if b.NumRows() == 0 {
				continue
			}
			c, err := s.conv.convert(b)
			if err != nil {
				releaseAll(rows)
				return err
			}
			rows = append(rows, c)
		}
		files, err := s.writeFiles(ctx, rows)
		if err != nil {
			return err
		}
		st.files = files
	}
	s.crash("iceberg-after-write")
	s.staged = st
	return nil
}

// writeFiles writes rows (of the Iceberg schema; it releases them) as
// data files, in one WriteRecords call; on failure it removes what it
// wrote.
func (s *Sink) writeFiles(ctx context.Context, rows []arrow.RecordBatch) ([]ice.DataFile, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	batches := func(yield func(arrow.RecordBatch, error) bool) {
		for i, b := range rows {
			if !yield(b, nil) {
				releaseAll(rows[i+1:])
				return
			}
		}
	}
	var files []ice.DataFile
	for df, err := range table.WriteRecords(ctx, s.tbl, s.conv.schema, batches) {
		if err != nil {
			s.removeFiles(ctx, files)
			return nil, ioError("could not write a data file of Iceberg table \"%s\"", s.name(), err)
		}
		files = append(files, df)
	}
	return files, nil
}

func (s *Sink) crash(point string) {
	if s.cfg.Crash != nil {
		s.cfg.Crash(point)
	}
}

func hasRows(bs []arrow.RecordBatch) bool {
	for _, b := range bs {
		if b.NumRows() > 0 {
			return true
		}
	}
	return false
}

// Committed commits the snapshot of the epoch Write staged: append mode
// adds its files; an update-mode epoch with changes replaces the table's
// files with them.
// An epoch with no rows commits an empty snapshot, which still records
// the epoch.
func (s *Sink) Committed(epoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.staged
	if st == nil || st.epoch != epoch {
		if epoch <= s.last {
			return nil
		}
		return sqlerr.New(sqlerr.InternalError, "iceberg sink: epoch %d committed without being written", epoch)
	}
	if st.done {
		s.staged = nil
		return nil
	}
	ctx := context.Background()
	props := ice.Properties{SummaryEpoch: strconv.FormatInt(epoch, 10), SummaryTable: s.cfg.Identity}
	txn := s.tbl.NewTransaction()
	staged := false
	switch {
	case st.rw != nil && len(st.rw.oldFiles) > 0:
		if err := txn.ReplaceDataFilesWithDataFiles(ctx, st.rw.oldFiles, st.files, props); err != nil {
			return ioError("could not stage the snapshot of Iceberg table \"%s\"", s.name(), err)
		}
		staged = true
	case len(st.files) > 0:
		// The files are new (fresh names): no need to read every manifest
		// to check that none is in the table already.
		if err := txn.AddDataFiles(ctx, st.files, props, table.WithoutDuplicateCheck()); err != nil {
			return ioError("could not stage the snapshot of Iceberg table \"%s\"", s.name(), err)
		}
		staged = true
	}
	if !staged {
		rdr, err := array.NewRecordReader(s.conv.schema, nil)
		if err != nil {
			return sqlerr.New(sqlerr.InternalError, "iceberg sink: %v", err)
		}
		defer rdr.Release()
		if err := txn.Append(ctx, rdr, props); err != nil {
			return ioError("could not stage the snapshot of Iceberg table \"%s\"", s.name(), err)
		}
	}
	s.crash("iceberg-before-commit")
	tbl, err := txn.Commit(ctx)
	if err != nil {
		// The snapshot may have landed all the same (the error came after
		// the rename): the table says. While it cannot be read, nothing is
		// known, and the staged files are left alone (they may be the
		// snapshot's).
		s.tbl = nil
		if rerr := s.reload(ctx); rerr != nil {
			s.staged = nil
		} else if s.last >= epoch {
			s.staged = nil
			return nil
		}
		// Not committed: the staged files are still unreferenced, ready for
		// Committed to be tried again, or to be removed when the epoch is
		// written again.
		return ioError("could not commit the snapshot of Iceberg table \"%s\"", s.name(), err)
	}
	s.crash("iceberg-after-commit")
	s.staged = nil
	s.tbl = tbl
	s.last = epoch
	if st.rw != nil && s.index != nil {
		st.rw.committed(s.index)
	}
	return nil
}

// LastCommitted is the latest epoch a snapshot of this sink holds (read
// from the table again if the last commit's outcome is not known).
func (s *Sink) LastCommitted() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tbl == nil {
		if err := s.reload(context.Background()); err != nil {
			return 0, err
		}
	}
	return s.last, nil
}

// removeFiles deletes data files no snapshot references. A failure leaves
// an orphan, which no reader sees: it is not an error.
func (s *Sink) removeFiles(ctx context.Context, files []ice.DataFile) {
	if len(files) == 0 || s.tbl == nil {
		return
	}
	fs, err := s.tbl.FS(ctx)
	if err != nil {
		return
	}
	for _, f := range files {
		_ = fs.Remove(f.FilePath())
	}
}

// ioError is a failure of the warehouse's files: 58030, which pauses the
// table rather than failing it.
func ioError(format, name string, err error) error {
	return sqlerr.New(sqlerr.IOError, format+": %v", name, err)
}

// removeStaleClaims deletes the commit claims (metadata/vN.metadata.json
// .claim) a writer that died in the middle of a commit left. The sink is
// its table's one writer (CREATE SINK refuses a second sink on it) and is
// opened only while no commit of its own runs (the table's job starts),
// so a claim there now is a dead process's; left alone, iceberg-go's
// catalog refuses every commit until the claim is a minute old, and a
// restart just after a crash would fail its first epochs.
func removeStaleClaims(cfg Config) {
	dir := filepath.Join(append(append([]string{cfg.Warehouse}, cfg.Namespace...), cfg.Table, "metadata")...)
	claims, _ := filepath.Glob(filepath.Join(dir, "*.metadata.json.claim"))
	for _, c := range claims {
		os.Remove(c)
	}
}
