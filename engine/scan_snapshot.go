package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
)

// snapshotTables is the TableSource of a streamed query: the rows of the
// stored tables its plan scans are taken when the statement starts, as
// PostgreSQL's snapshot is, although the operators read them only as the
// result is sent. A scan that begins late (the second branch of a UNION
// ALL, a portal continued by a later Execute) therefore sees neither rows
// another session committed meanwhile nor rows this transaction wrote
// after the query began. Taking them is cheap: stored rows are in memory
// and ScanTable copies a slice of batch references.
//
// Catalog relations (pg_class, ...) are still computed at their first scan
// (catalogView caches them for the statement), and scans inside subquery
// expressions are read when the subquery runs.
type snapshotTables struct {
	*catalogView
	rows map[*planner.Scan][]arrow.RecordBatch
}

func (s *Session) snapshotTables(ctx context.Context, plan planner.Node) (*snapshotTables, error) {
	t := &snapshotTables{catalogView: s.statementCatalogView(), rows: map[*planner.Scan][]arrow.RecordBatch{}}
	var walk func(n planner.Node) error
	walk = func(n planner.Node) error {
		if n == nil {
			return nil
		}
		if sc, ok := n.(*planner.Scan); ok && sc.Kind == planner.StoredTable {
			b, err := t.catalogView.ScanTable(ctx, sc)
			if err != nil {
				return err
			}
			t.rows[sc] = b
		}
		for _, c := range n.Children() {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(plan); err != nil {
		return nil, err
	}
	return t, nil
}

// ScanTable implements exec.TableSource.
func (t *snapshotTables) ScanTable(ctx context.Context, scan *planner.Scan) ([]arrow.RecordBatch, error) {
	if b, ok := t.rows[scan]; ok {
		return b, nil
	}
	return t.catalogView.ScanTable(ctx, scan)
}
