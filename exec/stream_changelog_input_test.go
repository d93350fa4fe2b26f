package exec

import (
	"math/rand"

	"github.com/apache/arrow-go/v18/arrow"
	"testing"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// TestConsolidateChanges: random epochs of changes over a few rows keep
// their net effect, and what is left never deletes and inserts equal rows
// in one epoch (so a reader may apply its deletes first).
func TestConsolidateChanges(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	r := rand.New(rand.NewSource(1))
	for c := 0; c < 300; c++ {
		var changes []ChangeBatch
		for b := 0; b < 1+r.Intn(4); b++ {
			var rows [][]expr.Datum
			var diff []int8
			for i := 0; i < r.Intn(8); i++ {
				var v expr.Datum = "x"
				if r.Intn(4) == 0 {
					v = nil
				}
				rows = append(rows, row(int64(r.Intn(3)), v))
				d := ChangeInsert
				if r.Intn(2) == 0 {
					d = ChangeDelete
				}
				diff = append(diff, d)
			}
			if r.Intn(5) == 0 {
				for i := range diff {
					diff[i] = ChangeInsert
				}
				diff = nil
			}
			changes = append(changes, ChangeBatch{Rows: mkBatch(cs, rows...), Diff: diff})
		}
		net := func(cb []ChangeBatch) (map[string]int, map[string][2]bool) {
			m, seen := map[string]int{}, map[string][2]bool{}
			for _, b := range cb {
				lines := format([]arrow.RecordBatch{b.Rows})
				for i, l := range lines {
					d := 1
					if b.Diff != nil && b.Diff[i] == ChangeDelete {
						d = -1
					}
					m[l] += d
					s := seen[l]
					if d > 0 {
						s[0] = true
					} else {
						s[1] = true
					}
					seen[l] = s
				}
			}
			return m, seen
		}
		want, _ := net(changes)
		got, seen := net(ConsolidateChanges(changes))
		for k, n := range want {
			if got[k] != n {
				t.Fatalf("case %d: row %q: net %d, want %d", c, k, got[k], n)
			}
		}
		for k, s := range seen {
			if s[0] && s[1] {
				t.Fatalf("case %d: row %q both inserted and deleted after consolidation", c, k)
			}
			if want[k] == 0 && got[k] == 0 && (s[0] || s[1]) {
				t.Fatalf("case %d: row %q kept though its changes cancel", c, k)
			}
		}
	}
}
