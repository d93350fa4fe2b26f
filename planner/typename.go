package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// ResolveTypeName turns a parsed type name (with modifiers and array
// bounds) into a types.T, as PostgreSQL's typenameType does.
func ResolveTypeName(tn *pg_query.TypeName) (types.T, error) {
	names := stringList(tn.Names)
	if len(names) == 0 {
		return types.T{}, sqlerr.New(sqlerr.SyntaxError, "empty type name")
	}
	name := names[len(names)-1]
	var t types.T
	var ok bool
	if len(names) > 1 && names[0] == "pg_catalog" {
		// The grammar spells SQL-standard types as pg_catalog.<typname>.
		t, ok = types.ByTypname(name)
	}
	if !ok {
		t, ok = types.ByName(name)
	}
	if !ok && len(names) == 1 {
		if name == parse.SparkTypeNameFunc {
			return sparkCompositeType(tn)
		}
		// Spark's names for types PostgreSQL spells otherwise (STRING,
		// LONG, DOUBLE, TIMESTAMP_NTZ, ...); PostgreSQL's own names keep
		// their meaning.
		t, ok = types.SparkOnlyName(name)
	}
	if !ok {
		return types.T{}, &sqlerr.Error{Code: sqlerr.UndefinedObject, Message: "type \"" + name + "\" does not exist", Position: int(tn.Location) + 1}
	}
	mods := make([]int32, 0, len(tn.Typmods))
	for _, m := range tn.Typmods {
		if c := m.GetAConst(); c != nil && c.GetIval() != nil {
			mods = append(mods, c.GetIval().Ival)
		}
	}
	switch t.OID {
	case types.OidVarchar, types.OidBpchar:
		if len(mods) == 1 {
			if mods[0] < 1 {
				return types.T{}, sqlerr.New(sqlerr.InvalidParameterValue, "length for type %s must be at least 1", name)
			}
			t.Typmod = mods[0] + 4
		} else if t.OID == types.OidBpchar && len(names) > 1 {
			t.Typmod = 1 + 4 // char without length is char(1)
		}
	case types.OidNumeric:
		switch len(mods) {
		case 1:
			t.Typmod = (mods[0] << 16) + 4
		case 2:
			if mods[0] < 1 || mods[0] > 1000 {
				return types.T{}, sqlerr.New(sqlerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", mods[0])
			}
			t.Typmod = ((mods[0] << 16) | (mods[1] & 0xffff)) + 4
		}
	case types.OidInterval:
		if len(mods) > 0 {
			m, err := types.IntervalTypmod(mods)
			if err != nil {
				return types.T{}, err
			}
			if m != types.IntervalFullRange<<16|types.IntervalFullPrecision {
				t.Typmod = m
			}
		}
	case types.OidTimestamp, types.OidTimestampTZ, types.OidTime:
		if len(mods) == 1 {
			t.Typmod = mods[0]
		}
	}
	if len(tn.ArrayBounds) > 0 {
		t = types.ArrayOf(t)
	}
	return t, nil
}

func stringList(ns []*pg_query.Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// sparkCompositeType resolves STRUCT<...>, ARRAY<...> and MAP<...>, which
// the parser rewrote to weir_spark_type('<the Spark text>').
func sparkCompositeType(tn *pg_query.TypeName) (types.T, error) {
	pos := int(tn.Location) + 1
	if len(tn.Typmods) != 1 || tn.Typmods[0].GetAConst() == nil || tn.Typmods[0].GetAConst().GetSval() == nil {
		return types.T{}, &sqlerr.Error{Code: sqlerr.UndefinedObject, Message: "type \"" + parse.SparkTypeNameFunc + "\" does not exist", Position: pos}
	}
	t, err := types.ParseSparkType(tn.Typmods[0].GetAConst().GetSval().Sval)
	if err != nil {
		return types.T{}, sqlerr.PositionIfNone(err, pos)
	}
	if len(tn.ArrayBounds) > 0 {
		if t.IsStruct() || t.IsArray() {
			return types.T{}, sqlerr.At(sqlerr.FeatureNotSupported, pos, "arrays of %s are not supported", t)
		}
		t = types.ArrayOf(t)
	}
	return t, nil
}

// sparkTypeColname names the column of a cast to a Spark composite type
// as PostgreSQL names a cast's column by the type's internal name: int4
// for ARRAY<INT> (as for int[]), record for a STRUCT.
func sparkTypeColname(tn *pg_query.TypeName) string {
	t, err := sparkCompositeType(tn)
	if err != nil {
		return "?column?"
	}
	if t.IsArray() {
		t = t.Elem()
	}
	return t.Info().Name
}
