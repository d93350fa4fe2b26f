package exec

import (
	"context"
	"slices"
)

// radixSortIntKeys sorts pairs by value, stably (equal values keep their
// order in pairs): a least-significant-digit radix sort on the value's
// eight bytes, with the sign bit flipped so that unsigned byte order is
// signed order. One pass over the input counts all eight digits; a digit
// that is the same in every value (the high bytes of small or clustered
// keys) needs no pass. Each pass is a linear scan, so a sort of millions
// of rows checks for cancellation every few milliseconds.
func radixSortIntKeys(ctx context.Context, env *Env, pairs []intSortKey) error {
	n := len(pairs)
	if n <= 256 {
		slices.SortStableFunc(pairs, func(a, b intSortKey) int {
			if a.v < b.v {
				return -1
			}
			if a.v > b.v {
				return 1
			}
			return 0
		})
		return nil
	}
	var counts [8][256]int
	for i := range pairs {
		u := uint64(pairs[i].v) ^ (1 << 63)
		counts[0][byte(u)]++
		counts[1][byte(u>>8)]++
		counts[2][byte(u>>16)]++
		counts[3][byte(u>>24)]++
		counts[4][byte(u>>32)]++
		counts[5][byte(u>>40)]++
		counts[6][byte(u>>48)]++
		counts[7][byte(u>>56)]++
	}
	if err := checkCancel(ctx, env); err != nil {
		return err
	}
	var buf []intSortKey
	src := pairs
	for d := 0; d < 8; d++ {
		c := &counts[d]
		u0 := uint64(src[0].v) ^ (1 << 63)
		if c[byte(u0>>(8*d))] == n {
			continue // every value has this digit
		}
		if buf == nil {
			buf = make([]intSortKey, n)
		}
		dst := buf
		if &src[0] == &buf[0] {
			dst = pairs
		}
		var start [256]int
		sum := 0
		for b := range 256 {
			start[b] = sum
			sum += c[b]
		}
		shift := uint(8 * d)
		for i := range src {
			b := byte((uint64(src[i].v) ^ (1 << 63)) >> shift)
			dst[start[b]] = src[i]
			start[b]++
		}
		src = dst
		if err := checkCancel(ctx, env); err != nil {
			return err
		}
	}
	if &src[0] != &pairs[0] {
		copy(pairs, src)
	}
	return nil
}
