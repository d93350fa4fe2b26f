package expr

import (
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// ScalarImpl computes a function over n rows. args are already coerced to
// the overload's argument types. The result must have n elements.
type ScalarImpl func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error)

// Polymorphic argument markers usable in Overload.Args.
var (
	// AnyElement matches any type; all AnyElement arguments (and the
	// element type of AnyArray arguments) must resolve to one type.
	AnyElement = types.T{OID: types.OidAnyElement, Typmod: -1}
	// AnyArray matches any array type.
	AnyArray = types.T{OID: types.OidAnyArray, Typmod: -1}
	// Any matches any type independently (like PostgreSQL's "any").
	Any = types.T{OID: types.OidAny, Typmod: -1}
)

// Overload is one signature of a scalar function or operator.
type Overload struct {
	Args     []types.T
	Variadic bool // the last argument may repeat (zero or more times)
	Ret      types.T
	// RetFn computes the result type from the resolved argument types; it
	// overrides Ret when set (polymorphic functions).
	RetFn func(args []types.T) types.T
	Impl  ScalarImpl
	// Volatile functions (now() is not: it is stable) are never folded.
	Volatile bool
	// Specialize, when set, builds the implementation for the resolved
	// argument and result types (functions over "any" whose behaviour
	// depends on the SQL type, not only the Arrow representation, such as
	// to_json or format). ResolveScalar returns a copy of the overload whose
	// Impl is the specialised one.
	Specialize func(args []types.T, ret types.T) ScalarImpl
}

var scalars = map[string][]Overload{}

// RegisterScalar adds overloads for a function or operator name. Operators
// are registered under their symbol ("+", "=", "~~"), functions under their
// lower-case name without schema.
func RegisterScalar(name string, ovs ...Overload) {
	scalars[name] = append(scalars[name], ovs...)
}

// IsVolatile reports whether some overload of the function is volatile
// (its result may change between calls with the same arguments).
func IsVolatile(name string) bool {
	for _, ov := range scalars[name] {
		if ov.Volatile {
			return true
		}
	}
	return false
}

// HasScalar reports whether a function of that name exists.
func HasScalar(name string) bool { _, ok := scalars[name]; return ok }

// ScalarNames lists registered function names (for pg_proc).
func ScalarNames() []string {
	out := make([]string, 0, len(scalars))
	for k := range scalars {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Resolved is a chosen overload with the types its arguments are coerced to.
type Resolved struct {
	Overload *Overload
	ArgTypes []types.T // target type per actual argument
	Ret      types.T
}

// ResolveScalar picks the overload of name for the given argument types, as
// PostgreSQL's function resolution would in the common cases: exact match,
// then matches needing only implicit casts, preferring fewer casts and the
// preferred type of a category; untyped literals (unknown) match anything.
func ResolveScalar(name string, args []types.T) (*Resolved, error) {
	ovs, ok := scalars[name]
	if !ok {
		return nil, undefinedFunction(name, args)
	}
	best := -1
	var bestRank candidateRank
	var bestArgs []types.T
	for i := range ovs {
		targets, cost, ok := match(&ovs[i], args)
		if !ok {
			continue
		}
		rank := rankCandidate(&ovs[i], args, cost)
		if best < 0 || rank.better(bestRank) {
			best, bestRank, bestArgs = i, rank, targets
		}
	}
	if best < 0 {
		return nil, undefinedFunction(name, args)
	}
	ov := &ovs[best]
	ret := ov.Ret
	if ov.RetFn != nil {
		ret = ov.RetFn(bestArgs)
	}
	if ov.Specialize != nil {
		spec := *ov
		spec.Impl = ov.Specialize(bestArgs, ret)
		ov = &spec
	}
	return &Resolved{Overload: ov, ArgTypes: bestArgs, Ret: ret}, nil
}

// candidateRank orders the overloads an argument list can reach as
// PostgreSQL's func_select_candidate does: most arguments matching exactly,
// then most coerced arguments landing on their category's preferred type
// (float8 for numbers, text for strings), then weir's cast cost.
type candidateRank struct {
	exact, preferred, cost int
}

func (r candidateRank) better(o candidateRank) bool {
	if r.exact != o.exact {
		return r.exact > o.exact
	}
	if r.preferred != o.preferred {
		return r.preferred > o.preferred
	}
	return r.cost < o.cost
}

func rankCandidate(ov *Overload, args []types.T, cost int) candidateRank {
	r := candidateRank{cost: cost}
	for i, a := range args {
		if a.OID == types.OidUnknown {
			continue
		}
		p := paramAt(ov, i)
		switch {
		case p.OID == a.OID:
			r.exact++
			r.preferred++
		case preferredIn(a.OID, p.OID):
			r.preferred++
		}
	}
	return r
}

// preferredIn tells whether to is the preferred type of from's category.
func preferredIn(from, to uint32) bool {
	switch to {
	case types.OidFloat8:
		_, ok := numericRank[from]
		return ok
	case types.OidText:
		return isStringType(from)
	case types.OidTimestampTZ:
		return from == types.OidDate || from == types.OidTimestamp
	}
	return false
}

func undefinedFunction(name string, args []types.T) error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.String()
	}
	if isOperator(name) {
		switch len(args) {
		case 1:
			return sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s %s", name, names[0]).
				WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
		case 2:
			return sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s %s %s", names[0], name, names[1]).
				WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
		}
	}
	return sqlerr.New(sqlerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func isOperator(name string) bool {
	return name != "" && strings.IndexAny(name[:1], "+-*/<>=~!@#%^&|`?") == 0
}

// match checks one overload; it returns the coercion targets and a cost.
func match(ov *Overload, args []types.T) ([]types.T, int, bool) {
	n := len(ov.Args)
	if ov.Variadic {
		if len(args) < n-1 {
			return nil, 0, false
		}
	} else if len(args) != n {
		return nil, 0, false
	}
	// Resolve the polymorphic element type first.
	var poly types.T
	havePoly := false
	for i, a := range args {
		p := paramAt(ov, i)
		if a.OID == types.OidUnknown {
			continue
		}
		switch p.OID {
		case types.OidAnyElement:
			if !havePoly {
				poly, havePoly = a, true
			} else if poly.OID != a.OID {
				if c, ok := commonType(poly, a); ok {
					poly = c
				} else {
					return nil, 0, false
				}
			}
		case types.OidAnyArray:
			if !a.IsArray() {
				return nil, 0, false
			}
			e := a.Elem()
			if !havePoly {
				poly, havePoly = e, true
			} else if poly.OID != e.OID {
				return nil, 0, false
			}
		}
	}
	if !havePoly {
		poly = types.Text
	}
	targets := make([]types.T, len(args))
	cost := 0
	for i, a := range args {
		p := paramAt(ov, i)
		switch p.OID {
		case types.OidAny:
			targets[i] = a
			if a.OID == types.OidUnknown {
				targets[i] = types.Text
			}
			cost++
			continue
		case types.OidAnyElement:
			p = poly
			cost++
		case types.OidAnyArray:
			p = types.ArrayOf(poly)
			cost++
		}
		targets[i] = p
		if a.OID == p.OID {
			if p.OID == types.OidVarchar || p.OID == types.OidBpchar || p.OID == types.OidNumeric {
				targets[i] = a // keep the modifier
			}
			continue
		}
		if a.OID == types.OidUnknown {
			cost += 2
			if p.OID != types.OidText {
				cost++
			}
			continue
		}
		c, ok := ImplicitCastCost(a, p)
		if !ok {
			return nil, 0, false
		}
		cost += c
	}
	return targets, cost, true
}

func paramAt(ov *Overload, i int) types.T {
	if i >= len(ov.Args) {
		return ov.Args[len(ov.Args)-1]
	}
	return ov.Args[i]
}

// numericRank orders the numeric types by PostgreSQL's implicit promotion.
var numericRank = map[uint32]int{
	types.OidInt2: 1, types.OidInt4: 2, types.OidInt8: 3, types.OidNumeric: 4,
	types.OidFloat4: 5, types.OidFloat8: 6,
}

func isStringType(oid uint32) bool {
	switch oid {
	case types.OidText, types.OidVarchar, types.OidBpchar, types.OidName, types.OidChar:
		return true
	}
	return false
}

func isRegType(oid uint32) bool {
	switch oid {
	case types.OidOid, types.OidRegclass, types.OidRegtype, types.OidRegproc, types.OidRegnamespace, types.OidRegrole:
		return true
	}
	return false
}

// ImplicitCastCost tells whether from can be implicitly cast to to, and how
// far it is (smaller is preferred).
func ImplicitCastCost(from, to types.T) (int, bool) {
	if from.OID == to.OID {
		return 0, true
	}
	if from.OID == types.OidUnknown {
		return 2, true
	}
	if rf, ok := numericRank[from.OID]; ok {
		if rt, ok := numericRank[to.OID]; ok && rt > rf {
			c := rt - rf
			if to.OID == types.OidFloat8 {
				c-- // float8 is the preferred numeric type
			}
			return 1 + c, true
		}
		if isRegType(to.OID) && (from.OID == types.OidInt4 || from.OID == types.OidInt2 || from.OID == types.OidInt8) {
			return 3, true
		}
		return 0, false
	}
	if isStringType(from.OID) && isStringType(to.OID) {
		if to.OID == types.OidText {
			return 1, true
		}
		return 2, true
	}
	if isRegType(from.OID) && isRegType(to.OID) {
		return 1, true
	}
	if isRegType(from.OID) && (to.OID == types.OidInt8 || to.OID == types.OidInt4) {
		return 3, true
	}
	switch {
	case from.OID == types.OidDate && (to.OID == types.OidTimestamp || to.OID == types.OidTimestampTZ):
		return 2 + btoi(to.OID == types.OidTimestamp), true
	case from.OID == types.OidTimestamp && to.OID == types.OidTimestampTZ:
		return 1, true
	case from.OID == types.OidJSON && to.OID == types.OidJSONB:
		return 0, false
	}
	return 0, false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CommonType is the type a set of values (CASE branches, UNION columns,
// COALESCE, IN lists, VALUES columns) resolves to, as PostgreSQL's
// select_common_type: unknown yields to anything, numeric types widen,
// string types become text.
func CommonType(ts []types.T) (types.T, error) {
	var out types.T
	have := false
	for _, t := range ts {
		if t.OID == types.OidUnknown {
			continue
		}
		if !have {
			out, have = t, true
			continue
		}
		c, ok := commonType(out, t)
		if !ok {
			return types.T{}, sqlerr.New(sqlerr.DatatypeMismatch, "types %s and %s cannot be matched", out, t)
		}
		out = c
	}
	if !have {
		return types.Text, nil
	}
	return out, nil
}

func commonType(a, b types.T) (types.T, bool) {
	if a.IsStruct() || b.IsStruct() {
		// Two struct types of as many fields meet in the first (the others
		// are cast to it field by field); a struct and anything else do not.
		if a.IsStruct() && b.IsStruct() && len(a.Fields()) == len(b.Fields()) {
			return a, true
		}
		return types.T{}, false
	}
	if a.OID == b.OID {
		if a.Typmod != b.Typmod {
			return types.T{OID: a.OID, Typmod: -1}, true
		}
		return a, true
	}
	if _, ok := ImplicitCastCost(b, a); ok {
		return types.T{OID: a.OID, Typmod: -1}, true
	}
	if _, ok := ImplicitCastCost(a, b); ok {
		return types.T{OID: b.OID, Typmod: -1}, true
	}
	return types.T{}, false
}
