package engine

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A streaming table's NOT NULL columns are enforced, as Databricks
// enforces them (and its PRIMARY KEY columns, which are NOT NULL
// implicitly there as in PostgreSQL; the key itself is informational and
// not checked): an epoch whose rows hold a NULL in one fails before its
// commit, with PostgreSQL's 23502, and the table stops with that error
// (streaming_progress.last_error, DESCRIBE EXTENDED's State) until REFRESH
// STREAMING TABLE runs it again — from its last committed epoch, so
// nothing of the failed epoch is ever stored.

// notNullColumns are the columns of rel that must not hold NULL.
func notNullColumns(rel *catalog.Relation) []string {
	var out []string
	for _, c := range rel.Columns {
		if c.NotNull {
			out = append(out, c.Name)
			continue
		}
		for _, k := range rel.PrimaryKey {
			if k == c.Name {
				out = append(out, c.Name)
				break
			}
		}
	}
	return out
}

// checkEpochNotNull refuses an epoch's output with a NULL in one of cols.
func checkEpochNotNull(table string, cols []string, epoch int64, output []arrow.RecordBatch) error {
	if len(cols) == 0 {
		return nil
	}
	for _, b := range output {
		sch := b.Schema()
		for _, name := range cols {
			idx := sch.FieldIndices(name)
			if len(idx) == 0 || b.Column(idx[0]).NullN() == 0 {
				continue
			}
			return sqlerr.New(sqlerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", name, table).
				WithDetail(fmt.Sprintf("Epoch %d of streaming table %s is not committed.", epoch, table)).
				WithHint("Filter the NULLs out in the query (WHERE " + name + " IS NOT NULL), then REFRESH STREAMING TABLE " + table + ".")
		}
	}
	return nil
}

// keyDetails is DESCRIBE EXTENDED's row of a streaming table's primary
// key (none without one): its columns, and that it is informational.
func keyDetails(rel *catalog.Relation) [][2]string {
	if len(rel.PrimaryKey) == 0 {
		return nil
	}
	return [][2]string{{"Primary Key", rel.Name + "_pkey PRIMARY KEY (" + strings.Join(rel.PrimaryKey, ", ") + ") NOT ENFORCED (informational; its columns are NOT NULL, which is enforced)"}}
}
