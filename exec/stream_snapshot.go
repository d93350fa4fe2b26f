package exec

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A state snapshot is the job's whole state after an epoch, as Arrow
// batches that the epoch's commit stores with it: the open windows' group
// keys and accumulator states, the open sessions' rows, the deduplication
// keys, and (update and complete mode) the table's current rows. A restart
// restores the latest snapshot and re-runs only the epochs committed after
// it, so its cost is bounded by the state and the input since the
// snapshot, not by all the input ever read; and the input before the
// snapshot may be removed by retention.
//
// Each batch says what it holds in its schema metadata (stateKind), so a
// snapshot is a flat list of chunks.

// SnapshotFormat numbers the layout of the snapshot batches; a snapshot of
// another format is ignored (the table re-runs its epochs instead).
const SnapshotFormat = 4 // 3: binary partition and dedup keys; 4: window fields once per window

const (
	stateKind       = "weir.state"
	kindWindows     = "windows" // one row per window: start, close, first epoch, groups
	kindWindow      = "window"  // the windows' groups, in the same order
	kindRows        = "rows"
	kindSessions    = "sessions"
	kindSessionRows = "session_rows"
	kindDedup       = "dedup"
)

// SnapshotsState reports whether the job's state can be snapshotted (see
// PlanSnapshotsState).
func (j *StreamJob) SnapshotsState() bool { return j.snapshots }

// PlanSnapshotsState reports whether a plan's state can be snapshotted:
// every aggregate's accumulator must save its state (not json_agg), and
// windowed aggregates must not be DISTINCT or ordered (their state is more
// than the accumulator's). Sessions keep rows, not accumulators, so they
// always can. A job that cannot recovers by re-running its epochs.
func PlanSnapshotsState(plan *planner.StreamPlan) bool {
	if plan.Agg == nil || (plan.Window != nil && plan.Window.Kind == planner.SessionWindow) {
		return true
	}
	for i := range plan.Agg.Aggs {
		c := &plan.Agg.Aggs[i]
		if c.Distinct || len(c.OrderBy) > 0 || !expr.AggregateSnapshots(c.Agg) {
			return false
		}
	}
	return true
}

func stateSchema(kind string, meta map[string]int64, fields []arrow.Field) *arrow.Schema {
	keys := []string{stateKind}
	vals := []string{kind}
	for k, v := range meta {
		keys = append(keys, k)
		vals = append(vals, strconv.FormatInt(v, 10))
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

func metaInt(s *arrow.Schema, key string) (int64, error) {
	v, ok := s.Metadata().GetValue(key)
	if !ok {
		return 0, corruptSnapshot("missing " + key)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, corruptSnapshot("bad " + key)
	}
	return n, nil
}

func corruptSnapshot(what string) error {
	return sqlerr.New(sqlerr.DataCorrupted, "unreadable state snapshot of a streaming table: %s", what)
}

func int64Array(vals []int64) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

// SaveState returns the snapshot of the state after the epoch just run.
func (j *StreamJob) SaveState(ectx *expr.Ctx) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	starts := make([]int64, 0, len(j.windows))
	for s := range j.windows {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	// The windows' own fields, once each, then their groups packed in the
	// same order: a restore cuts the group rows by the windows' counts.
	var wStart, wClose, wFirst, wGroups []int64
	var windows packer
	for _, s := range starts {
		w := j.windows[s]
		if w.ngroups == 0 {
			continue
		}
		wStart, wClose, wFirst = append(wStart, w.start), append(wClose, w.closeAt), append(wFirst, w.firstEpoch)
		wGroups = append(wGroups, int64(w.ngroups))
		windows.add(j.saveWindow(ectx, w))
	}
	if len(wStart) > 0 {
		i64 := arrow.PrimitiveTypes.Int64
		out = append(out, array.NewRecordBatch(stateSchema(kindWindows, nil, []arrow.Field{
			{Name: "start", Type: i64}, {Name: "close", Type: i64}, {Name: "first", Type: i64}, {Name: "groups", Type: i64},
		}), []arrow.Array{int64Array(wStart), int64Array(wClose), int64Array(wFirst), int64Array(wGroups)}, int64(len(wStart))))
	}
	out = append(out, windows.flush()...)
	if j.sessions != nil {
		out = append(out, j.saveSessions(ectx)...)
	}
	if j.dedup != nil {
		out = append(out, j.saveDedup())
	}
	if j.plan.Mode != planner.AppendMode {
		out = append(out, j.saveRows()...)
	}
	return out, nil
}

// saveWindow returns one window's groups: the dirty flags, the group keys,
// and each aggregate's state columns, named a<aggregate>.<column>.
func (j *StreamJob) saveWindow(ectx *expr.Ctx, w *windowState) arrow.RecordBatch {
	mem := ectx.Allocator()
	n := w.ngroups
	fields := []arrow.Field{{Name: "dirty", Type: arrow.FixedWidthTypes.Boolean}}
	db := array.NewBooleanBuilder(mem)
	db.AppendValues(w.dirty[:n], nil)
	cols := []arrow.Array{db.NewArray()}
	db.Release()
	for k, e := range j.plan.Agg.GroupBy {
		vals := make([]expr.Datum, n)
		for g := range vals {
			vals[g] = w.keys[g][k]
		}
		arr := expr.ArrayFromDatums(mem, e.Type(), vals)
		fields = append(fields, arrow.Field{Name: "k" + strconv.Itoa(k), Type: arr.DataType(), Nullable: true})
		cols = append(cols, arr)
	}
	for i, in := range w.inputs {
		for c, arr := range in.acc.(expr.StateAccumulator).SaveState(mem, n) {
			fields = append(fields, arrow.Field{Name: "a" + strconv.Itoa(i) + "." + strconv.Itoa(c), Type: arr.DataType(), Nullable: true})
			cols = append(cols, arr)
		}
	}
	return array.NewRecordBatch(stateSchema(kindWindow, nil, fields), cols, int64(n))
}

func repeatInt64(v int64, n int) arrow.Array {
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = v
	}
	return int64Array(vals)
}

// saveRows returns the update- or complete-mode table rows, each with its
// window and group, built from the segments' cached batches.
func (j *StreamJob) saveRows() []arrow.RecordBatch {
	starts := make([]int64, 0, len(j.rows.windows))
	for s := range j.rows.windows {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	i64 := arrow.PrimitiveTypes.Int64
	fields := append([]arrow.Field{{Name: "window", Type: i64}, {Name: "g", Type: i64}}, j.outSchema.Fields()...)
	schema := stateSchema(kindRows, nil, fields)
	var rows packer
	for _, start := range starts {
		for si, s := range j.rows.windows[start].segs {
			if s == nil || s.present == 0 {
				continue
			}
			if s.batch == nil {
				s.batch = s.build(j.outSchema, j.plan.Cols)
			}
			groups := make([]int64, 0, s.present)
			for gi, r := range s.rows {
				if r != nil {
					groups = append(groups, int64(si*segmentRows+gi))
				}
			}
			cols := append([]arrow.Array{repeatInt64(start, s.present), int64Array(groups)}, s.batch.Columns()...)
			rows.add(array.NewRecordBatch(schema, cols, int64(s.present)))
		}
	}
	return rows.flush()
}

// packer concatenates batches of one schema into batches of about
// packRows rows, so that a state of many small windows is a few chunks,
// not one per window (each chunk repeats its schema).
type packer struct {
	pending []arrow.RecordBatch
	rows    int64
	out     []arrow.RecordBatch
}

const packRows = 65536

func (p *packer) add(b arrow.RecordBatch) {
	if len(p.pending) > 0 && !p.pending[0].Schema().Equal(b.Schema()) {
		p.pack()
	}
	p.pending = append(p.pending, b)
	p.rows += b.NumRows()
	if p.rows >= packRows {
		p.pack()
	}
}

func (p *packer) pack() {
	switch len(p.pending) {
	case 0:
	case 1:
		p.out = append(p.out, p.pending[0])
	default:
		schema := p.pending[0].Schema()
		cols := make([]arrow.Array, schema.NumFields())
		for c := range cols {
			parts := make([]arrow.Array, len(p.pending))
			for i, b := range p.pending {
				parts[i] = b.Column(c)
			}
			arr, err := array.Concatenate(parts, memory.DefaultAllocator)
			if err != nil {
				// Same schema, so concatenation cannot fail; keep the
				// pieces if it does.
				p.out = append(p.out, p.pending...)
				p.pending, p.rows = nil, 0
				return
			}
			cols[c] = arr
		}
		p.out = append(p.out, array.NewRecordBatch(schema, cols, p.rows))
	}
	p.pending, p.rows = nil, 0
}

func (p *packer) flush() []arrow.RecordBatch {
	p.pack()
	return p.out
}

func (j *StreamJob) saveSessions(ectx *expr.Ctx) []arrow.RecordBatch {
	mem := ectx.Allocator()
	parts := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer parts.Release()
	touched := array.NewBooleanBuilder(mem)
	defer touched.Release()
	var ids, firsts, starts, lasts, rowSids []int64
	preCols := j.plan.Window.Input.Columns()
	rowVals := make([][]expr.Datum, len(preCols))
	for key, ss := range j.sessions.parts {
		for _, s := range ss {
			parts.Append([]byte(key))
			touched.Append(s.touched)
			ids = append(ids, s.id)
			firsts = append(firsts, s.firstEpoch)
			starts = append(starts, s.start)
			lasts = append(lasts, s.last)
			for _, r := range s.rows {
				rowSids = append(rowSids, s.id)
				for c := range rowVals {
					rowVals[c] = append(rowVals[c], r[c])
				}
			}
		}
	}
	i64 := arrow.PrimitiveTypes.Int64
	sessions := array.NewRecordBatch(stateSchema(kindSessions, map[string]int64{"next": j.sessions.nextID}, []arrow.Field{
		{Name: "part", Type: arrow.BinaryTypes.Binary}, {Name: "touched", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "id", Type: i64}, {Name: "first", Type: i64}, {Name: "start", Type: i64}, {Name: "last", Type: i64},
	}), []arrow.Array{parts.NewArray(), touched.NewArray(), int64Array(ids), int64Array(firsts), int64Array(starts), int64Array(lasts)}, int64(len(ids)))
	fields := []arrow.Field{{Name: "sid", Type: i64}}
	cols := []arrow.Array{int64Array(rowSids)}
	for c, col := range preCols {
		arr := expr.ArrayFromDatums(mem, col.T, rowVals[c])
		fields = append(fields, arrow.Field{Name: "c" + strconv.Itoa(c), Type: arr.DataType(), Nullable: true})
		cols = append(cols, arr)
	}
	rows := array.NewRecordBatch(stateSchema(kindSessionRows, nil, fields), cols, int64(len(rowSids)))
	return []arrow.RecordBatch{sessions, rows}
}

func (j *StreamJob) saveDedup() arrow.RecordBatch {
	keys := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	defer keys.Release()
	var times, epochs []int64
	for k, t := range j.dedup.seen {
		keys.Append([]byte(k))
		times = append(times, t)
		epochs = append(epochs, j.dedup.epochOf[k])
	}
	i64 := arrow.PrimitiveTypes.Int64
	return array.NewRecordBatch(stateSchema(kindDedup, nil, []arrow.Field{
		{Name: "key", Type: arrow.BinaryTypes.Binary}, {Name: "t", Type: i64}, {Name: "epoch", Type: i64},
	}), []arrow.Array{keys.NewArray(), int64Array(times), int64Array(epochs)}, int64(len(times)))
}

// RestoreState starts the job after epoch n (record rec) with the state of
// the snapshot taken then. The job must be fresh (or Reset).
func (j *StreamJob) RestoreState(n int64, rec EpochRecord, snapshot []arrow.RecordBatch) error {
	j.Resume(n, rec)
	ectx := j.Env.exprCtx()
	var sessionRows []arrow.RecordBatch
	var wl windowLoader
	for _, b := range snapshot {
		kind, _ := b.Schema().Metadata().GetValue(stateKind)
		var err error
		switch kind {
		case kindWindows:
			err = wl.addWindows(b)
		case kindWindow:
			err = j.loadWindows(ectx, &wl, b)
		case kindRows:
			err = j.loadRows(b)
		case kindSessions:
			err = j.loadSessions(b)
		case kindSessionRows:
			sessionRows = append(sessionRows, b)
		case kindDedup:
			err = j.loadDedup(b)
		default:
			err = corruptSnapshot("unknown part " + strconv.Quote(kind))
		}
		if err != nil {
			return err
		}
	}
	if wl.next < len(wl.start) {
		return corruptSnapshot("windows without their groups")
	}
	for _, b := range sessionRows { // after the sessions they belong to
		if err := j.loadSessionRows(b); err != nil {
			return err
		}
	}
	j.snapEpoch, j.snapRows = n, batchRows(snapshot)
	rows, bytes := j.stateSize()
	j.mu.Lock()
	j.progress.StateRows, j.progress.StateBytes = rows, bytes
	j.mu.Unlock()
	if j.pubEpoch <= n {
		// Not after a Reset whose readers still see a later epoch: they
		// keep it until the re-run of the epochs after the snapshot ends.
		j.publishEpoch(n)
	}
	return nil
}

// windowLoader hands out the windows of a snapshot in order, with how
// many of the following group rows belong to each.
type windowLoader struct {
	start, close, first, groups []int64
	next                        int // the window whose groups come next
}

func (wl *windowLoader) addWindows(b arrow.RecordBatch) error {
	if b.NumCols() != 4 {
		return corruptSnapshot("windows of another shape")
	}
	var cols [4][]int64
	for c := range cols {
		var err error
		if cols[c], err = int64Column(b, c); err != nil {
			return err
		}
	}
	wl.start = append(wl.start, cols[0]...)
	wl.close = append(wl.close, cols[1]...)
	wl.first = append(wl.first, cols[2]...)
	wl.groups = append(wl.groups, cols[3]...)
	return nil
}

// loadWindows restores the windows whose group rows a batch holds, cutting
// it by the windows' group counts (the packer never splits a window).
func (j *StreamJob) loadWindows(ectx *expr.Ctx, wl *windowLoader, b arrow.RecordBatch) error {
	if j.plan.Agg == nil {
		return corruptSnapshot("window state of a query without aggregation")
	}
	for lo := int64(0); lo < b.NumRows(); {
		if wl.next >= len(wl.start) {
			return corruptSnapshot("group rows of no window")
		}
		k := wl.next
		n := wl.groups[k]
		if n <= 0 || lo+n > b.NumRows() {
			return corruptSnapshot("a window's groups split across batches")
		}
		if err := j.loadWindow(ectx, wl.start[k], wl.first[k], b.NewSlice(lo, lo+n)); err != nil {
			return err
		}
		lo += n
		wl.next++
	}
	return nil
}

// loadWindow restores the window starting at start from its group rows.
func (j *StreamJob) loadWindow(ectx *expr.Ctx, start, first int64, b arrow.RecordBatch) error {
	s := b.Schema()
	if _, dup := j.windows[start]; dup {
		return corruptSnapshot("a window saved twice")
	}
	w, err := j.window(ectx, start)
	if err != nil {
		return err
	}
	w.firstEpoch = first
	n := int(b.NumRows())
	nkeys := len(j.plan.Agg.GroupBy)
	const fixed = 1 // dirty
	if int(b.NumCols()) < fixed+nkeys {
		return corruptSnapshot("window state without its keys")
	}
	dirty, ok := b.Column(0).(*array.Boolean)
	if !ok {
		return corruptSnapshot("window state without dirty flags")
	}
	keys := b.Columns()[fixed : fixed+nkeys]
	for k, e := range j.plan.Agg.GroupBy {
		if !arrow.TypeEqual(keys[k].DataType(), e.Type().Arrow()) {
			return corruptSnapshot("window key of another type")
		}
	}
	if nkeys > 0 {
		w.table.prepare(keys)
	}
	w.keys = make([][]expr.Datum, n)
	w.dirty = make([]bool, n)
	for i := 0; i < n; i++ {
		if nkeys > 0 {
			// Inserting the keys in group order gives them back their group
			// numbers, which index the accumulators' state.
			if g, isNew := w.table.insert(i); g != i || !isNew {
				return corruptSnapshot("duplicate window key")
			}
		}
		var key []expr.Datum
		if nkeys > 0 {
			key = make([]expr.Datum, nkeys)
			for k := range key {
				key[k] = expr.DatumAt(keys[k], i)
			}
		}
		w.keys[i] = key
		w.dirty[i] = dirty.Value(i)
	}
	w.ngroups = n
	// The accumulators' columns are named a<aggregate>.<column>.
	byAgg := make([][]arrow.Array, len(w.inputs))
	for c := fixed + nkeys; c < int(b.NumCols()); c++ {
		name := s.Field(c).Name
		dot := strings.IndexByte(name, '.')
		if dot < 2 || name[0] != 'a' {
			return corruptSnapshot("bad column " + name)
		}
		i, err := strconv.Atoi(name[1:dot])
		if err != nil || i < 0 || i >= len(byAgg) {
			return corruptSnapshot("bad column " + name)
		}
		byAgg[i] = append(byAgg[i], b.Column(c))
	}
	for i, in := range w.inputs {
		acc, ok := in.acc.(expr.StateAccumulator)
		if !ok {
			return corruptSnapshot("aggregate without snapshot support")
		}
		if err := acc.LoadState(byAgg[i]); err != nil {
			return err
		}
	}
	return nil
}

func (j *StreamJob) loadRows(b arrow.RecordBatch) error {
	if int(b.NumCols()) != 2+len(j.plan.Cols) {
		return corruptSnapshot("table rows of another shape")
	}
	windows, err := int64Column(b, 0)
	if err != nil {
		return err
	}
	groups, err := int64Column(b, 1)
	if err != nil {
		return err
	}
	for i := range groups {
		row := make([]expr.Datum, len(j.plan.Cols))
		for c := range row {
			row[c] = expr.DatumAt(b.Column(2+c), i)
		}
		j.rows.set(windows[i], int(groups[i]), row)
	}
	return nil
}

func (j *StreamJob) loadSessions(b arrow.RecordBatch) error {
	next, err := metaInt(b.Schema(), "next")
	if err != nil {
		return err
	}
	if b.NumCols() != 6 {
		return corruptSnapshot("sessions of another shape")
	}
	parts, ok1 := b.Column(0).(*array.Binary)
	touched, ok2 := b.Column(1).(*array.Boolean)
	if !ok1 || !ok2 {
		return corruptSnapshot("sessions of another shape")
	}
	var cols [4][]int64
	for c := range cols {
		if cols[c], err = int64Column(b, 2+c); err != nil {
			return err
		}
	}
	ids, firsts, starts, lasts := cols[0], cols[1], cols[2], cols[3]
	if j.sessions == nil {
		j.sessions = &sessionState{parts: map[string][]*session{}}
	}
	j.sessions.nextID = next
	for i := range ids {
		key := string(parts.Value(i))
		j.sessions.parts[key] = append(j.sessions.parts[key], &session{id: ids[i], firstEpoch: firsts[i],
			start: starts[i], last: lasts[i], touched: touched.Value(i)})
	}
	for _, ss := range j.sessions.parts { // foldSessions relies on the order
		slices.SortFunc(ss, func(a, b *session) int { return cmp.Compare(a.start, b.start) })
	}
	return nil
}

func (j *StreamJob) loadSessionRows(b arrow.RecordBatch) error {
	if j.sessions == nil || j.plan.Window == nil {
		return corruptSnapshot("session rows without sessions")
	}
	byID := map[int64]*session{}
	for _, ss := range j.sessions.parts {
		for _, s := range ss {
			byID[s.id] = s
		}
	}
	ncols := len(j.plan.Window.Input.Columns())
	if int(b.NumCols()) != 1+ncols {
		return corruptSnapshot("session rows of another shape")
	}
	sids, ok := b.Column(0).(*array.Int64)
	if !ok {
		return corruptSnapshot("session rows of another shape")
	}
	for i := 0; i < int(b.NumRows()); i++ {
		s := byID[sids.Value(i)]
		if s == nil {
			return corruptSnapshot("a row of no session")
		}
		row := make([]expr.Datum, ncols)
		for c := range row {
			row[c] = expr.DatumAt(b.Column(1+c), i)
		}
		s.rows = append(s.rows, row)
	}
	return nil
}

func (j *StreamJob) loadDedup(b arrow.RecordBatch) error {
	if b.NumCols() != 3 {
		return corruptSnapshot("deduplication keys of another shape")
	}
	keys, ok := b.Column(0).(*array.Binary)
	if !ok {
		return corruptSnapshot("deduplication keys of another shape")
	}
	times, err := int64Column(b, 1)
	if err != nil {
		return err
	}
	epochs, err := int64Column(b, 2)
	if err != nil {
		return err
	}
	d := j.dedupState()
	for i := range times {
		k := string(keys.Value(i))
		d.seen[k] = times[i]
		d.epochOf[k] = epochs[i]
	}
	return nil
}

func int64Column(b arrow.RecordBatch, c int) ([]int64, error) {
	arr, ok := b.Column(c).(*array.Int64)
	if !ok {
		return nil, corruptSnapshot("column " + b.Schema().Field(c).Name + " of another type")
	}
	return arr.Int64Values(), nil
}

// Snapshot policy. A snapshot costs about as much as its size in rows
// (state plus, in update and complete mode, the table's rows); a restart
// re-runs the epochs after it, at about one row's cost per input row plus a
// fixed cost per epoch (epochCostRows). Taking the next snapshot once the
// work since the last one reaches that one's size (at least
// minSnapshotRows) keeps the snapshots' total cost at most about that of
// processing the input, and bounds a restart's re-run by about one
// snapshot's worth of work. When every row makes a new group, snapshots
// come at doubling sizes, whose total cost is about twice the last one. A
// trickle of tiny epochs triggers one too, sooner for a small state than
// for a big one.
const (
	minSnapshotRows = 65536
	epochCostRows   = 1000
)

func (j *StreamJob) snapshotDue() bool {
	if !j.SnapshotsState() || j.rowsSince == 0 {
		return false
	}
	if j.SnapshotRows > 0 {
		return j.rowsSince >= j.SnapshotRows
	}
	return j.rowsSince+epochCostRows*j.epochsSince >= max(minSnapshotRows, j.snapRows)
}

func batchRows(bs []arrow.RecordBatch) int64 {
	var n int64
	for _, b := range bs {
		n += b.NumRows()
	}
	return n
}
