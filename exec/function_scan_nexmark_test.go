package exec

import (
	"testing"

	"github.com/weir-sql/weir/connector/nexmark"
	"github.com/weir-sql/weir/planner"
)

// The planner's copy of the nexmark() columns (it may not import the
// connector) is the generator's.
func TestNexmarkColumnsAgree(t *testing.T) {
	for _, tb := range []nexmark.Table{nexmark.Person, nexmark.Auction, nexmark.Bid} {
		pc, ok := planner.NexmarkColumns(tb.String())
		gc := nexmark.Columns[tb]
		if !ok || len(pc) != len(gc) {
			t.Fatalf("%s: planner has %d columns, the generator %d", tb, len(pc), len(gc))
		}
		for i := range gc {
			if pc[i].Name != gc[i].Name || pc[i].T != gc[i].T {
				t.Errorf("%s column %d: planner %s %s, generator %s %s", tb, i, pc[i].Name, pc[i].T, gc[i].Name, gc[i].T)
			}
		}
	}
}
