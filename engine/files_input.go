package engine

import (
	"context"
	"encoding/binary"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/state"
)

// A streaming table reading files: each of its files inputs (a
// read_files call in its query, or a named files source) is a
// files.Source of its own, with its own processed-file log, as each
// reader keeps its own offsets. The log's key is the streaming table's
// OID and the input's identity (the call's position, or the source's
// OID), so a restart finds it again; the sources are closed when the
// table stops (DROP, CREATE OR REFRESH, server shutdown).

// filesOpened are the open files sources, by streaming table OID.
type filesOpened struct {
	mu   sync.Mutex
	open map[uint32][]*filesInput
	// evolveMu makes restarts on new schemas one at a time
	// (files_evolve.go).
	evolveMu sync.Mutex
	// kept are the named files sources that keep their schema
	// (files_evolve_source.go).
	kept map[uint32]bool
}

// filesInput is one open files source of a streaming table.
type filesInput struct {
	src *files.Source
	rel *catalog.Relation // the source relation (inline or named)
	// evolves: the table restarts on the new schema versions the source
	// records (files_evolve.go).
	evolves bool
	issues  filesIssueCounts // files_events.go
}

// filesLogKey is the key of reader's processed-file log for the files
// source relation src: under state.FilesLogPrefix(reader), i and the
// read_files call's position, or s and the named source's OID.
func filesLogKey(reader uint32, src *catalog.Relation) []byte {
	k := state.FilesLogPrefix(reader)
	if src.OID >= inlineOIDBase {
		k = append(k, 'i')
		return append(binary.BigEndian.AppendUint32(k, uint32(src.Source.Files.Input)), '/')
	}
	k = append(k, 's')
	return append(binary.BigEndian.AppendUint32(k, src.OID), '/')
}

// dropFilesLogs removes streaming table oid's files logs (DROP).
func dropFilesLogs(tx *state.Txn, oid uint32) error {
	var keys [][]byte
	if err := tx.IteratePrefix(state.FilesLogPrefix(oid), func(k, _ []byte) error {
		keys = append(keys, append([]byte(nil), k...))
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// moveFilesLogs gives a replaced streaming table the files logs of the
// table it replaces (CREATE OR REFRESH keeping the checkpoint, whose
// offsets count batches of those logs).
func (e *Engine) moveFilesLogs(from, to uint32) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	old, fresh := state.FilesLogPrefix(from), state.FilesLogPrefix(to)
	type kv struct{ k, v []byte }
	var moved []kv
	if err := tx.IteratePrefix(old, func(k, v []byte) error {
		moved = append(moved, kv{append([]byte(nil), k...), append([]byte(nil), v...)})
		return nil
	}); err != nil {
		return err
	}
	for _, m := range moved {
		if err := tx.Set(append(append([]byte(nil), fresh...), m.k[len(old):]...), m.v); err != nil {
			return err
		}
		if err := tx.Delete(m.k); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// openFilesInput opens the files source src for the streaming table
// reader. reads are the columns its plan reads (planner.Relation.Reads;
// nil: all): the source decodes only those. A table keeping late rows
// stores whole input rows, so it reads every column.
func (e *Engine) openFilesInput(reader *catalog.Relation, src *catalog.Relation, schema *arrow.Schema, reads []string) connector.Source {
	def := src.Source.Files
	o, err := filesOptions(def)
	if err != nil {
		return failingSource{err}
	}
	if reader.Streaming != nil && reader.Streaming.LateRows != "" {
		reads = nil
	}
	o.ReadColumns = reads
	evolves := evolvingInput(reader, src, o) && !e.schemaKept(src.OID) // files_evolve.go, files_evolve_source.go
	fsrc, err := files.OpenWith(e.store, filesLogKey(reader.OID, src), o, filesSchema(def), files.Tuning{StopOnNewColumns: evolves, Hit: failpoint.Hit})
	if err != nil {
		return failingSource{err}
	}
	e.filesOpen.mu.Lock()
	if e.filesOpen.open == nil {
		e.filesOpen.open = map[uint32][]*filesInput{}
	}
	e.filesOpen.open[reader.OID] = append(e.filesOpen.open[reader.OID], &filesInput{src: fsrc, rel: src, evolves: evolves})
	e.filesOpen.mu.Unlock()
	return &fittedSource{Source: fsrc, schema: schema, eng: e, checked: map[string]bool{}}
}

// closeFilesInputs closes the files sources of streaming table oid.
func (e *Engine) closeFilesInputs(oid uint32) {
	e.filesOpen.mu.Lock()
	ins := e.filesOpen.open[oid]
	delete(e.filesOpen.open, oid)
	e.filesOpen.mu.Unlock()
	for _, in := range ins {
		in.src.Close()
	}
}

// filesInputsOf is the streaming table oid's open files sources.
func (e *Engine) filesInputsOf(oid uint32) []*filesInput {
	e.filesOpen.mu.Lock()
	defer e.filesOpen.mu.Unlock()
	return append([]*filesInput(nil), e.filesOpen.open[oid]...)
}

// filesBacklog is the files and bytes streaming table oid's files inputs
// have discovered and not read yet (streaming_progress).
func (e *Engine) filesBacklog(oid uint32) (nfiles, nbytes int64, ok bool) {
	for _, in := range e.filesInputsOf(oid) {
		f, b := in.src.Backlog()
		nfiles, nbytes, ok = nfiles+f, nbytes+b, true
	}
	return nfiles, nbytes, ok
}

// filesCaughtUp tells whether streaming table oid's files inputs have
// read every complete file they found (REFRESH waits for it: a file found
// but not admitted yet has no rows in the backlog rows).
func (e *Engine) filesCaughtUp(oid uint32) bool {
	nfiles, _, _ := e.filesBacklog(oid)
	return nfiles == 0
}

// storedFilesInputs are the read_files definitions of a planned streaming
// query, in call order: what CREATE stores so that a restart binds the
// same schemas (catalog.StreamingTable.Files).
func (e *Engine) storedFilesInputs(sp *planner.StreamPlan) []catalog.FilesSource {
	var out []catalog.FilesSource
	seen := map[uint32]bool{}
	add := func(in *planner.Relation) {
		if in == nil || in.OID < inlineOIDBase || seen[in.OID] {
			return
		}
		seen[in.OID] = true
		if rel := e.sourceRelation(in.OID); rel != nil && rel.Source.Files != nil {
			out = append(out, *rel.Source.Files)
		}
	}
	add(sp.Input)
	if sp.Tree != nil {
		for _, leaf := range sp.Tree.Sources {
			add(leaf.Input)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Input < out[j-1].Input; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// fittedSource gives a files source's batches the plan's schema
// (fitBatch: by name, with the plan's types), and refuses a file whose
// real location is outside the files roots: a link to a file, placed in
// the folder after CREATE checked it, is read as the file it points to,
// so each file's path is checked once, when its first batch comes.
type fittedSource struct {
	connector.Source
	schema  *arrow.Schema
	eng     *Engine
	checked map[string]bool // file paths found inside the roots
}

func (f *fittedSource) Read(ctx context.Context, from int64, limit int) (connector.Read, error) {
	rd, err := f.Source.Read(ctx, from, limit)
	if err != nil {
		return rd, err
	}
	for i, b := range rd.Batches {
		if err := f.eng.checkBatchFiles(b, f.checked); err != nil {
			return connector.Read{}, err
		}
		if rd.Batches[i], err = fitBatch(b, f.schema); err != nil {
			return connector.Read{}, err
		}
	}
	return rd, nil
}

// checkBatchFiles checks the files a batch came from (its _metadata
// paths: a batch is one file's, so two lookups a batch); checked
// remembers the paths found inside the roots.
func (e *Engine) checkBatchFiles(b arrow.RecordBatch, checked map[string]bool) error {
	idx := b.Schema().FieldIndices(files.MetadataColumn)
	if len(idx) == 0 || b.NumRows() == 0 {
		return nil
	}
	md, ok := b.Column(idx[0]).(*array.Struct)
	if !ok {
		return nil
	}
	paths, ok := md.Field(0).(*array.String)
	if !ok {
		return nil
	}
	// A batch holds rows of one file (files.DecodeFile), so its first and
	// last rows name every file it came from.
	for _, r := range []int{0, paths.Len() - 1} {
		p := paths.Value(r)
		if checked[p] {
			continue
		}
		if err := e.checkListedFile(p); err != nil {
			return err
		}
		checked[p] = true
	}
	return nil
}

// filesPollInterval is how often a streaming table reading files looks
// for rows when nothing signals it.
const filesPollInterval = 100 * time.Millisecond

// RescanFiles makes every open files source list its folder now and take
// the listing in before returning (tests: what is on disk is then known
// to discovery without waiting for a watch event).
func (e *Engine) RescanFiles() {
	e.filesOpen.mu.Lock()
	var all []*filesInput
	for _, ins := range e.filesOpen.open {
		all = append(all, ins...)
	}
	e.filesOpen.mu.Unlock()
	for _, in := range all {
		in.src.Rescan()
	}
}
