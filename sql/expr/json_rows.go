package expr

import (
	"bytes"

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

// AppendRowJSON appends row i of the columns as a json object of its
// column names and values, in column order, as PostgreSQL's
// row_to_json(row) prints it (no spaces; numbers as numbers; timestamps
// in ISO 8601; json values as written). The files sink writes JSON lines
// with it.
func AppendRowJSON(ctx *Ctx, buf []byte, names []string, ts []types.T, cols []arrow.Array, i int) []byte {
	o := &jsonObject{keys: make([]string, len(cols)), vals: make([]any, len(cols))}
	for c, arr := range cols {
		o.keys[c] = names[c]
		o.vals[c] = jsonFromValue(ctx, ts[c], arr, i, false)
	}
	var b bytes.Buffer
	writeJSONStyled(&b, o, ",", ":")
	return append(buf, b.Bytes()...)
}
