package exec

import (
	"hash/maphash"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

var hashSeed = maphash.MakeSeed()

const nullHash = 0x5bd1e9955bd1e995

func mix(h, x uint64) uint64 {
	h ^= x
	h *= 0x9E3779B97F4A7C15
	return h ^ (h >> 29)
}

// groupTable maps key tuples to dense group numbers 0..n-1 in order of
// first appearance: the hash table behind aggregation, DISTINCT, set
// operations, window partitions and the build side of hash joins. NULLs
// are equal to each other here; joins skip rows with NULL keys themselves.
//
// Per batch: prepare(keys) loads the key columns and hashes every row, then
// insert(i) or find(i) looks row i up.
type groupTable struct {
	types  []types.T
	stored []colVec // key values of each group
	hashes []uint64 // hash of each group
	slots  []int32  // open addressing: group number + 1, 0 when empty
	mask   uint64
	n      int
	// keyBytes is the bytes of the stored string keys (and of the kept
	// values of variable width), for memory accounting.
	keyBytes int64

	batch   []colVec // the current batch's key columns
	rowHash []uint64

	// keepValues keeps, for output, the first-seen value of each key column
	// of each group (the stored values are normalised, e.g. 1.00 → 1).
	keepValues bool
	values     []array.Builder
	batchArrs  []arrow.Array
}

func newGroupTable(mem memory.Allocator, ts []types.T, keepValues bool) *groupTable {
	g := &groupTable{
		types:      ts,
		stored:     make([]colVec, len(ts)),
		batch:      make([]colVec, len(ts)),
		slots:      make([]int32, 1024),
		mask:       1023,
		keepValues: keepValues,
	}
	for i, t := range ts {
		g.stored[i].kind = kindOf(t, false)
		g.stored[i].t = t
		if keepValues {
			g.values = append(g.values, array.NewBuilder(mem, t.Arrow()))
		}
	}
	return g
}

// prepare loads the key columns of the next batch and hashes its rows.
func (g *groupTable) prepare(keys []arrow.Array) {
	n := 0
	if len(keys) > 0 {
		n = keys[0].Len()
	}
	g.batchArrs = keys
	g.rowHash = growUint64s(g.rowHash, n)
	h := g.rowHash
	for i := range h {
		h[i] = 0x243F6A8885A308D3
	}
	for c, arr := range keys {
		v := &g.batch[c]
		v.load(arr, g.types[c], false)
		switch v.kind {
		case kindInt:
			for i, x := range v.ints[:n] {
				h[i] = mix(h[i], uint64(x))
			}
		case kindFloat:
			for i, x := range v.floats[:n] {
				h[i] = mix(h[i], math.Float64bits(x))
			}
		default:
			for i, s := range v.strs[:n] {
				h[i] = mix(h[i], maphash.String(hashSeed, s))
			}
		}
		if v.nulls != nil {
			for i, isNull := range v.nulls[:n] {
				if isNull {
					h[i] = mix(h[i]^uint64(c), nullHash)
				}
			}
		}
	}
}

// rowHasNull tells whether a key of row i of the current batch is NULL.
func (g *groupTable) rowHasNull(i int) bool {
	for c := range g.batch {
		if g.batch[c].isNull(i) {
			return true
		}
	}
	return false
}

// equal compares row i of the current batch with group grp.
func (g *groupTable) equal(i int, grp int) bool {
	for c := range g.batch {
		b, s := &g.batch[c], &g.stored[c]
		bn, sn := b.isNull(i), s.nulls[grp]
		if bn || sn {
			if bn != sn {
				return false
			}
			continue
		}
		switch b.kind {
		case kindInt:
			if b.ints[i] != s.ints[grp] {
				return false
			}
		case kindFloat:
			x, y := b.floats[i], s.floats[grp]
			if x != y && !(x != x && y != y) {
				return false
			}
		default:
			if b.strs[i] != s.strs[grp] {
				return false
			}
		}
	}
	return true
}

// find returns the group of row i of the current batch, or -1.
func (g *groupTable) find(i int) int {
	h := g.rowHash[i]
	for pos := h & g.mask; ; pos = (pos + 1) & g.mask {
		s := g.slots[pos]
		if s == 0 {
			return -1
		}
		grp := int(s - 1)
		if g.hashes[grp] == h && g.equal(i, grp) {
			return grp
		}
	}
}

// insert returns the group of row i of the current batch, adding a group
// when the key is new.
func (g *groupTable) insert(i int) (grp int, isNew bool) {
	h := g.rowHash[i]
	pos := h & g.mask
	for ; ; pos = (pos + 1) & g.mask {
		s := g.slots[pos]
		if s == 0 {
			break
		}
		grp := int(s - 1)
		if g.hashes[grp] == h && g.equal(i, grp) {
			return grp, false
		}
	}
	grp = g.n
	g.n++
	g.slots[pos] = int32(grp + 1)
	g.hashes = append(g.hashes, h)
	for c := range g.batch {
		b, s := &g.batch[c], &g.stored[c]
		isNull := b.isNull(i)
		s.nulls = append(s.nulls, isNull)
		switch b.kind {
		case kindInt:
			s.ints = append(s.ints, b.ints[i])
		case kindFloat:
			s.floats = append(s.floats, b.floats[i])
		default:
			s.strs = append(s.strs, strings.Clone(b.strs[i]))
			g.keyBytes += int64(len(b.strs[i]))
		}
		if g.keepValues {
			appendValue(g.values[c], g.batchArrs[c], i)
		}
	}
	if uint64(g.n)*2 > g.mask {
		g.grow()
	}
	return grp, true
}

// bytes estimates the memory the table holds: slots, hashes, the stored
// keys (8 bytes a fixed-width value, a string's header and bytes) and the
// kept first-seen values (about as much again).
func (g *groupTable) bytes() int64 {
	perGroup := int64(8) // hash
	for _, t := range g.types {
		switch kindOf(t, false) {
		case kindInt, kindFloat:
			perGroup += 9
		default:
			perGroup += 17
		}
	}
	n := int64(len(g.slots))*4 + int64(g.n)*perGroup + g.keyBytes
	if g.keepValues {
		n += int64(g.n)*perGroup + g.keyBytes
	}
	return n
}

func (g *groupTable) grow() {
	size := (g.mask + 1) * 2
	g.slots = make([]int32, size)
	g.mask = size - 1
	for grp, h := range g.hashes {
		pos := h & g.mask
		for g.slots[pos] != 0 {
			pos = (pos + 1) & g.mask
		}
		g.slots[pos] = int32(grp + 1)
	}
}

// keyArrays returns the kept first-seen key values, one array per key
// column, in group order. It may be called once.
func (g *groupTable) keyArrays() []arrow.Array {
	out := make([]arrow.Array, len(g.values))
	for c, b := range g.values {
		out[c] = b.NewArray()
		b.Release()
	}
	g.values = nil
	return out
}

func growUint64s(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}
