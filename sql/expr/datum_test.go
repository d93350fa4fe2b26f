package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// TestBroadcastString: the buffer-built constant column reads back as n
// copies, empty strings and one row included.
func TestBroadcastString(t *testing.T) {
	for _, v := range []string{"", "x", "YYYY-MM-DD", "日本語"} {
		for _, n := range []int{0, 1, 7, 8192} {
			arr, err := Broadcast(nil, types.Text, v, n)
			if err != nil {
				t.Fatal(err)
			}
			sa := arr.(*array.String)
			if sa.Len() != n || sa.NullN() != 0 {
				t.Fatalf("%q × %d: len %d nulls %d", v, n, sa.Len(), sa.NullN())
			}
			for i := 0; i < n; i++ {
				if sa.Value(i) != v {
					t.Fatalf("%q × %d: row %d is %q", v, n, i, sa.Value(i))
				}
			}
			arr.Release()
		}
	}
}
