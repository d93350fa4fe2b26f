package exec

import (
	"context"
	"slices"
)

// sortBlock is how many rows are sorted between two checks for
// cancellation: well under a millisecond of work.
const sortBlock = 1 << 16

// sortStable sorts idx, row positions in ascending order, stably by cmp,
// and can be cancelled: blocks of sortBlock rows are sorted one by one,
// then merged pairwise (a bottom-up merge sort), with a check between
// blocks and merges. A sort of millions of rows thus stops within
// milliseconds of a cancel instead of running to its end. Within a block,
// ties are broken by row position, which makes pdqsort (several times
// faster than the standard library's in-place stable sort) stable; the
// merges keep the earlier block's row first.
func sortStable(ctx context.Context, env *Env, idx []int32, cmp func(a, b int32) int) error {
	return sortTotal(ctx, env, idx, func(a, b int32) int {
		if c := cmp(a, b); c != 0 {
			return c
		}
		return int(a - b)
	})
}

// sortTotal sorts xs by cmp, a total order (no two elements equal), in
// cancellable blocks as sortStable does.
func sortTotal[T any](ctx context.Context, env *Env, idx []T, cmp func(a, b T) int) error {
	n := len(idx)
	if n <= sortBlock {
		slices.SortFunc(idx, cmp)
		return nil
	}
	for s := 0; s < n; s += sortBlock {
		slices.SortFunc(idx[s:min(s+sortBlock, n)], cmp)
		if err := checkCancel(ctx, env); err != nil {
			return err
		}
	}
	buf := make([]T, n)
	src, dst := idx, buf
	for width := sortBlock; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			if err := mergeRuns(ctx, env, src[lo:mid], src[mid:hi], dst[lo:hi], cmp); err != nil {
				return err
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &idx[0] {
		copy(idx, src)
	}
	return nil
}

// mergeRuns merges sorted a and b into out, a's element first on ties.
func mergeRuns[T any](ctx context.Context, env *Env, a, b, out []T, cmp func(a, b T) int) error {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
		if k%(16*sortBlock) == 0 {
			if err := checkCancel(ctx, env); err != nil {
				return err
			}
		}
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
	return nil
}
