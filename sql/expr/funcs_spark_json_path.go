package expr

import (
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// _json_path_ci(doc json, path text[], steps text) is Databricks'
// raw:path extraction, which the parser writes it to (sql/parse's
// jsonPaths): path as #>> takes it, and steps one letter per element:
// 'i' for an identifier, matched without regard to case, as Databricks
// matches an undelimited field name in a JSON string; 'e' for a bracketed
// ['field'] or an index, matched exactly. An identifier that matches
// several fields differing only in case is an error (Databricks: the
// field cannot be identified uniquely); one that matches none gives NULL.
// The value comes out as #>> gives it: strings unquoted, JSON null as SQL
// NULL, objects and arrays as their JSON text.
func init() {
	RegisterScalar("_json_path_ci", Overload{Args: []types.T{types.JSON, types.ArrayOf(types.Text), types.Text}, Ret: types.Text,
		Impl: NonStrict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			if a[0] == nil || a[1] == nil || a[2] == nil {
				return nil, nil
			}
			path := a[1].([]Datum)
			steps := a[2].(string)
			v, err := parseJSONShallow(a[0].(string))
			if err != nil {
				return nil, err
			}
			for k, p := range path {
				if p == nil {
					return nil, nil
				}
				if r, ok := v.(rawJSON); ok {
					if v, err = parseJSONShallow(string(r)); err != nil {
						return nil, nil
					}
				}
				key := p.(string)
				o, isObject := v.(*jsonObject)
				if k < len(steps) && steps[k] == 'i' && isObject {
					var found any
					foundName, n := "", 0
					for i, name := range o.keys {
						if !strings.EqualFold(name, key) {
							continue
						}
						if n > 0 && name != foundName {
							return nil, sqlerr.New(sqlerr.InvalidParameterValue, "the JSON field %s matches several fields differing in case", key).
								WithHint("Write raw:['" + key + "'] to match the field's case exactly.")
						}
						found, foundName, n = o.vals[i], name, n+1 // a repeated key: its last value, as -> reads it
					}
					if n == 0 {
						return nil, nil
					}
					v = found
					continue
				}
				var ok bool
				if v, ok = jsonField(v, key, false, 0); !ok {
					return nil, nil
				}
			}
			return jsonOut(v, true, false), nil
		})})
}
