package engine

import (
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
	fs := st.sess.FormatSettings()
	for i, p := range params {
		if p.Data == nil {
			continue
		}
		t := st.paramTypes[i]
		if t.OID == 0 || t.OID == types.OidUnknown {
			t = types.Text
		}
		b := expr.NewBuilder(nil, t)
		var err error
		if p.Format == 1 {
			err = types.AppendParsedBinary(b, t, p.Data)
		} else {
			err = types.AppendParsedText(b, t, p.Data, &fs)
		}
		if err != nil {
			b.Release()
			return nil, err
		}
		arr := b.NewArray()
		out[i] = expr.DatumAt(arr, 0)
		arr.Release()
		b.Release()
	}
	return out, nil
}
