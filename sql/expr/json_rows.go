package expr

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// RowJSONB is row i of the columns as a jsonb object of its column names
// and values, as PostgreSQL's to_jsonb(row) prints it. It lets one table
// hold rows of different shapes (a stream tree's late rows, which each
// stateful operator drops in the shape of its own input).
func RowJSONB(ctx *Ctx, names []string, ts []types.T, cols []arrow.Array, i int) string {
	o := &jsonObject{keys: make([]string, len(cols)), vals: make([]any, len(cols))}
	for c, arr := range cols {
		o.keys[c] = names[c]
		o.vals[c] = jsonFromValue(ctx, ts[c], arr, i, true)
	}
	return jsonbText(canonicalJSONB(o))
}
