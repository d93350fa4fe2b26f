package engine

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// decodeParams converts bound parameter values into datums of the
// statement's parameter types.
func (st *statement) decodeParams(params []wire.Value) ([]expr.Datum, error) {
	if len(params) != len(st.paramTypes) {
		return nil, sqlerr.New(sqlerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(st.paramTypes))
	}
	out := make([]expr.Datum, len(params))
	if len(params) == 0 {
		return out, nil
	}
	fs := st.sess.FormatSettings()
	// One builder per parameter type: a statement with thousands of
	// parameters (a batched INSERT) decodes them into a few arrays.
	type pending struct {
		b   array.Builder
		idx []int
	}
	byType := map[types.T]*pending{}
	var order []types.T
	for i, p := range params {
		if p.Data == nil {
			continue
		}
		t := st.paramTypes[i]
		if t.OID == 0 || t.OID == types.OidUnknown {
			t = types.Text
		}
		pd := byType[t]
		if pd == nil {
			pd = &pending{b: expr.NewBuilder(nil, t)}
			byType[t] = pd
			order = append(order, t)
			defer pd.b.Release()
		}
		var err error
		if p.Format == 1 {
			err = types.AppendParsedBinary(pd.b, t, p.Data)
		} else {
			err = types.AppendParsedText(pd.b, t, p.Data, &fs)
		}
		if err != nil {
			return nil, err
		}
		pd.idx = append(pd.idx, i)
	}
	for _, t := range order {
		pd := byType[t]
		arr := pd.b.NewArray()
		for k, i := range pd.idx {
			out[i] = expr.DatumAt(arr, k)
		}
		arr.Release()
	}
	return out, nil
}
