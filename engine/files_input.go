package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/planner"
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
}

// filesInput is one open files source of a streaming table.
type filesInput struct {
	src *files.Source
	rel *catalog.Relation // the source relation (inline or named)
}

// filesLogKey is the key of reader's processed-file log for the files
// source relation src.
func filesLogKey(reader uint32, src *catalog.Relation) []byte {
	if src.OID >= inlineOIDBase {
		return []byte(fmt.Sprintf("files/%d/input/%d", reader, src.Source.Files.Input))
	}
	return []byte(fmt.Sprintf("files/%d/source/%d", reader, src.OID))
}

// openFilesInput opens the files source src for the streaming table reader.
func (e *Engine) openFilesInput(reader *catalog.Relation, src *catalog.Relation, schema *arrow.Schema) connector.Source {
	def := src.Source.Files
	o, err := filesOptions(def)
	if err != nil {
		return failingSource{err}
	}
	fsrc, err := files.Open(e.store, filesLogKey(reader.OID, src), o, filesSchema(def))
	if err != nil {
		return failingSource{err}
	}
	e.filesOpen.mu.Lock()
	if e.filesOpen.open == nil {
		e.filesOpen.open = map[uint32][]*filesInput{}
	}
	e.filesOpen.open[reader.OID] = append(e.filesOpen.open[reader.OID], &filesInput{src: fsrc, rel: src})
	e.filesOpen.mu.Unlock()
	return fittedSource{fsrc, schema}
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
// (fitBatch: by name, with the plan's types).
type fittedSource struct {
	connector.Source
	schema *arrow.Schema
}

func (f fittedSource) Read(ctx context.Context, from int64, limit int) (connector.Read, error) {
	rd, err := f.Source.Read(ctx, from, limit)
	if err != nil {
		return rd, err
	}
	for i, b := range rd.Batches {
		if rd.Batches[i], err = fitBatch(b, f.schema); err != nil {
			return connector.Read{}, err
		}
	}
	return rd, nil
}

// filesPollInterval is how often a streaming table reading files looks
// for rows when nothing signals it.
const filesPollInterval = 100 * time.Millisecond
