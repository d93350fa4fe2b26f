package exec

import (
	"context"
)

// abbrevKey is a row's first sort key reduced to one unsigned integer
// (PostgreSQL's abbreviated keys): the NULL class, then an integer with
// its sign bit flipped or a string's first 8 bytes big-endian, inverted
// for DESC. Two rows whose abbreviations differ are ordered by them alone;
// only equal abbreviations go to the full comparison. The cmp of a sort
// then reads two adjacent words instead of two strings' bytes or a
// switch per key.
type abbrevKey struct {
	cls uint8 // 0 NULLS FIRST, 1 a value, 2 NULLS LAST
	key uint64
	row int32
}

// abbreviable tells whether the first key has an abbreviation.
func (s *rowSorter) abbreviable() bool {
	return len(s.vecs) > 0 && (s.vecs[0].kind == kindInt || s.vecs[0].kind == kindString)
}

// sortAbbreviated sorts idx (row positions, ascending) stably through
// abbreviated first keys.
func (s *rowSorter) sortAbbreviated(ctx context.Context, env *Env, idx []int32) error {
	v, k0 := &s.vecs[0], s.keys[0]
	// exact: an equal abbreviation means an equal first key (integers),
	// so a tie goes straight to the second key.
	exact := v.kind == kindInt
	keys := make([]abbrevKey, len(idx))
	for i, r := range idx {
		a := abbrevKey{cls: 1, row: r}
		switch {
		case v.isNull(int(r)):
			a.cls = 2
			if k0.NullsFirst {
				a.cls = 0
			}
		case exact:
			a.key = uint64(v.ints[r]) ^ (1 << 63)
		default:
			a.key = stringPrefix(v.strs[r])
		}
		if a.cls == 1 && k0.Desc {
			a.key = ^a.key
		}
		keys[i] = a
	}
	from := 0
	if exact {
		from = 1
	}
	err := sortTotal(ctx, env, keys, func(a, b abbrevKey) int {
		if a.cls != b.cls {
			return int(a.cls) - int(b.cls)
		}
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		if a.cls == 1 {
			if c := s.compareFrom(from, int(a.row), int(b.row)); c != 0 {
				return c
			}
		} else if c := s.compareFrom(1, int(a.row), int(b.row)); c != 0 {
			return c // both NULL: the next keys decide
		}
		return int(a.row - b.row)
	})
	for i := range keys {
		idx[i] = keys[i].row
	}
	return err
}

// stringPrefix is s's first 8 bytes as a big-endian integer, zero-padded:
// unsigned order of prefixes agrees with byte order of the strings
// wherever the prefixes differ.
func stringPrefix(s string) uint64 {
	var p uint64
	n := min(len(s), 8)
	for i := 0; i < n; i++ {
		p |= uint64(s[i]) << (56 - 8*i)
	}
	return p
}

// compareFrom orders rows i and j by keys from, from+1, ...
func (s *rowSorter) compareFrom(from, i, j int) int {
	for k := from; k < len(s.vecs); k++ {
		v := &s.vecs[k]
		in, jn := v.isNull(i), v.isNull(j)
		if in || jn {
			if in && jn {
				continue
			}
			if in == s.keys[k].NullsFirst {
				return -1
			}
			return 1
		}
		c := v.compare(i, v, j)
		if c != 0 {
			if s.keys[k].Desc {
				return -c
			}
			return c
		}
	}
	return 0
}
