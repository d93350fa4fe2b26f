package exec

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// StreamGraph runs a streaming plan's tree of operators for one epoch at
// a time: the rows each source delivered go into the leaves, every node's
// changes into its parent, and the root's changes are the epoch's result.
// Nodes run children first; within a node, its inputs' rows are pushed,
// then its inputs' watermarks advanced, then its changes taken, so that a
// parent sees in the same epoch the rows a child released when its
// watermark moved.
type StreamGraph struct {
	nodes   []graphNode // children before parents, the root last
	sources int
	// changelog[i]: source i's rows are a change log's (an update-mode
	// table read as a stream, connector/changelog), inserts and deletes.
	changelog []bool
	late      []arrow.RecordBatch // late rows kept, as LateRowsColumns
}

// graphNode is one operator and where each of its inputs comes from.
type graphNode struct {
	op StreamOperator
	in []GraphInput
	// wm is the watermark last advanced on each input, saved with the
	// state: an operator whose own state does not hold its watermark
	// (an aggregation's) is advanced to it again after a restore.
	wm []int64
	// late is what the operator's late rows look like.
	late lateShape
}

// GraphInput is where an operator input's rows come from: source number
// Source (>= 0), or the node Node returned by Add.
type GraphInput struct {
	Source, Node int
}

// FromSource and FromNode name an operator input.
func FromSource(i int) GraphInput { return GraphInput{Source: i, Node: -1} }
func FromNode(n int) GraphInput   { return GraphInput{Source: -1, Node: n} }

// NewStreamGraph is an empty graph over the given number of sources.
func NewStreamGraph(sources int) *StreamGraph { return &StreamGraph{sources: sources} }

// Add appends an operator whose inputs are sources or nodes added before,
// and returns its node number. The last node added is the root.
func (g *StreamGraph) Add(op StreamOperator, in ...GraphInput) int {
	wm := make([]int64, len(in))
	for i := range wm {
		wm[i] = math.MinInt64
	}
	g.nodes = append(g.nodes, graphNode{op: op, in: in, wm: wm})
	return len(g.nodes) - 1
}

// Sources is the number of sources the graph reads.
func (g *StreamGraph) Sources() int { return g.sources }

// Step runs one epoch: rows[i] and watermarks[i] are what source i
// delivered and its watermark after them (math.MinInt64: none yet). It
// returns the root's changes.
func (g *StreamGraph) Step(sc *StreamCtx, rows [][]arrow.RecordBatch, watermarks []int64) ([]ChangeBatch, error) {
	if len(rows) != g.sources || len(watermarks) != g.sources {
		return nil, sqlerr.New(sqlerr.InternalError, "stream graph: %d sources, given %d", g.sources, len(rows))
	}
	out := make([][]ChangeBatch, len(g.nodes))
	for n, node := range g.nodes {
		for k, in := range node.in {
			if in.Source >= 0 {
				for _, b := range rows[in.Source] {
					if b.NumRows() == 0 {
						continue
					}
					c := Inserts(b)
					if in.Source < len(g.changelog) && g.changelog[in.Source] {
						var err error
						if c, err = changesFromLog(b); err != nil {
							return nil, err
						}
					}
					if err := node.op.Push(sc, k, c); err != nil {
						return nil, err
					}
				}
				continue
			}
			for _, c := range out[in.Node] {
				if err := node.op.Push(sc, k, c); err != nil {
					return nil, err
				}
			}
			out[in.Node] = nil
		}
		for k, in := range node.in {
			wm := int64(math.MinInt64)
			if in.Source >= 0 {
				wm = watermarks[in.Source]
			} else {
				wm = g.nodes[in.Node].op.Watermark()
			}
			if wm == math.MinInt64 {
				continue
			}
			if err := node.op.Advance(sc, k, wm); err != nil {
				return nil, err
			}
			node.wm[k] = max(node.wm[k], wm)
		}
		cs, err := node.op.Emit(sc)
		if err != nil {
			return nil, err
		}
		out[n] = cs
		if sc.KeepLate {
			for _, b := range node.op.LateRows() {
				g.late = append(g.late, lateRowsAsJSON(sc.Expr, node.late, b))
			}
		}
	}
	if len(g.nodes) == 0 {
		return nil, nil
	}
	return out[len(g.nodes)-1], nil
}

// Watermark is the root's output watermark.
func (g *StreamGraph) Watermark() int64 {
	if len(g.nodes) == 0 {
		return math.MinInt64
	}
	return g.nodes[len(g.nodes)-1].op.Watermark()
}

// Late is the number of late rows every operator dropped.
func (g *StreamGraph) Late() int64 {
	var n int64
	for _, node := range g.nodes {
		n += node.op.Late()
	}
	return n
}

// LateRows returns the late rows the operators kept since the last call,
// each as the operator's label and the row as jsonb (LateRowsColumns):
// the operators' own rows differ in shape.
func (g *StreamGraph) LateRows() []arrow.RecordBatch {
	out := g.late
	g.late = nil
	return out
}

// MinEpoch is the oldest epoch any operator's state depends on.
func (g *StreamGraph) MinEpoch(next int64) int64 {
	m := next
	for _, node := range g.nodes {
		m = min(m, node.op.MinEpoch(next))
	}
	return m
}

// StateSize sums the operators' state.
func (g *StreamGraph) StateSize() (rows, bytes int64) {
	for _, node := range g.nodes {
		r, b := node.op.StateSize()
		rows += r
		bytes += b
	}
	return rows, bytes
}

// graphNodeKey tags each state batch with the node it belongs to.
const graphNodeKey = "weir.node"

// SaveState returns every operator's state, each batch tagged with its
// node number.
func (g *StreamGraph) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	meta := map[string]int64{}
	for n, node := range g.nodes {
		for k, wm := range node.wm {
			meta[inputWMKey(n, k)] = wm
		}
	}
	out := []arrow.RecordBatch{emptyState(kindGraphWatermarks, meta)}
	for n, node := range g.nodes {
		st, err := node.op.SaveState(sc)
		if err != nil {
			return nil, err
		}
		for _, b := range st {
			out = append(out, tagNode(b, n))
		}
	}
	return out, nil
}

// LoadState gives each operator the batches tagged with its node.
func (g *StreamGraph) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	g.late = nil
	per := make([][]arrow.RecordBatch, len(g.nodes))
	var wms arrow.RecordBatch
	for _, b := range state {
		if kind, _ := b.Schema().Metadata().GetValue(stateKind); kind == kindGraphWatermarks {
			wms = b
			continue
		}
		v, ok := b.Schema().Metadata().GetValue(graphNodeKey)
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 || n >= len(g.nodes) {
			return corruptSnapshot("stream graph node")
		}
		per[n] = append(per[n], b)
	}
	for n, node := range g.nodes {
		if err := node.op.LoadState(sc, per[n]); err != nil {
			return err
		}
		for k := range node.wm {
			node.wm[k] = math.MinInt64
			if wms == nil {
				continue
			}
			wm, err := metaInt(wms.Schema(), inputWMKey(n, k))
			if err != nil {
				return err
			}
			if wm == math.MinInt64 {
				continue
			}
			// Advancing to where the input stood emits nothing: what that
			// watermark released was emitted before the snapshot.
			if err := node.op.Advance(sc, k, wm); err != nil {
				return err
			}
			node.wm[k] = wm
		}
		if _, err := node.op.Emit(sc); err != nil {
			return err
		}
	}
	return nil
}

const kindGraphWatermarks = "graph_watermarks"

func inputWMKey(n, k int) string { return "n" + strconv.Itoa(n) + "." + strconv.Itoa(k) }

func tagNode(b arrow.RecordBatch, n int) arrow.RecordBatch {
	md := b.Schema().Metadata()
	keys := append(append([]string{}, md.Keys()...), graphNodeKey)
	vals := append(append([]string{}, md.Values()...), strconv.Itoa(n))
	meta := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema(b.Schema().Fields(), &meta)
	return array.NewRecordBatch(schema, b.Columns(), b.NumRows())
}
