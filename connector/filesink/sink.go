package filesink

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// tempPrefix starts the name of every file being written: hidden, so that
// readers of the folder (and globs of part-*) skip it.
const tempPrefix = ".tmp-"

// Sink is a files sink over one folder (doc.go). Open it with Open.
type Sink struct {
	o          Options
	text       *types.FormatSettings
	dataCols   []Column // the columns the files hold
	dataIdx    []int    // their index in the batches
	partIdx    []int    // the partition columns' index in the batches
	dataSchema *arrow.Schema
	fileSchema *arrow.Schema // parquet: the files' types

	mu   sync.Mutex // guards last (LastCommitted may be called from any goroutine)
	last int64

	// live is the committed files by partition, in the order they were
	// added (compaction's candidates).
	live map[string][]DataFile
	// staged is the epoch Write prepared and Committed publishes.
	staged *stagedEpoch
	// replaced is the files compactions replaced that are not deleted yet
	// (deleteReplaced).
	replaced []replacedFiles
}

var _ connector.Sink = (*Sink)(nil)

// stagedEpoch is what Write prepared for an epoch: the manifest Committed
// writes, and the temporary files it renames.
type stagedEpoch struct {
	m     Manifest
	temps []string // temporary paths, one per m.Added
}

// Open opens the sink's folder, creating it when missing, and repairs
// what a crash left (recover.go).
func Open(o Options) (*Sink, error) {
	if err := CheckFormat(o.Format); err != nil {
		return nil, err
	}
	if o.Format == FormatJSON && o.RowJSON == nil {
		return nil, sqlerr.New(sqlerr.InternalError, "files sink: no JSON row encoder")
	}
	s := &Sink{o: o, text: o.Text, live: map[string][]DataFile{}}
	if s.text == nil {
		s.text = &types.DefaultFormat
	}
	isPart := map[string]bool{}
	for _, name := range o.PartitionBy {
		i := -1
		for k, c := range o.Columns {
			if c.Name == name {
				i = k
			}
		}
		if i < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "partition_by column \"%s\" does not exist", name)
		}
		s.partIdx = append(s.partIdx, i)
		isPart[name] = true
	}
	fields := []arrow.Field{}
	for i, c := range o.Columns {
		if isPart[c.Name] {
			continue
		}
		s.dataCols = append(s.dataCols, c)
		s.dataIdx = append(s.dataIdx, i)
		fields = append(fields, arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true})
	}
	if len(s.dataCols) == 0 {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "partition_by names every column: the files would hold none")
	}
	s.dataSchema = arrow.NewSchema(fields, nil)
	s.fileSchema = parquetSchema(s.dataCols)
	if err := s.recover(); err != nil {
		return nil, ioError(o.Dir, err)
	}
	return s, nil
}

// Dir is the sink's folder.
func (s *Sink) Dir() string { return s.o.Dir }

// LastCommitted is the epoch of the newest manifest.
func (s *Sink) LastCommitted() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, nil
}

// Write writes the epoch's rows into temporary files (tx is not used: the
// files are the sink's own commit). An epoch at or before LastCommitted
// is already in the folder and is not written again.
func (s *Sink) Write(_ *state.Txn, epoch int64, changes []arrow.RecordBatch) error {
	s.discardStaged()
	if last, _ := s.LastCommitted(); epoch <= last {
		return nil
	}
	st := &stagedEpoch{m: Manifest{Epoch: epoch, Format: s.o.Format, Added: []DataFile{}}}
	if err := s.stage(st, changes); err != nil {
		s.staged = st
		s.discardStaged()
		return ioError(s.o.Dir, err)
	}
	s.staged = st
	s.o.crash("filesink-after-write")
	return nil
}

func (s *Sink) stage(st *stagedEpoch, changes []arrow.RecordBatch) error {
	parts, err := s.split(changes)
	if err != nil {
		return err
	}
	defer func() {
		for _, p := range parts {
			for _, b := range p.batches {
				b.Release()
			}
		}
	}()
	seq := 0
	for _, p := range parts {
		if err := s.writePart(st, p, &seq); err != nil {
			return err
		}
	}
	return s.compact(st, &seq)
}

// writePart writes one partition's rows, in files of about the target
// size.
func (s *Sink) writePart(st *stagedEpoch, p *part, seq *int) error {
	if p.key != "" {
		if err := os.MkdirAll(filepath.Join(s.o.Dir, filepath.FromSlash(p.key)), 0o755); err != nil {
			return err
		}
	}
	target := s.o.targetSize()
	var w fileWriter
	var cur DataFile
	done := func() error {
		if w == nil {
			return nil
		}
		err := w.finish()
		cur.Bytes = w.size()
		w = nil
		if err != nil {
			return err
		}
		st.m.Added[len(st.m.Added)-1] = cur
		return nil
	}
	for _, b := range p.batches {
		chunk := chunkRows(b, target)
		for off := int64(0); off < b.NumRows(); off += chunk {
			n := min(chunk, b.NumRows()-off)
			if w == nil {
				var err error
				if w, cur, err = s.newFile(st, p.key, seq); err != nil {
					return err
				}
			}
			sl := b.NewSlice(off, off+n)
			err := w.write(sl)
			sl.Release()
			if err != nil {
				w.abort()
				return err
			}
			cur.Rows += n
			if w.size() >= target {
				if err := done(); err != nil {
					return err
				}
			}
		}
	}
	return done()
}

// chunkRows is how many rows of b go to a file at a time (a Parquet row
// group): about a quarter of the target size, so files end near it.
func chunkRows(b arrow.RecordBatch, target int64) int64 {
	per := batchBytes(b) / max(b.NumRows(), 1)
	n := target / 4 / max(per, 1)
	return min(max(n, 16), 1<<16)
}

// newFile starts the next data file of the epoch in partition key.
func (s *Sink) newFile(st *stagedEpoch, key string, seq *int) (fileWriter, DataFile, error) {
	name := fmt.Sprintf("part-%010d-%05d.%s", st.m.Epoch, *seq, s.o.ext())
	*seq++
	rel := name
	if key != "" {
		rel = path.Join(key, name)
	}
	tmp := s.tempPath(rel)
	os.Remove(tmp) // left by an earlier attempt at this epoch
	w, err := s.newFileWriter(tmp)
	if err != nil {
		return nil, DataFile{}, err
	}
	df := DataFile{Path: rel, Partition: key, FirstEpoch: st.m.Epoch, LastEpoch: st.m.Epoch}
	st.m.Added = append(st.m.Added, df)
	st.temps = append(st.temps, tmp)
	return w, df, nil
}

// tempPath is where the data file rel is written before its epoch
// commits: its folder, a hidden name, and an extension no glob of data
// files matches.
func (s *Sink) tempPath(rel string) string {
	dir, name := path.Split(rel)
	return filepath.Join(s.o.Dir, filepath.FromSlash(dir), tempPrefix+name+".inprogress")
}

func (s *Sink) finalPath(rel string) string { return filepath.Join(s.o.Dir, filepath.FromSlash(rel)) }

// discardStaged removes the temporary files of an epoch that was written
// but not committed (its transaction failed; the epoch is re-run).
func (s *Sink) discardStaged() {
	if s.staged == nil {
		return
	}
	for _, t := range s.staged.temps {
		os.Remove(t)
	}
	s.staged = nil
}

// Committed publishes the epoch Write staged: its files are renamed into
// place, then its manifest is written (the commit: a manifest's files are
// all there), then the files compaction replaced are deleted.
func (s *Sink) Committed(epoch int64) error {
	st := s.staged
	if st == nil || st.m.Epoch != epoch {
		if last, _ := s.LastCommitted(); epoch <= last {
			return nil // written before: Write did nothing
		}
		return sqlerr.New(sqlerr.InternalError, "files sink %s: epoch %d committed but not written", s.o.Dir, epoch)
	}
	s.staged = nil
	if err := s.rename(st); err != nil {
		return ioError(s.o.Dir, err)
	}
	s.o.crash("filesink-after-rename")
	st.m.Committed = time.Now().UTC()
	if err := writeManifest(s.o.Dir, &st.m); err != nil {
		return ioError(s.o.Dir, err)
	}
	s.mu.Lock()
	s.last = epoch
	s.mu.Unlock()
	s.forget(st.m.Removed)
	for _, f := range st.m.Added {
		s.live[f.Partition] = append(s.live[f.Partition], f)
	}
	for _, fs := range s.live {
		sortByEpoch(fs)
	}
	s.o.crash("filesink-after-manifest")
	if len(st.m.Removed) > 0 {
		s.replaced = append(s.replaced, replacedFiles{at: st.m.Committed, paths: st.m.Removed})
	}
	if err := s.deleteReplaced(time.Now()); err != nil {
		return ioError(s.o.Dir, err)
	}
	return nil
}

// rename moves an epoch's files from their temporary names into place,
// and syncs their folders.
func (s *Sink) rename(st *stagedEpoch) error {
	dirs := map[string]bool{}
	for i, f := range st.m.Added {
		final := s.finalPath(f.Path)
		if err := os.Rename(st.temps[i], final); err != nil {
			return fmt.Errorf("data file %s of epoch %d: %w", f.Path, st.m.Epoch, err)
		}
		dirs[filepath.Dir(final)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// replacedFiles are the files one epoch's compaction replaced, and when
// it committed.
type replacedFiles struct {
	at    time.Time
	paths []string
}

// deleteReplaced deletes the files compactions replaced at least
// ReplacedRetention before now. They are kept that long for readers that
// read the manifests before the compaction's and are still reading the
// files those list. Deleting is idempotent (recovery does it again after
// a crash).
func (s *Sink) deleteReplaced(now time.Time) error {
	keep := s.replaced[:0]
	for _, r := range s.replaced {
		if now.Sub(r.at) < s.o.replacedRetention() {
			keep = append(keep, r)
			continue
		}
		for _, p := range r.paths {
			if err := os.Remove(s.finalPath(p)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	s.replaced = keep
	return nil
}

// forget drops removed files from the live set.
func (s *Sink) forget(removed []string) {
	if len(removed) == 0 {
		return
	}
	gone := map[string]bool{}
	for _, r := range removed {
		gone[r] = true
	}
	for k, fs := range s.live {
		out := fs[:0]
		for _, f := range fs {
			if !gone[f.Path] {
				out = append(out, f)
			}
		}
		s.live[k] = out
	}
}

// ioError is err as the SQL error a sink's failure shows: 53100 when the
// disk is full, 58030 otherwise, naming the folder.
func ioError(dir string, err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*sqlerr.Error); ok {
		return e
	}
	if isDiskFull(err) {
		return sqlerr.New(sqlerr.DiskFull, "could not write to files sink folder \"%s\": %v", dir, err)
	}
	return sqlerr.New(sqlerr.IOError, "could not write to files sink folder \"%s\": %v", dir, err)
}

// batchBytes is about how much memory b's columns take.
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += arrayBytes(c.Data())
	}
	return n
}

func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}
