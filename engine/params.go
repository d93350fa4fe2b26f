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
		if p.Format == 0 && isRegType(t.OID) {
			d, err := st.regParam(t, p.Data)
			if err != nil {
				return nil, err
			}
			out[i] = d
			continue
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

// isRegType reports whether oid is one of the reg* types, whose text input
// names a catalog object.
func isRegType(oid uint32) bool {
	switch oid {
	case types.OidRegclass, types.OidRegtype, types.OidRegproc, types.OidRegnamespace, types.OidRegrole:
		return true
	}
	return false
}

// regParam reads a reg* parameter sent as text ('int4' for $1::regtype,
// as psycopg's TypeInfo.fetch sends it): the name is looked up in the
// catalog, as the type's input function does in PostgreSQL.
func (st *statement) regParam(t types.T, data []byte) (expr.Datum, error) {
	b := expr.NewBuilder(nil, types.Text)
	defer b.Release()
	b.(*array.StringBuilder).Append(string(data))
	in := b.NewArray()
	defer in.Release()
	cast, err := expr.LookupCast(types.Text, t)
	if err != nil {
		return nil, err
	}
	res, err := cast(st.sess.exprCtx(nil), in, types.Text, t)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return expr.DatumAt(res, 0), nil
}
